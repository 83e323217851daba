// tests/groth16/params_file_test.cpp: the params file and the R1CS cache. Round trips (validated
// and trusted, the mapped key proves), one flipped byte in every section, the table and the
// header checksum (each refused naming the part and an offset), points that are off the curve,
// outside the subgroup, non-canonical or with a bad flag byte (written with valid checksums),
// truncation, wrong magic, wrong layout tag; `zkpipe-tool params info|verify` exit codes.
#include <unistd.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "temp_dir.h"
#include "tools/run_tool.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/verifier.h"

using namespace zkpipe;
using namespace zkpipe::groth16;
using Catch::Matchers::Contains;
using crypto::Fp;
using crypto::Fp2;
namespace fs = std::filesystem;
using zkpipe::testing::read_bytes;
using zkpipe::testing::TempDir;
using zkpipe::testing::write_bytes;

namespace {

struct Fixture {
  R1cs r1cs;
  std::vector<Fr> inputs, aux;
  ProvingKey pk;
};

// A real key (every query non-empty) for a small circuit.
const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture x;
    auto cs = ConstraintSystem::recorder();
    REQUIRE(synthesize_example({"synthetic", 40, 3}, cs).ok());
    x.r1cs = cs.take_r1cs();
    std::tie(x.inputs, x.aux) = cs.take_witness();
    auto pk = setup(x.r1cs, ToxicWaste::from_seed(11));
    REQUIRE(pk.ok());
    x.pk = std::move(pk).value();
    REQUIRE(!x.pk.a_query.empty());
    REQUIRE(!x.pk.b_g2_query.empty());
    return x;
  }();
  return f;
}

// A key whose queries are owned vectors (so a test may replace points).
struct OwnedKey {
  std::vector<G1Affine> h, l, a, b1;
  std::vector<G2Affine> b2;
  ProvingKey pk;
  explicit OwnedKey(const ProvingKey& src)
      : h(src.h_query.begin(), src.h_query.end()),
        l(src.l_query.begin(), src.l_query.end()),
        a(src.a_query.begin(), src.a_query.end()),
        b1(src.b_g1_query.begin(), src.b_g1_query.end()),
        b2(src.b_g2_query.begin(), src.b_g2_query.end()),
        pk(src) {
    pk.h_query = h, pk.l_query = l, pk.a_query = a, pk.b_g1_query = b1, pk.b_g2_query = b2;
    pk.storage.reset();
  }
};

template <typename T>
bool same(std::span<const T> x, std::span<const T> y) {
  return std::ranges::equal(x, y);
}
bool same_key(const ProvingKey& x, const ProvingKey& y) {
  return x.vk == y.vk && x.num_inputs == y.num_inputs && x.num_aux == y.num_aux &&
         x.domain_size == y.domain_size && x.a_density == y.a_density &&
         x.b_density == y.b_density && same(x.h_query, y.h_query) && same(x.l_query, y.l_query) &&
         same(x.a_query, y.a_query) && same(x.b_g1_query, y.b_g1_query) &&
         same(x.b_g2_query, y.b_g2_query);
}

// On the curve, not in the subgroup: a random x with x^3 + b square, cofactor not cleared.
G1Affine g1_outside_subgroup(std::mt19937_64& rng) {
  for (;;) {
    const Fp x = Fp::random(rng);
    Fp y;
    if (!(x.sqr() * x + crypto::G1Config::b()).sqrt(y)) continue;
    const G1Affine p{x, y, false};
    REQUIRE(crypto::is_on_curve<Fp, crypto::G1Config>(p));
    if (!crypto::g1_in_subgroup(p)) return p;
  }
}
G2Affine g2_outside_subgroup(std::mt19937_64& rng) {
  for (;;) {
    const Fp2 x{Fp::random(rng), Fp::random(rng)};
    Fp2 y;
    if (!(x.sqr() * x + crypto::G2Config::b()).sqrt(y)) continue;
    const G2Affine p{x, y, false};
    REQUIRE(crypto::is_on_curve<Fp2, crypto::G2Config>(p));
    if (!crypto::g2_in_subgroup(p)) return p;
  }
}

