// log.cpp: set_log_level, set_log_format (text or one JSON object a line), the thread's
// LogContext and the zkp_host table of zkpipe/log.h. Plugins log through zkp_host::log, which
// forwards to spdlog's default logger as "[<plugin name>] <message>" (text) or with a "plugin"
// field (json).
// Thread-safety: spdlog's default logger and global level are thread-safe; the format is set
// before other threads log; the context is thread-local; the host table is a constant
// initialised before main, and its callback never throws across the C ABI.
#include "zkpipe/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <ctime>
#include <nlohmann/json.hpp>
#include <string_view>

#include "zkpipe/log_context.h"

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

thread_local LogContext t_context;
std::atomic<bool> g_json{false};

std::string_view level_name(spdlog::level::level_enum level) {
  for (const LevelName& entry : kLevels) {
    if (entry.level == level) return entry.name;
  }
  return level == spdlog::level::critical ? "critical" : "off";
}

// "2026-12-07T04:34:42.673Z": UTC, milliseconds.
std::string utc_time(spdlog::log_clock::time_point t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  const size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  return fmt::format("{}.{:03d}Z", std::string_view(buf, n), static_cast<int>(ms.count() % 1000));
}

// One object a line: time, level, msg, then whichever of job, request_id, partition, stage and
// plugin the logging thread's context has, and its thread id. Bytes that are not UTF-8 become
// U+FFFD, so every line parses.
class JsonFormatter final : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::ordered_json line;
    line["time"] = utc_time(msg.time);
    line["level"] = level_name(msg.level);
    line["msg"] = std::string(msg.payload.data(), msg.payload.size());
    const LogContext& c = t_context;
    if (c.job != 0) line["job"] = c.job;
    if (!c.request_id.empty()) line["request_id"] = c.request_id;
    if (c.partition >= 0) line["partition"] = c.partition;
    if (!c.stage.empty()) line["stage"] = c.stage;
    if (!c.plugin.empty()) line["plugin"] = c.plugin;
    line["thread"] = msg.thread_id;
    const std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    dest.append(text.data(), text.data() + text.size());
    dest.push_back('\n');
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

const LogContext& log_context() {
  return t_context;
}

LogScope::LogScope(LogContext context) : saved_(std::move(t_context)) {
  t_context = std::move(context);
}

LogScope::~LogScope() {
  t_context = std::move(saved_);
}

LogContext LogScope::stage(std::string_view stage, int64_t partition) {
  LogContext c = t_context;
  c.stage = stage;
  if (partition >= 0) c.partition = partition;
  return c;
}

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
    const std::string_view name = plugin_name != nullptr ? plugin_name : "(unnamed plugin)";
    const std::string_view text = message != nullptr ? message : "(null message)";
    const spdlog::level::level_enum level = kLevels[static_cast<size_t>(index)].level;
    if (g_json.load(std::memory_order_relaxed)) {
      LogContext c = t_context;
      c.plugin = name;
      const LogScope scope(std::move(c));
      spdlog::log(level, "{}", text);
    } else {
      spdlog::log(level, "[{}] {}", name, text);
    }
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

Status set_log_format(const std::string& format) {
  if (format == "text") {
    spdlog::set_formatter(std::make_unique<spdlog::pattern_formatter>());
    g_json = false;
    return ok_status();
  }
  if (format == "json") {
    spdlog::set_formatter(std::make_unique<JsonFormatter>());
    g_json = true;
    return ok_status();
  }
  return invalid_argument("unknown log format '" + format + "' (use text or json)");
}

const zkp_host* plugin_host() {
  static constexpr zkp_host kHost = {sizeof(zkp_host), ZKP_ABI_MAJOR, ZKP_ABI_MINOR, &zkp_host_log};
  return &kHost;
}

}  // namespace zkpipe
