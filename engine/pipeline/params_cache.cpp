// params_cache.cpp: ParamsCache (zkpipe/pipeline/params_cache.h): warm mappings, hot copies in
// backend memory counted in the budget, loading once per circuit, LRU eviction of unused entries.
// Thread-safety: mu_ guards the entries; files are read, params made and copies done outside it.
#include "zkpipe/pipeline/params_cache.h"

#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/core.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <optional>
#include <span>
#include <vector>

#include "engine_impl.h"
#include "filecoin_params.h"
#include "params_files.h"
#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/output_file.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

namespace fs = std::filesystem;
using groth16::G1Affine;
using groth16::G2Affine;
using groth16::ProvingKey;

struct ParamsCache::Entry {
  enum class State { kAbsent, kLoading, kHot };
  State state = State::kAbsent;
  std::shared_ptr<HotParams> hot;
  Reservation reservation;
  std::optional<ProvingKey> warm;  // the mapped file, validated once
  bool trusted_by_stamp = false;   // warm was opened on the stamp's word, not a full check
  uint64_t last_use = 0;
};

namespace {

Status missing_params(const std::string& id, const std::string& path) {
  return not_found("no params for circuit " + id + ": " + path +
                   " does not exist (copy them there; or, for a development setup (NOT a "
                   "ceremony), run `zkpipe-tool params new --proof T --preset P --config C` or set "
                   "params.missing: setup in the config)");
}

// Drops the pages of [p, p + n) of a read-only file mapping from the resident set (they are read
// again from the page cache if touched). Only for mappings of files: on anonymous memory this
// would zero it. The range is rounded inward to whole pages.
void release_mapped_pages(const void* p, size_t n) {
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + page - 1) & ~(page - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + n) & ~(page - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

// All of a mapped key's queries (after its points were checked, say).
void release_mapped_key(const ProvingKey& pk) {
  for (auto bytes :
       {std::as_bytes(pk.h_query), std::as_bytes(pk.l_query), std::as_bytes(pk.a_query),
        std::as_bytes(pk.b_g1_query), std::as_bytes(pk.b_g2_query)}) {
    release_mapped_pages(bytes.data(), bytes.size());
  }
}

uint64_t query_bytes(const ProvingKey& pk) {
  return (pk.h_query.size() + pk.l_query.size() + pk.a_query.size() + pk.b_g1_query.size()) *
             sizeof(G1Affine) +
         pk.b_g2_query.size() * sizeof(G2Affine);
}

// Copies the queries of a mapped key into `buffer`, a piece at a time, dropping each copied piece
// of the mapping from this process's resident set (the page cache keeps it): the file's pages
// would otherwise count in the process's memory as much as the copy. The copy's spans point
// into the buffer and its storage keeps the buffer (which returns to its pool when the last
// user drops the key).
ProvingKey hot_copy(const ProvingKey& warm, Buffer buffer) {
  ProvingKey pk = warm;
  auto* out = static_cast<uint8_t*>(buffer.host());
  auto place = [&out](auto span) {
    using T = typename decltype(span)::element_type;
    constexpr size_t kPiece = size_t{8} << 20;
    const auto* from = reinterpret_cast<const uint8_t*>(span.data());
    for (size_t done = 0; done < span.size_bytes(); done += kPiece) {
      const size_t n = std::min(kPiece, span.size_bytes() - done);
      std::memcpy(out + done, from + done, n);
      release_mapped_pages(from + done, n);
    }
    std::span<const T> copy(reinterpret_cast<const T*>(out), span.size());
    out += span.size_bytes();
    return copy;
  };
  pk.h_query = place(warm.h_query);
  pk.l_query = place(warm.l_query);
  pk.a_query = place(warm.a_query);
  pk.b_g1_query = place(warm.b_g1_query);
  pk.b_g2_query = place(warm.b_g2_query);
  pk.storage = std::make_shared<Buffer>(std::move(buffer));
  return pk;
}

// fs::exists without the exception (a name too long, EACCES on a parent): such a file counts as
// missing here, and opening or writing it later names the error.
bool file_exists(const std::string& path) {
  std::error_code ec;
  return fs::exists(path, ec);
}

}  // namespace

ParamsCache::ParamsCache(ParamsConfig config, MemoryBudget& budget, AllocateFn allocate,
                         const PipelineShape& shape)
    : config_(std::move(config)),
      budget_(budget),
      allocate_(std::move(allocate)),
      shape_(shape),
      threads_(shape.threads) {}

ParamsCache::~ParamsCache() = default;

bool ParamsCache::on_disk(const std::string& id) const {
  return file_exists(params_path(id));
}

std::string ParamsCache::params_path(const std::string& id) const {
  if (auto f = filecoin_params(config_, id)) return f->params;
  return (fs::path(config_.dir) / (id + ".params")).string();
}

std::string ParamsCache::vk_path(const std::string& id) const {
  if (auto f = filecoin_params(config_, id)) return f->vk;
  return (fs::path(config_.dir) / (id + ".vk")).string();
}

// The verifying key beside the params in bellperson's .vk layout, for verifiers outside zkpipe
// (zkpipe-tool filecoin verify, snarkjs after conversion).
Status ParamsCache::write_vk(const std::string& id, const groth16::VerifyingKey& vk) const {
  const std::vector<uint8_t> bytes = groth16::encode_verifying_key(vk);
  return write_output_file(
      vk_path(id), std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
      "params: the verifying key");
}

// Params made before .vk files were written, or copied without theirs, get one on first use; a
// directory that takes no new file (read-only params) only loses the convenience, with a warning.
void ParamsCache::write_missing_vk(const std::string& id, const groth16::VerifyingKey& vk) const {
  if (file_exists(vk_path(id))) return;
  const Status s = write_vk(id, vk);
  if (!s.ok()) spdlog::warn("params: {} (proving goes on without it)", s.to_string());
}

// A params file passes the full check (every point on the curve and in the subgroup: ~40 s for a
// 300k-constraint circuit on 2 cores) once; PATH.validated then records params_stamp (inode,
// size, mtime and ctime in ns, the section table's checksum), and later opens of the unchanged
// file check its structure only. Making, checking and stamping happen under PATH.lock, so of
// several processes one makes or checks the params and the others wait and then use them.
Result<ProvingKey> ParamsCache::open_warm(const std::string& id, const RecordFn* record, bool& made,
                                          bool& trusted) {
  const std::string path = params_path(id);
  if (stopping_.load()) return aborted("params of circuit " + id + ": the engine is stopping");
  const bool can_make = config_.setup_when_missing && record != nullptr;
  if (!file_exists(path) && !can_make) return missing_params(id, path);
  std::error_code ec;
  fs::create_directories(config_.dir, ec);
  if (ec) return unavailable("params.dir: cannot create " + config_.dir + ": " + ec.message());
  ZKP_ASSIGN_OR_RETURN(ParamsLock lock, ParamsLock::acquire(path));
  remove_stale_temporaries(path);
  if (file_exists(path)) {  // perhaps made by another process while we waited
    if (stamp_matches(path)) {
      trusted = true;
      ZKP_ASSIGN_OR_RETURN(ProvingKey pk,
                           groth16::load_params(path, groth16::ParamsLoadOptions::trusted()));
      write_missing_vk(id, pk.vk);
      return pk;
    }
    groth16::ParamsLoadOptions o;
    o.threads = threads_;
    o.stop = &stopping_;
    spdlog::info("params: checking every point of {} (once; then {}.validated)", path, path);
    const int64_t t0 = now_ns();
    Result<ProvingKey> checked = groth16::load_params(path, o);
    count_work(&ParamsStats::check_s, &ParamsStats::checks, t0);
    ZKP_ASSIGN_OR_RETURN(ProvingKey pk, std::move(checked));
    release_mapped_key(pk);
    write_stamp(path);
    write_missing_vk(id, pk.vk);
    return pk;
  }
  if (!can_make) return missing_params(id, path);
  ZKP_ASSIGN_OR_RETURN(groth16::R1cs r1cs, (*record)());
  spdlog::warn("params: making {} for circuit {} by the {}", path, id, groth16::kNotACeremony);
  groth16::SetupOptions so;
  so.threads = threads_;
  so.stop = &stopping_;
  const uint64_t wires = uint64_t{r1cs.num_inputs} + r1cs.num_aux;
  const uint64_t key_bytes =
      (r1cs.domain_size() + r1cs.num_aux + 2 * wires) * sizeof(G1Affine) + wires * sizeof(G2Affine);
  const int64_t t0 = now_ns();
  Result<ProvingKey> setup_key = guarded(
      fmt::format("params: the setup of circuit {} (domain {}) needs about {} for its "
                  "proving key",
                  id, r1cs.domain_size(), format_bytes(key_bytes)),
      [&] { return groth16::setup(r1cs, groth16::ToxicWaste::from_seed(config_.setup_seed), so); });
  count_work(&ParamsStats::setup_s, nullptr, t0);
  ZKP_ASSIGN_OR_RETURN(ProvingKey pk, std::move(setup_key));
  ZKP_RETURN_IF_ERROR(groth16::write_r1cs_cache(path + ".csr", r1cs));
  ZKP_RETURN_IF_ERROR(groth16::write_params(path, pk));
  ZKP_RETURN_IF_ERROR(write_vk(id, pk.vk));
  made = true;
  write_stamp(path);
  return groth16::load_params(path, groth16::ParamsLoadOptions::trusted());
}

Status ParamsCache::recheck(const std::string& id) {
  const std::string path = params_path(id);
  if (auto f = filecoin_params(config_, id)) {  // Filecoin's file: its digest again
    drop_filecoin_verdict(*f);
    const Status s = check_filecoin_params(*f).status();
    if (s.ok()) return ok_status();
    MutexLock lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end()) it->second->warm.reset();
    return s;
  }
  spdlog::warn(
      "params: proofs made with {} (trusted by its .validated stamp) do not verify; "
      "checking every point of it again",
      path);
  groth16::ParamsLoadOptions o;
  o.threads = threads_;
  o.stop = &stopping_;
  const int64_t t0 = now_ns();
  const Status full = guarded("params: the check of " + path, [&] {
                        return groth16::load_params(path, o);
                      }).status();
  count_work(&ParamsStats::check_s, &ParamsStats::checks, t0);
  if (full.ok()) return ok_status();  // the params are sound: the fault is elsewhere
  drop_stamp(path);
  std::shared_ptr<HotParams> dropped;
  Reservation reservation;
  {
    MutexLock lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end()) {
      Entry& e = *it->second;
      e.warm.reset();
      if (e.state == Entry::State::kHot) {
        dropped = std::move(e.hot);
        reservation = std::move(e.reservation);
        e.state = Entry::State::kAbsent;
        ++counters_.evictions;
      }
    }
  }
  return failed_precondition(
      fmt::format("params {} are corrupt ({}); they were trusted by their .validated stamp, "
                  "which is now dropped: replace the file, or remove it and its .csr to make "
                  "them again",
                  path, full.message()));
}

