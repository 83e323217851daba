// The zcash/bellperson point format for G1 and G2: one decoder and one encoder, templated over
// the coordinate field (Fp for G1; Fp2 for G2, written c1 then c0), and strict checks in order:
// length, flags, canonical coordinates, curve, subgroup.
// Thread-safety: pure functions.
#include "zkpipe/crypto/serialize.h"

#include <cstring>
#include <string>

#include "zkpipe/crypto/group_ops.h"

namespace zkpipe::crypto {
namespace {

constexpr size_t kFpBytes = Fp::kBytes;

// (p + 1) / 4: for p = 3 mod 4, a^((p+1)/4) is a square root of a whenever one exists, so one
// exponentiation and a squaring decide and compute it (Fp::sqrt's general Tonelli-Shanks takes
// three exponentiations).
static_assert(Fp::kTwoAdicity == 1, "p = 3 mod 4");
constexpr Fp::L p_plus_1_quarter() {
  Fp::L v = Fp::kModulus;
  limbs_add(v, limbs_from_u64<Fp::kLimbs>(1));
  return limbs_shr1(limbs_shr1(v));
}
constexpr Fp::L kPPlus1Quarter = p_plus_1_quarter();
constexpr uint8_t kFlagMask = kFlagCompressed | kFlagInfinity | kFlagSign;

std::string byte_range(size_t offset, size_t len) {
  return "bytes " + std::to_string(offset) + "-" + std::to_string(offset + len - 1);
}

// The Fp at in[offset, offset + 48); the flag bits are cleared when it starts the encoding.
// False when the value is >= p.
bool read_fp(const uint8_t* in, size_t offset, Fp& out) {
  uint8_t buf[kFpBytes];
  std::memcpy(buf, in + offset, kFpBytes);
  if (offset == 0) buf[0] &= static_cast<uint8_t>(~kFlagMask);
  Result<Fp> r = Fp::from_bytes_be(buf);
  if (!r.ok()) return false;
  out = *r;
  return true;
}

// What the codec needs from a coordinate field; `name` is "x" or "y", `bad` receives the part
// that failed to read.
template <typename F>
struct Coord;

template <>
struct Coord<Fp> {
  static constexpr size_t kBytes = kFpBytes;
  static bool read(const uint8_t* in, size_t offset, const char* name, Fp& out, std::string& bad) {
    if (read_fp(in, offset, out)) return true;
    bad = std::string(name) + " (" + byte_range(offset, kFpBytes) + ")";
    return false;
  }
  static void write(const Fp& v, uint8_t* out) { v.to_bytes_be(out); }
  static bool sign(const Fp& y) { return lexicographically_largest(y); }
  static bool sqrt(const Fp& a, Fp& out) {
    out = a.pow(kPPlus1Quarter);
    return out.sqr() == a;
  }
};

template <>
struct Coord<Fp2> {
  static constexpr size_t kBytes = 2 * kFpBytes;
  static bool read(const uint8_t* in, size_t offset, const char* name, Fp2& out, std::string& bad) {
    if (!read_fp(in, offset, out.c1)) {
      bad = std::string(name) + ".c1 (" + byte_range(offset, kFpBytes) + ")";
      return false;
    }
    if (!read_fp(in, offset + kFpBytes, out.c0)) {
      bad = std::string(name) + ".c0 (" + byte_range(offset + kFpBytes, kFpBytes) + ")";
      return false;
    }
    return true;
  }
  static void write(const Fp2& v, uint8_t* out) {
    v.c1.to_bytes_be(out);
    v.c0.to_bytes_be(out + kFpBytes);
  }
  static bool sign(const Fp2& y) { return y.lexicographically_largest(); }
  static bool sqrt(const Fp2& a, Fp2& out) { return a.sqrt(out); }
};

template <typename F, typename Cfg>
struct Codec {
  using Affine = AffinePoint<F>;
  using Jac = JacobianPoint<F, Cfg>;
  static constexpr size_t kCompressed = Coord<F>::kBytes;
  static constexpr size_t kUncompressed = 2 * Coord<F>::kBytes;

  static void encode(const Affine& p, bool compressed, uint8_t* out) {
    const size_t len = compressed ? kCompressed : kUncompressed;
    if (p.infinity) {
      std::memset(out, 0, len);
      out[0] = compressed ? (kFlagCompressed | kFlagInfinity) : kFlagInfinity;
      return;
    }
    Coord<F>::write(p.x, out);
    if (compressed) {
      out[0] |= kFlagCompressed;
      if (Coord<F>::sign(p.y)) out[0] |= kFlagSign;
    } else {
      Coord<F>::write(p.y, out + kCompressed);
    }
  }

