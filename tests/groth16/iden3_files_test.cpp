// iden3 .r1cs (v1) and .wtns (v2) files: write/read round trips of a recorded circuit, the header
// bytes snarkjs reads (magic, version, n8, the prime r, wire counts), and readers that refuse
// truncated or malformed files naming the file, the section and the byte offset.
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/snarkjs.h"

using namespace zkpipe::groth16;
namespace fs = std::filesystem;
using zkpipe::testing::read_bytes;
using zkpipe::testing::TempDir;
using zkpipe::testing::write_bytes;

namespace {

const TempDir& temp_dir() {
  static const TempDir dir("zkpipe_iden3_test");
  return dir;
}

struct Recorded {
  R1cs r1cs;
  std::vector<Fr> inputs, aux;
};

Recorded record(const std::string& name, uint64_t size) {
  ConstraintSystem cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example({name, size, 5}, cs).ok());
  REQUIRE(cs.finish().ok());
  Recorded r;
  r.r1cs = cs.take_r1cs();
  std::tie(r.inputs, r.aux) = cs.take_witness();
  return r;
}

uint32_t u32_at(const std::vector<uint8_t>& b, size_t at) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v |= uint32_t{b.at(at + i)} << (8 * i);
  return v;
}
uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t{b.at(at + i)} << (8 * i);
  return v;
}
// r, little-endian.
std::vector<uint8_t> r_bytes() {
  std::vector<uint8_t> out;
  for (uint64_t limb : Fr::kModulus) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(limb >> (8 * i)));
  }
  return out;
}

void check_same_matrix(const SparseMatrix& a, const SparseMatrix& b) {
  CHECK(a.row_begin == b.row_begin);
  CHECK(a.column == b.column);
  CHECK(a.value == b.value);
}

}  // namespace

TEST_CASE("iden3 files: .r1cs and .wtns written from a circuit read back equal", "[groth16]") {
  for (const auto& [name, size] : {std::pair<std::string, uint64_t>{"cubic", 0}, {"mimc", 20}}) {
    INFO(name);
    const Recorded rec = record(name, size);
    const std::string r1cs_path = temp_dir().file(name + ".r1cs");
    const std::string wtns_path = temp_dir().file(name + ".wtns");
    REQUIRE(write_iden3_r1cs(r1cs_path, rec.r1cs).ok());
    REQUIRE(write_iden3_wtns(wtns_path, {rec.inputs, rec.aux}).ok());

    auto r1cs = read_iden3_r1cs(r1cs_path);
    REQUIRE(r1cs.ok());
    CHECK(r1cs->num_inputs == rec.r1cs.num_inputs);
    CHECK(r1cs->num_aux == rec.r1cs.num_aux);
    check_same_matrix(r1cs->a, rec.r1cs.a);
    check_same_matrix(r1cs->b, rec.r1cs.b);
    check_same_matrix(r1cs->c, rec.r1cs.c);

    auto wtns = read_iden3_wtns(wtns_path);
    REQUIRE(wtns.ok());
    std::vector<Fr> full = rec.inputs;
    full.insert(full.end(), rec.aux.begin(), rec.aux.end());
    CHECK(*wtns == full);
    // The two files agree with each other: the witness read back satisfies the R1CS read back.
    const auto inputs = std::span<const Fr>(*wtns).first(r1cs->num_inputs);
    const auto aux = std::span<const Fr>(*wtns).subspan(r1cs->num_inputs);
    CHECK(check_satisfied(*r1cs, {inputs, aux}).ok());
  }
}

TEST_CASE("iden3 files: header bytes are the ones snarkjs reads", "[groth16]") {
  const Recorded rec = record("mimc", 3);
  const std::string r1cs_path = temp_dir().file("header.r1cs");
  const std::string wtns_path = temp_dir().file("header.wtns");
  REQUIRE(write_iden3_r1cs(r1cs_path, rec.r1cs).ok());
  REQUIRE(write_iden3_wtns(wtns_path, {rec.inputs, rec.aux}).ok());

  const std::vector<uint8_t> r = read_bytes(r1cs_path);
  CHECK(std::memcmp(r.data(), "r1cs", 4) == 0);
  CHECK(u32_at(r, 4) == 1);   // version
  CHECK(u32_at(r, 8) == 3);   // header, constraints, labels
  CHECK(u32_at(r, 12) == 1);  // section 1: header
  CHECK(u64_at(r, 16) == 64);
  CHECK(u32_at(r, 24) == 32);  // n8
  CHECK(std::vector<uint8_t>(r.begin() + 28, r.begin() + 60) == r_bytes());
  const uint32_t wires = 1 + 3 + rec.r1cs.num_aux;  // mimc: public x0, k, out
  CHECK(u32_at(r, 60) == wires);
  CHECK(u32_at(r, 64) == 0);      // nPubOut
  CHECK(u32_at(r, 68) == 3);      // nPubIn
  CHECK(u32_at(r, 72) == 0);      // nPrvIn
  CHECK(u64_at(r, 76) == wires);  // nLabels
  CHECK(u32_at(r, 84) == rec.r1cs.num_constraints());
  CHECK(u32_at(r, 88) == 2);  // section 2: constraints
  // The label section is last: u64 j for wire j.
  CHECK(u64_at(r, r.size() - 8) == wires - 1);
  CHECK(u64_at(r, r.size() - 8 * wires - 12 + 4) == 8 * uint64_t{wires});

  const std::vector<uint8_t> w = read_bytes(wtns_path);
  CHECK(std::memcmp(w.data(), "wtns", 4) == 0);
  CHECK(u32_at(w, 4) == 2);  // version
  CHECK(u32_at(w, 8) == 2);  // sections
  CHECK(u32_at(w, 12) == 1);
  CHECK(u64_at(w, 16) == 40);
  CHECK(u32_at(w, 24) == 32);
  CHECK(std::vector<uint8_t>(w.begin() + 28, w.begin() + 60) == r_bytes());
  CHECK(u32_at(w, 60) == wires);
  CHECK(u32_at(w, 64) == 2);
  CHECK(u64_at(w, 68) == 32 * uint64_t{wires});
  CHECK(w.size() == 76 + 32 * size_t{wires});
  CHECK(u64_at(w, 76) == 1);  // witness[0] = 1, canonical little-endian
}

