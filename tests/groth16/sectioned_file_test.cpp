// tests/groth16/sectioned_file_test.cpp: the sectioned container under the params file and the
// R1CS cache: round trip with aligned payloads, the writer's atomic rename, and every structural
// error (magic, version, truncation, table bounds, overlap, duplicate type, checksums) named with
// the file, the section and a byte offset.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "zkpipe/groth16/sectioned_file.h"

using namespace zkpipe;
using namespace zkpipe::groth16;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;
using zkpipe::testing::read_bytes;
using zkpipe::testing::TempDir;
using zkpipe::testing::write_bytes;

namespace {

const SectionedFormat& test_format() {
  static const SectionedFormat f{
      "test file", std::string("ZKPTEST\0", 8), 3, {{1, "alpha"}, {2, "beta"}, {7, "empty"}}};
  return f;
}

void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
// Recomputes the header checksum after an edit of the table.
void reseal(std::vector<uint8_t>& b, uint32_t sections) {
  const size_t end = kFileHeaderBytes + kSectionEntryBytes * sections;
  const Sha256Digest d = sha256(std::span<const uint8_t>(b.data(), end));
  std::copy(d.begin(), d.end(), b.begin() + static_cast<std::ptrdiff_t>(end));
}

std::vector<uint8_t> pattern(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + 7 * i);
  return v;
}

// alpha: 100 bytes, beta: 1000 bytes written in pieces, empty: 0 bytes.
std::string write_sample(const TempDir& dir, const std::string& name = "sample.bin") {
  const std::string path = dir.file(name);
  auto w = SectionedFileWriter::create(path, test_format(), 3);
  REQUIRE(w.ok());
  REQUIRE(w->write_section(1, pattern(100, 1)).ok());
  REQUIRE(w->begin_section(2).ok());
  const auto beta = pattern(1000, 2);
  for (size_t i = 0; i < beta.size(); i += 300) {
    REQUIRE(w->append(beta.data() + i, std::min<size_t>(300, beta.size() - i)).ok());
  }
  REQUIRE(w->end_section().ok());
  REQUIRE(w->write_section(7, {}).ok());
  REQUIRE(w->finish().ok());
  return path;
}

}  // namespace

TEST_CASE("SectionedFile: round trip with 64-byte aligned payloads and checksums", "[groth16]") {
  TempDir dir("zkpipe_sectioned_test");
  const std::string path = write_sample(dir);
  CHECK_FALSE(fs::exists(path + ".tmp"));
  auto r = SectionedFileReader::open(path, test_format());
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  CHECK(r->version() == 3);
  REQUIRE(r->sections().size() == 3);
  CHECK(std::ranges::equal(r->section(1), pattern(100, 1)));
  CHECK(std::ranges::equal(r->section(2), pattern(1000, 2)));
  CHECK(r->section(7).empty());
  CHECK(r->has(7));
  CHECK_FALSE(r->has(4));
  for (const auto& s : r->sections()) {
    CHECK(s.offset % kSectionAlignment == 0);
    CHECK(reinterpret_cast<uintptr_t>(r->bytes().data() + s.offset) % kSectionAlignment == 0);
  }
  CHECK(r->sections()[1].sha256 == sha256(pattern(1000, 2)));
  CHECK(r->verify_checksums().ok());
  CHECK(r->file_size() == r->sections()[2].offset);  // ends with the (empty) last payload
  // The mapping outlives the reader through storage().
  std::shared_ptr<const void> keep = r->storage();
  const uint8_t* p = r->section(2).data();
  r = Result<SectionedFileReader>(not_found("gone"));
  CHECK(p[5] == pattern(1000, 2)[5]);
  auto missing = SectionedFileReader::open(path, test_format())->require(4);
  CHECK_THAT(missing.status().message(), Contains("section type 4") && Contains("missing"));
}

static size_t dir_entries(const TempDir& dir) {
  return static_cast<size_t>(std::distance(fs::directory_iterator(dir.path), {}));
}

