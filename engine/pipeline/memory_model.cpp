// memory_model.cpp: zkpipe/pipeline/memory_model.h. The sizes follow the code they describe:
// ParamsCache::load (params, R1CS, verifying key), Engine::Impl::synthesize (a/b/c, witness) and
// groth16::prover_memory (the prover's scratch, checked by tests/memory).
#include "zkpipe/pipeline/memory_model.h"

#include <fmt/core.h>

#include <unistd.h>
#include <algorithm>
#include <bit>
#include <fstream>
#include <initializer_list>
#include <string>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/memory.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {
namespace {

using groth16::Fr;
using groth16::G1Affine;
using groth16::G2Affine;

constexpr uint64_t kPendingProofBytes = 4096;  // PendingProof itself and its vector's header

uint64_t sat_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}
uint64_t sat_sum(std::initializer_list<uint64_t> terms) {
  uint64_t sum = 0;
  for (const uint64_t t : terms) sum = sat_add(sum, t);
  return sum;
}
uint64_t sat_mul(uint64_t a, uint64_t b) {
  return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

CircuitMemory from_shape(const std::string& id, const groth16::ProverShape& s, uint64_t wires,
                         uint64_t ic_points, uint64_t r1cs_bytes, const PipelineShape& shape) {
  groth16::ProverOptions o;
  o.threads = shape.threads;
  const groth16::ProverMemory pm = groth16::prover_memory(s, o);
  CircuitMemory m;
  m.circuit_id = id;
  m.prover = s;
  m.num_aux = wires - std::min(wires, ic_points);
  const uint64_t queries = (s.h_points + s.l_points + s.a_points + s.b_points) * sizeof(G1Affine) +
                           s.b_points * sizeof(G2Affine);
  m.params_used = queries;
  m.params = size_class(std::max<uint64_t>(queries, 1), shape.granularity);
  m.r1cs = r1cs_bytes;
  m.verifying_key = ic_points * sizeof(G1Affine) + sizeof(groth16::PreparedVerifyingKey) +
                    sizeof(groth16::VerifyingKey) + 4096;
  m.ntt_tables = pm.ntt_tables;
  m.start_one = pm.start_scratch;
  m.finish_one = pm.finish_scratch;
  m.start_scratch = sat_mul(pm.start_scratch, shape.compute_workers);
  m.finish_scratch = sat_mul(pm.finish_scratch, shape.finalizers);
  m.abc_used = 3 * s.domain * sizeof(Fr);
  m.abc = abc_bytes(s.domain, shape.granularity);
  m.witness_used = wires * sizeof(Fr);
  m.witness = witness_bytes(wires, shape.granularity);
  m.pending = pm.pending + kPendingProofBytes;
  return m;
}

std::string times(uint64_t n, const std::string& what) {
  return n == 1 ? what : fmt::format("{} x {}", n, what);
}

}  // namespace

PipelineShape PipelineShape::of(const Config& config, size_t compute_devices) {
  PipelineShape s;
  s.synthesis_workers = config.pipeline.synthesis_workers;
  s.compute_workers = std::max<size_t>(1, compute_devices * config.compute.workers_per_device);
  s.finalizers = config.pipeline.finalizers;
  s.ready_depth = config.pipeline.ready_depth;
  s.threads = config.compute.threads;
  s.granularity = config.memory.huge_pages ? 2 * 1024 * 1024 : 4096;
  return s;
}

uint64_t r1cs_memory_bytes(const groth16::R1cs& r) {
  uint64_t total = 0;
  for (const auto* m : {&r.a, &r.b, &r.c}) {
    total += m->row_begin.size() * sizeof(uint64_t) + m->column.size() * sizeof(uint32_t) +
             m->value.size() * sizeof(Fr);
  }
  return total;
}

uint64_t r1cs_memory_bound(uint64_t num_constraints, const uint64_t (&terms)[3]) {
  uint64_t total = 0;
  for (const uint64_t t : terms) {
    total = sat_add(total, sat_add(sat_mul(num_constraints + 1, sizeof(uint64_t)),
                                   sat_mul(t, sizeof(uint32_t) + sizeof(Fr))));
  }
  return total;
}

uint64_t request_reservation_bytes(uint64_t input_bytes) {
  return std::max<uint64_t>(input_bytes, 4096);
}

uint64_t abc_bytes(uint64_t domain, uint64_t granularity) {
  return size_class(std::max<uint64_t>(3 * domain * sizeof(Fr), 1), granularity);
}

