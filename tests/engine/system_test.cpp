// tests/engine/system_test.cpp: machine facts (engine/system): the /proc and sysfs parsers on
// inline text, cgroup v2/v1 resolution over a fake file tree, plausibility on this machine, and
// read_cuda_info without a GPU. Thread-safety: single-threaded Catch2 tests; temp dirs are
// unique per test run.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <random>

#include "engine/system/system_parse.h"
#include "zkpipe/system.h"

namespace fs = std::filesystem;
using namespace zkpipe;
using namespace zkpipe::system_detail;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kGiB = 1024 * 1024 * 1024;

// A throwaway directory tree that stands in for / .
struct FakeRoot {
  fs::path dir;
  FakeRoot() {
    std::random_device rd;
    dir = fs::temp_directory_path() / ("zkpipe_system_test_" + std::to_string(rd()));
    fs::create_directories(dir);
  }
  ~FakeRoot() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  void write(const std::string& path, const std::string& text) const {
    fs::path p = dir / path.substr(1);
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string root() const { return dir.string(); }
};

const char* kMeminfo =
    "MemTotal:       24684084 kB\n"
    "MemFree:        1000000 kB\n"
    "MemAvailable:   24356540 kB\n"
    "HugePages_Total:       8\n"
    "HugePages_Free:        8\n"
    "Hugepagesize:       2048 kB\n";

}  // namespace

TEST_CASE("system parse: meminfo fields in bytes", "[system]") {
  MemInfo m = parse_meminfo(kMeminfo);
  CHECK(m.total_bytes == 24684084 * kKiB);
  CHECK(m.available_bytes == 24356540 * kKiB);
  CHECK(m.hugepage_bytes == 2048 * kKiB);
  CHECK(m.hugepages_total == 8);
}

TEST_CASE("system parse: meminfo without MemAvailable uses MemFree; garbage is ignored",
          "[system]") {
  MemInfo m = parse_meminfo("MemTotal: 100 kB\nMemFree: 40 kB\nbogus line\nMemAvailable: x kB");
  CHECK(m.total_bytes == 100 * kKiB);
  CHECK(m.available_bytes == 40 * kKiB);
  CHECK(parse_meminfo("").total_bytes == 0);
}

TEST_CASE("system parse: /proc/self/cgroup v2 and v1 memory paths", "[system]") {
  ProcCgroup hybrid =
      parse_proc_cgroup("9:name=systemd:/\n4:memory:/process_api/6caf\n3:cpu,cpuacct:/x\n0::/\n");
  REQUIRE(hybrid.v2_path);
  CHECK(*hybrid.v2_path == "/");
  REQUIRE(hybrid.v1_memory_path);
  CHECK(*hybrid.v1_memory_path == "/process_api/6caf");

  ProcCgroup v2 = parse_proc_cgroup("0::/user.slice/user-1000.slice/session-2.scope\n");
  CHECK(*v2.v2_path == "/user.slice/user-1000.slice/session-2.scope");
  CHECK_FALSE(v2.v1_memory_path);

  ProcCgroup joined = parse_proc_cgroup("5:cpu,memory,blkio:/docker/abc\n");
  CHECK(*joined.v1_memory_path == "/docker/abc");
  CHECK_FALSE(joined.v2_path);
}

TEST_CASE("system parse: mountinfo finds cgroup2 and the v1 memory mount", "[system]") {
  CgroupMounts m = parse_mountinfo(
      "25 30 0:22 / /sys rw,nosuid - sysfs sysfs rw\n"
      "31 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
      "33 25 0:28 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
      "34 25 0:29 / /sys/fs/cgroup/cpu rw shared:9 - cgroup cgroup rw,cpu\n");
  REQUIRE(m.v2);
  CHECK(m.v2->mount_point == "/sys/fs/cgroup/unified");
  CHECK(m.v2->root == "/");
  REQUIRE(m.v1_memory);
  CHECK(m.v1_memory->root == "/docker/abc");
  CHECK(m.v1_memory->mount_point == "/sys/fs/cgroup/memory");

  CgroupMounts escaped = parse_mountinfo("1 0 0:1 / /mnt/my\\040cg rw - cgroup2 none rw\n");
  CHECK(escaped.v2->mount_point == "/mnt/my cg");
  CHECK_FALSE(parse_mountinfo("garbage\n\n").v2);
}

TEST_CASE("system parse: cgroup dir strips the mount root", "[system]") {
  CHECK(cgroup_dir({"/", "/sys/fs/cgroup"}, "/a/b") == "/sys/fs/cgroup/a/b");
  CHECK(cgroup_dir({"/", "/sys/fs/cgroup"}, "/") == "/sys/fs/cgroup");
  CHECK(cgroup_dir({"/docker/abc", "/sys/fs/cgroup/memory"}, "/docker/abc") ==
        "/sys/fs/cgroup/memory");
  CHECK(cgroup_dir({"/docker/abc", "/sys/fs/cgroup/memory"}, "/docker/abc/x") ==
        "/sys/fs/cgroup/memory/x");
  // Not under the root (another namespace): the mount point.
  CHECK(cgroup_dir({"/docker/abc", "/sys/fs/cgroup/memory"}, "/docker/abcd") ==
        "/sys/fs/cgroup/memory");
}

