// plugins/porep/plugin/porep_command.cpp: the porep proof type's own command line (ABI 1.3
// `command`), run by `zkpipe-tool proof-type porep ...`: its inputs, made and checked without the
// engine:
//   shapes   the presets, with each one's constraints per partition (counted, not recorded)
//   seal     synthetic sector from a seed -> sealed-sector cache (data + labels)
//   vanilla  cache + challenge seed -> vanilla proofs of chosen partitions (binary or JSON)
//   check    decode and fully check a vanilla-proof file, naming what is wrong
// Thread-safety: main thread only (sealing and checking spread over threads themselves).
#include <unistd.h>

#include <bit>
#include <cctype>
#include <memory>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "porep_command.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/cli_command.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/request.h"
#include "zkpipe/sector/sector_file.h"

namespace zkpipe::porep {
namespace {

using sdk::guarded;

int fail(const char* cmd, const Status& s) {
  fmt::print(stderr, "porep {}: {}\n", cmd, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

// A vanilla file: binary, or JSON when it starts with '{'.
Result<VanillaProofs> read_vanilla(const std::string& path) {
  ZKP_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
  return plugins::decode_request(as_bytes(bytes), path, &request_shape(), decode_vanilla,
                                 vanilla_from_json);
}

int run_shapes(bool json) {
  nlohmann::json out = nlohmann::json::array();
  if (!json) {
    fmt::print("{:<8} {:>10} {:>6} {:>6} {:>5} {:>10} {:>10} {:>12} {:>7} {:>7}\n", "shape",
               "sector", "layers", "parents", "chal", "partitions", "inputs", "constraints",
               "domain", "circuit");
  }
  for (const Shape& s : shape_presets()) {
    CircuitSize c = count_circuit(s);
    const uint64_t domain = std::bit_ceil(c.constraints + c.inputs);
    if (json) {
      out.push_back({{"shape", s.name},
                     {"sector_bytes", s.sector_bytes()},
                     {"nodes", s.nodes},
                     {"layers", s.layers},
                     {"base_degree", s.base_degree},
                     {"expansion_degree", s.expansion_degree},
                     {"challenges", s.challenges},
                     {"partitions", s.partitions},
                     {"public_inputs", c.inputs - 1},
                     {"aux", c.aux},
                     {"constraints_per_partition", c.constraints},
                     {"domain_log2", std::countr_zero(domain)},
                     {"circuit_id", s.circuit_id()}});
    } else {
      fmt::print("{:<8} {:>10} {:>6} {:>3}+{:<2} {:>5} {:>10} {:>10} {:>12} {:>5}{:>2} {}\n",
                 s.name, s.sector_bytes(), s.layers, s.base_degree, s.expansion_degree,
                 s.challenges, s.partitions, c.inputs - 1, c.constraints, "2^",
                 std::countr_zero(domain), s.circuit_id());
    }
  }
  if (json) fmt::print("{}\n", out.dump(2));
  return 0;
}

struct SealOptions {
  std::string shape = "tiny", seed, out;
  unsigned threads = 0;
  bool empty = false;
  // Overrides of the preset's fields (0: keep); any override makes a custom shape.
  uint64_t nodes = 0;
  uint32_t layers = 0, base_degree = 0, expansion_degree = 0, challenges = 0, partitions = 0;
  bool expansion_set = false;
};

int run_seal(const SealOptions& o) {
  auto shape = find_shape(o.shape);
  if (!shape.ok()) return fail("seal", shape.status());
  if (o.nodes != 0) shape->nodes = o.nodes;
  if (o.layers != 0) shape->layers = o.layers;
  if (o.base_degree != 0) shape->base_degree = o.base_degree;
  if (o.expansion_set) shape->expansion_degree = o.expansion_degree;
  if (o.challenges != 0) shape->challenges = o.challenges;
  if (o.partitions != 0) shape->partitions = o.partitions;
  name_after_preset(*shape);
  if (auto st = validate_shape(*shape, "--shape " + o.shape + " with overrides"); !st.ok()) {
    return fail("seal", st);
  }
  if (auto st = check_output_path(o.out, "--out"); !st.ok()) return fail("seal", st);
  const int64_t start = now_ns();
  const bool tty = isatty(STDERR_FILENO) == 1;
  SealProgress progress;
  if (tty) {
    progress = [](const std::string& what, uint64_t done, uint64_t total) {
      fmt::print(stderr, "\rseal: {} {:3}%", what, 100 * done / total);
    };
  }
  SealedSector s = seal(*shape, seed_from_string(o.seed), o.threads, progress,
                        o.empty ? SectorData::kEmpty : SectorData::kSynthetic);
  if (tty) fmt::print(stderr, "\n");
  if (auto st = write_sector(o.out, s); !st.ok()) return fail("seal", st);
  fmt::print("porep seal: {} = {} ({} bytes) in {:.2f} s -> {}\n", shape->name, shape->circuit_id(),
             shape->sector_bytes(), seconds_since(start), o.out);
  fmt::print(
      "replica_id  0x{}\ncomm_d      0x{}\ncomm_c      0x{}\ncomm_r_last 0x{}\n"
      "comm_r      0x{}\n",
      s.replica_id.to_hex(), s.comms.comm_d.to_hex(), s.comms.comm_c.to_hex(),
      s.comms.comm_r_last.to_hex(), s.comms.comm_r.to_hex());
  return 0;
}

struct VanillaOptions {
  std::string sector, challenge_seed, out;
  std::vector<uint32_t> partitions;
  bool json = false;
  unsigned threads = 0;
};

int run_vanilla(const VanillaOptions& o) {
  if (auto st = check_output_path(o.out, "--out"); !st.ok()) return fail("vanilla", st);
  const int64_t start = now_ns();
  auto s = load_sector(o.sector, o.threads);
  if (!s.ok()) return fail("vanilla", s.status());
  std::vector<uint32_t> parts = o.partitions;
  if (parts.empty()) {
    for (uint32_t k = 0; k < s->shape.partitions; ++k) parts.push_back(k);
  }
  for (uint32_t k : parts) {
    if (k >= s->shape.partitions) {
      return fail("vanilla",
                  invalid_argument(fmt::format("--partition {}: the shape has {} partitions", k,
                                               s->shape.partitions)));
    }
  }
  VanillaProofs v = make_vanilla_proofs(*s, seed_from_string(o.challenge_seed), parts, o.threads);
  if (auto st = check_vanilla(v, o.out, o.threads); !st.ok()) return fail("vanilla", st);
  std::vector<uint8_t> bytes;
  if (o.json) {
    std::string text = vanilla_to_json(v).dump(1) + "\n";
    bytes.assign(text.begin(), text.end());
  } else {
    bytes = encode_vanilla(v);
  }
  if (auto st = write_file(o.out, bytes); !st.ok()) return fail("vanilla", st);
  fmt::print("porep vanilla: {} partition(s) x {} challenge(s), {} bytes, {:.2f} s -> {}\n",
             parts.size(), s->shape.challenges, bytes.size(), seconds_since(start), o.out);
  return 0;
}

int run_check(const std::string& path, unsigned threads) {
  const int64_t start = now_ns();
  auto v = read_vanilla(path);
  if (!v.ok()) return fail("check", v.status());
  if (auto st = check_vanilla(*v, path, threads); !st.ok()) return fail("check", st);
  fmt::print("porep check: {}: OK ({} partition(s) of {} x {} challenge(s), {:.1f} ms)\n", path,
             v->partitions.size(), v->shape.circuit_id(), v->shape.challenges,
             1e3 * seconds_since(start));
  return 0;
}

}  // namespace

int run_command(std::span<const std::string> args) {
  CLI::App app{"porep: StackedDRG-style PoRep inputs: shapes, synthetic sealing, vanilla proofs"};
  app.name("zkpipe-tool proof-type " + args[0]);
  int code = 0;
  int* exit_code = &code;
  CLI::App* porep = &app;
  porep->require_subcommand(1);

  auto json = std::make_shared<bool>(false);
  CLI::App* shapes = porep->add_subcommand("shapes", "The sector presets and their circuit sizes");
  shapes->add_flag("--json", *json, "print JSON");
  shapes->callback([json, exit_code] {
    *exit_code = guarded("porep shapes", [&] { return run_shapes(*json); });
  });

  auto so = std::make_shared<SealOptions>();
  CLI::App* seal_cmd =
      porep->add_subcommand("seal", "Seal a synthetic sector from a seed into a sector cache");
  seal_cmd->add_option("--shape", so->shape, "preset: tiny, 2KiB, 8MiB, 512MiB");
  seal_cmd->add_option("--seed", so->seed, "seed of the data and replica id")->required();
  seal_cmd->add_option("--out", so->out, "sector cache to write")->required();
  seal_cmd->add_option("--threads", so->threads, "threads (0: all)");
  seal_cmd->add_option("--nodes", so->nodes, "override: nodes (a power of 8)");
  seal_cmd->add_option("--layers", so->layers, "override: layers (2, 4, 8, 11)");
  seal_cmd->add_option("--base-degree", so->base_degree, "override: DRG parents");
  seal_cmd
      ->add_option_function<uint32_t>(
          "--expansion-degree",
          [so](uint32_t v) {
            so->expansion_degree = v;
            so->expansion_set = true;
          },
          "override: expander parents")
      ->type_name("UINT");
  seal_cmd->add_option("--challenges", so->challenges, "override: challenges per partition");
  seal_cmd->add_option("--partitions", so->partitions, "override: partitions");
  seal_cmd->add_flag("--empty", so->empty,
                     "all-zero data: a committed-capacity sector, the sector key for snapdeals");
  seal_cmd->callback(
      [so, exit_code] { *exit_code = guarded("porep seal", [&] { return run_seal(*so); }); });

  auto vo = std::make_shared<VanillaOptions>();
  CLI::App* vanilla = porep->add_subcommand("vanilla", "Vanilla proofs of a sealed sector");
  vanilla->add_option("--sector", vo->sector, "sector cache (porep seal)")->required();
  vanilla->add_option("--challenge-seed", vo->challenge_seed, "seed of the challenges")->required();
  vanilla->add_option("--partition", vo->partitions, "partition(s) to open (default: all)");
  vanilla->add_flag("--json", vo->json, "write JSON instead of the binary format");
  vanilla->add_option("--out", vo->out, "vanilla-proof file to write")->required();
  vanilla->add_option("--threads", vo->threads, "threads (0: all)");
  vanilla->callback(
      [vo, exit_code] { *exit_code = guarded("porep vanilla", [&] { return run_vanilla(*vo); }); });

  auto path = std::make_shared<std::string>();
  auto threads = std::make_shared<unsigned>(0);
  CLI::App* check = porep->add_subcommand("check", "Decode and check a vanilla-proof file");
  check->add_option("file", *path, "vanilla-proof file (binary or JSON)")->required();
  check->add_option("--threads", *threads, "threads (0: all)");
  check->callback([path, threads, exit_code] {
    *exit_code = guarded("porep check", [&] { return run_check(*path, *threads); });
  });
  return sdk::run_cli(app, args, code);
}

}  // namespace zkpipe::porep
