// `zkpipe submit` and `zkpipe await`: a request sent to a running `zkpipe serve` and its result
// fetched (AwaitProof): the per-partition timing table, the proof written (--out, with its
// layout sidecar, only when the server verified it) and the snarkjs files. `submit --wait`
// follows the job (WatchJob) in between; remote_watch.cpp draws that. Also the helpers every
// client command shares (remote.h).
// Thread-safety: main thread.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/core.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "proof_layout.h"
#include "remote.h"
#include "run_summary.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {

void add_remote_options(CLI::App* cmd, RemoteOptions* o) {
  cmd->add_option("--addr", o->addr,
                  "the daemon: unix:///path/to.sock or host:port (default: $ZKPIPE_ADDR, else "
                  "the package's unix:///run/zkpipe/zkpipe.sock when it exists)");
  cmd->add_option("--token-file", o->token_file,
                  "file holding the bearer token (mode 600), for a TCP daemon that requires one");
}

Result<std::string> daemon_address(const std::string& given) {
  if (!given.empty()) return given;
  if (const char* env = std::getenv("ZKPIPE_ADDR"); env != nullptr && *env != '\0') {
    return std::string(env);
  }
  std::error_code ec;
  if (std::filesystem::exists(kPackageSocket, ec)) return "unix://" + std::string(kPackageSocket);
  return invalid_argument(fmt::format(
      "--addr: no daemon named (--addr or ZKPIPE_ADDR), and the package's socket {} does not "
      "exist (is zkpipe.service running?)",
      kPackageSocket));
}

Result<std::unique_ptr<server::Client>> connect_remote(const RemoteOptions& o) {
  server::ClientOptions options;
  ZKP_ASSIGN_OR_RETURN(options.addr, daemon_address(o.addr));
  options.token_file = o.token_file;
  return server::Client::connect(options);
}

Status rpc_error(const grpc::Status& s, std::string_view rpc, const server::Client& client) {
  return server::from_grpc(s).with_context(
      fmt::format("{} ({})", rpc, echo_value(client.address().text)));
}

