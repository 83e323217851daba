// engine/crypto/groth16/sectioned_file.cpp: the sectioned container (layout in
// zkpipe/groth16/sectioned_file.h): the mmap reader with its structural and checksum checks
// (SHA-256: zkpipe/sdk/sha256.h); the writer is in sectioned_file_writer.cpp.
// Thread-safety: see the header.
#include "zkpipe/groth16/sectioned_file.h"
#include "le_bytes.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace zkpipe::groth16 {
namespace {

using namespace detail;  // le_bytes.h

std::string errno_text() {
  return std::strerror(errno);
}

// A read-only private mapping of a whole file.
struct Mapping {
  void* addr = nullptr;
  size_t size = 0;
  ~Mapping() {
    if (addr != nullptr) munmap(addr, size);
  }
};

}  // namespace

std::string SectionedFormat::section_name(uint32_t type) const {
  for (const auto& [t, name] : section_names) {
    if (t == type) return name;
  }
  return cat("section type ", type);
}

// ---- reader -----------------------------------------------------------------------------------

Result<SectionedFileReader> SectionedFileReader::open(const std::string& path,
                                                      const SectionedFormat& format) {
  // O_NONBLOCK: a FIFO in the file's place must not block the open (refused just below).
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (errno == ELOOP) return invalid_argument(cat(path, ": cannot open: ", errno_message(ELOOP)));
    return not_found(cat(path, ": cannot open ", format.what, ": ", errno_text()));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    const std::string e = errno_text();
    ::close(fd);
    return not_found(cat(path, ": cannot stat: ", e));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return invalid_argument(cat(path, ": not a regular file (", format.what, " expected)"));
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size < kFileHeaderBytes + kSha256Bytes) {
    ::close(fd);
    return invalid_argument(cat(path, ": file header at byte offset 0: truncated ", format.what,
                                " (", size, " bytes; the header alone takes ",
                                kFileHeaderBytes + kSha256Bytes, ")"));
  }
  auto mapping = std::make_shared<Mapping>();
  void* addr = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  const int map_errno = addr == MAP_FAILED ? errno : 0;
  const std::string map_error = addr == MAP_FAILED ? errno_text() : "";
  ::close(fd);
  if (addr == MAP_FAILED) {
    // Out of address space or memory (ulimit -v, overcommit) is not a missing file.
    const std::string m = cat(path, ": cannot mmap ", size, " bytes: ", map_error);
    return map_errno == ENOMEM ? resource_exhausted(m) : internal_error(m);
  }
  mapping->addr = addr;
  mapping->size = size;

  SectionedFileReader r;
  r.path_ = path;
  r.format_ = std::make_shared<const SectionedFormat>(format);
  r.mapping_ = mapping;
  r.bytes_ = std::span<const uint8_t>(static_cast<const uint8_t*>(addr), size);
  const uint8_t* b = r.bytes_.data();

  if (format.magic.size() != 8 || std::memcmp(b, format.magic.data(), 8) != 0) {
    std::string seen;
    for (int i = 0; i < 8; ++i) seen += (b[i] >= 0x20 && b[i] < 0x7f) ? char(b[i]) : '.';
    std::string want;
    for (char c : format.magic) want += (c >= 0x20 && c < 0x7f) ? c : '.';
    return invalid_argument(cat(path, ": file header at byte offset 0: wrong magic '", seen,
                                "' (a ", format.what, " starts with '", want, "')"));
  }
  r.version_ = load_u32(b + 8);
  if (r.version_ != format.version) {
    return invalid_argument(
        cat(path, ": file header at byte offset 8: ", format.what, " format version ", r.version_,
            " is not supported (this build reads version ", format.version, ")"));
  }
  const uint64_t count = load_u32(b + 12);
  const uint64_t table_end = kFileHeaderBytes + kSectionEntryBytes * count;
  if (table_end + kSha256Bytes > size) {
    return invalid_argument(cat(path, ": file header at byte offset 12: section count ", count,
                                " puts the section table and header checksum (bytes 16-",
                                table_end + kSha256Bytes, ") past the end of the file (", size,
                                " bytes): truncated or corrupt"));
  }
  const Sha256Digest header_sum = sha256(r.bytes_.first(table_end));
  if (std::memcmp(header_sum.data(), b + table_end, kSha256Bytes) != 0) {
    Sha256Digest stored{};
    std::memcpy(stored.data(), b + table_end, kSha256Bytes);
    return invalid_argument(cat(path, ": header checksum at byte offset ", table_end,
                                " does not match the file header and section table (bytes 0-",
                                table_end, "): stored ", to_hex(stored), ", computed ",
                                to_hex(header_sum),
                                ": the section table or header checksum is corrupt"));
  }
  const uint64_t payload_start = table_end + kSha256Bytes;
  for (uint64_t i = 0; i < count; ++i) {
    const uint8_t* e = b + kFileHeaderBytes + kSectionEntryBytes * i;
    const uint64_t entry_offset = kFileHeaderBytes + kSectionEntryBytes * i;
    SectionEntry s;
    s.type = load_u32(e);
    const uint32_t reserved = load_u32(e + 4);
    s.offset = load_u64(e + 8);
    s.length = load_u64(e + 16);
    std::memcpy(s.sha256.data(), e + 24, kSha256Bytes);
    const std::string where = cat(path, ": section table entry ", i, " (section '",
                                  format.section_name(s.type), "') at byte offset ", entry_offset);
    if (reserved != 0) return invalid_argument(where + ": reserved field is not zero");
    if (s.offset % kSectionAlignment != 0 || s.offset < payload_start || s.offset > size ||
        s.length > size - s.offset) {
      return invalid_argument(
          cat(where, ": payload at bytes ", s.offset, "-", s.offset + s.length,
              " is not a 64-byte-aligned range inside the file (payloads start at ", payload_start,
              ", the file has ", size, " bytes)"));
    }
    for (const auto& o : r.sections_) {
      if (o.type == s.type) return invalid_argument(where + ": the type appears twice");
    }
    r.sections_.push_back(s);
  }
  std::vector<SectionEntry> sorted = r.sections_;
  std::sort(sorted.begin(), sorted.end(),
            [](const SectionEntry& x, const SectionEntry& y) { return x.offset < y.offset; });
  for (size_t i = 1; i < sorted.size(); ++i) {
    if (sorted[i].offset < sorted[i - 1].offset + sorted[i - 1].length) {
      return invalid_argument(cat(path, ": section '", format.section_name(sorted[i].type),
                                  "' at byte offset ", sorted[i].offset, " overlaps section '",
                                  format.section_name(sorted[i - 1].type), "' (bytes ",
                                  sorted[i - 1].offset, "-",
                                  sorted[i - 1].offset + sorted[i - 1].length, ")"));
    }
  }
  return r;
}