  static Result<Affine> decode(const char* group, const uint8_t* in, size_t len,
                               const DecodeOptions& options, DecodeError* error,
                               bool (*in_subgroup)(const Jac&)) {
    auto fail = [&](DecodeError kind, const std::string& form, const std::string& what) {
      if (error != nullptr) *error = kind;
      return invalid_argument(std::string(group) + form + ": " + what);
    };
    if (len != kCompressed && len != kUncompressed) {
      return fail(DecodeError::kBadLength, "",
                  "expected " + std::to_string(kCompressed) + " (compressed) or " +
                      std::to_string(kUncompressed) + " (uncompressed) bytes, got " +
                      std::to_string(len));
    }
    const bool compressed = len == kCompressed;
    const std::string form = compressed ? " compressed" : " uncompressed";
    const uint8_t flags = in[0] & kFlagMask;
    if (((flags & kFlagCompressed) != 0) != compressed) {
      return fail(DecodeError::kBadFlags, form,
                  std::string("compression flag (bit 7 of byte 0) is ") +
                      (compressed ? "clear" : "set") + " but " + std::to_string(len) +
                      " bytes is the " + (compressed ? "compressed" : "uncompressed") + " size");
    }
    if (!compressed && (flags & kFlagSign) != 0) {
      return fail(DecodeError::kBadFlags, form, "sign flag (bit 5 of byte 0) set");
    }
    if ((flags & kFlagInfinity) != 0) {
      if ((flags & kFlagSign) != 0) {
        return fail(DecodeError::kBadFlags, form,
                    "infinity flag (bit 6 of byte 0) with the sign flag (bit 5) set");
      }
      if ((in[0] & ~kFlagMask) != 0) {
        return fail(DecodeError::kBadFlags, form,
                    "infinity flag (bit 6 of byte 0) with non-zero low bits in byte 0");
      }
      for (size_t i = 1; i < len; ++i) {
        if (in[i] != 0) {
          return fail(DecodeError::kBadFlags, form,
                      "infinity flag (bit 6 of byte 0) with non-zero byte " + std::to_string(i));
        }
      }
      return Affine::identity();
    }

    Affine p{F::zero(), F::zero(), false};
    std::string bad;
    if (!Coord<F>::read(in, 0, "x", p.x, bad) ||
        (!compressed && !Coord<F>::read(in, kCompressed, "y", p.y, bad))) {
      return fail(DecodeError::kNotCanonical, form, bad + " is not canonical (>= p)");
    }
    if (compressed) {
      const F y2 = p.x.sqr() * p.x + Cfg::b();
      if (!Coord<F>::sqrt(y2, p.y)) {
        return fail(DecodeError::kNotOnCurve, form,
                    "x (" + byte_range(0, kCompressed) +
                        ") is not the x of a curve point (x^3 + b is not a square)");
      }
      if (Coord<F>::sign(p.y) != ((flags & kFlagSign) != 0)) p.y = -p.y;
    } else if (!is_on_curve<F, Cfg>(p)) {
      return fail(DecodeError::kNotOnCurve, form, "(x, y) is not on the curve");
    }
    if (options.check_subgroup && !in_subgroup(Jac::from_affine(p))) {
      return fail(DecodeError::kNotInSubgroup, form,
                  "the point is on the curve but not in the prime-order subgroup");
    }
    return p;
  }

  template <typename DecodeOne>
  static Status decode_array(const uint8_t* in, size_t count, size_t stride, Affine* out,
                             DecodeError* error, DecodeOne decode_one) {
    for (size_t i = 0; i < count; ++i) {
      Result<Affine> r = decode_one(in + i * stride, stride, error);
      if (!r.ok()) {
        return r.status().with_context("point " + std::to_string(i) + " (" +
                                       byte_range(i * stride, stride) + ")");
      }
      out[i] = *r;
    }
    return ok_status();
  }
};

using G1Codec = Codec<Fp, G1Config>;
using G2Codec = Codec<Fp2, G2Config>;
static_assert(G1Codec::kCompressed == kG1CompressedBytes &&
              G1Codec::kUncompressed == kG1UncompressedBytes);
static_assert(G2Codec::kCompressed == kG2CompressedBytes &&
              G2Codec::kUncompressed == kG2UncompressedBytes);

bool g1_check(const G1& p) {
  return g1_in_subgroup(p);
}
bool g2_check(const G2& p) {
  return g2_in_subgroup(p);
}

}  // namespace

std::string_view decode_error_name(DecodeError e) {
  switch (e) {
    case DecodeError::kBadLength:
      return "bad_length";
    case DecodeError::kBadFlags:
      return "bad_flags";
    case DecodeError::kNotCanonical:
      return "not_canonical";
    case DecodeError::kNotOnCurve:
      return "not_on_curve";
    case DecodeError::kNotInSubgroup:
      return "not_in_subgroup";
  }
  return "unknown";
}

void encode_g1_compressed(const G1Affine& p, uint8_t* out) {
  G1Codec::encode(p, true, out);
}
void encode_g1_uncompressed(const G1Affine& p, uint8_t* out) {
  G1Codec::encode(p, false, out);
}
void encode_g2_compressed(const G2Affine& p, uint8_t* out) {
  G2Codec::encode(p, true, out);
}
void encode_g2_uncompressed(const G2Affine& p, uint8_t* out) {
  G2Codec::encode(p, false, out);
}

Result<G1Affine> decode_g1(const uint8_t* in, size_t len, const DecodeOptions& options,
                           DecodeError* error) {
  return G1Codec::decode("G1", in, len, options, error, g1_check);
}
Result<G2Affine> decode_g2(const uint8_t* in, size_t len, const DecodeOptions& options,
                           DecodeError* error) {
  return G2Codec::decode("G2", in, len, options, error, g2_check);
}

Status decode_g1_array(const uint8_t* in, size_t count, size_t stride, G1Affine* out,
                       const DecodeOptions& options, DecodeError* error) {
  return G1Codec::decode_array(
      in, count, stride, out, error,
      [&](const uint8_t* p, size_t len, DecodeError* e) { return decode_g1(p, len, options, e); });
}
Status decode_g2_array(const uint8_t* in, size_t count, size_t stride, G2Affine* out,
                       const DecodeOptions& options, DecodeError* error) {
  return G2Codec::decode_array(
      in, count, stride, out, error,
      [&](const uint8_t* p, size_t len, DecodeError* e) { return decode_g2(p, len, options, e); });
}

}  // namespace zkpipe::crypto
