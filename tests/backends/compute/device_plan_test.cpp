// The device memory `zkpipe plan --device-memory` predicts (backends/compute/cuda/device_plan.h):
// composed from the CUDA prover's own pieces (working_set_bytes, plan_bases, plannable_bytes,
// the MSM scratch plan); resident bases when they fit beside every lane, streamed otherwise;
// a device or budget that cannot hold the lanes' a/b/c and scalars is said, with the key to
// change. Plain C++: no GPU.
#include <catch2/catch.hpp>

#include <algorithm>

#include "device_plan.h"
#include "msm_plan.h"
#include "transfer_plan.h"
#include "zkpipe/crypto/curves.h"

namespace zkpipe::cuda_backend {
namespace {

constexpr uint64_t kGiB = 1ull << 30;

// A 32GiB PoRep partition's shape: 2^27 domain, ~130M private wires, dense A.
DeviceCircuit porep_32gib() {
  DeviceCircuit c;
  c.domain = 1ull << 27;
  c.num_aux = 130'169'893;
  c.h_points = c.domain;
  c.l_points = c.num_aux;
  c.a_points = 130'170'221;
  c.b_points = 60'000'000;
  return c;
}

TEST_CASE("Device plan: a small circuit's bases stay resident", "[compute]") {
  DeviceCircuit c;
  c.domain = 1 << 16;
  c.num_aux = 60'000;
  c.h_points = c.domain;
  c.l_points = c.num_aux;
  c.a_points = 60'010;
  c.b_points = 30'000;
  const DevicePlan p = plan_device(c, 80 * kGiB, 2, 0);
  CHECK(p.fits);
  CHECK(p.bases_resident);
  const uint64_t points = c.h_points + c.l_points + c.a_points + c.b_points;
  CHECK(p.bases == points * sizeof(crypto::G1Affine));
  const uint64_t msm = msm_split_bytes(c.h_points).split() +
                       plan_msm_g1(c.h_points, ~uint64_t{0} / 2).scratch.pippenger();
  CHECK(p.msm_scratch == msm);
  CHECK(p.working_set == working_set_bytes(c.domain, c.num_aux, c.a_points, c.b_points, msm));
  CHECK(p.peak == p.twiddles + p.bases + 2 * p.working_set);
  CHECK(p.plannable == 80 * kGiB - p.twiddles - kDeviceReserveBytes);
}

TEST_CASE("Device plan: a 32GiB PoRep partition on an H200, an H100 and a 20 GiB card",
          "[compute]") {
  const DeviceCircuit c = porep_32gib();
  const DevicePlan h200 = plan_device(c, 141 * kGiB, 1, 0);
  CHECK(h200.fits);
  CHECK(h200.bases_resident);  // ~43 GiB of G1 bases beside one ~30 GiB working set
  CHECK(h200.peak <= h200.plannable + h200.twiddles);
  // Two lanes on an 80 GiB card: the bases no longer fit beside both working sets
  const DevicePlan h100 = plan_device(c, 80 * kGiB, 2, 0);
  CHECK(h100.fits);
  CHECK_FALSE(h100.bases_resident);
  CHECK(h100.chunk_points >= (1u << 16));
  CHECK(h100.staging == 2 * h100.chunk_points * sizeof(crypto::G1Affine));
  CHECK(h100.peak <= h100.plannable + h100.twiddles);
  // 20 GiB: a/b/c (12 GiB) and the scalars (9.5 GiB) of one lane do not fit beside the reserve
  const DevicePlan small = plan_device(c, 20 * kGiB, 1, 0);
  CHECK_FALSE(small.fits);
  CHECK_THAT(small.problem,
             Catch::Contains("compute.workers_per_device") && Catch::Contains("larger GPU"));
  // a device budget below it says so
  const DevicePlan budget = plan_device(c, 141 * kGiB, 1, 16 * kGiB);
  CHECK_FALSE(budget.fits);
  CHECK_THAT(budget.problem, Catch::Contains("compute.device_budget"));
}

}  // namespace
}  // namespace zkpipe::cuda_backend
