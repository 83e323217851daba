// tests/temp_dir.h: a scratch directory for one test process, removed when it goes out of scope.
// The name carries the pid and a random number: CTest runs test cases as parallel processes, and
// two builds may test at once, writing files of the same names.
// Thread-safety: create and use from one thread.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <system_error>

namespace zkpipe::testing {

struct TempDir {
  std::filesystem::path path;

  explicit TempDir(const std::string& prefix) {
    std::random_device rd;
    path = std::filesystem::temp_directory_path() /
           (prefix + "_" + std::to_string(::getpid()) + "_" + std::to_string(rd()));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string file(const std::string& name) const { return (path / name).string(); }
};

}  // namespace zkpipe::testing
