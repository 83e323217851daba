// tools/file_io.h: whole-file reads and writes for zkpipe-tool's subcommands. A write is
// zkpipe::write_output_file (zkpipe/output_file.h): a unique temporary file renamed into place only
// when complete and only over a regular file or a missing path (devices, directories and FIFOs are
// refused, symlinks followed), so a failed run never leaves a truncated output under the real name
// and never replaces what is not a file; every failure names the path.
// Thread-safety: reentrant (distinct paths).
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstdint>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "zkpipe/output_file.h"
#include "zkpipe/status.h"

namespace zkpipe::tool {

// Only a regular file is read: a FIFO would block and a device may never end.
inline Result<std::string> read_file(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    const std::string m = path + ": cannot open: " + errno_message(err);
    return err == ELOOP ? invalid_argument(m) : not_found(m);
  }
  if (!S_ISREG(st.st_mode)) return invalid_argument(path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return internal_error(path + ": read failed");
  return s.str();
}

inline Status write_file(const std::string& path, std::string_view bytes) {
  return write_output_file(path, bytes);
}

inline Status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  return write_file(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

inline std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace zkpipe::tool
