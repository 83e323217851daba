// `zkpipe-tool validate`: loads each plugin set (the plugins a config names, or every plugin in
// a directory), checks manifest vs descriptor vs ABI, runs each plugin's self-test and opens each
// config's memory backend; prints a table or JSON. Exit 0 only when everything passes.
// Thread-safety: main thread only.
#include <chrono>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "device_select.h"
#include "zkpipe/config.h"
#include "zkpipe/log.h"
#include "zkpipe/memory.h"
#include "zkpipe/plugin.h"
#include "zkpipe/system.h"

namespace zkpipe::tool {
namespace {

struct Row {
  std::string source;  // config file or plugin directory
  std::string plugin;  // plugin name, or the file when it could not be loaded
  std::string kind, version, abi, build_tag;
  std::string status;  // PASS, UNAVAILABLE, FAIL
  std::string reason;
  double self_test_ms = 0;
};

struct Options {
  std::vector<std::string> configs;
  std::vector<std::string> plugin_dirs;
  bool json = false;
  bool allow_unavailable = false;
  bool self_test = true;
};

// Sets the log level for one config's checks and restores the tool's level afterwards.
class LogLevelScope {
 public:
  explicit LogLevelScope(const std::string& level) : saved_(spdlog::get_level()) {
    (void)set_log_level(level);  // already validated by load_config
  }
  ~LogLevelScope() { spdlog::set_level(saved_); }

