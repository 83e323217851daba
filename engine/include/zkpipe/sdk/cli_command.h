// zkpipe/sdk/cli_command.h: a command line written with CLI11, as a proof type's `command` entry
// (ABI 1.3; `zkpipe-tool proof-type TYPE ...`) and zkpipe-tool's subcommands run one: `guarded`
// turns an escaping exception into "<name>: internal error: ..." and exit 1; `run_cli` answers
// `help`, parses, and maps CLI11's usage errors to exit 2. Needs CLI11 and fmt (header-only use),
// which the plugin's project finds itself. Thread-safety: one command at a time.
#pragma once

#include <fmt/core.h>

#include <exception>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace zkpipe::sdk {

// Runs a subcommand and returns its exit code.
template <typename Run>
int guarded(const char* name, Run&& run) {
  try {
    return run();
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: internal error: {}\n", name, e.what());
    return 1;
  }
}

// Parses `args` (args[0]: the program's or the type's name) into `app`, whose callbacks set
// `code`; `help` (or --help, -h) alone prints the usage. Returns the exit code: the callbacks'
// on success, 0 for help, 2 for a usage error (CLI11 has printed why).
inline int run_cli(CLI::App& app, std::span<const std::string> args, const int& code) {
  if (args.size() == 2 && (args[1] == "help" || args[1] == "--help" || args[1] == "-h")) {
    fmt::print("{}", app.help());
    return 0;
  }
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return code;
}

}  // namespace zkpipe::sdk
