// `zkpipe bench --addr ADDR --proof T (--preset P | --input F) --jobs N --concurrency K`: a load
// generator against a running `zkpipe serve`. K client threads each take the next job, submit it
// (SubmitProof) and await its proof (AwaitProof), or do both in one Prove call (--prove-rpc),
// until N jobs have ended; per job it measures the submit latency (the SubmitProof round trip)
// and the end-to-end latency (submit to result). Prints jobs, errors by gRPC code (with the
// first message of each), proofs per minute, p50/p99 latencies (nearest rank) and the wall time;
// --json writes the same numbers.
// Thread-safety: the worker threads share the Client (thread-safe), the next-job counter
// (atomic) and the error table (mutex); each writes only its own jobs' slots.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "remote.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::cli {
namespace {

using Clock = std::chrono::steady_clock;

constexpr uint32_t kMaxJobs = 100'000;
constexpr uint32_t kMaxConcurrency = 256;

struct ErrorCount {
  uint64_t count = 0;
  std::string first_message;
};

// What the worker threads fill in: one slot per job (written by the thread that ran it).
struct Run {
  std::vector<double> submit_ms, e2e_ms;  // < 0: not measured (failed, or --prove-rpc)
  std::vector<uint32_t> partitions;       // of a DONE job
  std::mutex mu;
  std::map<std::string, ErrorCount> errors;  // by gRPC code name

  void error(const std::string& code, const std::string& message) {
    std::lock_guard<std::mutex> lock(mu);
    ErrorCount& e = errors[code];
    if (e.count++ == 0) e.first_message = server_text(message);
  }
};

// One job: submit and await (or Prove); records into run's slot j.
void run_job(server::Client& client, const RemoteBenchOptions& o, int64_t timeout_ms,
             v1::SubmitProofRequest& submit, uint32_t j, Run& run) {
  submit.set_request_id(o.request_prefix.empty() ? std::string()
                                                 : fmt::format("{}-{}", o.request_prefix, j));
  const auto timeout = std::chrono::milliseconds(timeout_ms);
  const Clock::time_point t0 = Clock::now();
  v1::ProofResult result;
  if (o.prove_rpc) {
    v1::ProveRequest req;
    *req.mutable_submit() = submit;
    req.set_timeout_ms(timeout_ms);
    auto ctx = client.context(kSubmitDeadline + timeout + kAwaitMargin);
    const grpc::Status s = client.stub().Prove(ctx.get(), req, &result);
    if (!s.ok()) return run.error(grpc_code_text(s.error_code()), "Prove: " + s.error_message());
  } else {
    v1::SubmitProofResponse submitted;
    {
      auto ctx = client.context(kSubmitDeadline);
      const grpc::Status s = client.stub().SubmitProof(ctx.get(), submit, &submitted);
      if (!s.ok()) {
        return run.error(grpc_code_text(s.error_code()), "SubmitProof: " + s.error_message());
      }
    }
    run.submit_ms[j] = ms_since(t0);
    v1::AwaitProofRequest req;
    req.mutable_job()->set_job_id(submitted.job_id());
    req.set_timeout_ms(timeout_ms);
    auto ctx = client.context(timeout + kAwaitMargin);
    const grpc::Status s = client.stub().AwaitProof(ctx.get(), req, &result);
    if (!s.ok()) {
      return run.error(
          grpc_code_text(s.error_code()),
          fmt::format("AwaitProof of job {}: {}", submitted.job_id(), s.error_message()));
    }
  }
  const double e2e = ms_since(t0);
  if (result.state() != v1::JOB_STATE_DONE) {
    return run.error(grpc_code_text(result.status_code()),
                     fmt::format("job {} {}: {}", result.job_id(), job_state_text(result.state()),
                                 result.status_message()));
  }
  // A DONE result is checked as submit checks it (a proof per partition, canonical inputs).
  Result<pipeline::JobResult> checked = to_job_result(result);
  if (!checked.ok()) return run.error("BAD_RESULT", checked.status().message());
  run.e2e_ms[j] = e2e;
  run.partitions[j] = static_cast<uint32_t>(checked->partitions.size());
}

}  // namespace

