// cli.h: the subcommands of the `zkpipe` binary (prove, bench, plan; the client commands of a
// running `zkpipe serve`: submit, await, status, cancel, params, metrics), and what they share:
// loading a config with command-line overrides, signal handling (SIGTERM/SIGINT: first drain,
// second cancel), the sample requests of a proof type's presets (made by its plugin, cached).
// Thread-safety: main thread, apart from the signal watcher (see SignalWatcher).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "zkpipe/config.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/plugin.h"

namespace zkpipe::cli {

// `--jobs` of bench and plan: 1 to a million (CLI11 alone would take "-1" as 2^64-1).
constexpr int64_t kMaxCliJobs = 1'000'000;

void add_prove(CLI::App& app, int* exit_code);
void add_bench(CLI::App& app, int* exit_code);
void add_plan(CLI::App& app, int* exit_code);
void add_serve(CLI::App& app, int* exit_code);
// submit, await, status, cancel, params preload|evict, metrics (remote*.cpp).
void add_remote(CLI::App& app, int* exit_code);

// `zkpipe bench --addr`: load against a running `zkpipe serve` (bench_remote.cpp).
struct RemoteBenchOptions {
  std::string addr, token_file, proof, preset, input, cache_dir, request_prefix, json;
  std::string priority, timeout = "10m";  // priority empty: the proof type's default
  std::vector<std::string> plugin_dirs;   // where the proof type's plugin makes --preset's request
  uint64_t seed = 0;
  uint32_t jobs = 0, concurrency = 1;
  bool prove_rpc = false;  // one Prove call per job instead of SubmitProof + AwaitProof
};
int run_bench_remote(const RemoteBenchOptions& o);

// The config at `path` with the command line's --params-dir (when not empty) applied, and its
// log level set.
Result<Config> load_config_for_run(const std::string& path, const std::string& params_dir);

// Blocks SIGTERM and SIGINT in every thread started after it and watches them on its own thread:
// the first makes the engine stop accepting work (jobs in flight finish and are written), the
// second cancels every job. Construct it before the engine's threads start. A signal that comes
// while the engine is being created takes effect when it is attached; a second one before that
// exits at once (nothing was accepted yet).
class SignalWatcher {
 public:
  SignalWatcher();
  ~SignalWatcher();
  void attach(pipeline::Engine* engine);  // nullptr: detach
  int signals() const { return count_.load(); }

 private:
  std::thread thread_;
  std::atomic<pipeline::Engine*> engine_{nullptr};
  std::atomic<int> count_{0};
  std::atomic<bool> attached_{false};  // an engine was attached once
};

// A sample request: proof type, preset, seed.
struct SampleSpec {
  std::string type, preset;
  uint64_t seed = 0;
};

// The request of `spec` made by the proof type's plugin (zkp_proof_type.sample_request), found in
// `plugin_dirs` (plugin_search_dirs' rule).
Result<std::vector<uint8_t>> sample_request(const SampleSpec& spec,
                                            const std::vector<PluginDirList>& plugin_dirs);
// The same, kept as CACHE_DIR/<type>-<preset>-<seed>.request (written with write_output_file):
// configs compared in one bench, and later runs, prove the same input. The plugin is loaded even
// when the file is cached, so an unknown preset or a type without presets is refused the same way.
Result<std::vector<uint8_t>> bench_request(const SampleSpec& spec,
                                           const std::vector<PluginDirList>& plugin_dirs,
                                           const std::string& cache_dir);
// The plugin directories of `config` (its plugin_dirs; the defaults when it names none).
std::vector<PluginDirList> config_plugin_dirs(const Config& config);

// Exit code for a status: 2 for bad input (INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS), 1
// otherwise.
int exit_code_for(const Status& s);

// What every subcommand does with an error: "zkpipe COMMAND: <status>" on stderr, after what
// stdout holds so far, and exit_code_for(s).
int fail(std::string_view command, const Status& s);

// Milliseconds since `t0` on the steady clock.
inline double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace zkpipe::cli
