// engine/plugin/compute_plugin.cpp: PluginCompute, the pipeline's ComputeBackend over a compute
// plugin's C ABI (zkpipe/sdk/abi/compute.h), and open_compute_backend. Keys are registered with the
// plugin at first use and destroyed when the engine's key is gone (its storage expired) and no call
// uses them; prove_start hands the plugin the density scalars and keeps the B ones for
// prove_finish, which runs here on the CPU. Thread-safety: prove_start/prove_finish run
// concurrently; the key table is under a mutex, a key in use is pinned by a count so it is never
// destroyed under a call.
#include <spdlog/spdlog.h>

#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "zkpipe/pipeline/compute.h"
#include "zkpipe/sdk/abi/compute.h"

namespace zkpipe::pipeline {
namespace {

using crypto::G1;
using groth16::Fr;
using groth16::G1Affine;

static_assert(sizeof(zkp_g1_affine) == sizeof(G1Affine));
static_assert(sizeof(zkp_fr) == sizeof(Fr));

// A plugin's code as a Status (an unknown value is INTERNAL, never an out-of-range Code).
Status plugin_status(zkp_status rc, const std::string& plugin, const std::string& call,
                     const char* message) {
  return status_from_plugin(rc, plugin + ": " + call, message[0] ? message : "(no message)");
}

G1 from_abi(const zkp_g1_affine& p) {
  G1Affine a;
  std::memcpy(&a, &p, sizeof a);
  a.infinity = p.infinity != 0;
  return G1::from_affine(a);
}

const char* path_name(uint32_t path) {
  switch (path) {
    case ZKP_H2D_PAGEABLE:
      return "pageable";
    case ZKP_H2D_PINNED:
      return "pinned";
    case ZKP_H2D_MAPPED:
      return "mapped";
    default:
      return "";
  }
}

class PluginCompute final : public ComputeBackend {
 public:
  PluginCompute(const LoadedPlugin& plugin, zkp_compute* instance, unsigned threads)
      : plugin_(plugin), t_(plugin.table<zkp_compute_backend>()), instance_(instance) {
    finish_.threads = threads;
    const uint32_t n = t_->device_count(instance_);
    for (uint32_t d = 0; d < n; ++d) {
      zkp_compute_device info = device_info(d);
      names_.push_back(info.name[0] ? info.name : plugin_.manifest.name + std::to_string(d));
    }
  }

  ~PluginCompute() override {
    for (KeyEntry& k : keys_) t_->destroy_key(instance_, k.handle);
    t_->destroy(instance_);
  }

  std::string name() const override { return plugin_.manifest.name; }
  size_t device_count() const override { return names_.size(); }
  std::string device_name(size_t device) const override { return names_[device]; }

  Status device_status(size_t device) const override {
    std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
    zkp_compute_device info{};
    info.struct_size = sizeof info;
    const zkp_status rc = t_->device_info(instance_, static_cast<uint32_t>(device), &info,
                                          zkp_error{msg.data(), msg.size()});
    if (rc != ZKP_OK) return plugin_status(rc, name(), "device_info", msg.data());
    if (info.status == ZKP_OK) return ok_status();
    info.status_message[sizeof info.status_message - 1] = '\0';
    return plugin_status(info.status, name(), names_[device], info.status_message);
  }

  DeviceMemoryStatus device_memory(size_t device) const override {
    const zkp_compute_device info = device_info(static_cast<uint32_t>(device));
    DeviceMemoryStatus m;
    m.total_bytes = info.memory_bytes;
    // A 1.2/1.3 plugin writes the shorter struct: its memory fields stay 0.
    if (info.struct_size >= offsetof(zkp_compute_device, memory_budget_bytes) + sizeof(uint64_t)) {
      m.used_bytes = info.memory_used_bytes;
      m.free_bytes = info.memory_free_bytes;
      m.budget_bytes = info.memory_budget_bytes;
    }
    return m;
  }

