// zkpipe/sdk/byte_io.h: the little-endian byte writer and the bounds-checked reader under
// the vanilla-proof formats. Field elements are 32-byte canonical little-endian; the reader
// refuses non-canonical ones. Every reader error names the input (`what`), the byte offset where
// the field being read starts, and the field. Installed with the SDK as zkpipe/sdk/byte_io.h.
// Thread-safety: one thread per Writer/Reader.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::plugins {

class Writer {
 public:
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void bytes(std::span<const uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); }
  void fr(const crypto::Fr& x) { bytes(gadgets::fr_to_le_bytes(x)); }
  void frs(const std::vector<crypto::Fr>& xs) {
    for (const crypto::Fr& x : xs) fr(x);
  }
  std::vector<uint8_t> out;

 private:
  void le(uint64_t v, int n) {
    for (int b = 0; b < n; ++b) out.push_back(static_cast<uint8_t>(v >> (8 * b)));
  }
};

// Bounds-checked reads; every error names the file, the byte offset and what was being read.
class Reader {
 public:
  Reader(std::span<const uint8_t> b, const std::string& what) : b_(b), what_(what) {}

  Status error(const std::string& m) const {
    return invalid_argument(what_ + ": byte offset " + std::to_string(start_) + ": " + m);
  }
  // Marks where the next field starts: errors about it name this offset.
  Status need(size_t n, const std::string& field) {
    start_ = pos_;
    if (b_.size() - pos_ < n) {
      return error("the file ends inside " + field + " (" + std::to_string(b_.size()) +
                   " bytes in all): truncated");
    }
    return ok_status();
  }
  Result<uint64_t> le(int n, const std::string& field) {
    ZKP_RETURN_IF_ERROR(need(n, field));
    uint64_t v = 0;
    for (int b = n - 1; b >= 0; --b) v = (v << 8) | b_[pos_ + b];
    pos_ += n;
    return v;
  }
  Result<uint32_t> u32(const std::string& field) {
    ZKP_ASSIGN_OR_RETURN(uint64_t v, le(4, field));
    return static_cast<uint32_t>(v);
  }
  Result<uint64_t> u64(const std::string& field) { return le(8, field); }
  Result<crypto::Fr> fr(const std::string& field) {
    ZKP_RETURN_IF_ERROR(need(32, field));
    auto r = gadgets::fr_from_le_bytes(std::span<const uint8_t, 32>(b_.data() + pos_, 32));
    if (!r.ok()) return error(field + ": not a canonical field element (>= r)");
    pos_ += 32;
    return r.value();
  }
  Status frs(std::vector<crypto::Fr>& out, size_t n, const std::string& field) {
    ZKP_RETURN_IF_ERROR(need(32 * n, field));
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ZKP_ASSIGN_OR_RETURN(out[i], fr(field + " element " + std::to_string(i)));
    }
    return ok_status();
  }
  Status bytes32(std::array<uint8_t, 32>& out, const std::string& field) {
    ZKP_RETURN_IF_ERROR(need(32, field));
    std::memcpy(out.data(), b_.data() + pos_, 32);
    pos_ += 32;
    return ok_status();
  }
  size_t pos() const { return pos_; }
  size_t size() const { return b_.size(); }

 private:
  std::span<const uint8_t> b_;
  const std::string& what_;
  size_t pos_ = 0;
  size_t start_ = 0;
};

// The common head of every vanilla-proof file: "ZKPVANIL", u32 version (1), u32 proof type.
inline constexpr char kVanillaMagic[] = "ZKPVANIL";
inline constexpr uint32_t kVanillaVersion = 1;

inline void write_vanilla_header(Writer& w, uint32_t type) {
  w.bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(kVanillaMagic), 8));
  w.u32(kVanillaVersion);
  w.u32(type);
}

// Reads and checks the head; `type_name` names the expected type in the message.
inline Status read_vanilla_header(Reader& r, std::span<const uint8_t> bytes, uint32_t type,
                                  const std::string& type_name) {
  ZKP_RETURN_IF_ERROR(r.need(8, "the magic"));
  if (std::memcmp(bytes.data(), kVanillaMagic, 8) != 0) {
    return r.error("not a zkpipe vanilla proof file (the magic is not \"ZKPVANIL\")");
  }
  ZKP_RETURN_IF_ERROR(r.le(8, "the magic").status());
  ZKP_ASSIGN_OR_RETURN(uint32_t version, r.u32("the version"));
  if (version != kVanillaVersion) {
    return r.error("version " + std::to_string(version) + " is not supported (this build reads " +
                   std::to_string(kVanillaVersion) + ")");
  }
  ZKP_ASSIGN_OR_RETURN(uint32_t got, r.u32("the proof type"));
  if (got != type) {
    return r.error("proof type " + std::to_string(got) + " is not " + type_name + " (" +
                   std::to_string(type) + ")");
  }
  return ok_status();
}

}  // namespace zkpipe::plugins
