// Filecoin's file formats: all 600 partition proofs of rust-fil-proofs' seal regression records
// (v16 and v18; the NonInteractivePoRep records are SnarkPack aggregates, another format) parse
// onto the curves and re-encode byte for byte; polka-storage's compressed verifying key; a key of
// our setup written as bellperson .params and .vk reads back identically; damaged files are
// refused with the file, field and offset named.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "filecoin/filecoin_data.h"
#include "zkpipe/crypto/serialize.h"
#include "zkpipe/filecoin/params_format.h"
#include "zkpipe/filecoin/proof_format.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/sdk/file_io.h"

namespace zkpipe::filecoin {
namespace {

TEST_CASE("Filecoin proofs: the seal regression records' 600 partition proofs round-trip",
          "[filecoin]") {
  size_t partitions = 0, aggregated = 0;
  for (const char* file :
       {"seal_regression_records-v16.json", "seal_regression_records-v18.json"}) {
    std::ifstream in(testdata::path(file));
    REQUIRE(in.good());
    std::string line;
    size_t n = 0;
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      const nlohmann::json r = nlohmann::json::parse(line);
      ++n;
      const nlohmann::json& features = r.at("porep_config").at("api_features");
      if (std::find(features.begin(), features.end(), "NonInteractivePoRep") != features.end()) {
        ++aggregated;
        continue;
      }
      const std::vector<uint8_t> bytes = r.at("proof").get<std::vector<uint8_t>>();
      const size_t parts = r.at("porep_config").at("partitions");
      INFO(file << " record " << n);
      Result<std::vector<groth16::Proof>> proofs = decode_proofs(bytes, parts);
      INFO(proofs.status().to_string());
      REQUIRE(proofs.ok());
      CHECK(encode_proofs(*proofs) == bytes);
      partitions += proofs->size();
    }
  }
  CHECK(partitions == 600);
  CHECK(aggregated == 24);
}

TEST_CASE("Filecoin proofs: wrong lengths and damaged points name the partition", "[filecoin]") {
  const std::vector<uint8_t> proof = testdata::bytes("polka_porep_2kib.proof.bin");
  REQUIRE(decode_proofs(proof, 1).ok());
  CHECK_THAT(decode_proofs(proof, 2).status().message(), Catch::Contains("2 partitions of 192"));
  std::vector<uint8_t> two = proof;
  two.insert(two.end(), proof.begin(), proof.end());
  two[192 + 50] ^= 0x40;  // B's x.c1 of partition 1
  Result<std::vector<groth16::Proof>> bad = decode_proofs(two);
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(bad.status().message(), Catch::Contains("partition 1 (bytes 192-383)"));
  CHECK_FALSE(decode_proofs(std::vector<uint8_t>(191, 0)).ok());
}

TEST_CASE("Filecoin keys: polka-storage's compressed 2KiB PoRep key round-trips", "[filecoin]") {
  const std::vector<uint8_t> bytes = testdata::bytes("polka_porep_2kib.vk.bin");
  Result<groth16::VerifyingKey> vk = decode_any_verifying_key(bytes);
  INFO(vk.status().to_string());
  REQUIRE(vk.ok());
  CHECK(vk->ic.size() == 40);
  CHECK(encode_compressed_verifying_key(*vk) == bytes);
  // The same key as a bellperson .vk: 868 + 96 * 40 bytes, read back by either entry point.
  const std::vector<uint8_t> vk_file = groth16::encode_verifying_key(*vk);
  CHECK(vk_file.size() == 868 + 96 * 40);
  CHECK(*decode_any_verifying_key(vk_file) == *vk);

  std::vector<uint8_t> short_ic(bytes.begin(), bytes.end() - 48);
  CHECK_THAT(decode_compressed_verifying_key(short_ic).status().message(),
             Catch::Contains("IC count 40"));
  std::vector<uint8_t> off = bytes;
  off[436 + 48 * 3 + 20] ^= 0x01;  // ic[3]'s x
  Result<groth16::VerifyingKey> refused = decode_compressed_verifying_key(off);
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("ic[3] (bytes 580-627)"));
}

