// engine/files/file_io.cpp: whole-file reads and writes (zkpipe/sdk/file_io.h).
#include "zkpipe/sdk/file_io.h"

#include <sys/stat.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "zkpipe/sdk/output_file.h"

namespace zkpipe {

Result<std::string> read_file(const std::string& path) {
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

Status write_file(const std::string& path, std::string_view bytes) {
  return write_output_file(path, bytes);
}

Status write_file(const std::string& path, std::span<const uint8_t> bytes) {
  return write_file(path,
                    std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace zkpipe