TEST_CASE("iden3 files: readers refuse truncated and malformed files, naming section and offset",
          "[groth16]") {
  const Recorded rec = record("cubic", 0);
  const std::string good_r1cs = temp_dir().file("good.r1cs");
  const std::string good_wtns = temp_dir().file("good.wtns");
  REQUIRE(write_iden3_r1cs(good_r1cs, rec.r1cs).ok());
  REQUIRE(write_iden3_wtns(good_wtns, {rec.inputs, rec.aux}).ok());
  const std::vector<uint8_t> r = read_bytes(good_r1cs);
  const std::vector<uint8_t> w = read_bytes(good_wtns);
  const std::string bad = temp_dir().file("bad.r1cs");
  auto r1cs_error = [&](const std::vector<uint8_t>& bytes) {
    write_bytes(bad, bytes);
    auto res = read_iden3_r1cs(bad);
    REQUIRE_FALSE(res.ok());
    CHECK(res.status().code() == zkpipe::Code::kInvalidArgument);
    return res.status().message();
  };

  // Cut inside the constraints section (it starts at byte 100 = 12 + 12 + 64 + 12).
  const std::string cut = r1cs_error(std::vector<uint8_t>(r.begin(), r.begin() + 150));
  CHECK_THAT(cut, Catch::StartsWith(bad + ": section 2 (constraints) at byte 100: truncated"));
  // Every shorter prefix is refused too (and never crashes).
  for (size_t len = 0; len < r.size(); len += 7) {
    write_bytes(bad, std::vector<uint8_t>(r.begin(), r.begin() + len));
    auto res = read_iden3_r1cs(bad);
    INFO(len);
    REQUIRE_FALSE(res.ok());
    CHECK_THAT(res.status().message(), Catch::Contains(" at byte "));
  }
  CHECK_THAT(r1cs_error({}), Catch::Contains("file header at byte 0: truncated"));

  std::vector<uint8_t> m = r;
  m[0] = 'x';
  CHECK_THAT(r1cs_error(m), Catch::Contains("bad magic"));
  m = r;
  m[4] = 2;
  CHECK_THAT(r1cs_error(m), Catch::Contains("at byte 4: version 2 is not supported"));
  m = r;
  m[24] = 48;
  CHECK_THAT(r1cs_error(m), Catch::Contains("section 1 (header) at byte 24: n8 = 48"));
  m = r;
  m[28] ^= 1;
  CHECK_THAT(r1cs_error(m), Catch::Contains("at byte 28: the prime is not"));
  // First term of constraint 0's A: u32 count at 100, wire id at 104, coefficient at 108.
  m = r;
  m[104] = 0xff;
  CHECK_THAT(r1cs_error(m), Catch::Contains("section 2 (constraints) at byte 104: wire id 255"));
  m = r;
  std::copy(r.begin() + 28, r.begin() + 60, m.begin() + 108);  // the prime r itself
  CHECK_THAT(r1cs_error(m), Catch::Contains("at byte 108: coefficient is not < r"));
  m = r;
  m.push_back(0);
  CHECK_THAT(r1cs_error(m), Catch::Contains("1 bytes after the last of 3 sections"));
  m = r;
  m[84] = 0xff;  // nConstraints
  CHECK_THAT(r1cs_error(m), Catch::Contains("section 2 (constraints) at byte 100: nConstraints"));

  const std::string bad_w = temp_dir().file("bad.wtns");
  auto wtns_error = [&](const std::vector<uint8_t>& bytes) {
    write_bytes(bad_w, bytes);
    auto res = read_iden3_wtns(bad_w);
    REQUIRE_FALSE(res.ok());
    return res.status().message();
  };
  CHECK_THAT(wtns_error(std::vector<uint8_t>(w.begin(), w.end() - 5)),
             Catch::StartsWith(bad_w + ": section 2 (values) at byte 76: truncated"));
  m = w;
  m[76] = 2;
  CHECK_THAT(wtns_error(m), Catch::Equals(bad_w + ": witness[0] is not 1"));
  m = w;
  std::copy(r.begin() + 28, r.begin() + 60, m.begin() + 76 + 32);
  CHECK_THAT(wtns_error(m), Catch::Contains("at byte 108: value 1 is not < r"));
  CHECK(read_iden3_wtns(temp_dir().file("missing.wtns")).status().code() ==
        zkpipe::Code::kNotFound);
}
