// log.cpp: set_log_level and the zkp_host table of zkpipe/log.h. Plugins log through
// zkp_host::log, which forwards to spdlog's default logger as "[<plugin name>] <message>".
// Thread-safety: spdlog's default logger and global level are thread-safe; the host table is
// a constant initialised before main, and its callback never throws across the C ABI.
#include "zkpipe/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace zkpipe {
namespace {

struct LevelName {
  std::string_view name;
  spdlog::level::level_enum level;
};

// Indexed by ZKP_LOG_* (abi/common.h): trace 0 ... error 4, as spdlog's own numbering.
constexpr std::array<LevelName, 5> kLevels = {{{"trace", spdlog::level::trace},
                                               {"debug", spdlog::level::debug},
                                               {"info", spdlog::level::info},
                                               {"warn", spdlog::level::warn},
                                               {"error", spdlog::level::err}}};
static_assert(ZKP_LOG_TRACE == 0 && ZKP_LOG_DEBUG == 1 && ZKP_LOG_INFO == 2 && ZKP_LOG_WARN == 3 &&
              ZKP_LOG_ERROR == 4);

}  // namespace

void log_to_stderr() {
  auto logger = spdlog::stderr_color_mt("zkpipe");
  logger->set_level(spdlog::default_logger()->level());
  spdlog::set_default_logger(std::move(logger));
}

extern "C" {
// A level outside ZKP_LOG_TRACE..ZKP_LOG_ERROR is clamped to the nearest one, so a message
// from a plugin built against a newer ABI is still shown; null strings are shown as such.
static void zkp_host_log(int32_t level, const char* plugin_name, const char* message) noexcept {
  const int32_t index = std::clamp<int32_t>(level, ZKP_LOG_TRACE, ZKP_LOG_ERROR);
  try {
    spdlog::log(kLevels[static_cast<size_t>(index)].level, "[{}] {}",
                plugin_name != nullptr ? plugin_name : "(unnamed plugin)",
                message != nullptr ? message : "(null message)");
  } catch (...) {
    // Logging must not unwind into plugin code; a failed log line has nowhere else to go.
  }
}
}  // extern "C"

Status set_log_level(const std::string& level) {
  for (const LevelName& entry : kLevels) {
    if (entry.name == level) {
      spdlog::set_level(entry.level);
      return ok_status();
    }
  }
  return invalid_argument("unknown log level '" + level +
                          "' (use trace, debug, info, warn or error)");
}

const zkp_host* plugin_host() {
  static constexpr zkp_host kHost = {sizeof(zkp_host), ZKP_ABI_MAJOR, ZKP_ABI_MINOR, &zkp_host_log};
  return &kHost;
}

}  // namespace zkpipe
