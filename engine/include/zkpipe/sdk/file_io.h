// zkpipe/sdk/file_io.h: whole-file reads and writes for the programs (zkpipe-tool, zkpipe). A read
// takes only a regular file (a FIFO would block, a device may never end); a write is
// write_output_file (zkpipe/sdk/output_file.h): a unique temporary file renamed into place only
// when complete and only over a regular file or a missing path, so a failed run never leaves a
// truncated output under the real name. Every failure names the path.
// Thread-safety: reentrant (distinct paths).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "zkpipe/sdk/status.h"

namespace zkpipe {

// The whole of regular file `path`. NOT_FOUND when it cannot be opened (INVALID_ARGUMENT for a
// symlink loop), INVALID_ARGUMENT when it is not a regular file, INTERNAL when a read fails.
Result<std::string> read_file(const std::string& path);

// A complete write of `bytes` to `path` (write_output_file).
Status write_file(const std::string& path, std::string_view bytes);
Status write_file(const std::string& path, std::span<const uint8_t> bytes);

// The bytes of `s`, for the functions that take bytes.
inline std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace zkpipe
