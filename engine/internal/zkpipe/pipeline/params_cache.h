// zkpipe/pipeline/params_cache.h: the params (SRS) of each circuit, as the pipeline uses them. A
// params file is mapped once (warm: validated on first open, then only the page cache holds it)
// and, while jobs need it, copied into a buffer of the memory backend (hot: counted in the
// memory budget with its R1CS and prepared verifying key). Hot entries are reference-counted;
// unused ones are evicted least-recently-used when the budget needs room, or on request.
// Thread-safety: every member is thread-safe; loading happens once per circuit however many ask.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "zkpipe/config.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/memory.h"
#include "zkpipe/pipeline/budget.h"
#include "zkpipe/pipeline/memory_model.h"
#include "zkpipe/thread_annotations.h"

namespace zkpipe::pipeline {

struct HotParams {
  std::string circuit_id;
  groth16::ProvingKey pk;  // the queries point into a backend buffer
  groth16::R1cs r1cs;
  std::unique_ptr<groth16::PreparedVerifyingKey> pvk;
  CircuitMemory memory;         // its sizes, in this pipeline (zkpipe/pipeline/memory_model.h)
  uint64_t resident_bytes = 0;  // what its reservation holds: memory.resident()
  // Opened on the word of its .validated stamp (structure checked, points not): a proof that
  // fails verification with it has the cache check it again (ParamsCache::recheck), once.
  mutable std::atomic<bool> trusted_by_stamp{false};
};
using ParamsHandle = std::shared_ptr<const HotParams>;

// Records the circuit (for a setup when its params are missing).
using RecordFn = std::function<Result<groth16::R1cs>()>;
using AllocateFn = std::function<Result<Buffer>(uint64_t bytes)>;

struct ParamsStats {
  uint64_t hot_bytes = 0;
  size_t hot = 0, warm = 0, in_use = 0;
  std::vector<std::string> hot_circuits;  // the circuit ids whose params are hot
  uint64_t hits = 0, loads = 0, setups = 0, evictions = 0;
  // Seconds of params work (issue 33 #6): whole loads (acquire's, setup and checks included),
  // development setups, and checks of every point (`checks` of them).
  double load_s = 0, setup_s = 0, check_s = 0;
  uint64_t checks = 0;
};

class ParamsCache {
 public:
  // `shape` sizes what a hot entry reserves besides its params: the prover's scratch for as
  // many compute workers and finalizers.
  ParamsCache(ParamsConfig config, MemoryBudget& budget, AllocateFn allocate,
              const PipelineShape& shape);
  ~ParamsCache();

  // The hot params of `circuit_id`: resident, or loaded (made by the seeded development setup
  // first when they are missing and the config allows it). `wait` orders the budget wait.
  Result<ParamsHandle> acquire(const std::string& circuit_id, const RecordFn& record,
                               const ReserveOptions& wait);
  // Makes existing params hot without a job (NOT_FOUND when the files are missing).
  Status preload(const std::string& circuit_id, ParamsChange* change = nullptr);
  // Drops a hot entry now; FAILED_PRECONDITION while a job uses it, NOT_FOUND when not hot.
  Status evict(const std::string& circuit_id, ParamsChange* change = nullptr);
  // The budget's reclaimer: evicts unused hot entries, least recently used first, until
  // `needed` bytes are free or none is left; returns the bytes released.
  uint64_t reclaim(uint64_t needed);

  // Checks every point of the circuit's params file again (after proofs made with stamp-trusted
  // params failed to verify). OK when sound; else the stamp is dropped, the entry forgotten (the
  // next job checks the file fully) and FAILED_PRECONDITION names the file and its corrupt part.
  Status recheck(const std::string& circuit_id);

  // The memory of a circuit whose params exist (hot, warm or in params.dir: their structure is
  // read, not checked); NOT_FOUND when there are none.
  Result<CircuitMemory> circuit_memory(const std::string& circuit_id);
  // The circuit's verifying key (from its hot or warm entry, else read from its params file);
  // NOT_FOUND when there are no params.
  Result<groth16::VerifyingKey> verifying_key(const std::string& circuit_id);
  // The circuits whose params are in params.dir (NAME.params), and the Filecoin circuits whose
  // files are in params.filecoin_dir, sorted.
  std::vector<std::string> circuits_on_disk() const;
  // Whether the circuit's params file is on disk (params_path); a stat, no read.
  bool on_disk(const std::string& circuit_id) const;

  // Shutdown: a setup or a check of every point in progress ends at its next step with ABORTED,
  // and none starts. Returns the circuits whose params were loading (for the log).
  std::vector<std::string> stop_work() ZKP_EXCLUDES(mu_);

  // Whether the circuit's params are hot (an acquire would not wait).
  bool hot(const std::string& circuit_id) const ZKP_EXCLUDES(mu_);

  ParamsStats stats() const;
  std::string params_path(const std::string& circuit_id) const;
  // params.dir/<circuit_id>.vk: the verifying key in bellperson's .vk layout, written beside the
  // params the development setup makes (and beside params that lack one, on first use).
  std::string vk_path(const std::string& circuit_id) const;

 private:
  Status write_vk(const std::string& circuit_id, const groth16::VerifyingKey& vk) const;
  void write_missing_vk(const std::string& circuit_id, const groth16::VerifyingKey& vk) const;
  struct Entry;  // its fields are guarded by mu_ too (not annotated: it cannot name it)
  // Both read files, make params and copy without mu_ (taking it only to look up and record).
  Result<std::shared_ptr<HotParams>> load(const std::string& id, const RecordFn* record,
                                          const ReserveOptions& wait, bool& made) ZKP_EXCLUDES(mu_);
  // Filecoin's .params (params.filecoin_dir; engine/pipeline/filecoin_params.h): digest checked
  // once, decoded straight into the backend buffer (params_cache_filecoin.cpp); `reservation`
  // receives what the budget holds for it.
  Result<std::shared_ptr<HotParams>> load_filecoin(const std::string& id, const RecordFn* record,
                                                   const ReserveOptions& wait, bool& made,
                                                   Reservation& reservation) ZKP_EXCLUDES(mu_);
  // Adds seconds since `start_ns` (now_ns) of a setup or a check of every point to the stats.
  void count_work(double ParamsStats::*seconds, uint64_t ParamsStats::*count, int64_t start_ns)
      ZKP_EXCLUDES(mu_);
  Result<groth16::ProvingKey> open_warm(const std::string& id, const RecordFn* record, bool& made,
                                        bool& trusted) ZKP_EXCLUDES(mu_);

  ParamsConfig config_;
  MemoryBudget& budget_;
  AllocateFn allocate_;
  PipelineShape shape_;
  unsigned threads_;
  std::atomic<bool> stopping_{false};  // stop_work: read by the setup and the point checks
  mutable Mutex mu_;
  std::condition_variable loaded_cv_;  // an entry stopped loading (hot, or absent again)
  std::map<std::string, std::unique_ptr<Entry>> entries_ ZKP_GUARDED_BY(mu_);
  uint64_t tick_ ZKP_GUARDED_BY(mu_) = 0;  // the LRU clock (Entry::last_use)
  ParamsStats counters_ ZKP_GUARDED_BY(mu_);
};

// What PATH.validated holds after a full check of the params file PATH: its device, inode, size,
// mtime and ctime in nanoseconds (an edit with the mtime put back still moves ctime) and the
// checksum of its section table; "" when the file cannot be read. A matching stamp lets an open
// skip the point checks.
std::string params_stamp(const std::string& path);

}  // namespace zkpipe::pipeline
