// service.cpp: the handlers of zkpipe.v1.ProvingEngine (service.h). Every request is checked
// field by field before the engine sees it; every error is a gRPC status naming the field.
// Blocking calls (AwaitProof, Prove, WatchJob) wait in slices so a client that goes away, the
// call's deadline and a stopping server are noticed.
// Thread-safety: see service.h.
#include <fmt/core.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <openssl/crypto.h>

#include <algorithm>
#include <chrono>

#include "service.h"
#include "zkpipe/log_context.h"
#include "zkpipe/pipeline/memory_model.h"
#include "zkpipe/sdk/circuit_id.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/version.h"

namespace zkpipe::server {
namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::system_clock;

constexpr milliseconds kSlice{200};
constexpr size_t kMaxRequestIdBytes = 256;

grpc::Status invalid(std::string m) {
  return {grpc::StatusCode::INVALID_ARGUMENT, std::move(m)};
}

bool printable(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
}

// The RPC's name for the metrics, and counting it on the way out.
struct Counted {
  ServiceState& state;
  const char* method;
  grpc::Status operator()(grpc::Status s) const {
    state.count_call(method, s);
    spdlog::trace("rpc {}: {}{}{}", method, grpc_code_name(s.error_code()), s.ok() ? "" : ": ",
                  s.error_message());
    return s;
  }
};

// A waiting call's place under server.max_waiting_calls, held for the call's life: each waiting
// AwaitProof, WatchJob or Prove holds a server thread, and 600 of them had taken every thread,
// so that everyone's GetStatus and SubmitProof failed (issue 34 #10). Past the bound a waiting
// call is refused at once, saying why; the other calls keep their threads.
class WaitingSlot {
 public:
  explicit WaitingSlot(ServiceState& s) : s_(s) {
    taken_ = s_.waiting_calls.fetch_add(1) < s_.config.max_waiting_calls;
    if (!taken_) {
      s_.waiting_calls.fetch_sub(1);
      s_.waiting_refused.fetch_add(1);
    }
  }
  ~WaitingSlot() {
    if (taken_) s_.waiting_calls.fetch_sub(1);
  }
  WaitingSlot(const WaitingSlot&) = delete;
  WaitingSlot& operator=(const WaitingSlot&) = delete;

  bool taken() const { return taken_; }
  grpc::Status refusal(const char* rpc) const {
    return {grpc::StatusCode::RESOURCE_EXHAUSTED,
            fmt::format("{}: {} AwaitProof/WatchJob/Prove calls are waiting already, the most this "
                        "server holds (server.max_waiting_calls; each holds a server thread); "
                        "await with a shorter timeout_ms and again, or retry later",
                        rpc, s_.config.max_waiting_calls)};
  }

 private:
  ServiceState& s_;
  bool taken_ = false;
};

}  // namespace

void ServiceState::count_call(const std::string& method, const grpc::Status& s) {
  std::lock_guard lock(calls_mu);
  ++calls[{method, std::string(grpc_code_name(s.error_code()))}];
}

