// tests/engine/file_io_test.cpp: whole-file reads and writes (zkpipe/sdk/file_io.h): a write is
// whole and read back byte for byte; reads refuse what is not a regular file and name the path.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <string>

#include "temp_dir.h"
#include "zkpipe/sdk/file_io.h"

using Catch::Matchers::Contains;
using zkpipe::Code;
using zkpipe::testing::TempDir;

TEST_CASE("File I/O: a written file reads back whole; odd paths are refused by name", "[engine]") {
  const TempDir dir("zkpipe_file_io_test");
  const std::string bytes("a\0b\xff", 4);
  REQUIRE(zkpipe::write_file(dir.file("f"), bytes).ok());
  auto back = zkpipe::read_file(dir.file("f"));
  REQUIRE(back.ok());
  CHECK(*back == bytes);
  REQUIRE(zkpipe::write_file(dir.file("g"), zkpipe::as_bytes(bytes)).ok());
  CHECK(*zkpipe::read_file(dir.file("g")) == bytes);

  auto missing = zkpipe::read_file(dir.file("nope"));
  CHECK(missing.status().code() == Code::kNotFound);
  CHECK_THAT(missing.status().message(), Contains(dir.file("nope") + ": cannot open"));
  auto directory = zkpipe::read_file(dir.path.string());
  CHECK(directory.status().code() == Code::kInvalidArgument);
  CHECK_THAT(directory.status().message(), Contains("not a regular file"));
  REQUIRE(::mkfifo(dir.file("fifo").c_str(), 0600) == 0);
  CHECK(zkpipe::read_file(dir.file("fifo")).status().code() == Code::kInvalidArgument);
}
