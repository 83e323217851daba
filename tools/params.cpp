// tools/params.cpp: `zkpipe-tool params info FILE [--json]` (header, layout and section table of
// a params file) and `zkpipe-tool params verify FILE [--threads N]` (every checksum and every
// point: canonical, on the curve, in the subgroup). Exit 0 ok, 1 a check failed, 2 bad usage or
// an unreadable file. Thread-safety: main thread only (verify runs its checks on N threads).
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "commands.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::tool {
namespace {

using groth16::ParamsInfo;

struct ParamsOptions {
  std::string file;
  bool json = false;
  unsigned threads = 0;
};

// NOT_FOUND (cannot open) is an unreadable file: 2; anything else is a failed check: 1.
int exit_code_for(const Status& s) {
  return s.code() == Code::kNotFound ? 2 : 1;
}

std::string setup_kind(const ParamsInfo& info) {
  return info.header.seeded_development_setup
             ? std::string(groth16::kNotACeremony)
             : "imported (not marked as a seeded development setup)";
}

// Points per section, from the header (0 for non-point sections).
uint64_t section_points(const ParamsInfo& info, const std::string& name) {
  const auto& h = info.header;
  if (name == "vk") return 6;
  if (name == "ic") return h.ic_len;
  if (name == "h_query") return h.h_len;
  if (name == "l_query") return h.l_len;
  if (name == "a_query") return h.a_len;
  if (name == "b_g1_query") return h.b_g1_len;
  if (name == "b_g2_query") return h.b_g2_len;
  return 0;
}

void print_info_json(const ParamsInfo& info) {
  const auto& h = info.header;
  nlohmann::json sections = nlohmann::json::array();
  for (const auto& s : info.sections) {
    sections.push_back({{"type", s.type},
                        {"name", s.name},
                        {"offset", s.offset},
                        {"length", s.length},
                        {"points", section_points(info, s.name)},
                        {"sha256", s.sha256_hex}});
  }
  nlohmann::json out{{"path", info.path},
                     {"file_bytes", info.file_bytes},
                     {"version", info.version},
                     {"seeded_development_setup", h.seeded_development_setup},
                     {"num_inputs", h.num_inputs},
                     {"num_aux", h.num_aux},
                     {"domain_size", h.domain_size},
                     {"layout", h.layout.describe()},
                     {"layout_matches", info.layout_matches},
                     {"table_offset", info.table_offset},
                     {"checksum_offset", info.checksum_offset},
                     {"sections", sections}};
  if (h.seeded_development_setup) out["warning"] = std::string(groth16::kNotACeremony);
  fmt::print("{}\n", out.dump(2));
}

void print_info_text(const ParamsInfo& info) {
  const auto& h = info.header;
  fmt::print("params file  {}\n", info.path);
  fmt::print("size         {} ({} bytes), format version {}\n", format_bytes(info.file_bytes),
             info.file_bytes, info.version);
  fmt::print("setup        {}\n", setup_kind(info));
  fmt::print("wires        {} public (including one) + {} private = {}\n", h.num_inputs, h.num_aux,
             uint64_t{h.num_inputs} + h.num_aux);
  fmt::print("domain       {} (h_query {} points)\n", h.domain_size, h.h_len);
  fmt::print("layout       {}{}\n", h.layout.describe(),
             info.layout_matches
                 ? " (matches this build)"
                 : "  <- DIFFERS from this build: " + groth16::LayoutTag::native().describe());
  fmt::print("header       section table at byte {}, header checksum at byte {}\n",
             info.table_offset, info.checksum_offset);
  fmt::print("\n{:<12} {:>12} {:>12} {:>12} {:>10}  {}\n", "SECTION", "OFFSET", "LENGTH", "SIZE",
             "POINTS", "SHA-256");
  for (const auto& s : info.sections) {
    fmt::print("{:<12} {:>12} {:>12} {:>12} {:>10}  {}\n", s.name, s.offset, s.length,
               format_bytes(s.length), section_points(info, s.name), s.sha256_hex);
  }
  fmt::print("\nchecksums and points not verified here: run `zkpipe-tool params verify {}`\n",
             info.path);
}

int run_info(const ParamsOptions& opt) {
  auto info = groth16::params_info(opt.file);
  if (!info.ok()) {
    fmt::print(stderr, "params info: {}\n", info.status().to_string());
    return exit_code_for(info.status());
  }
  if (opt.json) {
    print_info_json(*info);
  } else {
    print_info_text(*info);
  }
  return 0;
}

int run_verify(const ParamsOptions& opt) {
  ParamsInfo info;
  const int64_t t0 = now_ns();
  const Status s = groth16::verify_params(opt.file, opt.threads, &info);
  const double seconds = seconds_since(t0);
  if (!s.ok()) {
    fmt::print("params verify: FAILED: {}\n", s.to_string());
    return exit_code_for(s);
  }
  uint64_t points = 0;
  for (const auto& sec : info.sections) points += section_points(info, sec.name);
  fmt::print(
      "params verify: {}: OK: {} sections, {} points checked (canonical, on the curve, in "
      "the subgroup) in {:.2f} s\n",
      opt.file, info.sections.size(), points, seconds);
  if (info.header.seeded_development_setup) {
    fmt::print("params verify: note: {}\n", groth16::kNotACeremony);
  }
  return 0;
}

}  // namespace

void add_params(CLI::App& app, int* exit_code) {
  CLI::App* cmd = app.add_subcommand("params", "Inspect and verify Groth16 params files");
  cmd->require_subcommand(1);

  auto info_opt = std::make_shared<ParamsOptions>();
  CLI::App* info = cmd->add_subcommand(
      "info", "Print the header, point layout and section table of a params file");
  info->add_option("file", info_opt->file, "Params file")->required();
  info->add_flag("--json", info_opt->json, "Print JSON instead of text");
  info->callback([info_opt, exit_code] { *exit_code = run_info(*info_opt); });

  auto verify_opt = std::make_shared<ParamsOptions>();
  CLI::App* verify = cmd->add_subcommand(
      "verify", "Check every section checksum and every point (on the curve, in the subgroup)");
  verify->add_option("file", verify_opt->file, "Params file")->required();
  verify->add_option("--threads", verify_opt->threads, "Threads for the point checks (0 = all)");
  verify->callback([verify_opt, exit_code] { *exit_code = run_verify(*verify_opt); });

  add_params_new(*cmd, exit_code);
}

}  // namespace zkpipe::tool
