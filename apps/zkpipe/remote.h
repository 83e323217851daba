// remote.h: what the client commands of the `zkpipe` binary (remote.cpp: submit, await, status,
// cancel, params, metrics; bench_remote.cpp: bench --addr) share: the --addr / --token-file
// options, connecting, per-call deadlines, gRPC errors as zkpipe Statuses, priorities and a
// ProofResult checked and turned into a pipeline::JobResult. Internal to apps/zkpipe.
// Thread-safety: pure functions; a connected Client is safe to share between threads.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "cli.h"
#include "zkpipe/server/client.h"
#include "zkpipe/server/convert.h"

namespace zkpipe::cli {

namespace v1 = zkpipe::v1;

// Deadline of a call that does not wait for a proof (GetStatus, CancelProof, ...).
inline constexpr std::chrono::milliseconds kCallDeadline{30'000};
// SubmitProof carries the request (up to server.max message bytes) and the server parses it.
inline constexpr std::chrono::milliseconds kSubmitDeadline{300'000};
// An await's own timeout travels in the request; the call's deadline is that plus this margin,
// so the server answers DEADLINE_EXCEEDED itself (naming the job) before the call gives up.
inline constexpr std::chrono::milliseconds kAwaitMargin{30'000};
// What an await waits when --timeout is not given.
inline constexpr std::string_view kDefaultAwaitTimeout = "10m";

struct RemoteOptions {
  std::string addr, token_file;
};
// --addr (else daemon_address's default) and --token-file.
void add_remote_options(CLI::App* cmd, RemoteOptions* o);
// The package's gRPC socket (configs/systemd/zkpipe.service, config.h's default listen).
inline constexpr const char* kPackageSocket = "/run/zkpipe/zkpipe.sock";
// The daemon a client command talks to: `given` (--addr), else $ZKPIPE_ADDR, else the package's
// socket when it exists; INVALID_ARGUMENT naming all three when none is there.
Result<std::string> daemon_address(const std::string& given);
Result<std::unique_ptr<server::Client>> connect_remote(const RemoteOptions& o);

// A failed call as a Status: the code as from_grpc maps it, the message prefixed with the RPC
// and the address ("GetStatus (unix:///run/zk.sock): failed to connect to all addresses").
Status rpc_error(const grpc::Status& s, std::string_view rpc, const server::Client& client);

// grpc_code_text, job_state_text, result_from_proto: zkpipe/server/convert.h.
using server::grpc_code_text;
using server::job_state_text;

// A server's text (a status message, a device name) as we print it: control characters
// (terminal escapes) replaced by '?', cut after kServerTextLimit bytes.
inline constexpr size_t kServerTextLimit = 1000;
std::string server_text(std::string_view text);

// --priority critical|high|normal|low; empty: UNSPECIFIED (the proof type's default).
Result<v1::Priority> parse_remote_priority(const std::string& text);

// --timeout: milliseconds, or nullopt for "infinite" (when allowed).
Result<std::optional<int64_t>> parse_await_timeout(const std::string& text, bool allow_infinite);

// The result as `zkpipe prove` holds it, after checking what a bad server could send
// (server::result_from_proto).
inline Result<pipeline::JobResult> to_job_result(const v1::ProofResult& r) {
  return server::result_from_proto(r);
}

// AwaitProof for `ref`: waits at most `timeout_ms` (nullopt: no limit), the call's deadline that
// plus kAwaitMargin.
Result<v1::ProofResult> await_proof(server::Client& client, const v1::JobRef& ref,
                                    std::optional<int64_t> timeout_ms, bool with_verifying_key);

// Follows job `job` (WatchJob) until its JOB_ENDED event, drawing on stdout: on a terminal one
// progress line per partition redrawn in place, else one plain line per event. `partitions` is
// what SubmitProof said (events correct it). An error when the stream failed before the end
// (the caller still awaits the result).
Status watch_job(server::Client& client, uint64_t job, uint32_t partitions,
                 std::optional<int64_t> timeout_ms);

// status, cancel, params preload|evict, metrics (remote_admin.cpp).
void add_remote_admin(CLI::App& app, int* exit_code);

}  // namespace zkpipe::cli
