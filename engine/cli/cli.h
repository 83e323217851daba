// cli.h: the subcommands of the `zkpipe` binary (prove, bench, plan; the client commands of a
// running `zkpipe serve`: submit, await, status, cancel, params, metrics), and what they share:
// loading a config with command-line overrides, signal handling (SIGTERM/SIGINT: first drain,
// second cancel), the bench workload generator. Thread-safety: main thread, apart from the signal
// watcher (see SignalWatcher).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>

#include "zkpipe/config.h"
#include "zkpipe/pipeline/engine.h"

namespace zkpipe::cli {

void add_prove(CLI::App& app, int* exit_code);
void add_bench(CLI::App& app, int* exit_code);
void add_plan(CLI::App& app, int* exit_code);
void add_serve(CLI::App& app, int* exit_code);
// submit, await, status, cancel, params preload|evict, metrics (remote*.cpp).
void add_remote(CLI::App& app, int* exit_code);

// `zkpipe bench --addr`: load against a running `zkpipe serve` (bench_remote.cpp).
struct RemoteBenchOptions {
  std::string addr, token_file, proof, preset, input, cache_dir, request_prefix, json;
  std::string priority = "normal", timeout = "10m";
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

// A request for `type` (porep, snapdeals) at `preset`: sealed from a fixed seed and cached as
// CACHE_DIR/<type>-<preset>.vanilla, so configs compared in one bench prove the same input.
Result<std::vector<uint8_t>> bench_request(const std::string& type, const std::string& preset,
                                           const std::string& cache_dir);

// Exit code for a status: 2 for bad input (INVALID_ARGUMENT, NOT_FOUND), 1 otherwise.
int exit_code_for(const Status& s);

}  // namespace zkpipe::cli