uint64_t witness_bytes(uint64_t wires, uint64_t granularity) {
  return size_class(std::max<uint64_t>(wires * sizeof(Fr), 1), granularity);
}

CircuitMemory circuit_memory(const std::string& id, const groth16::ProvingKey& pk,
                             uint64_t r1cs_bytes, const PipelineShape& shape) {
  return from_shape(id, groth16::prover_shape(pk), uint64_t{pk.num_inputs} + pk.num_aux,
                    pk.vk.ic.size(), r1cs_bytes, shape);
}

CircuitMemory circuit_memory(const std::string& id, const groth16::ProverShape& s,
                             uint64_t num_inputs, uint64_t num_aux, uint64_t r1cs_bytes,
                             const PipelineShape& shape) {
  return from_shape(id, s, num_inputs + num_aux, num_inputs, r1cs_bytes, shape);
}

CircuitMemory circuit_memory_bound(const std::string& id, uint64_t num_constraints,
                                   uint64_t num_inputs, uint64_t num_aux, uint64_t r1cs_bytes,
                                   const PipelineShape& shape) {
  const uint64_t wires = num_inputs + num_aux;
  groth16::ProverShape s;
  s.domain = std::bit_ceil(std::max<uint64_t>(num_constraints + num_inputs, 2));
  s.h_points = s.domain;
  s.l_points = num_aux;
  s.a_points = wires;
  s.b_points = wires;
  CircuitMemory m = from_shape(id, s, wires, num_inputs, r1cs_bytes, shape);
  m.exact = false;
  return m;
}

namespace {

MemoryPrediction predict_one(const Workload& w, const PipelineShape& shape, uint64_t budget,
                             uint64_t baseline, bool page_locked, const SystemInfo& info) {
  const CircuitMemory& c = w.circuit;
  MemoryPrediction p;
  p.circuit_id = c.circuit_id;
  p.prover = c.prover;
  p.num_aux = c.num_aux;
  p.synthesis_workers = shape.synthesis_workers;
  p.compute_workers = shape.compute_workers;
  p.finalizers = shape.finalizers;
  p.partitions_per_job = w.partitions;
  p.exact = c.exact;
  p.baseline = baseline;
  const uint64_t total = sat_mul(w.jobs, w.partitions);
  // a/b/c are held while a partition is synthesized or waits (ready_depth per compute worker,
  // the synthesizing ones included) and while it is proved; the rest until it is finished.
  const uint64_t queue_abc = shape.compute_workers * (shape.ready_depth + 1);
  uint64_t abc = std::min(total, queue_abc);
  uint64_t rest = std::min(total, abc + shape.finalizers);
  const uint64_t requests = sat_mul(w.jobs, w.request_bytes);
  const uint64_t fixed = sat_add(requests, c.resident());
  const uint64_t part = c.abc + c.rest();
  p.budget_for_all = sat_add(fixed, sat_add(sat_mul(abc, c.abc), sat_mul(rest, c.rest())));
  p.budget_for_one = sat_add(fixed, part);
  if (budget < p.budget_for_one) {
    p.warnings.push_back(fmt::format(
        "pipeline.budget {} is too small for one partition of {}: it needs {} (the params and "
        "scratch {}, the requests {}, a partition {}); the engine refuses such jobs",
        format_bytes(budget), c.circuit_id, format_bytes(p.budget_for_one),
        format_bytes(c.resident()), format_bytes(requests), format_bytes(part)));
    abc = rest = 0;
  } else if (budget < p.budget_for_all) {  // the budget holds fewer partitions
    const uint64_t room = budget - fixed;
    abc = std::min(abc, room / part);
    rest = std::min(rest, abc + (room - abc * part) / std::max<uint64_t>(c.rest(), 1));
  }
  p.abc_in_flight = abc;
  p.rest_in_flight = rest;
  p.budget = budget;
  p.reserved_peak = sat_add(fixed, sat_add(sat_mul(abc, c.abc), sat_mul(rest, c.rest())));
  // The resident peak: the worst moment over f = 0 .. finalizers partitions being finished
  // (their a/b/c already freed, their prove_finish scratch in use) while the others hold a/b/c
  // and up to compute_workers of them run prove_start.
  uint64_t moving = 0;
  uint64_t finishing_at_peak = 0, starting_at_peak = 0, abc_at_peak = 0;
  if (abc > 0) {
    const uint64_t most_finishing = std::min<uint64_t>(shape.finalizers, rest - 1);
    for (uint64_t f = 0; f <= most_finishing; ++f) {
      const uint64_t holding = std::min(abc, rest - f);
      const uint64_t starting = std::min<uint64_t>(shape.compute_workers, holding);
      const uint64_t now = holding * c.abc_used + starting * c.start_one + f * c.finish_one;
      if (now > moving) {
        moving = now;
        finishing_at_peak = f;
        starting_at_peak = starting;
        abc_at_peak = holding;
      }
    }
  }
  const uint64_t used_rest = rest * (c.witness_used + c.pending);
  p.peak_host = sat_sum({baseline, requests, c.params_used, c.r1cs, c.verifying_key, c.ntt_tables,
                         used_rest, moving});
  if (page_locked) {
    p.peak_pinned = sat_add(c.params, sat_add(sat_mul(abc, c.abc), sat_mul(rest, c.witness)));
  }
  p.breakdown = {
      {"params hot copy", c.params_used},
      {"R1CS", c.r1cs},
      {times(abc_at_peak, "a/b/c"), abc_at_peak * c.abc_used},
      {times(rest, "witness"), rest * c.witness_used},
      {times(rest, "B scalars"), rest * c.pending},
      {times(starting_at_peak, "prove_start scratch"), starting_at_peak * c.start_one},
      {times(finishing_at_peak, "prove_finish scratch"), finishing_at_peak * c.finish_one},
      {"NTT tables", c.ntt_tables},
      {"verifying key", c.verifying_key},
      {times(w.jobs, "parsed request"), requests},
      {"process baseline", baseline},
  };
  std::stable_sort(p.breakdown.begin(), p.breakdown.end(),
                   [](const auto& x, const auto& y) { return x.second > y.second; });
  const uint64_t usable = usable_memory_bytes(info);
  if (p.peak_host > usable) {
    p.warnings.push_back(fmt::format(
        "the predicted peak {} exceeds the {} of this machine ({}): lower pipeline.budget or "
        "pipeline.ready_depth, or run fewer jobs at once",
        format_bytes(p.peak_host),
        info.cgroup_limit_bytes && *info.cgroup_limit_bytes < info.ram_bytes ? "cgroup limit"
                                                                             : "RAM",
        format_bytes(usable)));
  }
  if (p.peak_pinned > 0 && info.memlock_soft_bytes && p.peak_pinned > *info.memlock_soft_bytes) {
    p.warnings.push_back(fmt::format(
        "page-locked {} exceeds RLIMIT_MEMLOCK {}: raise it (ulimit -l, LimitMEMLOCK=) or lower "
        "memory.cap",
        format_bytes(p.peak_pinned), format_bytes(*info.memlock_soft_bytes)));
  }
  if (!c.exact) {
    p.warnings.push_back("no params of " + c.circuit_id +
                         " yet: every wire is assumed in the A and B densities (an upper bound)");
  }
  return p;
}

}  // namespace

