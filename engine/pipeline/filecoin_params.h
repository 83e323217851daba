// engine/pipeline/filecoin_params.h: Filecoin's own parameter files as the params cache uses
// them. With params.filecoin_dir set, a Filecoin circuit (zkpipe/filecoin/circuit_params.h) proves
// with <filecoin_dir>/<registered name>.params (bellperson's layout): its BLAKE2b digest is checked
// against parameters.json once and the verdict stamped in params.dir (<name>.checked: the file's
// device, inode, size, mtime and ctime), the R1CS recorded once into params.dir/<circuit>.csr, and
// the points decoded straight into the backend buffer (nothing of the file is mapped or held).
// The development setup writes such a file too, with a <name>.params.development label that names
// its digest: accepted with a warning, never taken for Filecoin's.
// Thread-safety: reentrant; callers serialize per circuit (the params cache's loading state and
// the ParamsLock on params.dir/<name>).
#pragma once

#include <atomic>
#include <optional>
#include <string>

#include "zkpipe/config.h"
#include "zkpipe/filecoin/param_dir.h"
#include "zkpipe/filecoin/params_format.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/memory.h"

namespace zkpipe::pipeline {

struct FilecoinParams {
  filecoin::ParamFile file;             // its parameters.json entry
  std::string params, vk, development;  // in params.filecoin_dir
  std::string checked, lock, csr;       // in params.dir
};

// The Filecoin files of `circuit_id`; nullopt when params.filecoin_dir is not set or the id is
// not a Filecoin circuit (its params are then zkpipe's own, in params.dir).
std::optional<FilecoinParams> filecoin_params(const ParamsConfig& config,
                                              const std::string& circuit_id);

enum class ParamsOrigin { kFilecoin, kDevelopment };

// The digest verdict, from the stamp when it matches the file as it is now, else by reading the
// whole file (logged: minutes for a 44 GiB file), then stamped. FAILED_PRECONDITION naming the
// file and both digests when it is neither parameters.json's file nor a labeled development one.
Result<ParamsOrigin> check_filecoin_params(const FilecoinParams& f);
// Forgets the verdict (a proof made with the file failed to verify).
void drop_filecoin_verdict(const FilecoinParams& f);

// The development setup of `r1cs` written as Filecoin's file (labeled, with its .vk);
// FAILED_PRECONDITION when the directory holds any of Filecoin's own (unlabeled) v28 files;
// ABORTED when `stop` turns true during the setup (SetupOptions::stop).
Status make_development_filecoin_params(const FilecoinParams& f, const groth16::R1cs& r1cs,
                                        uint64_t seed, unsigned threads,
                                        const std::atomic<bool>* stop = nullptr);

// The wires the key has A and B bases for (from the circuit, once: a pass over its R1CS).
struct KeyDensities {
  groth16::Density a, b;
};
// The circuit's densities, when the file's counts are the circuit's; FAILED_PRECONDITION naming
// the file and the first count that is not (a file for another circuit): IC points against
// inputs, l against private wires, h against the domain, a and b against the densities.
Result<KeyDensities> check_filecoin_counts(const FilecoinParams& f,
                                           const filecoin::ParamsLayout& layout,
                                           const groth16::R1cs& r1cs);
// The prover's shape and the bytes of the five queries in memory, from the counts.
groth16::ProverShape filecoin_prover_shape(const filecoin::ParamsLayout& layout);
uint64_t filecoin_query_bytes(const filecoin::ParamsLayout& layout);

// Decodes the file's points into `buffer` (filecoin_query_bytes) on `threads` threads and returns
// the key over it (`r1cs` and the densities check_filecoin_counts returned for it).
Result<groth16::ProvingKey> read_filecoin_key(const FilecoinParams& f,
                                              const filecoin::ParamsLayout& layout,
                                              const groth16::R1cs& r1cs, KeyDensities densities,
                                              Buffer buffer, unsigned threads);

}  // namespace zkpipe::pipeline
