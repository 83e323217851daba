// engine/pipeline/admission.cpp: what a request meets on its way in: its proof type (loaded on
// first use), the one parse path of check, plan and submit, the refusals (draining, no compute,
// a request id another job has, a job that can never fit the budget), the params-less memory
// plan, and submit's steps up to the queue.
// Thread-safety: see engine_impl.h; the tracker lock is taken only to admit and to queue.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine_impl.h"
#include "zkpipe/sdk/sha256.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace zkpipe::pipeline {
namespace {

uint64_t next_pow2(uint64_t x) {
  uint64_t n = 1;
  while (n < x) n <<= 1;
  return n;
}

// What one partition of a circuit needs at least before its params exist: the H and L queries of
// its params (one G1 point a domain row and a private wire; A and B are left out, their densities
// being unknown before setup), its a/b/c and witness (the bounds a job holds), and the parsed
// request. Never more than the truth, so a job refused for it can never fit (issue 34 #11: a
// client-chosen shape of millions of constraints went to setup and an OOM kill under a 1 GiB
// budget).
uint64_t need_lower_bound(const JobInfo& info, const PipelineShape& shape, uint64_t request) {
  using u128 = unsigned __int128;
  const uint64_t domain = next_pow2(info.num_constraints + info.num_inputs);
  const uint64_t wires = uint64_t{info.num_inputs} + info.num_aux;
  const u128 need = (u128{domain} + info.num_aux) * sizeof(groth16::G1Affine) +
                    abc_bytes(domain, shape.granularity) + witness_bytes(wires, shape.granularity) +
                    request;
  return need > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(need);
}

std::string never_fits_without_params(const std::string& what, const JobInfo& info, uint64_t least,
                                      uint64_t budget) {
  return fmt::format(
      "{}: one partition of {} ({} constraints) needs at least {} (its params' H and L queries, "
      "a/b/c, the witness and the parsed request), more than the whole memory budget of {} "
      "(pipeline.budget); its params are not made, since they could never be used",
      what, info.circuit_id, info.num_constraints, format_bytes(least), format_bytes(budget));
}

}  // namespace

Result<uint64_t> Engine::submit(JobRequest request) {
  ZKP_ASSIGN_OR_RETURN(const Submitted s, submit_job(std::move(request)));
  return s.job;
}

Result<Submitted> Engine::submit_job(JobRequest request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  return guarded(what + ": submit", [&] { return impl_->submit(std::move(request)); });
}

Result<Submitted> Engine::check(const JobRequest& request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  return guarded(what + ": check", [&] { return impl_->check(request); });
}

// The one parse path of check(), plan() and submit(): the request's proof type (loaded on first
// use) parses it; the job is destroyed by its plugin when the ProofTypeJob goes.
// While it parses, the request's parse memory is reserved in the budget (issue 34 #3): taken at
// once when it fits (past partitions waiting for more: a parse is brief), else waited for in
// the queue for at most kParseWait, then refused as RESOURCE_EXHAUSTED (a job store's claim gives
// the job back; a client retries).
Result<ProofTypeJob> Engine::Impl::parse(const JobRequest& request, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(const ProofTypePlugin type, proof_type(request.proof_type));
  const uint64_t bytes = parse_reservation_bytes(request.input);
  const Priority priority = request.priority.value_or(Priority::kNormal);
  const std::string label = fmt::format("{}: parsing it ({} of {} request)", what,
                                        format_bytes(bytes), format_bytes(request.input.size()));
  if (bytes > budget->total()) {
    return resource_exhausted(fmt::format(
        "{} needs more than the whole memory budget of {} (pipeline.budget): the decoded request "
        "and, for JSON, its tree; send it in the proof type's binary form or raise the budget",
        label, format_bytes(budget->total())));
  }
  Result<Reservation> parsing = budget->reserve_keeping(bytes, 0, label, priority);
  if (!parsing.ok() && parsing.status().code() == Code::kResourceExhausted) {
    ReserveOptions o;
    o.priority = priority;
    o.what = label;
    o.deadline = std::chrono::steady_clock::now() + kParseWait;
    parsing = budget->reserve(bytes, o);
    if (!parsing.ok() && parsing.status().code() == Code::kDeadlineExceeded) {
      return resource_exhausted(parsing.status().message() + "; retry when jobs end");
    }
  }
  ZKP_RETURN_IF_ERROR(parsing.status());
  return ProofTypeJob::parse(type, request.input, what);
}