std::string ServiceState::metrics_text() {
  std::string out =
      "# HELP zkpipe_rpc_calls_total gRPC calls answered, by method and status code.\n"
      "# TYPE zkpipe_rpc_calls_total counter\n";
  {
    std::lock_guard lock(calls_mu);
    for (const auto& [key, n] : calls) {
      out += fmt::format("zkpipe_rpc_calls_total{{method=\"{}\",code=\"{}\"}} {}\n", key.first,
                         key.second, n);
    }
  }
  out += fmt::format(
      "# HELP zkpipe_submits_refused_total Submits refused with RESOURCE_EXHAUSTED (queue full "
      "or memory).\n# TYPE zkpipe_submits_refused_total counter\nzkpipe_submits_refused_total "
      "{}\n",
      submits_refused.load());
  out += fmt::format(
      "# HELP zkpipe_draining Whether the server is draining (SIGTERM).\n# TYPE zkpipe_draining "
      "gauge\nzkpipe_draining {}\n",
      draining.load() ? 1 : 0);
  out += fmt::format(
      "# HELP zkpipe_waiting_calls AwaitProof, WatchJob and Prove calls waiting now.\n# TYPE "
      "zkpipe_waiting_calls gauge\nzkpipe_waiting_calls {}\n# HELP "
      "zkpipe_waiting_calls_refused_total Waiting calls refused past "
      "server.max_waiting_calls.\n# TYPE zkpipe_waiting_calls_refused_total counter\n"
      "zkpipe_waiting_calls_refused_total {}\n",
      waiting_calls.load(), waiting_refused.load());
  out += fmt::format(
      "# HELP zkpipe_uptime_seconds Seconds since the daemon started.\n# TYPE "
      "zkpipe_uptime_seconds gauge\nzkpipe_uptime_seconds {:.1f}\n",
      static_cast<double>(now_ns() - started_ns) / 1e9);
  out += fmt::format(
      "# HELP zkpipe_resident_memory_bytes The daemon's resident set (VmRSS).\n# TYPE "
      "zkpipe_resident_memory_bytes gauge\nzkpipe_resident_memory_bytes {}\n",
      pipeline::current_rss_bytes());
  out += fmt::format(
      "# HELP zkpipe_build_info The release and plugin ABI of this daemon.\n# TYPE "
      "zkpipe_build_info gauge\nzkpipe_build_info{{version=\"{}\",abi=\"{}.{}\"}} 1\n",
      kVersion, ZKP_ABI_MAJOR, ZKP_ABI_MINOR);
  if (broker == nullptr) return out;
  const Result<store::QueueCounts> c = broker->counts();
  out += fmt::format(
      "# HELP zkpipe_store_up Whether the job store answered this scrape.\n# TYPE zkpipe_store_up "
      "gauge\nzkpipe_store_up {}\n",
      c.ok() ? 1 : 0);
  if (!c.ok()) return out;
  out +=
      "# HELP zkpipe_store_queued_jobs Jobs queued in the job store (the cluster's with "
      "PostgreSQL), by priority.\n# TYPE zkpipe_store_queued_jobs gauge\n";
  for (const pipeline::Priority p : pipeline::kPriorities) {
    const auto it = c->queued.find(static_cast<uint8_t>(p));
    out += fmt::format("zkpipe_store_queued_jobs{{priority=\"{}\"}} {}\n",
                       pipeline::priority_name(p), it == c->queued.end() ? 0 : it->second);
  }
  out +=
      "# HELP zkpipe_store_jobs Jobs in the job store by state (running: claimed by a worker).\n"
      "# TYPE zkpipe_store_jobs gauge\n";
  for (const auto& [state, n] : {std::pair{"running", c->running},
                                 {"done", c->done},
                                 {"failed", c->failed},
                                 {"cancelled", c->cancelled}}) {
    out += fmt::format("zkpipe_store_jobs{{state=\"{}\"}} {}\n", state, n);
  }
  return out;
}

// TCP calls need the bearer token when the server has one; unix-socket calls rely on the
// socket's file mode.
grpc::Status ProvingService::authorize(grpc::ServerContext* ctx) const {
  if (state_.token.empty()) return grpc::Status::OK;
  const std::string peer = ctx->peer();
  if (peer.rfind("unix:", 0) == 0 || peer.rfind("inproc", 0) == 0) return grpc::Status::OK;
  const auto& md = ctx->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) {
    return {grpc::StatusCode::UNAUTHENTICATED,
            "this server needs a bearer token on TCP (metadata 'authorization: Bearer <token>'; "
            "zkpipe clients: --token-file)"};
  }
  const std::string given(it->second.data(), it->second.size());
  const std::string expected = "Bearer " + state_.token;
  if (given.size() != expected.size() ||
      CRYPTO_memcmp(given.data(), expected.data(), given.size()) != 0) {
    return {grpc::StatusCode::UNAUTHENTICATED, "the bearer token does not match"};
  }
  return grpc::Status::OK;
}

grpc::Status ProvingService::resolve(const v1::JobRef& ref, uint64_t* job) const {
  switch (ref.ref_case()) {
    case v1::JobRef::kJobId:
      if (ref.job_id() == 0) return invalid("job.job_id: 0 is not a job (ids start at 1)");
      *job = ref.job_id();
      return grpc::Status::OK;
    case v1::JobRef::kRequestId: {
      if (ref.request_id().empty()) return invalid("job.request_id: empty");
      if (ref.request_id().size() > kMaxRequestIdBytes) {  // no job has one; not echoed whole
        return invalid(fmt::format("job.request_id: {} bytes; request ids are at most {}",
                                   ref.request_id().size(), kMaxRequestIdBytes));
      }
      Result<uint64_t> id = broker_.find_request(ref.request_id());
      if (!id.ok()) return to_grpc(id.status());
      *job = *id;
      return grpc::Status::OK;
    }
    default:
      return invalid("job: names neither a job_id nor a request_id");
  }
}

