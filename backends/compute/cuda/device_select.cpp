// backends/compute/cuda/device_select.cpp: see device_select.h.
#include "device_select.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace zkpipe::cuda_backend {
namespace {

bool all_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string machine_has(const std::vector<DeviceInfo>& have) {
  std::string out = fmt::format("this machine has {} device(s)", have.size());
  for (const DeviceInfo& d : have) out += "; " + describe_device(d);
  return out;
}

Result<const DeviceInfo*> find(const std::string& entry, const std::vector<DeviceInfo>& have) {
  if (all_digits(entry)) {
    const size_t i = entry.size() > 6 ? have.size() : std::stoul(entry);
    if (i >= have.size()) {
      return invalid_argument(
          fmt::format("compute.devices: no CUDA device {} ({})", entry, machine_has(have)));
    }
    return &have[i];
  }
  const std::string want =
      lower(entry.rfind("GPU-", 0) == 0 || entry.rfind("gpu-", 0) == 0 ? entry : "gpu-" + entry);
  if (want.size() < 12) {
    return invalid_argument(fmt::format(
        "compute.devices: '{}' is neither an index nor a UUID (GPU- and at least 8 hex digits)",
        entry));
  }
  const DeviceInfo* match = nullptr;
  for (const DeviceInfo& d : have) {
    if (lower(d.uuid).rfind(want, 0) != 0) continue;
    if (match != nullptr) {
      return invalid_argument(fmt::format("compute.devices: '{}' matches more than one device ({})",
                                          entry, machine_has(have)));
    }
    match = &d;
  }
  if (match == nullptr) {
    return invalid_argument(
        fmt::format("compute.devices: no device has UUID '{}' ({})", entry, machine_has(have)));
  }
  return match;
}

}  // namespace

std::string format_uuid(const unsigned char (&b)[16]) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", b[i]);
  }
  return "GPU-" + hex;
}

Result<std::vector<DeviceInfo>> resolve_devices(const std::vector<std::string>& wanted,
                                                const std::vector<DeviceInfo>& have) {
  if (have.empty()) return unavailable("no CUDA device is visible to this process");
  if (wanted.empty()) return have;
  std::vector<DeviceInfo> out;
  for (const std::string& entry : wanted) {
    ZKP_ASSIGN_OR_RETURN(const DeviceInfo* d, find(entry, have));
    for (const DeviceInfo& seen : out) {
      if (seen.index == d->index) {
        return invalid_argument(
            fmt::format("compute.devices: '{}' names device {} a second time", entry, d->index));
      }
    }
    out.push_back(*d);
  }
  return out;
}

std::string describe_device(const DeviceInfo& d) {
  return fmt::format("{}: {} {} (sm_{}{}, {} SMs, {:.1f} GiB)", d.index, d.name, d.uuid, d.cc_major,
                     d.cc_minor, d.sm_count, static_cast<double>(d.total_memory) / (1ull << 30));
}

}  // namespace zkpipe::cuda_backend
