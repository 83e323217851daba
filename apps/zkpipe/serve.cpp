// `zkpipe serve --config C [--listen ADDR]... [--http ADDR] [--token-file F] [--params-dir D]`:
// the proving daemon (zkpipe/server/server.h). Prints where it listens and "serve: ready" when it
// takes work. Signals: SIGTERM/SIGINT drains (no new jobs; jobs in flight finish and are
// delivered; exit 0), a second one cancels what is left; SIGHUP re-reads the config's log level.
// Thread-safety: main thread plus a signal thread (sigwait) and a drain thread.
#include <pthread.h>
#include <signal.h>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "cli.h"
#include "zkpipe/log.h"
#include "zkpipe/server/server.h"

namespace zkpipe::cli {
namespace {

struct ServeOptions {
  std::string config, http, token_file, params_dir;
  std::vector<std::string> listen;
  bool http_set = false;
};

int run_serve(const ServeOptions& o, CLI::App* cmd) {
  // Signals are taken by one thread only: blocked here, before any other thread starts.
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGUSR2}) sigaddset(&set, sig);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  Result<Config> config = load_config_for_run(o.config, o.params_dir);
  if (!config.ok()) return fail("serve", config.status());
  server::ServeOverrides overrides;
  if (!o.listen.empty()) overrides.listen = o.listen;
  if (cmd->count("--http") > 0) overrides.http = o.http;
  if (!o.token_file.empty()) overrides.token_file = o.token_file;
  Result<std::unique_ptr<server::Server>> started = server::Server::start(*config, overrides);
  if (!started.ok()) return fail("serve", started.status());
  server::Server& srv = **started;
  // The memory plan and the proof types are in the log already (the engine's start-up lines).
  fmt::print("serve: gRPC on {}\n", fmt::join(srv.grpc_addresses(), ", "));
  if (!srv.http_address().empty()) {
    fmt::print("serve: HTTP on http://{} (/healthz /readyz /status /metrics /trace, panel at /)\n",
               srv.http_address());
  }
  fmt::print("serve: ready\n");
  std::fflush(stdout);

  const std::optional<std::chrono::milliseconds> drain_timeout =
      config->server.drain_timeout_ms < 0
          ? std::nullopt
          : std::optional(std::chrono::milliseconds(config->server.drain_timeout_ms));
  std::thread drainer;
  std::atomic<int> terms{0};
  std::thread signals([&] {
    for (;;) {
      int sig = 0;
      if (sigwait(&set, &sig) != 0 || sig == SIGUSR2) return;
      if (sig == SIGHUP) {
        Result<Config> again = load_config(o.config);
        if (!again.ok()) {
          spdlog::error("SIGHUP: {} (the log level stays)", again.status().to_string());
        } else if (Status s = set_log_level(again->log.level); !s.ok()) {
          spdlog::error("SIGHUP: {}", s.to_string());
        } else {
          spdlog::warn("SIGHUP: log level {} (from {})", again->log.level, o.config);
        }
        continue;
      }
      if (++terms == 1) {
        spdlog::warn(
            "signal {}: draining: no new jobs; jobs in flight finish and are delivered "
            "(signal again to cancel them)",
            sig);
        drainer = std::thread([&srv, drain_timeout] { srv.drain(drain_timeout); });
      } else {
        spdlog::warn("signal {} again: cancelling every job", sig);
        srv.cancel_all();
      }
    }
  });
  srv.wait();
  pthread_kill(signals.native_handle(), SIGUSR2);
  signals.join();
  if (drainer.joinable()) drainer.join();
  fmt::print("serve: stopped\n");
  return 0;
}

}  // namespace

void add_serve(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Run the proving daemon: gRPC (zkpipe.v1.ProvingEngine), HTTP status and panel");
  cmd->add_option("--config", o->config, "pipeline config (configs/*.yaml) with its server section")
      ->required();
  cmd->add_option("--listen", o->listen,
                  "gRPC address, repeatable: unix:///path.sock or host:port (server.listen)");
  cmd->add_option("--http", o->http, "HTTP address host:port, or '' for none (server.http)");
  cmd->add_option("--token-file", o->token_file,
                  "bearer token file, mode 0600 (server.token_file); required off loopback");
  cmd->add_option("--params-dir", o->params_dir, "override params.dir of the config");
  cmd->callback([o, exit_code, cmd] { *exit_code = run_serve(*o, cmd); });
}

}  // namespace zkpipe::cli
