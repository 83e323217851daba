// service.h: private to engine/server. ProvingService implements zkpipe.v1.ProvingEngine over a
// pipeline::Engine (service.cpp); convert.cpp turns the server's own values (status, events,
// stored results) into messages, beside the shared zkpipe/server/convert.h. ServiceState is
// what the service, the HTTP side and the server share. Jobs are named by their job store ids
// (broker.h), which the engine uses as its own.
// Thread-safety: gRPC calls the handlers from many threads at once; all state is atomic or
// guarded by its own mutex.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "broker.h"
#include "zkpipe/config.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/server/client.h"
#include "zkpipe/server/convert.h"
#include "zkpipe/v1/proving_engine.grpc.pb.h"

namespace zkpipe::server {

namespace v1 = zkpipe::v1;

struct ServiceState {
  ServerConfig config;
  JobBroker* broker = nullptr;  // set once at start, before any call
  std::string token;            // empty: no TCP call needs one
  std::atomic<bool> draining{false};
  std::atomic<uint64_t> submits_refused{0};
  std::atomic<int64_t> submits_in_progress{0};  // counted against max_queued_jobs
  std::atomic<uint32_t> waiting_calls{0};       // counted against max_waiting_calls
  std::atomic<uint64_t> waiting_refused{0};
  std::mutex calls_mu;
  std::map<std::pair<std::string, std::string>, uint64_t> calls;  // (method, code) -> count
  const int64_t started_ns = now_ns();                            // for zkpipe_uptime_seconds
  void count_call(const std::string& method, const grpc::Status& s);
  // zkpipe_rpc_calls_total, zkpipe_submits_refused_total, zkpipe_draining, the store's counts,
  // the process's RSS and uptime, zkpipe_build_info.
  std::string metrics_text();
};

class ProvingService final : public v1::ProvingEngine::Service {
 public:
  ProvingService(pipeline::Engine& engine, JobBroker& broker, ServiceState& state)
      : engine_(engine), broker_(broker), state_(state) {}

  grpc::Status SubmitProof(grpc::ServerContext* ctx, const v1::SubmitProofRequest* req,
                           v1::SubmitProofResponse* out) override;
  grpc::Status AwaitProof(grpc::ServerContext* ctx, const v1::AwaitProofRequest* req,
                          v1::ProofResult* out) override;
  grpc::Status Prove(grpc::ServerContext* ctx, const v1::ProveRequest* req,
                     v1::ProofResult* out) override;
  grpc::Status CancelProof(grpc::ServerContext* ctx, const v1::CancelProofRequest* req,
                           v1::CancelProofResponse* out) override;
  grpc::Status GetStatus(grpc::ServerContext* ctx, const v1::GetStatusRequest* req,
                         v1::EngineStatus* out) override;
  grpc::Status GetMetrics(grpc::ServerContext* ctx, const v1::GetMetricsRequest* req,
                          v1::Metrics* out) override;
  grpc::Status PreloadParams(grpc::ServerContext* ctx, const v1::ParamsRequest* req,
                             v1::ParamsResponse* out) override;
  grpc::Status EvictParams(grpc::ServerContext* ctx, const v1::ParamsRequest* req,
                           v1::ParamsResponse* out) override;
  grpc::Status WatchJob(grpc::ServerContext* ctx, const v1::WatchJobRequest* req,
                        grpc::ServerWriter<v1::JobEvent>* writer) override;

 private:
  grpc::Status authorize(grpc::ServerContext* ctx) const;
  grpc::Status submit(const v1::SubmitProofRequest& req, v1::SubmitProofResponse* out);
  grpc::Status accept(const v1::SubmitProofRequest& req, v1::SubmitProofResponse* out);
  grpc::Status await(grpc::ServerContext* ctx, uint64_t job, bool has_timeout, int64_t timeout_ms,
                     bool with_vk, v1::ProofResult* out);
  grpc::Status resolve(const v1::JobRef& ref, uint64_t* job) const;

  // WatchJob of a job not running here; `claimed_here` when it was claimed here meanwhile.
  grpc::Status watch_stored(grpc::ServerContext* ctx, uint64_t job,
                            grpc::ServerWriter<v1::JobEvent>* writer, bool* claimed_here);
  // WatchJob's end when the engine ended the job other than DONE: the stored end once the
  // broker wrote it, or UNAVAILABLE when the store queued the job again.
  grpc::Status stored_end(grpc::ServerContext* ctx, uint64_t job,
                          grpc::ServerWriter<v1::JobEvent>* writer);
  static grpc::Status write_stored_end(uint64_t job, const store::JobRecord& r,
                                       grpc::ServerWriter<v1::JobEvent>* writer);

  pipeline::Engine& engine_;
  JobBroker& broker_;
  ServiceState& state_;
};

// convert.cpp
// (priorities, states, timings and results both ways: zkpipe/server/convert.h)
void fill_event(const pipeline::JobEvent& e, v1::JobEvent* out);
// From Engine::status_json() and the service's own counters.
void fill_status(const nlohmann::json& status, const pipeline::Engine& engine,
                 const ServiceState& state, v1::EngineStatus* out);
// The one status document: HTTP /status serves it, GetStatus returns it (status_json, for
// `zkpipe status --json`) and fills its fields from it. Engine::status_json() with the
// server's draining flag, the proof types and the store's part (with `cluster`, its workers).
nlohmann::json status_document(const pipeline::Engine& engine, const ServiceState& state,
                               bool cluster);
// A stored job's answer to AwaitProof: the committed result (done) or its state and error.
void fill_stored_result(const store::JobRecord& r, v1::ProofResult* out);
// The store's part of the status (JobBroker::status_json).
void fill_store_status(const nlohmann::json& store, v1::EngineStatus* out);

}  // namespace zkpipe::server
