// backends/compute/cuda/transfer_plan.cpp: see transfer_plan.h.
#include "transfer_plan.h"

#include <algorithm>

namespace zkpipe::cuda_backend {

std::string_view transfer_path_name(TransferPath path) {
  switch (path) {
    case TransferPath::kPageable:
      return "pageable";
    case TransferPath::kPinned:
      return "pinned";
    case TransferPath::kMapped:
      return "mapped";
  }
  return "?";
}

TransferPath choose_transfer_path(bool page_locked, bool mapped) {
  if (!page_locked) return TransferPath::kPageable;
  return mapped ? TransferPath::kMapped : TransferPath::kPinned;
}

std::vector<CopyChunk> plan_copy_chunks(uint64_t bytes, uint64_t chunk_bytes, unsigned streams,
                                        unsigned first_stream) {
  std::vector<CopyChunk> chunks;
  if (bytes == 0) return chunks;
  streams = std::max(streams, 1u);
  if (chunk_bytes == 0) chunk_bytes = bytes;
  unsigned s = first_stream % streams;
  for (uint64_t off = 0; off < bytes; off += chunk_bytes) {
    chunks.push_back({off, std::min(chunk_bytes, bytes - off), s});
    s = (s + 1) % streams;
  }
  return chunks;
}

uint64_t working_set_bytes(uint64_t n, uint64_t num_aux, uint64_t a_count, uint64_t b_count,
                           uint64_t msm_scratch_bytes) {
  constexpr uint64_t kFr = 32;
  return (3 * n + num_aux + a_count + b_count) * kFr + msm_scratch_bytes;
}

BasesPlan plan_bases(uint64_t points, uint64_t bytes_per_point, uint64_t device_free,
                     uint64_t working_set, unsigned lanes, uint64_t reserve) {
  BasesPlan plan;
  plan.bytes = points * bytes_per_point;
  const uint64_t needed = working_set * std::max(lanes, 1u) + reserve;
  const uint64_t room = device_free > needed ? device_free - needed : 0;
  if (plan.bytes <= room) return plan;
  plan.resident = false;
  // Streamed: a staging buffer per lane of an eighth of what is left (at least 64 Ki points),
  // so that copying one chunk overlaps the MSM of the previous one without starving either.
  const uint64_t per_lane = room / (8 * std::max(lanes, 1u));
  plan.chunk_points =
      std::clamp<uint64_t>(per_lane / bytes_per_point, 1ull << 16, std::max<uint64_t>(points, 1));
  return plan;
}

uint64_t plannable_bytes(uint64_t device_free, uint64_t lanes_held, uint64_t others_held,
                         uint64_t budget, uint64_t reserve) {
  const uint64_t free = device_free + lanes_held;
  uint64_t out = free > reserve ? free - reserve : 0;
  if (budget > 0) out = std::min(out, budget > others_held ? budget - others_held : 0);
  return out;
}

uint64_t lane_msm_budget(uint64_t device_free, uint64_t reserve, unsigned lanes,
                         uint64_t working_set, uint64_t msm_scratch, uint64_t staging_bytes) {
  const uint64_t share = device_free > reserve ? (device_free - reserve) / std::max(lanes, 1u) : 0;
  const uint64_t rest = working_set - std::min(working_set, msm_scratch) + staging_bytes;
  return std::min(msm_scratch, share > rest ? share - rest : 0);
}

}  // namespace zkpipe::cuda_backend
