// tests/filecoin/circuit_params_test.cpp: each Filecoin circuit id finds exactly one of the
// parameter files rust-fil-proofs' parameters.json names, PoSt's by the hash of its public
// parameters' identifier (so the hashes in the manifest's names are recomputed here, not looked
// up): 25 ids, 22 files of the manifest (every .params file it has) and 3 names of the SnapDeals
// Poseidon variant at sizes Filecoin publishes no file for (2KiB, 8MiB, 512MiB: the name
// rust-fil-proofs' cache would give them, no digest).
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin/porep_config.h"

namespace zkpipe::filecoin {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("Filecoin params names: every circuit id has its file, every manifest file its id",
          "[filecoin]") {
  std::set<std::string> claimed, unpublished;
  for (const char* kind :
       {"porep", "snapdeals", "snapdeals-poseidon", "window-post", "winning-post"}) {
    for (const SectorSizeName& size : kSectorSizes) {
      const std::string id = std::string("filecoin-") + kind + "-" + size.name;
      INFO(id);
      Result<ParamFile> f = circuit_param_file(id);
      REQUIRE(f.ok());
      CHECK(f->sector_size == size.bytes);
      CHECK(circuit_param_name(id) == f->name);
      if (f->digest.empty()) {
        CHECK(std::string(kind) == "snapdeals-poseidon");
        CHECK(unpublished.insert(f->name).second);
      } else {
        CHECK(claimed.insert(f->name).second);
      }
    }
  }
  CHECK(claimed.size() == 22);
  CHECK(unpublished.size() == 3);
  size_t manifest_params = 0;
  for (const ParamFile& f : filecoin_parameters()) {
    if (!f.name.ends_with(".params")) continue;
    ++manifest_params;
    CHECK(claimed.count(f.name) == 1);
  }
  CHECK(manifest_params == 22);
}

TEST_CASE("Filecoin params names: SnapDeals files are told apart by sector_nodes' hash",
          "[filecoin]") {
  // empty_sector_update::PublicParams{ sector_nodes: 2^30 }: both variants' 32GiB files
  CHECK(circuit_param_name("filecoin-snapdeals-32GiB") ==
        "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
        "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params");
  CHECK(circuit_param_name("filecoin-snapdeals-poseidon-32GiB") ==
        "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-"
        "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params");
  CHECK(circuit_param_name("filecoin-snapdeals-poseidon-64GiB") ==
        "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-2-"
        "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params");
  // 2KiB (sector_nodes 64): the SHA-256 variant's published file and the Poseidon variant's
  // unpublished name share the hash
  CHECK(circuit_param_name("filecoin-snapdeals-2KiB") ==
        "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
        "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params");
  const Result<ParamFile> dev = circuit_param_file("filecoin-snapdeals-poseidon-2KiB");
  REQUIRE(dev.ok());
  CHECK(dev->name ==
        "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-0-0-"
        "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params");
  CHECK(dev->digest.empty());
  CHECK_FALSE(circuit_param_file("filecoin-snapdeals-poseidon-4KiB").ok());
}

TEST_CASE("Filecoin params names: the PoSt files are told apart by their identifier's hash",
          "[filecoin]") {
  // Window: 10 challenges over 2 sectors a partition (2KiB); Winning: 1 challenge over 66.
  CHECK(circuit_param_name("filecoin-window-post-2KiB") ==
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params");
  CHECK(circuit_param_name("filecoin-winning-post-2KiB") ==
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params");
  // 32GiB Window: 2349 sectors a partition.
  CHECK(circuit_param_name("filecoin-window-post-32GiB") ==
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
        "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params");
  CHECK(param_file_stem(*circuit_param_file("filecoin-porep-32GiB")) ==
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
        "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820");
}

TEST_CASE("Filecoin params names: other ids are not Filecoin circuits", "[filecoin]") {
  CHECK_FALSE(is_filecoin_circuit("mimc-40"));
  CHECK(circuit_param_file("mimc-40").status().code() == Code::kNotFound);
  CHECK(circuit_param_file("filecoin-porep-4KiB").status().code() == Code::kNotFound);
  CHECK(circuit_param_file("filecoin-sealing-2KiB").status().code() == Code::kNotFound);
  CHECK(circuit_param_name("filecoin-porep-") == "");
  // A manifest without the file: INTERNAL, naming the circuit.
  Result<ParamFile> none = circuit_param_file("filecoin-porep-2KiB", {});
  CHECK(none.status().code() == Code::kInternal);
  CHECK_THAT(none.status().message(), Contains("filecoin-porep-2KiB"));
}

}  // namespace
}  // namespace zkpipe::filecoin
