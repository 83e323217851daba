// zkpipe/sdk/units.h: byte sizes and durations as users write them in configs and on command
// lines ("64MiB", "1.5 GiB", "4096", "30s", "500ms", "infinite"), and back to text.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "zkpipe/sdk/status.h"

namespace zkpipe {

// Bytes from "<number>[ ]<unit>": units B, KiB, MiB, GiB, TiB (powers of 1024) and KB, MB, GB,
// TB (powers of 1000); a bare integer is bytes. Fractions allowed ("1.5GiB"), rounded down.
// Errors (INVALID_ARGUMENT) name the text: empty, negative, unknown unit, overflow.
Result<uint64_t> parse_size(std::string_view text);

// Milliseconds from "<number><unit>": ms, s, m, h; "infinite" gives -1. At most 87600h (10
// years): longer is INVALID_ARGUMENT, so a deadline made from it cannot overflow a clock.
Result<int64_t> parse_duration_ms(std::string_view text);

// "1.50 GiB", "64 MiB", "512 B".
std::string format_bytes(uint64_t bytes);

}  // namespace zkpipe
