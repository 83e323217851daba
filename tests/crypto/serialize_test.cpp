// Point serialization (zcash/bellperson format): known answers from @noble/curves (every valid
// point decodes and re-encodes byte for byte, every invalid encoding is refused with its exact
// DecodeError), messages, round trips of random points, the trusted-input opt-out, batches.
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "crypto/vectors.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/crypto/serialize.h"

using namespace zkpipe::crypto;
using zkpipe::Result;
using zkpipe::Status;
using zkpipe::test::hex;
using zkpipe::test::load_vectors;
using zkpipe::test::unhex;

namespace {

// The two groups behind one interface, so every test runs on both.
struct G1Ops {
  using Affine = G1Affine;
  using Jac = G1;
  static constexpr const char* kName = "g1";
  static constexpr const char* kTitle = "G1";
  static constexpr size_t kCompressed = kG1CompressedBytes, kUncompressed = kG1UncompressedBytes;
  static Result<Affine> decode(const std::vector<uint8_t>& b, const DecodeOptions& o = {},
                               DecodeError* e = nullptr) {
    return decode_g1(b.data(), b.size(), o, e);
  }
  static std::string encode(const Affine& p, bool compressed) {
    uint8_t out[kUncompressed];
    compressed ? encode_g1_compressed(p, out) : encode_g1_uncompressed(p, out);
    return hex(out, compressed ? kCompressed : kUncompressed);
  }
  static Jac generator() { return Jac::from_affine(g1_generator()); }
  static bool in_subgroup_naive(const Affine& p) {
    return g1_in_subgroup_naive(Jac::from_affine(p));
  }
  // A curve point built from a random x without clearing the cofactor (so almost never in G1).
  template <typename Rng>
  static Affine random_curve_point(Rng& rng) {
    for (;;) {
      Fp x = Fp::random(rng), y;
      if ((x.sqr() * x + G1Config::b()).sqrt(y)) return {x, y, false};
    }
  }
};

struct G2Ops {
  using Affine = G2Affine;
  using Jac = G2;
  static constexpr const char* kName = "g2";
  static constexpr const char* kTitle = "G2";
  static constexpr size_t kCompressed = kG2CompressedBytes, kUncompressed = kG2UncompressedBytes;
  static Result<Affine> decode(const std::vector<uint8_t>& b, const DecodeOptions& o = {},
                               DecodeError* e = nullptr) {
    return decode_g2(b.data(), b.size(), o, e);
  }
  static std::string encode(const Affine& p, bool compressed) {
    uint8_t out[kUncompressed];
    compressed ? encode_g2_compressed(p, out) : encode_g2_uncompressed(p, out);
    return hex(out, compressed ? kCompressed : kUncompressed);
  }
  static Jac generator() { return Jac::from_affine(g2_generator()); }
  static bool in_subgroup_naive(const Affine& p) {
    return g2_in_subgroup_naive(Jac::from_affine(p));
  }
  template <typename Rng>
  static Affine random_curve_point(Rng& rng) {
    for (;;) {
      Fp2 x{Fp::random(rng), Fp::random(rng)}, y;
      if ((x.sqr() * x + G2Config::b()).sqrt(y)) return {x, y, false};
    }
  }
};

DecodeError error_from_reason(const std::string& reason) {
  for (DecodeError e : {DecodeError::kBadLength, DecodeError::kBadFlags, DecodeError::kNotCanonical,
                        DecodeError::kNotOnCurve, DecodeError::kNotInSubgroup}) {
    if (decode_error_name(e) == reason) return e;
  }
  FAIL("unknown reason " << reason);
  return DecodeError::kBadLength;
}

template <typename Ops>
void check_invalid_vectors() {
  auto v = load_vectors("serialization_invalid.json");
  const nlohmann::json& cases = v[Ops::kName];
  REQUIRE(cases.size() >= 30);
  for (const nlohmann::json& c : cases) {
    INFO(Ops::kName << " " << c["note"].get<std::string>() << ": " << c["hex"].get<std::string>());
    DecodeError kind{};
    auto r = Ops::decode(unhex(c["hex"]), {}, &kind);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == zkpipe::Code::kInvalidArgument);
    CHECK(kind == error_from_reason(c["reason"].get<std::string>()));
    CHECK(r.status().message().rfind(Ops::kTitle, 0) == 0);
    // The trusted-input opt-out skips only the subgroup check.
    auto trusted = Ops::decode(unhex(c["hex"]), DecodeOptions::trusted_input(), &kind);
    CHECK(trusted.ok() == (c["reason"] == "not_in_subgroup"));
    if (trusted.ok()) CHECK_FALSE(Ops::in_subgroup_naive(*trusted));  // the reference agrees
  }
}

