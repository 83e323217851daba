// units_test.cpp: parse_size, parse_duration_ms and format_bytes (zkpipe/sdk/units.h): every
// accepted unit, exact fractions, and every class of rejected text with its message.
// Thread-safety: single-threaded Catch2 test cases.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <string>

#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/units.h"

namespace {

using zkpipe::Code;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = kKiB * 1024;
constexpr uint64_t kGiB = kMiB * 1024;
constexpr uint64_t kTiB = kGiB * 1024;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t size_of(const std::string& text) {
  auto r = zkpipe::parse_size(text);
  INFO(text << " -> " << r.status().to_string());
  REQUIRE(r.ok());
  return *r;
}

int64_t ms_of(const std::string& text) {
  auto r = zkpipe::parse_duration_ms(text);
  INFO(text << " -> " << r.status().to_string());
  REQUIRE(r.ok());
  return *r;
}

// The INVALID_ARGUMENT message for `text`.
std::string size_error(const std::string& text) {
  auto r = zkpipe::parse_size(text);
  INFO("'" << text << "' was accepted");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  return r.status().message();
}

std::string duration_error(const std::string& text) {
  auto r = zkpipe::parse_duration_ms(text);
  INFO("'" << text << "' was accepted");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  return r.status().message();
}

}  // namespace

TEST_CASE("parse_size: a bare integer is bytes", "[units]") {
  CHECK(size_of("0") == 0);
  CHECK(size_of("4096") == 4096);
  CHECK(size_of("007") == 7);
  CHECK(size_of("18446744073709551615") == kMax);
}

TEST_CASE("parse_size: B, KiB, MiB, GiB and TiB are powers of 1024", "[units]") {
  CHECK(size_of("512B") == 512);
  CHECK(size_of("1KiB") == kKiB);
  CHECK(size_of("64MiB") == 64 * kMiB);
  CHECK(size_of("3GiB") == 3 * kGiB);
  CHECK(size_of("2TiB") == 2 * kTiB);
  CHECK(size_of("16777215TiB") == 16777215 * kTiB);  // the largest whole TiB count in 64 bits
}

