// backends/compute/cuda/prover.cpp: see prover.h. One call: a/b/c to the device by the path of
// their buffer kind (copy streams 0..2, one vector each), the quotient on the compute stream as
// each vector arrives, the density scalars gathered on the host meanwhile and copied behind
// a/b/c, then the four G1 MSMs over the resident (or streamed) bases.
#include "prover.h"

#include <fmt/format.h>

#include "device_plan.h"
#include "prover_lane.h"
#include "zkpipe/sdk/cuda_check.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cuda_backend {

Status copy_vector(void* dst, const void* src, uint64_t bytes, uint64_t chunk,
                   cudaStream_t stream) {
  for (const CopyChunk& c : plan_copy_chunks(bytes, chunk, 1)) {
    ZKP_CUDA_OK(cudaMemcpyAsync(static_cast<char*>(dst) + c.offset,
                                static_cast<const char*>(src) + c.offset, c.bytes,
                                cudaMemcpyHostToDevice, stream));
  }
  return ok_status();
}

Result<std::unique_ptr<DeviceProver>> DeviceProver::open(const CudaDevice& device,
                                                         const DeviceOptions& options) {
  std::unique_ptr<DeviceProver> p(new DeviceProver(device, options));
  const std::string label = p->label();
  ZKP_RETURN_IF_ERROR(ZKP_CUDA_STATUS(cudaSetDevice(device.index)).with_context(label));
  for (unsigned i = 0; i < std::max(options.lanes, 1u); ++i) {
    auto lane = std::make_unique<Lane>();
    ZKP_CUDA_OK(cudaStreamCreateWithFlags(&lane->compute, cudaStreamNonBlocking));
    for (unsigned s = 0; s < kCopyStreams; ++s) {
      ZKP_CUDA_OK(cudaStreamCreateWithFlags(&lane->copy[s], cudaStreamNonBlocking));
      ZKP_CUDA_OK(cudaEventCreateWithFlags(&lane->arrived[s], cudaEventDisableTiming));
      ZKP_CUDA_OK(cudaEventCreateWithFlags(&lane->scalars[s], cudaEventDefault));
    }
    for (cudaEvent_t* e : {&lane->h2d_begin, &lane->ntt_begin, &lane->ntt_end}) {
      ZKP_CUDA_OK(cudaEventCreateWithFlags(e, cudaEventDefault));
    }
    for (cudaEvent_t& e : lane->staged) {
      ZKP_CUDA_OK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    }
    p->free_.push_back(lane.get());
    p->lanes_.push_back(std::move(lane));
  }
  return p;
}

DeviceProver::DeviceProver(CudaDevice info, const DeviceOptions& options)
    : info_(std::move(info)), options_(options) {}

DeviceProver::~DeviceProver() {
  cudaSetDevice(info_.index);
  bases_.clear();
  lanes_.clear();
}

Result<Lane*> DeviceProver::checkout() {
  std::lock_guard lock(mu_);
  if (free_.empty()) {
    return failed_precondition(fmt::format("{}: more concurrent prove_start calls than lanes ({})",
                                           label(), lanes_.size()));
  }
  Lane* lane = free_.back();
  free_.pop_back();
  return lane;
}

void DeviceProver::checkin(Lane* lane) {
  std::lock_guard lock(mu_);
  free_.push_back(lane);
}

Result<std::shared_ptr<const NttTwiddles>> DeviceProver::twiddles(unsigned log_n, Lane& lane) {
  std::lock_guard lock(mu_);
  if (twiddles_ && twiddle_log_ >= log_n) return twiddles_;
  // Tables for 2^log_n serve every smaller size; a later larger key replaces them (calls
  // running on the old ones keep them alive).
  ZKP_ASSIGN_OR_RETURN(NttTwiddles t, NttTwiddles::create(log_n, lane.compute));
  ZKP_CUDA_OK(cudaStreamSynchronize(lane.compute));
  twiddles_ = std::make_shared<const NttTwiddles>(std::move(t));
  twiddle_log_ = log_n;
  return twiddles_;
}

