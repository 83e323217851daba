// zkpipe/config.h: the YAML configuration that selects a pipeline variant, parsed strictly:
// unknown keys, duplicate keys, wrong types and bad sizes are errors naming file:line:column.
// The schema is documented in configs/README.md. Thread-safety: a Config is a plain value.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/pipeline/priority.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe {

namespace store {
class StoreClock;  // zkpipe/store/store_clock.h
}  // namespace store

// A place in a config file; line and column are 1-based (0 = unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string to_string() const;  // "configs/cpu.yaml:3:5"
};

enum class OnCap { kWait, kFail };

struct PreallocEntry {
  uint64_t bytes = 0;
  uint32_t count = 0;
};

struct MemoryConfig {
  std::string backend = "pageable";  // plugin name: pageable, pinned_pool, zero_copy, ...
  std::string fallback;  // empty: none; else a backend used when `backend` is unavailable
  std::optional<uint64_t> cap_bytes;  // nullopt: auto (see resolve_cap_bytes)
  OnCap on_cap = OnCap::kWait;
  int64_t wait_timeout_ms = 60'000;  // < 0: wait forever
  bool huge_pages = false;
  bool reuse = true;
  std::vector<PreallocEntry> preallocate;
  SourceLocation location;          // of the `memory:` section, for later errors
  SourceLocation backend_location;  // of the `backend:` value
};

struct LogConfig {
  std::string level = "info";   // trace, debug, info, warn, error
  std::string format = "text";  // text, or json: one object a line (zkpipe/log.h)
};

// `compute:` what runs prove_start / prove_finish.
struct ComputeConfig {
  // The compute plugin: cpu (the reference; one device), cuda, or any plugin of kind compute.
  std::string backend = "cpu";
  // The devices to use, as the plugin names them (cuda: a CUDA index "0" or a UUID
  // "GPU-8a1f..."); empty: all.
  std::vector<std::string> devices;
  uint32_t workers_per_device = 1;
  uint32_t threads = 0;  // threads per prove_start / prove_finish call; 0: all hardware threads
  // The most device memory the backend may hold per device (bases, a/b/c, scalars, MSM
  // scratch, NTT tables); 0 (`auto`): the device's free memory less a reserve.
  uint64_t device_budget_bytes = 0;
};

// `pipeline:` the scheduler.
struct PipelineConfig {
  uint32_t synthesis_workers = 1;
  uint32_t synthesis_threads = 1;  // threads per a/b/c evaluation
  uint32_t finalizers = 1;
  uint32_t ready_depth = 2;                // synthesized partitions waiting per compute worker
  std::optional<uint64_t> budget_bytes;    // nullopt: auto
  uint32_t retries = 0;                    // tries after the first before a partition fails its job
  bool trim = false;                       // malloc_trim(0) after each finished job (timed)
  uint64_t overhead_bytes = 512ull << 20;  // planned process memory outside the budget
  // Of the budget, what only CRITICAL work may take: a backlog of other work leaves this much
  // free, so a deadline proof's partition never waits for memory behind it. 0: none.
  uint64_t reserve_bytes = 0;
};

// scheduling.defaults.<proof type>: the priority and deadline of a type's requests when the
// request says none, over the plugin's own defaults (zkp_proof_type.default_priority and
// default_deadline_ms).
struct ScheduleDefault {
  std::optional<pipeline::Priority> priority;
  std::optional<int64_t> deadline_ms;  // ms after submission; -1 ("none"): no deadline
  SourceLocation location;
};

struct SchedulingConfig {
  std::map<std::string, ScheduleDefault> defaults;  // by proof type
};

// `params:` where each circuit's params (and R1CS cache) are found, and what to do without them.
struct ParamsConfig {
  std::string dir = "params";       // resolved against the config file's directory when set there
  bool setup_when_missing = false;  // missing: setup = run the seeded development setup (NOT a
                                    // ceremony) and keep the result; missing: fail = an error
  uint64_t setup_seed = 1;
  // Filecoin's parameter directory (as FIL_PROOFS_PARAMETER_CACHE; Filecoin's default is
  // /var/tmp/filecoin-proof-parameters): when set, the Filecoin proof types prove with the
  // bellperson .params there, by their registered names; empty: with zkpipe's own params in `dir`
  // (a development setup: Filecoin nodes reject those proofs).
  std::string filecoin_dir;
  // params.preload: circuits whose params the engine makes hot at start, off the workers; until
  // they are, and when one fails, the engine is not ready (Engine::ready, /readyz). `all`: every
  // circuit with params on disk at start.
  std::vector<std::string> preload;
  bool preload_all = false;
};

