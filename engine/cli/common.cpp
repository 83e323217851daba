// common.cpp: what `zkpipe prove` and `zkpipe bench` share (cli.h): config loading with
// overrides, the signal watcher, the bench workload, exit codes.
// Thread-safety: see cli.h.
#include <pthread.h>
#include <signal.h>

#include <cstdlib>
#include <filesystem>

#include <spdlog/spdlog.h>

#include "cli.h"
#include "file_io.h"
#include "zkpipe/log.h"
#include "zkpipe/porep/seal.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/snapdeals/update.h"
#include "zkpipe/snapdeals/vanilla.h"

namespace zkpipe::cli {

int exit_code_for(const Status& s) {
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

Result<Config> load_config_for_run(const std::string& path, const std::string& params_dir) {
  ZKP_ASSIGN_OR_RETURN(Config config, load_config(path));
  if (!params_dir.empty()) config.params.dir = params_dir;
  ZKP_RETURN_IF_ERROR(set_log_level(config.log.level));
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

Result<std::vector<uint8_t>> bench_request(const std::string& type, const std::string& preset,
                                           const std::string& cache_dir) {
  const std::string path = cache_dir + "/" + type + "-" + preset + ".vanilla";
  if (std::filesystem::exists(path)) {
    ZKP_ASSIGN_OR_RETURN(std::string bytes, tool::read_file(path));
    return std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  std::vector<uint8_t> bytes;
  if (type == "porep") {
    ZKP_ASSIGN_OR_RETURN(porep::Shape shape, porep::find_shape(preset));
    spdlog::info("bench: sealing a {} porep sector for the workload (cached in {})", preset, path);
    const porep::SealedSector s = porep::seal(shape, porep::seed_from_string("bench"));
    std::vector<uint32_t> parts(shape.partitions);
    for (uint32_t k = 0; k < shape.partitions; ++k) parts[k] = k;
    bytes = porep::encode_vanilla(
        porep::make_vanilla_proofs(s, porep::seed_from_string("bench"), parts));
  } else if (type == "snapdeals") {
    ZKP_ASSIGN_OR_RETURN(snapdeals::Shape shape, snapdeals::find_shape(preset));
    ZKP_ASSIGN_OR_RETURN(porep::Shape key_shape, porep::find_shape(preset));
    spdlog::info(
        "bench: sealing an empty {} sector and encoding data for the workload "
        "(cached in {})",
        preset, path);
    const porep::SealedSector key = porep::seal(key_shape, porep::seed_from_string("bench-cc"), 0,
                                                {}, porep::SectorData::kEmpty);
    ZKP_ASSIGN_OR_RETURN(snapdeals::UpdatedSector u,
                         snapdeals::update(key, shape, porep::seed_from_string("bench")));
    std::vector<uint32_t> parts(shape.partitions);
    for (uint32_t k = 0; k < shape.partitions; ++k) parts[k] = k;
    bytes = snapdeals::encode_vanilla(snapdeals::make_vanilla_proofs(u, parts));
  } else {
    return invalid_argument("--proof: unknown proof type '" + type +
                            "' for bench inputs (porep or snapdeals)");
  }
  std::error_code ec;
  std::filesystem::create_directories(cache_dir, ec);
  ZKP_RETURN_IF_ERROR(tool::write_file(path, std::span<const uint8_t>(bytes)));
  return bytes;
}

}  // namespace zkpipe::cli