Result<std::shared_ptr<ResidentBases>> DeviceProver::bases_for(const groth16::ProvingKey& pk,
                                                               Lane& lane, uint64_t working_set,
                                                               uint64_t msm_scratch,
                                                               GpuStartStats& stats) {
  std::lock_guard lock(mu_);
  const unsigned lanes = static_cast<unsigned>(lanes_.size());
  // What the planner may hand out: free memory plus what the lanes hold (their working sets are
  // planned anew below), capped by compute.device_budget less the bases and tables held. The
  // lanes' bytes are the device's meter less what this planner placed itself, so no lane's
  // buffers are read while it runs.
  auto device_free = [&]() -> Result<uint64_t> {
    size_t free = 0, total = 0;
    ZKP_CUDA_OK(cudaMemGetInfo(&free, &total));
    uint64_t others = twiddles_ ? twiddles_->bytes() : 0;
    for (const auto& b : bases_) others += b->mem.bytes();
    const uint64_t held = device_bytes_held(info_.index);
    return plannable_bytes(free, held > others ? held - others : 0, others, options_.budget_bytes,
                           kDeviceReserveBytes);
  };
  bases_.remove_if([](const auto& b) { return b->owner.expired(); });
  for (auto it = bases_.begin(); it != bases_.end(); ++it) {
    if ((*it)->same_key(pk)) {
      bases_.splice(bases_.begin(), bases_, it);
      lane.msm_budget = msm_scratch;  // planned beside these bases when they were placed
      return bases_.front();
    }
  }
  const size_t points =
      pk.h_query.size() + pk.l_query.size() + pk.a_query.size() + pk.b_g1_query.size();
  ZKP_ASSIGN_OR_RETURN(uint64_t free, device_free());
  // Room: evict the least recently used keys no call is using.
  BasesPlan plan = plan_bases(points, sizeof(G1Affine), free, working_set, lanes, 0);
  if (options_.stream_chunk_points > 0) {
    plan.resident = false;
    plan.chunk_points = options_.stream_chunk_points;
  }
  while (!plan.resident && options_.stream_chunk_points == 0 && !bases_.empty() &&
         bases_.back().use_count() == 1) {
    bases_.pop_back();
    ZKP_ASSIGN_OR_RETURN(free, device_free());
    plan = plan_bases(points, sizeof(G1Affine), free, working_set, lanes, 0);
  }
  // With a budget, say so when it cannot hold every lane's a/b/c and scalars, whatever the
  // bases and the MSM scratch do (without one, cudaMalloc says what the device lacks).
  const uint64_t fixed = (working_set - std::min(working_set, msm_scratch)) * lanes;
  if (options_.budget_bytes > 0 && fixed > free) {
    return resource_exhausted(fmt::format(
        "{}: compute.device_budget {} leaves {} for {} lane(s), and their a/b/c and scalars "
        "alone need {} (plus MSM scratch); raise the budget or lower compute.workers_per_device",
        label(), format_bytes(options_.budget_bytes), format_bytes(free), lanes,
        format_bytes(fixed)));
  }
  if (!plan.resident) {  // streamed by the caller
    lane.stream_chunk_points = plan.chunk_points;
    lane.msm_budget = lane_msm_budget(free, 0, lanes, working_set, msm_scratch,
                                      2 * plan.chunk_points * sizeof(G1Affine));
    return std::shared_ptr<ResidentBases>();
  }
  lane.msm_budget = msm_scratch;  // plan_bases left working_set x lanes beside the bases
  auto b = std::make_shared<ResidentBases>();
  b->owner = pk.storage;
  b->host_h = pk.h_query.data();
  b->h = pk.h_query.size();
  b->l = pk.l_query.size();
  b->a = pk.a_query.size();
  b->b = pk.b_g1_query.size();
  ZKP_ASSIGN_OR_RETURN(b->mem,
                       DeviceMemory::allocate(plan.bytes, "the proving key's G1 bases", label()));
  size_t off = 0;
  for (auto q : {pk.h_query, pk.l_query, pk.a_query, pk.b_g1_query}) {
    ZKP_RETURN_IF_ERROR(copy_vector(b->mem.as<G1Affine>() + off, q.data(),
                                    q.size() * sizeof(G1Affine), kPinnedChunkBytes, lane.compute));
    off += q.size();
  }
  ZKP_CUDA_OK(cudaStreamSynchronize(lane.compute));
  stats.bases_bytes += plan.bytes;
  bases_.push_front(b);
  return b;
}

DeviceMemoryUse DeviceProver::memory() const {
  DeviceMemoryUse m;
  m.total = info_.total_bytes;
  m.held = device_bytes_held(info_.index);
  m.budget = options_.budget_bytes;
  size_t free = 0, total = 0;
  // The caller's thread (a status request) takes this device as its current one.
  if (cudaSetDevice(info_.index) == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess) {
    m.free = free;
  }
  (void)cudaGetLastError();
  return m;
}

Result<groth16::PendingProof> DeviceProver::prove_start(const groth16::ProvingKey& pk,
                                                        const groth16::ProverInput& in,
                                                        GpuStartStats& stats) {
  stats = {};
  if (in.witness.inputs.size() != pk.num_inputs || in.witness.aux.size() != pk.num_aux ||
      in.n != pk.domain_size || in.a == nullptr || in.b != in.a + in.n || in.c != in.b + in.n) {
    // The engine hands a, b, c as one buffer (b = a + n, c = b + n): one attribute query and
    // one mapping cover all three.
    return invalid_argument(fmt::format(
        "{}: prove_start needs the witness of the key ({} inputs, {} aux) and a/b/c as one "
        "buffer of 3 x {} elements",
        label(), pk.num_inputs, pk.num_aux, pk.domain_size));
  }
  ZKP_RETURN_IF_ERROR(ZKP_CUDA_STATUS(cudaSetDevice(info_.index)).with_context(label()));
  ZKP_ASSIGN_OR_RETURN(Lane * lane, checkout());
  Result<groth16::PendingProof> r = run(*lane, pk, in, stats);
  if (!r.ok()) {
    // Leave the lane idle for the next call: whatever was queued has finished or failed.
    (void)cudaStreamSynchronize(lane->compute);
    for (cudaStream_t s : lane->copy) (void)cudaStreamSynchronize(s);
    (void)cudaGetLastError();
  }
  checkin(lane);
  return r;
}

}  // namespace zkpipe::cuda_backend