 private:
  spdlog::level::level_enum saved_;
};

Row check_plugin(const std::string& source, const std::string& label,
                 const Result<const LoadedPlugin*>& r, bool self_test) {
  Row row;
  row.source = source;
  row.plugin = label;
  if (!r.ok()) {
    row.status = "FAIL";
    row.reason = r.status().message();
    return row;
  }
  const LoadedPlugin* p = *r;
  row.plugin = p->manifest.name;
  row.kind = kind_name(p->header->kind);
  row.version = p->header->version;
  row.abi = std::to_string(p->header->abi_major) + "." + std::to_string(p->header->abi_minor);
  row.build_tag = p->header->build_tag;
  if (!p->available()) {
    row.status = "UNAVAILABLE";
    row.reason = p->init_status.message();
    return row;
  }
  if (self_test) {
    char msg[2048] = {0};
    auto t0 = std::chrono::steady_clock::now();
    zkp_status rc = p->header->self_test(zkp_error{msg, sizeof msg});
    row.self_test_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (rc != ZKP_OK) {
      row.status = "FAIL";
      row.reason = std::string("self-test failed (") +
                   std::string(code_name(static_cast<Code>(rc))) + "): " + msg;
      return row;
    }
  }
  row.status = "PASS";
  return row;
}

// compute.backend cuda: whether this build and machine can run it on the devices it names.
Row check_compute(const std::string& path, const ComputeConfig& compute) {
  Row row;
  row.source = path;
  row.plugin = "(compute)";
  row.kind = "compute";
  const CudaInfo cuda = read_cuda_info();
  Result<std::vector<CudaDevice>> chosen =
      unavailable("this build has no CUDA backend (built without nvcc)");
  if (cuda.built_with_cuda) {
    chosen = cuda.status.ok() ? cuda_backend::resolve_devices(compute.devices, cuda.devices)
                              : Result<std::vector<CudaDevice>>(cuda.status);
  }
  if (chosen.ok()) {
    row.status = "PASS";
    row.reason = "compute: cuda on";
    for (const auto& d : *chosen)
      row.reason += " cuda" + std::to_string(d.index) + " (" + d.name + ")";
  } else {
    row.status = chosen.status().code() == Code::kUnavailable ? "UNAVAILABLE" : "FAIL";
    row.reason = "compute.backend cuda: " + chosen.status().message();
  }
  return row;
}

// The plugins a config names, then the config as a whole (its memory backend opened), then a
// GPU compute backend's devices.
void check_config(const std::string& path, const Options& opt, std::vector<Row>& rows) {
  auto cfg = load_config(path);
  if (!cfg.ok()) {
    Row bad;
    bad.source = path;
    bad.plugin = "(config)";
    bad.status = "FAIL";
    bad.reason = cfg.status().message();
    rows.push_back(bad);
    return;
  }
  // The config's log.level governs what its plugins log while they are checked.
  LogLevelScope log_scope(cfg->log.level);
  std::vector<std::string> dirs = cfg->plugin_dirs;
  for (const auto& d : opt.plugin_dirs) dirs.push_back(d);
  if (dirs.empty()) dirs = default_plugin_dirs();
  PluginRegistry registry(dirs);
  std::vector<std::string> names{cfg->memory.backend};
  if (!cfg->memory.fallback.empty()) names.push_back(cfg->memory.fallback);
  for (const auto& name : names) {
    rows.push_back(check_plugin(path, name, registry.load(name, ZKP_KIND_MEMORY), opt.self_test));
  }
  Row whole;
  whole.source = path;
  whole.plugin = "(config)";
  auto pool = open_memory_backend(*cfg, registry);
  if (pool.ok()) {
    whole.status = "PASS";
    whole.reason = "memory: " + (*pool)->backend_name();
    if ((*pool)->backend_name() != cfg->memory.backend)
      whole.reason += " (memory.fallback; logged)";
  } else {
    whole.status = pool.status().code() == Code::kUnavailable ? "UNAVAILABLE" : "FAIL";
    whole.reason = pool.status().message();
  }
  rows.push_back(whole);
  if (cfg->compute.backend == "cuda") rows.push_back(check_compute(path, cfg->compute));
}

void print_table(const std::vector<Row>& rows) {
  fmt::print("{:<34} {:<14} {:<10} {:<8} {:<4} {:<12} {}\n", "SOURCE", "PLUGIN", "KIND", "VERSION",
             "ABI", "STATUS", "REASON");
  for (const auto& r : rows) {
    std::string reason = r.reason;
    if (r.status == "PASS" && r.plugin != "(config)") {
      reason = fmt::format("self-test {:.1f} ms; {}", r.self_test_ms, r.build_tag);
    }
    fmt::print("{:<34} {:<14} {:<10} {:<8} {:<4} {:<12} {}\n", r.source, r.plugin, r.kind,
               r.version, r.abi, r.status, reason);
  }
}

void print_json(const std::vector<Row>& rows, bool ok) {
  nlohmann::json out{{"ok", ok}, {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) {
    out["rows"].push_back({{"source", r.source},
                           {"plugin", r.plugin},
                           {"kind", r.kind},
                           {"version", r.version},
                           {"abi", r.abi},
                           {"build_tag", r.build_tag},
                           {"status", r.status},
                           {"reason", r.reason},
                           {"self_test_ms", r.self_test_ms}});
  }
  fmt::print("{}\n", out.dump(2));
}

int run(const Options& opt) {
  std::vector<Row> rows;
  for (const auto& c : opt.configs) check_config(c, opt, rows);
  std::vector<std::string> dirs = opt.plugin_dirs;
  if (opt.configs.empty() && dirs.empty()) dirs = default_plugin_dirs();
  if (opt.configs.empty() && dirs.empty()) {
    fmt::print(stderr,
               "validate: no config and no plugin directory given, and no default plugin directory "
               "exists (set ZKPIPE_PLUGIN_DIR or pass --plugin-dir)\n");
    return 2;
  }
  if (opt.configs.empty()) {
    for (const auto& d : dirs) {
      PluginRegistry registry({d});
      for (auto& e : registry.load_dir(d))
        rows.push_back(check_plugin(d, e.path, e.plugin, opt.self_test));
    }
  }
  bool ok = true;
  int unavailable_rows = 0;
  for (const auto& r : rows) {
    unavailable_rows += r.status == "UNAVAILABLE";
    if (r.status == "FAIL" || (r.status == "UNAVAILABLE" && !opt.allow_unavailable)) ok = false;
  }
  if (opt.json) {
    print_json(rows, ok);
  } else {
    print_table(rows);
    if (!ok) {
      fmt::print("validate: some checks did not pass\n");
    } else if (unavailable_rows > 0) {
      fmt::print(
          "validate: all checks passed; {} row(s) UNAVAILABLE on this machine, allowed by "
          "--allow-unavailable\n",
          unavailable_rows);
    } else {
      fmt::print("validate: all checks passed\n");
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

void add_validate(CLI::App& app, int* exit_code) {
  auto opt = std::make_shared<Options>();
  CLI::App* cmd = app.add_subcommand(
      "validate",
      "Load plugin sets (from configs or directories), check manifests, descriptors and ABI, "
      "run self-tests; exit 0 only if all pass");
  cmd->add_option("configs", opt->configs, "Config files whose plugin set to validate");
  cmd->add_option("--plugin-dir", opt->plugin_dirs,
                  "Validate every plugin in this directory (with configs: also search it)");
  cmd->add_flag("--json", opt->json, "Print JSON instead of a table");
  cmd->add_flag("--allow-unavailable", opt->allow_unavailable,
                "Exit 0 when plugins are only unavailable on this machine (e.g. no CUDA driver)");
  cmd->add_flag("!--no-self-test", opt->self_test, "Skip the plugins' self-tests");
  cmd->callback([opt, exit_code] { *exit_code = run(*opt); });
}

}  // namespace zkpipe::tool