TEST_CASE("parse_size: KB, MB, GB and TB are powers of 1000", "[units]") {
  CHECK(size_of("1KB") == 1000);
  CHECK(size_of("5MB") == 5'000'000);
  CHECK(size_of("2GB") == 2'000'000'000);
  CHECK(size_of("7TB") == 7'000'000'000'000);
}

TEST_CASE("parse_size: one space may separate number and unit", "[units]") {
  CHECK(size_of("1.5 GiB") == 3 * kGiB / 2);
  CHECK(size_of("64 MiB") == 64 * kMiB);
  CHECK(size_of("10 KB") == 10'000);
}

TEST_CASE("parse_size: fractions are exact and rounded down", "[units]") {
  CHECK(size_of("1.5GiB") == 1610612736);
  CHECK(size_of("0.5KiB") == 512);
  CHECK(size_of("0.3MB") == 300'000);  // 0.3 is not exact in binary floating point
  CHECK(size_of("1.1KB") == 1100);
  CHECK(size_of("0.001KiB") == 1);                         // 1.024 bytes
  CHECK(size_of("1.0009765625KiB") == 1025);               // exactly 1 + 1/1024
  CHECK(size_of("1.00097656249999999999999KiB") == 1024);  // just below: rounds down
  CHECK(size_of("0.9999999999999999999999999999TiB") == kTiB - 1);
  CHECK(size_of("16777215.999999TiB") == 16777215 * kTiB + 1099510528264);
}

TEST_CASE("parse_size: rejects empty and negative sizes", "[units]") {
  CHECK(size_error("") == "empty size");
  CHECK(size_error("-1GiB") == "negative size '-1GiB'");
  CHECK(size_error("-0") == "negative size '-0'");
}

TEST_CASE("parse_size: an unknown unit lists the accepted units", "[units]") {
  CHECK(size_error("4MB2") ==
        "unknown unit 'MB2' in '4MB2' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
  for (const char* text :
       {"1mib", "1Mib", "1kb", "1K", "1M", "1G", "1PiB", "1EB", "1e9", "1GiB "}) {
    INFO(text);
    CHECK_THAT(size_error(text),
               Catch::StartsWith("unknown unit '") &&
                   Catch::EndsWith("(use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)"));
  }
  CHECK(size_error("1  GiB") ==
        "unknown unit ' GiB' in '1  GiB' (use B, KiB, MiB, GiB, TiB, KB, MB, GB or TB)");
}

TEST_CASE("parse_size: rejects sizes past 64 bits", "[units]") {
  CHECK(size_error("18446744073709551616") ==
        "size '18446744073709551616' does not fit in 64 bits");
  CHECK(size_error("16777216TiB") == "size '16777216TiB' does not fit in 64 bits");
  CHECK(size_error("16777216.0TiB") == "size '16777216.0TiB' does not fit in 64 bits");
  CHECK(size_of("16777215.9999999999999TiB") == kMax);  // the fraction rounds down to fit
  CHECK(size_error("99999999999999999999999999GiB") ==
        "size '99999999999999999999999999GiB' does not fit in 64 bits");
}

TEST_CASE("parse_size: rejects garbage and fractional bytes", "[units]") {
  for (const std::string text :
       {"abc", "GiB", "+1GiB", " 1GiB", ".5GiB", "1.GiB", "1..5GiB", "1 "}) {
    CHECK(size_error(text) == "invalid size '" + text +
                                  "': expected <number>[ ]<unit> with unit B, KiB, MiB, GiB, TiB, "
                                  "KB, MB, GB or TB");
  }
  // A number followed by something else reads as a number with an unknown unit.
  CHECK_THAT(size_error("1.5.2GiB"), Catch::StartsWith("unknown unit '.2GiB' in '1.5.2GiB'"));
  CHECK_THAT(size_error("1,5GiB"), Catch::StartsWith("unknown unit ',5GiB' in '1,5GiB'"));
  CHECK_THAT(size_error("0x10"), Catch::StartsWith("unknown unit 'x10' in '0x10'"));
  CHECK(size_error("1.5") == "fractional byte count '1.5': bytes must be a whole number");
  CHECK(size_error("2.5B") == "fractional byte count '2.5B': bytes must be a whole number");
}

TEST_CASE("parse_duration_ms: ms, s, m and h", "[units]") {
  CHECK(ms_of("0ms") == 0);
  CHECK(ms_of("500ms") == 500);
  CHECK(ms_of("30s") == 30'000);
  CHECK(ms_of("2m") == 120'000);
  CHECK(ms_of("1h") == 3'600'000);
  CHECK(ms_of("10 s") == 10'000);
}

TEST_CASE("parse_duration_ms: fractions are rounded down to whole milliseconds", "[units]") {
  CHECK(ms_of("1.5s") == 1500);
  CHECK(ms_of("0.25m") == 15'000);
  CHECK(ms_of("1.5h") == 5'400'000);
  CHECK(ms_of("0.9ms") == 0);
  CHECK(ms_of("0.0019s") == 1);
}

TEST_CASE("parse_duration_ms: 'infinite' is -1", "[units]") {
  CHECK(ms_of("infinite") == -1);
}

TEST_CASE("parse_duration_ms: rejects missing or unknown units and bad numbers", "[units]") {
  CHECK(duration_error("") == "empty duration");
  CHECK(duration_error("-1s") == "negative duration '-1s'");
  CHECK(duration_error("60") == "duration '60' has no unit (use ms, s, m, h or 'infinite')");
  CHECK(duration_error("5d") == "unknown unit 'd' in '5d' (use ms, s, m, h or 'infinite')");
  CHECK(duration_error("1S") == "unknown unit 'S' in '1S' (use ms, s, m, h or 'infinite')");
  CHECK(duration_error("Infinite") ==
        "invalid duration 'Infinite': expected <number>[ ]<unit> with unit ms, s, m, h or "
        "'infinite'");
  CHECK(duration_error("1.s") ==
        "invalid duration '1.s': expected <number>[ ]<unit> with unit ms, s, m, h or 'infinite'");
  CHECK(duration_error("9223372036854775808ms") ==
        "duration '9223372036854775808ms' is too long (at most 87600h, 10 years)");
  CHECK(duration_error("3000000000000h") ==
        "duration '3000000000000h' is too long (at most 87600h, 10 years)");
}

// Issue 34 #7: a duration that a clock reading plus it would overflow (3000000h, 2562047788015h)
// made deadlines in the past; ten years is the bound, and a saturating sum backs it where a
// client sends milliseconds.
TEST_CASE("parse_duration_ms: at most ten years", "[units]") {
  CHECK(ms_of("87600h") == 87'600ll * 3'600'000);
  CHECK(duration_error("87600.001h") ==
        "duration '87600.001h' is too long (at most 87600h, 10 years)");
  CHECK(duration_error("3000000h") == "duration '3000000h' is too long (at most 87600h, 10 years)");
  CHECK(duration_error("2562047788015h") ==
        "duration '2562047788015h' is too long (at most 87600h, 10 years)");
  CHECK(duration_error("9223372036854775807ms") ==
        "duration '9223372036854775807ms' is too long (at most 87600h, 10 years)");
}

TEST_CASE("saturating_after: a huge duration gives the clock's end, not the past", "[units]") {
  using std::chrono::milliseconds;
  const auto steady = std::chrono::steady_clock::now();
  const auto system = std::chrono::system_clock::now();
  const milliseconds huge(std::numeric_limits<int64_t>::max());
  CHECK(zkpipe::saturating_after(steady, huge) == std::chrono::steady_clock::time_point::max());
  CHECK(zkpipe::saturating_after(system, huge) == std::chrono::system_clock::time_point::max());
  CHECK(zkpipe::saturating_after(steady, milliseconds(1500)) == steady + milliseconds(1500));
  CHECK(zkpipe::saturating_after(steady, milliseconds(-5)) == steady);
  CHECK(zkpipe::saturating_after(system, milliseconds(0)) == system);
}

TEST_CASE("format_bytes: whole units without decimals, others with two, rounded down", "[units]") {
  CHECK(zkpipe::format_bytes(0) == "0 B");
  CHECK(zkpipe::format_bytes(512) == "512 B");
  CHECK(zkpipe::format_bytes(1023) == "1023 B");
  CHECK(zkpipe::format_bytes(kKiB) == "1 KiB");
  CHECK(zkpipe::format_bytes(1536) == "1.50 KiB");
  CHECK(zkpipe::format_bytes(64 * kMiB) == "64 MiB");
  CHECK(zkpipe::format_bytes(3 * kGiB / 2) == "1.50 GiB");
  CHECK(zkpipe::format_bytes(kGiB + 1) == "1.00 GiB");
  CHECK(zkpipe::format_bytes(2 * kGiB - 1) == "1.99 GiB");
  CHECK(zkpipe::format_bytes(kGiB * 105 / 100) == "1.04 GiB");  // 1.0499999998 GiB
  CHECK(zkpipe::format_bytes(3 * kTiB) == "3 TiB");
  CHECK(zkpipe::format_bytes(kMax) == "16777215.99 TiB");
}

TEST_CASE("format_bytes: the text parses back to the same size when it is exact", "[units]") {
  for (uint64_t bytes :
       {uint64_t{0}, uint64_t{700}, 3 * kKiB / 2, 64 * kMiB, 5 * kGiB / 4, 7 * kTiB}) {
    CHECK(size_of(zkpipe::format_bytes(bytes)) == bytes);
  }
}
