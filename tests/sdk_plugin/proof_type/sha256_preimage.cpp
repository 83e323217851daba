// sha256_preimage: an example out-of-tree proof type built against the installed SDK only. Each
// partition proves knowledge of a message of L bytes (L = 32 or 64) whose SHA-256 digest is
// public: the digest's bytes 0..15 and 16..31, each read as a big-endian integer, are the two
// public inputs. The circuit is the SDK's SHA-256 gadget over allocated message bits, the digest
// bits packed and equated to the inputs. A request (binary, little-endian):
//   offset 0   "SHA256PI"              magic
//          8   u32 version             1
//         12   u32 message_bytes       32 or 64
//         16   u32 partitions          1..16
//         20   partitions x (message[message_bytes], digest[32])
// Parse refuses anything else, naming the byte offset, and a digest that is not the message's.
// Thread-safety: a parsed job is immutable; every function is reentrant.
#include <array>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/sha256.h"
#include "zkpipe/sdk/proof_type_plugin.h"

namespace {

using namespace zkpipe;
using gadgets::Boolean;
using gadgets::Num;

constexpr const char* kName = "sha256_preimage";
constexpr char kMagic[8] = {'S', 'H', 'A', '2', '5', '6', 'P', 'I'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = 20;
constexpr uint32_t kMaxPartitions = 16;

constexpr zkp_preset kPresets[] = {
    {"32B", "a 32-byte preimage per partition (one SHA-256 block), 2 partitions", 2, 0},
    {"64B", "a 64-byte preimage per partition (two SHA-256 blocks), 2 partitions", 2, 0},
};

using Digest = std::array<uint8_t, 32>;

struct Preimage {
  std::vector<uint8_t> message;
  Digest digest{};
};

// Digest bytes [16 * half, 16 * half + 16) as a big-endian integer (< 2^128).
crypto::Fr digest_half(const Digest& d, int half) {
  uint64_t hi = 0, lo = 0;
  for (int i = 0; i < 8; ++i) hi = hi << 8 | d[16 * half + i];
  for (int i = 8; i < 16; ++i) lo = lo << 8 | d[16 * half + i];
  return crypto::Fr::from_u64(hi) * gadgets::fr_pow2(64) + crypto::Fr::from_u64(lo);
}

// The circuit of one preimage: inputs first (hi, lo), then the message bits and SHA-256.
void synthesize_preimage(groth16::ConstraintSystem& cs, const Preimage& p) {
  const Num half[2] = {Num::input(cs, digest_half(p.digest, 0)),
                       Num::input(cs, digest_half(p.digest, 1))};
  std::vector<Boolean> bits;
  bits.reserve(p.message.size() * 8);
  for (uint8_t byte : p.message) {
    for (int b = 7; b >= 0; --b) bits.push_back(Boolean::alloc(cs, (byte >> b) & 1));
  }
  const std::vector<Boolean> digest = gadgets::sha256(cs, bits);  // byte-major, MSB first
  for (int h = 0; h < 2; ++h) {
    std::vector<Boolean> le(128);  // little-endian: the half's last digest bit has weight 1
    for (int j = 0; j < 128; ++j) le[j] = digest[128 * h + 127 - j];
    const Num packed = gadgets::pack_bits_le(cs, le);
    gadgets::enforce_equal(cs, packed.lc(), half[h].lc());
  }
}

class PreimageJob final : public plugins::ProofJob {
 public:
  PreimageJob(uint32_t message_bytes, std::vector<Preimage> parts)
      : message_bytes_(message_bytes), parts_(std::move(parts)) {
    counts_ = plugins::counts_for(circuit_id(), [&] {
      auto cs = groth16::ConstraintSystem::counter();
      synthesize_blank(cs);
      return plugins::CircuitCounts{cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
    });
  }
  uint32_t partitions() const override { return static_cast<uint32_t>(parts_.size()); }
  std::string circuit_id() const override {
    return "sha256-preimage-v1-m" + std::to_string(message_bytes_);
  }
  plugins::CircuitCounts counts() const override { return counts_; }
  void synthesize(groth16::ConstraintSystem& cs, uint32_t position) const override {
    synthesize_preimage(cs, parts_[position]);
  }
  void synthesize_blank(groth16::ConstraintSystem& cs) const override {
    Preimage blank;
    blank.message.assign(message_bytes_, 0);
    synthesize_preimage(cs, blank);
  }
  std::vector<crypto::Fr> public_inputs(uint32_t position) const override {
    const Digest& d = parts_[position].digest;
    return {digest_half(d, 0), digest_half(d, 1)};
  }

 private:
  uint32_t message_bytes_;
  std::vector<Preimage> parts_;
  plugins::CircuitCounts counts_;
};

uint32_t read_u32(std::span<const uint8_t> b, size_t at) {
  return uint32_t{b[at]} | uint32_t{b[at + 1]} << 8 | uint32_t{b[at + 2]} << 16 |
         uint32_t{b[at + 3]} << 24;
}

void put_u32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

Result<std::unique_ptr<plugins::ProofJob>> parse(std::span<const uint8_t> bytes,
                                                 const std::string& what) {
  auto bad = [&](size_t offset, const std::string& m) {
    return invalid_argument(what + ": byte offset " + std::to_string(offset) + ": " + m);
  };
  if (bytes.size() < kHeaderBytes) {
    return bad(bytes.size(),
               "the request ends inside its " + std::to_string(kHeaderBytes) + "-byte header");
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return bad(0, "not a sha256_preimage request (magic SHA256PI)");
  }
  if (const uint32_t v = read_u32(bytes, 8); v != kVersion) {
    return bad(8, "version " + std::to_string(v) + "; this plugin reads version 1");
  }
  const uint32_t message_bytes = read_u32(bytes, 12);
  if (message_bytes != 32 && message_bytes != 64) {
    return bad(12, "message_bytes is " + std::to_string(message_bytes) + "; expected 32 or 64");
  }
  const uint32_t partitions = read_u32(bytes, 16);
  if (partitions < 1 || partitions > kMaxPartitions) {
    return bad(16, "partitions is " + std::to_string(partitions) + "; expected 1 to " +
                       std::to_string(kMaxPartitions));
  }
  const size_t entry = message_bytes + 32;
  const size_t want = kHeaderBytes + size_t{partitions} * entry;
  if (bytes.size() != want) {
    return bad(std::min(bytes.size(), want),
               (bytes.size() < want ? "the request ends early: " : "trailing bytes: ") +
                   std::to_string(bytes.size()) + " bytes; " + std::to_string(partitions) +
                   " partitions of " + std::to_string(message_bytes) + "-byte messages take " +
                   std::to_string(want));
  }
  std::vector<Preimage> parts(partitions);
  for (uint32_t k = 0; k < partitions; ++k) {
    const size_t at = kHeaderBytes + k * entry;
    parts[k].message.assign(bytes.begin() + at, bytes.begin() + at + message_bytes);
    std::memcpy(parts[k].digest.data(), bytes.data() + at + message_bytes, 32);
    if (groth16::sha256(parts[k].message) != parts[k].digest) {
      return bad(at + message_bytes,
                 "partition " + std::to_string(k) + ": the digest is not SHA-256 of the message");
    }
  }
  return std::unique_ptr<plugins::ProofJob>(new PreimageJob(message_bytes, std::move(parts)));
}

// The request of a preset: message k is SHA-256("sha256_preimage sample" || seed || k || i)
// for i = 0, 1, ... concatenated to the preset's length.
Result<std::vector<uint8_t>> sample(const zkp_preset& preset, uint64_t seed) {
  const uint32_t message_bytes = std::string_view(preset.name) == "64B" ? 64 : 32;
  std::vector<uint8_t> out(kMagic, kMagic + sizeof kMagic);
  put_u32(out, kVersion);
  put_u32(out, message_bytes);
  put_u32(out, preset.partitions);
  for (uint32_t k = 0; k < preset.partitions; ++k) {
    std::vector<uint8_t> message;
    for (uint32_t i = 0; message.size() < message_bytes; ++i) {
      std::string tag = "sha256_preimage sample";
      for (int b = 0; b < 8; ++b) tag.push_back(static_cast<char>(seed >> (8 * b)));
      for (uint32_t v : {k, i}) {
        for (int b = 0; b < 4; ++b) tag.push_back(static_cast<char>(v >> (8 * b)));
      }
      const Digest d = groth16::sha256(
          std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(tag.data()), tag.size()));
      message.insert(message.end(), d.begin(), d.end());
    }
    message.resize(message_bytes);
    const Digest digest = groth16::sha256(message);
    out.insert(out.end(), message.begin(), message.end());
    out.insert(out.end(), digest.begin(), digest.end());
  }
  return out;
}

Status run_self_test() {
  return plugins::self_test_sample<parse, sample>(kPresets, "32B", 1);
}

}  // namespace

ZKP_EXPORT_PROOF_TYPE_WITH_PRESETS(kName, "0.1.0", parse, run_self_test, kPresets, sample);
