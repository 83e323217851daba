// zkpipe/server/server.h: `zkpipe serve`, a long-lived proving daemon over one pipeline::Engine:
// the gRPC service zkpipe.v1.ProvingEngine on unix sockets and TCP, and HTTP (/healthz, /readyz,
// /status, /metrics, /trace, the panel). Lifecycle: start() -> serving; drain() stops accepting
// and waits for every accepted job to end (their results go to the clients waiting for them),
// then the listeners close. Thread-safety: every public member is thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "zkpipe/config.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::server {

// The command line's overrides of the config's `server` section (unset: the config's).
struct ServeOverrides {
  std::optional<std::vector<std::string>> listen;
  std::optional<std::string> http;
  std::optional<std::string> token_file;
};

// What `zkpipe-tool validate` says of a config's server section, checked as `serve` checks it
// before it binds: the addresses parse, the token file reads (mode 0600), a listener off loopback
// has a token, a unix socket's directory exists and no server answers there, and each TCP port
// can be bound now (else the holder, where it can tell). Keeps nothing bound, removes nothing.
Result<std::string> probe_server(const Config& config);

class Server {
 public:
  // Checks the addresses and the token, creates the engine (loading its proof types), binds
  // every listener (a stale unix socket is replaced, a live one refused) and starts serving.
  static Result<std::unique_ptr<Server>> start(const Config& config, const ServeOverrides& o,
                                               pipeline::EngineOptions engine_options = {});
  ~Server();  // stops at once: cancels what is left

  // Stops accepting jobs, waits until every accepted job has ended or `timeout` passes (then
  // cancels the rest), lets waiting clients receive their results, then closes the listeners.
  void drain(std::optional<std::chrono::milliseconds> timeout);
  void cancel_all();  // a second SIGTERM: every unfinished job is cancelled
  // Blocks until drain() has finished.
  void wait();

  // What it listens on, as "unix:///path" / "127.0.0.1:PORT" (TCP ports resolved) and the HTTP
  // address ("" when off).
  std::vector<std::string> grpc_addresses() const;
  std::string http_address() const;
  pipeline::Engine& engine();
  // A channel into the service without a socket (tests, the fuzz test).
  std::shared_ptr<grpc::Channel> in_process_channel();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkpipe::server
