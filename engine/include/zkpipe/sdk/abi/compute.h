/* zkpipe/sdk/abi/compute.h: the compute backend plugin ABI (kind ZKP_KIND_COMPUTE, new in 1.2).
 * A compute backend runs the first half of a Groth16 proof (prove_start: the quotient H by
 * NTTs, then the G1 MSMs of H, L, A and B) on its devices. The engine keeps the second half
 * (prove_finish: the G2 MSM of B, blinding, assembly) on the CPU.
 * Points cross as zkp_g1_affine: BLS12-381 G1 affine, Fq in Montgomery form (six little-endian
 * 64-bit limbs), the engine's in-memory layout; scalars as zkp_fr (common.h).
 * Buffer properties come from the memory ABI: the pool-level flags at create
 * (zkp_compute_options.memory_flags) and each a/b/c buffer's own flags and device pointer at
 * prove_start; never from a plugin's name.
 * Thread-safety: create/destroy on one thread. On one instance: device_count and device_info
 * are thread-safe; register_key and destroy_key are serialized by the engine; prove_start may
 * run concurrently on any devices (up to workers_per_device calls per device at once); wait
 * and destroy_pending are called once per pending, on the thread that started it. */
#pragma once

#include "zkpipe/sdk/abi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct zkp_g1_affine {
  uint64_t x[6];
  uint64_t y[6];
  uint8_t infinity; /* 1: the point at infinity (x, y zero) */
  uint8_t pad[7];   /* zero */
} zkp_g1_affine;

#define ZKP_DEVICE_NAME_BYTES 32
#define ZKP_DEVICE_MODEL_BYTES 96
#define ZKP_DEVICE_UUID_BYTES 48
#define ZKP_DEVICE_STATUS_BYTES 512

typedef struct zkp_compute_device {
  uint32_t struct_size;
  zkp_status status;     /* ZKP_OK while it takes work; else why not (e.g. quarantined) */
  uint64_t memory_bytes; /* device memory; 0 for the host */
  char name[ZKP_DEVICE_NAME_BYTES];             /* the label in logs and traces: "cpu0", "cuda1" */
  char model[ZKP_DEVICE_MODEL_BYTES];           /* "NVIDIA H200", "host (16 threads)" */
  char uuid[ZKP_DEVICE_UUID_BYTES];             /* "GPU-...", or empty */
  char status_message[ZKP_DEVICE_STATUS_BYTES]; /* empty when status is ZKP_OK */
  /* 1.4: device memory now (0 where the backend has none, or in a 1.2/1.3 plugin's answer).
   * The plugin writes at most the caller's struct_size bytes and sets struct_size to what it
   * wrote. */
  uint64_t memory_used_bytes;   /* held by this backend: bases, buffers, scratch, tables */
  uint64_t memory_free_bytes;   /* free on the device (every process) */
  uint64_t memory_budget_bytes; /* the cap it plans under (compute.device_budget); 0: none */
} zkp_compute_device;

typedef struct zkp_compute_options {
  uint32_t struct_size;
  uint32_t workers_per_device; /* prove_start calls the engine runs at once per device (>= 1) */
  uint32_t threads;            /* host threads per call (0: all hardware threads) */
  uint32_t memory_flags;       /* ZKP_BUFFER_* every a/b/c buffer carries (the pool's property) */
  /* compute.devices of the config: indices or UUIDs; device_count 0: every device. */
  const char* const* devices;
  uint32_t device_count;
  uint32_t reserved; /* zero */
  /* 1.4: compute.device_budget: the most device memory the backend may hold per device (bases,
   * a/b/c, scalars, MSM scratch, NTT tables); 0: no cap (free memory less a reserve). A backend
   * without device memory refuses a non-zero budget. Read only when struct_size covers it. */
  uint64_t device_budget_bytes;
} zkp_compute_options;

typedef struct zkp_compute zkp_compute;                 /* opaque: an instance */
typedef struct zkp_compute_key zkp_compute_key;         /* opaque: a registered proving key */
typedef struct zkp_compute_pending zkp_compute_pending; /* opaque: a started prove_start */

/* A proving key's G1 side, as register_key sees it. The arrays belong to the engine and stay
 * valid and unchanged until destroy_key. Density bits: wire j at word j / 64, bit j % 64, over
 * num_inputs + num_aux wires. */
typedef struct zkp_key_view {
  uint32_t struct_size;
  uint32_t num_inputs; /* public wires, the constant one included */
  uint32_t num_aux;
  uint32_t reserved; /* zero */
  uint64_t domain_size;
  const uint64_t* a_density;
  const uint64_t* b_density;
  uint64_t density_words;
  const zkp_g1_affine* h_query; /* domain_size - 1 */
  uint64_t h_count;
  const zkp_g1_affine* l_query; /* num_aux */
  uint64_t l_count;
  const zkp_g1_affine* a_query; /* popcount(a_density) */
  uint64_t a_count;
  const zkp_g1_affine* b_g1_query; /* popcount(b_density) */
  uint64_t b_count;
} zkp_key_view;

