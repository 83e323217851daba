// tests/filecoin/filecoin_data.h: reading the Filecoin test data under tests/filecoin/data/
// (where each file came from: data/SOURCES.md): JSON files, binary files, hex strings.
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "zkpipe/filecoin/hashes.h"

namespace zkpipe::filecoin::testdata {

inline std::string path(const std::string& name) {
  // Appended, not `std::string(MACRO) + ...`: GCC 12 warns falsely (-Warray-bounds) on that.
  std::string p(ZKPIPE_SOURCE_DIR);
  return p.append("/tests/filecoin/data/").append(name);
}

inline std::vector<uint8_t> bytes(const std::string& name) {
  std::ifstream in(path(name), std::ios::binary);
  INFO(path(name));
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline nlohmann::json json(const std::string& name) {
  const std::vector<uint8_t> text = bytes(name);
  return nlohmann::json::parse(text.begin(), text.end());
}

// Hex, with or without 0x, two digits a byte.
inline std::vector<uint8_t> unhex(std::string hex) {
  if (hex.rfind("0x", 0) == 0) hex = hex.substr(2);
  REQUIRE(hex.size() % 2 == 0);
  std::vector<uint8_t> out(hex.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) out[i] = std::stoi(hex.substr(2 * i, 2), nullptr, 16);
  return out;
}

inline Domain domain(const std::string& hex) {
  const std::vector<uint8_t> b = unhex(hex);
  REQUIRE(b.size() == 32);
  Domain d;
  std::copy(b.begin(), b.end(), d.begin());
  return d;
}

// An Fr from its canonical big-endian hex ("0x...").
inline Fr fr_be(const std::string& hex) {
  std::string h = hex.rfind("0x", 0) == 0 ? hex.substr(2) : hex;
  h.insert(0, 64 - h.size(), '0');
  Result<Fr> x = Fr::from_hex(h);
  INFO(hex);
  REQUIRE(x.ok());
  return *x;
}

}  // namespace zkpipe::filecoin::testdata
