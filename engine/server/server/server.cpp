// server.cpp: Server (zkpipe/server/server.h): the listeners (unix sockets made 0660, a stale
// one replaced, a live one refused; TCP off loopback only with a token), the engine, the gRPC
// and HTTP servers, a 1 s housekeeping timer, and draining.
// Thread-safety: see the header; `mu` guards the lifecycle.
#include "zkpipe/server/server.h"
#include "zkpipe/sdk/clock.h"

#include <fmt/ranges.h>
#include <netdb.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "broker.h"
#include "http.h"
#include "port_holder.h"
#include "service.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::server {
namespace {

// Before binding a unix socket: a live server there is an error; a stale socket file (nothing
// accepts on it) is removed; anything else at the path is an error.
// Why gRPC could not listen: the TCP addresses whose port another process holds (named where
// /proc shows it), else the addresses tried.
std::string listen_failure(const std::vector<Address>& listen) {
  std::vector<std::string> taken;
  for (const Address& a : listen) {
    if (a.unix_socket || a.port == 0) continue;
    const std::string holder = tcp_port_holder(a.port);
    if (!holder.empty())
      taken.push_back(fmt::format("{}: port {} is taken by {}", a.text, a.port, holder));
  }
  std::vector<std::string> tried;
  for (const Address& a : listen) tried.push_back(a.text);
  if (!taken.empty()) {
    return fmt::format("serve: cannot listen: {} (stop it, or choose another port)",
                       fmt::join(taken, "; "));
  }
  return fmt::format(
      "serve: cannot listen on {} (a port in use, or an address not of this machine; gRPC's log "
      "above says which)",
      fmt::join(tried, ", "));
}

// The socket path's directory exists and no server answers there; a stale socket file is
// removed (left alone with `dry_run`, which only says it would be replaced).
Status prepare_unix_socket(const Address& a, bool dry_run = false) {
  struct stat st {};
  if (::lstat(a.path.c_str(), &st) != 0) {
    if (errno != ENOENT) return unavailable("listen " + a.text + ": " + std::strerror(errno));
    const std::filesystem::path dir = std::filesystem::path(a.path).parent_path();
    if (!dir.empty() && !std::filesystem::is_directory(dir)) {
      return not_found("listen " + a.text + ": the directory " + dir.string() + " does not exist");
    }
    return ok_status();
  }
  if (!S_ISSOCK(st.st_mode)) {
    return failed_precondition("listen " + a.text +
                               ": the path exists and is not a socket; not replacing it");
  }
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return unavailable("listen " + a.text + ": socket: " + std::strerror(errno));
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::memcpy(sun.sun_path, a.path.c_str(), a.path.size() + 1);
  const int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun);
  const int err = errno;
  ::close(fd);
  if (rc == 0) {
    return failed_precondition("listen " + a.text + ": another server is listening on this socket");
  }
  if (err != ECONNREFUSED && err != ENOENT) {
    return unavailable("listen " + a.text +
                       ": cannot tell whether the socket is in use: " + std::strerror(err));
  }
  if (dry_run) return ok_status();
  if (::unlink(a.path.c_str()) != 0 && errno != ENOENT) {
    return unavailable("listen " + a.text +
                       ": cannot remove the stale socket: " + std::strerror(errno));
  }
  spdlog::info("listen {}: replaced a stale socket file", a.text);
  return ok_status();
}

// The server section as serve reads it (with the command line's overrides): the addresses,
// the token, and the rule that a listener off loopback needs the token.
struct Listeners {
  ServerConfig config;
  std::vector<Address> listen;
  std::optional<Address> http;
  std::string token;
};

