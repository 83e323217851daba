// http_gate.cpp: HttpGate (http_gate.h): a poll() loop over the port's connections, each a
// small state machine: head (reading the request head) -> queued (head complete, the backend
// busy) -> connecting -> relay (request out, answer back) or closing (a canned 4xx/5xx out).
// Thread-safety: see http_gate.h.
#include "http_gate.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <list>
#include <vector>

#include "port_holder.h"

namespace zkpipe::server {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kRelayBuffer = 1 << 20;  // answer bytes held for a slow reader
constexpr auto kClosingTime = std::chrono::seconds(2);

enum class Phase { kHead, kQueued, kConnecting, kRelay, kClosing };

struct Conn {
  int client = -1;
  int backend = -1;
  Phase phase = Phase::kHead;
  std::string in;   // head phase: the client's bytes so far; then: still to send to the backend
  std::string out;  // to send to the client (the backend's answer, or a canned one)
  size_t out_sent = 0;
  bool backend_eof = false;
  Clock::time_point start;
  Clock::time_point closing_deadline;
  bool done = false;
  size_t client_index = 0, backend_index = 0;  // in this round's pollfds (0: not polled)
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

std::string canned(int code, const char* reason, const std::string& body) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n"
      "Connection: close\r\n\r\n{}\n",
      code, reason, body.size() + 1, body);
}

void answer(Conn& c, int code, const char* reason, const std::string& body) {
  c.phase = Phase::kClosing;
  c.out = canned(code, reason, body);
  c.out_sent = 0;
  c.closing_deadline = Clock::now() + kClosingTime;
  close_fd(c.backend);
}

bool head_complete(const std::string& in) {
  return in.find("\r\n\r\n") != std::string::npos || in.find("\n\n") != std::string::npos;
}

// One request a connection: the head's own Connection headers go, "Connection: close" comes in
// their place, so the handlers close after answering (bytes after the head pass unchanged).
void close_after(std::string& in) {
  const size_t crlf = in.find("\r\n\r\n"), lf = in.find("\n\n");
  const size_t end = std::min(crlf, lf);  // the blank line's first byte is at end + (1 or 2)
  const size_t body = end == crlf ? end + 4 : end + 2;
  std::string head;
  size_t pos = 0;
  bool first = true;
  while (pos < end) {
    size_t nl = in.find('\n', pos);
    if (nl == std::string::npos || nl > end) nl = end;
    std::string line = in.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    pos = nl + 1;
    std::string name = line.substr(0, line.find(':'));
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (!first && name == "connection") continue;
    first = false;
    head += line + "\r\n";
  }
  head += "Connection: close\r\n\r\n";
  in = head + in.substr(std::min(body, in.size()));
}

// Sends what is pending for the client; false when the client is gone.
bool flush_client(Conn& c) {
  while (c.out_sent < c.out.size()) {
    const ssize_t n = ::send(c.client, c.out.data() + c.out_sent, c.out.size() - c.out_sent,
                             MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      c.out_sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return true;
    return false;
  }
  c.out.clear();
  c.out_sent = 0;
  return true;
}

void start_backend(Conn& c, uint16_t port) {
  c.backend = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (c.backend < 0) return answer(c, 503, "Service Unavailable", "out of sockets; try again");
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(c.backend, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    c.phase = Phase::kRelay;
  } else if (errno == EINPROGRESS) {
    c.phase = Phase::kConnecting;
  } else {
    answer(c, 502, "Bad Gateway", "the daemon's HTTP handlers are not answering");
  }
}

// Head phase: reads what the client sent; completes, refuses or keeps waiting.
void read_head(Conn& c, const GateLimits& limits) {
  char buf[4096];
  for (;;) {
    const size_t room = limits.head_bytes + 1 - std::min(c.in.size(), limits.head_bytes);
    const ssize_t n = ::recv(c.client, buf, std::min(sizeof buf, room), MSG_DONTWAIT);
    if (n == 0) {
      c.done = true;  // the client gave up
      return;
    }
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.done = true;
      return;
    }
    const size_t from = c.in.size() < 3 ? 0 : c.in.size() - 3;
    c.in.append(buf, static_cast<size_t>(n));
    if (head_complete(c.in.substr(from))) {
      close_after(c.in);
      c.phase = Phase::kQueued;
      return;
    }
    if (c.in.size() > limits.head_bytes) {
      return answer(c, 431, "Request Header Fields Too Large",
                    fmt::format("the request head is over {} bytes", limits.head_bytes));
    }
  }
}

