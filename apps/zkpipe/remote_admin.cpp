// `zkpipe status`, `zkpipe cancel`, `zkpipe params preload|evict` and `zkpipe metrics`: the
// questions and orders a running `zkpipe serve` answers at once (each call has kCallDeadline;
// a preload, which may read gigabytes, has --timeout).
// Thread-safety: main thread.
#include <google/protobuf/util/json_util.h>

#include <cstdio>

#include <fmt/core.h>

#include "remote.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {
namespace {

struct StatusOptions {
  RemoteOptions remote;
  bool json = false, cluster = false;
};

struct CancelOptions {
  RemoteOptions remote;
  uint64_t job = 0;
};

struct ParamsOptions {
  RemoteOptions remote;
  std::string circuit_id, timeout = "10m";
};

struct MetricsOptions {
  RemoteOptions remote;
};

std::string priority_text(int p) {
  switch (p) {
    case v1::PRIORITY_CRITICAL:
      return "critical";
    case v1::PRIORITY_HIGH:
      return "high";
    case v1::PRIORITY_UNSPECIFIED:
    case v1::PRIORITY_NORMAL:
      return "normal";
    case v1::PRIORITY_LOW:
      return "low";
    default:
      return fmt::format("priority {}", p);
  }
}

// The job store's lines: where, the shared queue, and (--cluster) the workers sharing it.
std::string store_text(const v1::StoreStatus& s) {
  if (s.store().empty()) return "";
  std::string out = fmt::format("store: {} as worker {}{}\n", server_text(s.store()),
                                server_text(s.worker()), s.shared() ? " (shared queue)" : "");
  if (!s.error().empty()) out += fmt::format("  error: {}\n", server_text(s.error()));
  std::string queued;
  uint32_t total = 0;
  for (const v1::QueueDepth& q : s.queued()) {
    queued += fmt::format("{} {}, ", q.jobs(), priority_text(q.priority()));
    total += q.jobs();
  }
  out +=
      fmt::format("  queue: {} queued{}, {} running ({} here); done {}, failed {}, cancelled {}\n",
                  total, queued.empty() ? "" : " (" + queued.substr(0, queued.size() - 2) + ")",
                  s.running(), s.claimed_here(), s.done(), s.failed(), s.cancelled());
  if (s.workers_size() > 0) {
    out += fmt::format("  workers: {}\n", s.workers_size());
    for (const v1::ClusterWorker& w : s.workers()) {
      std::string hot;
      for (const std::string& h : w.hot_circuits()) hot += (hot.empty() ? "" : ",") + h;
      out += fmt::format(
          "    {:<28} {:<4} host {:<16} devices {:<12} running {:>3}  last seen {:.1f} s "
          "ago  hot params: {}\n",
          server_text(w.name()), server_text(w.state()), server_text(w.host()),
          server_text(w.devices()), w.running(), w.last_seen_seconds_ago(),
          hot.empty() ? "none" : server_text(hot));
    }
  }
  return out;
}

std::string status_text(const v1::EngineStatus& st, const std::string& addr) {
  std::string out = fmt::format("{} at {}: {}, {}; up {:.1f} s\n",
                                st.version().empty() ? "zkpipe serve" : server_text(st.version()),
                                addr, st.accepting() ? "accepting" : "NOT accepting (draining)",
                                st.ready() ? "ready" : "NOT ready", st.uptime_seconds());
  std::string types;
  for (const std::string& t : st.proof_types()) types += (types.empty() ? "" : ", ") + t;
  out += fmt::format("backends: compute {}, memory {}; proof types: {}\n", st.compute_backend(),
                     st.memory_backend(), types.empty() ? "none" : types);
  if (!st.memory_plan().empty()) out += st.memory_plan() + "\n";  // "CONFIG: memory: ..."
  out += "devices:\n";
  for (const v1::Device& d : st.devices()) {
    out += fmt::format("  {:<16} busy {:>10.2f} s  host-to-device {}", d.name(), d.busy_seconds(),
                       format_bytes(d.h2d_bytes()));
    if (d.memory_total_bytes() > 0) {
      out += fmt::format("  memory: {} held, {} free of {}", format_bytes(d.memory_used_bytes()),
                         format_bytes(d.memory_free_bytes()), format_bytes(d.memory_total_bytes()));
      if (d.memory_budget_bytes() > 0) {
        out += fmt::format(" (budget {})", format_bytes(d.memory_budget_bytes()));
      }
    }
    out += "\n";
  }
  out += "workers:\n";
  for (const v1::Worker& w : st.workers()) {
    out += fmt::format("  {:<24} {}\n", w.name(), w.state());
  }
  out += fmt::format("queues:   {:>10} {:>10}\n", "jobs", "partitions");
  for (const v1::QueueDepth& q : st.queues()) {
    out += fmt::format("  {:<8} {:>10} {:>10}\n", priority_text(q.priority()), q.jobs(),
                       q.partitions());
  }
  const v1::Budget& b = st.budget();
  out += fmt::format("budget: {} of {} reserved (peak {}), {} waiting, {} refusal(s)\n",
                     format_bytes(b.reserved_bytes()), format_bytes(b.total_bytes()),
                     format_bytes(b.peak_bytes()), b.waiting(), b.refusals());
  const v1::HotParams& p = st.params();
  out += fmt::format(
      "params: {} hot ({}), {} warm, {} in use; {} hit(s), {} load(s), {} eviction(s)\n", p.hot(),
      format_bytes(p.hot_bytes()), p.warm(), p.in_use(), p.hits(), p.loads(), p.evictions());
  out += fmt::format("jobs in flight: {}\n", st.jobs_size());
  for (const v1::JobSummary& j : st.jobs()) {
    out += fmt::format("  job {} {} {} {} {}", j.job_id(), job_state_text(j.state()),
                       priority_text(j.priority()), j.proof_type(), j.circuit_id());
    if (!j.request_id().empty()) out += fmt::format(" (request id {})", echo_value(j.request_id()));
    out += ":";
    for (const v1::PartitionState& ps : j.partitions()) {
      out += fmt::format(" {}={}", ps.index(), ps.state());
      if (ps.attempts() > 1) out += fmt::format("(try {})", ps.attempts());
    }
    out += "\n";
    if (j.has_deadline_in_seconds()) {
      out += fmt::format("    deadline in {:.1f} s", j.deadline_in_seconds());
      if (j.has_estimated_end_in_seconds()) {
        out += fmt::format(", estimated to end in {:.1f} s", j.estimated_end_in_seconds());
      }
      out += j.deadline_at_risk() ? ": AT RISK (the estimate is past the deadline)\n" : "\n";
    }
    if (!j.error().empty()) out += fmt::format("    error: {}\n", server_text(j.error()));
  }
  const v1::Counters& c = st.counters();
  out += fmt::format(
      "counters: jobs done {}, failed {}, cancelled {}; partitions proved {}; verification "
      "failures {}; retries {}; submits refused {}; results retained {}\n",
      c.jobs_done(), c.jobs_failed(), c.jobs_cancelled(), c.partitions_proved(),
      c.verification_failures(), c.retries(), c.submits_refused(), st.retained_results());
  out += store_text(st.store());
  return out;
}

int run_status(const StatusOptions& o) {
  constexpr std::string_view kCmd = "status";
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(kCmd, client.status());
  v1::EngineStatus st;
  auto ctx = (*client)->context(kCallDeadline);
  v1::GetStatusRequest req;
  req.set_cluster(o.cluster);
  req.set_json(o.json);
  const grpc::Status s = (*client)->stub().GetStatus(ctx.get(), req, &st);
  if (!s.ok()) return fail(kCmd, rpc_error(s, "GetStatus", **client));
  if (o.json) {  // the document HTTP /status serves, as it serves it
    const nlohmann::json doc = nlohmann::json::parse(st.status_json(), nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
      return fail(kCmd, internal_error("GetStatus: status_json is not a JSON object"));
    }
    fmt::print("{}\n", doc.dump(2));
    return 0;
  }
  fmt::print("{}", status_text(st, (*client)->address().text));
  return 0;
}

int run_cancel(const CancelOptions& o) {
  constexpr std::string_view kCmd = "cancel";
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(kCmd, client.status());
  v1::CancelProofRequest req;
  req.set_job_id(o.job);
  v1::CancelProofResponse r;
  auto ctx = (*client)->context(kCallDeadline);
  const grpc::Status s = (*client)->stub().CancelProof(ctx.get(), req, &r);
  if (!s.ok()) return fail(kCmd, rpc_error(s, "CancelProof", **client));
  fmt::print("job {} cancelled (it was {})\n", o.job, r.was_running() ? "running" : "queued");
  return 0;
}

int run_params(const ParamsOptions& o, bool preload) {
  const std::string cmd = preload ? "params preload" : "params evict";
  Result<std::optional<int64_t>> timeout = parse_await_timeout(o.timeout, false);
  if (!timeout.ok()) return fail(cmd, timeout.status());
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(cmd, client.status());
  v1::ParamsRequest req;
  req.set_circuit_id(o.circuit_id);
  v1::ParamsResponse r;
  auto ctx = (*client)->context(preload ? std::chrono::milliseconds(**timeout) : kCallDeadline);
  const grpc::Status s = preload ? (*client)->stub().PreloadParams(ctx.get(), req, &r)
                                 : (*client)->stub().EvictParams(ctx.get(), req, &r);
  if (!s.ok()) return fail(cmd, rpc_error(s, preload ? "PreloadParams" : "EvictParams", **client));
  if (preload) {
    fmt::print("{}: {} hot{} in {:.1f} ms\n", r.circuit_id(), format_bytes(r.bytes()),
               r.was_hot() ? " (already: nothing loaded)" : "", r.elapsed_ms());
  } else if (r.was_hot()) {
    fmt::print("{}: evicted, {} freed in {:.1f} ms\n", r.circuit_id(), format_bytes(r.bytes()),
               r.elapsed_ms());
  } else {
    fmt::print("{}: was not hot ({} freed) in {:.1f} ms\n", r.circuit_id(), format_bytes(r.bytes()),
               r.elapsed_ms());
  }
  return 0;
}

int run_metrics(const MetricsOptions& o) {
  constexpr std::string_view kCmd = "metrics";
  Result<std::unique_ptr<server::Client>> client = connect_remote(o.remote);
  if (!client.ok()) return fail(kCmd, client.status());
  v1::Metrics m;
  auto ctx = (*client)->context(kCallDeadline);
  const grpc::Status s = (*client)->stub().GetMetrics(ctx.get(), v1::GetMetricsRequest(), &m);
  if (!s.ok()) return fail(kCmd, rpc_error(s, "GetMetrics", **client));
  fmt::print("{}", m.text());
  if (!m.text().empty() && m.text().back() != '\n') fmt::print("\n");
  return 0;
}

}  // namespace

