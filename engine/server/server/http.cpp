// http.cpp: HttpServer (http.h). Loopback addresses serve everyone who can connect; a
// non-loopback address needs the bearer token (Authorization: Bearer ...) on every path but
// /healthz and /readyz (probes).
// Thread-safety: see http.h.
#include "http.h"

#include <httplib.h>
#include <openssl/crypto.h>
#include <spdlog/spdlog.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "zkpipe/pipeline/trace.h"

namespace zkpipe::server {
namespace {

constexpr const char* kMetricsType = "text/plain; version=0.0.4; charset=utf-8";
constexpr double kPanelWindowS = 300;

void error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(message + "\n", "text/plain; charset=utf-8");
}

}  // namespace

HttpServer::HttpServer(pipeline::Engine& engine, ServiceState& state)
    : engine_(engine), state_(state), http_(std::make_unique<httplib::Server>()) {}

HttpServer::~HttpServer() {
  stop();
}

Status HttpServer::start(const Address& address) {
  if (address.unix_socket) {
    return invalid_argument("server.http: '" + address.text + "' must be host:port, not a socket");
  }
  {
    std::ifstream in(ZKPIPE_CHARTJS_PATH, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    chartjs_ = s.str();
    if (chartjs_.empty()) {
      spdlog::warn("the panel needs Chart.js at {} (Debian package libjs-chart.js); / will say so",
                   ZKPIPE_CHARTJS_PATH);
    }
  }
  const bool need_token = !address.loopback;
  httplib::Server& h = *http_;
  h.set_pre_routing_handler(
      [this, need_token](const httplib::Request& req, httplib::Response& res) {
        if (!need_token || req.path == "/healthz" || req.path == "/readyz") {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        const std::string expected = "Bearer " + state_.token;
        const std::string given = req.get_header_value("Authorization");
        if (given.size() != expected.size() ||
            CRYPTO_memcmp(given.data(), expected.data(), given.size()) != 0) {
          error(res, 401, "this address needs the bearer token (Authorization: Bearer <token>)");
          return httplib::Server::HandlerResponse::Handled;
        }
        return httplib::Server::HandlerResponse::Unhandled;
      });
  h.Get("/healthz", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("ok\n", "text/plain; charset=utf-8");
  });
  h.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
    Status s = engine_.ready();
    if (s.ok() && state_.draining.load()) s = unavailable("draining: no new jobs are accepted");
    if (s.ok() && engine_.proof_types().empty()) s = unavailable("no proof type is loaded");
    if (!s.ok()) return error(res, 503, "not ready: " + s.message());
    res.set_content("ready\n", "text/plain; charset=utf-8");
  });
  h.Get("/status", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(status_document(engine_, state_, true).dump(2) + "\n", "application/json");
  });
  h.Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(engine_.metrics_text() + state_.metrics_text(), kMetricsType);
  });
  h.Get("/trace", [this](const httplib::Request& req, httplib::Response& res) {
    double seconds = 60;
    const double window = static_cast<double>(state_.config.trace_window_ms) / 1000;
    if (req.has_param("seconds")) {
      const std::string v = req.get_param_value("seconds");
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seconds);
      if (ec != std::errc() || end != v.data() + v.size() || !(seconds > 0)) {
        return error(res, 400, "seconds: '" + echo_value(v) + "' is not a positive number");
      }
      if (seconds > window) {
        return error(res, 400,
                     fmt::format("seconds: {} is more than the trace keeps (server.trace_window "
                                 "= {} s)",
                                 v, window));
      }
    }
    const int64_t from = engine_.trace().now_ns() - static_cast<int64_t>(seconds * 1e9);
    res.set_content(pipeline::chrome_trace_json(engine_.trace().spans_since(from),
                                                fmt::format("zkpipe serve: last {} s", seconds)),
                    "application/json");
  });
  h.Get("/panel/data", [this](const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(panel_data(engine_, state_, kPanelWindowS).dump(), "application/json");
  });
  h.Get("/chart.js", [this](const httplib::Request&, httplib::Response& res) {
    if (chartjs_.empty()) {
      return error(res, 500,
                   std::string("Chart.js is not installed at ") + ZKPIPE_CHARTJS_PATH +
                       " (Debian package libjs-chart.js)");
    }
    res.set_content(chartjs_, "application/javascript");
  });
  for (const auto& [path, file, type] : {std::tuple{"/", "index.html", "text/html; charset=utf-8"},
                                         {"/panel.js", "panel.js", "application/javascript"},
                                         {"/panel.css", "panel.css", "text/css"}}) {
    const std::string_view body = panel_asset(file);
    const std::string content_type = type;
    h.Get(path, [body, content_type](const httplib::Request&, httplib::Response& res) {
      res.set_content(std::string(body), content_type.c_str());
    });
  }
  h.set_payload_max_length(64 * 1024);  // nothing here takes a body
  // The port itself is the gate's (http_gate.h): cpp-httplib listens on a loopback port of its
  // own and sees only whole requests, so a slow client never holds one of its threads.
  // SO_REUSEADDR only: cpp-httplib's default adds SO_REUSEPORT, with which another process could
  // share the backend port.
  h.set_socket_options([](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  });
  ZKP_ASSIGN_OR_RETURN(const uint16_t port, gate_.bind(address.host, address.port, "server.http"));
  const int backend = h.bind_to_any_port("127.0.0.1");
  if (backend <= 0)
    return unavailable("server.http: cannot listen on a loopback port for the handlers");
  const bool v6 = address.host.find(':') != std::string::npos;
  bound_ = fmt::format("{}{}{}:{}", v6 ? "[" : "", address.host, v6 ? "]" : "", port);
  thread_ = std::thread([this] { http_->listen_after_bind(); });
  return gate_.start(static_cast<uint16_t>(backend));
}

void HttpServer::stop() {
  gate_.stop();
  if (thread_.joinable()) {
    http_->stop();
    thread_.join();
  }
}

}  // namespace zkpipe::server
