// apps/zkpipe/plan_device.h: `zkpipe plan` for a GPU this machine need not have. A device is
// described by its memory (--device-memory 141GiB) or a known model's name (--device H200); the
// engine then plans with a stand-in compute backend of that many devices that proves nothing
// (the config's compute plugin is not opened), and the device memory of the circuit is the CUDA
// prover's own plan (backends/compute/cuda/device_plan.h). Thread-safety: main thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device_plan.h"
#include "zkpipe/config.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/pipeline/memory_model.h"

namespace zkpipe::cli {

struct KnownDevice {
  const char* name;   // as given to --device (case-insensitive)
  uint64_t bytes;     // the memory nvidia-smi reports for it (MiB x 2^20)
  const char* model;  // the product
};
const std::vector<KnownDevice>& known_devices();

// The memory of --device-memory SIZE or --device NAME (exactly one of them non-empty).
// INVALID_ARGUMENT naming the option, listing the known names for an unknown one.
Result<uint64_t> described_device_memory(const std::string& memory, const std::string& name);

// A compute backend of `devices` planning devices for an engine that plans and proves nothing:
// prove_start and prove_finish are FAILED_PRECONDITION.
std::unique_ptr<pipeline::ComputeBackend> planning_compute(const std::string& backend,
                                                           size_t devices, uint64_t memory);

// The device plan of the predicted circuit on a device of `memory` bytes under the config.
cuda_backend::DevicePlan plan_device_of(const pipeline::MemoryPrediction& p, const Config& config,
                                        uint64_t memory);
nlohmann::json device_plan_json(const cuda_backend::DevicePlan& d, const std::string& described);
void print_device_plan(const cuda_backend::DevicePlan& d, const std::string& described);

}  // namespace zkpipe::cli