void add_remote_admin(CLI::App& app, int* exit_code) {
  auto st = std::make_shared<StatusOptions>();
  CLI::App* status = app.add_subcommand("status",
                                        "Show what a running `zkpipe serve` is doing: devices, "
                                        "workers, queues, budget, params, jobs, counters");
  add_remote_options(status, &st->remote);
  status->add_flag(
      "--json", st->json,
      "print the status document as JSON (what HTTP /status serves, workers included)");
  status->add_flag("--cluster", st->cluster,
                   "also list the workers sharing the job store (store.backend: postgres)");
  status->callback([st, exit_code] { *exit_code = run_status(*st); });

  auto c = std::make_shared<CancelOptions>();
  CLI::App* cancel = app.add_subcommand("cancel", "Cancel a job of a running `zkpipe serve`");
  add_remote_options(cancel, &c->remote);
  cancel->add_option("job", c->job, "the job's id")->required();
  cancel->callback([c, exit_code] { *exit_code = run_cancel(*c); });

  CLI::App* params = app.add_subcommand("params",
                                        "Load a circuit's params into a running `zkpipe serve` "
                                        "ahead of its jobs, or evict them");
  params->require_subcommand(1);
  for (const bool preload : {true, false}) {
    auto p = std::make_shared<ParamsOptions>();
    CLI::App* cmd = params->add_subcommand(
        preload ? "preload" : "evict",
        preload ? "make the circuit's params hot (resident) now" : "drop the circuit's hot params");
    add_remote_options(cmd, &p->remote);
    cmd->add_option("circuit_id", p->circuit_id, "the circuit (as submit prints it)")->required();
    if (preload) cmd->add_option("--timeout", p->timeout, "how long the load may take (10m)");
    cmd->callback([p, preload, exit_code] { *exit_code = run_params(*p, preload); });
  }

  auto m = std::make_shared<MetricsOptions>();
  CLI::App* metrics =
      app.add_subcommand("metrics", "Print a running `zkpipe serve`'s Prometheus metrics");
  add_remote_options(metrics, &m->remote);
  metrics->callback([m, exit_code] { *exit_code = run_metrics(*m); });
}

}  // namespace zkpipe::cli