TEST_CASE("system parse: cgroup limit values", "[system]") {
  CHECK(parse_cgroup_limit("max\n").kind == LimitKind::kNoLimit);
  CgroupLimit l = parse_cgroup_limit("8589934592\n");
  CHECK(l.kind == LimitKind::kLimit);
  CHECK(l.bytes == 8 * kGiB);
  // cgroup v1's "unlimited".
  CHECK(parse_cgroup_limit("9223372036854771712").kind == LimitKind::kNoLimit);
  CHECK(parse_cgroup_limit("").kind == LimitKind::kInvalid);
  CHECK(parse_cgroup_limit("12abc").kind == LimitKind::kInvalid);
  CHECK(parse_cgroup_limit("-1").kind == LimitKind::kInvalid);
}

TEST_CASE("system parse: THP mode is the bracketed word", "[system]") {
  CHECK(parse_thp_mode("always [madvise] never\n") == "madvise");
  CHECK(parse_thp_mode("[always] madvise never") == "always");
  CHECK(parse_thp_mode("always madvise [never]") == "never");
  CHECK(parse_thp_mode("always madvise never") == "unknown");
  CHECK(parse_thp_mode("") == "unknown");
}

TEST_CASE("system parse: PCIe link speed and width", "[system]") {
  CHECK(parse_link_generation("2.5 GT/s PCIe\n") == 1);
  CHECK(parse_link_generation("5.0 GT/s PCIe") == 2);
  CHECK(parse_link_generation("8.0 GT/s PCIe") == 3);
  CHECK(parse_link_generation("16.0 GT/s PCIe") == 4);
  CHECK(parse_link_generation("32.0 GT/s PCIe") == 5);
  CHECK(parse_link_generation("64.0 GT/s PCIe") == 6);
  CHECK(parse_link_generation("8 GT/s") == 3);
  CHECK(parse_link_generation("Unknown") == 0);
  CHECK(parse_link_generation("Unknown speed") == 0);
  CHECK(parse_link_generation("12.0 GT/s PCIe") == 0);
  CHECK(parse_link_generation("32.0") == 0);
  CHECK(parse_link_width("16\n") == 16);
  CHECK(parse_link_width("x8") == 8);
  CHECK(parse_link_width("0") == 0);
  CHECK(parse_link_width("wide") == 0);
}

