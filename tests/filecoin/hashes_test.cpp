// Filecoin's byte-level hashes: the zero-piece commitments of go-commp-utils' zerocomm table
// (128 B to 2^41 B), comm_d over data, SHA-256 truncated to 254 bits, fr32 padding (its bit
// layout and round trip), BLAKE2b-512 (RFC 7693's vector), domain <-> Fr.
#include <random>

#include "filecoin/filecoin_data.h"
#include "zkpipe/filecoin/commd.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin {
namespace {

TEST_CASE("Filecoin comm_d: zero pieces equal go-commp-utils' zerocomm table", "[filecoin]") {
  const nlohmann::json data = testdata::json("zerocomm.json");
  int checked = 0;
  for (const nlohmann::json& e : data.at("entries")) {
    const uint64_t size = e.at("padded_piece_size");
    INFO("padded size " << size);
    Result<Domain> z = zero_piece_comm(size);
    REQUIRE(z.ok());
    CHECK(*z == testdata::domain(e.at("comm_p_hex")));
    ++checked;
  }
  CHECK(checked == 35);
  // The smallest entries also as whole trees over zero bytes, padded and not.
  const std::vector<uint8_t> zeros(1024, 0);
  Result<Domain> tree = comm_d_padded(zeros);
  REQUIRE(tree.ok());
  CHECK(*tree == *zero_piece_comm(1024));
  Result<Domain> data_tree = comm_d_of_data(std::vector<uint8_t>(254, 0));
  REQUIRE(data_tree.ok());
  CHECK(*data_tree == *zero_piece_comm(256));
}

TEST_CASE("Filecoin comm_d: sizes that are not a tree are refused by size", "[filecoin]") {
  CHECK_THAT(comm_d_padded(std::vector<uint8_t>(96, 0)).status().message(),
             Catch::Contains("96 padded bytes"));
  CHECK_THAT(comm_d_of_data(std::vector<uint8_t>(100, 0)).status().message(),
             Catch::Contains("127-byte"));
  CHECK_THAT(zero_piece_comm(3000).status().message(), Catch::Contains("3000"));
}

TEST_CASE("Filecoin hashes: SHA-256 truncated to 254 bits", "[filecoin]") {
  const std::vector<uint8_t> abc = {'a', 'b', 'c'};
  const Sha256Digest full = sha256(abc);
  const Domain d = sha256_trunc254(abc);
  for (size_t i = 0; i < 31; ++i) CHECK(d[i] == full[i]);
  CHECK(d[31] == (full[31] & 0x3f));
  CHECK(fr_from_domain(d).ok());  // always a canonical Fr
  Domain l{}, r{};
  l[0] = 1;
  r[31] = 0x3f;
  std::vector<uint8_t> both(l.begin(), l.end());
  both.insert(both.end(), r.begin(), r.end());
  CHECK(sha256_trunc254_pair(l, r) == sha256_trunc254(both));
}

TEST_CASE("Filecoin fr32: 254 data bits a chunk, least significant first, two zero bits on top",
          "[filecoin]") {
  const std::vector<uint8_t> ones(127, 0xff);
  const std::vector<uint8_t> padded = fr32_pad(ones);
  REQUIRE(padded.size() == 128);
  for (size_t c = 0; c < 4; ++c) {
    for (size_t i = 0; i < 31; ++i) CHECK(padded[c * 32 + i] == 0xff);
    CHECK(padded[c * 32 + 31] == 0x3f);
  }
  // Bit 254 of the data (byte 31, bit 6) is bit 0 of chunk 1.
  std::vector<uint8_t> one_bit(127, 0);
  one_bit[31] = 0x40;
  const std::vector<uint8_t> moved = fr32_pad(one_bit);
  for (size_t i = 0; i < 128; ++i) CHECK(moved[i] == (i == 32 ? 1 : 0));

  std::mt19937 rng(7);
  std::vector<uint8_t> data(127 * 5);
  for (uint8_t& b : data) b = static_cast<uint8_t>(rng());
  const std::vector<uint8_t> p = fr32_pad(data);
  REQUIRE(p.size() == 128 * 5);
  Result<std::vector<uint8_t>> back = fr32_unpad(p, data.size());
  REQUIRE(back.ok());
  CHECK(*back == data);
  for (size_t c = 0; c < p.size() / 32; ++c) CHECK((p[c * 32 + 31] & 0xc0) == 0);

  std::vector<uint8_t> bad = p;
  bad[64 + 31] |= 0x80;
  Result<std::vector<uint8_t>> refused = fr32_unpad(bad, data.size());
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::Contains("offset 64"));
  CHECK(padded_piece_size(2032) == 2048);
  CHECK(unpadded_piece_size(2048) == 2032);
  CHECK(padded_piece_size(2000) == 0);
}

TEST_CASE("Filecoin hashes: BLAKE2b-512 (RFC 7693 appendix A) in one piece and streamed",
          "[filecoin]") {
  const std::vector<uint8_t> abc = {'a', 'b', 'c'};
  const std::string expected =
      "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533"
      "cc9518d38aa8dbf1925ab92386edd4009923";
  CHECK(to_hex(blake2b512(abc)) == expected);
  Blake2b512 h;
  h.update("a", 1);
  h.update("bc", 2);
  CHECK(to_hex(h.finish()) == expected);
  h.update("abc", 3);  // finish() started over
  CHECK(to_hex(h.finish()) == expected);
}

TEST_CASE("Filecoin domains: little-endian Fr, refused at or above r", "[filecoin]") {
  const Fr x = Fr::from_u64(0x0102030405060708ull);
  const Domain d = domain_from_fr(x);
  CHECK(d[0] == 0x08);
  CHECK(d[7] == 0x01);
  CHECK(d[31] == 0);
  CHECK(*fr_from_domain(d) == x);
  // r itself, little-endian.
  Domain r = testdata::domain("01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73");
  Result<Fr> refused = fr_from_domain(r, "comm_r");
  REQUIRE_FALSE(refused.ok());
  CHECK_THAT(refused.status().message(), Catch::StartsWith("comm_r: 0x73eda753"));
}

}  // namespace
}  // namespace zkpipe::filecoin
