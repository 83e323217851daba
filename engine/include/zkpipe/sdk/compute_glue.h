// zkpipe/sdk/compute_glue.h: the C ABI glue the in-tree compute plugins share
// (zkpipe/sdk/abi/compute.h). A plugin implements Devices (its devices and a prove_start that
// returns the four G1 points) and a create function; ComputeEntries<Create> supplies the
// exported entry points: every call guarded, every struct size and count checked, a registered
// key rebuilt as a groth16::ProvingKey over the engine's arrays (no copy), and results handed
// back in the ABI's layout.
// Thread-safety: as the ABI says. Keys are immutable once registered; prove_start runs on the
// caller's thread (wait returns at once), so concurrency is the Devices implementation's.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>

#include "zkpipe/groth16/prover.h"
#include "zkpipe/sdk/abi/compute.h"
#include "zkpipe/sdk/sdk.h"

namespace zkpipe::compute_plugin {

using crypto::Fr;
using groth16::G1Affine;

static_assert(sizeof(zkp_g1_affine) == sizeof(G1Affine) && std::is_trivially_copyable_v<G1Affine>);
static_assert(offsetof(G1Affine, y) == offsetof(zkp_g1_affine, y) &&
              offsetof(G1Affine, infinity) == offsetof(zkp_g1_affine, infinity));
static_assert(sizeof(zkp_fr) == sizeof(Fr));

// What a device's prove_start reports besides the points.
struct Transfer {
  uint32_t path = ZKP_H2D_NONE;
  uint64_t h2d_bytes = 0, h2d_ns = 0, bases_bytes = 0;
};

// One prove_start call: the key rebuilt from the view, the input with the engine's scalars.
struct StartCall {
  const groth16::ProvingKey& pk;
  const groth16::ProverInput& input;  // a_scalars / b_scalars set
  uint32_t abc_flags = 0;
  void* abc_device = nullptr;
};

class Devices {
 public:
  virtual ~Devices() = default;
  virtual uint32_t count() const = 0;
  // Fills name, model, uuid, memory_bytes and status (+ status_message), and where the backend
  // has device memory, memory_used/free/budget_bytes.
  virtual void info(uint32_t device, zkp_compute_device& out) const = 0;
  // PendingProof::b_scalars stays empty (the engine keeps them).
  virtual Result<groth16::PendingProof> prove_start(uint32_t device, const StartCall& call,
                                                    Transfer& transfer) = 0;
};

// The 1.2 layouts: the smallest structs a caller may pass.
inline constexpr size_t kOptionsMinSize = 32;
inline constexpr size_t kDeviceMinSize = 704;

// Copies `text` into a fixed char array, truncating, NUL-terminated.
template <size_t N>
void copy_text(char (&dst)[N], const std::string& text) {
  const size_t n = text.size() < N - 1 ? text.size() : N - 1;
  std::memcpy(dst, text.data(), n);
  dst[n] = '\0';
}

// A registered key: the engine's arrays seen as a ProvingKey. `owner` is the key's identity for
// device-side caches (they drop what they keep when it expires).
struct Key {
  groth16::ProvingKey pk;
};

struct Pending {
  Status status;
  zkp_prove_result result{};
};

zkp_g1_affine to_abi(const crypto::G1& p);

// Rebuilds the key (checking every count against the densities) and the input.
Result<std::unique_ptr<Key>> make_key(const zkp_key_view& view);
// The smallest zkp_prove_input a plugin accepts: the 1.2 layout (through b_count).
inline constexpr uint32_t kProveInputSize12 = 96;
// zkp_prove_input.stop as the prover reads it; nullptr when the input's struct_size (an engine
// before ABI 1.6) does not cover it, or the engine passed none.
const std::atomic<uint32_t>* stop_flag(const zkp_prove_input& in);
static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) &&
              std::atomic<uint32_t>::is_always_lock_free);
Status check_input(const groth16::ProvingKey& pk, const zkp_prove_input& in);