// Rewrites a params file with one section's payload edited and every checksum recomputed.
void rewrite(const std::string& from, const std::string& to, ParamsSection type,
             const std::function<void(std::vector<uint8_t>&)>& edit) {
  auto r = SectionedFileReader::open(from, params_format());
  REQUIRE(r.ok());
  auto w = SectionedFileWriter::create(to, params_format(), uint32_t(r->sections().size()));
  REQUIRE(w.ok());
  for (const auto& s : r->sections()) {
    auto span = r->section(s.type);
    std::vector<uint8_t> payload(span.begin(), span.end());
    if (s.type == static_cast<uint32_t>(type)) edit(payload);
    REQUIRE(w->write_section(s.type, payload).ok());
  }
  REQUIRE(w->finish().ok());
}

uint64_t section_offset(const std::string& path, ParamsSection type) {
  auto info = params_info(path);
  REQUIRE(info.ok());
  for (const auto& s : info->sections) {
    if (s.type == static_cast<uint32_t>(type)) return s.offset;
  }
  FAIL("no section");
  return 0;
}

void expect_refused(const Status& s, const std::vector<std::string>& parts) {
  INFO(s.to_string());
  REQUIRE_FALSE(s.ok());
  for (const auto& p : parts) CHECK_THAT(s.message(), Contains(p));
}

}  // namespace

TEST_CASE("ParamsFile: a written key loads back identical, validated and trusted", "[groth16]") {
  const Fixture& f = fixture();
  TempDir dir("zkpipe_params_test");
  const std::string path = dir.file("key.params");
  REQUIRE(write_params(path, f.pk).ok());
  CHECK_FALSE(fs::exists(path + ".tmp"));
  auto full = load_params(path);
  INFO(full.status().to_string());
  REQUIRE(full.ok());
  CHECK(same_key(*full, f.pk));
  auto trusted = load_params(path, ParamsLoadOptions::trusted());
  REQUIRE(trusted.ok());
  CHECK(same_key(*trusted, f.pk));
  // The queries are used in place: aligned pointers into the mapping, not copies.
  CHECK(reinterpret_cast<uintptr_t>(trusted->h_query.data()) % kSectionAlignment == 0);
  CHECK(trusted->h_query.data() != f.pk.h_query.data());
  CHECK(trusted->storage != nullptr);
  // The mapped key proves, and the proof verifies under the original verifying key.
  const size_t n = trusted->domain_size;
  std::vector<Fr> a(n), b(n), c(n);
  const WitnessView w{f.inputs, f.aux};
  REQUIRE(evaluate_abc(f.r1cs, w, a.data(), b.data(), c.data(), n).ok());
  auto proof = prove(*trusted, {w, a.data(), b.data(), c.data(), n}, ProverRandomness::secure());
  REQUIRE(proof.ok());
  const std::vector<Fr> x(f.inputs.begin() + 1, f.inputs.end());
  auto ok = verify(PreparedVerifyingKey(f.pk.vk), *proof, x);
  REQUIRE(ok.ok());
  CHECK(*ok);
  // The header records a seeded development setup; the tool's info shows it.
  auto info = params_info(path);
  REQUIRE(info.ok());
  CHECK(info->header.seeded_development_setup);
  CHECK(info->layout_matches);
  CHECK(info->sections.size() == 10);
  ParamsInfo verified;
  CHECK(verify_params(path, 2, &verified).ok());
  CHECK(verified.header.h_len == f.pk.h_query.size());
}

TEST_CASE("ParamsFile: one flipped byte anywhere is refused naming the part and offset",
          "[groth16]") {
  TempDir dir("zkpipe_params_test");
  const std::string good = dir.file("good.params");
  REQUIRE(write_params(good, fixture().pk).ok());
  const std::vector<uint8_t> bytes = read_bytes(good);
  auto info = params_info(good);
  REQUIRE(info.ok());
  // (byte to flip, what the message must name)
  std::vector<std::pair<uint64_t, std::string>> cases;
  for (const auto& s : info->sections) {
    REQUIRE(s.length > 0);
    cases.emplace_back(s.offset + s.length / 2, "section '" + s.name + "'");
  }
  cases.emplace_back(info->table_offset + kSectionEntryBytes + 9, "section table");
  cases.emplace_back(info->checksum_offset + 17, "header checksum");
  cases.emplace_back(3, "wrong magic");
  REQUIRE(cases.size() == 13);
  const std::string bad = dir.file("bad.params");
  for (const auto& [at, name] : cases) {
    auto b = bytes;
    b[at] ^= 0x10;
    write_bytes(bad, b);
    INFO("flipped byte " << at << ", expecting " << name);
    expect_refused(load_params(bad).status(), {bad, name, "byte offset"});
    expect_refused(verify_params(bad, 1, nullptr), {bad, name, "byte offset"});
  }
}

