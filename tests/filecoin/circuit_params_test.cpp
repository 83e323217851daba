// tests/filecoin/circuit_params_test.cpp: each Filecoin circuit id finds exactly one of the
// parameter files rust-fil-proofs' parameters.json names, PoSt's by the hash of its public
// parameters' identifier (so the hashes in the manifest's names are recomputed here, not looked
// up): 20 ids, 20 distinct files, and every .params file of the manifest is claimed but the two
// of the Poseidon variant of SnapDeals (32GiB and 64GiB), which no proof type proves yet.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin/porep_config.h"

namespace zkpipe::filecoin {
namespace {

using Catch::Matchers::Contains;

TEST_CASE("Filecoin params names: every circuit id has exactly one manifest file", "[filecoin]") {
  std::set<std::string> claimed;
  for (const char* kind : {"porep", "snapdeals", "window-post", "winning-post"}) {
    for (const SectorSizeName& size : kSectorSizes) {
      const std::string id = std::string("filecoin-") + kind + "-" + size.name;
      INFO(id);
      Result<ParamFile> f = circuit_param_file(id);
      REQUIRE(f.ok());
      CHECK(f->sector_size == size.bytes);
      CHECK(claimed.insert(f->name).second);
      CHECK(circuit_param_name(id) == f->name);
    }
  }
  CHECK(claimed.size() == 20);
  std::set<std::string> unclaimed;
  for (const ParamFile& f : filecoin_parameters()) {
    if (f.name.ends_with(".params") && !claimed.count(f.name)) unclaimed.insert(f.name);
  }
  CHECK(unclaimed.size() == 2);
  for (const std::string& name : unclaimed) {
    CHECK_THAT(name, Contains("empty-sector-update-poseidon-merkletree"));
  }
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