// Every refused submit is logged with its reason (a client's mistakes show in the daemon's log
// too); an accepted one at debug (the engine logs its parse at info).
grpc::Status ProvingService::submit(const v1::SubmitProofRequest& req,
                                    v1::SubmitProofResponse* out) {
  const bool id_ok = req.request_id().size() <= kMaxRequestIdBytes && printable(req.request_id());
  const LogScope scope(0, id_ok ? req.request_id() : std::string(), -1, "submit");
  const grpc::Status s = accept(req, out);
  if (!s.ok()) {
    spdlog::warn("submit refused: {}: {} (proof type '{}', request id '{}', {} byte(s))",
                 grpc_code_name(s.error_code()), s.error_message(), echo_value(req.proof_type()),
                 echo_value(req.request_id()), req.request().size());
  } else {
    spdlog::debug("job {}: accepted{} (queue position {}, {} partition(s) of {})", out->job_id(),
                  out->attached() ? " (a request id already known: that job)" : "",
                  out->queue_position(), out->partitions(), out->circuit_id());
  }
  return s;
}

grpc::Status ProvingService::accept(const v1::SubmitProofRequest& req,
                                    v1::SubmitProofResponse* out) {
  if (req.proof_type().empty()) return invalid("proof_type: empty (a proof-type plugin's name)");
  const std::vector<std::string> types = engine_.proof_types();
  if (std::find(types.begin(), types.end(), req.proof_type()) == types.end()) {
    return invalid(fmt::format("proof_type: '{}' is not a proof type of this server (it has: {})",
                               echo_value(req.proof_type()), fmt::join(types, ", ")));
  }
  const std::optional<pipeline::Priority> priority = priority_from_proto(req.priority());
  if (!priority) {
    return invalid(fmt::format("priority: {} is not a Priority (1 critical .. 4 low)",
                               static_cast<int>(req.priority())));
  }
  if (req.request().empty()) return invalid("request: empty (the proof type's request bytes)");
  if (req.request_id().size() > kMaxRequestIdBytes || !printable(req.request_id())) {
    return invalid(fmt::format("request_id: at most {} printable ASCII bytes", kMaxRequestIdBytes));
  }
  if (req.deadline_ms() > 366ull * 24 * 3600 * 1000) {
    return invalid("deadline_ms: more than a year from now");
  }
  if (state_.draining.load()) {
    return {grpc::StatusCode::UNAVAILABLE, "the server is draining (SIGTERM); job not accepted"};
  }
  // Back-pressure: jobs not ended plus submits being parsed right now.
  struct InProgress {
    std::atomic<int64_t>& n;
    int64_t before;
    explicit InProgress(std::atomic<int64_t>& c) : n(c), before(c.fetch_add(1)) {}
    ~InProgress() { n.fetch_sub(1); }
  } in_progress(state_.submits_in_progress);
  Result<uint64_t> stored = broker_.unfinished();
  if (!stored.ok()) return to_grpc(stored.status().with_context("the job store"));
  const uint64_t unfinished = *stored + static_cast<uint64_t>(in_progress.before);
  if (req.request_id().empty() || !broker_.find_request(req.request_id()).ok()) {
    if (unfinished >= state_.config.max_queued_jobs) {
      state_.submits_refused.fetch_add(1);
      return {grpc::StatusCode::RESOURCE_EXHAUSTED,
              fmt::format("{} jobs are queued or running, the most this server takes "
                          "(server.max_queued_jobs = {}); retry later",
                          unfinished, state_.config.max_queued_jobs)};
    }
  }
  pipeline::JobRequest job;
  job.proof_type = req.proof_type();
  job.input.assign(req.request().begin(), req.request().end());
  job.input_name = req.request_id().empty() ? "request" : "request " + req.request_id();
  // UNSPECIFIED: the proof type's default (config scheduling.defaults, then its plugin's).
  if (req.priority() != v1::PRIORITY_UNSPECIFIED) job.priority = *priority;
  if (req.deadline_ms() > 0) {
    job.deadline =
        saturating_after(std::chrono::steady_clock::now(), milliseconds(req.deadline_ms()));
  }
  job.request_id = req.request_id();
  // Stored durably before the answer (broker.h): a crash after this loses nothing. A request id
  // that names another job is ALREADY_EXISTS.
  Result<JobBroker::Accepted> s = broker_.submit(std::move(job));
  if (!s.ok()) {
    if (s.status().code() == Code::kResourceExhausted) state_.submits_refused.fetch_add(1);
    return to_grpc(s.status());
  }
  out->set_job_id(s->id);
  out->set_queue_position(s->queue_position);
  out->set_attached(s->attached);
  out->set_partitions(s->partitions);
  out->set_circuit_id(s->circuit_id);
  return grpc::Status::OK;
}