template <typename Ops>
void check_valid_vectors() {
  auto v = load_vectors("serialization_invalid.json");
  const nlohmann::json& cases = v["valid"][Ops::kName];
  REQUIRE(cases.size() >= 10);
  for (const nlohmann::json& c : cases) {
    INFO(Ops::kName << " " << c["note"].get<std::string>() << ": " << c["hex"].get<std::string>());
    const std::string h = c["hex"];
    DecodeError kind = DecodeError::kNotInSubgroup;
    auto r = Ops::decode(unhex(h), {}, &kind);
    REQUIRE(r.ok());
    CHECK(kind == DecodeError::kNotInSubgroup);  // untouched on success
    CHECK(Ops::encode(*r, true) == c["compressed"].get<std::string>());
    CHECK(Ops::encode(*r, h.size() / 2 == Ops::kCompressed) == h);
  }
}

// g1.json / g2.json: every point decodes (both forms of p agree), and every one re-encodes to
// the same bytes.
template <typename Ops>
void check_point_vectors(const char* file) {
  auto v = load_vectors(file);
  REQUIRE(v["cases"].size() >= 16);
  for (const nlohmann::json& c : v["cases"]) {
    for (const char* key : {"p", "q", "add", "dbl", "neg_p", "k_p", "p_uncompressed"}) {
      INFO(file << " " << key << ": " << c[key].get<std::string>());
      const std::string h = c[key];
      auto r = Ops::decode(unhex(h));
      REQUIRE(r.ok());
      const bool compressed = h.size() / 2 == Ops::kCompressed;
      CHECK(compressed == (std::string(key) != "p_uncompressed"));
      CHECK(Ops::encode(*r, compressed) == h);
      if (!compressed) CHECK(Ops::encode(*r, true) == c["p"].get<std::string>());
    }
  }
}

template <typename Ops>
void check_random_round_trips() {
  std::mt19937_64 rng(0x5e71a1);
  for (int i = 0; i < 16; ++i) {
    const typename Ops::Affine p = mul_wnaf(Ops::generator(), Fr::random(rng)).to_affine();  // in G
    for (bool compressed : {true, false}) {
      const std::vector<uint8_t> bytes = unhex(Ops::encode(p, compressed));
      CHECK(bytes.size() == (compressed ? Ops::kCompressed : Ops::kUncompressed));
      CHECK(((bytes[0] & kFlagCompressed) != 0) == compressed);
      auto r = Ops::decode(bytes);
      REQUIRE(r.ok());
      CHECK(*r == p);
      auto n = Ops::decode(unhex(Ops::encode(-p, compressed)));
      REQUIRE(n.ok());
      CHECK(*n == -p);
    }
    // A curve point outside the subgroup: refused by default, accepted when trusted.
    const typename Ops::Affine q = Ops::random_curve_point(rng);
    for (bool compressed : {true, false}) {
      DecodeError kind{};
      const std::vector<uint8_t> bytes = unhex(Ops::encode(q, compressed));
      auto r = Ops::decode(bytes, {}, &kind);
      REQUIRE_FALSE(r.ok());
      CHECK(kind == DecodeError::kNotInSubgroup);
      auto t = Ops::decode(bytes, DecodeOptions::trusted_input());
      REQUIRE(t.ok());
      CHECK(*t == q);
    }
  }
  for (bool compressed : {true, false}) {
    const std::string h = Ops::encode(Ops::Affine::identity(), compressed);
    CHECK(h.substr(0, 2) == (compressed ? "c0" : "40"));
    CHECK(h.find_first_not_of('0', 2) == std::string::npos);
    auto r = Ops::decode(unhex(h));
    REQUIRE(r.ok());
    CHECK(r->infinity);
  }
}

}  // namespace

TEST_CASE("G1 serialization: every invalid vector is refused with its reason", "[crypto]") {
  check_invalid_vectors<G1Ops>();
}

TEST_CASE("G2 serialization: every invalid vector is refused with its reason", "[crypto]") {
  check_invalid_vectors<G2Ops>();
}

TEST_CASE("G1 serialization: valid vectors decode and re-encode byte for byte", "[crypto]") {
  check_valid_vectors<G1Ops>();
  check_point_vectors<G1Ops>("g1.json");
}

TEST_CASE("G2 serialization: valid vectors decode and re-encode byte for byte", "[crypto]") {
  check_valid_vectors<G2Ops>();
  check_point_vectors<G2Ops>("g2.json");
}

TEST_CASE("G1 serialization: random points round-trip in both forms", "[crypto]") {
  check_random_round_trips<G1Ops>();
}

TEST_CASE("G2 serialization: random points round-trip in both forms", "[crypto]") {
  check_random_round_trips<G2Ops>();
}

