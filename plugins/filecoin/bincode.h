// plugins/filecoin/bincode.h (private to zkpipe::filecoin_circuit): bincode 1.x as
// rust-fil-proofs' vanilla proofs use it (fixed-width little-endian integers, u64 lengths, u32
// enum variants, domains as 32 raw bytes): a reader whose every error names the field and the
// byte offset, and the MerkleProof layout (kind u32: 0 single, 1 sub, 2 top; for single: root,
// leaf, path; otherwise the base, sub (and top) paths, then root and leaf; a path: elements u64,
// per element hashes u64, hashes x 32, index u64). Thread-safety: a Reader is one caller's.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/filecoin_circuit/vanilla_post.h"

namespace zkpipe::filecoin_circuit::bincode {

constexpr uint64_t kMaxCount = 1 << 20;  // no Filecoin proof holds more of anything

class Reader {
 public:
  Reader(std::span<const uint8_t> b, const std::string& what) : b_(b), what_(what) {}

  Status fail(const std::string& field, const std::string& why) const {
    return invalid_argument(what_ + ": " + field + " at byte " + std::to_string(at_) + ": " + why);
  }
  Result<uint64_t> u64(const std::string& field) { return uint(field, 8); }
  Result<uint64_t> u32(const std::string& field) { return uint(field, 4); }
  Result<uint64_t> count(const std::string& field) {
    ZKP_ASSIGN_OR_RETURN(uint64_t n, u64(field));
    if (n > kMaxCount || n > (b_.size() - at_)) {
      return fail(field, "a count of " + std::to_string(n) + " is more than the bytes can hold");
    }
    return n;
  }
  Result<Domain> domain(const std::string& field) {
    if (b_.size() - at_ < 32) return fail(field, "truncated (32 bytes needed)");
    Domain d;
    std::copy_n(b_.begin() + at_, 32, d.begin());
    ZKP_RETURN_IF_ERROR(filecoin::fr_from_domain(d, field).status());
    at_ += 32;
    return d;
  }
  Status done() const {
    if (at_ != b_.size()) {
      return fail("end", std::to_string(b_.size() - at_) + " bytes after the proof");
    }
    return Status();
  }

 private:
  Result<uint64_t> uint(const std::string& field, size_t width) {
    if (b_.size() - at_ < width) {
      return fail(field, "truncated (" + std::to_string(width) + " bytes needed)");
    }
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= uint64_t{b_[at_ + i]} << (8 * i);
    at_ += width;
    return v;
  }

  std::span<const uint8_t> b_;
  const std::string& what_;
  size_t at_ = 0;
};

inline Status read_path(Reader& r, const std::string& field, std::vector<PathElement>& path,
                        std::vector<Domain>& hashes) {
  ZKP_ASSIGN_OR_RETURN(uint64_t n, r.count(field + ".len"));
  for (uint64_t i = 0; i < n; ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    ZKP_ASSIGN_OR_RETURN(uint64_t m, r.count(f + ".hashes.len"));
    PathElement e;
    for (uint64_t j = 0; j < m; ++j) {
      ZKP_ASSIGN_OR_RETURN(Domain h, r.domain(f + ".hashes[" + std::to_string(j) + "]"));
      hashes.push_back(h);
      e.siblings.push_back(*filecoin::fr_from_domain(h));
    }
    ZKP_ASSIGN_OR_RETURN(uint64_t index, r.u64(f + ".index"));
    if (index > m)
      return r.fail(f + ".index", std::to_string(index) + " is past the node's children");
    e.position = static_cast<uint32_t>(index);
    path.push_back(std::move(e));
  }
  return Status();
}

inline void put(std::vector<uint8_t>& out, uint64_t v, size_t width) {
  for (size_t i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
inline void put(std::vector<uint8_t>& out, const Domain& d) {
  out.insert(out.end(), d.begin(), d.end());
}

// A MerkleProof (InclusionProof) at the reader's position; `field` names it.
Result<InclusionProof> read_inclusion_proof(Reader& r, const std::string& f);
void put_inclusion_proof(std::vector<uint8_t>& out, const InclusionProof& ip);

}  // namespace zkpipe::filecoin_circuit::bincode
