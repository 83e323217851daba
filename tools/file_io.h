// tools/file_io.h: whole-file reads and writes for zkpipe-tool's subcommands. A write goes to
// PATH.tmp and is renamed into place only when complete, so a failed run never leaves a truncated
// output under the real name; every failure names the path.
// Thread-safety: reentrant (distinct paths).
#pragma once

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>

#include "zkpipe/status.h"

namespace zkpipe::tool {

inline Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot open");
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) return internal_error(path + ": read failed");
  return s.str();
}

inline Status write_file(const std::string& path, std::string_view bytes) {
  const std::string tmp = path + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::remove(tmp.c_str());
    return internal_error(path + ": cannot write");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return internal_error(path + ": cannot rename");
  return ok_status();
}

inline Status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  return write_file(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

inline std::span<const uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

}  // namespace zkpipe::tool
