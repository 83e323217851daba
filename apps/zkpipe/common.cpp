// common.cpp: what `zkpipe prove` and `zkpipe bench` share (cli.h): config loading with
// overrides, the signal watcher, sample requests (made by the proof type's plugin), exit codes.
// Thread-safety: see cli.h.
#include <pthread.h>
#include <signal.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include "cli.h"
#include "zkpipe/log.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::cli {

int exit_code_for(const Status& s) {
  const Code c = s.code();
  return c == Code::kInvalidArgument || c == Code::kNotFound || c == Code::kAlreadyExists ||
                 c == Code::kUnauthenticated
             ? 2
             : 1;
}

int fail(std::string_view command, const Status& s) {
  std::fflush(stdout);  // what was printed before comes first
  fmt::print(stderr, "zkpipe {}: {}\n", command, s.to_string());
  return exit_code_for(s);
}

Result<Config> load_config_for_run(const std::string& path, const std::string& params_dir) {
  ZKP_ASSIGN_OR_RETURN(Config config, load_config(path));
  if (!params_dir.empty()) config.params.dir = params_dir;
  ZKP_RETURN_IF_ERROR(set_log_level(config.log.level));
  ZKP_RETURN_IF_ERROR(set_log_format(config.log.format));
  return config;
}

SignalWatcher::SignalWatcher() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGUSR2);  // only to wake the watcher when it is destroyed
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this, set] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0 || sig == SIGUSR2) return;
      const int n = ++count_;
      pipeline::Engine* engine = engine_.load();
      if (n == 1) {
        spdlog::warn(
            "signal {}: draining: no new work; jobs in flight finish and are written "
            "(signal again to cancel them)",
            sig);
        if (engine != nullptr) engine->stop_accepting();
      } else if (engine != nullptr) {
        spdlog::warn("signal {} again: cancelling every job", sig);
        engine->cancel_all();
      } else if (!attached_.load()) {  // still starting: nothing accepted, nothing lost
        spdlog::warn("signal {} again before any job was accepted: exiting", sig);
        std::_Exit(128 + sig);
      }  // else the run is over and its outputs are being written: let them finish
    }
  });
}

SignalWatcher::~SignalWatcher() {
  pthread_kill(thread_.native_handle(), SIGUSR2);
  thread_.join();
}

void SignalWatcher::attach(pipeline::Engine* engine) {
  engine_ = engine;
  if (engine == nullptr) return;
  attached_ = true;
  // A signal that came while the engine was starting takes effect now (twice is harmless).
  const int n = count_.load();
  if (n >= 1) engine->stop_accepting();
  if (n >= 2) engine->cancel_all();
}

std::vector<PluginDirList> config_plugin_dirs(const Config& config) {
  return {{config.path + ": plugin_dirs", config.plugin_dirs}};
}

namespace {

// A name that can be part of a file name: [A-Za-z0-9._-]+, not "." or "..".
bool file_name_safe(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// The proof type of `spec` loaded from `plugin_dirs`, after checking that its names can be part
// of a file name.
Result<ProofTypePlugin> load_sample_type(const SampleSpec& spec,
                                         const std::vector<PluginDirList>& plugin_dirs) {
  if (!file_name_safe(spec.type)) {
    return invalid_argument("--proof: '" + spec.type + "' is not a proof type name");
  }
  if (!file_name_safe(spec.preset)) {
    return invalid_argument("--preset: '" + spec.preset +
                            "' is not a preset name ([A-Za-z0-9._-]+)");
  }
  ZKP_ASSIGN_OR_RETURN(std::vector<std::string> dirs, plugin_search_dirs(plugin_dirs));
  PluginRegistry registry(std::move(dirs));
  return ProofTypePlugin::load(registry, spec.type);
}

}  // namespace

Result<std::vector<uint8_t>> sample_request(const SampleSpec& spec,
                                            const std::vector<PluginDirList>& plugin_dirs) {
  ZKP_ASSIGN_OR_RETURN(ProofTypePlugin type, load_sample_type(spec, plugin_dirs));
  spdlog::info("making the sample request of {} preset {} (seed {})", spec.type, spec.preset,
               spec.seed);
  return type.sample_request(spec.preset, spec.seed);
}

Result<std::vector<uint8_t>> bench_request(const SampleSpec& spec,
                                           const std::vector<PluginDirList>& plugin_dirs,
                                           const std::string& cache_dir) {
  ZKP_ASSIGN_OR_RETURN(ProofTypePlugin type, load_sample_type(spec, plugin_dirs));
  const std::string path = cache_dir + "/" + spec.type + "-" + spec.preset + "-" +
                           std::to_string(spec.seed) + ".request";
  bool known = false;
  for (const ProofTypePreset& p : type.presets()) known = known || p.name == spec.preset;
  if (!known) return type.sample_request(spec.preset, spec.seed);  // says why it cannot be made
  if (std::filesystem::exists(path)) {
    ZKP_ASSIGN_OR_RETURN(std::string bytes, read_file(path));
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  spdlog::info("making the sample request of {} preset {} (seed {}; cached in {})", spec.type,
               spec.preset, spec.seed, path);
  ZKP_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, type.sample_request(spec.preset, spec.seed));
  ZKP_RETURN_IF_ERROR(check_output_dir(cache_dir, "--cache-dir"));
  ZKP_RETURN_IF_ERROR(write_file(path, std::span<const uint8_t>(bytes)));
  return bytes;
}

}  // namespace zkpipe::cli