Result<Submitted> Engine::Impl::check(const JobRequest& request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  ZKP_ASSIGN_OR_RETURN(const ProofTypeJob parsed, parse(request, what));
  const JobInfo& info = parsed.info();
  // The whole-budget check of submit: a job that can never fit is refused now.
  if (Result<CircuitMemory> c = params_cache->circuit_memory(info.circuit_id); c.ok()) {
    const uint64_t need =
        c->resident() + c->abc + c->rest() + request_reservation_bytes(request.input.size());
    if (need > budget->total()) {
      return resource_exhausted(fmt::format(
          "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
          "request), more than the whole memory budget of {} (pipeline.budget; `zkpipe plan` "
          "says what a workload needs)",
          what, info.circuit_id, format_bytes(need), format_bytes(budget->total())));
    }
  } else if (const uint64_t least =
                 need_lower_bound(info, shape, request_reservation_bytes(request.input.size()));
             least > budget->total()) {
    return resource_exhausted(never_fits_without_params(what, info, least, budget->total()));
  }
  Submitted out;
  out.partitions = info.partitions;
  out.circuit_id = info.circuit_id;
  resolve_schedule(request, parsed.type(), out.priority, out.deadline);
  return out;
}

Result<MemoryPrediction> Engine::plan(const JobRequest& sample, uint64_t jobs) {
  return guarded("plan", [&] { return impl_->plan(sample, jobs); });
}

Result<MemoryPrediction> Engine::Impl::plan(const JobRequest& sample, uint64_t jobs) {
  const std::string what = sample.input_name.empty() ? "request" : sample.input_name;
  ZKP_ASSIGN_OR_RETURN(const ProofTypeJob parsed, parse(sample, what));
  const JobInfo& info = parsed.info();
  Result<CircuitMemory> circuit = params_cache->circuit_memory(info.circuit_id);
  if (!circuit.ok() && circuit.status().code() == Code::kNotFound) {
    // No params yet: the R1CS as the plugin records it, and every wire assumed dense.
    ZKP_ASSIGN_OR_RETURN(groth16::R1cs r1cs, parsed.record());
    circuit = circuit_memory_bound(info.circuit_id, info.num_constraints, info.num_inputs,
                                   info.num_aux, r1cs_memory_bytes(r1cs), shape);
  }
  ZKP_RETURN_IF_ERROR(circuit.status());
  const Workload w{*circuit, jobs, info.partitions, request_reservation_bytes(sample.input.size())};
  return predict_memory(w, shape, budget->total(), current_rss_bytes(),
                        options.plan_page_locked.value_or(pool->page_locked()), read_system_info());
}

Result<MemoryPrediction> Engine::plan_preset(const std::string& proof_type,
                                             const std::string& preset, uint64_t jobs) {
  return guarded("plan", [&] { return impl_->plan_preset(proof_type, preset, jobs); });
}

Result<MemoryPrediction> Engine::Impl::plan_preset(const std::string& type_name,
                                                   const std::string& preset, uint64_t jobs) {
  ZKP_ASSIGN_OR_RETURN(const ProofTypePlugin type, proof_type(type_name));
  spdlog::info("plan: counting the circuit of {} preset {} (no request needed)", type_name, preset);
  ZKP_ASSIGN_OR_RETURN(const PresetCircuitInfo c, type.preset_circuit(preset));
  const JobInfo& info = c.info;
  Result<CircuitMemory> circuit = params_cache->circuit_memory(info.circuit_id);
  if (!circuit.ok() && circuit.status().code() == Code::kNotFound) {
    circuit =
        circuit_memory_bound(info.circuit_id, info.num_constraints, info.num_inputs, info.num_aux,
                             r1cs_memory_bound(info.num_constraints, c.terms), shape);
  }
  ZKP_RETURN_IF_ERROR(circuit.status());
  const Workload w{*circuit, jobs, info.partitions, 0};
  MemoryPrediction p =
      predict_memory(w, shape, budget->total(), current_rss_bytes(),
                     options.plan_page_locked.value_or(pool->page_locked()), read_system_info());
  p.warnings.push_back(
      "the requests themselves are not counted (planned from the preset, without a request): "
      "add each one's size (a 32GiB C1 output is tens of MiB)");
  return p;
}