// `server:` what `zkpipe serve` listens on and keeps (the command line may override the
// addresses and the token file).
struct ServerConfig {
  std::vector<std::string> listen = {"unix:///run/zkpipe/zkpipe.sock"};  // gRPC; unix or host:port
  std::string http = "127.0.0.1:9821";  // status, metrics, trace and the panel; empty: off
  std::string token_file;               // bearer token; required for a non-loopback listener
  // The largest request this server takes: a Filecoin PoSt request of one partition of 32GiB or
  // 64GiB sectors in JSON (~113 MiB: 2,349 sectors' vanilla proofs in hex) fits; requests of more
  // partitions need a larger value (issue 34 #3).
  uint64_t max_message_bytes = 128ull << 20;
  uint32_t max_queued_jobs = 256;  // unfinished jobs; past it SubmitProof is RESOURCE_EXHAUSTED
  // AwaitProof, WatchJob and Prove calls waiting at once (each holds one of the gRPC server's
  // kServerThreads threads); past it they are RESOURCE_EXHAUSTED at once, so the other calls
  // keep their threads (issue 34 #10).
  uint32_t max_waiting_calls = 448;
  uint32_t retain_count = 1000;          // finished jobs kept for AwaitProof ...
  int64_t retain_age_ms = 3'600'000;     // ... and for how long
  std::vector<std::string> proof_types;  // loaded at start; empty: every one in the plugin dirs
  int64_t drain_timeout_ms = -1;         // SIGTERM waits this long for jobs in flight; < 0: forever
  int64_t trace_window_ms = 600'000;     // how much of the trace /trace and the panel can show
};

// `store:` where `zkpipe serve` records every accepted job before it answers, and each finished
// partition and result (zkpipe/store/job_store.h). sqlite: one daemon per file; postgres: many
// daemons sharing one queue.
struct Config;
struct StoreConfig {
  std::string backend = "sqlite";  // sqlite | postgres
  std::string sqlite_path;         // empty: jobs.db beside the params dir (default_sqlite_path)
  std::string postgres_conninfo;   // a libpq connection string; secrets may come from PG* / .pgpass
  int64_t lease_ms = 30'000;       // a claim's lease; renewed every heartbeat_ms
  int64_t heartbeat_ms = 5'000;    // at most a third of the lease
  int64_t poll_ms = 1'000;         // how often an idle worker looks for queued jobs (postgres)
  int64_t reap_ms = 5'000;         // how often a worker re-queues jobs whose lease ran out
  uint32_t max_attempts = 3;       // claims of one job before it fails for good
  int64_t retry_backoff_ms = 1'000;         // a failed attempt waits this long, doubled each time
  int64_t retain_ms = 7ll * 24 * 3600'000;  // finished jobs (and their inputs) kept this long
  std::string worker;                 // this daemon's name in the cluster; empty: <hostname>-<pid>
  uint32_t claim_ahead = 1;           // jobs claimed beyond those proving now (postgres)
  uint64_t chunk_bytes = 1ull << 20;  // inputs are stored in chunks of this size
  // Tests only (no YAML key): an offset on the store's clock, moved by the test instead of
  // sleeping (zkpipe/store/store_clock.h). Null: the database's clock as it is.
  std::shared_ptr<store::StoreClock> clock;
};

// Where the SQLite store lives when store.sqlite.path is not set: jobs.db in the params
// directory's parent (/var/lib/zkpipe/jobs.db for /var/lib/zkpipe/params).
std::string default_sqlite_path(const Config& config);

struct Config {
  std::string path;  // the file it came from ("<string>" when parsed from text)
  int version = 1;
  std::vector<std::string> plugin_dirs;  // resolved against the config file's directory
  LogConfig log;
  MemoryConfig memory;
  ComputeConfig compute;
  PipelineConfig pipeline;
  ParamsConfig params;
  ServerConfig server;
  StoreConfig store;
  SchedulingConfig scheduling;
  bool serve_sections = false;  // the file has a server: or store: section (a daemon's config)
};

// Reads and validates a config file. NOT_FOUND when it cannot be read, INVALID_ARGUMENT with
// "file:line:column: ..." for anything wrong inside it.
Result<Config> load_config(const std::string& path);

// The same from text; `name` is used in messages, relative plugin dirs resolve against base_dir.
Result<Config> parse_config(std::string_view yaml_text, const std::string& name,
                            const std::string& base_dir = ".");

// The cap in bytes: the configured one, or for `auto` the usable memory of this machine
// (RAM or cgroup limit, whichever is lower) minus a margin of 10% (at least 1 GiB).
uint64_t resolve_cap_bytes(const MemoryConfig& memory);

}  // namespace zkpipe
