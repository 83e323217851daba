// plugins/snapdeals/plugin/snapdeals_command.h: the snapdeals proof type's command line
// (snapdeals_command.cpp), bound to the descriptor's `command` entry (ABI 1.3) in
// snapdeals_plugin.cpp: `zkpipe-tool proof-type snapdeals ...`. Thread-safety: one call at a time
// (it parses its own arguments and writes to stdout/stderr).
#pragma once

#include <span>
#include <string>

namespace zkpipe::snapdeals {

// args[0] is the type's name; exit codes: 0 done, 1 a check failed, 2 bad usage or input.
int run_command(std::span<const std::string> args);

}  // namespace zkpipe::snapdeals
