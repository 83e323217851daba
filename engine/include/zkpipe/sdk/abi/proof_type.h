/* zkpipe/sdk/abi/proof_type.h: the proof-type plugin ABI (kind ZKP_KIND_PROOF_TYPE).
 * A proof type turns a request (its own input format, e.g. vanilla proofs) into N partitions of
 * one circuit: it parses and checks the request, names the circuit (one id per circuit shape,
 * shared by every request of that shape), records the R1CS once per shape for setup, and
 * synthesizes one partition at a time in witness-only mode into buffers the engine owns.
 * Field elements cross as zkp_fr: BLS12-381 Fr in Montgomery form (R = 2^256 mod r), four
 * little-endian 64-bit limbs, exactly the engine's in-memory layout.
 * Thread-safety: parse and destroy_* on any thread; on one job, info, synthesize and
 * public_inputs are thread-safe (partitions are synthesized concurrently); record is reentrant. */
#pragma once

#include "zkpipe/sdk/abi/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ABI 1.2: one shape a proof type can make sample requests of. */
typedef struct zkp_preset {
  const char* name;        /* [A-Za-z0-9._-]+, e.g. "2KiB" */
  const char* description; /* one line: what the shape is (sector size, challenges, ...) */
  uint32_t partitions;     /* partitions in a sample request */
  uint32_t reserved;       /* zero */
} zkp_preset;

/* ABI 1.2: receives bytes a plugin produces; returns 0 to go on, non-zero to stop. */
typedef int32_t (*zkp_write_fn)(void* ctx, const uint8_t* data, uint64_t bytes);

/* ABI 1.3: request priorities, as in the RPC API and the job store (zkp_proof_type.
 * default_priority); NONE: the type has no default (its requests are NORMAL unless said). */
#define ZKP_PRIORITY_NONE 0u
#define ZKP_PRIORITY_CRITICAL 1u
#define ZKP_PRIORITY_HIGH 2u
#define ZKP_PRIORITY_NORMAL 3u
#define ZKP_PRIORITY_LOW 4u

typedef struct zkp_job zkp_job;   /* opaque: a parsed, checked request; owned by the plugin */
typedef struct zkp_r1cs zkp_r1cs; /* opaque: a recorded R1CS; owned by the plugin */

#define ZKP_CIRCUIT_ID_BYTES 96

typedef struct zkp_job_info {
  uint32_t struct_size;
  uint32_t partitions; /* partitions in this request (each one proof) */
  uint32_t num_inputs; /* public wires per partition, the constant one included */
  uint32_t num_aux;    /* private wires per partition */
  uint64_t num_constraints;
  char circuit_id[ZKP_CIRCUIT_ID_BYTES]; /* NUL-terminated, [a-zA-Z0-9._-]+ */
} zkp_job_info;

/* ABI 1.8: zkp_preset_circuit.flags: the caller needs only info.circuit_id and
 * info.partitions (e.g. to tell whether a preset's params are on disk): the plugin answers
 * without synthesizing and may leave the counts and terms zero. */
#define ZKP_PRESET_CIRCUIT_ID_ONLY 1u

/* ABI 1.7: a preset's circuit without a request (zkp_proof_type.preset_circuit). */
typedef struct zkp_preset_circuit {
  uint32_t struct_size;
  /* ABI 1.8: ZKP_PRESET_CIRCUIT_* set by the caller (1.7: "reserved", zero); the plugin leaves it
   * as it is. A caller sets a flag only for a plugin of ABI 1.8 or later. */
  uint32_t flags;
  zkp_job_info info; /* as info() of a request of the preset */
  uint64_t terms_a, terms_b, terms_c;
} zkp_preset_circuit;

/* Compressed sparse rows: the terms of row i are [row_begin[i], row_begin[i + 1]); columns index
 * the wires (1, public inputs, aux). */
typedef struct zkp_sparse_matrix {
  const uint64_t* row_begin; /* rows + 1 entries */
  const uint32_t* column;    /* terms entries */
  const zkp_fr* value;       /* terms entries */
  uint64_t terms;
} zkp_sparse_matrix;

typedef struct zkp_r1cs_view {
  uint32_t struct_size;
  uint32_t num_inputs; /* including the constant one */
  uint32_t num_aux;
  uint32_t num_constraints;
  zkp_sparse_matrix a, b, c;
} zkp_r1cs_view;

