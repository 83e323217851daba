// backends/compute/cuda/prover_run.cpp: DeviceProver::run, the body of one prove_start (see
// prover.h and prover.cpp for the lane and the resident bases).
#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "msm.h"
#include "ntt.h"
#include "prover_lane.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cuda_backend {

namespace {

Result<uint64_t> elapsed_ns(cudaEvent_t from, cudaEvent_t to) {
  float ms = 0;
  ZKP_CUDA_OK(cudaEventElapsedTime(&ms, from, to));
  return static_cast<uint64_t>(static_cast<double>(ms) * 1e6);
}

// sum_i scalars[i] bases[i] over `count` points: on resident bases directly; otherwise the host
// bases are streamed through the lane's staging buffer (two halves: the copy of chunk i + 1
// runs while chunk i is summed).
Result<G1> msm(Lane& lane, const G1Affine* resident, std::span<const G1Affine> host,
               const Fr* scalars, size_t count, uint64_t& streamed_bytes,
               const std::string& device) {
  if (count == 0) return G1::identity();
  const MsmOptions budget{0, lane.msm_budget};
  if (resident != nullptr) return msm_g1(resident, scalars, count, lane.msm, lane.compute, budget);
  const uint64_t chunk = std::min<uint64_t>(count, lane.stream_chunk_points);
  ZKP_RETURN_IF_ERROR(ensure_capacity(lane.staging, 2 * chunk * sizeof(G1Affine),
                                      "the staging buffer of streamed bases", device));
  auto half = [&](size_t i) { return lane.staging.as<G1Affine>() + (i % 2) * chunk; };
  auto issue = [&](size_t i) -> Status {
    const uint64_t off = i * chunk;
    const uint64_t pts = std::min<uint64_t>(chunk, count - off);
    ZKP_CUDA_OK(cudaMemcpyAsync(half(i), host.data() + off, pts * sizeof(G1Affine),
                                cudaMemcpyHostToDevice, lane.copy[0]));
    ZKP_CUDA_OK(cudaEventRecord(lane.staged[i % 2], lane.copy[0]));
    streamed_bytes += pts * sizeof(G1Affine);
    return ok_status();
  };
  const size_t chunks = (count + chunk - 1) / chunk;
  G1 sum = G1::identity();
  ZKP_RETURN_IF_ERROR(issue(0));
  for (size_t i = 0; i < chunks; ++i) {
    // Half (i + 1) % 2 was last read by the MSM of chunk i - 1, which has returned.
    if (i + 1 < chunks) ZKP_RETURN_IF_ERROR(issue(i + 1));
    ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.staged[i % 2], 0));
    const uint64_t off = i * chunk;
    ZKP_ASSIGN_OR_RETURN(const G1 part,
                         msm_g1(half(i), scalars + off, std::min<uint64_t>(chunk, count - off),
                                lane.msm, lane.compute, budget));
    sum += part;
  }
  return sum;
}

}  // namespace