namespace {

// The request id the engine dedupes by: none when the caller gives the job's id (a job store's,
// which dedupes by request id itself); the id is still shown in status and results.
const std::string& dedupe_key(const JobRequest& request) {
  static const std::string kNone;
  return request.id != 0 ? kNone : request.request_id;
}

}  // namespace

// The steps of submit, in order: admit (or attach to the job the request id names), parse (one
// parse path with check and plan), make the job's record, hold the parsed request's memory
// (refusing what can never fit), take an earlier attempt's checkpointed proofs, and queue.
Result<Submitted> Engine::Impl::submit(JobRequest request) {
  const LogScope scope(request.id, request.request_id, -1, "parse");
  const std::string what = !request.input_name.empty()   ? request.input_name
                           : !request.request_id.empty() ? "request " + request.request_id
                                                         : "request";
  // The input's digest tells a repeated request from a clash of ids; only ids need it.
  const Sha256Digest hash = request.request_id.empty() ? Sha256Digest{} : sha256(request.input);
  if (Result<Submitted> known = admit(request, what, hash); !known.ok() || known->attached) {
    return known;
  }
  const int64_t t0 = now_ns();
  ZKP_ASSIGN_OR_RETURN(ProofTypeJob parsed, parse(request, what));
  ZKP_ASSIGN_OR_RETURN(std::shared_ptr<Job> job, make_job(request, what, hash, std::move(parsed)));
  ZKP_RETURN_IF_ERROR(hold_request(*job, request.input.size()));
  const JobInfo& info = job->info;
  spdlog::info("{}: parsed in {:.1f} ms: {} partition(s) of {} ({} constraints), sector index {}",
               what, ms_between(t0, now_ns()), info.partitions, info.circuit_id,
               info.num_constraints, fmt::join(job->indices, ","));
  take_checkpoints(*job, request.proved);
  return enqueue(std::move(job), request);
}

// Takes mu: refused while draining or with no compute left; the job a repeated request id names
// (attached); else nothing known yet (attached = false).
Result<Submitted> Engine::Impl::admit(const JobRequest& request, const std::string& what,
                                      const Sha256Digest& hash) {
  MutexLock lock(mu);
  if (!accepting) return unavailable("the engine is draining; " + what + " not accepted");
  if (!no_compute.ok()) return no_compute.with_context(what + " not accepted");
  forget_expired();
  return attach(dedupe_key(request), request.proof_type, hash);
}

// The job's record from its parsed request: info, partition indices, schedule, and the upper
// bounds of a partition's working set before its params are known (ParamsCache has the exact
// numbers): a/b/c; the witness, the B scalars kept for prove_finish (at most one per wire), the
// pending proof.
Result<std::shared_ptr<Job>> Engine::Impl::make_job(const JobRequest& request,
                                                    const std::string& what,
                                                    const Sha256Digest& hash, ProofTypeJob parsed) {
  auto plugin = std::make_shared<PluginJob>(std::move(parsed));
  auto job = std::make_shared<Job>();
  job->info = plugin->job.info();
  ZKP_ASSIGN_OR_RETURN(job->indices, plugin->job.partition_indices());
  job->result.partition_indices = job->indices;
  job->type_name = request.proof_type;
  job->tag = request.tag;
  job->earlier_attempts = request.earlier_attempts;
  job->input_name = what;
  job->request_id = request.request_id;
  job->input_hash = hash;
  resolve_schedule(request, plugin->job.type(), job->priority, job->deadline);
  job->plugin = std::move(plugin);
  const JobInfo& info = job->info;
  job->domain_size = next_pow2(info.num_constraints + info.num_inputs);
  const uint64_t wires = uint64_t{info.num_inputs} + info.num_aux;
  job->abc_bytes = abc_bytes(job->domain_size, shape.granularity);
  job->rest_bytes = witness_bytes(wires, shape.granularity) + wires * kFrBytes + 4096;
  return job;
}

