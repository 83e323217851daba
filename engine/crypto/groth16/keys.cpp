// groth16/keys.cpp: key shape checks and the proof / verifying-key byte formats.
#include "zkpipe/groth16/keys.h"

#include <bit>
#include <string>

#include "zkpipe/crypto/serialize.h"

namespace zkpipe::groth16 {
namespace {

using crypto::kG1CompressedBytes;
using crypto::kG1UncompressedBytes;
using crypto::kG2CompressedBytes;
using crypto::kG2UncompressedBytes;

std::string range(size_t at, size_t len) {
  return "bytes " + std::to_string(at) + "-" + std::to_string(at + len - 1);
}

constexpr size_t kVkFixedBytes = 3 * kG1UncompressedBytes + 3 * kG2UncompressedBytes;

}  // namespace

uint64_t Density::count() const {
  uint64_t n = 0;
  for (uint64_t w : bits) n += std::popcount(w);
  return n;
}

Status ProvingKey::check_shape(const std::string& what) const {
  auto bad = [&](const std::string& s) { return invalid_argument(what + ": " + s); };
  const uint64_t wires = uint64_t{num_inputs} + num_aux;
  if (num_inputs == 0) return bad("no constant-one wire");
  if (vk.ic.size() != num_inputs) {
    return bad("ic has " + std::to_string(vk.ic.size()) + " points for " +
               std::to_string(num_inputs) + " public wires");
  }
  if (domain_size < 2 || !std::has_single_bit(domain_size) || domain_size > (uint64_t{1} << 32)) {
    return bad("domain size " + std::to_string(domain_size) + " is not a power of two in 2..2^32");
  }
  for (const Density* d : {&a_density, &b_density}) {
    const char* name = d == &a_density ? "a_density" : "b_density";
    if (d->wires != wires || d->bits.size() != (wires + 63) / 64) {
      return bad(std::string(name) + " covers " + std::to_string(d->wires) + " wires, not " +
                 std::to_string(wires));
    }
    if (wires % 64 != 0 && (d->bits.back() >> (wires % 64)) != 0) {
      return bad(std::string(name) + " has bits set past the last wire");
    }
  }
  auto count = [&](const char* name, size_t got, uint64_t want) -> Status {
    if (got == want) return ok_status();
    return bad(std::string(name) + " has " + std::to_string(got) + " points, expected " +
               std::to_string(want));
  };
  ZKP_RETURN_IF_ERROR(count("h_query", h_query.size(), domain_size - 1));
  ZKP_RETURN_IF_ERROR(count("l_query", l_query.size(), num_aux));
  ZKP_RETURN_IF_ERROR(count("a_query", a_query.size(), a_density.count()));
  ZKP_RETURN_IF_ERROR(count("b_g1_query", b_g1_query.size(), b_density.count()));
  ZKP_RETURN_IF_ERROR(count("b_g2_query", b_g2_query.size(), b_density.count()));
  return ok_status();
}

Status check_key_points(const VerifyingKey& vk, const std::string& what, bool proving) {
  auto bad = [&](const char* name) {
    return invalid_argument(what + ": " + name +
                            " is the point at infinity (a degenerate key: refused)");
  };
  if (vk.alpha_g1.infinity) return bad("alpha_g1");
  if (proving && vk.beta_g1.infinity) return bad("beta_g1");
  if (proving && vk.delta_g1.infinity) return bad("delta_g1");
  if (vk.beta_g2.infinity) return bad("beta_g2");
  if (vk.gamma_g2.infinity) return bad("gamma_g2");
  if (vk.delta_g2.infinity) return bad("delta_g2");
  return ok_status();
}

Status check_proof_points(const Proof& proof, const std::string& what) {
  if (proof.a.infinity) return invalid_argument(what + ": A is the point at infinity (refused)");
  if (proof.b.infinity) return invalid_argument(what + ": B is the point at infinity (refused)");
  return ok_status();
}

void encode_proof(const Proof& proof, uint8_t* out) {
  crypto::encode_g1_compressed(proof.a, out);
  crypto::encode_g2_compressed(proof.b, out + kG1CompressedBytes);
  crypto::encode_g1_compressed(proof.c, out + kG1CompressedBytes + kG2CompressedBytes);
}

Result<Proof> decode_proof(const uint8_t* in, size_t len) {
  if (len != kProofBytes) {
    return invalid_argument("proof: " + std::to_string(len) + " bytes, expected " +
                            std::to_string(kProofBytes) + " (A, B, C compressed)");
  }
  Proof p;
  auto a = crypto::decode_g1(in, kG1CompressedBytes);
  if (!a.ok()) return a.status().with_context("proof: A (" + range(0, kG1CompressedBytes) + ")");
  auto b = crypto::decode_g2(in + kG1CompressedBytes, kG2CompressedBytes);
  if (!b.ok()) {
    return b.status().with_context("proof: B (" + range(kG1CompressedBytes, kG2CompressedBytes) +
                                   ")");
  }
  const size_t c_at = kG1CompressedBytes + kG2CompressedBytes;
  auto c = crypto::decode_g1(in + c_at, kG1CompressedBytes);
  if (!c.ok()) return c.status().with_context("proof: C (" + range(c_at, kG1CompressedBytes) + ")");
  p.a = *a;
  p.b = *b;
  p.c = *c;
  ZKP_RETURN_IF_ERROR(check_proof_points(p, "proof"));
  return p;
}

std::vector<uint8_t> encode_verifying_key(const VerifyingKey& vk) {
  std::vector<uint8_t> out(kVkFixedBytes + 4 + vk.ic.size() * kG1UncompressedBytes);
  uint8_t* p = out.data();
  auto g1 = [&](const G1Affine& x) {
    crypto::encode_g1_uncompressed(x, p);
    p += kG1UncompressedBytes;
  };
  auto g2 = [&](const G2Affine& x) {
    crypto::encode_g2_uncompressed(x, p);
    p += kG2UncompressedBytes;
  };
  g1(vk.alpha_g1);
  g1(vk.beta_g1);
  g2(vk.beta_g2);
  g2(vk.gamma_g2);
  g1(vk.delta_g1);
  g2(vk.delta_g2);
  const uint32_t n = static_cast<uint32_t>(vk.ic.size());
  for (int i = 0; i < 4; ++i) *p++ = static_cast<uint8_t>(n >> (24 - 8 * i));
  for (const G1Affine& x : vk.ic) g1(x);
  return out;
}

Result<VerifyingKey> decode_verifying_key(const uint8_t* in, size_t len) {
  if (len < kVkFixedBytes + 4) {
    return invalid_argument("verifying key: " + std::to_string(len) +
                            " bytes, shorter than the fixed part (" +
                            std::to_string(kVkFixedBytes + 4) + ")");
  }
  VerifyingKey vk;
  size_t at = 0;
  Status error;
  auto g1 = [&](const char* name, G1Affine& x) {
    if (!error.ok()) return;
    auto r = crypto::decode_g1(in + at, kG1UncompressedBytes);
    if (!r.ok()) {
      error = r.status().with_context(std::string("verifying key: ") + name + " (" +
                                      range(at, kG1UncompressedBytes) + ")");
    } else {
      x = *r;
    }
    at += kG1UncompressedBytes;
  };
  auto g2 = [&](const char* name, G2Affine& x) {
    if (!error.ok()) return;
    auto r = crypto::decode_g2(in + at, kG2UncompressedBytes);
    if (!r.ok()) {
      error = r.status().with_context(std::string("verifying key: ") + name + " (" +
                                      range(at, kG2UncompressedBytes) + ")");
    } else {
      x = *r;
    }
    at += kG2UncompressedBytes;
  };
  g1("alpha_g1", vk.alpha_g1);
  g1("beta_g1", vk.beta_g1);
  g2("beta_g2", vk.beta_g2);
  g2("gamma_g2", vk.gamma_g2);
  g1("delta_g1", vk.delta_g1);
  g2("delta_g2", vk.delta_g2);
  ZKP_RETURN_IF_ERROR(error);
  uint32_t n = 0;
  for (int i = 0; i < 4; ++i) n = (n << 8) | in[at + i];
  at += 4;
  if ((len - at) / kG1UncompressedBytes != n || (len - at) % kG1UncompressedBytes != 0) {
    return invalid_argument("verifying key: IC count " + std::to_string(n) + " (bytes " +
                            std::to_string(at - 4) + "-" + std::to_string(at - 1) +
                            ") does not match the " + std::to_string(len - at) +
                            " bytes that follow");
  }
  if (n == 0) return invalid_argument("verifying key: IC is empty");
  vk.ic.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    g1(("ic[" + std::to_string(i) + "]").c_str(), vk.ic[i]);
  }
  ZKP_RETURN_IF_ERROR(error);
  ZKP_RETURN_IF_ERROR(check_key_points(vk, "verifying key"));
  return vk;
}

}  // namespace zkpipe::groth16