  Result<groth16::PendingProof> prove_start(size_t device, const StartInput& in,
                                            StartStats& stats) override {
    stats = {};
    const groth16::ProvingKey& pk = in.pk;
    const groth16::ProverInput& p = in.prover;
    if (p.n != pk.domain_size || p.a == nullptr || p.b != p.a + p.n || p.c != p.b + p.n) {
      return invalid_argument("prove_start: a/b/c must be one buffer of 3 x " +
                              std::to_string(pk.domain_size) + " elements");
    }
    ZKP_ASSIGN_OR_RETURN(KeyEntry * key, pin_key(pk));
    struct Unpin {
      PluginCompute* self;
      KeyEntry* key;
      ~Unpin() { self->unpin_key(key); }
    } unpin{this, key};

    const std::vector<Fr> a_scalars = groth16::density_scalars(pk.a_density, p.witness);
    std::vector<Fr> b_scalars = groth16::density_scalars(pk.b_density, p.witness);
    zkp_prove_input abi{};
    abi.struct_size = sizeof abi;
    abi.abc_flags = in.abc_flags;
    abi.abc = reinterpret_cast<zkp_fr*>(p.a);
    abi.abc_device = in.abc_device;
    abi.n = p.n;
    abi.inputs = reinterpret_cast<const zkp_fr*>(p.witness.inputs.data());
    abi.num_inputs = p.witness.inputs.size();
    abi.aux = reinterpret_cast<const zkp_fr*>(p.witness.aux.data());
    abi.num_aux = p.witness.aux.size();
    abi.a_scalars = reinterpret_cast<const zkp_fr*>(a_scalars.data());
    abi.a_count = a_scalars.size();
    abi.b_scalars = reinterpret_cast<const zkp_fr*>(b_scalars.data());
    abi.b_count = b_scalars.size();
    abi.stop = reinterpret_cast<const uint32_t*>(p.stop);

    std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
    const zkp_error err{msg.data(), msg.size()};
    zkp_compute_pending* pending = nullptr;
    zkp_status rc =
        t_->prove_start(instance_, static_cast<uint32_t>(device), key->handle, &abi, &pending, err);
    if (rc != ZKP_OK) return plugin_status(rc, names_[device], "prove_start", msg.data());
    zkp_prove_result res{};
    res.struct_size = sizeof res;
    do {
      msg[0] = '\0';
      rc = t_->wait(pending, -1, &res, err);
    } while (rc == ZKP_ERR_DEADLINE_EXCEEDED);
    t_->destroy_pending(pending);
    if (rc != ZKP_OK) return plugin_status(rc, names_[device], "prove_start", msg.data());

    stats.h2d_bytes = res.h2d_bytes;
    stats.h2d_ns = res.h2d_ns;
    stats.h2d_path = path_name(res.h2d_path);
    stats.bases_bytes = res.bases_bytes;
    groth16::PendingProof out;
    out.pk = &pk;
    out.h = from_abi(res.h);
    out.l = from_abi(res.l);
    out.a = from_abi(res.a);
    out.b_g1 = from_abi(res.b_g1);
    out.b_scalars = std::move(b_scalars);
    out.timings.ntt_ns = res.ntt_ns;
    out.timings.h_msm_ns = res.h_msm_ns;
    out.timings.l_msm_ns = res.l_msm_ns;
    out.timings.a_msm_ns = res.a_msm_ns;
    out.timings.b_g1_msm_ns = res.b_g1_msm_ns;
    return out;
  }

  Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                      const groth16::ProverRandomness& randomness) override {
    return groth16::prove_finish(std::move(pending), randomness, finish_);
  }

 private:
  struct KeyEntry {
    const groth16::ProvingKey* pk = nullptr;
    std::weak_ptr<const void> owner;  // the key's storage: expired when the key is gone
    const void* h_data = nullptr;
    zkp_compute_key* handle = nullptr;
    unsigned in_use = 0;
  };

  zkp_compute_device device_info(uint32_t d) const {
    std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
    zkp_compute_device info{};
    info.struct_size = sizeof info;
    if (t_->device_info(instance_, d, &info, zkp_error{msg.data(), msg.size()}) != ZKP_OK) {
      return zkp_compute_device{};
    }
    info.name[sizeof info.name - 1] = '\0';
    return info;
  }

  bool same_key(const KeyEntry& k, const groth16::ProvingKey& pk) const {
    return k.pk == &pk && k.h_data == pk.h_query.data() && !k.owner.owner_before(pk.storage) &&
           !pk.storage.owner_before(k.owner);
  }

