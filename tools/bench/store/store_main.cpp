// zkpipe-bench-store: the job store alone, without engine or server (README "Performance / job
// store"). Phase 1 submits --jobs jobs one after another, each timed until it is durable (SQLite:
// a commit with synchronous=FULL; PostgreSQL: a commit). Phase 2 runs --workers threads, each with
// its own JobStore (PostgreSQL: its own connection) named w0, w1, ..., that claim one job and
// complete it (200-byte result) until none is left or --time-limit passes; then every job is read
// back: done, completed once and claimed once ("exactly once"), else the exit status is 1.
// SQLite runs one worker: its file takes one JobStore (an exclusive flock, also within a process).
// PostgreSQL runs in a new database, dropped at the end (scratch_db.h). One line per figure;
// --json writes the same numbers.
// Thread-safety: each worker thread has its own store and samples; main reads them after join.
#include <sched.h>
#include <stdlib.h>
#include <sys/vfs.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <thread>

#include <fmt/core.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "scratch_db.h"
#include "store_phases.h"
#include "zkpipe/log.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/percentile.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::bench {
namespace {

using store::JobStore;

struct Options {
  std::string backend = "sqlite", path, conninfo, json;
  uint32_t jobs = 2000, workers = 3;
  uint64_t input_bytes = 4096;
  int64_t time_limit_s = 120;
};

struct Latency {
  double p50 = 0, p99 = 0, max = 0;
};

Latency latency_of(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {nearest_rank(ms, 50), nearest_rank(ms, 99), ms.empty() ? 0 : ms.back()};
}

// CPUs this process may run on (what nproc prints).
unsigned cpu_count() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return std::thread::hardware_concurrency();
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const size_t colon = line.find(':');
    if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
  }
  return "unknown";
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// What an fsync costs depends on it: tmpfs makes SQLite's durable commit nearly free.
std::string filesystem_of(const std::string& dir) {
  struct statfs fs {};
  if (::statfs(dir.c_str(), &fs) != 0) return "unknown filesystem";
  switch (static_cast<uint64_t>(fs.f_type)) {
    case 0xEF53:
      return "ext2/3/4";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x01021994:
      return "tmpfs";
    case 0x794C7630:
      return "overlayfs";
    case 0x2FC12FC1:
      return "zfs";
    default:
      return fmt::format("filesystem 0x{:x}", static_cast<uint64_t>(fs.f_type));
  }
}