// Reserves the parsed request's memory for the job's life, after refusing a job one partition of
// which can never fit: what one partition needs besides the requests is its working set, and the
// circuit's params and scratch (when its params exist: else the job's bounds).
Status Engine::Impl::hold_request(Job& job, uint64_t input_bytes) {
  const std::string& what = job.input_name;
  const JobInfo& info = job.info;
  uint64_t need = job.abc_bytes + job.rest_bytes, resident = 0;
  const uint64_t request_bytes = request_reservation_bytes(input_bytes);
  if (Result<CircuitMemory> c = params_cache->circuit_memory(info.circuit_id); c.ok()) {
    need = c->abc + c->rest();
    resident = c->resident();
  } else if (const uint64_t least = need_lower_bound(info, shape, request_bytes);
             least > budget->total()) {
    return resource_exhausted(never_fits_without_params(what, info, least, budget->total()));
  }
  const uint64_t reserve = config.pipeline.reserve_bytes;
  if (job.priority != Priority::kCritical && reserve > 0 &&
      resident + need + request_bytes + reserve > budget->total() &&
      resident + need + request_bytes <= budget->total()) {
    return resource_exhausted(fmt::format(
        "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
        "request); the memory budget of {} less the {} kept for CRITICAL work (pipeline.reserve) "
        "leaves {}: lower pipeline.reserve or raise pipeline.budget",
        what, info.circuit_id, format_bytes(resident + need + request_bytes),
        format_bytes(budget->total()), format_bytes(reserve),
        format_bytes(budget->total() - reserve)));
  }
  if (resident + need + request_bytes > budget->total()) {
    return resource_exhausted(fmt::format(
        "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
        "request), more than the whole memory budget of {} (pipeline.budget; `zkpipe plan` says "
        "what a workload needs)",
        what, info.circuit_id, format_bytes(resident + need + request_bytes),
        format_bytes(budget->total())));
  }
  // The parsed request stays reserved while the job lives. It never waits (a waiting request
  // could hold up the partitions of the jobs ahead), and all jobs' requests together leave
  // room for the largest partition seen (with its params and scratch): past that, the job is
  // refused now (back-pressure) rather than queued.
  uint64_t keep_free = resident + need;
  uint64_t seen = largest_need.load();
  while (keep_free > seen && !largest_need.compare_exchange_weak(seen, keep_free)) {
  }
  keep_free = std::max(keep_free, seen);
  Result<Reservation> held = budget->reserve_keeping(request_bytes, keep_free,
                                                     what + ": its parsed request", job.priority);
  if (!held.ok()) {
    params_cache->reclaim(request_bytes + keep_free);  // unused params of other circuits may go
    held = budget->reserve_keeping(request_bytes, keep_free, what + ": its parsed request",
                                   job.priority);
  }
  if (!held.ok()) return held.status();
  job.plugin->request = std::move(*held);
  return ok_status();
}

// An earlier attempt's checkpointed proofs (position -> proof bytes): each decoded one is not
// proved again (the batch verification checks it with the rest); a bad one is proved again.
void Engine::Impl::take_checkpoints(Job& job,
                                    const std::map<uint32_t, std::vector<uint8_t>>& proved) {
  const std::string& what = job.input_name;
  const uint32_t parts = job.info.partitions;
  job.parts.assign(parts, PartState::kQueued);
  job.proofs.resize(parts);
  job.timings.resize(parts);
  for (const auto& [position, bytes] : proved) {
    Result<groth16::Proof> proof =
        position < parts ? groth16::decode_proof(bytes.data(), bytes.size())
                         : Result<groth16::Proof>(invalid_argument("no such position"));
    if (!proof.ok()) {
      spdlog::warn("{}: the checkpointed proof of position {} is not used ({}); proving it again",
                   what, position, proof.status().to_string());
      continue;
    }
    job.proofs[position] = *proof;
    job.parts[position] = PartState::kProved;
    ++job.proved;
  }
  if (job.proved > 0) {
    spdlog::info("{}: {} of {} partition(s) already proved by an earlier attempt", what, job.proved,
                 parts);
  }
}