Result<std::shared_ptr<HotParams>> ParamsCache::load(const std::string& id, const RecordFn* record,
                                                     const ReserveOptions& wait, bool& made) {
  if (filecoin_params(config_, id)) {
    Reservation reservation;
    ZKP_ASSIGN_OR_RETURN(std::shared_ptr<HotParams> hot,
                         load_filecoin(id, record, wait, made, reservation));
    MutexLock lock(mu_);
    Entry& e = *entries_.at(id);
    e.trusted_by_stamp = true;
    e.reservation = std::move(reservation);
    return hot;
  }
  std::optional<ProvingKey> warm;
  {
    MutexLock lock(mu_);
    warm = entries_.at(id)->warm;
  }
  bool trusted = false;
  if (!warm) {
    ZKP_ASSIGN_OR_RETURN(ProvingKey opened, open_warm(id, record, made, trusted));
    warm = std::move(opened);
  }
  const std::string csr = params_path(id) + ".csr";
  ZKP_ASSIGN_OR_RETURN(groth16::R1cs r1cs, groth16::load_r1cs_cache(csr));
  if (r1cs.num_inputs != warm->num_inputs || r1cs.num_aux != warm->num_aux ||
      r1cs.domain_size() != warm->domain_size) {
    return invalid_argument(csr + ": the R1CS does not match " + params_path(id) +
                            " (wires or domain differ); remove both and make them again");
  }
  const uint64_t queries = query_bytes(*warm);
  auto hot = std::make_shared<HotParams>();
  hot->circuit_id = id;
  hot->memory = pipeline::circuit_memory(id, *warm, r1cs_memory_bytes(r1cs), shape_);
  hot->resident_bytes = hot->memory.resident();
  ReserveOptions w = wait;
  w.what = "params of " + id;
  ZKP_ASSIGN_OR_RETURN(Reservation reservation, budget_.reserve(hot->resident_bytes, w));
  ZKP_ASSIGN_OR_RETURN(Buffer buffer, allocate_(queries));
  hot->pk = hot_copy(*warm, std::move(buffer));
  hot->r1cs = std::move(r1cs);
  hot->pvk = std::make_unique<groth16::PreparedVerifyingKey>(hot->pk.vk);
  MutexLock lock(mu_);
  Entry& e = *entries_.at(id);
  e.trusted_by_stamp = e.trusted_by_stamp || trusted;
  hot->trusted_by_stamp = e.trusted_by_stamp;
  e.warm = std::move(warm);
  e.reservation = std::move(reservation);
  return hot;
}

