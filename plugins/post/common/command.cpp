// The plugins' command line (post_plugin.h), run by `zkpipe-tool proof-type TYPE ...`:
//   vanilla --sector FILE:SECTOR_ID ... --randomness HEX --out FILE [--json] [--shape NAME]
//           [--threads N]   sealed sectors (`zkpipe-tool proof-type porep seal`) -> a checked
//           request
//   shapes                  the presets: shape, sample sectors, partitions, circuit size
//   help                    this usage
#include <cstdio>
#include <optional>

#include <nlohmann/json.hpp>

#include "circuit.h"
#include "post_plugin.h"
#include "vanilla.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sector/sector_file.h"

namespace zkpipe::post {
namespace {

struct VanillaOptions {
  std::vector<std::pair<std::string, uint64_t>> sectors;  // file, sector id
  std::optional<Seed> randomness;
  std::string out;
  std::string shape;
  bool json = false;
  unsigned threads = 0;
};

void usage(const std::string& type, FILE* to) {
  std::fprintf(
      to,
      "usage: zkpipe-tool proof-type %s vanilla --sector FILE:SECTOR_ID [--sector ...]\n"
      "           --randomness HEX --out FILE [--json] [--shape NAME] [--threads N]\n"
      "       zkpipe-tool proof-type %s shapes\n"
      "       zkpipe-tool proof-type %s help\n"
      "vanilla: the vanilla proofs of sealed sectors (zkpipe-tool proof-type porep seal) for the\n"
      "32-byte randomness (64 hex digits), checked, in the binary format (--json: JSON);\n"
      "the shape defaults to the first preset of the sectors' size.\n",
      type.c_str(), type.c_str(), type.c_str());
}

Result<uint64_t> parse_u64(const std::string& s, const std::string& what) {
  uint64_t v = 0;
  if (s.empty() || s.size() > 20) return invalid_argument(what + ": '" + s + "' is not a number");
  for (char c : s) {
    if (c < '0' || c > '9') return invalid_argument(what + ": '" + s + "' is not a number");
    const uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return invalid_argument(what + ": '" + s + "' is above 2^64 - 1");
    v = next;
  }
  return v;
}

Result<Seed> parse_randomness(std::string s) {
  if (s.rfind("0x", 0) == 0) s = s.substr(2);
  auto digit = [](char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
  };
  Seed out{};
  bool ok = s.size() == 64;
  for (size_t i = 0; ok && i < 32; ++i) {
    const int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
    ok = hi >= 0 && lo >= 0;
    out[i] = static_cast<uint8_t>(16 * hi + lo);
  }
  if (!ok) return invalid_argument("--randomness: must be 64 hex digits (32 bytes)");
  return out;
}

Result<VanillaOptions> parse_vanilla_options(std::span<const std::string> args) {
  VanillaOptions o;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--json") {
      o.json = true;
      continue;
    }
    if (a != "--sector" && a != "--randomness" && a != "--out" && a != "--shape" &&
        a != "--threads") {
      return invalid_argument("vanilla: unknown argument '" + a + "'");
    }
    if (i + 1 == args.size()) return invalid_argument("vanilla: " + a + " needs a value");
    const std::string& value = args[++i];
    if (a == "--sector") {
      const size_t colon = value.rfind(':');
      if (colon == std::string::npos || colon == 0) {
        return invalid_argument("--sector: '" + value + "' is not FILE:SECTOR_ID");
      }
      ZKP_ASSIGN_OR_RETURN(uint64_t id,
                           parse_u64(value.substr(colon + 1), "--sector " + value + ": the id"));
      o.sectors.emplace_back(value.substr(0, colon), id);
    } else if (a == "--randomness") {
      ZKP_ASSIGN_OR_RETURN(o.randomness, parse_randomness(value));
    } else if (a == "--out") {
      o.out = value;
    } else if (a == "--shape") {
      o.shape = value;
    } else {
      ZKP_ASSIGN_OR_RETURN(uint64_t t, parse_u64(value, "--threads"));
      o.threads = static_cast<unsigned>(std::min<uint64_t>(t, 1024));
    }
  }
  if (o.sectors.empty()) return invalid_argument("vanilla: no --sector FILE:SECTOR_ID given");
  if (!o.randomness) return invalid_argument("vanilla: --randomness HEX is required");
  if (o.out.empty()) return invalid_argument("vanilla: --out FILE is required");
  return o;
}