// The exported entry points of a plugin whose Devices come from
// `Result<std::unique_ptr<Devices>> Create(const zkp_compute_options&)`.
template <Result<std::unique_ptr<Devices>> (*Create)(const zkp_compute_options&)>
struct ComputeEntries {
  static zkp_status create(const zkp_compute_options* options, zkp_compute** out, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (options == nullptr || out == nullptr) return invalid_argument("create: null argument");
      // From the 1.2 layout on; the fields the caller's struct does not reach read as 0.
      if (options->struct_size < kOptionsMinSize) {
        return invalid_argument("create: zkp_compute_options.struct_size " +
                                std::to_string(options->struct_size) + " < " +
                                std::to_string(kOptionsMinSize));
      }
      zkp_compute_options o{};
      std::memcpy(&o, options, std::min<size_t>(options->struct_size, sizeof o));
      o.struct_size = sizeof o;
      if (o.workers_per_device == 0)
        return invalid_argument("compute.workers_per_device: must be at least 1");
      ZKP_ASSIGN_OR_RETURN(std::unique_ptr<Devices> d, Create(o));
      *out = reinterpret_cast<zkp_compute*>(d.release());
      return ok_status();
    });
  }
  static void destroy(zkp_compute* c) { delete reinterpret_cast<Devices*>(c); }
  static uint32_t device_count(const zkp_compute* c) {
    return reinterpret_cast<const Devices*>(c)->count();
  }
  static zkp_status device_info(const zkp_compute* c, uint32_t device, zkp_compute_device* out,
                                zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      const auto* d = reinterpret_cast<const Devices*>(c);
      if (out == nullptr) return invalid_argument("device_info: null output");
      if (device >= d->count()) {
        return invalid_argument("device_info: device " + std::to_string(device) + " of " +
                                std::to_string(d->count()));
      }
      // The caller's struct from the 1.2 layout on: write what it has room for.
      if (out->struct_size < kDeviceMinSize) {
        return invalid_argument("device_info: zkp_compute_device.struct_size " +
                                std::to_string(out->struct_size) + " < " +
                                std::to_string(kDeviceMinSize));
      }
      const size_t size = std::min<size_t>(out->struct_size, sizeof(zkp_compute_device));
      zkp_compute_device info{};
      d->info(device, info);
      info.struct_size = static_cast<uint32_t>(size);
      std::memcpy(out, &info, size);
      return ok_status();
    });
  }
  static zkp_status register_key(zkp_compute*, const zkp_key_view* view, zkp_compute_key** out,
                                 zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (view == nullptr || out == nullptr) return invalid_argument("register_key: null argument");
      ZKP_ASSIGN_OR_RETURN(std::unique_ptr<Key> key, make_key(*view));
      *out = reinterpret_cast<zkp_compute_key*>(key.release());
      return ok_status();
    });
  }
  static void destroy_key(zkp_compute*, zkp_compute_key* key) {
    delete reinterpret_cast<Key*>(key);
  }
  static zkp_status prove_start(zkp_compute* c, uint32_t device, const zkp_compute_key* key,
                                const zkp_prove_input* in, zkp_compute_pending** out,
                                zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      auto* d = reinterpret_cast<Devices*>(c);
      if (key == nullptr || in == nullptr || out == nullptr)
        return invalid_argument("prove_start: null argument");
      if (device >= d->count()) {
        return invalid_argument("prove_start: device " + std::to_string(device) + " of " +
                                std::to_string(d->count()));
      }
      const groth16::ProvingKey& pk = reinterpret_cast<const Key*>(key)->pk;
      ZKP_RETURN_IF_ERROR(check_input(pk, *in));
      auto* abc = reinterpret_cast<Fr*>(in->abc);
      groth16::ProverInput input;
      input.witness.inputs = {reinterpret_cast<const Fr*>(in->inputs), in->num_inputs};
      input.witness.aux = {reinterpret_cast<const Fr*>(in->aux), in->num_aux};
      input.a = abc;
      input.b = abc + in->n;
      input.c = abc + 2 * in->n;
      input.n = in->n;
      input.a_scalars = reinterpret_cast<const Fr*>(in->a_scalars);
      input.b_scalars = reinterpret_cast<const Fr*>(in->b_scalars);
      input.stop = stop_flag(*in);
      // A pending always comes back (wait reports a failure), so the engine has one path.
      auto pending = std::make_unique<Pending>();
      Transfer transfer;
      Result<groth16::PendingProof> r =
          d->prove_start(device, StartCall{pk, input, in->abc_flags, in->abc_device}, transfer);
      zkp_prove_result& res = pending->result;
      res.struct_size = sizeof(zkp_prove_result);
      res.h2d_path = transfer.path;
      res.h2d_bytes = transfer.h2d_bytes;
      res.h2d_ns = transfer.h2d_ns;
      res.bases_bytes = transfer.bases_bytes;
      if (r.ok()) {
        res.h = to_abi(r->h);
        res.l = to_abi(r->l);
        res.a = to_abi(r->a);
        res.b_g1 = to_abi(r->b_g1);
        res.ntt_ns = r->timings.ntt_ns;
        res.h_msm_ns = r->timings.h_msm_ns;
        res.l_msm_ns = r->timings.l_msm_ns;
        res.a_msm_ns = r->timings.a_msm_ns;
        res.b_g1_msm_ns = r->timings.b_g1_msm_ns;
      } else {
        pending->status = r.status();
      }
      *out = reinterpret_cast<zkp_compute_pending*>(pending.release());
      return ok_status();
    });
  }
  static zkp_status wait(zkp_compute_pending* p, int64_t, zkp_prove_result* out, zkp_error err) {
    return sdk::guard(err, [&]() -> Status {
      if (p == nullptr || out == nullptr) return invalid_argument("wait: null argument");
      const auto* pending = reinterpret_cast<const Pending*>(p);
      ZKP_RETURN_IF_ERROR(pending->status);
      *out = pending->result;
      return ok_status();
    });
  }
  static void destroy_pending(zkp_compute_pending* p) { delete reinterpret_cast<Pending*>(p); }
};

// The descriptor's function pointers, after the header.
#define ZKP_COMPUTE_ENTRIES(E)                                                             \
  E::create, E::destroy, E::device_count, E::device_info, E::register_key, E::destroy_key, \
      E::prove_start, E::wait, E::destroy_pending

// A self-test both plugins run: prove a small circuit on every device and check the proof
// against the verifier and the points against the CPU reference (groth16::prove_start).
Status self_test_devices(Devices& devices);

}  // namespace zkpipe::compute_plugin