Result<Listeners> resolve_listeners(const Config& config, const ServeOverrides& o) {
  Listeners l;
  ServerConfig& sc = l.config;
  sc = config.server;
  if (o.listen) sc.listen = *o.listen;
  if (o.http) sc.http = *o.http;
  if (o.token_file) sc.token_file = *o.token_file;
  if (sc.listen.empty()) return invalid_argument("serve: no gRPC address to listen on");
  bool public_tcp = false;
  for (const std::string& text : sc.listen) {
    ZKP_ASSIGN_OR_RETURN(Address a, parse_address(text, "server.listen"));
    public_tcp = public_tcp || (!a.unix_socket && !a.loopback);
    l.listen.push_back(std::move(a));
  }
  if (!sc.http.empty()) {
    ZKP_ASSIGN_OR_RETURN(l.http, parse_address(sc.http, "server.http"));
    public_tcp = public_tcp || !l.http->loopback;
  }
  if (!sc.token_file.empty()) {
    Result<std::string> token = read_token_file(sc.token_file);
    if (!token.ok()) return token.status().with_context("server.token_file");
    l.token = std::move(*token);
  }
  if (public_tcp && l.token.empty()) {
    return invalid_argument(
        config.path +
        ": server: a listener off loopback needs a bearer token (server.token_file or "
        "--token-file, a file of mode 0600)");
  }
  return l;
}

// Whether a TCP port of `a` can be bound now (bound and closed at once); a taken one names its
// holder where it can.
Status probe_port(const Address& a, const std::string& key) {
  if (a.port == 0) return ok_status();
  const int fd = ::socket(a.host.find(':') != std::string::npos ? AF_INET6 : AF_INET,
                          SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return unavailable(key + ": socket: " + std::strerror(errno));
  const int yes = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  int rc = ::getaddrinfo(a.host.c_str(), std::to_string(a.port).c_str(), &hints, &found);
  int err = 0;
  if (rc == 0) {
    rc = ::bind(fd, found->ai_addr, found->ai_addrlen);
    err = errno;
    ::freeaddrinfo(found);
  }
  ::close(fd);
  if (rc == 0) return ok_status();
  const std::string holder = err == EADDRINUSE ? tcp_port_holder(a.port) : "";
  return unavailable(key + ": cannot listen on " + a.text +
                     (holder.empty()
                          ? " (in use, or not an address of this machine)"
                          : ": port " + std::to_string(a.port) + " is taken by " + holder));
}

}  // namespace

Result<std::string> probe_server(const Config& config) {
  ZKP_ASSIGN_OR_RETURN(Listeners l, resolve_listeners(config, {}));
  std::vector<std::string> where;
  for (const Address& a : l.listen) {
    Status s = a.unix_socket ? prepare_unix_socket(a, true) : probe_port(a, "server.listen");
    if (s.code() == Code::kNotFound && a.path.starts_with("/run/zkpipe/")) {
      // This machine, now: zkpipe.service makes /run/zkpipe (RuntimeDirectory=) when it starts.
      return unavailable(s.message() + " (zkpipe.service creates it when it starts)");
    }
    ZKP_RETURN_IF_ERROR(s);
    where.push_back(a.text);
  }
  if (l.http) {
    ZKP_RETURN_IF_ERROR(probe_port(*l.http, "server.http"));
    where.push_back("http " + l.http->text);
  }
  std::string out = "listens on " + fmt::format("{}", fmt::join(where, ", "));
  out +=
      l.token.empty() ? "; no token (loopback only)" : "; bearer token from " + l.config.token_file;
  if (!l.config.proof_types.empty()) {
    out += "; proof types " + fmt::format("{}", fmt::join(l.config.proof_types, ", "));
  }
  return out;
}

struct Server::Impl {
  ServiceState state;
  // Declared before the engine: the engine's shutdown reports its jobs' ends to the broker,
  // which commits them to the store, so both outlive it.
  std::unique_ptr<store::JobStore> store;
  std::unique_ptr<JobBroker> broker;
  std::unique_ptr<pipeline::Engine> engine;
  std::unique_ptr<ProvingService> service;
  std::unique_ptr<grpc::Server> grpc;
  std::unique_ptr<HttpServer> http;
  std::vector<Address> listen;
  std::vector<std::string> bound;
  std::thread timer;

  std::mutex mu;
  std::condition_variable cv;
  bool draining = false, stopped = false, shut = false;