void relay(Conn& c, short backend_events, short client_events) {
  if (!c.in.empty() && (backend_events & (POLLOUT | POLLERR | POLLHUP))) {
    const ssize_t n = ::send(c.backend, c.in.data(), c.in.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) c.in.erase(0, static_cast<size_t>(n));
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return answer(c, 502, "Bad Gateway", "the daemon's HTTP handlers closed the request");
    }
  }
  if (!c.backend_eof && (backend_events & (POLLIN | POLLHUP | POLLERR))) {
    char buf[16384];
    while (c.out.size() - c.out_sent < kRelayBuffer) {
      const ssize_t n = ::recv(c.backend, buf, sizeof buf, MSG_DONTWAIT);
      if (n > 0) {
        c.out.append(buf, static_cast<size_t>(n));
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        c.backend_eof = true;
      }
      break;
    }
  }
  if (!c.out.empty() && (client_events & (POLLOUT | POLLERR | POLLHUP))) {
    if (!flush_client(c)) c.done = true;
  }
  if (c.backend_eof && c.out.empty()) c.done = true;
}

}  // namespace

HttpGate::~HttpGate() {
  stop();
}

Result<uint16_t> HttpGate::bind(const std::string& host, uint16_t port, const std::string& what) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  const std::string text =
      (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + service;
  if (const int e = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); e != 0) {
    return unavailable(what + ": cannot listen on " + text + ": " + ::gai_strerror(e));
  }
  int err = 0;
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd =
        ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    const int yes = 1;  // SO_REUSEADDR only: SO_REUSEPORT would let a second daemon share it
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 128) == 0) {
      listen_fd_ = fd;
    } else {
      err = errno;
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (listen_fd_ < 0) {
    const std::string holder = port != 0 && err == EADDRINUSE ? tcp_port_holder(port) : "";
    return unavailable(what + ": cannot listen on " + text +
                       (holder.empty() ? fmt::format(" ({})", std::strerror(err))
                                       : ": port " + service + " is taken by " + holder));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  return bound.ss_family == AF_INET6
             ? ntohs(reinterpret_cast<const sockaddr_in6*>(&bound)->sin6_port)
             : ntohs(reinterpret_cast<const sockaddr_in*>(&bound)->sin_port);
}

Status HttpGate::start(uint16_t backend_port, GateLimits limits) {
  if (listen_fd_ < 0) return failed_precondition("HttpGate::start before bind");
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) return unavailable(std::string("eventfd: ") + std::strerror(errno));
  backend_port_ = backend_port;
  limits_ = limits;
  thread_ = std::thread([this] { loop(); });
  return ok_status();
}

void HttpGate::stop() {
  if (thread_.joinable()) {
    stopping_ = true;
    const uint64_t one = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_fd_, &one, sizeof one);
    thread_.join();
  }
  close_fd(wake_fd_);
  close_fd(listen_fd_);
}

