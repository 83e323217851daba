// The scalar stand-ins of engine/crypto/ifma_emulation.h held to the real AVX-512 F / IFMA
// instructions, one intrinsic at a time on random and edge-case lanes (0, all ones, 2^52 - 1,
// 2^63), with the immediates the kernels use and some others: what makes the emulated kernels
// (ifma_emulated.h) stand for the native ones. Needs a CPU with IFMA (tests/feature_required.h).
// Thread-safety: single-threaded test.
// GCC 12 warns inside the intrinsics' own headers (bug 105593, as ifma_lanes.h says), and that
// __m512i values change the ABI of functions without AVX-512 (these are all target functions).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"
#include <immintrin.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "engine/crypto/batch_add_ifma.h"
#include "engine/crypto/ifma_emulation.h"
#include "feature_required.h"
#include "zkpipe/crypto/cpu_kernels.h"

namespace {

namespace emu = zkpipe::crypto::ifma_emu;
using emu::V512;

#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))

IFMA_TARGET __m512i native_of(const V512& v) {
  return _mm512_loadu_si512(v.q);
}
IFMA_TARGET V512 emulated_of(__m512i v) {
  V512 r;
  _mm512_storeu_si512(r.q, v);
  return r;
}

V512 random_lanes(std::mt19937_64& rng) {
  static constexpr uint64_t kEdges[] = {0, ~uint64_t{0}, (uint64_t{1} << 52) - 1, uint64_t{1} << 63,
                                        1};
  V512 v;
  for (uint64_t& q : v.q) q = rng() % 4 == 0 ? kEdges[rng() % 5] : rng();
  return v;
}

struct Mismatches {
  std::vector<std::string> names;
  IFMA_TARGET void check(const char* name, const V512& emulated, __m512i native) {
    const V512 n = emulated_of(native);
    if (std::memcmp(n.q, emulated.q, sizeof n.q) != 0) names.emplace_back(name);
  }
  void check(const char* name, uint64_t emulated, uint64_t native) {
    if (emulated != native) names.emplace_back(name);
  }
};

template <int S>
IFMA_TARGET void check_shifts(Mismatches& m, const V512& a) {
  const __m512i na = native_of(a);
  m.check("slli", emu::mm512_slli_epi64(a, S), _mm512_slli_epi64(na, S));
  m.check("srli", emu::mm512_srli_epi64(a, S), _mm512_srli_epi64(na, S));
  m.check("srai", emu::mm512_srai_epi64(a, S), _mm512_srai_epi64(na, S));
}

template <int Imm>
IFMA_TARGET void check_shuffles(Mismatches& m, const V512& a, const V512& b) {
  const __m512i na = native_of(a), nb = native_of(b);
  m.check("shuffle_i64x2", emu::mm512_shuffle_i64x2(a, b, Imm), _mm512_shuffle_i64x2(na, nb, Imm));
  m.check("permutex", emu::mm512_permutex_epi64(a, Imm), _mm512_permutex_epi64(na, Imm));
}

IFMA_TARGET void check_round(Mismatches& m, std::mt19937_64& rng) {
  const V512 a = random_lanes(rng), b = random_lanes(rng), c = random_lanes(rng);
  const __m512i na = native_of(a), nb = native_of(b), nc = native_of(c);
  const auto k = static_cast<uint8_t>(rng());
  m.check("add", emu::mm512_add_epi64(a, b), _mm512_add_epi64(na, nb));
  m.check("sub", emu::mm512_sub_epi64(a, b), _mm512_sub_epi64(na, nb));
  m.check("and", emu::mm512_and_si512(a, b), _mm512_and_si512(na, nb));
  m.check("or", emu::mm512_or_si512(a, b), _mm512_or_si512(na, nb));
  m.check("madd52lo", emu::mm512_madd52lo_epu64(a, b, c), _mm512_madd52lo_epu64(na, nb, nc));
  m.check("madd52hi", emu::mm512_madd52hi_epu64(a, b, c), _mm512_madd52hi_epu64(na, nb, nc));
  m.check("cmplt_mask", emu::mm512_cmplt_epi64_mask(a, b), _mm512_cmplt_epi64_mask(na, nb));
  m.check("mask_blend", emu::mm512_mask_blend_epi64(k, a, b), _mm512_mask_blend_epi64(k, na, nb));
  m.check("mask_sub", emu::mm512_mask_sub_epi64(c, k, a, b), _mm512_mask_sub_epi64(nc, k, na, nb));
  m.check("permutex2var", emu::mm512_permutex2var_epi64(a, c, b),
          _mm512_permutex2var_epi64(na, nc, nb));
  m.check("unpacklo", emu::mm512_unpacklo_epi64(a, b), _mm512_unpacklo_epi64(na, nb));
  m.check("unpackhi", emu::mm512_unpackhi_epi64(a, b), _mm512_unpackhi_epi64(na, nb));
  m.check("set1", emu::mm512_set1_epi64(static_cast<long long>(a.q[3])),
          _mm512_set1_epi64(static_cast<long long>(a.q[3])));
  m.check("cvtsi128_si64",
          static_cast<uint64_t>(emu::mm_cvtsi128_si64(emu::mm512_castsi512_si128(a))),
          static_cast<uint64_t>(_mm_cvtsi128_si64(_mm512_castsi512_si128(na))));
  for (int half : {0, 1}) {
    const emu::V256 e = half ? emu::mm512_extracti64x4_epi64(a, 1) : emu::mm512_castsi512_si256(a);
    const __m256i n = half ? _mm512_extracti64x4_epi64(na, 1) : _mm512_castsi512_si256(na);
    uint64_t nq[4];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(nq), n);
    m.check("extract/cast 256", std::memcmp(e.q, nq, sizeof nq) == 0 ? 0 : 1, 0);
    const __m256i nb256 = _mm512_castsi512_si256(nb);
    const emu::V256 eb256 = emu::mm512_castsi512_si256(b);
    m.check("inserti64x4", emu::mm512_inserti64x4(a, eb256, 1), _mm512_inserti64x4(na, nb256, 1));
    m.check("inserti64x4 low", emu::mm512_inserti64x4(a, eb256, 0),
            _mm512_inserti64x4(na, nb256, 0));
  }
  check_shifts<0>(m, a);
  check_shifts<12>(m, a);
  check_shifts<20>(m, a);
  check_shifts<32>(m, a);
  check_shifts<52>(m, a);
  check_shifts<63>(m, a);
  check_shuffles<0x88>(m, a, b);
  check_shuffles<0xdd>(m, a, b);
  check_shuffles<0x4e>(m, a, b);
  check_shuffles<0xb1>(m, a, b);
  check_shuffles<0x1b>(m, a, b);
}

}  // namespace

TEST_CASE("IFMA emulation: each stand-in equals the AVX-512 instruction", "[crypto]") {
  if (!zkpipe::testing::feature_present(
          zkpipe::crypto::cpu_has_ifma(), "IFMA",
          "AVX-512 IFMA (the instructions the stand-ins are held to)")) {
    return;
  }
  std::mt19937_64 rng(20261207);
  Mismatches m;
  for (int round = 0; round < 2000 && m.names.empty(); ++round) check_round(m, rng);
  INFO("first mismatches: " << (m.names.empty() ? "" : m.names.front()));
  CHECK(m.names.empty());
}
