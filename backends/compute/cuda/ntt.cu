// backends/compute/cuda/ntt.cu: the GPU NTT kernels and their launches (ntt.h). Each kernel is a
// thin loop over the per-thread ZKP_HD code of ntt_tile.h, which ntt_emulate.cpp runs on the host
// in tests; the geometry comes from ntt_plan.h. Thread-safety: see ntt.h.
#include <cuda_runtime.h>

#include <climits>
#include <string>
#include <utility>
#include <vector>

#include "ntt.h"
#include "ntt_tile.h"
#include "zkpipe/sdk/cuda_check.h"

namespace zkpipe::cuda_backend {

using crypto::NttDirection;

namespace {

constexpr unsigned kElementwiseThreads = 256;
constexpr unsigned kMaxBatch = 65535;  // grid.y

// One tiled pass: the tile's twiddles into shared memory and the tile loaded, its stages with a
// barrier after each, store.
__global__ void __launch_bounds__(512) ntt_pass_kernel(Fr* dst, const Fr* src, NttPassParams p) {
  extern __shared__ uint4 ntt_shared_raw[];  // 16-byte aligned
  Fr* shared = reinterpret_cast<Fr*>(ntt_shared_raw);
  const size_t offset = static_cast<size_t>(blockIdx.y) << p.log_n;
  ntt_tile_twiddles(p, blockIdx.x, threadIdx.x, shared);
  ntt_tile_load(p, blockIdx.x, threadIdx.x, src + offset, shared);
  __syncthreads();
  for (unsigned s = 0; s < p.tile_log; ++s) {
    ntt_tile_butterfly(p, threadIdx.x, s, shared);
    __syncthreads();
  }
  ntt_tile_store(p, blockIdx.x, threadIdx.x, shared, dst + offset);
}

__global__ void scale_kernel(Fr* data, ScaleParams p) {
  scale_thread(p, blockIdx.x, threadIdx.x, data + (static_cast<size_t>(blockIdx.y) << p.log_n));
}

__global__ void bit_reverse_kernel(Fr* data, unsigned log_n) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < (uint64_t{1} << log_n)) bit_reverse_thread(data, log_n, i);
}

__global__ void quotient_pointwise_kernel(Fr* a, const Fr* b, const Fr* c, Fr z_inv, size_t n) {
  const uint64_t i = static_cast<uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) quotient_pointwise_thread(a, b, c, z_inv, i);
}

Status check_batch(unsigned batch, const char* what) {
  if (batch < 1 || batch > kMaxBatch) {
    return invalid_argument(std::string(what) + ": batch " + std::to_string(batch) +
                            " is outside [1, 65535]");
  }
  return ok_status();
}

Status run_ntt(Fr* data, const Fr* src, unsigned log_n, NttDirection direction, NttOrder order,
               const NttTwiddles& tw, cudaStream_t stream, unsigned batch) {
  const char* what = order == NttOrder::kNaturalToReversed ? "GPU ntt_nr" : "GPU ntt_rn";
  ZKP_RETURN_IF_ERROR(check_batch(batch, what));
  if (tw.bytes() == 0 || log_n > tw.max_log_n()) {
    return invalid_argument(std::string(what) + ": log_n " + std::to_string(log_n) +
                            " exceeds the twiddle tables' max_log_n " +
                            std::to_string(tw.max_log_n()));
  }
  int device = -1;
  ZKP_CUDA_OK(cudaGetDevice(&device));
  if (device != tw.device()) {
    return failed_precondition(std::string(what) + ": twiddles of device " +
                               std::to_string(tw.device()) + " used on device " +
                               std::to_string(device));
  }
  ZKP_ASSIGN_OR_RETURN(const NttPlan plan, make_ntt_plan(log_n, order));
  const NttTwiddleView view = tw.view(direction);
  for (unsigned i = 0; i < plan.num_passes; ++i) {
    const NttPass& pass = plan.passes[i];
    const Fr* in = i == 0 && src != nullptr ? src : data;
    const dim3 grid(static_cast<unsigned>(pass.blocks), batch);
    if (pass.shared_bytes > kNttDefaultSharedBytes) {  // 2^10 tiles: 64 KiB, an opt-in
      ZKP_CUDA_OK(cudaFuncSetAttribute(ntt_pass_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(pass.shared_bytes)));
    }
    ntt_pass_kernel<<<grid, pass.threads, pass.shared_bytes, stream>>>(data, in,
                                                                       plan.params(i, view));
    ZKP_CUDA_OK(cudaGetLastError());
  }
  return ok_status();
}

