// The twiddle cache and the scalar NTT drivers (ntt_kernels.h): radix-4 stage pairs (one
// radix-2 stage when the count is odd), the top stages as parallel sweeps over the whole array
// and the rest inside chunks of 2^kChunkLog elements, one chunk per task. Block 0 of every
// stage has twiddle 1 and skips its multiplications. Thread-safety: the cache is guarded by a
// mutex taken once per transform; a driver touches only its own array.
#include <algorithm>
#include <bit>
#include <mutex>

#include "ntt_kernels.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::crypto {
namespace {

// 2^12 elements = 128 KiB: a chunk and its twiddles stay in L2 (2 MiB per core on the Xeon
// these were tuned on; 12 and 13 measured equal, 14 slower on 2^20).
constexpr unsigned kChunkLog = 12;
// Radix-4 butterflies per task in a whole-array sweep.
constexpr size_t kSweepGrain = size_t{1} << 11;

// ---- Cooley-Tukey: (a, b) -> (a + s b, a - s b) ----------------------------------------------
template <bool kOne>
void ct2(Fr* x, size_t m, const Fr& s, size_t j0, size_t j1) {
  for (size_t j = j0; j < j1; ++j) {
    const Fr u = x[j];
    const Fr v = kOne ? x[j + m] : x[j + m] * s;
    x[j] = u + v;
    x[j + m] = u - v;
  }
}

// Stages t and t + 1 on one block of 4m: s = T[b] on (j, j + 2m) and (j + m, j + 3m), then
// s1 = T[2b] on (j, j + m) and s2 = T[2b + 1] on (j + 2m, j + 3m). kOne: b == 0 (s = s1 = 1).
template <bool kOne>
void ct4(Fr* x, size_t m, const Fr& s, const Fr& s1, const Fr& s2, size_t j0, size_t j1) {
  for (size_t j = j0; j < j1; ++j) {
    Fr* p = x + j;
    const Fr x0 = p[0], x1 = p[m];
    const Fr x2 = kOne ? p[2 * m] : p[2 * m] * s;
    const Fr x3 = kOne ? p[3 * m] : p[3 * m] * s;
    const Fr y0 = x0 + x2, y2 = x0 - x2;
    const Fr y1 = kOne ? x1 + x3 : (x1 + x3) * s1;
    const Fr y3 = (x1 - x3) * s2;
    p[0] = y0 + y1;
    p[m] = y0 - y1;
    p[2 * m] = y2 + y3;
    p[3 * m] = y2 - y3;
  }
}

// ---- Gentleman-Sande: (a, b) -> (a + b, (a - b) s) -------------------------------------------
template <bool kOne>
void gs2(Fr* x, size_t m, const Fr& s, size_t j0, size_t j1) {
  for (size_t j = j0; j < j1; ++j) {
    const Fr u = x[j], v = x[j + m];
    x[j] = u + v;
    x[j + m] = kOne ? u - v : (u - v) * s;
  }
}

// The inverse order of ct4: stage t + 1 (s1, s2) then stage t (s).
template <bool kOne>
void gs4(Fr* x, size_t m, const Fr& s, const Fr& s1, const Fr& s2, size_t j0, size_t j1) {
  for (size_t j = j0; j < j1; ++j) {
    Fr* p = x + j;
    const Fr x0 = p[0], x1 = p[m], x2 = p[2 * m], x3 = p[3 * m];
    const Fr y0 = x0 + x1;
    const Fr y1 = kOne ? x0 - x1 : (x0 - x1) * s1;
    const Fr y2 = x2 + x3;
    const Fr y3 = (x2 - x3) * s2;
    p[0] = y0 + y2;
    p[m] = y1 + y3;
    p[2 * m] = kOne ? y0 - y2 : (y0 - y2) * s;
    p[3 * m] = kOne ? y1 - y3 : (y1 - y3) * s;
  }
}

template <bool kGs>
void block2(Fr* x, size_t m, size_t b, const NttTwiddles& tw, size_t j0, size_t j1) {
  const bool one = b == 0;
  const Fr s = one ? Fr::one() : tw.get(b);
  if constexpr (kGs) {
    one ? gs2<true>(x, m, s, j0, j1) : gs2<false>(x, m, s, j0, j1);
  } else {
    one ? ct2<true>(x, m, s, j0, j1) : ct2<false>(x, m, s, j0, j1);
  }
}

template <bool kGs>
void block4(Fr* x, size_t m, size_t b, const NttTwiddles& tw, size_t j0, size_t j1) {
  const bool one = b == 0;
  const Fr s = one ? Fr::one() : tw.get(b), s1 = one ? s : tw.get(2 * b);
  const Fr s2 = tw.get(2 * b + 1);
  if constexpr (kGs) {
    one ? gs4<true>(x, m, s, s1, s2, j0, j1) : gs4<false>(x, m, s, s1, s2, j0, j1);
  } else {
    one ? ct4<true>(x, m, s, s1, s2, j0, j1) : ct4<false>(x, m, s, s1, s2, j0, j1);
  }
}

// One whole-array sweep: stage t (radix 2) or stages t, t + 1 (radix 4).
template <bool kGs>
void sweep(Fr* a, size_t n, unsigned t, unsigned radix_log, const NttTwiddles& tw,
           unsigned threads) {
  const size_t blocks = size_t{1} << t;
  const size_t m = n >> (t + radix_log);  // butterfly span
  parallel_for_ranges(blocks * m, kSweepGrain, threads, [&](size_t begin, size_t end) {
    for (size_t q = begin; q < end;) {
      const size_t b = q / m, j0 = q % m, j1 = std::min(m, j0 + (end - q));
      Fr* x = a + (b * m << radix_log);
      radix_log == 2 ? block4<kGs>(x, m, b, tw, j0, j1) : block2<kGs>(x, m, b, tw, j0, j1);
      q += j1 - j0;
    }
  });
}

// All stages below the sweeps inside chunk c (2^l elements, global block c of its stage).
template <bool kGs>
void chunk(Fr* x, unsigned l, size_t c, const NttTwiddles& tw) {
  auto pair = [&](unsigned u) {
    const size_t m = size_t{1} << (l - u - 2);
    for (size_t b = 0; b < (size_t{1} << u); ++b) {
      block4<kGs>(x + (b * m << 2), m, (c << u) + b, tw, 0, m);
    }
  };
  auto single = [&](unsigned u) {
    for (size_t b = 0; b < (size_t{1} << u); ++b) block2<kGs>(x + 2 * b, 1, (c << u) + b, tw, 0, 1);
  };
  if (!kGs) {
    unsigned u = 0;
    for (; u + 1 < l; u += 2) pair(u);
    if (u < l) single(u);
  } else {
    unsigned u = l;
    if (l % 2 == 1) single(--u);
    while (u >= 2) pair(u -= 2);
  }
}

template <bool kGs>
void run(Fr* a, size_t n, const NttTwiddles& tw, unsigned threads) {
  if (n < 2) return;
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  const unsigned l = std::min(k, kChunkLog);
  const unsigned top = k - l;
  auto chunks = [&] {
    parallel_for(n >> l, threads, [&](size_t c) { chunk<kGs>(a + (c << l), l, c, tw); });
  };
  ntt_run_stages<kGs>(
      top, [&](unsigned t, unsigned stages) { sweep<kGs>(a, n, t, stages, tw, threads); }, chunks);
}

// Fills t[level .. 2 level) = w_(2^(j+2)) t[0 .. level) for level = 2^j from `from` on.
void grow_table(std::vector<Fr>& t, size_t from, size_t size, bool inverse, unsigned threads) {
  t.resize(size);
  if (from == 0) {
    t[0] = Fr::one();
    from = 1;
  }
  for (size_t level = from; level < size; level *= 2) {
    Fr w = ntt_root_of_unity(static_cast<unsigned>(std::countr_zero(level)) + 2);
    if (inverse) w = w.inverse();
    parallel_for_ranges(level, size_t{1} << 14, threads, [&](size_t b, size_t e) {
      for (size_t k = b; k < e; ++k) t[level + k] = w * t[k];
    });
  }
}

}  // namespace

