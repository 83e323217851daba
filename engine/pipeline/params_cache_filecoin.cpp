// params_cache_filecoin.cpp: ParamsCache::load_filecoin, the hot params of a Filecoin circuit from
// Filecoin's own .params (zkpipe/pipeline/params_cache.h, filecoin_params.h): made by the
// development setup when missing and allowed, the digest verdict, the R1CS (recorded once into
// params.dir), the counts against the circuit, the budget's reservation, then the points decoded
// into the backend buffer.
// Thread-safety: as ParamsCache::load (one loader per circuit; files under the ParamsLock).
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include <filesystem>

#include "filecoin_params.h"
#include "params_files.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/pipeline/params_cache.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

namespace fs = std::filesystem;

Result<std::shared_ptr<HotParams>> ParamsCache::load_filecoin(const std::string& id,
                                                              const RecordFn* record,
                                                              const ReserveOptions& wait,
                                                              bool& made,
                                                              Reservation& reservation) {
  const FilecoinParams f = *filecoin_params(config_, id);
  std::error_code ec;
  fs::create_directories(config_.dir, ec);
  if (ec) return unavailable("params.dir: cannot create " + config_.dir + ": " + ec.message());
  ZKP_ASSIGN_OR_RETURN(ParamsLock lock, ParamsLock::acquire(f.lock));
  const bool have_file = fs::exists(f.params, ec);
  const bool can_make = config_.setup_when_missing && record != nullptr;
  if (!have_file && !can_make && f.file.digest.empty()) {
    return not_found(fmt::format(
        "no params for circuit {}: Filecoin publishes none ({} is in no parameters.json); set "
        "params.missing: setup, or run `zkpipe-tool params new --proof T --preset P --config C`, "
        "for a development setup, whose proofs no Filecoin node accepts",
        id, f.file.name));
  }
  if (!have_file && !can_make) {
    return not_found(fmt::format(
        "no params for circuit {}: {} (Filecoin's {}) does not exist in params.filecoin_dir (fetch "
        "Filecoin's parameters there, e.g. `lotus fetch-params <sector size>`; or set "
        "params.missing: setup, or run `zkpipe-tool params new --proof T --preset P --config C`, "
        "for a development setup, whose proofs no Filecoin node accepts)",
        id, f.params, f.file.name));
  }
  std::optional<groth16::R1cs> r1cs;
  if (fs::exists(f.csr, ec)) {
    ZKP_ASSIGN_OR_RETURN(groth16::R1cs cached, groth16::load_r1cs_cache(f.csr));
    r1cs = std::move(cached);
  } else if (record != nullptr) {
    ZKP_ASSIGN_OR_RETURN(groth16::R1cs recorded, (*record)());
    ZKP_RETURN_IF_ERROR(groth16::write_r1cs_cache(f.csr, recorded));
    r1cs = std::move(recorded);
  } else {
    return not_found(fmt::format(
        "the R1CS of circuit {} is not recorded yet ({} is missing; the first job records it)", id,
        f.csr));
  }
  if (!have_file) {
    const int64_t t0 = now_ns();
    const Status s =
        make_development_filecoin_params(f, *r1cs, config_.setup_seed, threads_, &stopping_);
    count_work(&ParamsStats::setup_s, nullptr, t0);
    ZKP_RETURN_IF_ERROR(s);
    made = true;
  }
  ZKP_ASSIGN_OR_RETURN(const ParamsOrigin origin, check_filecoin_params(f));
  if (origin == ParamsOrigin::kDevelopment) {
    spdlog::warn("params: {} is a development setup ({}): Filecoin nodes reject its proofs",
                 f.params, f.development);
  }
  ZKP_ASSIGN_OR_RETURN(const filecoin::ParamsLayout layout, filecoin::read_params_layout(f.params));
  ZKP_ASSIGN_OR_RETURN(KeyDensities densities, check_filecoin_counts(f, layout, *r1cs));
  auto hot = std::make_shared<HotParams>();
  hot->circuit_id = id;
  hot->memory = pipeline::circuit_memory(id, filecoin_prover_shape(layout), r1cs->num_inputs,
                                         r1cs->num_aux, r1cs_memory_bytes(*r1cs), shape_);
  hot->resident_bytes = hot->memory.resident();
  ReserveOptions w = wait;
  w.what = "params of " + id;
  ZKP_ASSIGN_OR_RETURN(reservation, budget_.reserve(hot->resident_bytes, w));
  ZKP_ASSIGN_OR_RETURN(Buffer buffer, allocate_(filecoin_query_bytes(layout)));
  spdlog::info("params: decoding {} ({}) into backend memory", f.params,
               format_bytes(layout.file_bytes));
  ZKP_ASSIGN_OR_RETURN(hot->pk, read_filecoin_key(f, layout, *r1cs, std::move(densities),
                                                  std::move(buffer), threads_));
  hot->r1cs = std::move(*r1cs);
  hot->pvk = std::make_unique<groth16::PreparedVerifyingKey>(hot->pk.vk);
  hot->trusted_by_stamp = true;  // by its digest: a failed verification has it digested again
  return hot;
}

}  // namespace zkpipe::pipeline
