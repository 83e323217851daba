// run_isolated (isolated.h): fork, a message pipe and a stderr pipe, poll with a deadline,
// waitpid. Messages on the pipe: one type byte ('S' stage, 'R' result, 'X' exception), a 4-byte
// length, the payload. Thread-safety: see isolated.h.
#include "isolated.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <thread>

#include <fmt/core.h>

namespace zkpipe::tool {
namespace {

constexpr size_t kStderrTail = 4096;  // kept of the child's stderr, for its last line

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;  // the parent is gone: nothing to tell
    p += w;
    n -= static_cast<size_t>(w);
  }
}

[[noreturn]] void child_main(int msg_fd, int err_fd,
                             const std::function<std::string(ChildChannel&)>& work) {
  ::dup2(err_fd, STDERR_FILENO);
  ::close(err_fd);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS})
    ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ChildChannel channel(msg_fd);
  try {
    const std::string payload = work(channel);
    channel.result(payload);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    write_all(msg_fd, "X", 1);
    const uint32_t n = static_cast<uint32_t>(what.size());
    write_all(msg_fd, reinterpret_cast<const char*>(&n), sizeof n);
    write_all(msg_fd, what.data(), what.size());
  }
  std::fflush(stderr);
  ::_exit(0);
}

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev != nullptr ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

std::string last_line(const std::string& text) {
  const size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const size_t newline = text.rfind('\n', end);
  const size_t begin = newline == std::string::npos ? 0 : newline + 1;
  return text.substr(begin, end + 1 - begin);
}

// What the parent reads back.
struct Received {
  std::string buffer;  // unparsed bytes
  std::string stage = "start";
  std::optional<std::string> result;
  std::optional<std::string> exception;

  void parse() {
    for (;;) {
      if (buffer.size() < 5) return;
      uint32_t n = 0;
      std::memcpy(&n, buffer.data() + 1, sizeof n);
      if (buffer.size() < 5 + size_t{n}) return;
      std::string payload = buffer.substr(5, n);
      const char type = buffer[0];
      buffer.erase(0, 5 + size_t{n});
      if (type == 'S') stage = std::move(payload);
      if (type == 'R') result = std::move(payload);
      if (type == 'X') exception = std::move(payload);
    }
  }
};

}  // namespace

void ChildChannel::send(char type, std::string_view payload) {
  const uint32_t n = static_cast<uint32_t>(payload.size());
  std::string msg(1, type);
  msg.append(reinterpret_cast<const char*>(&n), sizeof n);
  msg.append(payload);
  write_all(fd_, msg.data(), msg.size());
}

void ChildChannel::stage(std::string_view name) {
  send('S', name);
}

void ChildChannel::result(std::string_view payload) {
  send('R', payload);
}

IsolatedOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work,
                             std::chrono::milliseconds timeout) {
  IsolatedOutcome out;
  int msg[2], err[2];
  if (::pipe2(msg, O_CLOEXEC) != 0) {
    out.failure = std::string("cannot create a pipe: ") + std::strerror(errno);
    return out;
  }
  if (::pipe2(err, O_CLOEXEC) != 0) {
    out.failure = std::string("cannot create a pipe: ") + std::strerror(errno);
    ::close(msg[0]);
    ::close(msg[1]);
    return out;
  }
  std::fflush(nullptr);  // nothing buffered in the parent is written twice
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(msg[0]);
    ::close(err[0]);
    child_main(msg[1], err[1], work);
  }
  ::close(msg[1]);
  ::close(err[1]);
  if (pid < 0) {
    out.failure = std::string("cannot fork: ") + std::strerror(errno);
    ::close(msg[0]);
    ::close(err[0]);
    return out;
  }

  const auto deadline = std::chrono::steady_clock::now() + timeout;
  auto left_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline -
                                                                 std::chrono::steady_clock::now())
        .count();
  };
  Received got;
  std::string err_tail;
  pollfd fds[2] = {{msg[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  bool timed_out = false, reaped = false;
  int status = 0;
  for (;;) {
    if (fds[0].fd < 0 && fds[1].fd < 0) {
      // Both pipes closed: the child is exiting (or closed them and lingers).
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        reaped = true;
        break;
      }
      if (left_ms() <= 0) {
        timed_out = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      continue;
    }
    const long long left = left_ms();
    if (left <= 0) {
      timed_out = true;
      break;
    }
    const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) break;
    char buf[4096];
    for (pollfd& f : fds) {
      if (f.fd < 0 || (f.revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const ssize_t r = ::read(f.fd, buf, sizeof buf);
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        ::close(f.fd);
        f.fd = -1;
        continue;
      }
      if (&f == &fds[0]) {
        got.buffer.append(buf, static_cast<size_t>(r));
        got.parse();
      } else {
        write_all(STDERR_FILENO, buf, static_cast<size_t>(r));
        err_tail.append(buf, static_cast<size_t>(r));
        if (err_tail.size() > kStderrTail) err_tail.erase(0, err_tail.size() - kStderrTail);
      }
    }
  }
  for (pollfd& f : fds) {
    if (f.fd >= 0) ::close(f.fd);
  }
  if (!reaped) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  }
  if (timed_out) {
    out.failure = fmt::format("timed out after {:g} s during {} (killed)",
                              static_cast<double>(timeout.count()) / 1000.0, got.stage);
    return out;
  }
  const std::string line = last_line(err_tail);
  if (WIFSIGNALED(status)) {
    out.failure = "crashed: " + signal_name(WTERMSIG(status)) + " during " + got.stage;
  } else if (got.result && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.result = std::move(got.result);
  } else if (got.exception) {
    out.failure = "threw during " + got.stage + ": " + *got.exception;
  } else {
    out.failure = fmt::format("exited with status {} during {}{}", WEXITSTATUS(status), got.stage,
                              line.empty() ? "" : ": " + line);
  }
  return out;
}

}  // namespace zkpipe::tool
