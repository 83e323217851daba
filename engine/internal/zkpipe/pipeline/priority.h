// zkpipe/pipeline/priority.h: job priorities, ordered CRITICAL first, numbered once for every
// layer (the ABI's ZKP_PRIORITY_*, v1::Priority, the job stores' priority column: 1 critical ..
// 4 low; 0 is "none said"), and their names as they appear in requests, configs, logs, metrics.
// Thread-safety: pure values and functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkpipe::pipeline {

enum class Priority : uint8_t { kCritical = 1, kHigh = 2, kNormal = 3, kLow = 4 };

inline constexpr Priority kPriorities[] = {Priority::kCritical, Priority::kHigh, Priority::kNormal,
                                           Priority::kLow};

inline constexpr std::string_view priority_name(Priority p) {
  switch (p) {
    case Priority::kCritical:
      return "critical";
    case Priority::kHigh:
      return "high";
    case Priority::kNormal:
      return "normal";
    case Priority::kLow:
      return "low";
  }
  return "normal";
}

// "critical", "high", "normal", "low" (also upper case); nullopt otherwise.
inline std::optional<Priority> parse_priority(std::string_view text) {
  for (const Priority p : kPriorities) {
    const std::string_view name = priority_name(p);
    if (text.size() != name.size()) continue;
    bool same = true;
    for (size_t i = 0; i < text.size(); ++i) {
      const char c = text[i] >= 'A' && text[i] <= 'Z' ? static_cast<char>(text[i] + 32) : text[i];
      same = same && c == name[i];
    }
    if (same) return p;
  }
  return std::nullopt;
}

// A priority number from outside (a ZKP_PRIORITY_* value of a plugin, an RPC value, a stored
// number) as a Priority; nullopt for 0 (none said) and values past LOW.
inline constexpr std::optional<Priority> priority_from_int(int64_t value) {
  if (value < 1 || value > 4) return std::nullopt;
  return static_cast<Priority>(value);
}

}  // namespace zkpipe::pipeline