const SectionEntry* SectionedFileReader::find(uint32_t type) const {
  for (const auto& s : sections_) {
    if (s.type == type) return &s;
  }
  return nullptr;
}

std::span<const uint8_t> SectionedFileReader::section(uint32_t type) const {
  const SectionEntry* s = find(type);
  if (s == nullptr) return {};
  return bytes_.subspan(s->offset, s->length);
}

Result<std::span<const uint8_t>> SectionedFileReader::require(uint32_t type) const {
  if (!has(type)) {
    return invalid_argument(cat(path_, ": section '", format_->section_name(type),
                                "' is missing from the section table at byte offset ",
                                table_offset()));
  }
  return section(type);
}

Status SectionedFileReader::error(uint32_t type, uint64_t file_offset,
                                  const std::string& what) const {
  return invalid_argument(cat(path_, ": section '", format_->section_name(type),
                              "' at byte offset ", file_offset, ": ", what));
}

Status SectionedFileReader::verify_checksum(uint32_t type) const {
  const SectionEntry* s = find(type);
  if (s == nullptr) return require(type).status();
  const Sha256Digest d = sha256(bytes_.subspan(s->offset, s->length));
  if (d != s->sha256) {
    return error(
        type, s->offset,
        cat("SHA-256 of the payload (bytes ", s->offset, "-", s->offset + s->length, ") is ",
            to_hex(d), ", the section table says ", to_hex(s->sha256), ": the section is corrupt"));
  }
  return ok_status();
}

Status SectionedFileReader::verify_checksums() const {
  std::vector<SectionEntry> sorted = sections_;
  std::sort(sorted.begin(), sorted.end(),
            [](const SectionEntry& x, const SectionEntry& y) { return x.offset < y.offset; });
  uint64_t pos = checksum_offset() + kSha256Bytes;
  auto check_zero = [&](uint64_t from, uint64_t to) -> Status {
    for (uint64_t i = from; i < to; ++i) {
      if (bytes_[i] != 0) {
        return invalid_argument(cat(path_, ": padding at byte offset ", i, " is not zero"));
      }
    }
    return ok_status();
  };
  for (const auto& s : sorted) {
    ZKP_RETURN_IF_ERROR(check_zero(pos, s.offset));
    ZKP_RETURN_IF_ERROR(verify_checksum(s.type));
    pos = s.offset + s.length;
  }
  return check_zero(pos, bytes_.size());
}

}  // namespace zkpipe::groth16
