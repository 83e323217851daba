// proof_format.cpp: Filecoin proof bytes and verifying-key layouts
// (zkpipe/filecoin/proof_format.h).
#include "zkpipe/filecoin/proof_format.h"

#include <string>

#include "zkpipe/crypto/serialize.h"

namespace zkpipe::filecoin {
namespace {

using crypto::kG1CompressedBytes;
using crypto::kG1UncompressedBytes;
using crypto::kG2CompressedBytes;
using crypto::kG2UncompressedBytes;
using groth16::kProofBytes;

constexpr size_t kCompressedFixed = 3 * kG1CompressedBytes + 3 * kG2CompressedBytes;  // 432
constexpr size_t kUncompressedFixed = 3 * kG1UncompressedBytes + 3 * kG2UncompressedBytes;

std::string bytes_at(size_t at, size_t len) {
  return "bytes " + std::to_string(at) + "-" + std::to_string(at + len - 1);
}

}  // namespace

Result<std::vector<groth16::Proof>> decode_proofs(std::span<const uint8_t> bytes,
                                                  size_t partitions) {
  if (bytes.empty() || bytes.size() % kProofBytes != 0 ||
      (partitions != 0 && bytes.size() != partitions * kProofBytes)) {
    const std::string want = partitions != 0
                                 ? std::to_string(partitions * kProofBytes) + " (" +
                                       std::to_string(partitions) + " partitions of 192)"
                                 : "a non-zero multiple of 192";
    return invalid_argument("Filecoin proof: " + std::to_string(bytes.size()) +
                            " bytes; expected " + want);
  }
  std::vector<groth16::Proof> out;
  for (size_t i = 0; i < bytes.size() / kProofBytes; ++i) {
    Result<groth16::Proof> p = groth16::decode_proof(bytes.data() + i * kProofBytes, kProofBytes);
    if (!p.ok()) {
      return p.status().with_context("Filecoin proof: partition " + std::to_string(i) + " (" +
                                     bytes_at(i * kProofBytes, kProofBytes) + ")");
    }
    out.push_back(*p);
  }
  return out;
}

std::vector<uint8_t> encode_proofs(std::span<const groth16::Proof> proofs) {
  std::vector<uint8_t> out(proofs.size() * kProofBytes);
  for (size_t i = 0; i < proofs.size(); ++i)
    groth16::encode_proof(proofs[i], out.data() + i * kProofBytes);
  return out;
}

Result<groth16::VerifyingKey> decode_compressed_verifying_key(std::span<const uint8_t> bytes) {
  if (bytes.size() < kCompressedFixed + 4) {
    return invalid_argument("verifying key (compressed): " + std::to_string(bytes.size()) +
                            " bytes, shorter than the fixed part (" +
                            std::to_string(kCompressedFixed + 4) + ")");
  }
  const uint8_t* in = bytes.data();
  const uint32_t n = (uint32_t{in[kCompressedFixed]} << 24) |
                     (uint32_t{in[kCompressedFixed + 1]} << 16) |
                     (uint32_t{in[kCompressedFixed + 2]} << 8) | in[kCompressedFixed + 3];
  const uint64_t want = kCompressedFixed + 4 + uint64_t(n) * kG1CompressedBytes;
  if (bytes.size() != want) {
    return invalid_argument(
        "verifying key (compressed): the IC count " + std::to_string(n) + " (bytes " +
        std::to_string(kCompressedFixed) + "-" + std::to_string(kCompressedFixed + 3) + ") needs " +
        std::to_string(want) + " bytes; there are " + std::to_string(bytes.size()));
  }
  groth16::VerifyingKey vk;
  size_t at = 0;
  Status error;
  auto g1 = [&](const std::string& name, groth16::G1Affine& x) {
    if (!error.ok()) return;
    Result<groth16::G1Affine> r = crypto::decode_g1(in + at, kG1CompressedBytes);
    if (!r.ok())
      error = r.status().with_context("verifying key (compressed): " + name + " (" +
                                      bytes_at(at, kG1CompressedBytes) + ")");
    else
      x = *r;
    at += kG1CompressedBytes;
  };
  auto g2 = [&](const std::string& name, groth16::G2Affine& x) {
    if (!error.ok()) return;
    Result<groth16::G2Affine> r = crypto::decode_g2(in + at, kG2CompressedBytes);
    if (!r.ok())
      error = r.status().with_context("verifying key (compressed): " + name + " (" +
                                      bytes_at(at, kG2CompressedBytes) + ")");
    else
      x = *r;
    at += kG2CompressedBytes;
  };
  g1("alpha_g1", vk.alpha_g1);
  g1("beta_g1", vk.beta_g1);
  g2("beta_g2", vk.beta_g2);
  g2("gamma_g2", vk.gamma_g2);
  g1("delta_g1", vk.delta_g1);
  g2("delta_g2", vk.delta_g2);
  at += 4;
  vk.ic.resize(n);
  for (uint32_t i = 0; i < n; ++i) g1("ic[" + std::to_string(i) + "]", vk.ic[i]);
  ZKP_RETURN_IF_ERROR(error);
  return vk;
}

std::vector<uint8_t> encode_compressed_verifying_key(const groth16::VerifyingKey& vk) {
  std::vector<uint8_t> out(kCompressedFixed + 4 + vk.ic.size() * kG1CompressedBytes);
  uint8_t* p = out.data();
  auto g1 = [&](const groth16::G1Affine& x) {
    crypto::encode_g1_compressed(x, p);
    p += kG1CompressedBytes;
  };
  auto g2 = [&](const groth16::G2Affine& x) {
    crypto::encode_g2_compressed(x, p);
    p += kG2CompressedBytes;
  };
  g1(vk.alpha_g1);
  g1(vk.beta_g1);
  g2(vk.beta_g2);
  g2(vk.gamma_g2);
  g1(vk.delta_g1);
  g2(vk.delta_g2);
  const auto n = static_cast<uint32_t>(vk.ic.size());
  for (int i = 0; i < 4; ++i) *p++ = static_cast<uint8_t>(n >> (24 - 8 * i));
  for (const groth16::G1Affine& x : vk.ic) g1(x);
  return out;
}

Result<groth16::VerifyingKey> decode_any_verifying_key(std::span<const uint8_t> bytes) {
  const bool compressed_flag = !bytes.empty() && (bytes[0] & crypto::kFlagCompressed);
  if (compressed_flag) return decode_compressed_verifying_key(bytes);
  if (bytes.size() < kUncompressedFixed + 4) {
    return invalid_argument("verifying key: " + std::to_string(bytes.size()) +
                            " bytes, shorter than a bellperson .vk (" +
                            std::to_string(kUncompressedFixed + 4) +
                            ") and its first point is not compressed");
  }
  return groth16::decode_verifying_key(bytes.data(), bytes.size());
}

}  // namespace zkpipe::filecoin
