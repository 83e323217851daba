// zkpipe-tool: validates plugin sets, checks the system, makes and checks the proof types'
// inputs and proves one request without the pipeline. It links no CUDA (host-to-device bandwidth
// is zkpipe-bench-h2d, tools/bench/h2d).
#include <spdlog/spdlog.h>

#include <exception>
#include <new>

#include <fmt/core.h>

#include "commands.h"
#include "zkpipe/log.h"
#include "zkpipe/version.h"

int main(int argc, char** argv) {
  zkpipe::log_to_stderr();  // stdout carries only output (tables, --json)
  CLI::App app{"zkpipe-tool: checks plugins, configs and the machine for the zkpipe prover"};
  app.set_version_flag("--version", zkpipe::version_text("zkpipe-tool"));
  app.require_subcommand(1);
  int exit_code = 0;
  zkpipe::tool::add_validate(app, &exit_code);
  zkpipe::tool::add_check_system(app, &exit_code);
  zkpipe::tool::add_params(app, &exit_code);
  zkpipe::tool::add_groth16(app, &exit_code);
  zkpipe::tool::add_prove_once(app, &exit_code);
  zkpipe::tool::add_filecoin(app, &exit_code);
  zkpipe::tool::add_proof_type_command(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  } catch (const std::bad_alloc& e) {
    fmt::print(stderr, "zkpipe-tool: RESOURCE_EXHAUSTED: out of memory ({})\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "zkpipe-tool: internal error: {}\n", e.what());
    return 1;
  }
  return exit_code;
}
