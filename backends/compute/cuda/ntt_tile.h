// backends/compute/cuda/ntt_tile.h: the per-thread code of the GPU NTT kernels, as ZKP_HD
// functions that ntt.cu's kernels and ntt_emulate.cpp's host emulation both call: which global
// indices a tile holds, the radix-2 butterfly of one stage inside a tile, the two-level twiddle
// lookup, and the per-thread loops of scale_powers, bit_reverse and the quotient pointwise step.
// The kernels are thin loops over these (a __syncthreads between tile stages).
// Thread-safety: pure functions over caller-owned memory.
#pragma once

#include <cstdint>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/crypto/hd.h"

namespace zkpipe::cuda_backend {

using crypto::Fr;

// The low `bits` bits of v reversed (bits <= 32 here; 0 gives 0).
ZKP_HD uint64_t ntt_brv(uint64_t v, unsigned bits) {
  if (bits == 0) return 0;
#if defined(__CUDA_ARCH__)
  return __brevll(v) >> (64 - bits);
#else
  v = ((v >> 1) & 0x5555555555555555ull) | ((v & 0x5555555555555555ull) << 1);
  v = ((v >> 2) & 0x3333333333333333ull) | ((v & 0x3333333333333333ull) << 2);
  v = ((v >> 4) & 0x0f0f0f0f0f0f0f0full) | ((v & 0x0f0f0f0f0f0f0f0full) << 4);
  return __builtin_bswap64(v) >> (64 - bits);
#endif
}

// floor(log2(v)) for v >= 1.
ZKP_HD unsigned ntt_floor_log2(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return 63 - static_cast<unsigned>(__clzll(static_cast<long long>(v)));
#else
  return 63 - static_cast<unsigned>(__builtin_clzll(v));
#endif
}

// ---- twiddles --------------------------------------------------------------------------------
// Two-level table of powers of w = omega_M^(+-1), M = 2^max_log: for 0 <= i < M/2,
// w^i = hi[i >> lo_log] * lo[i & (2^lo_log - 1)], lo[j] = w^j, hi[h] = w^(h 2^lo_log).
// lo_log = ceil((max_log - 1) / 2): at max_log 32, 2^16 + 2^15 entries (3 MiB per direction)
// instead of 2^31 (64 GiB). A transform of size n = 2^log_n <= M uses w_n = w^(M/n).
struct NttTwiddleView {
  const Fr* lo = nullptr;
  const Fr* hi = nullptr;
  unsigned lo_log = 0;
  unsigned max_log = 0;
};

// w^i for 0 <= i < M/2: one table read when i falls in one level, else one product.
ZKP_HD Fr ntt_twiddle(const NttTwiddleView& t, uint64_t i) {
  const uint64_t mask = (uint64_t{1} << t.lo_log) - 1;
  const uint64_t h = i >> t.lo_log;
  const uint64_t l = i & mask;
  if (h == 0) return t.lo[l];
  if (l == 0) return t.hi[h];
  return t.hi[h] * t.lo[l];
}

// ---- tiled radix-2 passes --------------------------------------------------------------------
// A pass runs the stages of bits [lo_bit, lo_bit + tile_log) of the index. A tile is the 2^tile_log
// elements whose indices differ only in those bits: tile number q = (top << lo_bit) | bottom
// holds global index (top << (lo_bit + tile_log)) | (e << lo_bit) | bottom for element e. A
// block holds 2^block_tiles_log consecutive tiles in shared memory (tile-major), with one
// thread per butterfly: thread t serves tile t >> (tile_log - 1), butterfly lane t & (half - 1).
// dif (natural in, bit-reversed out, Gentleman-Sande): stages from the top bit down,
// (a, b) -> (a + b, (a - b) w). Otherwise (bit-reversed in, natural out, Cooley-Tukey): stages
// from the bottom bit up, (a, b) -> (a + w b, a - w b). The butterfly on bit m pairs indices
// x and x + 2^m (bit m of x clear) with w = w_(2^(m+1))^(x mod 2^m) = w^((x mod 2^m) M/2^(m+1)).
// Shared memory: the block's tiles (2^tile_log Fr each, tile-major), then as many twiddle rows of
// the same size. A tile's stage on tile bit r needs 2^r twiddles, one per e_low = e mod 2^r (with
// x mod 2^m = (e_low << lo_bit) | bottom): they sit in slots [2^r - 1, 2^(r+1) - 1) of the tile's
// row, filled once per pass (ntt_tile_twiddles: at most one product per slot, about one per
// element) instead of a table lookup and a product per butterfly and stage.
struct NttPassParams {
  unsigned log_n = 0;            // n = 2^log_n per vector
  unsigned lo_bit = 0;           // first index bit of the pass
  unsigned tile_log = 0;         // stages (= index bits) of the pass, >= 1
  unsigned block_tiles_log = 0;  // tiles per block = 2^block_tiles_log
  bool dif = true;
  NttTwiddleView tw;
};

// Threads per block: one per butterfly of every tile the block holds.
ZKP_HD uint32_t ntt_pass_threads(const NttPassParams& p) {
  return uint32_t{1} << (p.tile_log - 1 + p.block_tiles_log);
}

// Global index (within one vector) of element e of tile q.
ZKP_HD uint64_t ntt_tile_index(const NttPassParams& p, uint64_t q, uint64_t e) {
  const uint64_t bottom = q & ((uint64_t{1} << p.lo_bit) - 1);
  const uint64_t top = q >> p.lo_bit;
  return (top << (p.lo_bit + p.tile_log)) | (e << p.lo_bit) | bottom;
}

// The twiddle row of tile `lt` of the block (after the block's 2^block_tiles_log data tiles).
ZKP_HD Fr* ntt_twiddle_row(const NttPassParams& p, Fr* shared, uint32_t lt) {
  return shared +
         ((uint64_t{1} << (p.tile_log + p.block_tiles_log)) | (uint64_t{lt} << p.tile_log));
}

// Thread `thread` fills slots lane and lane + half (the last slot, 2^tile_log - 1, is unused) of
// its tile's twiddle row: slot s serves tile bit r = floor(log2(s + 1)), e_low = s + 1 - 2^r.
ZKP_HD void ntt_tile_twiddles(const NttPassParams& p, uint64_t block, uint32_t thread, Fr* shared) {
  const uint32_t half_log = p.tile_log - 1;
  const uint32_t lt = thread >> half_log;
  const uint64_t lane = thread & ((uint32_t{1} << half_log) - 1);
  const uint64_t q = (block << p.block_tiles_log) | lt;
  const uint64_t bottom = q & ((uint64_t{1} << p.lo_bit) - 1);
  Fr* row = ntt_twiddle_row(p, shared, lt);
  for (uint64_t s = lane; s + 1 < (uint64_t{1} << p.tile_log); s += uint64_t{1} << half_log) {
    const unsigned r = ntt_floor_log2(s + 1);
    const uint64_t e_low = s + 1 - (uint64_t{1} << r);
    const unsigned m = p.lo_bit + r;
    const uint64_t j = (e_low << p.lo_bit) | bottom;
    row[s] = ntt_twiddle(p.tw, j << (p.tw.max_log - 1 - m));
  }
}

// Loads (src) or stores (dst) the two elements thread `thread` of block `block` owns for the
// copy: elements lane and lane + half of its tile. Warps read consecutive addresses in the pass
// at bit 0; later passes read with stride 2^lo_bit, one 32-byte sector per Fr.
ZKP_HD void ntt_tile_load(const NttPassParams& p, uint64_t block, uint32_t thread, const Fr* src,
                          Fr* shared) {
  const uint32_t half_log = p.tile_log - 1;
  const uint32_t lt = thread >> half_log;
  const uint64_t lane = thread & ((uint32_t{1} << half_log) - 1);
  const uint64_t q = (block << p.block_tiles_log) | lt;
  Fr* tile = shared + (uint64_t{lt} << p.tile_log);
  tile[lane] = src[ntt_tile_index(p, q, lane)];
  tile[lane + (uint64_t{1} << half_log)] =
      src[ntt_tile_index(p, q, lane + (uint64_t{1} << half_log))];
}

ZKP_HD void ntt_tile_store(const NttPassParams& p, uint64_t block, uint32_t thread,
                           const Fr* shared, Fr* dst) {
  const uint32_t half_log = p.tile_log - 1;
  const uint32_t lt = thread >> half_log;
  const uint64_t lane = thread & ((uint32_t{1} << half_log) - 1);
  const uint64_t q = (block << p.block_tiles_log) | lt;
  const Fr* tile = shared + (uint64_t{lt} << p.tile_log);
  dst[ntt_tile_index(p, q, lane)] = tile[lane];
  dst[ntt_tile_index(p, q, lane + (uint64_t{1} << half_log))] =
      tile[lane + (uint64_t{1} << half_log)];
}

// Stage `stage` (0 .. tile_log - 1, in execution order) of the pass, thread `thread`'s butterfly.
ZKP_HD void ntt_tile_butterfly(const NttPassParams& p, uint32_t thread, unsigned stage,
                               Fr* shared) {
  const uint32_t half_log = p.tile_log - 1;
  const uint32_t lt = thread >> half_log;
  const uint64_t lane = thread & ((uint32_t{1} << half_log) - 1);
  const unsigned r = p.dif ? p.tile_log - 1 - stage : stage;  // bit inside the tile
  // Insert a 0 at bit r of the lane: the pair's first element.
  const uint64_t low_mask = (uint64_t{1} << r) - 1;
  const uint64_t e0 = ((lane >> r) << (r + 1)) | (lane & low_mask);
  const uint64_t e1 = e0 | (uint64_t{1} << r);
  const Fr w = ntt_twiddle_row(p, shared, lt)[(uint64_t{1} << r) - 1 + (lane & low_mask)];
  Fr* tile = shared + (uint64_t{lt} << p.tile_log);
  const Fr a = tile[e0];
  const Fr b = tile[e1];
  if (p.dif) {
    tile[e0] = a + b;
    tile[e1] = (a - b) * w;
  } else {
    const Fr wb = b * w;
    tile[e0] = a + wb;
    tile[e1] = a - wb;
  }
}

// ---- scale by powers -------------------------------------------------------------------------
// data[i] *= c * g^e(i), e(i) = i or brv(i). A block covers 2^(threads_log + run_log)
// consecutive indices; thread t handles i = start | (k' << threads_log) | t for the run
// k = 0 .. 2^run_log - 1, with k' = k (natural) or brv_run_log(k) (bit-reversed), so every warp
// touches consecutive addresses and e(i) grows by a fixed step along the run:
// natural e = start + t + k 2^threads_log; bit-reversed e = brv(start | t) + k 2^(log_n -
// threads_log - run_log). One power g^e0 per thread from the table g^(2^b), then one product per
// element.
struct ScaleParams {
  unsigned log_n = 0;
  unsigned threads_log = 0;
  unsigned run_log = 0;
  bool bit_reversed = false;
  Fr c;
  Fr step;        // g^(2^threads_log) (natural) or g^(2^(log_n - threads_log - run_log))
  Fr g_pow2[32];  // g^(2^b)
};

ZKP_HD void scale_thread(const ScaleParams& p, uint64_t block, uint32_t thread, Fr* data) {
  const uint64_t start = (block << (p.threads_log + p.run_log)) | thread;
  uint64_t e0 = p.bit_reversed ? ntt_brv(start, p.log_n) : start;
  Fr s = p.c;
  for (unsigned b = 0; e0 != 0; ++b, e0 >>= 1) {
    if (e0 & 1) s = s * p.g_pow2[b];
  }
  const uint64_t runs = uint64_t{1} << p.run_log;
  for (uint64_t k = 0; k < runs; ++k) {
    const uint64_t kk = p.bit_reversed ? ntt_brv(k, p.run_log) : k;
    Fr& v = data[start | (kk << p.threads_log)];
    v = v * s;
    s = s * p.step;
  }
}

// ---- elementwise -----------------------------------------------------------------------------
// Swaps data[i] and data[brv(i)] once (the thread with i < brv(i)); pairs are disjoint.
ZKP_HD void bit_reverse_thread(Fr* data, unsigned log_n, uint64_t i) {
  const uint64_t j = ntt_brv(i, log_n);
  if (i < j) {
    const Fr t = data[i];
    data[i] = data[j];
    data[j] = t;
  }
}

// a[i] = (a[i] b[i] - c[i]) z_inv.
ZKP_HD void quotient_pointwise_thread(Fr* a, const Fr* b, const Fr* c, const Fr& z_inv,
                                      uint64_t i) {
  a[i] = (a[i] * b[i] - c[i]) * z_inv;
}

}  // namespace zkpipe::cuda_backend
