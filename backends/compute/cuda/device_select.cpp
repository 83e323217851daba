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

std::string machine_has(const std::vector<CudaDevice>& have) {
  std::string out = fmt::format("this machine has {} device(s)", have.size());
  for (const CudaDevice& d : have) out += "; " + describe_device(d);
  return out;
}

Result<const CudaDevice*> find(const std::string& entry, const std::vector<CudaDevice>& have) {
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
  const CudaDevice* match = nullptr;
  for (const CudaDevice& d : have) {
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

Result<std::vector<CudaDevice>> resolve_devices(const std::vector<std::string>& wanted,
                                                const std::vector<CudaDevice>& have) {
  if (have.empty()) return unavailable("no CUDA device is visible to this process");
  if (wanted.empty()) return have;
  std::vector<CudaDevice> out;
  for (const std::string& entry : wanted) {
    ZKP_ASSIGN_OR_RETURN(const CudaDevice* d, find(entry, have));
    for (const CudaDevice& seen : out) {
      if (seen.index == d->index) {
        return invalid_argument(
            fmt::format("compute.devices: '{}' names device {} a second time", entry, d->index));
      }
    }
    out.push_back(*d);
  }
  return out;
}

std::string describe_device(const CudaDevice& d) {
  return fmt::format("{}: {} {} (sm_{}{}, {:.1f} GiB)", d.index, d.name, d.uuid, d.cc_major,
                     d.cc_minor, static_cast<double>(d.total_bytes) / (1ull << 30));
}

}  // namespace zkpipe::cuda_backend