MemoryPrediction predict_memory(const Workload& w, const PipelineShape& shape, uint64_t budget,
                                uint64_t baseline, bool page_locked, const SystemInfo& info) {
  MemoryPrediction p = predict_one(w, shape, budget, baseline, page_locked, info);
  const CircuitMemory& c = w.circuit;
  const uint64_t fixed = p.budget_for_one - (c.abc + c.rest());
  for (uint64_t k = 1; k < p.abc_in_flight && k <= 16; ++k) {
    BudgetStep step;
    step.in_flight = k;
    step.budget = fixed + k * (c.abc + c.rest());
    step.peak_host = predict_one(w, shape, step.budget, baseline, page_locked, info).peak_host;
    if (k < shape.compute_workers) {
      step.cost = fmt::format(" (only {} of {} compute workers busy)", k, shape.compute_workers);
    } else if (k == shape.compute_workers) {
      step.cost = " (no partition synthesized ahead: each waits for its synthesis)";
    }
    p.steps.push_back(step);
  }
  return p;
}

std::string describe_prediction(const MemoryPrediction& p) {
  std::string parts;
  size_t shown = 0;
  for (const auto& [what, bytes] : p.breakdown) {
    if (bytes == 0 || shown == 4) continue;
    parts += (shown++ ? ", " : "") + what + " " + format_bytes(bytes);
  }
  return fmt::format("predicted peak {} host ({}), {} pinned, {} device", format_bytes(p.peak_host),
                     parts, format_bytes(p.peak_pinned), format_bytes(p.peak_device));
}

uint64_t current_rss_bytes() {
  std::ifstream in("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  if (!(in >> size >> resident)) return 0;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace zkpipe::pipeline