Result<groth16::VerifyingKey> ParamsCache::verifying_key(const std::string& id) {
  {
    MutexLock lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end()) {
      if (it->second->state == Entry::State::kHot) return it->second->hot->pk.vk;
      if (it->second->warm) return it->second->warm->vk;
    }
  }
  const std::string path = params_path(id);
  if (!file_exists(path)) return missing_params(id, path);
  if (filecoin_params(config_, id)) {
    ZKP_ASSIGN_OR_RETURN(filecoin::ParamsLayout layout, filecoin::read_params_layout(path));
    return std::move(layout.vk);
  }
  ZKP_ASSIGN_OR_RETURN(ProvingKey opened,
                       groth16::load_params(path, groth16::ParamsLoadOptions::trusted()));
  return std::move(opened.vk);
}

Result<CircuitMemory> ParamsCache::circuit_memory(const std::string& id) {
  std::optional<ProvingKey> warm;
  {
    MutexLock lock(mu_);
    if (auto it = entries_.find(id); it != entries_.end()) {
      if (it->second->state == Entry::State::kHot) return it->second->hot->memory;
      warm = it->second->warm;
    }
  }
  const std::string path = params_path(id);
  if (auto f = filecoin_params(config_, id); f && !warm) {
    if (!file_exists(path)) return missing_params(id, path);
    ZKP_ASSIGN_OR_RETURN(const filecoin::ParamsLayout layout, filecoin::read_params_layout(path));
    std::error_code ec;
    const uint64_t r1cs = fs::file_size(f->csr, ec);
    if (ec) return not_found(f->csr + ": " + ec.message() + " (the R1CS cache of " + id + ")");
    return pipeline::circuit_memory(id, filecoin_prover_shape(layout), layout.vk.ic.size(),
                                    layout.vectors[1].count, r1cs, shape_);
  }
  if (!warm) {
    if (!file_exists(path)) return missing_params(id, path);
    ZKP_ASSIGN_OR_RETURN(ProvingKey opened,
                         groth16::load_params(path, groth16::ParamsLoadOptions::trusted()));
    warm = std::move(opened);
  }
  // The R1CS is held as its cache file's sections (row starts, columns, coefficients).
  std::error_code ec;
  const uint64_t r1cs = fs::file_size(path + ".csr", ec);
  if (ec) return not_found(path + ".csr: " + ec.message() + " (the R1CS cache of " + id + ")");
  return pipeline::circuit_memory(id, *warm, r1cs, shape_);
}