grpc::Status ProvingService::SubmitProof(grpc::ServerContext* ctx,
                                         const v1::SubmitProofRequest* req,
                                         v1::SubmitProofResponse* out) {
  const Counted done{state_, "SubmitProof"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  return done(submit(*req, out));
}

grpc::Status ProvingService::await(grpc::ServerContext* ctx, uint64_t job, bool has_timeout,
                                   int64_t timeout_ms, bool with_vk, v1::ProofResult* out) {
  if (has_timeout && timeout_ms < 0) {
    return invalid(fmt::format("timeout_ms: {} is negative", timeout_ms));
  }
  const auto start = Clock::now();
  // The earlier of the asked timeout and the call's own deadline.
  Clock::time_point until = ctx->deadline();
  if (has_timeout) until = std::min(until, saturating_after(start, milliseconds(timeout_ms)));
  for (;;) {
    // The store is the record: a job ends there when its result (or failure) is committed,
    // here or on another worker of the cluster.
    Result<store::JobRecord> r = broker_.record(job, true);
    if (!r.ok()) return to_grpc(r.status());
    if (store::is_final(r->state)) {
      fill_stored_result(*r, out);
      if (with_vk && r->state == store::JobState::kDone) {
        Result<std::string> vk = engine_.snarkjs_verifying_key(r->circuit_id);
        if (!vk.ok()) return to_grpc(vk.status().with_context("the verifying key"));
        out->set_snarkjs_verification_key(*vk);
      }
      return grpc::Status::OK;
    }
    // A stopping daemon claims nothing more: a job queued in the store (never claimed here, or
    // given back by a cancelled drain) will not end here, and the client is told so rather
    // than CANCELLED when the listeners close (issue 33 #3: the client and the store agree).
    if (state_.draining && r->state == store::JobState::kQueued && !broker_.holds(job)) {
      return {grpc::StatusCode::UNAVAILABLE,
              fmt::format("job {} is queued in the job store and this daemon is stopping: it "
                          "will not end here now; await it again (after the restart, or on "
                          "another daemon of the cluster)",
                          job)};
    }
    if (ctx->IsCancelled()) return {grpc::StatusCode::CANCELLED, "the client went away"};
    const auto now = Clock::now();
    if (now >= until) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED,
              fmt::format("job {} has not ended after {} ms; it goes on (await it again)", job,
                          std::chrono::duration_cast<milliseconds>(now - start).count())};
    }
    const auto left = std::chrono::duration_cast<milliseconds>(until - now);
    broker_.wait_commit(std::clamp(left, milliseconds(1), kSlice));
  }
}

