// zkpipe/log.h: engine logging through spdlog, and the zkp_host table that lets plugins log
// through the same logger.
// Thread-safety: set_log_level and the host's log callback are thread-safe.
#pragma once

#include <string>

#include "zkpipe/sdk/abi/common.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe {

// "trace", "debug", "info", "warn", "error"; INVALID_ARGUMENT for anything else.
Status set_log_level(const std::string& level);

// "text" (spdlog's default: "[time] [zkpipe] [level] message") or "json" (one object a line:
// time, level, msg and the thread's LogContext fields, zkpipe/log_context.h); INVALID_ARGUMENT
// for anything else. Applies to every logger from now on. Not thread-safe: call it before other
// threads log.
Status set_log_format(const std::string& format);

// Every log line (the engine's and the plugins') goes to standard error from now on, so that a
// program's standard output carries only what it prints (tables, `--json`). The programs call it
// first in main. Not thread-safe: call it before any other thread logs.
void log_to_stderr();

// The table passed to every plugin's init.
const zkp_host* plugin_host();

}  // namespace zkpipe
