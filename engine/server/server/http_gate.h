// http_gate.h: private to engine/server. The front of the daemon's HTTP port: one thread that
// accepts the port's connections and holds each until its request head (request line and
// headers) has arrived whole, then hands the request to cpp-httplib (HttpServer, listening on a
// loopback port of its own) and relays the answer back. cpp-httplib gives a pool thread to every
// connection from the first byte, so a handful of clients that send their headers a byte at a
// time used to take the port down (/healthz included); here a half-read request costs a socket
// and a few KiB, never a thread, and every request has a deadline:
//   - the head must arrive within GateLimits::head_time and be at most head_bytes long, else
//     the client gets 408 or 431 and the connection is closed;
//   - the whole exchange (head, answer, relay) ends within exchange_time;
//   - at most max_waiting half-read connections: past it the oldest is dropped, so a probe that
//     sends its request at once is answered however many slow clients there are;
//   - one request per connection (the head's Connection header becomes "close").
// Thread-safety: start/stop on one thread; the gate runs on its own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>

#include "zkpipe/sdk/status.h"

namespace zkpipe::server {

struct GateLimits {
  std::chrono::milliseconds head_time{10'000};
  size_t head_bytes = 16 * 1024;
  std::chrono::milliseconds exchange_time{120'000};
  size_t max_waiting = 256;   // half-read connections held at once
  size_t max_relaying = 128;  // connections handed to the backend at once (more wait)
};

class HttpGate {
 public:
  HttpGate() = default;
  ~HttpGate();
  HttpGate(const HttpGate&) = delete;
  HttpGate& operator=(const HttpGate&) = delete;

  // Binds host:port (port 0: any free one; exclusive, no SO_REUSEPORT). `what` names the key in
  // errors ("server.http"). Returns the bound port.
  Result<uint16_t> bind(const std::string& host, uint16_t port, const std::string& what);
  // Serves the bound port on a thread, relaying complete requests to 127.0.0.1:backend_port.
  Status start(uint16_t backend_port, GateLimits limits = {});
  void stop();

 private:
  void loop();

  int listen_fd_ = -1;
  int wake_fd_ = -1;  // eventfd: stop()
  uint16_t backend_port_ = 0;
  GateLimits limits_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace zkpipe::server
