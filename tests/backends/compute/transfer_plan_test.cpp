// The CUDA backend's host-side decisions: transfer path per buffer kind, copy chunks over the
// copy streams, resident or streamed bases, and the devices a config names.
#include <catch2/catch.hpp>

#include "device_select.h"
#include "transfer_plan.h"

namespace zkpipe::cuda_backend {
namespace {

TEST_CASE("CUDA transfer: the path follows the buffer kind", "[compute]") {
  CHECK(choose_transfer_path(false, false) == TransferPath::kPageable);
  CHECK(choose_transfer_path(false, true) == TransferPath::kPageable);  // mapped needs page-locked
  CHECK(choose_transfer_path(true, false) == TransferPath::kPinned);
  CHECK(choose_transfer_path(true, true) == TransferPath::kMapped);
  CHECK(transfer_path_name(TransferPath::kPinned) == "pinned");
  CHECK(transfer_path_name(TransferPath::kMapped) == "mapped");
  CHECK(transfer_path_name(TransferPath::kPageable) == "pageable");
}

TEST_CASE("CUDA transfer: copy chunks tile the range and alternate streams", "[compute]") {
  const uint64_t bytes = 100 * 1000 + 7;
  for (uint64_t chunk :
       {uint64_t{1000}, uint64_t{4096}, uint64_t{100 * 1000 + 7}, uint64_t{1} << 30, uint64_t{0}}) {
    for (unsigned streams : {1u, 2u, 3u}) {
      const auto chunks = plan_copy_chunks(bytes, chunk, streams, 1);
      uint64_t next = 0;
      for (size_t i = 0; i < chunks.size(); ++i) {
        CHECK(chunks[i].offset == next);
        CHECK(chunks[i].bytes > 0);
        if (chunk != 0) CHECK(chunks[i].bytes <= chunk);
        CHECK(chunks[i].stream == (1 + i) % streams);
        next += chunks[i].bytes;
      }
      CHECK(next == bytes);
    }
  }
  CHECK(plan_copy_chunks(0, 4096, 3).empty());
  CHECK(plan_copy_chunks(10, 4096, 0).size() == 1);  // zero streams reads as one
}

TEST_CASE("CUDA transfer: bases stay resident when they fit, else stream in chunks", "[compute]") {
  const uint64_t gib = 1ull << 30;
  const uint64_t ws = working_set_bytes(1 << 24, 1 << 24, 1 << 23, 1 << 23, gib);
  CHECK(ws == (3ull * (1 << 24) + (1 << 24) + (1 << 23) + (1 << 23)) * 32 + gib);
  // 2^27 points of 104 bytes = 13 GiB fit on a 139 GiB device with two lanes.
  BasesPlan fit = plan_bases(1ull << 27, 104, 139 * gib, ws, 2, 2 * gib);
  CHECK(fit.resident);
  CHECK(fit.bytes == (1ull << 27) * 104);
  // The same on a 16 GiB device do not: streamed in chunks that are at least 64 Ki points and
  // fit in what is left.
  BasesPlan streamed = plan_bases(1ull << 27, 104, 16 * gib, ws, 2, 2 * gib);
  CHECK_FALSE(streamed.resident);
  CHECK(streamed.chunk_points >= (1u << 16));
  CHECK(streamed.chunk_points * 104 * 2 <= 16 * gib - 2 * ws - 2 * gib);
  // No room at all: still a plan (the allocation then fails with the sizes).
  BasesPlan none = plan_bases(1000, 104, 0, ws, 1, gib);
  CHECK_FALSE(none.resident);
  CHECK(none.chunk_points == 1000);
}

TEST_CASE("CUDA transfer: each lane's MSM budget is its planned share", "[compute]") {
  const uint64_t gib = 1ull << 30;
  const uint64_t scratch = 8 * gib, ws = 12 * gib;  // the working set includes the scratch
  // Room for both lanes' working sets and staging: each lane gets the planned scratch.
  CHECK(lane_msm_budget(40 * gib, 2 * gib, 2, ws, scratch, gib) == scratch);
  // A lane's share is 9 GiB: 4 GiB of a/b/c and scalars, 1 GiB of staging, 4 GiB left.
  CHECK(lane_msm_budget(20 * gib, 2 * gib, 2, ws, scratch, gib) == 4 * gib);
  // Nothing left: 0, and msm_g1 then says how much it lacks.
  CHECK(lane_msm_budget(8 * gib, 2 * gib, 2, ws, scratch, gib) == 0);
  CHECK(lane_msm_budget(gib, 2 * gib, 1, ws, scratch, 0) == 0);
  CHECK(lane_msm_budget(40 * gib, 2 * gib, 0, ws, scratch, 0) == scratch);  // 0 lanes reads as 1
}

TEST_CASE("CUDA plan: compute.device_budget caps what the planner hands out", "[compute]") {
  const uint64_t gib = 1ull << 30;
  // No budget: free now plus what the lanes hold, less the reserve.
  CHECK(plannable_bytes(100 * gib, 20 * gib, 30 * gib, 0, 2 * gib) == 118 * gib);
  // A budget of 64 GiB with 30 GiB of bases and tables held: 34 GiB for lanes and new bases,
  // though the device has more free.
  CHECK(plannable_bytes(100 * gib, 20 * gib, 30 * gib, 64 * gib, 2 * gib) == 34 * gib);
  // The device, not the budget, is short (another process holds memory): the device decides.
  CHECK(plannable_bytes(10 * gib, 0, 30 * gib, 64 * gib, 2 * gib) == 8 * gib);
  // Held beyond the budget (a smaller budget at restart is impossible, but saturate) and a
  // device with less free than the reserve: 0, never a wrapped huge number.
  CHECK(plannable_bytes(100 * gib, 0, 70 * gib, 64 * gib, 2 * gib) == 0);
  CHECK(plannable_bytes(gib, 0, 0, 0, 2 * gib) == 0);
  // The plan under the budget: 34 GiB cannot keep 40 GiB of bases resident beside two 12 GiB
  // working sets, so they are streamed; each lane's MSM scratch is cut to its share.
  const uint64_t room = plannable_bytes(100 * gib, 0, 30 * gib, 64 * gib, 2 * gib);
  const BasesPlan plan = plan_bases((40 * gib) / 104, 104, room, 12 * gib, 2, 0);
  CHECK_FALSE(plan.resident);
  CHECK(lane_msm_budget(room, 0, 2, 12 * gib, 8 * gib, 2 * plan.chunk_points * 104) <= 8 * gib);
}

std::vector<CudaDevice> two_gpus() {
  CudaDevice a;
  a.index = 0;
  a.name = "NVIDIA H200";
  a.uuid = "GPU-8a1f0c3e-1111-2222-3333-444455556666";
  CudaDevice b = a;
  b.index = 1;
  b.uuid = "GPU-8a1f9999-aaaa-bbbb-cccc-ddddeeeeffff";
  return {a, b};
}

TEST_CASE("CUDA devices: indices and UUIDs select devices, errors name the entry", "[compute]") {
  const auto have = two_gpus();
  auto all = resolve_devices({}, have);
  REQUIRE(all.ok());
  CHECK(all->size() == 2);
  auto by_index = resolve_devices({"1"}, have);
  REQUIRE(by_index.ok());
  CHECK(by_index->at(0).index == 1);
  auto by_uuid = resolve_devices({"GPU-8A1F9999", "gpu-8a1f0c3e-1111"}, have);
  REQUIRE(by_uuid.ok());
  CHECK(by_uuid->at(0).index == 1);
  CHECK(by_uuid->at(1).index == 0);
  auto out_of_range = resolve_devices({"2"}, have);
  REQUIRE_FALSE(out_of_range.ok());
  CHECK(out_of_range.status().message().find("no CUDA device 2") != std::string::npos);
  CHECK(out_of_range.status().message().find("has 2 device(s)") != std::string::npos);
  auto ambiguous = resolve_devices({"GPU-8a1f"}, have);  // too short to be a UUID
  REQUIRE_FALSE(ambiguous.ok());
  CHECK(ambiguous.status().message().find("neither an index nor a UUID") != std::string::npos);
  CudaDevice clash = have[1];
  clash.uuid = "GPU-8a1f0c3e-9999-2222-3333-444455556666";
  auto two = resolve_devices({"GPU-8a1f0c3e"}, {have[0], clash});
  REQUIRE_FALSE(two.ok());
  CHECK(two.status().message().find("more than one device") != std::string::npos);
  auto twice = resolve_devices({"0", "GPU-8a1f0c3e"}, have);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.status().message().find("a second time") != std::string::npos);
  auto unknown = resolve_devices({"GPU-deadbeef"}, have);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().message().find("no device has UUID") != std::string::npos);
  CHECK(resolve_devices({}, {}).status().code() == Code::kUnavailable);
}

TEST_CASE("CUDA devices: a device is described by index, name, UUID, compute capability, memory",
          "[compute]") {
  CudaDevice d = two_gpus()[0];
  d.cc_major = 9;
  d.total_bytes = 141ull << 30;
  CHECK(describe_device(d) ==
        "0: NVIDIA H200 GPU-8a1f0c3e-1111-2222-3333-444455556666 (sm_90, 141.0 GiB)");
}

}  // namespace
}  // namespace zkpipe::cuda_backend
