// backends/compute/cpu/cpu.cpp: the `cpu` compute backend plugin: one device, "cpu0", running
// the reference prove_start of engine/crypto/groth16 (the quotient by NTTs, the G1 MSMs) on
// compute.threads threads per call. Every proof it makes equals, bit for bit, the one the
// reference prover makes with the same randomness.
// Thread-safety: stateless apart from the thread count; calls run concurrently on the callers'
// threads.
#include <optional>
#include <string>
#include <thread>

#include "zkpipe/crypto/cpu_kernels.h"
#include "zkpipe/sdk/compute_glue.h"
#include "zkpipe/sdk/sdk.h"

namespace {

using zkpipe::Result;
using zkpipe::Status;
using namespace zkpipe::compute_plugin;

constexpr const char* kName = "cpu";

class CpuDevices final : public Devices {
 public:
  explicit CpuDevices(unsigned threads) { options_.threads = threads; }
  uint32_t count() const override { return 1; }
  void info(uint32_t, zkp_compute_device& out) const override {
    const unsigned n =
        options_.threads != 0 ? options_.threads : std::thread::hardware_concurrency();
    copy_text(out.name, "cpu0");
    copy_text(out.model, "host (" + std::to_string(n) + " threads per call)");
    out.status = ZKP_OK;
  }
  Result<zkpipe::groth16::PendingProof> prove_start(uint32_t, const StartCall& call,
                                                    Transfer& transfer) override {
    transfer = {};  // read in place
    return zkpipe::groth16::prove_start(call.pk, call.input, options_);
  }

 private:
  zkpipe::groth16::ProverOptions options_;
};

Result<std::unique_ptr<Devices>> create_devices(const zkp_compute_options& options) {
  if (std::optional<std::string> bad = zkpipe::crypto::cpu_kernels_error()) {
    return zkpipe::invalid_argument(*bad);
  }
  if (options.device_count > 0) {
    std::string named;
    for (uint32_t i = 0; i < options.device_count; ++i)
      named += (i ? ", " : "") + std::string(options.devices[i] ? options.devices[i] : "");
    return zkpipe::invalid_argument(
        "compute.devices: the cpu backend has one device (cpu0) and "
        "takes no device list (got: " +
        named + ")");
  }
  if (options.device_budget_bytes != 0) {
    return zkpipe::invalid_argument(
        "compute.device_budget: the cpu backend has no device memory (host memory is "
        "pipeline.budget); leave the key out");
  }
  return std::unique_ptr<Devices>(std::make_unique<CpuDevices>(options.threads));
}

zkp_status init(const zkp_host* host, zkp_error err) {
  return zkpipe::sdk::guard(err, [&] { zkpipe::sdk::set_host(host); });
}

zkp_status self_test(zkp_error err) {
  return zkpipe::sdk::guard(err, [] {
    CpuDevices devices(0);
    return self_test_devices(devices);
  });
}

using Entries = ComputeEntries<create_devices>;

}  // namespace

ZKP_EXPORT_PLUGIN(zkp_compute_backend) = {
    zkpipe::sdk::header<zkp_compute_backend>(ZKP_KIND_COMPUTE, kName, "0.1.0", ZKP_BUILD_TAG, init,
                                             self_test),
    ZKP_COMPUTE_ENTRIES(Entries),
};