TEST_CASE("ParamsFile: a point outside the subgroup is refused, with valid checksums",
          "[groth16]") {
  std::mt19937_64 rng(20260101);
  TempDir dir("zkpipe_params_test");
  OwnedKey g1(fixture().pk);
  g1.h[1] = g1_outside_subgroup(rng);
  const std::string p1 = dir.file("g1.params");
  REQUIRE(write_params(p1, g1.pk).ok());
  const uint64_t h_at = section_offset(p1, ParamsSection::kHQuery) + sizeof(G1Affine);
  expect_refused(load_params(p1).status(), {p1, "section 'h_query'", "point 1", "not in subgroup",
                                            "byte offset " + std::to_string(h_at)});
  // Structure alone does not look at points: the trusted load takes it (that is the opt-out).
  CHECK(load_params(p1, ParamsLoadOptions::trusted()).ok());

  OwnedKey g2(fixture().pk);
  g2.b2.back() = g2_outside_subgroup(rng);
  g2.pk.vk.gamma_g2 = g2_outside_subgroup(rng);
  const std::string p2 = dir.file("g2.params");
  REQUIRE(write_params(p2, g2.pk).ok());
  expect_refused(verify_params(p2, 3, nullptr),
                 {p2, "section 'vk'", "gamma_g2", "not in subgroup"});
  g2.pk.vk.gamma_g2 = fixture().pk.vk.gamma_g2;
  REQUIRE(write_params(p2, g2.pk).ok());
  expect_refused(
      load_params(p2).status(),
      {"section 'b_g2_query'", "point " + std::to_string(g2.b2.size() - 1), "not in subgroup"});
}

TEST_CASE("ParamsFile: bad flag bytes, padding, coordinates and sizes are refused", "[groth16]") {
  TempDir dir("zkpipe_params_test");
  const std::string good = dir.file("good.params");
  REQUIRE(write_params(good, fixture().pk).ok());
  const std::string bad = dir.file("bad.params");
  constexpr size_t kInf = offsetof(G1Affine, infinity);
  const size_t p2 = 2 * sizeof(G1Affine);  // point 2 of a G1 section
  const uint64_t l_at = section_offset(good, ParamsSection::kLQuery);
  struct Case {
    ParamsSection section;
    std::function<void(std::vector<uint8_t>&)> edit;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {ParamsSection::kLQuery,
       [&](auto& b) { b[p2 + kInf] = 2; },
       {"section 'l_query'", "point 2", "infinity flag byte is 2",
        "byte offset " + std::to_string(l_at + p2 + kInf)}},
      {ParamsSection::kLQuery, [&](auto& b) { b[p2 + kInf + 1] = 1; }, {"point 2", "padding"}},
      {ParamsSection::kLQuery,
       [&](auto& b) { std::memcpy(&b[p2 + sizeof(Fp)], Fp::kModulus.data(), sizeof(Fp)); },
       {"point 2", "coordinate y is not canonical"}},
      {ParamsSection::kAQuery,
       [&](auto& b) { b[p2 + 3] ^= 1; },
       {"section 'a_query'", "point 2", "not on the curve"}},
      {ParamsSection::kAQuery,
       [&](auto& b) { b[p2 + kInf] = 1; },
       {"point 2", "infinity has non-zero coordinates"}},
      {ParamsSection::kBG2Query,
       [&](auto& b) { std::memcpy(&b[3 * sizeof(Fp)], Fp::kModulus.data(), sizeof(Fp)); },
       {"section 'b_g2_query'", "point 0", "coordinate y.c1 is not canonical"}},
      {ParamsSection::kHQuery,
       [&](auto& b) { b.resize(b.size() - sizeof(G1Affine)); },
       {"section 'h_query'", "the header says"}},
      {ParamsSection::kBDensity,
       [&](auto& b) { b.back() |= 0x80; },
       {"section 'b_density'", "bits set past the last wire"}},
      {ParamsSection::kHeader,
       [&](auto& b) { b[40] ^= 1; },  // h_len
       {"section 'header'", "h_query length"}},
  };
  for (const auto& c : cases) {
    rewrite(good, bad, c.section, c.edit);
    std::vector<std::string> parts = c.parts;
    parts.push_back(bad);
    parts.push_back("byte offset");
    expect_refused(load_params(bad).status(), parts);
  }
}