void HttpGate::loop() {
  std::list<Conn> conns;
  std::vector<pollfd> fds;
  Clock::time_point accept_rest_until{};  // out of file descriptors: the listener rests
  Clock::time_point next_fd_warning{};
  uint64_t fd_shortages = 0;
  const GateLimits& lim = limits_;
  while (!stopping_) {
    size_t waiting = 0, queued = 0, relaying = 0;
    for (const Conn& c : conns) {
      waiting += c.phase == Phase::kHead;
      queued += c.phase == Phase::kQueued;
      relaying += c.phase == Phase::kConnecting || c.phase == Phase::kRelay;
    }
    // Hand queued heads to the backend, oldest first, while it has room.
    for (Conn& c : conns) {
      if (relaying >= lim.max_relaying) break;
      if (c.phase != Phase::kQueued) continue;
      start_backend(c, backend_port_);
      ++relaying;
      --queued;
    }
    const Clock::time_point now = Clock::now();
    const bool resting = now < accept_rest_until;
    fds.assign({{wake_fd_, POLLIN, 0}, {listen_fd_, resting ? short{0} : short{POLLIN}, 0}});
    Clock::time_point next = now + std::chrono::seconds(1);
    if (resting) next = std::min(next, accept_rest_until);
    for (Conn& c : conns) {
      short ce = 0, be = 0;
      switch (c.phase) {
        case Phase::kHead:
          ce = POLLIN;
          next = std::min(next, c.start + lim.head_time);
          break;
        case Phase::kQueued:
          break;
        case Phase::kConnecting:
          be = POLLOUT;
          break;
        case Phase::kRelay:
          if (!c.in.empty()) be |= POLLOUT;
          if (!c.backend_eof && c.out.size() - c.out_sent < kRelayBuffer) be |= POLLIN;
          if (!c.out.empty()) ce = POLLOUT;
          break;
        case Phase::kClosing:
          ce = POLLOUT;
          next = std::min(next, c.closing_deadline);
          break;
      }
      next = std::min(next, c.start + lim.exchange_time);
      c.client_index = c.backend_index = 0;
      if (ce != 0) {
        c.client_index = fds.size();
        fds.push_back({c.client, ce, 0});
      }
      if (be != 0) {
        c.backend_index = fds.size();
        fds.push_back({c.backend, be, 0});
      }
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(wait, 0, 1000))) < 0 &&
        errno != EINTR) {
      spdlog::error("server.http: poll: {}", std::strerror(errno));
      break;
    }
    if (fds[0].revents != 0) break;
    for (Conn& c : conns) {
      const short ce = c.client_index != 0 ? fds[c.client_index].revents : 0;
      const short be = c.backend_index != 0 ? fds[c.backend_index].revents : 0;
      if (ce == 0 && be == 0) continue;
      switch (c.phase) {
        case Phase::kHead:
          read_head(c, lim);
          break;
        case Phase::kConnecting: {
          int e = 0;
          socklen_t len = sizeof e;
          ::getsockopt(c.backend, SOL_SOCKET, SO_ERROR, &e, &len);
          if (e != 0) {
            answer(c, 502, "Bad Gateway", "the daemon's HTTP handlers are not answering");
          } else {
            c.phase = Phase::kRelay;
          }
          break;
        }
        case Phase::kRelay:
          relay(c, be, ce);
          break;
        case Phase::kClosing:
          if (!flush_client(c) || c.out.empty()) c.done = true;
          break;
        case Phase::kQueued:
          break;
      }
    }
    // Deadlines.
    const Clock::time_point t = Clock::now();
    for (Conn& c : conns) {
      if (c.done) continue;
      if (c.phase == Phase::kHead && t >= c.start + lim.head_time) {
        answer(c, 408, "Request Timeout",
               fmt::format("the request head did not arrive within {} ms", lim.head_time.count()));
      } else if (c.phase == Phase::kClosing && t >= c.closing_deadline) {
        c.done = true;
      } else if (t >= c.start + lim.exchange_time) {
        if (c.phase == Phase::kRelay && c.out.empty() && !c.backend_eof) {
          answer(c, 504, "Gateway Timeout", "the answer took too long");
        } else {
          c.done = true;
        }
      }
    }
    // New connections; past max_waiting the oldest half-read one makes room.
    if (fds[1].revents & POLLIN) {
      for (;;) {
        const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
          if (errno == EMFILE || errno == ENFILE) {
            // Room by the oldest half-read request; with none, the listener rests a moment
            // (its pending connection would wake poll at once, round after round).
            bool dropped = false;
            for (Conn& c : conns) {
              if (c.phase == Phase::kHead && !c.done) {
                c.done = dropped = true;
                break;
              }
            }
            if (!dropped) accept_rest_until = Clock::now() + std::chrono::milliseconds(100);
            ++fd_shortages;
            if (Clock::now() >= next_fd_warning) {  // at most a line a minute under a flood
              spdlog::warn(
                  "server.http: out of file descriptors ({} time(s) since the last "
                  "warning): half-read requests are dropped, oldest first",
                  fd_shortages);
              fd_shortages = 0;
              next_fd_warning = Clock::now() + std::chrono::minutes(1);
            }
          }
          break;
        }
        if (waiting >= lim.max_waiting || queued >= lim.max_waiting) {
          for (Conn& c : conns) {
            if (c.phase == Phase::kHead && !c.done) {
              c.done = true;
              --waiting;
              break;
            }
          }
        }
        if (queued >= lim.max_waiting) {  // the backend is far behind: refuse at once
          Conn busy;
          busy.client = fd;
          answer(busy, 503, "Service Unavailable", "too many requests waiting; try again");
          flush_client(busy);
          close_fd(busy.client);
          continue;
        }
        Conn& c = conns.emplace_back();
        c.client = fd;
        c.start = Clock::now();
        ++waiting;
      }
    }
    for (auto it = conns.begin(); it != conns.end();) {
      if (it->done) {
        close_fd(it->client);
        close_fd(it->backend);
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Conn& c : conns) {
    close_fd(c.client);
    close_fd(c.backend);
  }
}

}  // namespace zkpipe::server
