// tools/commands.h: the subcommands of zkpipe-tool, one file each. Each add_* registers its
// subcommand on `app`; when it runs, it stores the process exit code in *exit_code
// (0 success, 1 a check failed, 2 bad usage or input).
// Thread-safety: called on the main thread only.
#pragma once

#include <fmt/core.h>

#include <exception>

#include <CLI/CLI.hpp>

#include "zkpipe/sdk/cli_command.h"

namespace zkpipe::tool {

void add_validate(CLI::App& app, int* exit_code);
void add_check_system(CLI::App& app, int* exit_code);
// zkpipe-bench-h2d (tools/bench/h2d): its options and run on `app` itself.
void add_bench_h2d(CLI::App& app, int* exit_code);
void add_params(CLI::App& app, int* exit_code);
// `params new`, registered by add_params on its "params" subcommand.
void add_params_new(CLI::App& params, int* exit_code);
void add_groth16(CLI::App& app, int* exit_code);
// `groth16 prove`, registered by add_groth16 on its "groth16" subcommand.
void add_groth16_prove(CLI::App& groth16, int* exit_code);
void add_prove_once(CLI::App& app, int* exit_code);
// `filecoin inputs|verify|params check`: Filecoin's own proofs (zkpipe::filecoin).
void add_filecoin(CLI::App& app, int* exit_code);
// `proof-type TYPE ARGS...`: a proof-type plugin's own command line (ABI 1.3).
void add_proof_type_command(CLI::App& app, int* exit_code);

// Runs a subcommand and returns its exit code; an exception that escapes it is reported as
// "<name>: internal error: ..." with exit code 1 (never an abort).
using sdk::guarded;

}  // namespace zkpipe::tool
