// plugins/filecoin/text_bytes.h (private to zkpipe::filecoin_circuit): bytes a request carries as
// a JSON string, hex (even length, an optional 0x) or, where allowed, base64 (as Lotus writes
// vanilla PoSt proofs). Thread-safety: pure functions.
#pragma once

#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/filecoin/hashes.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::filecoin_circuit {

// INVALID_ARGUMENT naming `field` for anything else.
inline Result<std::vector<uint8_t>> text_bytes(const nlohmann::json& v, const std::string& field,
                                               bool allow_base64) {
  const char* forms = allow_base64 ? "hex or base64" : "hex";
  if (!v.is_string()) return invalid_argument(field + ": not a string (" + forms + ")");
  std::string s = v.get<std::string>();
  if (s.rfind("0x", 0) == 0) s = s.substr(2);
  bool hex = s.size() % 2 == 0;
  for (size_t i = 0; hex && i < s.size(); ++i) hex = filecoin::hex_digit(s[i]) >= 0;
  std::vector<uint8_t> out;
  if (hex) {
    out.resize(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
      out[i] = static_cast<uint8_t>(filecoin::hex_digit(s[2 * i]) * 16 +
                                    filecoin::hex_digit(s[2 * i + 1]));
    }
    return out;
  }
  if (!allow_base64 || s.size() % 4 != 0) return invalid_argument(field + ": not " + forms);
  out.resize(s.size() / 4 * 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(s.data()),
                                static_cast<int>(s.size()));
  if (n < 0) return invalid_argument(field + ": not " + forms);
  size_t pad = 0;
  while (pad < 2 && !s.empty() && s[s.size() - 1 - pad] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace zkpipe::filecoin_circuit