std::string server_text(std::string_view text) {
  std::string out(text.substr(0, kServerTextLimit));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  if (text.size() > kServerTextLimit) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

Result<v1::Priority> parse_remote_priority(const std::string& text) {
  if (text.empty()) return v1::PRIORITY_UNSPECIFIED;  // the proof type's default
  const std::optional<pipeline::Priority> p = pipeline::parse_priority(text);
  if (!p) {
    return invalid_argument("--priority: '" + echo_value(text) +
                            "' is not one of critical, high, normal, low");
  }
  return server::priority_to_proto(*p);
}

Result<std::optional<int64_t>> parse_await_timeout(const std::string& text, bool allow_infinite) {
  Result<int64_t> ms = parse_duration_ms(text);
  if (!ms.ok()) return ms.status().with_context("--timeout");
  if (*ms < 0) {
    if (allow_infinite) return std::optional<int64_t>();
    return invalid_argument("--timeout: '" + echo_value(text) +
                            "': this command needs a limit (e.g. 10m)");
  }
  return std::optional<int64_t>(*ms);
}

Result<v1::ProofResult> await_proof(server::Client& client, const v1::JobRef& ref,
                                    std::optional<int64_t> timeout_ms, bool with_verifying_key) {
  v1::AwaitProofRequest req;
  *req.mutable_job() = ref;
  if (timeout_ms) req.set_timeout_ms(*timeout_ms);
  req.set_with_verifying_key(with_verifying_key);
  std::optional<std::chrono::milliseconds> deadline;
  if (timeout_ms) deadline = std::chrono::milliseconds(*timeout_ms) + kAwaitMargin;
  auto ctx = client.context(deadline);
  v1::ProofResult r;
  const grpc::Status s = client.stub().AwaitProof(ctx.get(), req, &r);
  if (!s.ok()) return rpc_error(s, "AwaitProof", client);
  return r;
}

namespace {

struct ResultOptions {
  std::string out, snarkjs, timeout{kDefaultAwaitTimeout};
};

struct SubmitOptions {
  RemoteOptions remote;
  ResultOptions result;
  std::string proof, input, priority, deadline, request_id;
  bool wait = false;
};

struct AwaitOptions {
  RemoteOptions remote;
  ResultOptions result;
  uint64_t job = 0;
  std::string request_id;
  CLI::Option* job_option = nullptr;
};

void add_result_options(CLI::App* cmd, ResultOptions* o) {
  cmd->add_option("--out", o->out,
                  "write the proof here (only when the server verified every partition), and "
                  "its layout as OUT.json");
  cmd->add_option("--snarkjs", o->snarkjs,
                  "write verification_key.json, proof_K.json and public_K.json (K: the sector "
                  "index) for snarkjs here");
  cmd->add_option("--timeout", o->timeout,
                  "how long to wait for the proof: 30s, 10m (default), infinite");
}

// Every output is checked before any work: a proof is never made only to be lost.
Status check_outputs(const ResultOptions& o) {
  if (!o.out.empty()) {
    ZKP_RETURN_IF_ERROR(check_output_path(o.out, "--out"));
    ZKP_RETURN_IF_ERROR(check_output_path(o.out + std::string(tool::kProofLayoutSuffix), "--out"));
  }
  if (!o.snarkjs.empty()) ZKP_RETURN_IF_ERROR(check_output_dir(o.snarkjs, "--snarkjs"));
  return ok_status();
}

Status write_snarkjs(const std::string& dir, const std::string& vk_json,
                     const pipeline::JobResult& r) {
  if (vk_json.empty()) {
    return internal_error("ProofResult.snarkjs_verification_key: empty though asked for");
  }
  if (!nlohmann::json::accept(vk_json)) {
    return internal_error("ProofResult.snarkjs_verification_key: not JSON");
  }
  // The server verified the proofs; one that does not decode is a bad answer, named.
  std::vector<groth16::Proof> proofs;
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    Result<groth16::Proof> proof =
        groth16::decode_proof(r.proof.data() + p * groth16::kProofBytes, groth16::kProofBytes);
    if (!proof.ok()) {
      return internal_error(fmt::format("ProofResult.proof of job {}, partition {}: {}", r.job,
                                        r.partition_indices[p], proof.status().message()));
    }
    proofs.push_back(*proof);
  }
  ZKP_RETURN_IF_ERROR(check_output_dir(dir, "--snarkjs"));
  ZKP_RETURN_IF_ERROR(write_file(dir + "/verification_key.json", vk_json));
  for (size_t p = 0; p < proofs.size(); ++p) {
    const uint32_t k = r.partition_indices[p];
    ZKP_RETURN_IF_ERROR(write_file(fmt::format("{}/proof_{}.json", dir, k),
                                   groth16::export_snarkjs_proof(proofs[p])));
    ZKP_RETURN_IF_ERROR(write_file(fmt::format("{}/public_{}.json", dir, k),
                                   groth16::export_snarkjs_public(r.public_inputs[p])));
  }
  return ok_status();
}

// The table, then the outputs when DONE; a failed or cancelled job exits 1 (2: its request was
// invalid).
int finish(std::string_view cmd, const v1::ProofResult& result, const ResultOptions& o) {
  Result<pipeline::JobResult> r = to_job_result(result);
  if (!r.ok()) return fail(cmd, r.status());
  fmt::print("{}", timing_table(*r));
  if (r->state != pipeline::JobState::kDone) {
    std::fflush(stdout);
    fmt::print(stderr, "zkpipe {}: job {} {}: {}\n", cmd, r->job, job_state_text(result.state()),
               r->status.to_string());
    return r->status.code() == Code::kInvalidArgument ? 2 : 1;
  }
  const size_t n = r->partitions.size();
  if (!o.out.empty()) {
    if (Status s = write_file(o.out, std::span<const uint8_t>(r->proof)); !s.ok()) {
      return fail(cmd, s);
    }
    const std::string layout = o.out + std::string(tool::kProofLayoutSuffix);
    if (Status s = write_file(
            layout, tool::proof_layout_json(r->proof_type, r->circuit_id, r->partition_indices));
        !s.ok()) {
      return fail(cmd, s);
    }
    fmt::print(
        "proof: {} ({} partition(s) x 192 bytes, verified by the server; sector partitions "
        "{}: {})\n",
        o.out, n, fmt::join(r->partition_indices, ","), layout);
  } else {
    fmt::print(
        "proof: {} partition(s) x 192 bytes, verified by the server (not written: no --out)\n", n);
  }
  if (!o.snarkjs.empty()) {
    if (Status s = write_snarkjs(o.snarkjs, result.snarkjs_verification_key(), *r); !s.ok()) {
      return fail(cmd, s);
    }
    fmt::print(
        "snarkjs: {}/verification_key.json, proof_K.json, public_K.json for K = {} (the sector "
        "index)\n",
        o.snarkjs, fmt::join(r->partition_indices, ", "));
  }
  return 0;
}

int run_submit(const SubmitOptions& o) {
  constexpr std::string_view kCmd = "submit";
  Result<v1::Priority> priority = parse_remote_priority(o.priority);
  if (!priority.ok()) return fail(kCmd, priority.status());
  int64_t deadline_ms = 0;
  if (!o.deadline.empty()) {
    Result<int64_t> d = parse_duration_ms(o.deadline);
    if (!d.ok()) return fail(kCmd, d.status().with_context("--deadline"));
    deadline_ms = *d < 0 ? 0 : *d;  // infinite: none
  }
  Result<std::optional<int64_t>> timeout = parse_await_timeout(o.result.timeout, true);
  if (!timeout.ok()) return fail(kCmd, timeout.status());
  const bool wait = o.wait || !o.result.out.empty() || !o.result.snarkjs.empty();
  if (Status s = check_outputs(o.result); !s.ok()) return fail(kCmd, s);
  Result<std::string> input = read_file(o.input);
  if (!input.ok()) return fail(kCmd, input.status().with_context("--input"));
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(kCmd, client.status());
  v1::SubmitProofRequest req;
  req.set_proof_type(o.proof);
  req.set_request(std::move(*input));
  req.set_priority(*priority);
  req.set_deadline_ms(static_cast<uint64_t>(deadline_ms));
  req.set_request_id(o.request_id);
  const auto t0 = std::chrono::steady_clock::now();
  v1::SubmitProofResponse submitted;
  {
    auto ctx = (*client)->context(kSubmitDeadline);
    const grpc::Status s = (*client)->stub().SubmitProof(ctx.get(), req, &submitted);
    if (!s.ok()) return fail(kCmd, rpc_error(s, "SubmitProof", **client));
  }
  fmt::print("job {}: queue position {}, {} partition(s) of {}{}\n", submitted.job_id(),
             submitted.queue_position(), submitted.partitions(), submitted.circuit_id(),
             submitted.attached() ? " (attached to an existing job)" : "");
  std::fflush(stdout);
  if (!wait) return 0;
  if (Status s = watch_job(**client, submitted.job_id(), submitted.partitions(), *timeout);
      !s.ok()) {
    fmt::print(stderr, "zkpipe {}: not following the job: {}\n", kCmd, s.to_string());
  }
  std::optional<int64_t> left = *timeout;
  if (left) {
    const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0);
    left = std::max<int64_t>(0, *left - spent.count());
  }
  v1::JobRef ref;
  ref.set_job_id(submitted.job_id());
  Result<v1::ProofResult> result = await_proof(**client, ref, left, !o.result.snarkjs.empty());
  if (!result.ok()) return fail(kCmd, result.status());
  return finish(kCmd, *result, o.result);
}

