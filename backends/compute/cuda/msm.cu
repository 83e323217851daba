// The GPU G1 MSM (msm.h): scratch management, the kernels (thin loops over msm_digits.h, which
// msm_emulate.cpp runs on the host in the same order) and the driver. Thread-safety: see msm.h.
#include <cuda_runtime.h>

#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/discard_iterator.h>
#include <cub/cub.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "msm.h"
#include "msm_digits.h"
#include "zkpipe/sdk/cuda_check.h"

namespace zkpipe::cuda_backend {

using crypto::Fr;
using crypto::G1;
using crypto::G1Affine;

static_assert(sizeof(G1Xyzz) == kMsmBucketBytes && sizeof(G1Affine) == 104 && sizeof(Fr) == 32,
              "msm_plan.cpp sizes buckets at kMsmBucketBytes per XYZZ point");

namespace {

// Threads per block. Untuned (no GPU on the development machine): the point kernels keep an
// XYZZ accumulator and field temporaries in registers, so their blocks are kept small.
constexpr unsigned kIndexBlock = 256;  // digits
constexpr unsigned kPointBlock = 128;  // sums, accumulation levels, reduction, folds

unsigned grid(uint64_t threads, unsigned block) {
  return static_cast<unsigned>((threads + block - 1) / block);
}

__device__ __forceinline__ uint64_t thread_index() {
  return blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
}

// The split's predicates over point indices.
struct IsOne {
  const Fr* scalars;
  __device__ bool operator()(uint32_t i) const {
    return scalar_class(scalars[i]) == ScalarClass::kOne;
  }
};
struct IsOther {
  const Fr* scalars;
  __device__ bool operator()(uint32_t i) const {
    return scalar_class(scalars[i]) == ScalarClass::kOther;
  }
};

__global__ void ones_kernel(const G1Affine* bases, const uint32_t* idx, size_t count, uint32_t span,
                            size_t threads, G1Xyzz* out) {
  const uint64_t t = thread_index();
  if (t >= threads) return;
  out[t] = sum_indexed_bases(bases, idx, count, span, t);
}

// count / 2 threads.
__global__ void fold_step_kernel(G1Xyzz* p, size_t count) {
  const uint64_t i = thread_index();
  if (i >= count / 2) return;
  fold_step(p, count, i);
}

__global__ void digits_kernel(const Fr* scalars, const uint32_t* idx, size_t count, unsigned c,
                              unsigned windows, uint32_t* keys, uint32_t* values) {
  const uint64_t i = thread_index();
  if (i >= count) return;
  const uint32_t index = idx[i];
  write_digit_entries(scalars[index], index, static_cast<uint32_t>(i), count, c, windows, keys,
                      values);
}

__global__ void entries_kernel(const G1Affine* bases, const uint32_t* keys, const uint32_t* values,
                               size_t count, uint32_t span, size_t threads, uint32_t skip,
                               bool add_to, G1Xyzz* buckets, uint32_t* piece_keys, G1Xyzz* pieces) {
  const uint64_t t = thread_index();
  if (t >= threads) return;
  accumulate_entries(bases, keys, values, count, span, t, skip, add_to, buckets, piece_keys,
                     pieces);
}

__global__ void pieces_kernel(const uint32_t* keys, const G1Xyzz* points, size_t count,
                              uint32_t span, size_t threads, uint32_t skip, bool add_to,
                              G1Xyzz* buckets, uint32_t* piece_keys, G1Xyzz* pieces) {
  const uint64_t t = thread_index();
  if (t >= threads) return;
  accumulate_pieces(keys, points, count, span, t, skip, add_to, buckets, piece_keys, pieces);
}

// One thread per (window, segment).
__global__ void reduce_kernel(const G1Xyzz* buckets, uint32_t window_buckets, uint32_t segments,
                              uint32_t segment_len, unsigned windows, G1Xyzz* partials) {
  const uint64_t t = thread_index();
  if (t >= uint64_t{windows} * segments) return;
  const uint64_t w = t / segments, s = t % segments;
  partials[t] = reduce_segment(buckets + w * window_buckets, static_cast<uint32_t>(s * segment_len),
                               segment_len);
}

// One thread per (window, i < half).
__global__ void fold_kernel(G1Xyzz* partials, uint32_t segments, uint32_t half, unsigned windows) {
  const uint64_t t = thread_index();
  if (t >= uint64_t{windows} * half) return;
  fold_partials(partials + (t / half) * segments, half, static_cast<uint32_t>(t % half));
}

// The accumulation levels of one pass over `entries` sorted entries (msm_emulate.cpp's
// accumulate): level 0 over the entries, then the pieces until one thread is left.
Status accumulate(const G1Affine* bases, const uint32_t* keys, const uint32_t* values,
                  uint64_t entries, uint32_t skip, bool add_to, MsmScratch& s,
                  cudaStream_t stream) {
  uint32_t span = msm_span(entries);
  size_t threads = span_threads(entries, span);
  entries_kernel<<<grid(threads, kPointBlock), kPointBlock, 0, stream>>>(
      bases, keys, values, entries, span, threads, skip, add_to, s.buckets(), s.piece_keys(0),
      s.pieces(0));
  ZKP_CUDA_OK(cudaGetLastError());
  for (int in = 0; threads > 1; in ^= 1) {
    const size_t count = 2 * threads;
    span = msm_span(count);
    threads = span_threads(count, span);
    pieces_kernel<<<grid(threads, kPointBlock), kPointBlock, 0, stream>>>(
        s.piece_keys(in), s.pieces(in), count, span, threads, skip, add_to, s.buckets(),
        s.piece_keys(in ^ 1), s.pieces(in ^ 1));
    ZKP_CUDA_OK(cudaGetLastError());
  }
  return ok_status();
}

// The ones' sum into s.ones()[0]: a span per thread, then the pairwise fold.
Status sum_ones(const G1Affine* bases, size_t count, MsmScratch& s, cudaStream_t stream) {
  const uint32_t span = msm_span(count);
  const size_t threads = span_threads(count, span);
  ones_kernel<<<grid(threads, kPointBlock), kPointBlock, 0, stream>>>(bases, s.indices(0), count,
                                                                      span, threads, s.ones());
  ZKP_CUDA_OK(cudaGetLastError());
  for (size_t m = threads; m > 1; m = (m + 1) / 2) {
    fold_step_kernel<<<grid(m / 2, kPointBlock), kPointBlock, 0, stream>>>(s.ones(), m);
    ZKP_CUDA_OK(cudaGetLastError());
  }
  return ok_status();
}

// CUB's temporary storage for the split of n scalars (a query: nothing runs).
Result<size_t> split_temp_bytes(size_t n, const Fr* scalars, const MsmScratch& s,
                                cudaStream_t stream) {
  size_t temp = 0;
  ZKP_CUDA_OK(cub::DevicePartition::If(nullptr, temp, thrust::counting_iterator<uint32_t>(0),
                                       s.indices(0), s.indices(1), thrust::discard_iterator<>(),
                                       s.counts(), static_cast<int>(n), IsOne{scalars},
                                       IsOther{scalars}, stream));
  return temp;
}

// plan_msm_g1's sort storage, asked of CUB; the first failed query lands in *error.
MsmSortTempBytes sort_temp_query(cudaStream_t stream, cudaError_t* error) {
  return [stream, error](uint64_t entries, unsigned key_bits) -> uint64_t {
    cub::DoubleBuffer<uint32_t> k(nullptr, nullptr), v(nullptr, nullptr);
    size_t temp = 0;
    const cudaError_t e = cub::DeviceRadixSort::SortPairs(
        nullptr, temp, k, v, static_cast<int>(entries), 0, static_cast<int>(key_bits), stream);
    if (e != cudaSuccess && *error == cudaSuccess) *error = e;
    return temp;
  };
}

}  // namespace

Result<uint64_t> msm_g1_scratch_bytes(size_t n, cudaStream_t stream) {
  if (n == 0) return uint64_t{0};
  const MsmScratch none;
  ZKP_ASSIGN_OR_RETURN(const size_t split_temp, split_temp_bytes(n, nullptr, none, stream));
  cudaError_t query = cudaSuccess;
  const MsmGpuPlan p = plan_msm_g1(n, ~uint64_t{0} / 2, 0, sort_temp_query(stream, &query));
  ZKP_CUDA_OK(query);
  return msm_split_bytes(n, split_temp).split() + p.scratch.pippenger();
}

uint64_t MsmScratch::bytes() const {
  uint64_t b = 0;
  for (const DeviceMemory* m : {&indices_, &split_temp_, &counts_, &ones_, &keys_, &values_,
                                &sort_temp_, &piece_keys_, &pieces_, &buckets_, &partials_}) {
    b += m->bytes();
  }
  return b;
}

uint32_t* MsmScratch::indices(int half) const {
  return indices_.as<uint32_t>() + (half ? indices_.bytes() / 8 : 0);
}
uint32_t* MsmScratch::keys(int half) const {
  return keys_.as<uint32_t>() + (half ? keys_.bytes() / 8 : 0);
}
uint32_t* MsmScratch::values(int half) const {
  return values_.as<uint32_t>() + (half ? values_.bytes() / 8 : 0);
}
uint32_t* MsmScratch::piece_keys(int half) const {
  return piece_keys_.as<uint32_t>() + (half ? piece_keys_.bytes() / 8 : 0);
}
G1Xyzz* MsmScratch::pieces(int half) const {
  return pieces_.as<G1Xyzz>() + (half ? pieces_.bytes() / 2 / sizeof(G1Xyzz) : 0);
}

Status MsmScratch::reserve(const MsmScratchBytes& need) {
  const std::string dev = "msm_g1";
  // Buffers of two halves: keep each half 256-byte aligned (and whole points).
  auto halves = [](uint64_t b, uint64_t unit) {
    const uint64_t q = 256 * unit;  // a multiple of both 256 and unit
    return (b / 2 + q - 1) / q * q * 2;
  };
  ZKP_RETURN_IF_ERROR(ensure_capacity(indices_, halves(need.indices, 4), "split indices", dev));
  ZKP_RETURN_IF_ERROR(
      ensure_capacity(split_temp_, need.split_temp, "the split's temporary storage", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(counts_, need.indices != 0 ? 256 : 0, "split counts", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(ones_, need.ones, "the ones' partial sums", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(keys_, halves(need.keys, 4), "sort keys", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(values_, halves(need.values, 4), "sort values", dev));
  ZKP_RETURN_IF_ERROR(
      ensure_capacity(sort_temp_, need.sort_temp, "the radix sort's temporary storage", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(piece_keys_, halves(need.piece_keys, 4), "piece keys", dev));
  ZKP_RETURN_IF_ERROR(
      ensure_capacity(pieces_, halves(need.pieces, sizeof(G1Xyzz) / 64), "pieces", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(buckets_, need.buckets, "buckets", dev));
  return ensure_capacity(partials_, need.partials, "window partial sums", dev);
}

void MsmScratch::release() {
  for (DeviceMemory* b : {&indices_, &split_temp_, &counts_, &ones_, &keys_, &values_, &sort_temp_,
                          &piece_keys_, &pieces_, &buckets_, &partials_}) {
    *b = DeviceMemory();
  }
}

Result<G1> msm_g1(const G1Affine* bases, const Fr* scalars, size_t n, MsmScratch& scratch,
                  cudaStream_t stream, const MsmOptions& options) {
  if (n == 0) return G1::identity();
  if (n > kMsmMaxEntries) {
    return invalid_argument("msm_g1: " + std::to_string(n) + " points; at most 2^31 - 1");
  }
  uint64_t budget = options.scratch_bytes;
  if (budget == 0) {
    size_t free_bytes = 0, total_bytes = 0;
    ZKP_CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    budget = free_bytes + scratch.bytes();
  }

  // The split: ones' indices to half 0, the rest's to half 1, zeros dropped.
  const thrust::counting_iterator<uint32_t> all(0);
  const int items = static_cast<int>(n);
  ZKP_ASSIGN_OR_RETURN(size_t split_temp, split_temp_bytes(n, scalars, scratch, stream));
  const MsmScratchBytes split = msm_split_bytes(n, split_temp);
  if (split.split() > budget) {
    return resource_exhausted("msm_g1: splitting " + std::to_string(n) + " scalars needs " +
                              std::to_string(split.split()) + " bytes of device scratch; " +
                              std::to_string(budget) + " are available");
  }
  ZKP_RETURN_IF_ERROR(scratch.reserve(split));
  split_temp = scratch.split_temp_bytes();
  ZKP_CUDA_OK(cub::DevicePartition::If(scratch.split_temp(), split_temp, all, scratch.indices(0),
                                       scratch.indices(1), thrust::discard_iterator<>(),
                                       scratch.counts(), items, IsOne{scalars}, IsOther{scalars},
                                       stream));
  int counts[2] = {0, 0};
  ZKP_CUDA_OK(
      cudaMemcpyAsync(counts, scratch.counts(), sizeof(counts), cudaMemcpyDeviceToHost, stream));
  ZKP_CUDA_OK(cudaStreamSynchronize(stream));
  const size_t ones = static_cast<size_t>(counts[0]), others = static_cast<size_t>(counts[1]);
  if (ones > 0) ZKP_RETURN_IF_ERROR(sum_ones(bases, ones, scratch, stream));

  // Pippenger over the rest, planned with CUB's own sort storage sizes.
  cudaError_t query = cudaSuccess;
  const MsmGpuPlan p = plan_msm_g1(others, budget - split.split(), options.window_bits,
                                   sort_temp_query(stream, &query));
  ZKP_CUDA_OK(query);
  if (!p.fits) {
    return resource_exhausted(
        "msm_g1: " + std::to_string(others) + " points need " +
        std::to_string(p.scratch.pippenger()) + " bytes of device scratch even in passes of " +
        std::to_string(p.chunk) + " points; " + std::to_string(budget - split.split()) +
        " are available after the split's " + std::to_string(split.split()));
  }
  std::vector<G1Xyzz> sums(p.windows + 1, G1Xyzz::identity());  // the windows', then the ones'
  if (p.passes > 0) {
    ZKP_RETURN_IF_ERROR(scratch.reserve(p.scratch));
    ZKP_CUDA_OK(cudaMemsetAsync(scratch.buckets(), 0, p.buckets * sizeof(G1Xyzz), stream));
    const uint32_t skip = static_cast<uint32_t>(p.buckets);
    for (size_t pass = 0; pass < p.passes; ++pass) {
      const size_t first = pass * p.chunk;
      const size_t count = std::min(p.chunk, others - first);
      const uint64_t entries = uint64_t{count} * p.windows;
      digits_kernel<<<grid(count, kIndexBlock), kIndexBlock, 0, stream>>>(
          scalars, scratch.indices(1) + first, count, p.window_bits, p.windows, scratch.keys(0),
          scratch.values(0));
      ZKP_CUDA_OK(cudaGetLastError());
      cub::DoubleBuffer<uint32_t> keys(scratch.keys(0), scratch.keys(1));
      cub::DoubleBuffer<uint32_t> values(scratch.values(0), scratch.values(1));
      size_t temp = scratch.sort_temp_bytes();
      ZKP_CUDA_OK(cub::DeviceRadixSort::SortPairs(scratch.sort_temp(), temp, keys, values,
                                                  static_cast<int>(entries), 0,
                                                  static_cast<int>(p.key_bits), stream));
      ZKP_RETURN_IF_ERROR(accumulate(bases, keys.Current(), values.Current(), entries, skip,
                                     pass > 0, scratch, stream));
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
    ZKP_CUDA_OK(cudaMemcpy2DAsync(sums.data(), sizeof(G1Xyzz), scratch.partials(),
                                  p.segments * sizeof(G1Xyzz), sizeof(G1Xyzz), p.windows,
                                  cudaMemcpyDeviceToHost, stream));
  }
  if (ones > 0) {
    ZKP_CUDA_OK(cudaMemcpyAsync(&sums[p.windows], scratch.ones(), sizeof(G1Xyzz),
                                cudaMemcpyDeviceToHost, stream));
  }
  ZKP_CUDA_OK(cudaStreamSynchronize(stream));
  return combine_windows(sums.data(), p.windows, p.window_bits, sums[p.windows]);
}

}  // namespace zkpipe::cuda_backend
