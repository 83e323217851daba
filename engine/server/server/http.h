// http.h: private to engine/server. The daemon's HTTP side (cpp-httplib): /healthz, /readyz,
// /status, /metrics, /trace?seconds=N, /panel/data and the panel's files (http.cpp), and the
// panel's data (panel_data.cpp). Clients reach the handlers through HttpGate (http_gate.h), which
// holds half-read requests without a thread and bounds every request's time and size.
// Thread-safety: HttpServer's start/stop on one thread; httplib runs handlers on its pool.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "http_gate.h"
#include "service.h"

namespace httplib {
class Server;
}

namespace zkpipe::server {

std::string_view panel_asset(std::string_view name);  // panel_assets.cpp (generated)

nlohmann::json panel_data(pipeline::Engine& engine, const ServiceState& state, double window_s);

class HttpServer {
 public:
  HttpServer(pipeline::Engine& engine, ServiceState& state);
  ~HttpServer();
  // Binds `address` (host:port, port 0: any free one) and serves on a thread.
  Status start(const Address& address);
  void stop();
  std::string address() const { return bound_; }

 private:
  pipeline::Engine& engine_;
  ServiceState& state_;
  std::unique_ptr<httplib::Server> http_;
  HttpGate gate_;  // the public port; httplib serves a loopback one behind it
  std::thread thread_;
  std::string bound_;
  std::string chartjs_;  // Debian's Chart.js, read at start
};

}  // namespace zkpipe::server