int run_bench_remote(const RemoteBenchOptions& o) {
  if (o.jobs == 0 || o.jobs > kMaxJobs) {
    return fail("bench",
                invalid_argument(fmt::format("--jobs: {} is not from 1 to {}", o.jobs, kMaxJobs)));
  }
  if (o.concurrency == 0 || o.concurrency > kMaxConcurrency) {
    return fail("bench", invalid_argument(fmt::format("--concurrency: {} is not from 1 to {}",
                                                      o.concurrency, kMaxConcurrency)));
  }
  Result<v1::Priority> priority = parse_remote_priority(o.priority);
  if (!priority.ok()) return fail("bench", priority.status());
  Result<std::optional<int64_t>> timeout = parse_await_timeout(o.timeout, false);
  if (!timeout.ok()) return fail("bench", timeout.status());
  if (!o.json.empty()) {
    if (Status s = check_output_path(o.json, "--json"); !s.ok()) return fail("bench", s);
  }
  std::string input;
  if (!o.input.empty()) {
    Result<std::string> bytes = read_file(o.input);
    if (!bytes.ok()) return fail("bench", bytes.status().with_context("--input"));
    input = std::move(*bytes);
  } else {
    // Made here, by the proof type's plugin (the server only proves it).
    Result<std::vector<uint8_t>> bytes =
        bench_request({o.proof, o.preset, o.seed}, {{"--plugin-dir", o.plugin_dirs}}, o.cache_dir);
    if (!bytes.ok()) return fail("bench", bytes.status());
    input.assign(bytes->begin(), bytes->end());
  }
  Result<std::unique_ptr<server::Client>> client =
      connect_remote(RemoteOptions{o.addr, o.token_file});
  if (!client.ok()) return fail("bench", client.status());

  Run run;
  run.submit_ms.assign(o.jobs, -1);
  run.e2e_ms.assign(o.jobs, -1);
  run.partitions.assign(o.jobs, 0);
  std::atomic<uint32_t> next{0};
  const uint32_t threads = std::min(o.concurrency, o.jobs);
  const std::string what =
      o.input.empty() ? fmt::format("preset {}, seed {}", o.preset, o.seed) : o.input;
  fmt::print("bench: {} job(s) of {} ({}, {} bytes) against {}, {} at a time, {}\n", o.jobs,
             o.proof, what, input.size(), (*client)->address().text, threads,
             o.prove_rpc ? "Prove" : "SubmitProof + AwaitProof");
  std::fflush(stdout);
  const Clock::time_point t0 = Clock::now();
  std::vector<std::thread> pool;
  for (uint32_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      v1::SubmitProofRequest submit;  // per thread: the request bytes are copied once
      submit.set_proof_type(o.proof);
      submit.set_request(input);
      submit.set_priority(*priority);
      for (uint32_t j = next++; j < o.jobs; j = next++) {
        run_job(**client, o, **timeout, submit, j, run);
      }
    });
  }
  for (std::thread& t : pool) t.join();
  const double wall_s = ms_since(t0) / 1000;

  std::vector<double> submit, e2e;
  uint64_t partitions = 0;
  for (uint32_t j = 0; j < o.jobs; ++j) {
    if (run.submit_ms[j] >= 0) submit.push_back(run.submit_ms[j]);
    if (run.e2e_ms[j] >= 0) e2e.push_back(run.e2e_ms[j]);
    partitions += run.partitions[j];
  }
  std::sort(submit.begin(), submit.end());
  std::sort(e2e.begin(), e2e.end());
  uint64_t errors = 0;
  for (const auto& [code, e] : run.errors) errors += e.count;
  const double per_min = wall_s > 0 ? 60.0 / wall_s : 0;
  const auto latency = [](const std::vector<double>& v) {
    return v.empty() ? std::string("-")
                     : fmt::format("p50 {:.1f} ms, p99 {:.1f} ms", nearest_rank(v, 50),
                                   nearest_rank(v, 99));
  };
  fmt::print("jobs: {} done, {} error(s)\n", e2e.size(), errors);
  for (const auto& [code, e] : run.errors) {
    fmt::print("  {}: {} (first: {})\n", code, e.count, e.first_message);
  }
  fmt::print("proofs/min: {:.1f} ({} partition proof(s); {:.1f} jobs/min)\n",
             static_cast<double>(partitions) * per_min, partitions,
             static_cast<double>(e2e.size()) * per_min);
  fmt::print("submit latency: {}\n",
             o.prove_rpc ? std::string("- (not measured with --prove-rpc)") : latency(submit));
  fmt::print("end-to-end latency: {}\n", latency(e2e));
  fmt::print("wall: {:.2f} s\n", wall_s);
  if (!o.json.empty()) {
    nlohmann::json by_code = nlohmann::json::object();
    for (const auto& [code, e] : run.errors) {
      by_code[code] = {{"count", e.count}, {"first_message", e.first_message}};
    }
    const nlohmann::json j = {{"addr", (*client)->address().text},
                              {"proof_type", o.proof},
                              {"input", what},
                              {"rpc", o.prove_rpc ? "Prove" : "SubmitProof+AwaitProof"},
                              {"jobs", o.jobs},
                              {"concurrency", threads},
                              {"jobs_done", e2e.size()},
                              {"errors", errors},
                              {"errors_by_code", by_code},
                              {"partitions", partitions},
                              {"proofs_per_min", static_cast<double>(partitions) * per_min},
                              {"jobs_per_min", static_cast<double>(e2e.size()) * per_min},
                              {"submit_p50_ms", nearest_rank(submit, 50)},
                              {"submit_p99_ms", nearest_rank(submit, 99)},
                              {"e2e_p50_ms", nearest_rank(e2e, 50)},
                              {"e2e_p99_ms", nearest_rank(e2e, 99)},
                              {"wall_s", wall_s}};
    if (Status s = write_file(o.json, j.dump(2) + "\n"); !s.ok()) return fail("bench", s);
    fmt::print("wrote {}\n", o.json);
  }
  return errors == 0 ? 0 : 1;
}

}  // namespace zkpipe::cli
