// zkpipe: the proving engine's command line. `zkpipe prove` proves one request through the
// pipeline of a config; `zkpipe bench` runs one workload under several configs side by side;
// `zkpipe plan` predicts the memory of a workload; submit, await, status, cancel, params and
// metrics talk to a running `zkpipe serve` (--addr).
// Exit codes: 0 success, 1 a proof or run failed, 2 bad usage or input.
#include <exception>
#include <new>

#include <fmt/core.h>

#include "cli.h"
#include "zkpipe/log.h"
#include "zkpipe/version.h"

int main(int argc, char** argv) {
  zkpipe::log_to_stderr();  // stdout carries only output (tables, --json)
  CLI::App app{"zkpipe: pipelined Groth16 proving of storage proofs (PoRep, SnapDeals)"};
  app.set_version_flag("--version", zkpipe::version_text("zkpipe"));
  app.require_subcommand(1);
  int exit_code = 0;
  zkpipe::cli::add_prove(app, &exit_code);
  zkpipe::cli::add_bench(app, &exit_code);
  zkpipe::cli::add_plan(app, &exit_code);
  zkpipe::cli::add_serve(app, &exit_code);
  zkpipe::cli::add_remote(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::bad_alloc& e) {
    fmt::print(stderr, "zkpipe: RESOURCE_EXHAUSTED: out of memory ({})\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "zkpipe: internal error: {}\n", e.what());
    return 1;
  }
  return exit_code;
}
