// zkpipe/filecoin/circuit_params.h: which of Filecoin's parameter files (parameters.json) belongs
// to a zkpipe Filecoin circuit id. The Filecoin proof types name their circuits
// filecoin-porep-<size>, filecoin-snapdeals-<size>, filecoin-window-post-<size> and
// filecoin-winning-post-<size> (<size>: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB). rust-fil-proofs names a
// file v28-<circuit prefix>-<SHA-256 of the public parameters' identifier, hex>.params: PoSt's
// identifier is "FallbackPoSt::PublicParams{sector_size: S, challenge_count: C, sector_count: N}"
// (Window: 10 challenges and its sectors per partition; Winning: 1 challenge and 66 sectors), so
// the two PoSt files of a size are told apart by that hash; SnapDeals' identifier is
// "empty_sector_update::PublicParams{ sector_nodes: N }", the same for its SHA-256 variant
// (filecoin-snapdeals-<size>, "empty-sector-update-merkletree") and its Poseidon variant
// (filecoin-snapdeals-poseidon-<size>, "empty-sector-update-poseidon-merkletree", published for
// 32GiB and 64GiB only: other sizes get the name rust-fil-proofs would give them and no digest,
// so only a development file can be used); PoRep has one file a size in the manifest.
// Library zkpipe::filecoin. Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "zkpipe/filecoin/param_dir.h"

namespace zkpipe::filecoin {

// True for the ids of the Filecoin proof types (the "filecoin-" prefix).
bool is_filecoin_circuit(std::string_view circuit_id);

// The manifest entry of the circuit's .params file (its .vk has the same stem). NOT_FOUND when
// the id is not one of the Filecoin proof types' ids; INTERNAL when the manifest has no single
// file for it (a manifest that does not match this reading of it).
Result<ParamFile> circuit_param_file(
    std::string_view circuit_id, const std::vector<ParamFile>& manifest = filecoin_parameters());

// The .params file name of a Filecoin circuit id; "" for other ids.
std::string circuit_param_name(std::string_view circuit_id);

// The file name without ".params" / ".vk".
std::string param_file_stem(const ParamFile& f);

}  // namespace zkpipe::filecoin