// A new directory under the system's temporary directory, removed with what is in it.
class TempDir {
 public:
  static Result<std::unique_ptr<TempDir>> create() {
    std::string pattern = (std::filesystem::temp_directory_path() / "zkpipe-bench-store-XXXXXX");
    if (::mkdtemp(pattern.data()) == nullptr) {
      return unavailable("cannot create a directory like " + pattern + ": " + errno_message(errno));
    }
    return std::unique_ptr<TempDir>(new TempDir(pattern));
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

int fail(const Status& s) {
  fmt::print(stderr, "zkpipe-bench-store: {}\n", s.to_string());
  return 1;
}

int run(Options o) {
  if (!o.json.empty()) {
    if (Status s = check_output_path(o.json, "--json"); !s.ok()) return fail(s);
  }
  (void)set_log_level("warn");  // the stores' "open" lines would come once per worker
  StoreConfig config;
  config.backend = o.backend;
  std::unique_ptr<TempDir> temp;
  std::unique_ptr<ScratchDatabase> scratch;
  std::string where;
  if (o.backend == "sqlite") {
    if (o.workers != 1) {
      fmt::print("note: --workers {} -> 1: a SQLite store is one JobStore per file\n", o.workers);
      o.workers = 1;
    }
    if (o.path.empty()) {
      Result<std::unique_ptr<TempDir>> made = TempDir::create();
      if (!made.ok()) return fail(made.status());
      temp = std::move(made).value();
      o.path = temp->path() + "/jobs.db";
    } else if (std::filesystem::exists(o.path)) {
      return fail(
          invalid_argument("--path " + o.path + " exists: the benchmark wants a new store"));
    }
    config.sqlite_path = o.path;
    const std::string dir = std::filesystem::path(o.path).parent_path().string();
    where = filesystem_of(dir.empty() ? "." : dir);
  } else {
    Result<std::unique_ptr<ScratchDatabase>> made = ScratchDatabase::create(o.conninfo);
    if (!made.ok()) return fail(made.status());
    scratch = std::move(made).value();
    config.postgres_conninfo = scratch->conninfo();
    where = scratch->server();
  }

  config.worker = "submitter";
  Result<std::unique_ptr<JobStore>> opened = store::open_store(config);
  if (!opened.ok()) return fail(opened.status());
  std::unique_ptr<JobStore> store = std::move(opened).value();
  double load[1] = {0};
  (void)::getloadavg(load, 1);
  fmt::print("machine: {} CPUs, {} (load average {:.2f} at start)\n", cpu_count(), cpu_model(),
             load[0]);
  fmt::print("date: {}\n", utc_now());
  fmt::print("store: {} ({})\n", store->describe(), where);
  fmt::print("jobs: {}, input {} B, result {} B, workers {}\n", o.jobs, o.input_bytes, kResultBytes,
             o.workers);

  Result<SubmitPhase> submitted = submit_all(*store, o.jobs, o.input_bytes);
  if (!submitted.ok()) return fail(submitted.status());
  const Latency submit = latency_of(submitted->ms);
  const double submits_per_s = o.jobs / submitted->wall_s;
  fmt::print("submit p50: {:.2f} ms\n", submit.p50);
  fmt::print("submit p99: {:.2f} ms\n", submit.p99);
  fmt::print("submit max: {:.2f} ms\n", submit.max);
  fmt::print("submits/s: {:.0f} ({} in {:.2f} s, one after another)\n", submits_per_s, o.jobs,
             submitted->wall_s);

  if (o.backend == "sqlite") store.reset();  // the worker's store takes the file's lock
  std::vector<std::unique_ptr<JobStore>> stores;
  for (uint32_t w = 0; w < o.workers; ++w) {
    config.worker = fmt::format("w{}", w);
    Result<std::unique_ptr<JobStore>> worker_store = store::open_store(config);
    if (!worker_store.ok()) return fail(worker_store.status().with_context(config.worker));
    stores.push_back(std::move(worker_store).value());
  }
  std::vector<WorkerRun> runs(o.workers);
  std::atomic<uint32_t> total{0};
  const Clock::time_point start = Clock::now();
  const Clock::time_point deadline = start + std::chrono::seconds(o.time_limit_s);
  {
    std::vector<std::jthread> threads;
    for (uint32_t w = 0; w < o.workers; ++w) {
      threads.emplace_back(
          [&, w] { work(*stores[w], fmt::format("w{}", w), o.jobs, deadline, total, runs[w]); });
    }
  }
  const double claim_wall_s = ms_between(start, Clock::now()) / 1e3;
  stores.clear();
  for (const WorkerRun& r : runs) {
    if (!r.error.ok()) return fail(r.error);
  }
  std::vector<double> claim_ms, complete_ms;
  uint64_t fence_lost = 0;
  for (const WorkerRun& r : runs) {
    claim_ms.insert(claim_ms.end(), r.claim_ms.begin(), r.claim_ms.end());
    complete_ms.insert(complete_ms.end(), r.complete_ms.begin(), r.complete_ms.end());
    fence_lost += r.fence_lost;
  }
  const Latency claim = latency_of(claim_ms), complete = latency_of(complete_ms);
  const double claims_per_s = static_cast<double>(claim_ms.size()) / claim_wall_s;
  fmt::print("claims/s: {:.0f} ({} claimed and completed in {:.2f} s by {} worker(s))\n",
             claims_per_s, claim_ms.size(), claim_wall_s, o.workers);
  fmt::print("claim p50: {:.2f} ms\n", claim.p50);
  fmt::print("claim p99: {:.2f} ms\n", claim.p99);
  fmt::print("complete p50: {:.2f} ms\n", complete.p50);
  fmt::print("complete p99: {:.2f} ms\n", complete.p99);
  if (total.load() < o.jobs && Clock::now() >= deadline) {
    fmt::print("time limit: {} s passed with {} of {} jobs claimed\n", o.time_limit_s, total.load(),
               o.jobs);
  }

  if (!store) {
    config.worker = "check";
    Result<std::unique_ptr<JobStore>> reopened = store::open_store(config);
    if (!reopened.ok()) return fail(reopened.status());
    store = std::move(reopened).value();
  }
  Result<Check> check = check_all(*store, submitted->ids, runs);
  store.reset();
  if (!check.ok()) return fail(check.status().with_context("exactly-once check"));
  const bool once = check->exactly_once() && fence_lost == 0;
  if (once) {
    fmt::print("exactly once: yes ({} jobs done, each claimed and completed once)\n", check->good);
  } else {
    fmt::print(
        "exactly once: no ({} of {} good; {} not done, {} not completed once, {} not claimed "
        "once, {} claims of unknown jobs, {} completes lost their fence)\n",
        check->good, o.jobs, check->not_done, check->completions_not_one, check->claims_not_one,
        check->unknown_claims, fence_lost);
  }

  if (!o.json.empty()) {
    const auto lat = [](const Latency& l) {
      return nlohmann::json{{"p50_ms", l.p50}, {"p99_ms", l.p99}, {"max_ms", l.max}};
    };
    const nlohmann::json j = {{"machine",
                               {{"cpus", cpu_count()},
                                {"cpu_model", cpu_model()},
                                {"load_average", load[0]},
                                {"date", utc_now()}}},
                              {"backend", o.backend},
                              {"where", where},
                              {"jobs", o.jobs},
                              {"workers", o.workers},
                              {"input_bytes", o.input_bytes},
                              {"result_bytes", kResultBytes},
                              {"submit", lat(submit)},
                              {"submits_per_s", submits_per_s},
                              {"submit_wall_s", submitted->wall_s},
                              {"claim", lat(claim)},
                              {"complete", lat(complete)},
                              {"claims_per_s", claims_per_s},
                              {"claim_wall_s", claim_wall_s},
                              {"claimed", claim_ms.size()},
                              {"exactly_once", once}};
    if (Status s = write_output_file(o.json, j.dump(2) + "\n", "--json"); !s.ok()) return fail(s);
    fmt::print("wrote {}\n", o.json);
  }
  return once ? 0 : 1;
}

}  // namespace
}  // namespace zkpipe::bench

