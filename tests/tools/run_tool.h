// tests/tools/run_tool.h: runs a built program (zkpipe-tool, zkpipe) with arguments and captures
// its exit code and output (stdout + stderr, or stdout alone), for tests of the command-line
// surface. Thread-safety: popen per call; safe to call from one test at a time.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace zkpipe::test {

struct ToolRun {
  int exit_code = -1;
  std::string output;
};

// `stderr_too` false: the output is stdout alone (stderr is dropped), for --json's promise.
inline ToolRun run_program(const std::string& program, const std::string& args,
                           bool stderr_too = true) {
  ToolRun r;
  const std::string cmd = program + " " + args + (stderr_too ? " 2>&1" : " 2>/dev/null");
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline ToolRun run_tool(const std::string& args) {
  return run_program(ZKPIPE_TEST_TOOL, args);
}

}  // namespace zkpipe::test
