// plugins/snapdeals/plugin/snapdeals_command.cpp: the snapdeals proof type's own command line
// (ABI 1.3 `command`), run by `zkpipe-tool proof-type snapdeals ...`: its inputs, made and checked
// without the engine:
//   shapes  the presets, with each one's constraints per partition
//   update  sealed empty sector (porep seal --empty) + data seed -> vanilla proofs
//   check   decode and fully check a snapdeals vanilla-proof file
// Thread-safety: main thread only.
#include <bit>
#include <memory>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "snapdeals_command.h"
#include "zkpipe/sdk/cli_command.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/request.h"
#include "zkpipe/sector/sector_file.h"
#include "zkpipe/snapdeals/circuit.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace zkpipe::snapdeals {
namespace {

using sdk::guarded;

int fail(const char* cmd, const Status& s) {
  fmt::print(stderr, "snapdeals {}: {}\n", cmd, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

int run_shapes(bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    fmt::print("{:<8} {:>10} {:>3} {:>5} {:>10} {:>12} {:>7} {}\n", "shape", "sector", "h", "chal",
               "partitions", "constraints", "domain", "circuit");
  }
  for (const Shape& s : shape_presets()) {
    porep::CircuitSize c = count_circuit(s);
    const int domain = std::countr_zero(std::bit_ceil(c.constraints + c.inputs));
    if (json) {
      out.push_back({{"shape", s.name},
                     {"sector_bytes", s.nodes * porep::kNodeBytes},
                     {"h", s.h},
                     {"challenges", s.challenges},
                     {"partitions", s.partitions},
                     {"public_inputs", c.inputs - 1},
                     {"aux", c.aux},
                     {"constraints_per_partition", c.constraints},
                     {"domain_log2", domain},
                     {"circuit_id", s.circuit_id()}});
    } else {
      fmt::print("{:<8} {:>10} {:>3} {:>5} {:>10} {:>12} {:>5}{:>2} {}\n", s.name,
                 s.nodes * porep::kNodeBytes, s.h, s.challenges, s.partitions, c.constraints, "2^",
                 domain, s.circuit_id());
    }
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return 0;
}

struct UpdateOptions {
  std::string sector, shape, data_seed, out;
  uint32_t h = 0, challenges = 0, partition_count = 0;  // overrides of the preset (0: keep)
  std::vector<uint32_t> partitions;
  bool json = false;
  unsigned threads = 0;
};

int run_update(const UpdateOptions& o) {
  if (auto s = check_output_path(o.out, "--out"); !s.ok()) return fail("update", s);
  const int64_t start = now_ns();
  auto key = porep::load_sector(o.sector, o.threads);
  if (!key.ok()) return fail("update", key.status());
  auto shape = find_shape(o.shape.empty() ? key->shape.name : o.shape);
  if (!shape.ok()) return fail("update", shape.status());
  if (o.h != 0) shape->h = o.h;
  if (o.challenges != 0) shape->challenges = o.challenges;
  if (o.partition_count != 0) shape->partitions = o.partition_count;
  if (o.h != 0 || o.challenges != 0 || o.partition_count != 0) shape->name = "custom";
  auto u = update(*key, *shape, porep::seed_from_string(o.data_seed), o.threads);
  if (!u.ok()) return fail("update", u.status().with_context(o.sector));
  std::vector<uint32_t> parts = o.partitions;
  if (parts.empty()) {
    for (uint32_t k = 0; k < shape->partitions; ++k) parts.push_back(k);
  }
  for (uint32_t k : parts) {
    if (k >= shape->partitions) {
      return fail("update", invalid_argument(fmt::format("--partition {}: the shape has {}", k,
                                                         shape->partitions)));
    }
  }
  VanillaProofs v = make_vanilla_proofs(*u, parts, o.threads);
  if (auto s = check_vanilla(v, o.out, o.threads); !s.ok()) return fail("update", s);
  std::string bytes;
  if (o.json) {
    bytes = vanilla_to_json(v).dump(1) + "\n";
  } else {
    std::vector<uint8_t> b = encode_vanilla(v);
    bytes.assign(b.begin(), b.end());
  }
  if (auto s = write_file(o.out, bytes); !s.ok()) return fail("update", s);
  fmt::print("snapdeals update: {} partition(s) x {} challenge(s), {} bytes, {:.2f} s -> {}\n",
             parts.size(), shape->challenges, bytes.size(), seconds_since(start), o.out);
  fmt::print("comm_r_old 0x{}\ncomm_d_new 0x{}\ncomm_r_new 0x{}\n", v.comms.comm_r_old.to_hex(),
             v.comms.comm_d_new.to_hex(), v.comms.comm_r_new.to_hex());
  return 0;
}

int run_check(const std::string& path, unsigned threads) {
  const int64_t start = now_ns();
  auto bytes = read_file(path);
  if (!bytes.ok()) return fail("check", bytes.status());
  auto v = plugins::decode_request(as_bytes(*bytes), path, &request_shape(), decode_vanilla,
                                   vanilla_from_json);
  if (!v.ok()) return fail("check", v.status());
  if (auto s = check_vanilla(*v, path, threads); !s.ok()) return fail("check", s);
  fmt::print("snapdeals check: {}: OK ({} partition(s) of {}, {:.1f} ms)\n", path,
             v->partitions.size(), v->shape.circuit_id(), 1e3 * seconds_since(start));
  return 0;
}

}  // namespace

int run_command(std::span<const std::string> args) {
  CLI::App app{
      "snapdeals: SnapDeals-style empty-sector update inputs: shapes, encoding, vanilla proofs"};
  app.name("zkpipe-tool proof-type " + args[0]);
  int code = 0;
  int* exit_code = &code;
  CLI::App* cmd = &app;
  cmd->require_subcommand(1);
  auto json = std::make_shared<bool>(false);
  CLI::App* shapes = cmd->add_subcommand("shapes", "The presets and their circuit sizes");
  shapes->add_flag("--json", *json, "print JSON");
  shapes->callback([json, exit_code] {
    *exit_code = guarded("snapdeals shapes", [&] { return run_shapes(*json); });
  });

  auto o = std::make_shared<UpdateOptions>();
  CLI::App* upd = cmd->add_subcommand(
      "update", "Encode new data into a sealed empty sector and write the vanilla proofs");
  upd->add_option("--sector", o->sector, "sector key: a cache from porep seal --empty")->required();
  upd->add_option("--shape", o->shape, "preset (default: the sector's preset name)");
  upd->add_option("--data-seed", o->data_seed, "seed of the new data")->required();
  upd->add_option("--h", o->h, "override: high index bits rho depends on");
  upd->add_option("--challenges", o->challenges, "override: challenges per partition");
  upd->add_option("--partitions", o->partition_count, "override: partitions");
  upd->add_option("--partition", o->partitions, "partition(s) to open (default: all)");
  upd->add_flag("--json", o->json, "write JSON instead of the binary format");
  upd->add_option("--out", o->out, "vanilla-proof file to write")->required();
  upd->add_option("--threads", o->threads, "threads (0: all)");
  upd->callback(
      [o, exit_code] { *exit_code = guarded("snapdeals update", [&] { return run_update(*o); }); });

  auto path = std::make_shared<std::string>();
  auto threads = std::make_shared<unsigned>(0);
  CLI::App* check = cmd->add_subcommand("check", "Decode and check a vanilla-proof file");
  check->add_option("file", *path, "vanilla-proof file (binary or JSON)")->required();
  check->add_option("--threads", *threads, "threads (0: all)");
  check->callback([path, threads, exit_code] {
    *exit_code = guarded("snapdeals check", [&] { return run_check(*path, *threads); });
  });
  return sdk::run_cli(app, args, code);
}

}  // namespace zkpipe::snapdeals
