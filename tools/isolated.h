// tools/isolated.h: runs one check in a forked child process, so that a plugin which crashes,
// aborts or hangs while it is loaded or tested takes down the child, not the tool. The child
// reports stage markers and then its result over a pipe; the parent forwards the child's stderr,
// enforces a time limit (killing the child) and names the stage the child had reached.
// Thread-safety: call from the main thread of a process that has started no other threads.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace zkpipe::tool {

// The child's end of the pipe.
class ChildChannel {
 public:
  explicit ChildChannel(int fd) : fd_(fd) {}
  // Marks the start of a stage ("dlopen", "init", "self_test"); a crash or time-out names it.
  void stage(std::string_view name);
  void result(std::string_view payload);

 private:
  void send(char type, std::string_view payload);
  int fd_;
};

struct IsolatedOutcome {
  std::optional<std::string> result;  // what `work` returned, when the child finished
  std::string failure;                // else why not: "crashed: SIGSEGV during init",
                                      // "timed out after 30 s during self_test", ...
};

// Forks; the child runs `work` (its stderr forwarded to ours) and exits with _exit, running no
// destructors or atexit handlers. The child restores the default action of the crash signals,
// so a crash is reported as the signal whatever handlers the process installed (sanitizers).
IsolatedOutcome run_isolated(const std::function<std::string(ChildChannel&)>& work,
                             std::chrono::milliseconds timeout);

}  // namespace zkpipe::tool
