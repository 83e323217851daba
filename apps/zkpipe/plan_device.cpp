// `zkpipe plan` for a described GPU (plan_device.h).
#include "plan_device.h"

#include <fmt/core.h>

#include <algorithm>
#include <cctype>

#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

class PlanningCompute final : public pipeline::ComputeBackend {
 public:
  PlanningCompute(std::string backend, size_t devices, uint64_t memory)
      : backend_(std::move(backend)), devices_(devices), memory_(memory) {}
  std::string name() const override { return backend_ + " (planned)"; }
  size_t device_count() const override { return devices_; }
  std::string device_name(size_t d) const override { return "planned" + std::to_string(d); }
  pipeline::DeviceMemoryStatus device_memory(size_t) const override {
    return {memory_, 0, memory_, 0};
  }
  Result<groth16::PendingProof> prove_start(size_t, const pipeline::StartInput&,
                                            pipeline::StartStats&) override {
    return failed_precondition("a planned device proves nothing (zkpipe plan)");
  }
  Result<groth16::Proof> prove_finish(groth16::PendingProof&&,
                                      const groth16::ProverRandomness&) override {
    return failed_precondition("a planned device proves nothing (zkpipe plan)");
  }

 private:
  std::string backend_;
  size_t devices_;
  uint64_t memory_;
};

}  // namespace

const std::vector<KnownDevice>& known_devices() {
  constexpr uint64_t kMiB = 1ull << 20;
  static const std::vector<KnownDevice> kDevices = {
      {"H200", 143771 * kMiB, "NVIDIA H200 (141 GB HBM3e)"},
      {"H100", 81559 * kMiB, "NVIDIA H100 80GB (SXM or PCIe)"},
      {"A100-80GB", 81920 * kMiB, "NVIDIA A100 80GB"},
      {"A100-40GB", 40960 * kMiB, "NVIDIA A100 40GB"},
      {"L40S", 46068 * kMiB, "NVIDIA L40S (48 GB)"},
      {"RTX-A6000", 49140 * kMiB, "NVIDIA RTX A6000 (48 GB)"},
      {"RTX-5090", 32607 * kMiB, "NVIDIA GeForce RTX 5090 (32 GB)"},
      {"RTX-4090", 24564 * kMiB, "NVIDIA GeForce RTX 4090 (24 GB)"},
      {"RTX-3090", 24576 * kMiB, "NVIDIA GeForce RTX 3090 (24 GB)"},
      {"L4", 23034 * kMiB, "NVIDIA L4 (24 GB)"},
  };
  return kDevices;
}

Result<uint64_t> described_device_memory(const std::string& memory, const std::string& name) {
  if (!memory.empty()) {
    Result<uint64_t> bytes = parse_size(memory);
    if (!bytes.ok() || *bytes == 0) {
      return invalid_argument("--device-memory " + memory +
                              ": not a size of device memory (e.g. 80GiB, 141GiB, 24576MiB)");
    }
    return *bytes;
  }
  std::string names;
  for (const KnownDevice& d : known_devices()) {
    if (lower(d.name) == lower(name)) return d.bytes;
    names += (names.empty() ? "" : ", ") + std::string(d.name);
  }
  return invalid_argument("--device " + name + ": not a known GPU (known: " + names +
                          "); give its memory with --device-memory instead");
}

std::unique_ptr<pipeline::ComputeBackend> planning_compute(const std::string& backend,
                                                           size_t devices, uint64_t memory) {
  return std::make_unique<PlanningCompute>(backend, std::max<size_t>(devices, 1), memory);
}

cuda_backend::DevicePlan plan_device_of(const pipeline::MemoryPrediction& p, const Config& config,
                                        uint64_t memory) {
  cuda_backend::DeviceCircuit c;
  c.domain = p.prover.domain;
  c.num_aux = p.num_aux;
  c.h_points = p.prover.h_points;
  c.l_points = p.prover.l_points;
  c.a_points = p.prover.a_points;
  c.b_points = p.prover.b_points;
  return cuda_backend::plan_device(c, memory, config.compute.workers_per_device,
                                   config.compute.device_budget_bytes);
}

nlohmann::json device_plan_json(const cuda_backend::DevicePlan& d, const std::string& described) {
  return {{"described_as", described},
          {"memory_bytes", d.device_bytes},
          {"lanes", d.lanes},
          {"plannable_bytes", d.plannable},
          {"reserve_bytes", cuda_backend::kDeviceReserveBytes},
          {"ntt_tables_bytes", d.twiddles},
          {"bases_bytes", d.bases},
          {"bases_resident", d.bases_resident},
          {"chunk_points", d.chunk_points},
          {"staging_bytes_per_lane", d.staging},
          {"working_set_bytes_per_lane", d.working_set},
          {"msm_scratch_bytes_per_lane", d.msm_scratch},
          {"peak_bytes", d.peak},
          {"fits", d.fits},
          {"problem", d.problem}};
}

void print_device_plan(const cuda_backend::DevicePlan& d, const std::string& described) {
  fmt::print("device ({}, {}): peak {} of it, {} lane(s)\n", described,
             format_bytes(d.device_bytes), format_bytes(d.peak), d.lanes);
  if (d.bases_resident) {
    fmt::print("  G1 bases resident: {}\n", format_bytes(d.bases));
  } else {
    fmt::print("  G1 bases streamed ({} in all): {} points a chunk, {} staging a lane\n",
               format_bytes(d.bases), d.chunk_points, format_bytes(d.staging));
  }
  fmt::print("  a lane's working set: {} (a/b/c, scalars, MSM scratch {}); NTT tables {}\n",
             format_bytes(d.working_set), format_bytes(d.msm_scratch), format_bytes(d.twiddles));
  if (!d.fits) fmt::print("warning: the device does not fit: {}\n", d.problem);
}

}  // namespace zkpipe::cli
