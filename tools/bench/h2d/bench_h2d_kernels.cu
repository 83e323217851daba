// tools/bench_h2d_kernels.cu: kernels of `zkpipe-tool bench-h2d`: the zero-copy path (a kernel
// streaming mapped host memory over PCIe into device memory) and the pattern check that keeps
// a broken copy from reporting a bandwidth. Thread-safety: launchers only enqueue work on the
// caller's stream; no global state.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "bench_h2d_kernels.h"

namespace zkpipe::tool {
namespace {

// 256 threads x 8 blocks per SM x 4 loads in flight per thread keeps ~8 MiB of 16-byte reads
// outstanding on an H100/H200 (132 SMs), far above the bandwidth-delay product of a PCIe Gen5
// x16 link (~64 GB/s x ~2 us = 128 KiB), so the link, not the SMs, limits the mapped read.
constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kUnroll = 4;
// Threads filling the host buffer: page faults of a fresh 4 GiB pageable buffer take ~1 s on
// one core; 8 threads make it a fraction of the measurement time without swamping the host.
constexpr unsigned kMaxFillThreads = 8;

__global__ void mapped_copy_kernel(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                   uint64_t n16, const unsigned char* __restrict__ src_tail,
                                   unsigned char* __restrict__ dst_tail, unsigned tail) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // Consecutive threads read consecutive 16-byte words: each warp issues 512 contiguous bytes.
  for (; i + (kUnroll - 1) * stride < n16; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) v[k] = src[i + k * stride];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) dst[i + k * stride] = v[k];
  }
  for (; i < n16; i += stride) dst[i] = src[i];
  if (blockIdx.x == 0 && threadIdx.x < tail) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

__global__ void verify_pattern_kernel(const uint64_t* __restrict__ data, uint64_t words,
                                      unsigned tail, uint64_t seed,
                                      unsigned long long* mismatches) {
  const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0;
  for (uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < words;
       i += stride) {
    uint64_t diff = data[i] ^ bench_pattern_word(i, seed);
    for (; diff != 0; diff >>= 8) bad += (diff & 0xff) != 0;
  }
  if (blockIdx.x == 0 && threadIdx.x < tail) {
    const unsigned char* tail_bytes = reinterpret_cast<const unsigned char*>(data + words);
    uint64_t expect = bench_pattern_word(words, seed) >> (8 * threadIdx.x);
    bad += tail_bytes[threadIdx.x] != static_cast<unsigned char>(expect);
  }
  if (bad != 0) atomicAdd(mismatches, bad);
}

unsigned grid_for(uint64_t items, int sm_count) {
  uint64_t wanted = (items + kThreads - 1) / kThreads;
  uint64_t limit = static_cast<uint64_t>(std::max(sm_count, 1)) * kBlocksPerSm;
  return static_cast<unsigned>(std::max<uint64_t>(1, std::min(wanted, limit)));
}

}  // namespace

void fill_pattern(void* host, uint64_t bytes, uint64_t seed) {
  auto* p = static_cast<unsigned char*>(host);
  const uint64_t words = bytes / 8;
  unsigned threads = std::clamp(std::thread::hardware_concurrency(), 1u, kMaxFillThreads);
  auto fill = [&](uint64_t begin, uint64_t end) {
    for (uint64_t i = begin; i < end; ++i) {
      uint64_t w = bench_pattern_word(i, seed);
      std::memcpy(p + i * 8, &w, 8);
    }
  };
  std::vector<std::thread> workers;
  uint64_t per = (words + threads - 1) / threads;
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back(fill, std::min(words, t * per), std::min(words, (t + 1) * per));
  for (std::thread& w : workers) w.join();
  uint64_t last = bench_pattern_word(words, seed);
  std::memcpy(p + words * 8, &last, bytes % 8);
}

cudaError_t launch_mapped_copy(const void* mapped_src, void* dst, uint64_t bytes, int sm_count,
                               cudaStream_t stream) {
  const uint64_t n16 = bytes / 16;
  const unsigned tail = static_cast<unsigned>(bytes % 16);
  const auto* src_bytes = static_cast<const unsigned char*>(mapped_src);
  auto* dst_bytes = static_cast<unsigned char*>(dst);
  mapped_copy_kernel<<<grid_for(n16, sm_count), kThreads, 0, stream>>>(
      static_cast<const uint4*>(mapped_src), static_cast<uint4*>(dst), n16, src_bytes + n16 * 16,
      dst_bytes + n16 * 16, tail);
  return cudaGetLastError();
}

cudaError_t launch_verify_pattern(const void* data, uint64_t bytes, uint64_t seed,
                                  unsigned long long* mismatches, int sm_count,
                                  cudaStream_t stream) {
  cudaError_t err = cudaMemsetAsync(mismatches, 0, sizeof(unsigned long long), stream);
  if (err != cudaSuccess) return err;
  const uint64_t words = bytes / 8;
  verify_pattern_kernel<<<grid_for(words, sm_count), kThreads, 0, stream>>>(
      static_cast<const uint64_t*>(data), words, static_cast<unsigned>(bytes % 8), seed,
      mismatches);
  return cudaGetLastError();
}

}  // namespace zkpipe::tool
