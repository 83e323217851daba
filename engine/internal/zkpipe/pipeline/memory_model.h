// zkpipe/pipeline/memory_model.h: what the pipeline holds in memory, as numbers known before it
// runs. One model serves three users: the engine's reservations (every large allocation is
// reserved in the budget for as long as it lives, in these sizes), the start-up line and
// `zkpipe plan` (the predicted peak of a workload). Sizes are bytes; buffers of the memory
// backend count at their size class (zkpipe/sdk/abi/size_class.h).
// Thread-safety: pure functions and values.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "zkpipe/config.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/system.h"

namespace zkpipe::pipeline {

// What a preload or an evict did: the hot copy's reservation, and whether it was hot before.
struct ParamsChange {
  uint64_t bytes = 0;
  bool was_hot = false;
};

// How the engine is laid out, as far as memory is concerned.
struct PipelineShape {
  size_t synthesis_workers = 1, compute_workers = 1, finalizers = 1, ready_depth = 2;
  unsigned threads = 0;         // per prove_start / prove_finish call (0: hardware threads)
  uint64_t granularity = 4096;  // the memory backend's page (2 MiB with huge pages)
  static PipelineShape of(const Config& config, size_t compute_devices);
};

// One circuit's memory. The first group is held while its params are hot, in one reservation
// with them: the scratch is there once per compute worker (prove_start) and per finalizer
// (prove_finish), since that many may run at once. The second group is per partition in flight.
// Buffers of the memory backend are reserved at their size class; the `*_used` sizes are what
// is written (and so resident: the rest of a class is never touched).
struct CircuitMemory {
  std::string circuit_id;
  uint64_t params = 0, params_used = 0;    // the queries' hot copy in backend memory
  uint64_t r1cs = 0;                       // the cached R1CS
  uint64_t verifying_key = 0;              // the verifying and prepared verifying key
  uint64_t ntt_tables = 0;                 // the twiddle tables of its domain (kept by the process)
  uint64_t start_one = 0, finish_one = 0;  // one prove_start's / prove_finish's scratch
  uint64_t start_scratch = 0;      // all compute workers' prove_start scratch (start_one each)
  uint64_t finish_scratch = 0;     // all finalizers' prove_finish scratch (finish_one each)
  uint64_t abc = 0, abc_used = 0;  // a partition's a/b/c (phase one: freed after prove_start)
  uint64_t witness = 0, witness_used = 0;  // its witness (phase two: freed after prove_finish)
  uint64_t pending = 0;                    // the B scalars and the pending proof (phase two)
  bool exact = true;                       // false: no params yet, so every wire was assumed dense
  groth16::ProverShape prover;             // the domain and the queries' points
  uint64_t num_aux = 0;                    // private wires (the L query's scalars)
  uint64_t resident() const {
    return params + r1cs + verifying_key + ntt_tables + start_scratch + finish_scratch;
  }
  uint64_t rest() const { return witness + pending; }
};

// A circuit's numbers from its proving key (mapped or hot), its R1CS bytes and the shape.
CircuitMemory circuit_memory(const std::string& circuit_id, const groth16::ProvingKey& pk,
                             uint64_t r1cs_bytes, const PipelineShape& shape);
// The same from the prover's shape (params whose points are not in memory yet).
CircuitMemory circuit_memory(const std::string& circuit_id, const groth16::ProverShape& s,
                             uint64_t num_inputs, uint64_t num_aux, uint64_t r1cs_bytes,
                             const PipelineShape& shape);
// Without params (before the first setup): the upper bound where every wire is in both
// densities; `exact` is false.
CircuitMemory circuit_memory_bound(const std::string& circuit_id, uint64_t num_constraints,
                                   uint64_t num_inputs, uint64_t num_aux, uint64_t r1cs_bytes,
                                   const PipelineShape& shape);

// The bytes of an R1CS's matrices (row starts, columns, coefficients).
uint64_t r1cs_memory_bytes(const groth16::R1cs& r1cs);
// The same from the rows and the terms of A, B and C (as written: an upper bound of what is
// recorded, where like terms merge and zero ones go).
uint64_t r1cs_memory_bound(uint64_t num_constraints, const uint64_t (&terms)[3]);
// What a request of `input_bytes` reserves for its parsed form while its job lives (its size:
// a plugin's parsed request is not larger than its encoding; at least 4 KiB).
uint64_t request_reservation_bytes(uint64_t input_bytes);
// An upper bound of the heap nlohmann::json's tree of `bytes` takes (parse_memory.cpp): one pass,
// no allocation beyond a stack of open arrays.
uint64_t json_tree_bytes_bound(std::span<const uint8_t> bytes);
// What parsing `input` takes at its peak, reserved in the budget while the proof type parses it:
// its decoded form (request_reservation_bytes) and, for JSON (first non-blank byte '{'), its
// tree.
uint64_t parse_reservation_bytes(std::span<const uint8_t> input);

// The memory of a/b/c and of the witness of a partition (size classes included).
uint64_t abc_bytes(uint64_t domain, uint64_t granularity);
uint64_t witness_bytes(uint64_t wires, uint64_t granularity);

// A workload: `jobs` requests of one circuit with `partitions` each, submitted at once.
struct Workload {
  CircuitMemory circuit;
  uint64_t jobs = 1, partitions = 1;
  uint64_t request_bytes = 0;  // one request's bytes (its parsed form is reserved at that size)
};

// A smaller budget: `in_flight` partitions at once, what it needs, the peak under it, and what
// it costs ("" when nothing: the pipeline still overlaps synthesis and proving).
struct BudgetStep {
  uint64_t in_flight = 0, budget = 0, peak_host = 0;
  std::string cost;
};

struct MemoryPrediction {
  std::string circuit_id;
  groth16::ProverShape prover;  // the circuit's domain and queries (a device's plan needs them)
  uint64_t num_aux = 0;
  uint64_t synthesis_workers = 0, compute_workers = 0, finalizers = 0;  // the planned pipeline
  uint64_t partitions_per_job = 0;
  bool exact = true;      // false: an upper bound (no params yet)
  uint64_t baseline = 0;  // the process before any work: code, libraries, plugins, threads
  // The peak resident set: the baseline and what is written at the worst moment (a/b/c of the
  // partitions waiting and proving, the prover's scratch of the calls running at once, ...).
  uint64_t peak_host = 0, peak_pinned = 0, peak_device = 0;
  uint64_t reserved_peak = 0;  // what the budget holds at most (size classes, all scratch)
  uint64_t abc_in_flight = 0, rest_in_flight = 0;  // partitions holding a/b/c, holding the rest
  uint64_t budget_for_all = 0;  // the budget that lets that many partitions be in flight
  uint64_t budget_for_one = 0;  // the least budget that proves (one partition at a time)
  uint64_t budget = 0;          // the configured budget the prediction is for
  // What the peak is made of, largest first: ("params hot copy", bytes), ("3 x a/b/c", ...).
  std::vector<std::pair<std::string, uint64_t>> breakdown;
  std::vector<std::string> warnings;  // limits this would pass, with the config key to change
  std::vector<BudgetStep> steps;      // 1 .. abc_in_flight - 1 partitions in flight
};

// The peak of `w` on a pipeline of `shape` with `budget` (partitions in flight: what the
// pipeline's queues allow, cut to what the budget holds). `page_locked`: the memory backend's
// buffers are pinned (their peak counts as peak_pinned, against RLIMIT_MEMLOCK).
MemoryPrediction predict_memory(const Workload& w, const PipelineShape& shape, uint64_t budget,
                                uint64_t baseline, bool page_locked, const SystemInfo& info);

// "peak 612.4 MiB host (params hot copy 160.0 MiB, 3 x a/b/c 144.0 MiB, ...), 0 B pinned"
std::string describe_prediction(const MemoryPrediction& p);

// The resident set of this process now (VmRSS), 0 when /proc is not readable.
uint64_t current_rss_bytes();

}  // namespace zkpipe::pipeline