std::vector<std::string> ParamsCache::circuits_on_disk() const {
  std::vector<std::string> ids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(config_.dir, ec)) {
    if (e.path().extension() == ".params" && e.is_regular_file(ec)) {
      ids.push_back(e.path().stem().string());
    }
  }
  if (!config_.filecoin_dir.empty()) {
    for (const char* kind : {"porep", "snapdeals", "window-post", "winning-post"}) {
      for (const filecoin::SectorSizeName& size : filecoin::kSectorSizes) {
        const std::string id = fmt::format("filecoin-{}-{}", kind, size.name);
        if (auto f = filecoin_params(config_, id); f && file_exists(f->params)) ids.push_back(id);
      }
    }
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

Result<ParamsHandle> ParamsCache::acquire(const std::string& id, const RecordFn& record,
                                          const ReserveOptions& wait) {
  UniqueLock lock(mu_);
  for (;;) {
    auto& slot = entries_[id];
    if (!slot) slot = std::make_unique<Entry>();
    if (slot->state == Entry::State::kHot) {
      slot->last_use = ++tick_;
      ++counters_.hits;
      return ParamsHandle(slot->hot);
    }
    if (slot->state == Entry::State::kAbsent) {
      slot->state = Entry::State::kLoading;
      break;
    }
    loaded_cv_.wait(lock.native());  // another thread loads it; then look again
  }
  lock.unlock();
  bool made = false;
  const int64_t t0 = now_ns();
  // Whatever load() throws (bad_alloc, a filesystem error, the recorder's own) becomes this
  // acquire's error: the entry must leave kLoading and its waiters must wake, or every later
  // acquire of the id would wait forever.
  Result<std::shared_ptr<HotParams>> loaded = guarded("params: loading circuit " + id, [&] {
    return load(id, record ? &record : nullptr, wait, made);
  });
  lock.lock();
  Entry& e = *entries_.at(id);
  loaded_cv_.notify_all();
  if (!loaded.ok()) {
    e.state = Entry::State::kAbsent;
    return loaded.status();
  }
  e.hot = *loaded;
  e.state = Entry::State::kHot;
  e.last_use = ++tick_;
  ++counters_.loads;
  counters_.load_s += static_cast<double>(now_ns() - t0) / 1e9;
  counters_.setups += made ? 1 : 0;
  const CircuitMemory& m = e.hot->memory;
  spdlog::info(
      "params: {} hot: {} reserved (params {} in backend memory, R1CS {}, prover scratch {}, NTT "
      "tables {})",
      id, format_bytes(m.resident()), format_bytes(m.params), format_bytes(m.r1cs),
      format_bytes(m.start_scratch + m.finish_scratch), format_bytes(m.ntt_tables));
  return ParamsHandle(e.hot);
}

Status ParamsCache::preload(const std::string& id, ParamsChange* change) {
  bool was_hot = false;
  {
    MutexLock lock(mu_);
    auto it = entries_.find(id);
    was_hot = it != entries_.end() && it->second->state == Entry::State::kHot;
  }
  ReserveOptions wait;
  wait.what = "preload of " + id;
  Result<ParamsHandle> h = acquire(id, RecordFn(), wait);
  if (h.ok() && change != nullptr) *change = {(*h)->resident_bytes, was_hot};
  return h.status();
}

Status ParamsCache::evict(const std::string& id, ParamsChange* change) {
  std::shared_ptr<HotParams> dropped;
  Reservation reservation;
  {
    MutexLock lock(mu_);
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second->state != Entry::State::kHot) {
      return not_found("params of " + id + " are not resident");
    }
    Entry& e = *it->second;
    if (e.hot.use_count() > 1) {
      return failed_precondition("params of " + id + " are in use by a job; evict them later");
    }
    dropped = std::move(e.hot);
    reservation = std::move(e.reservation);
    e.state = Entry::State::kAbsent;
    ++counters_.evictions;
    if (change != nullptr) *change = {reservation.bytes(), true};
  }
  spdlog::info("params: {} evicted", id);
  return ok_status();  // the copy and its reservation go here, outside the lock
}

