// groth16/iden3_container.h (internal): the iden3 binary container shared by .r1cs, .wtns and
// .zkey (4-byte magic, u32 version, u32 section count, sections of u32 type + u64 length): a
// whole-file reader, a bounds-checked little-endian Cursor whose errors name the file, the part
// being read and the absolute byte offset, and the section table reader.
// Thread-safety: pure functions; a Cursor is a value used by one thread.
#pragma once

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16::iden3 {

inline constexpr uint32_t kFrBytes = 32;  // bytes per Fr element (n8 of the scalar field)

inline Result<std::vector<uint8_t>> read_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return not_found(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> out;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return internal_error(path + ": read failed");
  return out;
}

// A bounds-checked cursor over [begin, end) of the file; `where` names the part being read
// ("header", "section 2 (constraints)").
class Cursor {
 public:
  Cursor(const std::string& path, const std::vector<uint8_t>& data, size_t begin, size_t end,
         std::string where)
      : path_(&path), data_(&data), pos_(begin), end_(end), where_(std::move(where)) {}

  size_t pos() const { return pos_; }
  size_t left() const { return end_ - pos_; }
  const std::string& where() const { return where_; }
  Status error(const std::string& msg, size_t at) const {
    return invalid_argument(*path_ + ": " + where_ + " at byte " + std::to_string(at) + ": " + msg);
  }
  Status error(const std::string& msg) const { return error(msg, pos_); }
  Status need(uint64_t n) const {
    if (n > left()) {
      return error("truncated (need " + std::to_string(n) + " bytes, " + std::to_string(left()) +
                   " left)");
    }
    return ok_status();
  }
  template <typename T>  // little-endian
  Status get(T& out) {
    ZKP_RETURN_IF_ERROR(need(sizeof(T)));
    out = 0;
    for (size_t i = 0; i < sizeof(T); ++i) out |= T{(*data_)[pos_ + i]} << (8 * i);
    pos_ += sizeof(T);
    return ok_status();
  }
  Status u32(uint32_t& out) { return get(out); }
  Status u64(uint64_t& out) { return get(out); }
  // N * 8 bytes little-endian.
  template <size_t N>
  Status limbs(crypto::Limbs<N>& out) {
    ZKP_RETURN_IF_ERROR(need(N * 8));
    for (auto& limb : out) ZKP_RETURN_IF_ERROR(get(limb));
    return ok_status();
  }
  // A canonical little-endian integer below r (`what` names it in the message).
  Status fr(crypto::Fr& out, const std::string& what) {
    const size_t at = pos_;
    crypto::Limbs<4> v;
    ZKP_RETURN_IF_ERROR(limbs(v));
    if (!crypto::limbs_less(v, crypto::Fr::kModulus)) return error(what + " is not < r", at);
    out = crypto::Fr::from_canonical(v);
    return ok_status();
  }
  Status skip(uint64_t n) {
    ZKP_RETURN_IF_ERROR(need(n));
    pos_ += n;
    return ok_status();
  }
  Status expect_end() const {
    if (left() != 0) return error(std::to_string(left()) + " bytes left over at the end");
    return ok_status();
  }

 private:
  const std::string* path_;
  const std::vector<uint8_t>* data_;
  size_t pos_, end_;
  std::string where_;
};

struct SectionSpan {
  size_t begin = 0, size = 0;
};
using Sections = std::map<uint32_t, SectionSpan>;
// Names of the known section types of one format, for messages.
using SectionNames = std::map<uint32_t, std::string>;

// "section 2 (constraints)".
inline std::string section_where(const SectionNames& names, uint32_t type) {
  auto it = names.find(type);
  return "section " + std::to_string(type) + (it == names.end() ? "" : " (" + it->second + ")");
}

// Checks magic and version and returns the sections by type (any order, each at most once).
inline Result<Sections> read_container(const std::string& path, const std::vector<uint8_t>& data,
                                       const char (&magic)[5], uint32_t version,
                                       const SectionNames& names) {
  Cursor c(path, data, 0, data.size(), "file header");
  ZKP_RETURN_IF_ERROR(c.need(4));
  if (std::memcmp(data.data(), magic, 4) != 0) {
    return c.error(std::string("bad magic (expected \"") + magic + "\")");
  }
  Cursor h(path, data, 4, data.size(), "file header");
  uint32_t file_version = 0, count = 0;
  ZKP_RETURN_IF_ERROR(h.u32(file_version));
  if (file_version != version) {
    return c.error("version " + std::to_string(file_version) + " is not supported (expected " +
                       std::to_string(version) + ")",
                   4);
  }
  ZKP_RETURN_IF_ERROR(h.u32(count));
  Sections sections;
  for (uint32_t i = 0; i < count; ++i) {
    Cursor s(path, data, h.pos(), data.size(), "section table entry " + std::to_string(i));
    uint32_t type = 0;
    uint64_t size = 0;
    ZKP_RETURN_IF_ERROR(s.u32(type));
    ZKP_RETURN_IF_ERROR(s.u64(size));
    const size_t begin = s.pos();
    const Cursor body(path, data, begin, data.size(), section_where(names, type));
    ZKP_RETURN_IF_ERROR(body.need(size));
    if (!sections.emplace(type, SectionSpan{begin, static_cast<size_t>(size)}).second) {
      return s.error("section type " + std::to_string(type) + " appears twice", h.pos());
    }
    h = Cursor(path, data, begin + size, data.size(), "file header");
  }
  if (h.left() != 0) {
    return h.error(std::to_string(h.left()) + " bytes after the last of " + std::to_string(count) +
                   " sections");
  }
  return sections;
}

// A cursor over the whole of section `type`; INVALID_ARGUMENT when it is missing.
inline Result<Cursor> section(const std::string& path, const std::vector<uint8_t>& data,
                              const Sections& sections, uint32_t type, const SectionNames& names) {
  const std::string where = section_where(names, type);
  auto it = sections.find(type);
  if (it == sections.end()) return invalid_argument(path + ": " + where + " is missing");
  return Cursor(path, data, it->second.begin, it->second.begin + it->second.size, where);
}

}  // namespace zkpipe::groth16::iden3
