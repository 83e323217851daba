// engine/crypto/ifma_emulation.h (private to zkpipe_crypto and its tests): scalar stand-ins for
// exactly the AVX-512 F and IFMA intrinsics the IFMA kernels use, with Intel's semantics (the
// Intrinsics Guide's pseudocode) and Intel's names less the leading underscore. With
// ZKP_IFMA_EMULATED defined, the intrinsics' names become macros for these (end of file), so
// batch_add_ifma.cpp and ntt_ifma.cpp compile unchanged into a variant that runs on any x86-64
// (tests/crypto/ifma_emulated.h): the kernels' arithmetic and data movement are tested on CPUs
// without IFMA. tests/crypto/ifma_emulation_test.cpp holds each stand-in to the real instruction
// where the CPU has IFMA. Slow (a loop a vector); never used for proving. Thread-safety: pure
// functions on values.
#pragma once

#include <cstdint>
#include <cstring>

namespace zkpipe::crypto::ifma_emu {

struct V512 {
  uint64_t q[8];
};
struct V256 {
  uint64_t q[4];
};
struct V128 {
  uint64_t q[2];
};
using Mask8 = uint8_t;

inline constexpr uint64_t kLow52 = (uint64_t{1} << 52) - 1;

template <class F>
inline V512 lanewise(const V512& a, const V512& b, F f) {
  V512 r;
  for (int i = 0; i < 8; ++i) r.q[i] = f(a.q[i], b.q[i]);
  return r;
}

inline V512 mm512_setzero_si512() {
  return V512{};
}
inline V512 mm512_set1_epi64(long long x) {
  V512 r;
  for (uint64_t& q : r.q) q = static_cast<uint64_t>(x);
  return r;
}
// Lane 0 first.
inline V512 mm512_setr_epi64(long long e0, long long e1, long long e2, long long e3, long long e4,
                             long long e5, long long e6, long long e7) {
  return V512{{static_cast<uint64_t>(e0), static_cast<uint64_t>(e1), static_cast<uint64_t>(e2),
               static_cast<uint64_t>(e3), static_cast<uint64_t>(e4), static_cast<uint64_t>(e5),
               static_cast<uint64_t>(e6), static_cast<uint64_t>(e7)}};
}

inline V512 mm512_load_si512(const void* p) {
  V512 r;
  std::memcpy(r.q, p, sizeof r.q);
  return r;
}
inline V512 mm512_loadu_si512(const void* p) {
  return mm512_load_si512(p);
}
inline void mm512_store_si512(void* p, const V512& a) {
  std::memcpy(p, a.q, sizeof a.q);
}
inline void mm512_storeu_si512(void* p, const V512& a) {
  mm512_store_si512(p, a);
}
inline V256 mm256_loadu_si256(const V256* p) {
  V256 r;
  std::memcpy(r.q, p, sizeof r.q);
  return r;
}
inline void mm256_storeu_si256(V256* p, const V256& a) {
  std::memcpy(p, a.q, sizeof a.q);
}

inline V512 mm512_add_epi64(const V512& a, const V512& b) {
  return lanewise(a, b, [](uint64_t x, uint64_t y) { return x + y; });
}
inline V512 mm512_sub_epi64(const V512& a, const V512& b) {
  return lanewise(a, b, [](uint64_t x, uint64_t y) { return x - y; });
}
inline V512 mm512_and_si512(const V512& a, const V512& b) {
  return lanewise(a, b, [](uint64_t x, uint64_t y) { return x & y; });
}
inline V512 mm512_or_si512(const V512& a, const V512& b) {
  return lanewise(a, b, [](uint64_t x, uint64_t y) { return x | y; });
}
// Shift counts above 63 give 0 (logical) or the sign (arithmetic), as the instructions do.
inline V512 mm512_slli_epi64(const V512& a, unsigned s) {
  V512 r;
  for (int i = 0; i < 8; ++i) r.q[i] = s > 63 ? 0 : a.q[i] << s;
  return r;
}
inline V512 mm512_srli_epi64(const V512& a, unsigned s) {
  V512 r;
  for (int i = 0; i < 8; ++i) r.q[i] = s > 63 ? 0 : a.q[i] >> s;
  return r;
}
inline V512 mm512_srai_epi64(const V512& a, unsigned s) {
  V512 r;
  for (int i = 0; i < 8; ++i) {
    r.q[i] = static_cast<uint64_t>(static_cast<int64_t>(a.q[i]) >> (s > 63 ? 63 : s));
  }
  return r;
}

// a + the low (madd52lo) or high (madd52hi) 52 bits of the 104-bit product of the low 52 bits
// of b and c.
inline V512 mm512_madd52lo_epu64(const V512& a, const V512& b, const V512& c) {
  V512 r;
  for (int i = 0; i < 8; ++i) {
    const unsigned __int128 p = static_cast<unsigned __int128>(b.q[i] & kLow52) * (c.q[i] & kLow52);
    r.q[i] = a.q[i] + (static_cast<uint64_t>(p) & kLow52);
  }
  return r;
}
inline V512 mm512_madd52hi_epu64(const V512& a, const V512& b, const V512& c) {
  V512 r;
  for (int i = 0; i < 8; ++i) {
    const unsigned __int128 p = static_cast<unsigned __int128>(b.q[i] & kLow52) * (c.q[i] & kLow52);
    r.q[i] = a.q[i] + (static_cast<uint64_t>(p >> 52) & kLow52);
  }
  return r;
}

// Signed a < b, lane i in bit i.
inline Mask8 mm512_cmplt_epi64_mask(const V512& a, const V512& b) {
  Mask8 k = 0;
  for (int i = 0; i < 8; ++i) {
    if (static_cast<int64_t>(a.q[i]) < static_cast<int64_t>(b.q[i])) k |= Mask8(1u << i);
  }
  return k;
}
// Lane i: b where bit i of k is set, else a.
inline V512 mm512_mask_blend_epi64(Mask8 k, const V512& a, const V512& b) {
  V512 r;
  for (int i = 0; i < 8; ++i) r.q[i] = (k >> i) & 1 ? b.q[i] : a.q[i];
  return r;
}
// Lane i: a - b where bit i of k is set, else src.
inline V512 mm512_mask_sub_epi64(const V512& src, Mask8 k, const V512& a, const V512& b) {
  V512 r;
  for (int i = 0; i < 8; ++i) r.q[i] = (k >> i) & 1 ? a.q[i] - b.q[i] : src.q[i];
  return r;
}

// Lane i: (idx bit 3 ? b : a)[idx bits 0..2].
inline V512 mm512_permutex2var_epi64(const V512& a, const V512& idx, const V512& b) {
  V512 r;
  for (int i = 0; i < 8; ++i) {
    const uint64_t j = idx.q[i];
    r.q[i] = (j & 8) ? b.q[j & 7] : a.q[j & 7];
  }
  return r;
}
// Within each 256-bit half: qword j = the half's qword (imm >> 2 j) & 3.
inline V512 mm512_permutex_epi64(const V512& a, unsigned imm) {
  V512 r;
  for (int h = 0; h < 2; ++h) {
    for (int j = 0; j < 4; ++j) r.q[4 * h + j] = a.q[4 * h + ((imm >> (2 * j)) & 3)];
  }
  return r;
}
// 128-bit blocks: 0 and 1 from a, 2 and 3 from b, block k chosen by bits 2k, 2k+1 of imm.
inline V512 mm512_shuffle_i64x2(const V512& a, const V512& b, unsigned imm) {
  V512 r;
  for (int k = 0; k < 4; ++k) {
    const V512& from = k < 2 ? a : b;
    const unsigned s = (imm >> (2 * k)) & 3;
    r.q[2 * k] = from.q[2 * s];
    r.q[2 * k + 1] = from.q[2 * s + 1];
  }
  return r;
}
// Per 128-bit block: the low (unpacklo) or high (unpackhi) qwords of a and b, interleaved.
inline V512 mm512_unpacklo_epi64(const V512& a, const V512& b) {
  V512 r;
  for (int k = 0; k < 4; ++k) {
    r.q[2 * k] = a.q[2 * k];
    r.q[2 * k + 1] = b.q[2 * k];
  }
  return r;
}
inline V512 mm512_unpackhi_epi64(const V512& a, const V512& b) {
  V512 r;
  for (int k = 0; k < 4; ++k) {
    r.q[2 * k] = a.q[2 * k + 1];
    r.q[2 * k + 1] = b.q[2 * k + 1];
  }
  return r;
}

inline V128 mm512_castsi512_si128(const V512& a) {
  return V128{{a.q[0], a.q[1]}};
}
inline long long mm_cvtsi128_si64(const V128& a) {
  return static_cast<long long>(a.q[0]);
}
inline V256 mm512_castsi512_si256(const V512& a) {
  return V256{{a.q[0], a.q[1], a.q[2], a.q[3]}};
}
// The upper half is undefined for the instruction; zero here.
inline V512 mm512_castsi256_si512(const V256& a) {
  return V512{{a.q[0], a.q[1], a.q[2], a.q[3], 0, 0, 0, 0}};
}
inline V256 mm512_extracti64x4_epi64(const V512& a, unsigned imm) {
  const int h = 4 * (imm & 1);
  return V256{{a.q[h], a.q[h + 1], a.q[h + 2], a.q[h + 3]}};
}
inline V512 mm512_inserti64x4(const V512& a, const V256& b, unsigned imm) {
  V512 r = a;
  const int h = 4 * (imm & 1);
  for (int j = 0; j < 4; ++j) r.q[h + j] = b.q[j];
  return r;
}

}  // namespace zkpipe::crypto::ifma_emu