TEST_CASE("G2 serialization: the generator is written x.c1 first", "[crypto]") {
  uint8_t out[kG2UncompressedBytes];
  encode_g2_uncompressed(g2_generator(), out);
  CHECK(hex(out, 48) == g2_generator().x.c1.to_hex());
  CHECK(hex(out + 48, 48) == g2_generator().x.c0.to_hex());
  CHECK(hex(out + 96, 48) == g2_generator().y.c1.to_hex());
  CHECK(hex(out + 144, 48) == g2_generator().y.c0.to_hex());
}

TEST_CASE("Point decoding: messages name the group, form, coordinate and bytes", "[crypto]") {
  auto message = [](auto decode, const std::string& h) {
    auto r = decode(unhex(h));
    REQUIRE_FALSE(r.ok());
    return r.status().message();
  };
  auto g1 = [](const std::vector<uint8_t>& b) { return G1Ops::decode(b); };
  auto g2 = [](const std::vector<uint8_t>& b) { return G2Ops::decode(b); };
  const std::string p = Fp::from_u64(0).to_hex();  // 48 zero bytes
  const std::string p_hex =
      "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffff"
      "aaab";
  const std::string gen_x1 = g2_generator().x.c1.to_hex();
  CHECK(message(g2, "9a" + p_hex.substr(2) + p) ==
        "G2 compressed: x.c1 (bytes 0-47) is not canonical (>= p)");
  CHECK(message(g2, "8" + gen_x1.substr(1) + p_hex) ==
        "G2 compressed: x.c0 (bytes 48-95) is not canonical (>= p)");
  CHECK(message(g1, "1" + p_hex.substr(1) + p_hex) ==
        "G1 uncompressed: x (bytes 0-47) is not canonical (>= p)");
  CHECK(message(g1, g1_generator().x.to_hex() + p_hex) ==
        "G1 uncompressed: y (bytes 48-95) is not canonical (>= p)");
  CHECK(message(g1, "").find("G1: expected 48 (compressed) or 96 (uncompressed) bytes, got 0") ==
        0);
  CHECK(message(g1, "c0" + p.substr(2, 92) + "01").find("non-zero byte 47") != std::string::npos);
  CHECK(message(g1, "20" + p.substr(2) + p).find("sign flag (bit 5 of byte 0)") !=
        std::string::npos);
  CHECK(
      message(g1, g1_generator().x.to_hex()).find("compression flag (bit 7 of byte 0) is clear") !=
      std::string::npos);
  CHECK(message(g1, "80" + p.substr(2)).find("prime-order subgroup") != std::string::npos);
}

TEST_CASE("Point decoding: arrays stop at the first bad point and say which", "[crypto]") {
  std::mt19937_64 rng(7);
  std::vector<G1Affine> points;
  for (int i = 0; i < 5; ++i)
    points.push_back(mul_wnaf(G1Ops::generator(), Fr::random(rng)).to_affine());
  std::vector<uint8_t> bytes(5 * kG1CompressedBytes);
  for (int i = 0; i < 5; ++i)
    encode_g1_compressed(points[i], bytes.data() + i * kG1CompressedBytes);
  std::vector<G1Affine> out(5);
  REQUIRE(decode_g1_array(bytes.data(), 5, kG1CompressedBytes, out.data()).ok());
  CHECK(out == points);

  bytes[3 * kG1CompressedBytes] &= static_cast<uint8_t>(~kFlagCompressed);
  DecodeError kind{};
  Status s = decode_g1_array(bytes.data(), 5, kG1CompressedBytes, out.data(), {}, &kind);
  REQUIRE_FALSE(s.ok());
  CHECK(kind == DecodeError::kBadFlags);
  CHECK(s.message().rfind("point 3 (bytes 144-191): G1 compressed: compression flag", 0) == 0);

  std::vector<uint8_t> g2_bytes(2 * kG2UncompressedBytes);
  encode_g2_uncompressed(g2_generator(), g2_bytes.data());
  encode_g2_uncompressed(G2Ops::random_curve_point(rng), g2_bytes.data() + kG2UncompressedBytes);
  std::vector<G2Affine> out2(2);
  s = decode_g2_array(g2_bytes.data(), 2, kG2UncompressedBytes, out2.data(), {}, &kind);
  REQUIRE_FALSE(s.ok());
  CHECK(kind == DecodeError::kNotInSubgroup);
  CHECK(s.message().rfind("point 1 (bytes 192-383)", 0) == 0);
  CHECK(decode_g2_array(g2_bytes.data(), 2, kG2UncompressedBytes, out2.data(),
                        DecodeOptions::trusted_input())
            .ok());
}
