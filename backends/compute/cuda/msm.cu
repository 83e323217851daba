// The GPU G1 MSM (msm.h): scratch management, the kernels (thin loops over msm_digits.h, which
// msm_emulate.cpp runs on the host in the same order) and the driver. Thread-safety: see msm.h.
#include <cuda_runtime.h>

#include <cub/cub.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "msm.h"
#include "msm_digits.h"
#include "zkpipe/cuda_check.h"

namespace zkpipe::cuda_backend {

using crypto::Fr;
using crypto::G1;
using crypto::G1Affine;

static_assert(sizeof(G1) == 144 && sizeof(G1Affine) == 104 && sizeof(Fr) == 32,
              "msm_plan.cpp sizes buckets at 144 bytes per Jacobian point");

namespace {

// Threads per block. Untuned (no GPU on the development machine): the point kernels keep a
// Jacobian accumulator and field temporaries in registers, so their blocks are kept small.
constexpr unsigned kIndexBlock = 256;  // digits, bounds
constexpr unsigned kPointBlock = 128;  // accumulation, reduction, folds

unsigned grid(uint64_t threads, unsigned block) {
  return static_cast<unsigned>((threads + block - 1) / block);
}

__device__ __forceinline__ uint64_t thread_index() {
  return blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
}

__global__ void digits_kernel(const Fr* scalars, size_t count, unsigned c, unsigned windows,
                              uint32_t* keys, uint32_t* values) {
  const uint64_t i = thread_index();
  if (i >= count) return;
  write_digit_entries(scalars[i], static_cast<uint32_t>(i), count, c, windows, keys, values);
}

__global__ void bounds_kernel(const uint32_t* keys, size_t entries, uint32_t skip, uint32_t* begin,
                              uint32_t* end) {
  const uint64_t i = thread_index();
  if (i >= entries) return;
  mark_run_bounds(keys, entries, i, skip, begin, end);
}

// One thread per bucket; add_to: later passes add to the buckets of the earlier ones.
__global__ void accumulate_kernel(const G1Affine* bases, const uint32_t* values,
                                  const uint32_t* begin, const uint32_t* end, uint64_t buckets,
                                  bool add_to, G1* out) {
  const uint64_t b = thread_index();
  if (b >= buckets) return;
  const G1 start = add_to ? out[b] : G1::identity();
  out[b] = accumulate_bucket(start, bases, values, begin[b], end[b]);
}

// One thread per (window, segment).
__global__ void reduce_kernel(const G1* buckets, uint32_t window_buckets, uint32_t segments,
                              uint32_t segment_len, unsigned windows, G1* partials) {
  const uint64_t t = thread_index();
  if (t >= uint64_t{windows} * segments) return;
  const uint64_t w = t / segments, s = t % segments;
  partials[t] = reduce_segment(buckets + w * window_buckets, static_cast<uint32_t>(s * segment_len),
                               segment_len);
}

// One thread per (window, i < half).
__global__ void fold_kernel(G1* partials, uint32_t segments, uint32_t half, unsigned windows) {
  const uint64_t t = thread_index();
  if (t >= uint64_t{windows} * half) return;
  fold_partials(partials + (t / half) * segments, half, static_cast<uint32_t>(t % half));
}

}  // namespace

uint64_t MsmScratch::bytes() const {
  return keys_.bytes() + values_.bytes() + sort_temp_.bytes() + bounds_.bytes() + buckets_.bytes() +
         partials_.bytes();
}

uint32_t* MsmScratch::keys(int half) const {
  return keys_.as<uint32_t>() + (half ? keys_.bytes() / 8 : 0);
}
uint32_t* MsmScratch::values(int half) const {
  return values_.as<uint32_t>() + (half ? values_.bytes() / 8 : 0);
}

Status MsmScratch::reserve(const MsmScratchBytes& need) {
  const std::string dev = "msm_g1";
  // keys and values hold two halves each: keep the halves 256-byte aligned.
  ZKP_RETURN_IF_ERROR(ensure_capacity(keys_, (need.keys + 511) / 512 * 512, "sort keys", dev));
  ZKP_RETURN_IF_ERROR(
      ensure_capacity(values_, (need.values + 511) / 512 * 512, "sort values", dev));
  ZKP_RETURN_IF_ERROR(
      ensure_capacity(sort_temp_, need.sort_temp, "the radix sort's temporary storage", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(bounds_, need.bounds, "bucket bounds", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(buckets_, need.buckets, "buckets", dev));
  return ensure_capacity(partials_, need.partials, "window partial sums", dev);
}

void MsmScratch::release() {
  for (DeviceMemory* b : {&keys_, &values_, &sort_temp_, &bounds_, &buckets_, &partials_}) {
    *b = DeviceMemory();
  }
}

Result<G1> msm_g1(const G1Affine* bases, const Fr* scalars, size_t n, MsmScratch& scratch,
                  cudaStream_t stream, const MsmGpuPlan* plan) {
  if (n == 0) return G1::identity();
  MsmGpuPlan own;
  if (plan == nullptr) {
    size_t free_bytes = 0, total_bytes = 0;
    ZKP_CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    own = plan_msm_g1(n, free_bytes + scratch.bytes());
    if (!own.fits) {
      return resource_exhausted(
          "msm_g1: " + std::to_string(n) + " points need " + std::to_string(own.scratch.total()) +
          " bytes of device scratch even in passes of " + std::to_string(own.chunk) + " points; " +
          std::to_string(free_bytes) + " bytes are free");
    }
    plan = &own;
  } else if (plan->n != n || plan->passes == 0 || plan->chunk == 0) {
    return invalid_argument("msm_g1: the plan is for " + std::to_string(plan->n) +
                            " points, the call has " + std::to_string(n));
  }
  const MsmGpuPlan& p = *plan;
  const uint64_t max_entries = uint64_t{p.chunk} * p.windows;
  if (max_entries > kMsmMaxEntries) {
    return invalid_argument("msm_g1: passes of " + std::to_string(p.chunk) + " points x " +
                            std::to_string(p.windows) + " windows exceed 2^31 - 1 sort entries");
  }

  // CUB's temporary storage for the largest pass (a query: nothing runs).
  MsmScratchBytes need = p.scratch;
  {
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    size_t temp = 0;
    ZKP_CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, temp, k, v, static_cast<int>(max_entries),
                                                0, static_cast<int>(p.key_bits), stream));
    need.sort_temp = temp;
  }
  ZKP_RETURN_IF_ERROR(scratch.reserve(need));

  const uint32_t skip = static_cast<uint32_t>(p.buckets);
  uint32_t* begin = scratch.bounds();
  uint32_t* end = begin + p.buckets;
  for (size_t pass = 0; pass < p.passes; ++pass) {
    const size_t first = pass * p.chunk;
    const size_t count = std::min(p.chunk, n - first);
    const uint64_t entries = uint64_t{count} * p.windows;
    digits_kernel<<<grid(count, kIndexBlock), kIndexBlock, 0, stream>>>(
        scalars + first, count, p.window_bits, p.windows, scratch.keys(0), scratch.values(0));
    ZKP_CUDA_OK(cudaGetLastError());
    cub::DoubleBuffer<uint32_t> keys(scratch.keys(0), scratch.keys(1));
    cub::DoubleBuffer<uint32_t> values(scratch.values(0), scratch.values(1));
    size_t temp = scratch.sort_temp_bytes();
    ZKP_CUDA_OK(cub::DeviceRadixSort::SortPairs(scratch.sort_temp(), temp, keys, values,
                                                static_cast<int>(entries), 0,
                                                static_cast<int>(p.key_bits), stream));
    ZKP_CUDA_OK(cudaMemsetAsync(begin, 0, 2 * p.buckets * sizeof(uint32_t), stream));
    bounds_kernel<<<grid(entries, kIndexBlock), kIndexBlock, 0, stream>>>(keys.Current(), entries,
                                                                          skip, begin, end);
    ZKP_CUDA_OK(cudaGetLastError());
    accumulate_kernel<<<grid(p.buckets, kPointBlock), kPointBlock, 0, stream>>>(
        bases + first, values.Current(), begin, end, p.buckets, pass > 0, scratch.buckets());
    ZKP_CUDA_OK(cudaGetLastError());
  }

  const uint64_t segment_threads = uint64_t{p.windows} * p.segments;
  reduce_kernel<<<grid(segment_threads, kPointBlock), kPointBlock, 0, stream>>>(
      scratch.buckets(), p.window_buckets, p.segments, p.segment_len, p.windows,
      scratch.partials());
  ZKP_CUDA_OK(cudaGetLastError());
  for (uint32_t half = p.segments / 2; half >= 1; half /= 2) {
    const uint64_t threads = uint64_t{p.windows} * half;
    fold_kernel<<<grid(threads, kPointBlock), kPointBlock, 0, stream>>>(
        scratch.partials(), p.segments, half, p.windows);
    ZKP_CUDA_OK(cudaGetLastError());
  }
  // Partial 0 of each window is its sum: a strided copy of one point per window.
  std::vector<G1> sums(p.windows);
  ZKP_CUDA_OK(cudaMemcpy2DAsync(sums.data(), sizeof(G1), scratch.partials(),
                                p.segments * sizeof(G1), sizeof(G1), p.windows,
                                cudaMemcpyDeviceToHost, stream));
  ZKP_CUDA_OK(cudaStreamSynchronize(stream));
  return combine_windows(sums.data(), p.windows, p.window_bits);
}

}  // namespace zkpipe::cuda_backend