struct TempDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("zkpipe_filecoin_" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(dir); }
  ~TempDir() { std::filesystem::remove_all(dir); }
  std::string file(const std::string& name) const { return (dir / name).string(); }
};

groth16::ProvingKey small_key() {
  groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
  REQUIRE(groth16::synthesize_example({"mimc", 12, 3}, cs).ok());
  REQUIRE(cs.finish().ok());
  Result<groth16::ProvingKey> pk =
      groth16::setup(cs.take_r1cs(), groth16::ToxicWaste::from_seed(9));
  REQUIRE(pk.ok());
  return std::move(pk).value();
}

TEST_CASE("Filecoin .params: our key in bellperson's layout reads back identically", "[filecoin]") {
  TempDir tmp;
  const groth16::ProvingKey pk = small_key();
  const BellpersonParams params = params_from_proving_key(pk);
  const std::string path = tmp.file("mimc.params");
  REQUIRE(write_params(path, params).ok());
  const uint64_t size = std::filesystem::file_size(path);
  CHECK(size == params_file_bytes(params.vk.ic.size(), params.h.size(), params.l.size(),
                                  params.a.size(), params.b_g1.size()));
  Result<ParamsLayout> layout = read_params_layout(path);
  INFO(layout.status().to_string());
  REQUIRE(layout.ok());
  CHECK(layout->vk == pk.vk);
  CHECK(layout->vectors[0].count == pk.h_query.size());
  CHECK(layout->vectors[1].count == pk.l_query.size());
  CHECK(layout->vectors[4].count == pk.b_g2_query.size());
  CHECK(layout->file_bytes == size);
  for (bool checked : {true, false}) {
    Result<BellpersonParams> back = read_params(path, checked);
    INFO(back.status().to_string());
    REQUIRE(back.ok());
    CHECK(*back == params);
  }
}

