// zkpipe/system.h: facts about this machine that decide memory planning: RAM, cgroup limit,
// RLIMIT_MEMLOCK, huge pages; and the CUDA driver and devices (zkpipe/sdk/cuda_info.h).
// Thread-safety: the functions read the system each call; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "zkpipe/sdk/cuda_info.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe {

struct SystemInfo {
  uint64_t ram_bytes = 0;                      // MemTotal
  uint64_t available_bytes = 0;                // MemAvailable
  std::optional<uint64_t> cgroup_limit_bytes;  // nullopt: no limit
  std::optional<uint64_t> memlock_soft_bytes;  // nullopt: unlimited
  std::optional<uint64_t> memlock_hard_bytes;  // nullopt: unlimited
  std::string thp_mode;                        // "always", "madvise", "never" or "unknown"
  uint64_t hugepages_total = 0;                // preallocated (hugetlbfs) huge pages
  uint64_t hugepage_bytes = 0;
  unsigned cpus = 0;
};

SystemInfo read_system_info();

// min(RAM, cgroup limit).
uint64_t usable_memory_bytes(const SystemInfo& info);

}  // namespace zkpipe