  void shutdown(std::chrono::milliseconds grace);
  // The broker's claimer and heartbeat call the engine: they stop before it is destroyed (also
  // when start() fails half-way); its committer stays for the ends the engine's shutdown
  // reports, then stops with the broker.
  ~Impl() {
    if (broker) broker->detach_engine();
  }
};

Server::Server(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
  impl_->engine->cancel_all();  // the broker gives these jobs back to the store's queue
  impl_->shutdown(std::chrono::milliseconds(2000));
}

// Closes the listeners (calls still running get `grace` to end, then are cancelled), stops the
// timer. Idempotent.
void Server::Impl::shutdown(std::chrono::milliseconds grace) {
  {
    std::lock_guard lock(mu);
    if (shut) return;
    shut = true;
    stopped = true;
  }
  cv.notify_all();
  if (timer.joinable()) timer.join();
  if (http) http->stop();
  if (grpc) {
    grpc->Shutdown(std::chrono::system_clock::now() + grace);
    grpc->Wait();
  }
  for (const Address& a : listen) {
    if (a.unix_socket) ::unlink(a.path.c_str());
  }
}

Result<std::unique_ptr<Server>> Server::start(const Config& config, const ServeOverrides& o,
                                              pipeline::EngineOptions engine_options) {
  auto impl = std::make_unique<Impl>();
  ZKP_ASSIGN_OR_RETURN(Listeners listeners, resolve_listeners(config, o));
  ServerConfig& sc = impl->state.config;
  sc = std::move(listeners.config);
  impl->listen = std::move(listeners.listen);
  const std::optional<Address> http_address = std::move(listeners.http);
  impl->state.token = std::move(listeners.token);
  for (const Address& a : impl->listen) {
    if (a.unix_socket) ZKP_RETURN_IF_ERROR(prepare_unix_socket(a));
  }

  engine_options.proof_types = sc.proof_types;  // empty: every proof type in the plugin dirs
  engine_options.retain.count = sc.retain_count;
  engine_options.retain.age = std::chrono::milliseconds(sc.retain_age_ms);
  engine_options.trace_window = std::chrono::milliseconds(sc.trace_window_ms);
  // The job store: every accepted job is recorded there before SubmitProof answers.
  StoreConfig store_config = config.store;
  if (store_config.backend == "sqlite" && store_config.sqlite_path.empty()) {
    store_config.sqlite_path = default_sqlite_path(config);
  }
  Result<std::unique_ptr<store::JobStore>> opened = store::open_store(store_config);
  if (!opened.ok()) return opened.status().with_context(config.path + ": store");
  impl->store = std::move(*opened);
  const bool shared = store_config.backend != "sqlite";
  // Jobs claimed at once: what the pipeline holds (synthesis, ready queue, compute, finalizers),
  // plus the look-ahead. A crash
  // costs an attempt only to these; the rest waits in the store (for any worker, when shared).
  const uint32_t devices = std::max<size_t>(1, config.compute.devices.size());
  const size_t compute_workers = devices * config.compute.workers_per_device;
  const size_t claim_limit = config.pipeline.synthesis_workers +
                             compute_workers * (1 + config.pipeline.ready_depth) +
                             config.pipeline.finalizers + store_config.claim_ahead;
  impl->broker = std::make_unique<JobBroker>(*impl->store, store_config, store_config.worker,
                                             shared, claim_limit);
  impl->broker->hook(engine_options);
  ZKP_ASSIGN_OR_RETURN(impl->engine, pipeline::Engine::create(config, std::move(engine_options)));
  impl->broker->start(*impl->engine);
  impl->state.broker = impl->broker.get();
  impl->service = std::make_unique<ProvingService>(*impl->engine, *impl->broker, impl->state);

  grpc::ServerBuilder builder;
  const int max = static_cast<int>(std::min<uint64_t>(sc.max_message_bytes, INT32_MAX));
  builder.SetMaxReceiveMessageSize(max);
  builder.SetMaxSendMessageSize(max);
  grpc::ResourceQuota quota("zkpipe-serve");
  // Each waiting AwaitProof/WatchJob/Prove holds one; server.max_waiting_calls (at most 480)
  // leaves the rest to the other calls.
  quota.SetMaxThreads(512);
  builder.SetResourceQuota(quota);
  // A port is this daemon's alone: gRPC would otherwise set SO_REUSEPORT, and a second daemon
  // on the same port would take half of its connections.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::vector<int> ports(impl->listen.size(), 0);
  for (size_t i = 0; i < impl->listen.size(); ++i) {
    builder.AddListeningPort(impl->listen[i].grpc, grpc::InsecureServerCredentials(),
                             impl->listen[i].unix_socket ? nullptr : &ports[i]);
  }
  builder.RegisterService(impl->service.get());
  impl->grpc = builder.BuildAndStart();
  if (!impl->grpc) return unavailable(listen_failure(impl->listen));
  for (size_t i = 0; i < impl->listen.size(); ++i) {
    const Address& a = impl->listen[i];
    if (a.unix_socket) {
      ::chmod(a.path.c_str(), 0660);
      impl->bound.push_back("unix://" + a.path);
    } else {
      if (ports[i] == 0) {
        impl->grpc->Shutdown();
        return unavailable(listen_failure({a}));
      }
      const bool v6 = a.host.find(':') != std::string::npos;
      impl->bound.push_back(
          fmt::format("{}{}{}:{}", v6 ? "[" : "", a.host, v6 ? "]" : "", ports[i]));
    }
  }
  if (http_address) {
    impl->http = std::make_unique<HttpServer>(*impl->engine, impl->state);
    if (Status s = impl->http->start(*http_address); !s.ok()) {
      impl->grpc->Shutdown();
      return s;
    }
  }
  Impl* raw = impl.get();
  impl->timer = std::thread([raw] {
    std::unique_lock lock(raw->mu);
    while (!raw->stopped) {
      raw->cv.wait_for(lock, std::chrono::seconds(1));
      lock.unlock();
      raw->engine->forget_expired();
      lock.lock();
    }
  });
  return std::unique_ptr<Server>(new Server(std::move(impl)));
}

