// backends/compute/cuda/transfer_plan.h: how a/b/c and the params reach the GPU, decided on the
// host (plain C++, tested without a GPU):
//   - the transfer path per buffer kind: pageable memory -> cudaMemcpyAsync (the driver stages
//     it through its own pinned buffers); page-locked (the pinned pool) -> asynchronous DMA in
//     chunks spread over several copy streams, overlapped with the NTTs; mapped zero-copy (the
//     zero_copy backend) -> the first NTT pass reads host memory in place, no copy;
//   - the chunks of a copy over the copy streams;
//   - whether the proving key's bases stay resident on the device or are streamed in chunks.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace zkpipe::cuda_backend {

enum class TransferPath { kPageable, kPinned, kMapped };
std::string_view transfer_path_name(TransferPath path);  // "pageable", "pinned", "mapped"

// `page_locked`: the host pointer is page-locked (cudaPointerGetAttributes says host memory);
// `mapped`: it also has a device address and the memory backend is the mapped one (zero_copy).
TransferPath choose_transfer_path(bool page_locked, bool mapped);

struct CopyChunk {
  uint64_t offset = 0, bytes = 0;
  unsigned stream = 0;
};
// `bytes` cut into chunks of at most `chunk_bytes` (the last one shorter), dealt round-robin over
// `streams` (>= 1) starting at `first_stream`. chunk_bytes 0 means one chunk.
std::vector<CopyChunk> plan_copy_chunks(uint64_t bytes, uint64_t chunk_bytes, unsigned streams,
                                        unsigned first_stream = 0);

// The default chunk of pinned copies: large enough to reach the link's peak (a few MiB already
// do on PCIe Gen4/5), small enough that the first NTT pass can start on the first vector early.
inline constexpr uint64_t kPinnedChunkBytes = 32ull << 20;
inline constexpr unsigned kCopyStreams = 3;  // one per vector a, b, c

// Device memory for one prove_start besides the bases: a/b/c (3n) and the scalars of the L, A
// and B MSMs, in bytes, plus the MSM scratch.
uint64_t working_set_bytes(uint64_t n, uint64_t num_aux, uint64_t a_count, uint64_t b_count,
                           uint64_t msm_scratch_bytes);

// The bases: resident when they fit in what the device has free after the working sets of
// `lanes` concurrent calls and a reserve (headroom for the CUDA context and fragmentation);
// otherwise streamed, `chunk_points` at a time through a staging buffer of that many points.
struct BasesPlan {
  bool resident = true;
  uint64_t bytes = 0;         // all bases
  uint64_t chunk_points = 0;  // streamed: points per chunk
};
BasesPlan plan_bases(uint64_t points, uint64_t bytes_per_point, uint64_t device_free,
                     uint64_t working_set, unsigned lanes, uint64_t reserve);

// What the device's planner may hand out to the lanes' working sets and new bases: what the
// device has free now plus what the lanes hold (they are planned anew), less `reserve` (the
// context, kernels' stacks, fragmentation); with a budget (compute.device_budget, > 0), at most
// the budget less what the backend holds outside the lanes (`others_held`: resident bases, NTT
// tables). Saturates at 0.
uint64_t plannable_bytes(uint64_t device_free, uint64_t lanes_held, uint64_t others_held,
                         uint64_t budget, uint64_t reserve);

// The MSM scratch one of `lanes` lanes may take: its share of the device, handed out by the one
// planner of the device (so lanes never size their scratch from free memory at once). The
// planned msm_scratch (part of working_set) when that share holds the working set and the
// lane's staging_bytes (streamed bases); else what is left of the share (msm_g1 then runs in
// passes, or says how much it lacks). device_free: after the resident bases.
uint64_t lane_msm_budget(uint64_t device_free, uint64_t reserve, unsigned lanes,
                         uint64_t working_set, uint64_t msm_scratch, uint64_t staging_bytes);

}  // namespace zkpipe::cuda_backend