Result<groth16::PendingProof> DeviceProver::run(Lane& lane, const groth16::ProvingKey& pk,
                                                const groth16::ProverInput& in,
                                                GpuStartStats& stats) {
  const std::string dev = label();
  ZKP_RETURN_IF_ERROR(groth16::check_stop(in, "the copies"));
  const size_t n = in.n;
  const unsigned log_n = static_cast<unsigned>(std::countr_zero(n));
  const uint64_t vec_bytes = n * sizeof(Fr);
  groth16::PendingProof p;
  p.pk = &pk;

  // Where a/b/c live decides how they travel.
  cudaPointerAttributes attr{};
  ZKP_CUDA_OK(cudaPointerGetAttributes(&attr, in.a));
  const bool page_locked = attr.type == cudaMemoryTypeHost;
  stats.path = choose_transfer_path(page_locked, options_.mapped && attr.devicePointer != nullptr);
  ZKP_ASSIGN_OR_RETURN(std::shared_ptr<const NttTwiddles> tw, twiddles(log_n, lane));

  const uint64_t a_count = pk.a_query.size(), b_count = pk.b_g1_query.size();
  ZKP_RETURN_IF_ERROR(ensure_capacity(lane.abc, 3 * vec_bytes, "a/b/c", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(lane.aux, pk.num_aux * sizeof(Fr), "the L scalars", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(lane.a_scalars, a_count * sizeof(Fr), "the A scalars", dev));
  ZKP_RETURN_IF_ERROR(ensure_capacity(lane.b_scalars, b_count * sizeof(Fr), "the B scalars", dev));
  // The MSM scratch is planned before the bases' place is decided: the largest of the four MSMs
  // with every scalar through Pippenger (CUB's own storage sizes), not what earlier calls left.
  const size_t msm_points =
      std::max({pk.h_query.size(), pk.l_query.size(), pk.a_query.size(), pk.b_g1_query.size()});
  ZKP_ASSIGN_OR_RETURN(const uint64_t msm_scratch, msm_g1_scratch_bytes(msm_points, lane.compute));
  const uint64_t working_set = working_set_bytes(n, pk.num_aux, a_count, b_count, msm_scratch);
  ZKP_ASSIGN_OR_RETURN(std::shared_ptr<ResidentBases> bases,
                       bases_for(pk, lane, working_set, msm_scratch, stats));
  stats.bases_resident = bases != nullptr;
  Fr* d_abc = lane.abc.as<Fr>();

  // 1. a, b, c: copy stream v carries vector v (pinned: in chunks, so the DMA engines of
  // several streams share the link); mapped: nothing to copy, the first NTT pass reads them.
  const Fr* src[3] = {nullptr, nullptr, nullptr};
  ZKP_CUDA_OK(cudaEventRecord(lane.h2d_begin, lane.copy[0]));
  for (unsigned v = 1; v < kCopyStreams; ++v) {
    ZKP_CUDA_OK(cudaStreamWaitEvent(lane.copy[v], lane.h2d_begin, 0));
  }
  const Fr* host_abc[3] = {in.a, in.b, in.c};
  for (unsigned v = 0; v < 3; ++v) {
    if (stats.path == TransferPath::kMapped) {
      src[v] = static_cast<const Fr*>(attr.devicePointer) + v * n;
    } else {
      const uint64_t chunk = stats.path == TransferPath::kPinned ? kPinnedChunkBytes : 0;
      ZKP_RETURN_IF_ERROR(copy_vector(d_abc + v * n, host_abc[v], vec_bytes, chunk, lane.copy[v]));
    }
    ZKP_CUDA_OK(cudaEventRecord(lane.arrived[v], lane.copy[v]));
    stats.h2d_bytes += vec_bytes;
  }

  // 2. The quotient on the compute stream, each vector as soon as it is there.
  ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.arrived[0], 0));
  ZKP_CUDA_OK(cudaEventRecord(lane.ntt_begin, lane.compute));
  for (unsigned v = 0; v < 3; ++v) {
    if (v > 0) ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.arrived[v], 0));
    ZKP_RETURN_IF_ERROR(to_coset(d_abc + v * n, src[v], log_n, *tw, lane.compute));
  }
  ZKP_RETURN_IF_ERROR(quotient_from_coset(d_abc, d_abc + n, d_abc + 2 * n, n, *tw, lane.compute));
  ZKP_CUDA_OK(cudaEventRecord(lane.ntt_end, lane.compute));

  // 3. Meanwhile on the host: the A and B scalars; then the scalars travel behind a/b/c.
  //    (Given by the caller when it computed them: the engine, through the compute ABI.)
  std::vector<Fr> a_own;
  if (in.a_scalars == nullptr) a_own = groth16::density_scalars(pk.a_density, in.witness);
  if (in.b_scalars == nullptr) p.b_scalars = groth16::density_scalars(pk.b_density, in.witness);
  const struct {
    DeviceMemory* dst;
    const Fr* host;
    size_t count;
  } scalar_copies[3] = {
      {&lane.aux, in.witness.aux.data(), in.witness.aux.size()},
      {&lane.a_scalars, in.a_scalars != nullptr ? in.a_scalars : a_own.data(), a_count},
      {&lane.b_scalars, in.b_scalars != nullptr ? in.b_scalars : p.b_scalars.data(), b_count}};
  for (unsigned v = 0; v < 3; ++v) {
    const auto& c = scalar_copies[v];
    ZKP_RETURN_IF_ERROR(
        copy_vector(c.dst->as<Fr>(), c.host, c.count * sizeof(Fr), 0, lane.copy[v]));
    ZKP_CUDA_OK(cudaEventRecord(lane.scalars[v], lane.copy[v]));
    stats.h2d_bytes += c.count * sizeof(Fr);
  }

  // 4. The quotient's top coefficient must be zero (else the witness is not satisfying).
  Fr top;
  ZKP_CUDA_OK(
      cudaMemcpyAsync(&top, d_abc + n - 1, sizeof(Fr), cudaMemcpyDeviceToHost, lane.compute));
  ZKP_CUDA_OK(cudaStreamSynchronize(lane.compute));
  ZKP_ASSIGN_OR_RETURN(p.timings.ntt_ns, elapsed_ns(lane.ntt_begin, lane.ntt_end));
  if (!top.is_zero()) {
    return invalid_argument(
        "prove: the quotient has degree n - 1: the witness does not satisfy the constraints "
        "(check_satisfied names the first failing one)");
  }

  // 5. The G1 MSMs, each after its scalars arrived; a cancelled job's partition stops between
  //    them, once the copies in flight (they read the caller's buffers) have finished.
  auto stop_point = [&](const char* where) -> Status {
    Status stop = groth16::check_stop(in, where);
    if (stop.ok()) return stop;
    for (unsigned v = 0; v < kCopyStreams; ++v) ZKP_CUDA_OK(cudaStreamSynchronize(lane.copy[v]));
    ZKP_CUDA_OK(cudaStreamSynchronize(lane.compute));
    return stop;
  };
  uint64_t streamed = 0;
  const G1Affine* res[4] = {nullptr, nullptr, nullptr, nullptr};
  if (bases) {
    res[0] = bases->at(0);
    res[1] = bases->at(bases->h);
    res[2] = bases->at(bases->h + bases->l);
    res[3] = bases->at(bases->h + bases->l + bases->a);
  }
  // Short of scratch under compute.device_budget: the error says which setting decides it.
  auto budgeted_msm = [&](const G1Affine* resident, std::span<const G1Affine> host,
                          const Fr* scalars, size_t count, uint64_t& streamed_bytes,
                          const std::string& device) -> Result<G1> {
    Result<G1> r = msm(lane, resident, host, scalars, count, streamed_bytes, device);
    if (r.ok() || options_.budget_bytes == 0 || r.status().code() != Code::kResourceExhausted) {
      return r;
    }
    return Status(Code::kResourceExhausted,
                  fmt::format("{}: {} (under compute.device_budget {}: raise it or lower "
                              "compute.workers_per_device)",
                              device, r.status().message(), format_bytes(options_.budget_bytes)));
  };
  ZKP_RETURN_IF_ERROR(stop_point("the H MSM"));
  uint64_t t0 = now_ns();
  ZKP_ASSIGN_OR_RETURN(p.h,
                       budgeted_msm(res[0], pk.h_query, d_abc, pk.h_query.size(), streamed, dev));
  uint64_t t1 = now_ns();
  p.timings.h_msm_ns = t1 - t0;
  ZKP_RETURN_IF_ERROR(stop_point("the L MSM"));
  ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.scalars[0], 0));
  ZKP_ASSIGN_OR_RETURN(
      p.l, budgeted_msm(res[1], pk.l_query, lane.aux.as<Fr>(), pk.l_query.size(), streamed, dev));
  t0 = now_ns();
  p.timings.l_msm_ns = t0 - t1;
  ZKP_RETURN_IF_ERROR(stop_point("the A MSM"));
  ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.scalars[1], 0));
  ZKP_ASSIGN_OR_RETURN(
      p.a, budgeted_msm(res[2], pk.a_query, lane.a_scalars.as<Fr>(), a_count, streamed, dev));
  t1 = now_ns();
  p.timings.a_msm_ns = t1 - t0;
  ZKP_RETURN_IF_ERROR(stop_point("the B MSM"));
  ZKP_CUDA_OK(cudaStreamWaitEvent(lane.compute, lane.scalars[2], 0));
  ZKP_ASSIGN_OR_RETURN(
      p.b_g1, budgeted_msm(res[3], pk.b_g1_query, lane.b_scalars.as<Fr>(), b_count, streamed, dev));
  p.timings.b_g1_msm_ns = now_ns() - t1;
  stats.bases_bytes += streamed;

  // 6. How long the copies took: from the first issued to the last finished on any stream.
  for (unsigned v = 0; v < kCopyStreams; ++v) {
    ZKP_ASSIGN_OR_RETURN(const uint64_t ns, elapsed_ns(lane.h2d_begin, lane.scalars[v]));
    stats.h2d_ns = std::max(stats.h2d_ns, ns);
  }
  return p;
}

}  // namespace zkpipe::cuda_backend
