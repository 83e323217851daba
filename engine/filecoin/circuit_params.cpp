// circuit_params.cpp: a Filecoin circuit id's parameter file (zkpipe/filecoin/circuit_params.h).
#include "zkpipe/filecoin/circuit_params.h"

#include "zkpipe/filecoin/porep_config.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {
namespace {

constexpr std::string_view kPrefix = "filecoin-";
constexpr std::string_view kVersion = "v28-";

struct Kind {
  std::string_view id;      // after "filecoin-"
  std::string_view prefix;  // rust-fil-proofs' cache prefix, without the arities
};
constexpr Kind kKinds[] = {
    {"porep-", "stacked-proof-of-replication-merkletree-poseidon_hasher-"},
    {"snapdeals-", "empty-sector-update-merkletree-poseidon_hasher-"},
    {"snapdeals-poseidon-", "empty-sector-update-poseidon-merkletree-poseidon_hasher-"},
    {"window-post-", "proof-of-spacetime-fallback-merkletree-poseidon_hasher-"},
    {"winning-post-", "proof-of-spacetime-fallback-merkletree-poseidon_hasher-"},
};

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

}  // namespace

bool is_filecoin_circuit(std::string_view circuit_id) {
  return starts_with(circuit_id, kPrefix);
}

std::string circuit_param_name(std::string_view circuit_id) {
  Result<ParamFile> f = circuit_param_file(circuit_id);
  return f.ok() ? f->name : std::string();
}

std::string param_file_stem(const ParamFile& f) {
  const std::string_view name = f.name;
  const size_t dot = name.rfind('.');
  return std::string(dot == std::string_view::npos ? name : name.substr(0, dot));
}

Result<ParamFile> circuit_param_file(std::string_view circuit_id,
                                     const std::vector<ParamFile>& manifest) {
  if (!is_filecoin_circuit(circuit_id)) {
    return not_found(std::string(circuit_id) + " is not a Filecoin circuit id");
  }
  const std::string_view rest = circuit_id.substr(kPrefix.size());
  const Kind* kind = nullptr;
  for (const Kind& k : kKinds) {  // the longest matching kind ("snapdeals-poseidon-")
    if (starts_with(rest, k.id) && (kind == nullptr || k.id.size() > kind->id.size())) kind = &k;
  }
  const SectorSizeName* size = nullptr;
  if (kind != nullptr) {
    for (const SectorSizeName& s : kSectorSizes) {
      if (rest.substr(kind->id.size()) == s.name) size = &s;
    }
  }
  if (size == nullptr) {
    return not_found(std::string(circuit_id) +
                     " is not a Filecoin circuit id (filecoin-{porep,snapdeals,snapdeals-poseidon,"
                     "window-post,winning-post}-{2KiB,8MiB,512MiB,32GiB,64GiB})");
  }
  std::string identifier;  // PoSt and SnapDeals: the file's hash is its SHA-256; PoRep: one file
  if (kind->id == "snapdeals-" || kind->id == "snapdeals-poseidon-") {
    identifier =
        "empty_sector_update::PublicParams{ sector_nodes: " + std::to_string(size->bytes / 32) +
        " }";
  } else if (kind->id == "window-post-" || kind->id == "winning-post-") {
    const bool winning = kind->id == "winning-post-";
    ZKP_ASSIGN_OR_RETURN(
        PostConfig c, registered_post(std::string("StackedDrg") + (winning ? "Winning" : "Window") +
                                      size->name + "V1"));
    // rust-fil-proofs' PoSt setup: Winning proves 66 sectors of one challenge each.
    const uint64_t challenges = winning ? 1 : c.challenges;
    const uint64_t sectors = winning ? c.challenges : c.sector_count;
    identifier = "FallbackPoSt::PublicParams{sector_size: " + std::to_string(size->bytes) +
                 ", challenge_count: " + std::to_string(challenges) +
                 ", sector_count: " + std::to_string(sectors) + "}";
  }
  const std::string hash =
      identifier.empty()
          ? std::string()
          : to_hex(sha256(
                std::span(reinterpret_cast<const uint8_t*>(identifier.data()), identifier.size())));
  const ParamFile* found = nullptr;
  size_t matches = 0;
  for (const ParamFile& f : manifest) {
    const std::string_view name = f.name;
    if (f.sector_size != size->bytes || !name.ends_with(".params")) continue;
    if (!starts_with(name, std::string(kVersion) + std::string(kind->prefix))) continue;
    if (!hash.empty() && !name.ends_with("-" + hash + ".params")) continue;
    found = &f;
    ++matches;
  }
  if (matches == 0 && kind->id == "snapdeals-poseidon-") {
    // Filecoin publishes this circuit's files for 32GiB and 64GiB only: the name rust-fil-proofs
    // would give the others (development files only: no digest to check a copy against)
    ZKP_ASSIGN_OR_RETURN(SectorShape shape, sector_shape(size->bytes));
    ParamFile f;
    f.name = std::string(kVersion) + std::string(kind->prefix) + std::to_string(shape.base_arity) +
             "-" + std::to_string(shape.sub_arity) + "-" + std::to_string(shape.top_arity) + "-" +
             hash + ".params";
    f.sector_size = size->bytes;
    return f;
  }
  if (matches != 1) {
    return internal_error("parameters.json has " + std::to_string(matches) +
                          " .params files for circuit " + std::string(circuit_id) +
                          " (expected exactly one)");
  }
  return *found;
}

}  // namespace zkpipe::filecoin
