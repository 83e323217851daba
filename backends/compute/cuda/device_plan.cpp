// The device memory of one circuit's proving, without a GPU (device_plan.h).
#include "device_plan.h"

#include <algorithm>
#include <bit>

#include <fmt/core.h>

#include "msm_plan.h"
#include "ntt_plan.h"
#include "transfer_plan.h"
#include "zkpipe/crypto/curves.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cuda_backend {

DevicePlan plan_device(const DeviceCircuit& c, uint64_t device_bytes, unsigned lanes,
                       uint64_t budget_bytes) {
  DevicePlan p;
  p.device_bytes = device_bytes;
  p.lanes = std::max(lanes, 1u);
  const unsigned log_n = static_cast<unsigned>(std::countr_zero(std::max<uint64_t>(c.domain, 2)));
  if (Result<NttTwiddleLayout> t = make_twiddle_layout(log_n); t.ok()) p.twiddles = t->bytes();
  // prover_run.cpp: the MSM scratch of the largest of the four MSMs, every scalar through
  // Pippenger; then the lane's working set beside it.
  const uint64_t msm_points = std::max({c.h_points, c.l_points, c.a_points, c.b_points});
  p.msm_scratch = msm_points == 0
                      ? 0
                      : msm_split_bytes(msm_points).split() +
                            plan_msm_g1(msm_points, ~uint64_t{0} / 2).scratch.pippenger();
  p.working_set = working_set_bytes(c.domain, c.num_aux, c.a_points, c.b_points, p.msm_scratch);
  // prover.cpp bases_for: plan with the free memory (the tables already there) less the reserve.
  const uint64_t free = device_bytes > p.twiddles ? device_bytes - p.twiddles : 0;
  p.plannable = plannable_bytes(free, 0, p.twiddles, budget_bytes, kDeviceReserveBytes);
  const uint64_t points = c.h_points + c.l_points + c.a_points + c.b_points;
  constexpr uint64_t kPoint = sizeof(crypto::G1Affine);
  const BasesPlan bases = plan_bases(points, kPoint, p.plannable, p.working_set, p.lanes, 0);
  p.bases = bases.bytes;
  p.bases_resident = bases.resident;
  const uint64_t fixed = p.working_set - std::min(p.working_set, p.msm_scratch);
  if (bases.resident) {
    p.peak = p.twiddles + p.bases + p.lanes * p.working_set;
  } else {
    p.chunk_points = bases.chunk_points;
    p.staging = 2 * bases.chunk_points * kPoint;
    const uint64_t msm =
        lane_msm_budget(p.plannable, 0, p.lanes, p.working_set, p.msm_scratch, p.staging);
    p.msm_scratch = msm;
    p.working_set = fixed + msm;
    p.peak = p.twiddles + p.lanes * (p.working_set + p.staging);
  }
  if (fixed * p.lanes > p.plannable) {
    p.fits = false;
    p.problem = fmt::format(
        "{} lane(s) need {} each for a/b/c and the scalars, and the device leaves {} to plan "
        "(its memory less the tables and a {} reserve{}): lower compute.workers_per_device{}",
        p.lanes, format_bytes(fixed), format_bytes(p.plannable), format_bytes(kDeviceReserveBytes),
        budget_bytes > 0 ? ", under compute.device_budget" : "",
        budget_bytes > 0 ? " or raise compute.device_budget" : ", or take a larger GPU");
  } else if (bases.resident || p.msm_scratch > 0) {
    p.fits = true;
  } else {
    p.fits = false;
    p.problem = "no room is left for the MSM's scratch beside the lanes' buffers";
  }
  return p;
}

}  // namespace zkpipe::cuda_backend