// With ZKP_IFMA_EMULATED, the intrinsics' names mean the stand-ins for the rest of the file
// (<immintrin.h> first, wherever else it comes from: some are macros in unoptimized builds).
#if defined(ZKP_IFMA_EMULATED)
#include <immintrin.h>
#undef _mm256_loadu_si256
#define _mm256_loadu_si256 ::zkpipe::crypto::ifma_emu::mm256_loadu_si256
#undef _mm256_storeu_si256
#define _mm256_storeu_si256 ::zkpipe::crypto::ifma_emu::mm256_storeu_si256
#undef _mm512_add_epi64
#define _mm512_add_epi64 ::zkpipe::crypto::ifma_emu::mm512_add_epi64
#undef _mm512_and_si512
#define _mm512_and_si512 ::zkpipe::crypto::ifma_emu::mm512_and_si512
#undef _mm512_castsi256_si512
#define _mm512_castsi256_si512 ::zkpipe::crypto::ifma_emu::mm512_castsi256_si512
#undef _mm512_castsi512_si128
#define _mm512_castsi512_si128 ::zkpipe::crypto::ifma_emu::mm512_castsi512_si128
#undef _mm512_castsi512_si256
#define _mm512_castsi512_si256 ::zkpipe::crypto::ifma_emu::mm512_castsi512_si256
#undef _mm512_cmplt_epi64_mask
#define _mm512_cmplt_epi64_mask ::zkpipe::crypto::ifma_emu::mm512_cmplt_epi64_mask
#undef _mm512_extracti64x4_epi64
#define _mm512_extracti64x4_epi64 ::zkpipe::crypto::ifma_emu::mm512_extracti64x4_epi64
#undef _mm512_inserti64x4
#define _mm512_inserti64x4 ::zkpipe::crypto::ifma_emu::mm512_inserti64x4
#undef _mm512_load_si512
#define _mm512_load_si512 ::zkpipe::crypto::ifma_emu::mm512_load_si512
#undef _mm512_loadu_si512
#define _mm512_loadu_si512 ::zkpipe::crypto::ifma_emu::mm512_loadu_si512
#undef _mm512_madd52hi_epu64
#define _mm512_madd52hi_epu64 ::zkpipe::crypto::ifma_emu::mm512_madd52hi_epu64
#undef _mm512_madd52lo_epu64
#define _mm512_madd52lo_epu64 ::zkpipe::crypto::ifma_emu::mm512_madd52lo_epu64
#undef _mm512_mask_blend_epi64
#define _mm512_mask_blend_epi64 ::zkpipe::crypto::ifma_emu::mm512_mask_blend_epi64
#undef _mm512_mask_sub_epi64
#define _mm512_mask_sub_epi64 ::zkpipe::crypto::ifma_emu::mm512_mask_sub_epi64
#undef _mm512_or_si512
#define _mm512_or_si512 ::zkpipe::crypto::ifma_emu::mm512_or_si512
#undef _mm512_permutex2var_epi64
#define _mm512_permutex2var_epi64 ::zkpipe::crypto::ifma_emu::mm512_permutex2var_epi64
#undef _mm512_permutex_epi64
#define _mm512_permutex_epi64 ::zkpipe::crypto::ifma_emu::mm512_permutex_epi64
#undef _mm512_set1_epi64
#define _mm512_set1_epi64 ::zkpipe::crypto::ifma_emu::mm512_set1_epi64
#undef _mm512_setr_epi64
#define _mm512_setr_epi64 ::zkpipe::crypto::ifma_emu::mm512_setr_epi64
#undef _mm512_setzero_si512
#define _mm512_setzero_si512 ::zkpipe::crypto::ifma_emu::mm512_setzero_si512
#undef _mm512_shuffle_i64x2
#define _mm512_shuffle_i64x2 ::zkpipe::crypto::ifma_emu::mm512_shuffle_i64x2
#undef _mm512_slli_epi64
#define _mm512_slli_epi64 ::zkpipe::crypto::ifma_emu::mm512_slli_epi64
#undef _mm512_srai_epi64
#define _mm512_srai_epi64 ::zkpipe::crypto::ifma_emu::mm512_srai_epi64
#undef _mm512_srli_epi64
#define _mm512_srli_epi64 ::zkpipe::crypto::ifma_emu::mm512_srli_epi64
#undef _mm512_store_si512
#define _mm512_store_si512 ::zkpipe::crypto::ifma_emu::mm512_store_si512
#undef _mm512_storeu_si512
#define _mm512_storeu_si512 ::zkpipe::crypto::ifma_emu::mm512_storeu_si512
#undef _mm512_sub_epi64
#define _mm512_sub_epi64 ::zkpipe::crypto::ifma_emu::mm512_sub_epi64
#undef _mm512_unpackhi_epi64
#define _mm512_unpackhi_epi64 ::zkpipe::crypto::ifma_emu::mm512_unpackhi_epi64
#undef _mm512_unpacklo_epi64
#define _mm512_unpacklo_epi64 ::zkpipe::crypto::ifma_emu::mm512_unpacklo_epi64
#undef _mm_cvtsi128_si64
#define _mm_cvtsi128_si64 ::zkpipe::crypto::ifma_emu::mm_cvtsi128_si64
#endif
