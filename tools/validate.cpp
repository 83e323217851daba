// `zkpipe-tool validate`: loads each plugin set (the plugins a config names, or every plugin in
// a directory), checks manifest vs descriptor vs ABI, runs each plugin's self-test and opens each
// config's memory backend; for a daemon's config also its proof types, server section and store
// (rows "(server)", "(store)"); prints a table or JSON. Exit 0 only when everything passes. Each
// row's check runs in a child process (isolated.h): a plugin that crashes or hangs is a FAIL row
// naming the stage, and the rest are still checked; no plugin code runs in this process.
// Thread-safety: main thread only.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "isolated.h"
#include "zkpipe/config.h"
#include "zkpipe/log.h"
#include "zkpipe/memory.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/server/server.h"
#include "zkpipe/store/job_store.h"

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
  double timeout_s = 30;  // per row's child process
};

using StageFn = std::function<void(std::string_view)>;

nlohmann::json row_json(const Row& r) {
  return {{"source", r.source},   {"plugin", r.plugin}, {"kind", r.kind},
          {"version", r.version}, {"abi", r.abi},       {"build_tag", r.build_tag},
          {"status", r.status},   {"reason", r.reason}, {"self_test_ms", r.self_test_ms}};
}

Row row_from_json(const nlohmann::json& j) {
  Row r;
  r.source = j.at("source");
  r.plugin = j.at("plugin");
  r.kind = j.at("kind");
  r.version = j.at("version");
  r.abi = j.at("abi");
  r.build_tag = j.at("build_tag");
  r.status = j.at("status");
  r.reason = j.at("reason");
  r.self_test_ms = j.at("self_test_ms");
  return r;
}

// Runs `check` in a child process; a crash or time-out there is a FAIL row for source/label.
Row isolated_row(const std::string& source, const std::string& label, const Options& opt,
                 const std::function<Row(const StageFn&)>& check) {
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(opt.timeout_s * 1000));
  IsolatedOutcome o = run_isolated(
      [&](ChildChannel& channel) {
        const StageFn stage = [&channel](std::string_view s) { channel.stage(s); };
        return row_json(check(stage)).dump();
      },
      timeout);
  if (o.result) return row_from_json(nlohmann::json::parse(*o.result));
  Row row;
  row.source = source;
  row.plugin = label;
  row.status = "FAIL";
  row.reason = o.failure;
  return row;
}

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
                 const Result<const LoadedPlugin*>& r, bool self_test, const StageFn& stage) {
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
    stage("self_test");
    char msg[ZKP_ERROR_CAPACITY] = {0};
    const int64_t t0 = now_ns();
    zkp_status rc = p->header->self_test(zkp_error{msg, sizeof msg});
    row.self_test_ms = ms_since(t0);
    if (rc != ZKP_OK) {
      const std::optional<Code> code = code_from_int(rc);
      row.status = "FAIL";
      row.reason = std::string("self-test failed (") +
                   (code ? std::string(code_name(*code)) : "unknown status " + std::to_string(rc)) +
                   "): " + msg;
      return row;
    }
  }
  row.status = "PASS";
  return row;
}

// compute.backend: the plugin opened as the engine opens it (the config's devices, workers and
// memory flags), naming the devices it would use or why it cannot run here.
Row check_compute(const std::string& path, const Config& config, PluginRegistry& registry) {
  Row row;
  row.source = path;
  row.plugin = "(compute)";
  row.kind = "compute";
  uint32_t memory_flags = 0;
  if (auto pool = open_memory_backend(config, registry); pool.ok())
    memory_flags = (*pool)->buffer_flags();
  auto compute = pipeline::open_compute_backend(config.compute, registry, memory_flags);
  if (compute.ok()) {
    row.status = "PASS";
    row.reason = "compute: " + (*compute)->name() + " on";
    for (size_t d = 0; d < (*compute)->device_count(); ++d)
      row.reason += " " + (*compute)->device_name(d);
  } else {
    row.status = compute.status().code() == Code::kUnavailable ? "UNAVAILABLE" : "FAIL";
    row.reason = compute.status().message();
  }
  return row;
}

// A row of what a probe said: PASS with its text, or its error (UNAVAILABLE stays UNAVAILABLE:
// this machine, now, e.g. a port in use).
Row probe_row(const std::string& source, const std::string& label, const Result<std::string>& r) {
  Row row;
  row.source = source;
  row.plugin = label;
  if (r.ok()) {
    row.status = "PASS";
    row.reason = *r;
  } else {
    row.status = r.status().code() == Code::kUnavailable ? "UNAVAILABLE" : "FAIL";
    row.reason = r.status().message();
  }
  return row;
}

// A daemon's config (a server: or store: section): the proof types it loads, the server section
// and the store, as `zkpipe serve` would take them (issue 33 #11).
void check_serve_sections(const std::string& path, const Config& cfg,
                          const std::vector<std::string>& dirs, const Options& opt,
                          std::vector<Row>& rows) {
  for (const std::string& name : cfg.server.proof_types) {
    rows.push_back(isolated_row(path, name, opt, [&](const StageFn& stage) {
      PluginRegistry registry(dirs);
      registry.set_stage_hook(stage);
      return check_plugin(path, name, registry.load(name, ZKP_KIND_PROOF_TYPE), opt.self_test,
                          stage);
    }));
  }
  rows.push_back(probe_row(path, "(server)", server::probe_server(cfg)));
  StoreConfig store = cfg.store;
  if (store.backend == "sqlite" && store.sqlite_path.empty()) {
    store.sqlite_path = default_sqlite_path(cfg);
  }
  rows.push_back(probe_row(path, "(store)", store::probe_store(store)));
}

