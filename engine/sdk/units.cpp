// units.cpp: parse_size, parse_duration_ms and format_bytes of zkpipe/sdk/units.h.
// Numbers are parsed exactly from their decimal digits (no floating point), so "1.5GiB" is
// exactly 1610612736 and fractions are rounded down without binary rounding surprises.
// Thread-safety: pure functions, no shared state.
#include "zkpipe/sdk/units.h"

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace zkpipe {
namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr uint64_t kGiB = kMiB * 1024;
constexpr uint64_t kTiB = kGiB * 1024;

struct Unit {
  std::string_view name;
  uint64_t multiplier;
};

constexpr std::array<Unit, 9> kSizeUnits = {{{"B", 1},
                                             {"KiB", kKiB},
                                             {"MiB", kMiB},
                                             {"GiB", kGiB},
                                             {"TiB", kTiB},
                                             {"KB", 1000},
                                             {"MB", 1000 * 1000},
                                             {"GB", 1000 * 1000 * 1000},
                                             {"TB", 1000ull * 1000 * 1000 * 1000}}};
constexpr std::string_view kSizeUnitList = "B, KiB, MiB, GiB, TiB, KB, MB, GB or TB";

constexpr std::array<Unit, 4> kDurationUnits = {
    {{"ms", 1}, {"s", 1000}, {"m", 60 * 1000}, {"h", 60 * 60 * 1000}}};
constexpr std::string_view kDurationUnitList = "ms, s, m, h or 'infinite'";

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string quoted(std::string_view text) {
  return "'" + echo_value(text) + "'";
}

// "<digits>[.<digits>]" then an optional single space, then the unit text (possibly empty).
struct Number {
  std::string_view whole;     // at least one digit
  std::string_view fraction;  // digits after '.', empty when there is no '.'
  std::string_view unit;
};

// Splits `text` or returns an error saying what kind of value `what` was expected.
Result<Number> split_number(std::string_view text, std::string_view what,
                            std::string_view unit_list) {
  if (text.empty()) return invalid_argument("empty " + std::string(what));
  if (text.front() == '-') {
    return invalid_argument("negative " + std::string(what) + " " + quoted(text));
  }
  const std::string expected =
      " " + quoted(text) + ": expected <number>[ ]<unit> with unit " + std::string(unit_list);
  size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  if (i == 0) return invalid_argument("invalid " + std::string(what) + expected);
  Number n;
  n.whole = text.substr(0, i);
  if (i < text.size() && text[i] == '.') {
    const size_t start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i == start) return invalid_argument("invalid " + std::string(what) + expected);
    n.fraction = text.substr(start, i - start);
  }
  if (i < text.size() && text[i] == ' ') {
    ++i;
    if (i == text.size()) return invalid_argument("invalid " + std::string(what) + expected);
  }
  n.unit = text.substr(i);
  return n;
}

// floor((whole + 0.fraction) * multiplier), or nullopt when it exceeds `limit`.
// The fractional part is multiplied digit by digit from the right (schoolbook long
// multiplication), so it is exact for any number of digits; every carry stays < multiplier.
std::optional<uint64_t> scale(const Number& n, uint64_t multiplier, uint64_t limit) {
  uint64_t whole = 0;
  for (char c : n.whole) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (whole > (limit - digit) / 10) return std::nullopt;
    whole = whole * 10 + digit;
  }
  uint64_t carry = 0;
  for (auto it = n.fraction.rbegin(); it != n.fraction.rend(); ++it) {
    carry = (static_cast<uint64_t>(*it - '0') * multiplier + carry) / 10;
  }
  if (whole > (limit - carry) / multiplier) return std::nullopt;
  return whole * multiplier + carry;
}

}  // namespace

Result<uint64_t> parse_size(std::string_view text) {
  ZKP_ASSIGN_OR_RETURN(Number n, split_number(text, "size", kSizeUnitList));
  uint64_t multiplier = 0;
  if (n.unit.empty()) {
    multiplier = 1;
  } else {
    for (const Unit& unit : kSizeUnits) {
      if (unit.name == n.unit) multiplier = unit.multiplier;
    }
    if (multiplier == 0) {
      return invalid_argument("unknown unit " + quoted(n.unit) + " in " + quoted(text) + " (use " +
                              std::string(kSizeUnitList) + ")");
    }
  }
  if (multiplier == 1 && !n.fraction.empty()) {
    return invalid_argument("fractional byte count " + quoted(text) +
                            ": bytes must be a whole number");
  }
  const auto bytes = scale(n, multiplier, std::numeric_limits<uint64_t>::max());
  if (!bytes) return invalid_argument("size " + quoted(text) + " does not fit in 64 bits");
  return *bytes;
}

Result<int64_t> parse_duration_ms(std::string_view text) {
  if (text == "infinite") return int64_t{-1};
  ZKP_ASSIGN_OR_RETURN(Number n, split_number(text, "duration", kDurationUnitList));
  if (n.unit.empty()) {
    return invalid_argument("duration " + quoted(text) + " has no unit (use " +
                            std::string(kDurationUnitList) + ")");
  }
  uint64_t multiplier = 0;
  for (const Unit& unit : kDurationUnits) {
    if (unit.name == n.unit) multiplier = unit.multiplier;
  }
  if (multiplier == 0) {
    return invalid_argument("unknown unit " + quoted(n.unit) + " in " + quoted(text) + " (use " +
                            std::string(kDurationUnitList) + ")");
  }
  // At most ten years: every deadline made from a duration (a clock reading plus it) stays far
  // inside the clocks' range.
  constexpr uint64_t kMaxMs = 87'600ull * 3'600'000;
  const auto ms = scale(n, multiplier, std::numeric_limits<int64_t>::max());
  if (!ms || *ms > kMaxMs) {
    return invalid_argument("duration " + quoted(text) + " is too long (at most 87600h, 10 years)");
  }
  return static_cast<int64_t>(*ms);
}

std::string format_bytes(uint64_t bytes) {
  // Largest unit first; stops at TiB so that the text parses back with parse_size.
  constexpr std::array<Unit, 4> kUnits = {
      {{"TiB", kTiB}, {"GiB", kGiB}, {"MiB", kMiB}, {"KiB", kKiB}}};
  for (const Unit& unit : kUnits) {
    if (bytes < unit.multiplier) continue;
    const uint64_t whole = bytes / unit.multiplier;
    const uint64_t rest = bytes % unit.multiplier;
    if (rest == 0) return std::to_string(whole) + " " + std::string(unit.name);
    // Hundredths, rounded down so that a value just under 2 GiB never prints as "2.00 GiB".
    const uint64_t hundredths =
        static_cast<uint64_t>(static_cast<unsigned __int128>(rest) * 100 / unit.multiplier);
    const std::string frac = (hundredths < 10 ? "0" : "") + std::to_string(hundredths);
    return std::to_string(whole) + "." + frac + " " + std::string(unit.name);
  }
  return std::to_string(bytes) + " B";
}

}  // namespace zkpipe