TEST_CASE("Filecoin .params: read on 4 threads as on one; the first damage in file order is named",
          "[filecoin]") {
  TempDir tmp;
  BellpersonParams params = params_from_proving_key(small_key());
  // h stretched over 3 chunks of 4,096 points (the reader's unit of work; the points need not
  // form a key for the format).
  const size_t n = params.h.size();
  for (size_t i = n; i < 10'000; ++i) params.h.push_back(params.h[i % n]);
  const std::string path = tmp.file("wide.params");
  REQUIRE(write_params(path, params).ok());
  Result<BellpersonParams> one = read_params(path, false, 1), four = read_params(path, false, 4);
  REQUIRE(one.ok());
  REQUIRE(four.ok());
  CHECK(*one == params);
  CHECK(*four == params);
  // Points off the curve in the third chunk and in the second: the second's is reported.
  Result<ParamsLayout> layout = read_params_layout(path);
  REQUIRE(layout.ok());
  Result<std::string> read = read_file(path);
  REQUIRE(read.ok());
  std::string bytes = *read;
  for (uint64_t point : {9000u, 5000u}) bytes[layout->vectors[0].offset + point * 96 + 95] ^= 1;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  for (unsigned threads : {1u, 4u}) {
    Result<BellpersonParams> bad = read_params(path, false, threads);
    REQUIRE_FALSE(bad.ok());
    CHECK_THAT(bad.status().message(), Catch::Contains("h (points from 4096"));
  }
}

TEST_CASE("Filecoin .params: damaged files are refused with the file, field and offset",
          "[filecoin]") {
  TempDir tmp;
  const BellpersonParams params = params_from_proving_key(small_key());
  const std::string good = tmp.file("good.params");
  REQUIRE(write_params(good, params).ok());
  Result<std::string> bytes = read_file(good);
  REQUIRE(bytes.ok());
  const std::string& b = *bytes;
  Result<ParamsLayout> layout = read_params_layout(good);
  REQUIRE(layout.ok());
  auto write = [&](const std::string& name, const std::string& content) {
    const std::string p = tmp.file(name);
    REQUIRE(write_file(p, content).ok());
    return p;
  };

  const std::string truncated = write("truncated.params", b.substr(0, b.size() - 100));
  Result<ParamsLayout> t = read_params_layout(truncated);
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(t.status().message(), Catch::Contains(truncated));
  CHECK_THAT(t.status().message(), Catch::Contains("b_g2"));
  CHECK_THAT(t.status().message(), Catch::Contains("truncated"));

  CHECK_THAT(read_params_layout(write("long.params", b + "xx")).status().message(),
             Catch::Contains("2 bytes after the last vector"));

  std::string count = b;  // l's count far beyond the file
  const uint64_t l_count_at = layout->vectors[1].offset - 4;
  count[l_count_at] = 0x7f;
  Result<ParamsLayout> c = read_params_layout(write("count.params", count));
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.status().message(), Catch::Contains("offset " + std::to_string(l_count_at)));
  CHECK_THAT(c.status().message(), Catch::Contains("l has 2130706"));
  // One too many: l then ends a point later, and a's count is read from l's last point.
  count = b;
  count[l_count_at + 3] = static_cast<char>(count[l_count_at + 3] + 1);
  CHECK_FALSE(read_params_layout(write("count1.params", count)).ok());

  std::string off_curve = b;  // a point of h off the curve: its y changed
  const uint64_t h5 = layout->vectors[0].offset + 5 * 96;
  off_curve[h5 + 95] ^= 1;
  Result<BellpersonParams> oc = read_params(write("curve.params", off_curve), false);
  REQUIRE_FALSE(oc.ok());
  CHECK_THAT(oc.status().message(), Catch::Contains("h (points from 0"));
  CHECK_THAT(oc.status().message(), Catch::Contains("point 5"));
  CHECK_THAT(oc.status().message(), Catch::Contains("not on the curve"));

  std::string infinity = b;  // a point of a at infinity
  const uint64_t a2 = layout->vectors[2].offset + 2 * 96;
  infinity.replace(a2, 96, std::string(96, '\0'));
  infinity[a2] = static_cast<char>(crypto::kFlagInfinity);
  Result<BellpersonParams> inf = read_params(write("inf.params", infinity));
  REQUIRE_FALSE(inf.ok());
  CHECK_THAT(inf.status().message(), Catch::Contains("offset " + std::to_string(a2)));
  CHECK_THAT(inf.status().message(), Catch::Contains("a point 2 is the point at infinity"));

  // On the curve, outside the prime-order subgroup (tests/vectors/serialization_invalid.json, from
  // @noble/curves): the checked read refuses it; the unchecked one, as Filecoin reads .params
  // under a digest check, does not look.
  const std::vector<uint8_t> torsion = testdata::unhex(
      "16dbc68b53e777a62daa87540a60fed1e846fd2466b7d34eedc6b0a8a974293f31037dda04acfd0aeab9a173cc4"
      "7567716173cddea2b1af0daed1c826fd28b4f644e6a94ae229cfbf880b00b71cd0e9a16723abf4ccc9a5411c98"
      "5990cbc9b53");
  REQUIRE(torsion.size() == 96);
  std::string subgroup = b;
  const uint64_t l1 = layout->vectors[1].offset + 96;
  subgroup.replace(l1, 96, std::string(torsion.begin(), torsion.end()));
  const std::string sub_path = write("subgroup.params", subgroup);
  Result<BellpersonParams> sg = read_params(sub_path, true);
  REQUIRE_FALSE(sg.ok());
  CHECK_THAT(sg.status().message(), Catch::Contains("l (points from 0"));
  CHECK_THAT(sg.status().message(), Catch::Contains("point 1"));
  CHECK_THAT(sg.status().message(), Catch::Contains("subgroup"));
  CHECK(read_params(sub_path, false).ok());

  CHECK(read_params_layout(tmp.file("missing.params")).status().code() == Code::kNotFound);
  BellpersonParams with_infinity = params;
  with_infinity.l[0].infinity = true;
  CHECK_THAT(write_params(tmp.file("w.params"), with_infinity).message(),
             Catch::Contains("l point 0"));
}

}  // namespace
}  // namespace zkpipe::filecoin
