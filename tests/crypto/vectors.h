// tests/crypto/vectors.h: loads the known-answer vectors of tests/vectors/ (made by
// @noble/curves, see tests/vectors/README.md) and turns their hex into field elements and bytes.
// Thread-safety: plain functions; each call reads the file again.
#pragma once

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/crypto/fp2.h"

namespace zkpipe::test {

inline nlohmann::json load_vectors(const std::string& name) {
  // Appended piece by piece: GCC 12 misreads string&& + literal here (-Warray-bounds).
  std::string path = ZKPIPE_SOURCE_DIR;
  path.append("/tests/vectors/").append(name);
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  return nlohmann::json::parse(in);
}

template <typename F>
F field_from_hex(const nlohmann::json& j) {
  auto r = F::from_hex(j.get<std::string>());
  if (!r.ok()) throw std::runtime_error(r.status().to_string());
  return *r;
}

// Bytes from hex ("0a1b..") and back (lower case).
inline std::vector<uint8_t> unhex(const std::string& h) {
  std::vector<uint8_t> out(h.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    out[i] = static_cast<uint8_t>(std::stoi(h.substr(2 * i, 2), nullptr, 16));
  }
  return out;
}
inline std::string hex(const uint8_t* b, size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < n; ++i) s += {kDigits[b[i] >> 4], kDigits[b[i] & 15]};
  return s;
}

inline crypto::Fp2 fp2_from_json(const nlohmann::json& j) {
  return {field_from_hex<crypto::Fp>(j[0]), field_from_hex<crypto::Fp>(j[1])};
}

}  // namespace zkpipe::test