TEST_CASE("ParamsFile: truncated files, wrong magic and a wrong layout tag are refused",
          "[groth16]") {
  TempDir dir("zkpipe_params_test");
  const std::string good = dir.file("good.params");
  REQUIRE(write_params(good, fixture().pk).ok());
  const std::vector<uint8_t> bytes = read_bytes(good);
  const std::string bad = dir.file("bad.params");
  for (size_t len : {size_t{0}, size_t{30}, size_t{300}, bytes.size() / 2, bytes.size() - 1}) {
    write_bytes(bad, {bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(len)});
    INFO("truncated to " << len);
    for (const auto& options : {ParamsLoadOptions{}, ParamsLoadOptions::trusted()}) {
      expect_refused(load_params(bad, options).status(), {bad, "byte offset"});
    }
  }
  // An R1CS cache is not a params file.
  const std::string cache = dir.file("r1cs.cache");
  REQUIRE(write_r1cs_cache(cache, fixture().r1cs).ok());
  expect_refused(load_params(cache).status(), {cache, "wrong magic 'ZKPR1CS.'", "ZKPPARAM"});
  // A layout tag from another build (G1Affine of 112 bytes), checksums intact.
  rewrite(good, bad, ParamsSection::kHeader, [](auto& b) { b[84] = 112; });
  for (const auto& options : {ParamsLoadOptions{}, ParamsLoadOptions::trusted()}) {
    auto r = load_params(bad, options);
    expect_refused(r.status(), {bad, "section 'header'", "layout tag differs", "G1Affine 112 B"});
    CHECK(r.status().code() == Code::kFailedPrecondition);
  }
  auto info = params_info(bad);
  REQUIRE(info.ok());
  CHECK_FALSE(info->layout_matches);
  CHECK(load_params(dir.file("missing.params")).status().code() == Code::kNotFound);
}

TEST_CASE("ParamsFile: a key of the wrong shape is not written", "[groth16]") {
  TempDir dir("zkpipe_params_test");
  const std::string path = dir.file("key.params");
  REQUIRE(write_params(path, fixture().pk).ok());
  OwnedKey k(fixture().pk);
  k.l.pop_back();
  k.pk.l_query = k.l;
  expect_refused(write_params(path, k.pk), {path, "l_query"});
  CHECK_FALSE(fs::exists(path + ".tmp"));
  CHECK(load_params(path).ok());  // the earlier file is intact
}

