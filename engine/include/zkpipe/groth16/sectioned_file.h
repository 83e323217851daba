// zkpipe/groth16/sectioned_file.h: the one sectioned binary container under zkpipe's file formats
// (params file, R1CS cache): a writer that streams sections into a unique temporary file beside
// `path` and renames it into place, and a reader that maps the file read-only and hands out
// bounds-checked views. Errors name the file, the section (by the name its format registers) and a
// byte offset. Thread-safety: a Reader is immutable after open() (share it freely; copies share the
// mapping); a Writer is used by one thread.
//
// Layout (all integers little-endian):
//   0    magic             8 bytes, chosen by the format ("ZKPPARAM", "ZKPR1CS\0")
//   8    version           u32
//   12   section count     u32 (n)
//   16   section table     n entries of 56 bytes:
//          u32 type, u32 reserved (0), u64 offset, u64 length, 32-byte SHA-256 of the payload
//   16 + 56n               32-byte SHA-256 of bytes [0, 16 + 56n) (the header checksum)
//   then the payloads, each at a 64-byte-aligned offset (so mapped arrays are aligned), in the
//   order written, separated by zero padding; the file ends where the last payload ends.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "zkpipe/sdk/sha256.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

inline constexpr size_t kSectionAlignment = 64;
inline constexpr size_t kFileHeaderBytes = 16;    // magic, version, section count
inline constexpr size_t kSectionEntryBytes = 56;  // one section table entry
// SHA-256 and its hex: the one helper (zkpipe/sdk/sha256.h).
using zkpipe::kSha256Bytes;
using zkpipe::sha256;
using zkpipe::Sha256Digest;
using zkpipe::to_hex;

// What a format is: its magic, its version and the human names of its section types.
struct SectionedFormat {
  std::string what;   // "params file", "R1CS cache": used in messages
  std::string magic;  // exactly 8 bytes
  uint32_t version = 1;
  std::vector<std::pair<uint32_t, std::string>> section_names;

  // The registered name, or "section type <n>".
  std::string section_name(uint32_t type) const;
};

struct SectionEntry {
  uint32_t type = 0;
  uint64_t offset = 0;  // from the start of the file
  uint64_t length = 0;
  Sha256Digest sha256{};
};

class SectionedFileReader {
 public:
  // Maps `path` and checks the structure: magic, version, table inside the file, header
  // checksum, every section 64-byte aligned, inside the file, not overlapping another, no type
  // twice. NOT_FOUND when the file cannot be opened; INVALID_ARGUMENT for every malformation.
  static Result<SectionedFileReader> open(const std::string& path, const SectionedFormat& format);

  const std::string& path() const { return path_; }
  const SectionedFormat& format() const { return *format_; }
  uint32_t version() const { return version_; }
  uint64_t file_size() const { return bytes_.size(); }
  std::span<const uint8_t> bytes() const { return bytes_; }
  const std::vector<SectionEntry>& sections() const { return sections_; }
  uint64_t table_offset() const { return kFileHeaderBytes; }
  uint64_t checksum_offset() const {
    return kFileHeaderBytes + kSectionEntryBytes * sections_.size();
  }

  const SectionEntry* find(uint32_t type) const;
  bool has(uint32_t type) const { return find(type) != nullptr; }
  // The payload of `type`; empty when the section is absent (use require() to insist).
  std::span<const uint8_t> section(uint32_t type) const;
  // The payload, or INVALID_ARGUMENT naming the missing section.
  Result<std::span<const uint8_t>> require(uint32_t type) const;

  // The SHA-256 of one section / of every section (in file order; the first mismatch is
  // reported), and that the padding between sections is zero.
  Status verify_checksum(uint32_t type) const;
  Status verify_checksums() const;

  // INVALID_ARGUMENT "<path>: section '<name>' at byte offset <file_offset>: <what>".
  Status error(uint32_t type, uint64_t file_offset, const std::string& what) const;

  // Keeps the mapping alive (for spans handed out beyond the reader's lifetime).
  std::shared_ptr<const void> storage() const { return mapping_; }

 private:
  std::string path_;
  std::shared_ptr<const SectionedFormat> format_;
  std::shared_ptr<const void> mapping_;
  std::span<const uint8_t> bytes_;
  uint32_t version_ = 0;
  std::vector<SectionEntry> sections_;  // table order
};

class SectionedFileWriter {
 public:
  SectionedFileWriter(SectionedFileWriter&&) noexcept;
  SectionedFileWriter& operator=(SectionedFileWriter&&) noexcept;
  ~SectionedFileWriter();  // removes the temporary file unless finish() succeeded

  // Creates the temporary file (zkpipe/sdk/output_file.h: refused unless `path` is a regular file
  // or missing) for a file of exactly `section_count` sections.
  static Result<SectionedFileWriter> create(const std::string& path, const SectionedFormat& format,
                                            uint32_t section_count);

  // Sections are written one after the other: begin, any number of appends, end.
  Status begin_section(uint32_t type);
  Status append(const void* data, size_t len);
  Status end_section();
  // A whole section at once.
  Status write_section(uint32_t type, std::span<const uint8_t> payload);

  // Writes the table and header checksum, flushes to disk and renames the temporary file to `path`.
  Status finish();

 private:
  struct State;
  explicit SectionedFileWriter(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace zkpipe::groth16