// Queues the job's unproved partitions (under mu, rechecking what may have changed since
// admit) and says where it stands.
Result<Submitted> Engine::Impl::enqueue(std::shared_ptr<Job> job, const JobRequest& request) {
  Impl& m = *this;
  const std::string& what = job->input_name;
  const JobInfo& info = job->info;
  const uint32_t parts = info.partitions;
  const Sha256Digest& hash = job->input_hash;
  UniqueLock lock(m.mu);
  if (!m.accepting) return unavailable("the engine is draining; " + what + " not accepted");
  // A twin may have been accepted meanwhile: the same request attaches to it, another one with
  // the same id is refused (compared here, under the lock, like the first time).
  if (Result<Submitted> known = m.attach(dedupe_key(request), request.proof_type, hash);
      !known.ok() || known->attached) {
    return known;
  }
  if (request.id != 0) {  // the caller's id (a job store's)
    if (auto old = m.jobs.find(request.id); old != m.jobs.end()) {
      if (!ended(*old->second)) {
        return unavailable(
            fmt::format("{}: job {} is still running in this engine", what, request.id));
      }
      m.jobs.erase(old);  // an earlier attempt's record (its watchers keep their copy)
    }
    job->id = request.id;
    m.next_job = std::max(m.next_job, request.id + 1);
  } else {
    job->id = m.next_job++;
  }
  if (!dedupe_key(request).empty()) m.by_request_id[request.request_id] = job->id;
  job->submitted_ns = m.trace.now_ns();
  job->queued_ns.assign(parts, job->submitted_ns);
  job->parked_ns.assign(parts, 0);
  job->params_wait_ms.assign(parts, 0);
  for (uint32_t p = 0; p < parts; ++p) {
    if (job->parts[p] == PartState::kQueued) m.synth_queue.insert(job->key(p));
  }
  m.jobs.emplace(job->id, job);
  for (uint32_t p = 0; p < parts; ++p) {
    m.emit(*job, job->parts[p] == PartState::kQueued ? EventKind::kQueued : EventKind::kProved, p);
  }
  if (job->proved == parts) {
    m.proved_at_submit.push_back(job);
    m.final_cv.notify_one();
  }
  m.synth_cv.notify_all();
  Submitted out;
  out.job = job->id;
  out.queue_position = m.queue_position(*job);
  out.partitions = parts;
  out.circuit_id = info.circuit_id;
  out.priority = job->priority;
  out.deadline = job->deadline;
  Deferred later;
  m.check_deadline(*job, later);
  lock.unlock();
  if (job->deadline) {
    spdlog::info(
        "{}: job {} is {}, its deadline in {:.1f} s", what, out.job, priority_name(out.priority),
        std::chrono::duration<double>(*out.deadline - std::chrono::steady_clock::now()).count());
  }
  later.flush();
  return out;
}

// Under mu: the job a repeated request id names (attached), ALREADY_EXISTS when the id is taken
// by another request, or nothing known (attached = false).
Result<Submitted> Engine::Impl::attach(const std::string& request_id, const std::string& type,
                                       const std::array<uint8_t, 32>& hash) {
  Submitted out;
  if (request_id.empty()) return out;
  auto it = by_request_id.find(request_id);
  if (it == by_request_id.end()) return out;
  const Job& existing = *jobs.at(it->second);
  if (existing.input_hash != hash || existing.type_name != type) {
    return already_exists("request id '" + echo_value(request_id) + "' is already job " +
                          std::to_string(existing.id) + " with a different proof type or input");
  }
  out.job = existing.id;  // the same request again: attach to it
  out.attached = true;
  out.queue_position = ended(existing) ? 0 : queue_position(existing);
  out.partitions = existing.info.partitions;
  out.circuit_id = existing.info.circuit_id;
  out.priority = existing.priority;
  out.deadline = existing.deadline;
  return out;
}

}  // namespace zkpipe::pipeline