// Loads the sectors, makes and checks the vanilla proofs, writes them: 0, or a Status.
Status make_vanilla_file(Kind kind, const VanillaOptions& o, std::string& summary) {
  ZKP_RETURN_IF_ERROR(check_output_path(o.out, "--out"));
  std::vector<porep::SealedSector> sealed;
  sealed.reserve(o.sectors.size());
  for (const auto& [file, id] : o.sectors) {
    ZKP_ASSIGN_OR_RETURN(porep::SealedSector s, porep::load_sector(file, o.threads));
    sealed.push_back(std::move(s));
  }
  Preset preset;
  if (o.shape.empty()) {
    ZKP_ASSIGN_OR_RETURN(preset, preset_for_nodes(kind, sealed[0].shape.nodes));
  } else {
    ZKP_ASSIGN_OR_RETURN(preset, find_preset(kind, o.shape));
  }
  std::vector<SectorInput> inputs;
  for (size_t i = 0; i < sealed.size(); ++i) {
    inputs.push_back({o.sectors[i].second, &sealed[i], o.sectors[i].first});
  }
  ZKP_ASSIGN_OR_RETURN(VanillaProofs v, make_vanilla_proofs(preset.shape, *o.randomness, inputs));
  ZKP_RETURN_IF_ERROR(check_vanilla(v, o.out));
  std::string bytes;
  if (o.json) {
    bytes = vanilla_to_json(v).dump(1) + "\n";
  } else {
    const std::vector<uint8_t> b = encode_vanilla(v);
    bytes.assign(b.begin(), b.end());
  }
  ZKP_RETURN_IF_ERROR(write_output_file(o.out, bytes, "--out"));
  summary = std::to_string(v.sectors.size()) + " sector(s), " + std::to_string(partitions(v)) +
            " partition(s) of shape '" + preset.shape.name + "' (" + preset.shape.circuit_id() +
            ") -> " + o.out + " (" + std::to_string(bytes.size()) + " bytes)";
  return ok_status();
}

// 256 B, 2 KiB, 8 MiB, ...
std::string size_name(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + " " + units[u];
}

void print_shapes(Kind kind) {
  std::printf("%-10s %-12s %8s %10s %10s %8s %12s %12s\n", "preset", "sector", "sectors",
              "challenges", "sample", "parts", "inputs", "constraints");
  for (const Preset& p : presets(kind)) {
    const CircuitSize size = count_circuit(p.shape);
    std::printf("%-10s %-12s %8u %10u %10u %8u %12u %12llu\n", p.shape.name.c_str(),
                size_name(p.shape.nodes * 32).c_str(), p.shape.sectors, p.shape.challenges,
                p.sample_sectors, p.partitions(), size.inputs,
                static_cast<unsigned long long>(size.constraints));
  }
}

}  // namespace

int run_command(Kind kind, std::span<const std::string> args) {
  const std::string type = args.empty() ? kind_name(kind) : args[0];
  if (args.size() < 2 || args[1] == "help" || args[1] == "--help" || args[1] == "-h") {
    usage(type, args.size() < 2 ? stderr : stdout);
    return args.size() < 2 ? 2 : 0;
  }
  if (args[1] == "shapes") {
    print_shapes(kind);
    return 0;
  }
  if (args[1] != "vanilla") {
    std::fprintf(stderr, "%s: unknown command '%s'\n", type.c_str(), args[1].c_str());
    usage(type, stderr);
    return 2;
  }
  Result<VanillaOptions> o = parse_vanilla_options(args.subspan(2));
  if (!o.ok()) {
    std::fprintf(stderr, "%s: %s\n", type.c_str(), o.status().message().c_str());
    usage(type, stderr);
    return 2;
  }
  std::string summary;
  if (Status s = make_vanilla_file(kind, *o, summary); !s.ok()) {
    std::fprintf(stderr, "%s vanilla: %s\n", type.c_str(), s.to_string().c_str());
    return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
  }
  std::printf("%s vanilla: %s\n", type.c_str(), summary.c_str());
  return 0;
}

}  // namespace zkpipe::post
