// tests/engine/output_file_test.cpp: output files (zkpipe/sdk/output_file.h) replace only regular
// files or missing paths, follow symlinks, refuse devices, directories and FIFOs without touching
// them, leave no temporary file behind, and two writers of one path each rename a whole file.
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "temp_dir.h"
#include "zkpipe/sdk/output_file.h"

namespace fs = std::filesystem;
using Catch::Matchers::Contains;
using zkpipe::check_output_dir;
using zkpipe::check_output_path;
using zkpipe::Code;
using zkpipe::write_output_file;
using zkpipe::testing::read_text;
using zkpipe::testing::TempDir;

namespace {

size_t entries(const fs::path& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir), {}));
}

void expect_refused(const zkpipe::Status& s, const std::string& part) {
  INFO(s.to_string());
  REQUIRE_FALSE(s.ok());
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains(part));
}

}  // namespace

TEST_CASE("OutputFile: a new path and a regular file are written whole, nothing left beside",
          "[engine]") {
  TempDir dir("zkpipe_output");
  const std::string path = dir.file("out.bin");
  REQUIRE(check_output_path(path, "--out").ok());
  CHECK(entries(dir.path) == 0);  // the probe is gone
  REQUIRE(write_output_file(path, "first", "--out").ok());
  REQUIRE(write_output_file(path, "second").ok());
  CHECK(read_text(path) == "second");
  CHECK(entries(dir.path) == 1);
}

TEST_CASE("OutputFile: devices, directories and FIFOs are refused and left as they are",
          "[engine]") {
  TempDir dir("zkpipe_output");
  const std::string full = dir.file("full");  // our own /dev/full (char 1:7), never the system's
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  expect_refused(check_output_path(full, "--out"),
                 "--out " + full + ": is a character device, not a regular file: refusing");
  expect_refused(write_output_file(full, "x", "--out"), "is a character device");
  struct stat st {};
  REQUIRE(::stat(full.c_str(), &st) == 0);
  CHECK(S_ISCHR(st.st_mode));

  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  expect_refused(write_output_file(fifo, "x", "--trace"), "--trace " + fifo + ": is a FIFO");
  fs::create_directory(dir.path / "sub");
  expect_refused(check_output_path(dir.file("sub"), "--status"), "is a directory");
  CHECK(fs::is_directory(dir.path / "sub"));
  // A symlink to a device is judged by its target.
  fs::create_symlink(full, dir.path / "to_full");
  expect_refused(check_output_path(dir.file("to_full")), "(-> " + full + ") is a character device");
  CHECK(entries(dir.path) == 4);  // nothing written beside them
}

TEST_CASE("OutputFile: symlinks are followed, loops and missing directories refused", "[engine]") {
  TempDir dir("zkpipe_output");
  const std::string target = dir.file("real.bin");
  REQUIRE(write_output_file(target, "old").ok());
  fs::create_symlink("real.bin", dir.path / "link.bin");  // relative, as ln -s makes it
  REQUIRE(write_output_file(dir.file("link.bin"), "new").ok());
  CHECK(fs::is_symlink(dir.path / "link.bin"));
  CHECK(read_text(target) == "new");
  // A dangling link: its target is created.
  fs::create_symlink(dir.file("made.bin"), dir.path / "dangling");
  REQUIRE(write_output_file(dir.file("dangling"), "made").ok());
  CHECK(fs::is_symlink(dir.path / "dangling"));
  CHECK(read_text(dir.file("made.bin")) == "made");

  fs::create_symlink("b", dir.path / "a");
  fs::create_symlink("a", dir.path / "b");
  expect_refused(check_output_path(dir.file("a"), "--out"), "symlink loop");
  expect_refused(check_output_path(dir.file("none/out.bin"), "--out"),
                 "cannot create a file in " + dir.file("none"));
}

TEST_CASE("OutputFile: check_output_dir creates directories and refuses files", "[engine]") {
  TempDir dir("zkpipe_output");
  REQUIRE(check_output_dir(dir.file("a/b/c"), "--snarkjs").ok());
  CHECK(fs::is_directory(dir.path / "a/b/c"));
  CHECK(entries(dir.path / "a/b/c") == 0);
  REQUIRE(write_output_file(dir.file("plain"), "x").ok());
  expect_refused(check_output_dir(dir.file("plain"), "--snarkjs"),
                 "--snarkjs " + dir.file("plain") + ": is a regular file, not a directory");
}

TEST_CASE("OutputFile: concurrent writers of one path each rename a complete file", "[engine]") {
  TempDir dir("zkpipe_output");
  const std::string path = dir.file("shared.bin");
  std::vector<std::string> texts;
  for (char c = 'a'; c < 'i'; ++c) texts.emplace_back(std::string(1 << 16, c));
  std::vector<std::thread> threads;
  std::vector<int> ok(texts.size(), 0);
  for (size_t i = 0; i < texts.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int k = 0; k < 20; ++k) ok[i] += write_output_file(path, texts[i]).ok();
    });
  }
  for (auto& t : threads) t.join();
  for (int n : ok) CHECK(n == 20);
  const std::string got = read_text(path);
  CHECK(std::find(texts.begin(), texts.end(), got) != texts.end());
  CHECK(entries(dir.path) == 1);
}
