// tools/check_system.cpp: `zkpipe-tool check-system`: prints the machine facts that decide memory
// planning (RAM, cgroup limit, RLIMIT_MEMLOCK, huge pages, CPUs, CUDA driver, runtime and
// devices) and, for each --config, whether its memory cap fits them. Exit 0 no warnings,
// 1 any warning, 2 bad input (a config that does not load).
// Thread-safety: runs on the main thread only.
#include <fmt/format.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "commands.h"
#include "zkpipe/config.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace zkpipe::tool {
namespace {

struct CheckOptions {
  std::vector<std::string> configs;
  bool json = false;
};

// Backends whose buffers are page-locked, so RLIMIT_MEMLOCK and swap do not apply to them the
// way they do to pageable memory.
bool pins_memory(const std::string& backend) {
  return backend == "pinned_pool" || backend == "zero_copy";
}

// 13000 -> "13.0", 12040 -> "12.4"; 0 -> "none".
std::string cuda_version_text(int version) {
  if (version <= 0) return "none";
  return fmt::format("{}.{}", version / 1000, (version % 1000) / 10);
}

std::string bytes_or(const std::optional<uint64_t>& bytes, const char* none) {
  return bytes ? format_bytes(*bytes) : std::string(none);
}

std::string pcie_text(const CudaDevice& d) {
  if (d.pcie_gen == 0 && d.pcie_width == 0) return "PCIe link unknown";
  std::string text = fmt::format("PCIe Gen{} x{}", d.pcie_gen, d.pcie_width);
  if (d.pcie_max_gen != 0 && (d.pcie_max_gen != d.pcie_gen || d.pcie_max_width != d.pcie_width)) {
    text +=
        fmt::format(" (max Gen{} x{}; idle links train down)", d.pcie_max_gen, d.pcie_max_width);
  }
  return text;
}

struct ConfigReport {
  Config config;
  uint64_t cap_bytes = 0;
};

// What is wrong with running `config` (with memory cap `cap`) on this machine.
std::vector<std::string> config_warnings(const Config& config, uint64_t cap, const SystemInfo& sys,
                                         const CudaInfo& cuda) {
  std::vector<std::string> warnings;
  const std::string& backend = config.memory.backend;
  const uint64_t usable = usable_memory_bytes(sys);
  if (usable > 0 && cap > usable)
    warnings.push_back(fmt::format(
        "{}: memory cap {} exceeds usable memory {} (RAM or cgroup limit, whichever is lower); "
        "the process can be OOM-killed before the cap is reached",
        config.path, format_bytes(cap), format_bytes(usable)));
  if (!pins_memory(backend)) return warnings;
  if (sys.memlock_soft_bytes && cap > *sys.memlock_soft_bytes)
    warnings.push_back(fmt::format(
        "{}: backend {} pins up to {} but RLIMIT_MEMLOCK is {} (hard {}); raise it: ulimit -l "
        "unlimited, systemd LimitMEMLOCK=infinity, docker --ulimit memlock=-1",
        config.path, backend, format_bytes(cap), format_bytes(*sys.memlock_soft_bytes),
        bytes_or(sys.memlock_hard_bytes, "unlimited")));
  if (!cuda.status.ok()) {
    std::string then = config.memory.fallback.empty()
                           ? "no fallback is set, so the engine will not start"
                           : "the engine will fall back to '" + config.memory.fallback + "'";
    warnings.push_back(fmt::format("{}: backend {} needs CUDA, which is not usable here ({}); {}",
                                   config.path, backend, cuda.status.message(), then));
  } else if (backend == "zero_copy") {
    bool any_maps = false;
    for (const CudaDevice& d : cuda.devices) any_maps = any_maps || d.can_map_host_memory;
    if (!any_maps)
      warnings.push_back(
          fmt::format("{}: backend zero_copy needs a device that can map host "
                      "memory; none of this machine's devices can",
                      config.path));
  }
  return warnings;
}

void print_table(const SystemInfo& sys, const CudaInfo& cuda,
                 const std::vector<ConfigReport>& configs,
                 const std::vector<std::string>& warnings) {
  auto line = [](std::string_view key, const std::string& value) {
    fmt::print("  {:<24} {}\n", key, value);
  };
  fmt::print("System\n");
  line("RAM", format_bytes(sys.ram_bytes));
  line("available", format_bytes(sys.available_bytes));
  line("cgroup memory limit", bytes_or(sys.cgroup_limit_bytes, "none"));
  line("usable (lower of both)", format_bytes(usable_memory_bytes(sys)));
  line("RLIMIT_MEMLOCK",
       fmt::format("soft {}, hard {}", bytes_or(sys.memlock_soft_bytes, "unlimited"),
                   bytes_or(sys.memlock_hard_bytes, "unlimited")));
  line("transparent huge pages", sys.thp_mode);
  line("huge pages (hugetlbfs)",
       fmt::format("{} x {}", sys.hugepages_total, format_bytes(sys.hugepage_bytes)));
  line("CPUs", std::to_string(sys.cpus));
  fmt::print("CUDA\n");
  line("driver (libcuda.so.1)",
       cuda.driver_found ? cuda_version_text(cuda.driver_version) : std::string("not found"));
  line("status", cuda.status.ok() ? "ok" : cuda.status.message());
  for (const CudaDevice& d : cuda.devices)
    line(fmt::format("device {}", d.index),
         fmt::format("{}, {}, {}, compute {}.{}, {}, bus {}{}", d.name, d.uuid,
                     format_bytes(d.total_bytes), d.cc_major, d.cc_minor, pcie_text(d),
                     d.pci_bus_id, d.can_map_host_memory ? "" : ", cannot map host memory"));
  for (const ConfigReport& c : configs) {
    fmt::print("Config {}\n", c.config.path);
    line("memory backend", c.config.memory.backend);
    line("memory cap", fmt::format("{} ({})", format_bytes(c.cap_bytes),
                                   c.config.memory.cap_bytes ? "configured" : "auto"));
    if (!c.config.memory.fallback.empty()) line("fallback", c.config.memory.fallback);
  }
  for (const std::string& w : warnings) fmt::print("WARNING: {}\n", w);
}

nlohmann::json to_json(const SystemInfo& sys, const CudaInfo& cuda,
                       const std::vector<ConfigReport>& configs,
                       const std::vector<std::string>& warnings) {
  auto opt = [](const std::optional<uint64_t>& v) -> nlohmann::json {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
  };
  nlohmann::json devices = nlohmann::json::array();
  for (const CudaDevice& d : cuda.devices)
    devices.push_back({{"index", d.index},
                       {"name", d.name},
                       {"uuid", d.uuid},
                       {"total_bytes", d.total_bytes},
                       {"compute_capability", fmt::format("{}.{}", d.cc_major, d.cc_minor)},
                       {"pci_bus_id", d.pci_bus_id},
                       {"pcie_gen", d.pcie_gen},
                       {"pcie_width", d.pcie_width},
                       {"pcie_max_gen", d.pcie_max_gen},
                       {"pcie_max_width", d.pcie_max_width},
                       {"can_map_host_memory", d.can_map_host_memory}});
  nlohmann::json config_list = nlohmann::json::array();
  for (const ConfigReport& c : configs)
    config_list.push_back({{"path", c.config.path},
                           {"backend", c.config.memory.backend},
                           {"fallback", c.config.memory.fallback},
                           {"cap_bytes", c.cap_bytes},
                           {"cap_auto", !c.config.memory.cap_bytes.has_value()}});
  return {{"system",
           {{"ram_bytes", sys.ram_bytes},
            {"available_bytes", sys.available_bytes},
            {"cgroup_limit_bytes", opt(sys.cgroup_limit_bytes)},
            {"usable_bytes", usable_memory_bytes(sys)},
            {"memlock_soft_bytes", opt(sys.memlock_soft_bytes)},
            {"memlock_hard_bytes", opt(sys.memlock_hard_bytes)},
            {"thp_mode", sys.thp_mode},
            {"hugepages_total", sys.hugepages_total},
            {"hugepage_bytes", sys.hugepage_bytes},
            {"cpus", sys.cpus}}},
          {"cuda",
           {{"driver_found", cuda.driver_found},
            {"ok", cuda.status.ok()},
            {"status", cuda.status.ok() ? "ok" : cuda.status.message()},
            {"driver_version", cuda.driver_version},
            {"driver_version_text", cuda_version_text(cuda.driver_version)},
            {"devices", devices}}},
          {"configs", config_list},
          {"warnings", warnings}};
}

int run_check(const CheckOptions& opts) {
  // Every config must load before anything is printed: bad input is exit 2, not a report.
  std::vector<ConfigReport> configs;
  for (const std::string& path : opts.configs) {
    Result<Config> config = load_config(path);
    if (!config.ok()) {
      fmt::print(stderr, "check-system: {}\n", config.status().to_string());
      return 2;
    }
    uint64_t cap = resolve_cap_bytes(config->memory);
    configs.push_back({std::move(*config), cap});
  }
  const SystemInfo sys = read_system_info();
  const CudaInfo cuda = read_cuda_info();
  std::vector<std::string> warnings;
  for (const ConfigReport& c : configs)
    for (std::string& w : config_warnings(c.config, c.cap_bytes, sys, cuda))
      warnings.push_back(std::move(w));
  if (opts.json)
    fmt::print("{}\n", to_json(sys, cuda, configs, warnings).dump(2));
  else
    print_table(sys, cuda, configs, warnings);
  return warnings.empty() ? 0 : 1;
}

}  // namespace

void add_check_system(CLI::App& app, int* exit_code) {
  auto opts = std::make_shared<CheckOptions>();
  CLI::App* sub = app.add_subcommand(
      "check-system",
      "Print RAM, cgroup and memlock limits, huge pages, CPUs and CUDA devices, and check each "
      "config's memory cap against them; exit 0 fine, 1 warnings, 2 bad input");
  sub->add_option("--config", opts->configs, "A zkpipe YAML config to check (repeatable)");
  sub->add_flag("--json", opts->json, "Print one JSON object instead of a table");
  sub->callback([opts, exit_code] {
    *exit_code = guarded("check-system", [&] { return run_check(*opts); });
  });
}

}  // namespace zkpipe::tool
