// tools/bench/h2d/bench_h2d_kernels.h: the device side of zkpipe-bench-h2d: a copy kernel that
// reads mapped (zero-copy) host memory with coalesced 16-byte loads, a kernel that checks a
// buffer against the test pattern, the pattern itself and the host fill that writes it.
// Only for builds with CUDA. Thread-safety: the launchers enqueue on the given stream only;
// fill_pattern writes only the caller's buffer.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#if defined(__CUDACC__)
#define ZKP_BENCH_HD __host__ __device__
#else
#define ZKP_BENCH_HD
#endif

namespace zkpipe::tool {

// 8-byte word `index` of a buffer filled with `seed` (splitmix64 of index ^ seed): every word
// differs, so a copy that drops, repeats or shifts a chunk is caught. Bytes past the last
// whole word take the low bytes of the next word (little-endian, as on host and GPU).
ZKP_BENCH_HD inline uint64_t bench_pattern_word(uint64_t index, uint64_t seed) {
  uint64_t z = (index ^ seed) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Writes the pattern of `seed` over `bytes` of host memory, touching every page (a few threads).
void fill_pattern(void* host, uint64_t bytes, uint64_t seed);

// Copies `bytes` from `mapped_src` (the device pointer of mapped host memory) to `dst` (device
// memory). Both must be 16-byte aligned. Returns the launch error, if any.
cudaError_t launch_mapped_copy(const void* mapped_src, void* dst, uint64_t bytes, int sm_count,
                               cudaStream_t stream);

// Counts the bytes of `data` (device memory) that differ from the pattern of `seed` into
// *mismatches (device memory; zeroed here first). Returns the launch error, if any.
cudaError_t launch_verify_pattern(const void* data, uint64_t bytes, uint64_t seed,
                                  unsigned long long* mismatches, int sm_count,
                                  cudaStream_t stream);

}  // namespace zkpipe::tool