  Result<KeyEntry*> pin_key(const groth16::ProvingKey& pk) {
    std::lock_guard lock(mu_);
    // Keys whose engine key is gone (evicted params) and that no call uses are freed now.
    for (auto it = keys_.begin(); it != keys_.end();) {
      if (it->in_use == 0 && it->owner.expired() && it->pk != nullptr) {
        t_->destroy_key(instance_, it->handle);
        it = keys_.erase(it);
      } else {
        ++it;
      }
    }
    for (KeyEntry& k : keys_) {
      if (same_key(k, pk)) {
        ++k.in_use;
        return &k;
      }
    }
    zkp_key_view v{};
    v.struct_size = sizeof v;
    v.num_inputs = pk.num_inputs;
    v.num_aux = pk.num_aux;
    v.domain_size = pk.domain_size;
    v.a_density = pk.a_density.bits.data();
    v.b_density = pk.b_density.bits.data();
    v.density_words = pk.a_density.bits.size();
    if (pk.b_density.bits.size() != v.density_words)
      return invalid_argument("prove_start: the key's A and B densities differ in size");
    auto view = [](std::span<const G1Affine> s) {
      return reinterpret_cast<const zkp_g1_affine*>(s.data());
    };
    v.h_query = view(pk.h_query);
    v.h_count = pk.h_query.size();
    v.l_query = view(pk.l_query);
    v.l_count = pk.l_query.size();
    v.a_query = view(pk.a_query);
    v.a_count = pk.a_query.size();
    v.b_g1_query = view(pk.b_g1_query);
    v.b_count = pk.b_g1_query.size();
    std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
    zkp_compute_key* handle = nullptr;
    const zkp_status rc =
        t_->register_key(instance_, &v, &handle, zkp_error{msg.data(), msg.size()});
    if (rc != ZKP_OK) return plugin_status(rc, name(), "register_key", msg.data());
    keys_.push_back({&pk, pk.storage, pk.h_query.data(), handle, 1});
    return &keys_.back();
  }

  void unpin_key(KeyEntry* key) {
    std::lock_guard lock(mu_);
    --key->in_use;
  }

  const LoadedPlugin& plugin_;
  const zkp_compute_backend* t_;
  zkp_compute* instance_;
  std::vector<std::string> names_;
  groth16::ProverOptions finish_;
  std::mutex mu_;
  std::list<KeyEntry> keys_;  // guarded by mu_; a list: pinned entries keep their address
};

}  // namespace

Result<std::unique_ptr<ComputeBackend>> open_compute_backend(const ComputeConfig& config,
                                                             PluginRegistry& registry,
                                                             uint32_t memory_flags) {
  Result<const LoadedPlugin*> loaded = registry.load(config.backend, ZKP_KIND_COMPUTE);
  if (!loaded.ok()) return loaded.status().with_context("compute.backend " + config.backend);
  const LoadedPlugin& plugin = **loaded;
  if (!plugin.available()) {
    return unavailable("compute.backend " + config.backend + ": the plugin cannot run here: " +
                       plugin.init_status.message() + " (" + plugin.library_path + ")");
  }
  const auto* t = plugin.table<zkp_compute_backend>();
  std::vector<const char*> devices;
  for (const std::string& d : config.devices) devices.push_back(d.c_str());
  zkp_compute_options options{};
  options.struct_size = sizeof options;
  options.workers_per_device = config.workers_per_device;
  options.threads = config.threads;
  options.memory_flags = memory_flags;
  options.devices = devices.empty() ? nullptr : devices.data();
  options.device_count = static_cast<uint32_t>(devices.size());
  options.device_budget_bytes = config.device_budget_bytes;
  std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
  zkp_compute* instance = nullptr;
  const zkp_status rc = t->create(&options, &instance, zkp_error{msg.data(), msg.size()});
  if (rc != ZKP_OK) {
    return plugin_status(rc, "compute.backend " + config.backend, "create", msg.data());
  }
  if (t->device_count(instance) == 0) {
    t->destroy(instance);
    return unavailable("compute.backend " + config.backend + ": the plugin has no device");
  }
  return std::unique_ptr<ComputeBackend>(
      std::make_unique<PluginCompute>(plugin, instance, config.threads));
}

}  // namespace zkpipe::pipeline