void ntt_ifma_form(const std::vector<Fr>& t, std::vector<Fr>& out, size_t from, unsigned threads) {
  out.resize(t.size());
  parallel_for_ranges(t.size() - from, size_t{1} << 14, threads, [&](size_t b, size_t e) {
    for (size_t k = from + b; k < from + e; ++k) out[k] = t[k].dbl().dbl().dbl().dbl();
  });
}

std::shared_ptr<const NttTables> ntt_tables(size_t entries, unsigned threads) {
  static std::mutex mutex;
  static std::shared_ptr<const NttTables> cached;
  entries = std::clamp<size_t>(entries, 1, size_t{1} << kNttTableLog);
  std::lock_guard<std::mutex> lock(mutex);
  if (cached && cached->forward.size() >= entries) return cached;
  auto grown = cached ? std::make_shared<NttTables>(*cached) : std::make_shared<NttTables>();
  const size_t have = grown->forward.size();
  grow_table(grown->forward, have, entries, false, threads);
  grow_table(grown->inverse, have, entries, true, threads);
  if (ntt_ifma_available()) {
    ntt_ifma_form(grown->forward, grown->forward16, have, threads);
    ntt_ifma_form(grown->inverse, grown->inverse16, have, threads);
  }
  cached = grown;
  return cached;
}