uint64_t ParamsCache::reclaim(uint64_t needed) {
  std::vector<std::pair<std::shared_ptr<HotParams>, Reservation>> dropped;
  uint64_t freed = 0;
  {
    MutexLock lock(mu_);
    std::vector<Entry*> unused;
    for (auto& [id, e] : entries_) {
      if (e->state == Entry::State::kHot && e->hot.use_count() == 1) unused.push_back(e.get());
    }
    std::sort(unused.begin(), unused.end(),
              [](const Entry* x, const Entry* y) { return x->last_use < y->last_use; });
    for (Entry* e : unused) {
      if (freed >= needed) break;
      freed += e->reservation.bytes();
      spdlog::info("params: {} evicted to make room ({} needed)", e->hot->circuit_id,
                   format_bytes(needed));
      dropped.emplace_back(std::move(e->hot), std::move(e->reservation));
      e->state = Entry::State::kAbsent;
      ++counters_.evictions;
    }
  }
  dropped.clear();  // releases the buffers and reservations, outside the lock
  return freed;
}

void ParamsCache::count_work(double ParamsStats::*seconds, uint64_t ParamsStats::*count,
                             int64_t start_ns) {
  const double s = static_cast<double>(now_ns() - start_ns) / 1e9;
  MutexLock lock(mu_);
  counters_.*seconds += s;
  if (count != nullptr) ++(counters_.*count);
}

bool ParamsCache::hot(const std::string& id) const {
  MutexLock lock(mu_);
  const auto it = entries_.find(id);
  return it != entries_.end() && it->second->state == Entry::State::kHot;
}

std::vector<std::string> ParamsCache::stop_work() {
  stopping_.store(true);
  std::vector<std::string> loading;
  MutexLock lock(mu_);
  for (const auto& [id, e] : entries_) {
    if (e->state == Entry::State::kLoading) loading.push_back(id);
  }
  return loading;
}

ParamsStats ParamsCache::stats() const {
  MutexLock lock(mu_);
  ParamsStats s = counters_;
  for (const auto& [id, e] : entries_) {
    if (e->warm) ++s.warm;
    if (e->state != Entry::State::kHot) continue;
    ++s.hot;
    s.hot_circuits.push_back(id);
    s.hot_bytes += e->hot->resident_bytes;
    if (e->hot.use_count() > 1) ++s.in_use;
  }
  return s;
}

}  // namespace zkpipe::pipeline