int main(int argc, char** argv) {
  zkpipe::bench::Options o;
  CLI::App app{"zkpipe-bench-store: submit, claim and complete throughput of the job store alone"};
  app.add_option("--backend", o.backend, "sqlite | postgres")
      ->check(CLI::IsMember({"sqlite", "postgres"}));
  app.add_option("--path", o.path,
                 "sqlite: a new file (default: one in a temporary directory, "
                 "removed at the end)");
  app.add_option("--conninfo", o.conninfo,
                 "postgres: libpq connection string (default: PG* environment); the benchmark "
                 "creates database zkpipe_bench_<pid> there and drops it at the end");
  app.add_option("--jobs", o.jobs, "jobs submitted, then claimed")
      ->check(CLI::Range(1u, 1'000'000u));
  app.add_option("--workers", o.workers, "claiming threads, one store each (sqlite: 1)")
      ->check(CLI::Range(1u, 256u));
  app.add_option("--input-bytes", o.input_bytes, "random input per job")
      ->check(CLI::Range(uint64_t{0}, uint64_t{64} << 20));
  app.add_option("--time-limit", o.time_limit_s, "seconds the claim phase may take")
      ->check(CLI::Range(int64_t{1}, int64_t{86'400}));
  app.add_option("--json", o.json, "also write the figures here");
  CLI11_PARSE(app, argc, argv);
  return zkpipe::bench::run(std::move(o));
}