int run_await(const AwaitOptions& o) {
  constexpr std::string_view kCmd = "await";
  const bool by_job = o.job_option->count() > 0;
  if (by_job == !o.request_id.empty()) {
    return fail(kCmd, invalid_argument("name the job by JOB or by --request-id (one of them)"));
  }
  Result<std::optional<int64_t>> timeout = parse_await_timeout(o.result.timeout, true);
  if (!timeout.ok()) return fail(kCmd, timeout.status());
  if (Status s = check_outputs(o.result); !s.ok()) return fail(kCmd, s);
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(kCmd, client.status());
  v1::JobRef ref;
  if (by_job) {
    ref.set_job_id(o.job);
  } else {
    ref.set_request_id(o.request_id);
  }
  Result<v1::ProofResult> result = await_proof(**client, ref, *timeout, !o.result.snarkjs.empty());
  // DEADLINE_EXCEEDED: the server's message says the job goes on.
  if (!result.ok()) return fail(kCmd, result.status());
  return finish(kCmd, *result, o.result);
}

}  // namespace

void add_remote(CLI::App& app, int* exit_code) {
  auto s = std::make_shared<SubmitOptions>();
  CLI::App* submit = app.add_subcommand(
      "submit", "Send a request to a running `zkpipe serve`; with --wait follow it to the proof");
  add_remote_options(submit, &s->remote);
  submit->add_option("--proof", s->proof, "proof type: porep, snapdeals, ...")->required();
  submit->add_option("--input", s->input, "the request (vanilla proofs for porep/snapdeals)")
      ->required();
  submit->add_option("--priority", s->priority,
                     "critical, high, normal or low (default: the proof type's, else normal)");
  submit->add_option("--deadline", s->deadline, "when the proof is wanted, from now: 30m, 2h");
  submit->add_option("--request-id", s->request_id,
                     "the caller's id: a repeat with the same request attaches to the job");
  submit->add_flag("--wait", s->wait,
                   "follow the job and fetch its result (implied by --out and --snarkjs)");
  add_result_options(submit, &s->result);
  submit->callback([s, exit_code] { *exit_code = run_submit(*s); });

  auto a = std::make_shared<AwaitOptions>();
  CLI::App* await = app.add_subcommand(
      "await", "Wait for a job of a running `zkpipe serve` and fetch its result");
  add_remote_options(await, &a->remote);
  a->job_option = await->add_option("job", a->job, "the job's id (as submit printed it)");
  await->add_option("--request-id", a->request_id, "the job's request id instead of JOB");
  add_result_options(await, &a->result);
  await->callback([a, exit_code] { *exit_code = run_await(*a); });

  add_remote_admin(app, exit_code);
}

}  // namespace zkpipe::cli
