// hashes.cpp: Filecoin's byte-level hashing (zkpipe/filecoin/hashes.h).
#include "zkpipe/filecoin/hashes.h"

#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>

#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
namespace {

constexpr size_t kChunkBits = 254;

bool bit_of(std::span<const uint8_t> bytes, size_t i) {
  return (bytes[i / 8] >> (i % 8)) & 1;
}

void set_bit(std::span<uint8_t> bytes, size_t i) {
  bytes[i / 8] |= static_cast<uint8_t>(1u << (i % 8));
}

}  // namespace

Result<Fr> fr_from_domain(const Domain& d, const std::string& what) {
  Domain be;
  std::reverse_copy(d.begin(), d.end(), be.begin());
  Result<Fr> x = Fr::from_bytes_be(be.data());
  if (!x.ok()) {
    return invalid_argument(what + ": 0x" + to_hex(be) +
                            " is not a BLS12-381 scalar (not below the group order r)");
  }
  return x;
}

Domain domain_from_fr(const Fr& x) {
  Domain be, le;
  x.to_bytes_be(be.data());
  std::reverse_copy(be.begin(), be.end(), le.begin());
  return le;
}

Domain sha256_trunc254(std::span<const uint8_t> bytes) {
  Domain d = sha256(bytes);
  d[31] &= 0x3f;
  return d;
}

Domain sha256_trunc254_pair(const Domain& left, const Domain& right) {
  std::array<uint8_t, 64> both;
  std::copy(left.begin(), left.end(), both.begin());
  std::copy(right.begin(), right.end(), both.begin() + 32);
  return sha256_trunc254(both);
}

std::vector<uint8_t> fr32_pad(std::span<const uint8_t> data) {
  const size_t bits = data.size() * 8;
  const size_t chunks = (bits + kChunkBits - 1) / kChunkBits;
  std::vector<uint8_t> out(chunks * 32, 0);
  // Byte-wise where the chunk boundary allows would be faster; this is the definition.
  for (size_t i = 0; i < bits; ++i) {
    if (bit_of(data, i)) set_bit(out, (i / kChunkBits) * 256 + i % kChunkBits);
  }
  return out;
}

Result<std::vector<uint8_t>> fr32_unpad(std::span<const uint8_t> padded, size_t bytes_out) {
  const size_t bits = bytes_out * 8;
  const size_t chunks = (bits + kChunkBits - 1) / kChunkBits;
  if (padded.size() < chunks * 32) {
    return invalid_argument("fr32: " + std::to_string(padded.size()) +
                            " padded bytes hold fewer than " + std::to_string(bytes_out) +
                            " data bytes (" + std::to_string(chunks * 32) + " needed)");
  }
  for (size_t c = 0; c < chunks; ++c) {
    if (padded[c * 32 + 31] & 0xc0) {
      return invalid_argument("fr32: the chunk at offset " + std::to_string(c * 32) +
                              " has its top two bits set (not fr32-padded data)");
    }
  }
  std::vector<uint8_t> out(bytes_out, 0);
  for (size_t i = 0; i < bits; ++i) {
    if (bit_of(padded, (i / kChunkBits) * 256 + i % kChunkBits)) set_bit(out, i);
  }
  return out;
}

uint64_t padded_piece_size(uint64_t unpadded) {
  return unpadded % 127 == 0 ? unpadded / 127 * 128 : 0;
}

uint64_t unpadded_piece_size(uint64_t padded) {
  return padded % 128 == 0 ? padded / 128 * 127 : 0;
}

struct Blake2b512::Ctx {
  EVP_MD_CTX* md = nullptr;
};

Blake2b512::Blake2b512() : ctx_(new Ctx{EVP_MD_CTX_new()}) {
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, EVP_blake2b512(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_->md);
    delete ctx_;
    throw std::runtime_error("OpenSSL EVP_DigestInit_ex(BLAKE2b-512) failed");
  }
}

Blake2b512::~Blake2b512() {
  EVP_MD_CTX_free(ctx_->md);
  delete ctx_;
}

void Blake2b512::update(const void* data, size_t bytes) {
  if (EVP_DigestUpdate(ctx_->md, data, bytes) != 1)
    throw std::runtime_error("OpenSSL EVP_DigestUpdate(BLAKE2b-512) failed");
}

Blake2b512Digest Blake2b512::finish() {
  Blake2b512Digest d{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, d.data(), &len) != 1 || len != d.size() ||
      EVP_DigestInit_ex(ctx_->md, EVP_blake2b512(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_DigestFinal_ex(BLAKE2b-512) failed");
  }
  return d;
}

Blake2b512Digest blake2b512(std::span<const uint8_t> bytes) {
  Blake2b512 h;
  h.update(bytes.data(), bytes.size());
  return h.finish();
}

}  // namespace zkpipe::filecoin
