// zkpipe/pipeline/priority.h: job priorities, ordered CRITICAL first, and their names as they
// appear in requests, configs, logs and metrics.
// Thread-safety: pure values and functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkpipe::pipeline {

enum class Priority : uint8_t { kCritical = 0, kHigh = 1, kNormal = 2, kLow = 3 };

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
  for (Priority p : {Priority::kCritical, Priority::kHigh, Priority::kNormal, Priority::kLow}) {
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

// A ZKP_PRIORITY_* value of the ABI (abi/proof_type.h: CRITICAL 1 .. LOW 4) as a Priority;
// nullopt for ZKP_PRIORITY_NONE (0) and values past LOW.
inline constexpr std::optional<Priority> priority_from_abi(uint32_t value) {
  if (value < 1 || value > 4) return std::nullopt;
  return static_cast<Priority>(value - 1);
}

}  // namespace zkpipe::pipeline
