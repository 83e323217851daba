// zkpipe-bench-filecoin: Filecoin's SDR on the CPU at a sector size (2KiB, 8MiB or 512MiB): the
// parent cache (its SHA-256 against rust-fil-proofs' parent_cache.json, when given; built in
// memory on all threads), the labels of every layer (one thread, as labelling is sequential), and a
// whole in-memory seal (labels, replica, comm_d, comm_c, comm_r_last). One JSON object on stdout
// (seconds, and nanoseconds per node and layer); progress on stderr. README "Performance" and
// docs/filecoin.md give the figures and the published ones beside them.
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "zkpipe/filecoin/commd.h"
#include "zkpipe/filecoin/porep_inputs.h"
#include "zkpipe/filecoin/sdr.h"
#include "zkpipe/sdk/clock.h"

using namespace zkpipe;
using namespace zkpipe::filecoin;

int main(int argc, char** argv) {
  CLI::App app{"zkpipe-bench-filecoin: SDR parent cache, labels and a whole seal on the CPU"};
  std::string size = "8MiB", registered, parent_json;
  bool seal = true;
  app.add_option("--size", size, "2KiB, 8MiB or 512MiB")
      ->check(CLI::IsMember({"2KiB", "8MiB", "512MiB"}));
  app.add_option("--parent-cache-json", parent_json, "rust-fil-proofs' parent_cache.json");
  app.add_flag("!--no-seal", seal, "stop after the labels");
  CLI11_PARSE(app, argc, argv);
  registered = "StackedDrg" + size + "V1_1";
  const PorepConfig config = *registered_porep(registered);
  const SectorShape shape = *sector_shape(config.sector_size);
  const SdrGraph graph(shape.nodes, config.porep_id, config.api_version);
  nlohmann::json out = {{"registered_proof", registered},
                        {"nodes", shape.nodes},
                        {"layers", shape.layers},
                        {"threads", std::thread::hardware_concurrency()}};

  fmt::print(stderr, "{}: parent cache digest ({} nodes)\n", registered, shape.nodes);
  int64_t t0 = now_ns();
  const std::string digest = to_hex(graph.cache_digest());
  out["parent_cache_s"] = (now_ns() - t0) / 1e9;
  out["parent_cache_name"] = graph.cache_name();
  out["parent_cache_sha256"] = digest;
  if (!parent_json.empty()) {
    std::ifstream in(parent_json);
    const nlohmann::json manifest = nlohmann::json::parse(in, nullptr, false);
    const bool listed = manifest.is_object() && manifest.contains(graph.cache_name());
    out["parent_cache_matches"] = listed && manifest[graph.cache_name()]["digest"] == digest;
  }

  fmt::print(stderr, "{}: labels of {} layers\n", registered, shape.layers);
  const Domain rid = replica_id({}, 1, {}, *zero_piece_comm(config.sector_size), config.porep_id);
  t0 = now_ns();
  const std::vector<uint32_t> cache = graph.cache();
  out["parent_cache_build_s"] = (now_ns() - t0) / 1e9;
  t0 = now_ns();
  const auto labels = sdr_labels(cache, shape.nodes, rid, shape.layers);
  const double label_s = (now_ns() - t0) / 1e9;
  out["labels_s"] = label_s;
  out["label_ns_per_node_layer"] = label_s * 1e9 / double(shape.nodes * shape.layers);
  out["last_label"] = to_hex(labels.back().back());

  if (seal) {
    fmt::print(stderr, "{}: whole seal of a zero sector\n", registered);
    const std::vector<uint8_t> data(config.sector_size, 0);
    t0 = now_ns();
    Result<SealedSector> s = seal_sector(data, shape, config, rid);
    out["seal_s"] = (now_ns() - t0) / 1e9;
    if (!s.ok()) {
      fmt::print(stderr, "seal: {}\n", s.status().to_string());
      return 1;
    }
    out["comm_r"] = to_hex(s->comm_r);
  }
  fmt::print("{}\n", out.dump());
  return out.value("parent_cache_matches", true) ? 0 : 1;
}
