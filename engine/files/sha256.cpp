// engine/files/sha256.cpp: SHA-256 over OpenSSL's EVP interface (zkpipe/sdk/sha256.h).
#include "zkpipe/sdk/sha256.h"

#include <openssl/evp.h>

#include <stdexcept>

namespace zkpipe {

Sha256Digest sha256(std::span<const uint8_t> bytes) {
  Sha256Digest d{};
  unsigned int len = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), d.data(), &len, EVP_sha256(), nullptr) != 1 ||
      len != d.size()) {
    throw std::runtime_error("OpenSSL EVP_Digest(SHA-256) failed");
  }
  return d;
}

std::string to_hex(std::span<const uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const uint8_t b : bytes) {
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : ctx_(new Ctx{EVP_MD_CTX_new()}) {
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(ctx_->md);
    delete ctx_;
    throw std::runtime_error("OpenSSL EVP_DigestInit_ex(SHA-256) failed");
  }
}

Sha256::~Sha256() {
  EVP_MD_CTX_free(ctx_->md);
  delete ctx_;
}

void Sha256::update(const void* data, size_t bytes) {
  if (EVP_DigestUpdate(ctx_->md, data, bytes) != 1) {
    throw std::runtime_error("OpenSSL EVP_DigestUpdate(SHA-256) failed");
  }
}

Sha256Digest Sha256::finish() {
  Sha256Digest d{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, d.data(), &len) != 1 || len != d.size() ||
      EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("OpenSSL EVP_DigestFinal_ex(SHA-256) failed");
  }
  return d;
}

}  // namespace zkpipe