unsigned elementwise_blocks(uint64_t n) {
  return static_cast<unsigned>((n + kElementwiseThreads - 1) / kElementwiseThreads);
}

}  // namespace

// ---- NttTwiddles -------------------------------------------------------------------------------

Result<NttTwiddles> NttTwiddles::create(unsigned max_log_n, cudaStream_t stream) {
  NttTwiddles t;
  ZKP_ASSIGN_OR_RETURN(t.layout_, make_twiddle_layout(max_log_n));
  ZKP_CUDA_OK(cudaGetDevice(&t.device_));
  const std::vector<Fr> host = compute_twiddles(t.layout_);
  ZKP_ASSIGN_OR_RETURN(t.table_, DeviceMemory::allocate(t.layout_.bytes(), "the NTT twiddles",
                                                        "cuda" + std::to_string(t.device_)));
  ZKP_CUDA_OK(cudaMemcpyAsync(t.table_.as<Fr>(), host.data(), t.layout_.bytes(),
                              cudaMemcpyHostToDevice, stream));
  ZKP_CUDA_OK(cudaStreamSynchronize(stream));  // `host` dies here
  return Result<NttTwiddles>(std::move(t));
}

// ---- transforms --------------------------------------------------------------------------------

Status ntt_nr(Fr* data, const Fr* src, unsigned log_n, NttDirection direction,
              const NttTwiddles& tw, cudaStream_t stream, unsigned batch) {
  return run_ntt(data, src, log_n, direction, NttOrder::kNaturalToReversed, tw, stream, batch);
}

Status ntt_rn(Fr* data, const Fr* src, unsigned log_n, NttDirection direction,
              const NttTwiddles& tw, cudaStream_t stream, unsigned batch) {
  return run_ntt(data, src, log_n, direction, NttOrder::kReversedToNatural, tw, stream, batch);
}

Status scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                    cudaStream_t stream, unsigned batch) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU scale_powers"));
  ZKP_RETURN_IF_ERROR(check_batch(batch, "GPU scale_powers"));
  const ScalePlan plan = make_scale_plan(log_n, c, g, bit_reversed);
  const dim3 grid(static_cast<unsigned>(plan.blocks), batch);
  scale_kernel<<<grid, plan.threads, 0, stream>>>(data, plan.params);
  ZKP_CUDA_OK(cudaGetLastError());
  return ok_status();
}

Status bit_reverse(Fr* data, size_t n, cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU bit_reverse"));
  if (log_n == 0) return ok_status();
  bit_reverse_kernel<<<elementwise_blocks(n), kElementwiseThreads, 0, stream>>>(data, log_n);
  ZKP_CUDA_OK(cudaGetLastError());
  return ok_status();
}

Status quotient_pointwise(Fr* a, const Fr* b, const Fr* c, size_t n, const Fr& z_inv,
                          cudaStream_t stream) {
  if (n == 0) return ok_status();
  if (n > (uint64_t{UINT_MAX} * kElementwiseThreads)) {
    return invalid_argument("GPU quotient_pointwise: size " + std::to_string(n) + " too large");
  }
  quotient_pointwise_kernel<<<elementwise_blocks(n), kElementwiseThreads, 0, stream>>>(a, b, c,
                                                                                       z_inv, n);
  ZKP_CUDA_OK(cudaGetLastError());
  return ok_status();
}