NttMemory ntt_memory(size_t n) {
  NttMemory m;
  if (n < 2) return m;
  const size_t entries = std::clamp<size_t>(n / 2, 1, size_t{1} << kNttTableLog);
  // The vectors, plus their holder and its shared_ptr control block.
  m.tables = uint64_t{entries} * sizeof(Fr) * (ntt_ifma_available() ? 4 : 2) + 1024;
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  const uint64_t high = k >= 2 && k - 1 > kNttTableLog ? uint64_t{1} << (k - 1 - kNttTableLog) : 0;
  // Growing copies the old tables (at most as large); ntt_scale_powers' row of 2^12 powers;
  // the twiddles above the table (and their IFMA form).
  m.scratch = m.tables + (uint64_t{1} << 12) * sizeof(Fr) + 2 * high * sizeof(Fr) + 4096;
  return m;
}

NttTwiddles ntt_twiddles(const NttTables& tables, size_t n, NttDirection direction) {
  const bool inv = direction == NttDirection::kInverse;
  NttTwiddles tw;
  tw.table = inv ? tables.inverse.data() : tables.forward.data();
  const auto& t16 = inv ? tables.inverse16 : tables.forward16;
  tw.table16 = t16.empty() ? nullptr : t16.data();
  const unsigned k = static_cast<unsigned>(std::countr_zero(n));
  if (k >= 2 && k - 1 > kNttTableLog) {  // block indices need k - 1 bits
    const unsigned hi_bits = k - 1 - kNttTableLog;
    Fr w = ntt_root_of_unity(k);
    if (inv) w = w.inverse();
    tw.high.resize(size_t{1} << hi_bits);
    for (size_t h = 0; h < tw.high.size(); ++h)
      tw.high[h] = w.pow_u64(bit_reverse_bits(h, hi_bits));
    if (tw.table16 != nullptr) ntt_ifma_form(tw.high, tw.high16, 0, 1);
  }
  return tw;
}

void ntt_scalar_run(Fr* data, size_t n, const NttTwiddles& tw, bool gs, unsigned threads) {
  gs ? run<true>(data, n, tw, threads) : run<false>(data, n, tw, threads);
}

void ntt_kernel_run(Fr* data, size_t n, NttDirection direction, bool gs, NttKernel kernel,
                    unsigned threads) {
  threads = resolve_threads(threads);
  const auto tables = ntt_tables(n / 2, threads);
  const NttTwiddles tw = ntt_twiddles(*tables, n, direction);
  if (kernel == NttKernel::kAuto && tw.table16 != nullptr && n >= kNttIfmaMinSize) {
    ntt_ifma_run(data, n, tw, gs, threads);
  } else {
    ntt_scalar_run(data, n, tw, gs, threads);
  }
}

}  // namespace zkpipe::crypto