grpc::Status ProvingService::AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                                        v1::ProofResult* out) {
  const Counted done{state_, "AwaitProof"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  uint64_t job = 0;
  if (grpc::Status s = resolve(req->job(), &job); !s.ok()) return done(s);
  const WaitingSlot slot(state_);
  if (!slot.taken()) return done(slot.refusal("AwaitProof"));
  return done(
      await(ctx, job, req->has_timeout_ms(), req->timeout_ms(), req->with_verifying_key(), out));
}

grpc::Status ProvingService::Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req,
                                   v1::ProofResult* out) {
  const Counted done{state_, "Prove"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  if (req->has_timeout_ms() && req->timeout_ms() < 0) {
    return done(invalid(fmt::format("timeout_ms: {} is negative", req->timeout_ms())));
  }
  const WaitingSlot slot(state_);  // before the submit: a refused Prove submits nothing
  if (!slot.taken()) return done(slot.refusal("Prove"));
  v1::SubmitProofResponse submitted;
  if (grpc::Status s = submit(req->submit(), &submitted); !s.ok()) return done(s);
  return done(await(ctx, submitted.job_id(), req->has_timeout_ms(), req->timeout_ms(),
                    req->with_verifying_key(), out));
}

grpc::Status ProvingService::CancelProof(grpc::ServerContext* ctx,
                                         const v1::CancelProofRequest* req,
                                         v1::CancelProofResponse* out) {
  const Counted done{state_, "CancelProof"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  if (req->job_id() == 0) return done(invalid("job_id: 0 is not a job (ids start at 1)"));
  bool was_running = false;
  if (Status s = broker_.cancel(req->job_id(), &was_running); !s.ok()) return done(to_grpc(s));
  out->set_was_running(was_running);
  spdlog::info("job {} cancelled by a client ({})", req->job_id(),
               was_running ? "it was running" : "it was queued");
  return done(grpc::Status::OK);
}

grpc::Status ProvingService::GetStatus(grpc::ServerContext* ctx, const v1::GetStatusRequest* req,
                                       v1::EngineStatus* out) {
  const Counted done{state_, "GetStatus"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  // --json prints what HTTP /status serves: the workers too, as there.
  const nlohmann::json doc = status_document(engine_, state_, req->cluster() || req->json());
  fill_status(doc, engine_, state_, out);
  if (doc.contains("store")) fill_store_status(doc["store"], out);
  if (req->json()) out->set_status_json(doc.dump());
  return done(grpc::Status::OK);
}

grpc::Status ProvingService::GetMetrics(grpc::ServerContext* ctx, const v1::GetMetricsRequest*,
                                        v1::Metrics* out) {
  const Counted done{state_, "GetMetrics"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  out->set_text(engine_.metrics_text() + state_.metrics_text());
  return done(grpc::Status::OK);
}

namespace {

grpc::Status check_circuit(const std::string& id) {
  if (Status bad = check_circuit_id(id, "circuit_id"); !bad.ok()) return invalid(bad.message());
  return grpc::Status::OK;
}

}  // namespace

grpc::Status ProvingService::PreloadParams(grpc::ServerContext* ctx, const v1::ParamsRequest* req,
                                           v1::ParamsResponse* out) {
  const Counted done{state_, "PreloadParams"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  if (grpc::Status s = check_circuit(req->circuit_id()); !s.ok()) return done(s);
  const int64_t t0 = now_ns();
  pipeline::ParamsChange change;
  if (Status s = engine_.preload_params(req->circuit_id(), &change); !s.ok()) {
    return done(to_grpc(s));
  }
  out->set_circuit_id(req->circuit_id());
  out->set_bytes(change.bytes);
  out->set_was_hot(change.was_hot);
  out->set_elapsed_ms(ms_since(t0));
  return done(grpc::Status::OK);
}

grpc::Status ProvingService::EvictParams(grpc::ServerContext* ctx, const v1::ParamsRequest* req,
                                         v1::ParamsResponse* out) {
  const Counted done{state_, "EvictParams"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  if (grpc::Status s = check_circuit(req->circuit_id()); !s.ok()) return done(s);
  const int64_t t0 = now_ns();
  pipeline::ParamsChange change;
  if (Status s = engine_.evict_params(req->circuit_id(), &change); !s.ok()) {
    return done(to_grpc(s));
  }
  out->set_circuit_id(req->circuit_id());
  out->set_bytes(change.bytes);
  out->set_was_hot(change.was_hot);
  out->set_elapsed_ms(ms_since(t0));
  return done(grpc::Status::OK);
}

grpc::Status ProvingService::WatchJob(grpc::ServerContext* ctx, const v1::WatchJobRequest* req,
                                      grpc::ServerWriter<v1::JobEvent>* writer) {
  const Counted done{state_, "WatchJob"};
  if (grpc::Status a = authorize(ctx); !a.ok()) return done(a);
  uint64_t job = 0;
  if (grpc::Status s = resolve(req->job(), &job); !s.ok()) return done(s);
  const WaitingSlot slot(state_);
  if (!slot.taken()) return done(slot.refusal("WatchJob"));
  std::optional<uint64_t> local = broker_.local_job(job);
  if (!local) {
    bool claimed_here = false;
    grpc::Status s = watch_stored(ctx, job, writer, &claimed_here);
    local = broker_.local_job(job);
    if (!claimed_here || !local) return done(s);
  }
  Result<pipeline::JobWatch> watch = engine_.watch(*local);
  if (!watch.ok()) return done(to_grpc(watch.status()));
  for (;;) {
    if (ctx->IsCancelled()) return done({grpc::StatusCode::CANCELLED, "the client went away"});
    if (Clock::now() >= ctx->deadline()) {
      return done({grpc::StatusCode::DEADLINE_EXCEEDED, "the call's deadline passed"});
    }
    std::optional<pipeline::JobEvent> e = watch->next(kSlice);
    if (!e) continue;
    // An end other than DONE (a client's cancel, a failure that may be retried, a daemon that
    // stops and gives the job back to the queue) is told as the job store records it, so the
    // client and the store agree (issue 33 #3: a second SIGTERM said CANCELLED of a job the
    // store kept queued and the next start proved).
    if (e->kind == pipeline::EventKind::kJobEnded && e->state != pipeline::JobState::kDone) {
      return done(stored_end(ctx, job, writer));
    }
    v1::JobEvent msg;
    fill_event(*e, &msg);
    msg.set_job_id(job);
    if (!writer->Write(msg)) return done({grpc::StatusCode::CANCELLED, "the client went away"});
    if (e->kind == pipeline::EventKind::kJobEnded) return done(grpc::Status::OK);
  }
}

grpc::Status ProvingService::stored_end(grpc::ServerContext* ctx, uint64_t job,
                                        grpc::ServerWriter<v1::JobEvent>* writer) {
  for (;;) {
    Result<store::JobRecord> r = broker_.record(job, false);
    if (!r.ok()) return to_grpc(r.status());
    if (store::is_final(r->state)) return write_stored_end(job, *r, writer);
    // The broker has written what ended here (it holds the job no more) and the job is not
    // final: the store queued it again for another attempt (a job claimed here again is held,
    // and its end awaited).
    if (!broker_.holds(job)) {
      return {grpc::StatusCode::UNAVAILABLE,
              fmt::format("job {} did not end here: the job store queued it again (the daemon "
                          "is stopping, or its failure is retried); await it again",
                          job)};
    }
    if (ctx->IsCancelled()) return {grpc::StatusCode::CANCELLED, "the client went away"};
    if (Clock::now() >= ctx->deadline()) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED, "the call's deadline passed"};
    }
    broker_.wait_commit(kSlice);
  }
}

grpc::Status ProvingService::write_stored_end(uint64_t job, const store::JobRecord& r,
                                              grpc::ServerWriter<v1::JobEvent>* writer) {
  v1::JobEvent msg;
  msg.set_job_id(job);
  msg.set_kind(v1::EVENT_KIND_JOB_ENDED);
  msg.set_partitions(r.partitions);
  v1::ProofResult as_result;
  fill_stored_result(r, &as_result);
  msg.set_state(as_result.state());
  msg.set_status_code(as_result.status_code());
  msg.set_status_message(as_result.status_message());
  if (!writer->Write(msg)) return {grpc::StatusCode::CANCELLED, "the client went away"};
  return grpc::Status::OK;
}

// A job not running here (queued in the store, on another worker, or ended): its stream is the
// stored job's end, polled from the store; it switches to the engine's events if it is claimed
// here meanwhile.
grpc::Status ProvingService::watch_stored(grpc::ServerContext* ctx, uint64_t job,
                                          grpc::ServerWriter<v1::JobEvent>* writer,
                                          bool* claimed_here) {
  for (;;) {
    Result<store::JobRecord> r = broker_.record(job, false);
    if (!r.ok()) return to_grpc(r.status());
    if (store::is_final(r->state)) return write_stored_end(job, *r, writer);
    if (broker_.local_job(job)) {
      *claimed_here = true;
      return grpc::Status::OK;
    }
    if (ctx->IsCancelled()) return {grpc::StatusCode::CANCELLED, "the client went away"};
    if (Clock::now() >= ctx->deadline()) {
      return {grpc::StatusCode::DEADLINE_EXCEEDED, "the call's deadline passed"};
    }
    broker_.wait_commit(kSlice);
  }
}

}  // namespace zkpipe::server