/* One partition's witness for prove_start. Everything stays valid until wait reports done. */
typedef struct zkp_prove_input {
  uint32_t struct_size;
  uint32_t abc_flags;   /* ZKP_BUFFER_* of the buffer holding a, b, c */
  zkp_fr* abc;          /* a, b, c: 3 n elements back to back; overwritten */
  void* abc_device;     /* device pointer of abc when abc_flags has DEVICE_MAPPED; else NULL */
  uint64_t n;           /* the key's domain_size */
  const zkp_fr* inputs; /* the public wires, the one first */
  uint64_t num_inputs;
  const zkp_fr* aux; /* the private wires: the L MSM's scalars */
  uint64_t num_aux;
  const zkp_fr* a_scalars; /* the values of the a_density wires, in wire order */
  uint64_t a_count;
  const zkp_fr* b_scalars; /* the values of the b_density wires, in wire order */
  uint64_t b_count;
  /* 1.6 (read only when struct_size covers it): a flag the engine sets non-zero, from another
   * thread, once nobody wants this proof (its job was cancelled); NULL: never. Read it with an
   * atomic load (C11 atomic_load on an _Atomic uint32_t view, or __atomic_load_n) at safe points
   * (between kernels, NTT passes, MSMs) and stop with ZKP_ERR_ABORTED when it is set. */
  const uint32_t* stop;
} zkp_prove_input;

/* How the a/b/c buffer reached the device. */
#define ZKP_H2D_NONE 0     /* no device: read in place on the host */
#define ZKP_H2D_PAGEABLE 1 /* copied, staged by the driver */
#define ZKP_H2D_PINNED 2   /* copied by DMA from page-locked memory */
#define ZKP_H2D_MAPPED 3   /* read in place through the mapping */

typedef struct zkp_prove_result {
  uint32_t struct_size;
  uint32_t h2d_path; /* ZKP_H2D_* */
  zkp_g1_affine h, l, a, b_g1;
  uint64_t ntt_ns, h_msm_ns, l_msm_ns, a_msm_ns, b_g1_msm_ns;
  uint64_t h2d_bytes;   /* host-to-device bytes of this call (mapped: 0) */
  uint64_t h2d_ns;      /* first copy issued to last copy done */
  uint64_t bases_bytes; /* key bases uploaded by this call (first use, or streamed) */
} zkp_prove_result;

typedef struct zkp_compute_backend {
  zkp_plugin_header header; /* kind = ZKP_KIND_COMPUTE */
  /* ZKP_ERR_UNAVAILABLE: no usable device; ZKP_ERR_INVALID_ARGUMENT: a bad option (the
   * message names it, e.g. an unknown device). */
  zkp_status (*create)(const zkp_compute_options* options, zkp_compute** out, zkp_error err);
  /* Every key and pending must be gone. */
  void (*destroy)(zkp_compute* compute);
  uint32_t (*device_count)(const zkp_compute* compute);
  zkp_status (*device_info)(const zkp_compute* compute, uint32_t device, zkp_compute_device* out,
                            zkp_error err);
  /* The plugin may keep the bases on its devices (uploaded now or at first use). */
  zkp_status (*register_key)(zkp_compute* compute, const zkp_key_view* key, zkp_compute_key** out,
                             zkp_error err);
  /* No prove_start of the key may be in flight. Frees what the plugin keeps for it. */
  void (*destroy_key)(zkp_compute* compute, zkp_compute_key* key);
  /* Starts prove_start of one partition on `device` (< device_count). It may return before the
   * work is done (then wait blocks for it) or after (wait returns at once). */
  zkp_status (*prove_start)(zkp_compute* compute, uint32_t device, const zkp_compute_key* key,
                            const zkp_prove_input* input, zkp_compute_pending** out, zkp_error err);
  /* Waits up to timeout_ms (< 0: no limit) for the pending work. ZKP_OK: done, *out filled;
   * ZKP_ERR_DEADLINE_EXCEEDED: not done yet (call again); another code: it failed (a witness
   * that does not satisfy the circuit is ZKP_ERR_INVALID_ARGUMENT). */
  zkp_status (*wait)(zkp_compute_pending* pending, int64_t timeout_ms, zkp_prove_result* out,
                     zkp_error err);
  /* After wait returned anything but ZKP_ERR_DEADLINE_EXCEEDED. */
  void (*destroy_pending)(zkp_compute_pending* pending);
} zkp_compute_backend;

#ifdef __cplusplus
} /* extern "C" */
#endif