void Server::drain(std::optional<std::chrono::milliseconds> timeout) {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (m.draining) return;
    m.draining = true;
  }
  m.state.draining = true;
  m.broker->stop_claiming();
  m.engine->stop_accepting();
  const size_t left = m.engine->unfinished_jobs();
  spdlog::info("draining: {} job(s) in flight; no new jobs are accepted", left);
  const auto until = timeout ? saturating_after(std::chrono::steady_clock::now(), *timeout)
                             : std::chrono::steady_clock::time_point::max();
  while (m.engine->unfinished_jobs() > 0 || m.broker->in_flight() > 0) {
    if (std::chrono::steady_clock::now() >= until) {
      spdlog::warn("draining: server.drain_timeout passed; cancelling {} job(s)",
                   m.engine->unfinished_jobs());
      m.engine->cancel_all();
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Clients waiting on AwaitProof/WatchJob wake within a slice and take their results.
  m.shutdown(std::chrono::milliseconds(5000));
  spdlog::info("drained: every accepted job ended; listeners closed");
}

void Server::cancel_all() {
  impl_->engine->cancel_all();
}

void Server::wait() {
  std::unique_lock lock(impl_->mu);
  impl_->cv.wait(lock, [&] { return impl_->shut; });
}

std::vector<std::string> Server::grpc_addresses() const {
  return impl_->bound;
}

std::string Server::http_address() const {
  return impl_->http ? impl_->http->address() : "";
}

pipeline::Engine& Server::engine() {
  return *impl_->engine;
}

std::shared_ptr<grpc::Channel> Server::in_process_channel() {
  grpc::ChannelArguments args;
  const int max =
      static_cast<int>(std::min<uint64_t>(impl_->state.config.max_message_bytes, INT32_MAX));
  args.SetMaxReceiveMessageSize(max);
  args.SetMaxSendMessageSize(max);
  return impl_->grpc->InProcessChannel(args);
}

}  // namespace zkpipe::server