// The plugins a config names, then the config as a whole (its memory backend opened), then its
// compute backend (the plugin, then the devices it opens).
void check_config(const std::string& path, const Options& opt, std::vector<Row>& rows) {
  auto config_failed = [&](const Status& s) {
    Row bad;
    bad.source = path;
    bad.plugin = "(config)";
    bad.status = "FAIL";
    bad.reason = s.message();
    rows.push_back(bad);
  };
  auto cfg = load_config(path);
  if (!cfg.ok()) return config_failed(cfg.status());
  Result<std::vector<std::string>> dirs = plugin_search_dirs(
      {{path + ": plugin_dirs", cfg->plugin_dirs}, {"--plugin-dir", opt.plugin_dirs}});
  if (!dirs.ok()) return config_failed(dirs.status());
  // The config's log.level governs what its plugins log while they are checked.
  LogLevelScope log_scope(cfg->log.level);
  std::vector<std::string> names{cfg->memory.backend};
  if (!cfg->memory.fallback.empty()) names.push_back(cfg->memory.fallback);
  for (const auto& name : names) {
    rows.push_back(isolated_row(path, name, opt, [&](const StageFn& stage) {
      PluginRegistry registry(*dirs);
      registry.set_stage_hook(stage);
      return check_plugin(path, name, registry.load(name, ZKP_KIND_MEMORY), opt.self_test, stage);
    }));
  }
  rows.push_back(isolated_row(path, "(config)", opt, [&](const StageFn& stage) {
    PluginRegistry registry(*dirs);
    registry.set_stage_hook(stage);
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
    return whole;
  }));
  const std::string& compute = cfg->compute.backend;
  rows.push_back(isolated_row(path, compute, opt, [&](const StageFn& stage) {
    PluginRegistry registry(*dirs);
    registry.set_stage_hook(stage);
    return check_plugin(path, compute, registry.load(compute, ZKP_KIND_COMPUTE), opt.self_test,
                        stage);
  }));
  rows.push_back(isolated_row(path, "(compute)", opt, [&](const StageFn& stage) {
    PluginRegistry registry(*dirs);
    registry.set_stage_hook(stage);
    stage("compute");
    return check_compute(path, *cfg, registry);
  }));
  if (cfg->serve_sections) check_serve_sections(path, *cfg, *dirs, opt, rows);
}

void print_table(const std::vector<Row>& rows) {
  fmt::print("{:<34} {:<14} {:<10} {:<8} {:<4} {:<12} {}\n", "SOURCE", "PLUGIN", "KIND", "VERSION",
             "ABI", "STATUS", "REASON");
  for (const auto& r : rows) {
    std::string reason = r.reason;
    if (r.status == "PASS" && !r.plugin.starts_with("(")) {  // not (config), (compute)
      reason = fmt::format("self-test {:.1f} ms; {}", r.self_test_ms, r.build_tag);
    }
    fmt::print("{:<34} {:<14} {:<10} {:<8} {:<4} {:<12} {}\n", r.source, r.plugin, r.kind,
               r.version, r.abi, r.status, reason);
  }
}

void print_json(const std::vector<Row>& rows, bool ok) {
  nlohmann::json out{{"ok", ok}, {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) out["rows"].push_back(row_json(r));
  fmt::print("{}\n", out.dump(2));
}

int run(const Options& opt) {
  std::vector<Row> rows;
  for (const auto& c : opt.configs) check_config(c, opt, rows);
  std::vector<std::string> dirs = opt.plugin_dirs;
  if (opt.configs.empty() && dirs.empty()) {
    Result<std::vector<std::string>> defaults = plugin_search_dirs({});
    if (!defaults.ok()) {
      fmt::print(stderr, "validate: {}\n", defaults.status().message());
      return 2;
    }
    dirs = *defaults;
  }
  if (opt.configs.empty() && dirs.empty()) {
    fmt::print(stderr,
               "validate: no config and no plugin directory given, and no default plugin directory "
               "exists (set ZKPIPE_PLUGIN_DIR or pass --plugin-dir)\n");
    return 2;
  }
  if (opt.configs.empty()) {
    for (const auto& d : dirs) {
      for (const PluginRegistry::DirItem& item : PluginRegistry::list_dir(d)) {
        if (!item.status.ok()) {
          rows.push_back(check_plugin(d, item.path, item.status, false, {}));
          continue;
        }
        rows.push_back(isolated_row(d, item.path, opt, [&](const StageFn& stage) {
          PluginRegistry registry({d});
          registry.set_stage_hook(stage);
          return check_plugin(d, item.path, registry.load_manifest_file(item.path), opt.self_test,
                              stage);
        }));
      }
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
  cmd->add_option("--timeout", opt->timeout_s,
                  "Seconds each plugin's check (load, init, self-test) may take before its child "
                  "process is killed and the row fails")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->callback([opt, exit_code] { *exit_code = run(*opt); });
}

}  // namespace zkpipe::tool
