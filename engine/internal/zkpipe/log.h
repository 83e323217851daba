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

// The table passed to every plugin's init.
const zkp_host* plugin_host();

}  // namespace zkpipe
