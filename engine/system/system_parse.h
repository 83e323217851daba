// engine/system/system_parse.h (internal): parsers for the text files read_system_info and
// read_cuda_info look at (/proc/meminfo, /proc/self/cgroup, /proc/self/mountinfo, cgroup limit
// files, the THP mode, PCIe link speed and width), split out so tests can feed them inline text.
// read_system_info_at() reads the same files under a root prefix so tests can fake a machine.
// Thread-safety: pure functions over their arguments; read_system_info_at reads files only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "zkpipe/system.h"

namespace zkpipe::system_detail {

// cgroup v1 reports "no limit" as a huge page-aligned number (9223372036854771712 on x86-64).
// Anything at or above 2^60 bytes (1 EiB) is no machine's real limit, so it counts as none.
constexpr uint64_t kCgroupNoLimitThreshold = uint64_t{1} << 60;

// What /proc/meminfo says; fields stay 0 when absent.
struct MemInfo {
  uint64_t total_bytes = 0;      // MemTotal
  uint64_t available_bytes = 0;  // MemAvailable (MemFree when the kernel predates it)
  uint64_t hugepage_bytes = 0;   // Hugepagesize
  uint64_t hugepages_total = 0;  // HugePages_Total
};
MemInfo parse_meminfo(std::string_view text);

// The process's cgroup paths from /proc/self/cgroup: the v2 line "0::/path" and the v1 line
// whose controller list contains "memory" ("4:memory:/path").
struct ProcCgroup {
  std::optional<std::string> v2_path;
  std::optional<std::string> v1_memory_path;
};
ProcCgroup parse_proc_cgroup(std::string_view text);

// A cgroup filesystem mount from /proc/self/mountinfo: the hierarchy path mounted (root) and
// where (mount_point, with \040-style escapes decoded).
struct CgroupMount {
  std::string root;
  std::string mount_point;
};
struct CgroupMounts {
  std::optional<CgroupMount> v2;         // fstype cgroup2
  std::optional<CgroupMount> v1_memory;  // fstype cgroup with the memory controller
};
CgroupMounts parse_mountinfo(std::string_view text);

// The directory of `cgroup_path` under `mount`: mount_point + (cgroup_path without the mount's
// root). When the path is not under the root (a cgroup namespace), the mount point itself.
std::string cgroup_dir(const CgroupMount& mount, const std::string& cgroup_path);

// A cgroup memory limit file: v2 memory.max ("max" or bytes) or v1 memory.limit_in_bytes.
enum class LimitKind { kInvalid, kNoLimit, kLimit };
struct CgroupLimit {
  LimitKind kind = LimitKind::kInvalid;
  uint64_t bytes = 0;  // for kLimit
};
CgroupLimit parse_cgroup_limit(std::string_view text);

// "always [madvise] never" -> "madvise"; "unknown" when no mode is bracketed.
std::string parse_thp_mode(std::string_view text);

// sysfs current_link_speed ("32.0 GT/s PCIe", "8 GT/s", "2.5 GT/s") -> PCIe generation 1..6;
// 0 when unknown ("Unknown", empty, other rates).
int parse_link_generation(std::string_view text);

// sysfs current_link_width ("16", "x16") -> 16; 0 when unknown.
int parse_link_width(std::string_view text);

// "0000:B3:00.0" or "00000000:B3:00.0" -> "0000:b3:00.0" (the sysfs directory name).
std::string normalize_pci_bus_id(std::string_view bus_id);

// 16 bytes -> "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (lowercase hex, as nvidia-smi -L).
std::string format_gpu_uuid(const unsigned char* bytes16);

// The effective memory limit of the cgroup at cgroup_dir(mount, path) and its ancestors up to
// the mount point: the lowest limit found; nullopt for "no limit"; `found` says whether any
// limit file was readable. v2 reads memory.max, v1 memory.limit_in_bytes.
struct CgroupResult {
  bool found = false;
  std::optional<uint64_t> limit_bytes;
};
CgroupResult read_cgroup_limit(const std::string& root, const CgroupMount& mount,
                               const std::string& cgroup_path, const std::string& limit_file);

// read_system_info with every file path prefixed by `root` ("" for the real machine).
SystemInfo read_system_info_at(const std::string& root);

// sysfs PCIe link of `bus_id` under `root`: {generation, width}, zeros when unknown.
struct PcieLink {
  int generation = 0;
  int width = 0;
  int max_generation = 0;  // max_link_speed / max_link_width
  int max_width = 0;
};
PcieLink read_pcie_link(const std::string& root, std::string_view bus_id);

// The whole file, or nullopt when it cannot be read (never throws).
std::optional<std::string> read_text_file(const std::string& path);

}  // namespace zkpipe::system_detail