TEST_CASE("SectionedFile: the writer only renames a complete file into place", "[groth16]") {
  TempDir dir("zkpipe_sectioned_test");
  const std::string path = dir.file("partial.bin");
  {
    auto w = SectionedFileWriter::create(path, test_format(), 2);
    REQUIRE(w.ok());
    REQUIRE(w->write_section(1, pattern(10, 1)).ok());
    CHECK(dir_entries(dir) == 1);  // the temporary file, under a unique name
    CHECK_FALSE(fs::exists(path));
    CHECK_FALSE(w->finish().ok());                          // one section short
    CHECK_FALSE(w->write_section(1, pattern(10, 1)).ok());  // twice
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(dir_entries(dir) == 0);
  // A failed rewrite leaves the old file intact.
  write_sample(dir, "partial.bin");
  {
    auto w = SectionedFileWriter::create(path, test_format(), 3);
    REQUIRE(w.ok());
  }
  CHECK(SectionedFileReader::open(path, test_format()).ok());
}

TEST_CASE("SectionedFile: structural errors name the file, the part and a byte offset",
          "[groth16]") {
  TempDir dir("zkpipe_sectioned_test");
  const std::string good = write_sample(dir);
  const std::vector<uint8_t> bytes = read_bytes(good);
  auto r0 = SectionedFileReader::open(good, test_format());
  REQUIRE(r0.ok());
  const SectionEntry beta = *r0->find(2);
  const std::string bad = dir.file("bad.bin");
  auto expect_error = [&](const std::vector<uint8_t>& b, const std::string& what) {
    write_bytes(bad, b);
    auto r = SectionedFileReader::open(bad, test_format());
    Status s = r.ok() ? r->verify_checksums() : r.status();
    INFO(what << ": " << s.to_string());
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Contains(bad) && Contains(what) && Contains("byte offset"));
  };
  SECTION("wrong magic") {
    auto b = bytes;
    b[0] = 'X';
    expect_error(b, "wrong magic");
  }
  SECTION("unsupported version") {
    auto b = bytes;
    b[8] = 9;
    expect_error(b, "format version 9 is not supported");
  }
  SECTION("truncated: header, table, payload") {
    expect_error({bytes.begin(), bytes.begin() + 20}, "truncated");
    expect_error({bytes.begin(), bytes.begin() + 100}, "past the end of the file");
    expect_error({bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(beta.offset + 10)},
                 "section 'beta'");
  }
  SECTION("a flipped table byte or header checksum byte") {
    auto b = bytes;
    b[kFileHeaderBytes + 3] ^= 1;
    expect_error(b, "section table");
    b = bytes;
    b[kFileHeaderBytes + 3 * kSectionEntryBytes + 1] ^= 0x80;
    expect_error(b, "header checksum");
  }
  SECTION("a flipped payload byte") {
    auto b = bytes;
    b[beta.offset + 500] ^= 4;
    expect_error(b, "section 'beta' at byte offset " + std::to_string(beta.offset));
  }
  SECTION("non-zero padding between sections") {
    auto b = bytes;
    b[beta.offset - 1] = 1;
    expect_error(b, "padding at byte offset " + std::to_string(beta.offset - 1));
  }
  SECTION("misaligned, overlapping, out-of-file and duplicate sections") {
    auto b = bytes;
    const size_t beta_entry = kFileHeaderBytes + kSectionEntryBytes;  // table entry 1
    put_u64(b, beta_entry + 8, beta.offset + 8);
    reseal(b, 3);
    expect_error(b, "64-byte-aligned");
    b = bytes;
    put_u64(b, beta_entry + 8, r0->find(1)->offset);
    reseal(b, 3);
    expect_error(b, "overlaps");
    b = bytes;
    put_u64(b, beta_entry + 16, uint64_t{1} << 62);
    reseal(b, 3);
    expect_error(b, "inside the file");
    b = bytes;
    b[beta_entry] = 1;  // beta's type becomes alpha's
    reseal(b, 3);
    expect_error(b, "appears twice");
  }
}

TEST_CASE("SectionedFile: a missing file is NOT_FOUND", "[groth16]") {
  auto r = SectionedFileReader::open("/nonexistent/zkpipe.bin", test_format());
  CHECK(r.status().code() == Code::kNotFound);
  CHECK_THAT(r.status().message(), Contains("/nonexistent/zkpipe.bin"));
}