// prover.cpp: per vector ntt_nr(inverse), scale_powers(1/n, g, bit-reversed), ntt_rn(forward);
// pointwise (a b - c) / (g^n - 1); ntt_nr(inverse), scale_powers(1/n, 1/g, bit-reversed),
// bit reversal.
Status to_coset(Fr* data, const Fr* src, unsigned log_n, const NttTwiddles& tw, cudaStream_t stream,
                unsigned batch) {
  const size_t n = size_t{1} << log_n;
  ZKP_RETURN_IF_ERROR(ntt_nr(data, src, log_n, NttDirection::kInverse, tw, stream, batch));
  ZKP_RETURN_IF_ERROR(scale_powers(data, n, Fr::from_u64(n).inverse(), crypto::ntt_coset_shift(),
                                   true, stream, batch));
  return ntt_rn(data, nullptr, log_n, NttDirection::kForward, tw, stream, batch);
}

Status quotient_from_coset(Fr* a, const Fr* b, const Fr* c, size_t n, const NttTwiddles& tw,
                           cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU quotient"));
  const Fr g = crypto::ntt_coset_shift();
  const Fr z_inv = (g.pow_u64(n) - Fr::one()).inverse();
  ZKP_RETURN_IF_ERROR(quotient_pointwise(a, b, c, n, z_inv, stream));
  ZKP_RETURN_IF_ERROR(ntt_nr(a, nullptr, log_n, NttDirection::kInverse, tw, stream));
  ZKP_RETURN_IF_ERROR(scale_powers(a, n, Fr::from_u64(n).inverse(), g.inverse(), true, stream));
  return bit_reverse(a, n, stream);
}

Status quotient(Fr* a, Fr* b, Fr* c, size_t n, const NttTwiddles& tw, cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU quotient"));
  if (log_n == 0) return invalid_argument("GPU quotient: size 1 has no NTT");
  if (b == a + n && c == b + n) {  // contiguous: one batched launch per step
    ZKP_RETURN_IF_ERROR(to_coset(a, nullptr, log_n, tw, stream, 3));
  } else {
    for (Fr* v : {a, b, c}) ZKP_RETURN_IF_ERROR(to_coset(v, nullptr, log_n, tw, stream));
  }
  return quotient_from_coset(a, b, c, n, tw, stream);
}

// ---- natural order -----------------------------------------------------------------------------

Status ntt_forward(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU ntt_forward"));
  if (log_n == 0) return ok_status();
  ZKP_RETURN_IF_ERROR(ntt_nr(data, nullptr, log_n, NttDirection::kForward, tw, stream));
  return bit_reverse(data, n, stream);
}

Status ntt_inverse(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU ntt_inverse"));
  if (log_n == 0) return ok_status();
  ZKP_RETURN_IF_ERROR(bit_reverse(data, n, stream));
  ZKP_RETURN_IF_ERROR(ntt_rn(data, nullptr, log_n, NttDirection::kInverse, tw, stream));
  return scale_powers(data, n, Fr::from_u64(n).inverse(), Fr::one(), false, stream);
}

Status ntt_coset_forward(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream) {
  ZKP_RETURN_IF_ERROR(scale_powers(data, n, Fr::one(), crypto::ntt_coset_shift(), false, stream));
  return ntt_forward(data, n, tw, stream);
}

// Inverse NTT with the bit reversal first, then the scaling by n^-1 g^-i in natural order.
Status ntt_coset_inverse(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream) {
  ZKP_ASSIGN_OR_RETURN(const unsigned log_n, ntt_log_size(n, "GPU ntt_coset_inverse"));
  if (log_n == 0) return ok_status();
  ZKP_RETURN_IF_ERROR(bit_reverse(data, n, stream));
  ZKP_RETURN_IF_ERROR(ntt_rn(data, nullptr, log_n, NttDirection::kInverse, tw, stream));
  return scale_powers(data, n, Fr::from_u64(n).inverse(), crypto::ntt_coset_shift().inverse(),
                      false, stream);
}

}  // namespace zkpipe::cuda_backend