TEST_CASE("system parse: PCI bus id and GPU UUID formatting", "[system]") {
  CHECK(normalize_pci_bus_id("0000:B3:00.0") == "0000:b3:00.0");
  CHECK(normalize_pci_bus_id("00000000:17:00.0\n") == "0000:17:00.0");
  const unsigned char uuid[16] = {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0,
                                  0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
  CHECK(format_gpu_uuid(uuid) == "GPU-12345678-9abc-def0-0123-456789abcdef");
}

TEST_CASE("system info: cgroup v2 limit is the lowest over the cgroup and its ancestors",
          "[system]") {
  FakeRoot root;
  root.write("/proc/meminfo", kMeminfo);
  root.write("/proc/self/cgroup", "0::/a/b\n");
  root.write("/proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("/sys/fs/cgroup/a/memory.max", "4294967296\n");
  root.write("/sys/fs/cgroup/a/b/memory.max", "max\n");
  root.write("/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never\n");
  SystemInfo info = read_system_info_at(root.root());
  CHECK(info.ram_bytes == 24684084 * kKiB);
  CHECK(info.hugepages_total == 8);
  REQUIRE(info.cgroup_limit_bytes);
  CHECK(*info.cgroup_limit_bytes == 4 * kGiB);
  CHECK(usable_memory_bytes(info) == 4 * kGiB);
  CHECK(info.thp_mode == "always");
}

TEST_CASE("system info: v2 'max' everywhere means no limit", "[system]") {
  FakeRoot root;
  root.write("/proc/meminfo", kMeminfo);
  root.write("/proc/self/cgroup", "0::/a\n");
  root.write("/proc/self/mountinfo", "30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("/sys/fs/cgroup/a/memory.max", "max\n");
  SystemInfo info = read_system_info_at(root.root());
  CHECK_FALSE(info.cgroup_limit_bytes);
  CHECK(usable_memory_bytes(info) == info.ram_bytes);
  CHECK(info.thp_mode == "unknown");
}

TEST_CASE("system info: hybrid hierarchy falls back to cgroup v1 memory.limit_in_bytes",
          "[system]") {
  FakeRoot root;
  root.write("/proc/meminfo", kMeminfo);
  root.write("/proc/self/cgroup", "4:memory:/docker/abc/inner\n0::/\n");
  root.write("/proc/self/mountinfo",
             "31 25 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
             "33 25 0:28 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n");
  root.write("/sys/fs/cgroup/memory/memory.limit_in_bytes", "2147483648\n");
  root.write("/sys/fs/cgroup/memory/inner/memory.limit_in_bytes", "9223372036854771712\n");
  SystemInfo info = read_system_info_at(root.root());
  REQUIRE(info.cgroup_limit_bytes);
  CHECK(*info.cgroup_limit_bytes == 2 * kGiB);
}

TEST_CASE("system info: a missing tree leaves defaults and does not throw", "[system]") {
  FakeRoot root;
  SystemInfo info = read_system_info_at(root.root() + "/nothing-here");
  CHECK(info.ram_bytes == 0);
  CHECK_FALSE(info.cgroup_limit_bytes);
  CHECK(info.thp_mode == "unknown");
  CHECK(read_pcie_link(root.root(), "0000:17:00.0").generation == 0);
}

TEST_CASE("system info: fake sysfs PCIe link", "[system]") {
  FakeRoot root;
  root.write("/sys/bus/pci/devices/0000:b3:00.0/current_link_speed", "32.0 GT/s PCIe\n");
  root.write("/sys/bus/pci/devices/0000:b3:00.0/current_link_width", "16\n");
  PcieLink link = read_pcie_link(root.root(), "0000:B3:00.0");
  CHECK(link.generation == 5);
  CHECK(link.width == 16);
  CHECK(link.max_generation == 0);  // no max_link_* files: unknown

  // An idle GPU trains its link down; the maximum tells what it can do.
  root.write("/sys/bus/pci/devices/0000:b3:00.0/current_link_speed", "2.5 GT/s PCIe\n");
  root.write("/sys/bus/pci/devices/0000:b3:00.0/max_link_speed", "32.0 GT/s PCIe\n");
  root.write("/sys/bus/pci/devices/0000:b3:00.0/max_link_width", "16\n");
  link = read_pcie_link(root.root(), "0000:B3:00.0");
  CHECK(link.generation == 1);
  CHECK(link.max_generation == 5);
  CHECK(link.max_width == 16);
}

TEST_CASE("system info: plausible values on this machine", "[system]") {
  SystemInfo info = read_system_info();
  CHECK(info.ram_bytes > 0);
  CHECK(info.cpus > 0);
  CHECK(info.available_bytes <= info.ram_bytes);
  CHECK(info.available_bytes > 0);
  CHECK(usable_memory_bytes(info) <= info.ram_bytes);
  CHECK(usable_memory_bytes(info) > 0);
  if (info.memlock_soft_bytes && info.memlock_hard_bytes)
    CHECK(*info.memlock_soft_bytes <= *info.memlock_hard_bytes);
  CHECK_FALSE(info.thp_mode.empty());
}

TEST_CASE("system info: usable memory is min(RAM, cgroup limit)", "[system]") {
  SystemInfo info;
  info.ram_bytes = 64 * kGiB;
  CHECK(usable_memory_bytes(info) == 64 * kGiB);
  info.cgroup_limit_bytes = 16 * kGiB;
  CHECK(usable_memory_bytes(info) == 16 * kGiB);
  info.cgroup_limit_bytes = 128 * kGiB;
  CHECK(usable_memory_bytes(info) == 64 * kGiB);
}

TEST_CASE("system info: read_cuda_info without a GPU reports why, never crashes", "[system]") {
  CudaInfo info = read_cuda_info();
  if (!info.driver_found) {
    // No NVIDIA driver: the reason names the library the driver installs.
    CHECK(info.status.code() == Code::kUnavailable);
    CHECK(info.status.message().find("libcuda.so.1") != std::string::npos);
    CHECK(info.devices.empty());
    return;
  }
  // On a machine with a working GPU this is OK with devices; on one without, UNAVAILABLE.
  if (info.status.ok()) {
    CHECK_FALSE(info.devices.empty());
    for (const CudaDevice& d : info.devices) CHECK(d.uuid.rfind("GPU-", 0) == 0);
  } else {
    CHECK(info.status.code() == Code::kUnavailable);
    CHECK(info.status.message().rfind("unavailable: ", 0) == 0);
    CHECK(info.devices.empty());
  }
  CHECK(info.driver_version >= 12000);
}

// The GPU check's first line (scripts/gpu-check-run): a driver too old for the CUDA runtime the
// binaries carry is named as such, not left to look like a missing GPU.
TEST_CASE("CUDA driver check: too old, new enough, none", "[system]") {
  CHECK(check_cuda_driver(13000, 13000).ok());
  CHECK(check_cuda_driver(13020, 13000).ok());  // a newer minor
  CHECK(check_cuda_driver(13000, 13020).ok());  // minor-version compatibility
  const Status old = check_cuda_driver(12040, 13000);
  CHECK(old.code() == Code::kFailedPrecondition);
  CHECK(old.message() ==
        "driver too old for CUDA 13: needs R580+ (this driver supports CUDA 12.4)");
  CHECK(check_cuda_driver(11080, 12020).message() ==
        "driver too old for CUDA 12: needs R525+ (this driver supports CUDA 11.8)");
  const Status none = check_cuda_driver(0, 13000);
  CHECK(none.code() == Code::kUnavailable);
  CHECK(none.message() == "no NVIDIA driver: code built with CUDA 13.0 cannot run here");
  CHECK(cuda_version_text(12040) == "12.4");
}
