// params_files.cpp: the `.validated` stamp and the per-circuit lock of a params file
// (params_files.h; the stamp's contents in zkpipe/pipeline/params_cache.h, params_stamp).
#include "params_files.h"

#include <fcntl.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <fmt/core.h>

#include "zkpipe/groth16/params_file.h"
#include "zkpipe/pipeline/params_cache.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::pipeline {

std::string params_stamp(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return "";
  auto info = groth16::params_info(path);
  if (!info.ok() || info->checksum_offset + 32 > info->file_bytes) return "";
  std::array<uint8_t, 32> sum{};
  {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(info->checksum_offset));
    in.read(reinterpret_cast<char*>(sum.data()), sum.size());
    if (!in) return "";
  }
  std::string hex;
  for (uint8_t b : sum) hex += fmt::format("{:02x}", b);
  return fmt::format(
      "zkpipe params stamp 2\ndev {} ino {} size {}\nmtime {}.{:09} ctime {}.{:09}\ntable {}\n",
      static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino),
      static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec),
      static_cast<int64_t>(st.st_mtim.tv_nsec), static_cast<int64_t>(st.st_ctim.tv_sec),
      static_cast<int64_t>(st.st_ctim.tv_nsec), hex);
}

bool stamp_matches(const std::string& path) {
  std::ifstream in(path + ".validated");
  if (!in) return false;
  std::string recorded((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string now = params_stamp(path);
  return !now.empty() && recorded == now;
}

void write_stamp(const std::string& path) {
  const std::string stamp = params_stamp(path);
  if (stamp.empty()) return;
  if (Status s = write_output_file(path + ".validated", stamp); !s.ok()) {
    spdlog::warn("params: no stamp written ({}); the next open checks {} fully again", s.message(),
                 path);
  }
}

void drop_stamp(const std::string& path) {
  std::error_code ec;
  std::filesystem::remove(path + ".validated", ec);
}

size_t remove_stale_temporaries(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string base = p.filename().string();
  size_t removed = 0;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(p.parent_path(), ec)) {
    const std::string name = entry.path().filename().string();
    for (const char* kind : {".tmp.", ".csr.tmp.", ".validated.tmp."}) {
      const std::string prefix = base + kind;  // then <pid>.<random> (zkpipe/sdk/output_file.h)
      if (name.rfind(prefix, 0) != 0) continue;
      const long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)) {
        std::error_code rm;
        if (fs::remove(entry.path(), rm)) {
          spdlog::info("params: removed {} (left by a writer that is gone)", entry.path().string());
          ++removed;
        }
      }
      break;
    }
  }
  return removed;
}

Result<ParamsLock> ParamsLock::acquire(const std::string& path) {
  const std::string lock = path + ".lock";
  const int fd = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    return unavailable(
        fmt::format("params: cannot open the lock {}: {}", lock, std::strerror(errno)));
  }
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd);
    return unavailable(fmt::format("params: cannot lock {}: {}", lock, std::strerror(err)));
  }
  return ParamsLock(fd);
}

ParamsLock::~ParamsLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

}  // namespace zkpipe::pipeline