TEST_CASE("R1csCache: round trip, and non-canonical values and flipped bytes refused",
          "[groth16]") {
  R1cs r1cs = fixture().r1cs;
  if (r1cs.constraint_namespace.empty()) {
    r1cs.namespaces = {"", "round/1"};
    r1cs.constraint_namespace.assign(r1cs.num_constraints(), 0);
    r1cs.constraint_namespace.back() = 1;
  }
  TempDir dir("zkpipe_params_test");
  const std::string path = dir.file("r1cs.cache");
  REQUIRE(write_r1cs_cache(path, r1cs).ok());
  auto back = load_r1cs_cache(path);
  INFO(back.status().to_string());
  REQUIRE(back.ok());
  CHECK(back->num_inputs == r1cs.num_inputs);
  CHECK(back->num_aux == r1cs.num_aux);
  for (auto [x, y] : {std::pair{&back->a, &r1cs.a}, {&back->b, &r1cs.b}, {&back->c, &r1cs.c}}) {
    CHECK(x->row_begin == y->row_begin);
    CHECK(x->column == y->column);
    CHECK(std::ranges::equal(x->value, y->value));
  }
  CHECK(back->namespaces == r1cs.namespaces);
  CHECK(back->constraint_namespace == r1cs.constraint_namespace);

  // A value >= r (written with valid checksums) names the matrix, the term and the offset.
  auto r = SectionedFileReader::open(path, r1cs_cache_format());
  REQUIRE(r.ok());
  const std::string bad = dir.file("bad.cache");
  {
    auto w = SectionedFileWriter::create(bad, r1cs_cache_format(), uint32_t(r->sections().size()));
    REQUIRE(w.ok());
    for (const auto& s : r->sections()) {
      auto span = r->section(s.type);
      std::vector<uint8_t> payload(span.begin(), span.end());
      if (r1cs_cache_format().section_name(s.type) == "b_value") {
        for (size_t k = 0; k < 4; ++k) {
          for (size_t i = 0; i < 8; ++i)
            payload[32 + 8 * k + i] = uint8_t(Fr::kModulus[k] >> 8 * i);
        }
      }
      REQUIRE(w->write_section(s.type, payload).ok());
    }
    REQUIRE(w->finish().ok());
  }
  const SectionEntry* bv = nullptr;
  for (const auto& s : r->sections()) {
    if (r1cs_cache_format().section_name(s.type) == "b_value") bv = &s;
  }
  REQUIRE(bv != nullptr);
  expect_refused(load_r1cs_cache(bad).status(),
                 {bad, "section 'b_value'", "matrix B term 1", "not canonical (>= r)",
                  "byte offset " + std::to_string(bv->offset + 32)});
  // A flipped byte fails its checksum.
  auto bytes = read_bytes(path);
  bytes[bv->offset + 5] ^= 1;
  write_bytes(bad, bytes);
  expect_refused(load_r1cs_cache(bad).status(), {"section 'b_value'", "SHA-256"});
}

TEST_CASE("zkpipe-tool params: info and verify on good and corrupted files", "[groth16][tool]") {
  using zkpipe::test::run_tool;
  TempDir dir("zkpipe_params_test");
  const std::string good = dir.file("good.params");
  REQUIRE(write_params(good, fixture().pk).ok());
  auto info = run_tool("params info " + good);
  INFO(info.output);
  CHECK(info.exit_code == 0);
  CHECK_THAT(info.output, Contains("seeded development setup") && Contains("NOT a trusted-setup") &&
                              Contains("h_query") && Contains("KiB") &&
                              Contains("matches this build"));
  auto json = run_tool("params info --json " + good);
  REQUIRE(json.exit_code == 0);
  auto j = nlohmann::json::parse(json.output);
  CHECK(j["seeded_development_setup"] == true);
  CHECK(j["sections"].size() == 10);
  CHECK(j["domain_size"] == fixture().pk.domain_size);

  auto ok = run_tool("params verify --threads 2 " + good);
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Contains("OK"));

  std::vector<uint8_t> bytes = read_bytes(good);
  const uint64_t at = section_offset(good, ParamsSection::kLQuery) + 5;
  bytes[at] ^= 1;
  const std::string bad = dir.file("bad.params");
  write_bytes(bad, bytes);
  auto failed = run_tool("params verify " + bad);
  INFO(failed.output);
  CHECK(failed.exit_code == 1);
  CHECK_THAT(failed.output, Contains(bad) && Contains("section 'l_query'") &&
                                Contains("byte offset " + std::to_string(at - 5)));
  CHECK(run_tool("params info " + bad).exit_code == 0);  // structure intact: info still reads it
  bytes[0] ^= 1;                                         // now the magic too
  write_bytes(bad, bytes);
  CHECK(run_tool("params info " + bad).exit_code == 1);
  CHECK(run_tool("params info " + dir.file("missing.params")).exit_code == 2);
  CHECK(run_tool("params verify " + dir.file("missing.params")).exit_code == 2);
  CHECK(run_tool("params verify").exit_code == 2);
  CHECK(run_tool("params").exit_code == 2);
}