typedef struct zkp_proof_type {
  zkp_plugin_header header; /* kind = ZKP_KIND_PROOF_TYPE */
  /* Parses and fully checks a request (the whole vanilla-proof check runs here, so a bad input
   * fails in milliseconds, before any proving work). `what` names it in messages (a file name
   * or request id). */
  zkp_status (*parse)(const uint8_t* request, uint64_t bytes, const char* what, zkp_job** out,
                      zkp_error err);
  void (*destroy_job)(zkp_job* job);
  zkp_status (*info)(const zkp_job* job, zkp_job_info* out, zkp_error err);
  /* Witness-only synthesis of `partition` (0-based, < info.partitions) into caller buffers of
   * exactly info.num_inputs and info.num_aux elements; inputs[0] receives one. */
  zkp_status (*synthesize)(const zkp_job* job, uint32_t partition, zkp_fr* inputs,
                           uint64_t num_inputs, zkp_fr* aux, uint64_t num_aux, zkp_error err);
  /* The public inputs of `partition` as a verifier derives them (without the one): exactly
   * info.num_inputs - 1 elements. */
  zkp_status (*public_inputs)(const zkp_job* job, uint32_t partition, zkp_fr* out, uint64_t count,
                              zkp_error err);
  /* Records the job's circuit (its shape, not its values). *view stays valid until
   * destroy_r1cs(*out). */
  zkp_status (*record)(const zkp_job* job, zkp_r1cs** out, zkp_r1cs_view* view, zkp_error err);
  void (*destroy_r1cs)(zkp_r1cs* r1cs);
  /* ABI 1.1. The index in its sector of `partition` (the 0-based position in this request,
   * < info.partitions): a request may hold any subset of a sector's partitions, and the engine
   * names a partition by this index in its outputs and logs. Distinct within a job. Absent (a 1.0
   * descriptor: struct_size <= offsetof(zkp_proof_type, partition_index)) or NULL: the index is
   * the position. */
  zkp_status (*partition_index)(const zkp_job* job, uint32_t partition, uint32_t* index,
                                zkp_error err);
  /* ABI 1.2. The shapes this proof type can make sample requests of (`zkpipe bench --preset`,
   * tests): preset_count entries, immutable, alive while the library is loaded. Absent (a 1.0/1.1
   * descriptor: struct_size <= offsetof(zkp_proof_type, presets)) or preset_count 0: none. */
  const zkp_preset* presets;
  uint32_t preset_count;
  uint32_t reserved_1_2; /* zero */
  /* ABI 1.2. A complete, valid request of `preset` (one of presets[].name) made from `seed`
   * (same preset and seed: same bytes), handed to `write` in one or more pieces, in order; a
   * `write` that returns non-zero stops it (the call then returns ZKP_ERR_ABORTED). May take a
   * while (a sample sector may have to be sealed). NULL when preset_count is 0.
   * Thread-safe. */
  zkp_status (*sample_request)(const char* preset, uint64_t seed, zkp_write_fn write, void* ctx,
                               zkp_error err);
  /* ABI 1.3. Scheduling defaults of this type's requests, used when neither the request nor the
   * config (scheduling.defaults.<type>) says: a ZKP_PRIORITY_* value (NONE: normal) and a
   * deadline in milliseconds after submission (0: none). Deadline proofs (e.g. a PoSt) say
   * CRITICAL or HIGH and their window. Absent (struct_size <= offsetof(zkp_proof_type,
   * default_priority)): none. */
  uint32_t default_priority;
  uint32_t reserved_1_3; /* zero */
  uint64_t default_deadline_ms;
  /* ABI 1.3. The type's own command line, run by `zkpipe-tool proof-type TYPE ARGS...` (e.g.
   * making vanilla proofs from sealed sectors): argv[0] is the type's name, argv[1..] the
   * arguments; it writes to stdout and stderr and returns the exit code (0 success, 1 failure,
   * 2 bad usage or input). init has been called. NULL: the type has no commands. */
  int32_t (*command)(int32_t argc, const char* const* argv);
  /* ABI 1.7. The circuit of `preset` (one of presets[].name) without a request, for `zkpipe
   * plan` at sizes no sample can be made of here (a 32GiB sector): what info() says of a request
   * of that preset, and the terms of its A, B and C matrices as the circuit writes them (like
   * terms not merged: at least what record() keeps). May synthesize a blank circuit to count
   * (seconds at 100M constraints). out->struct_size and out->info.struct_size are set by the
   * caller. Absent (struct_size <= offsetof(zkp_proof_type, preset_circuit)) or NULL: plan needs
   * a sample request. Thread-safe. */
  zkp_status (*preset_circuit)(const char* preset, zkp_preset_circuit* out, zkp_error err);
} zkp_proof_type;

#ifdef __cplusplus
} /* extern "C" */
#endif
