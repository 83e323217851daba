// plugins/common/request.h: a vanilla-proof request is binary, or JSON when its first
// non-blank byte is '{'. decode_request picks the decoder; JSON syntax errors name the byte, and
// no JSON input makes it throw.
// Thread-safety: reentrant.
#pragma once

#include <cctype>
#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "zkpipe/status.h"

namespace zkpipe::plugins {

// Decode: Result<V>(std::span<const uint8_t>, const std::string&);
// FromJson: Result<V>(const nlohmann::json&, const std::string&).
template <typename Decode, typename FromJson>
auto decode_request(std::span<const uint8_t> bytes, const std::string& what, Decode&& decode,
                    FromJson&& from_json) -> decltype(decode(bytes, what)) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(bytes[i])) ++i;
  if (i == bytes.size() || bytes[i] != '{') return decode(bytes, what);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    return invalid_argument(what + ": not valid JSON: byte " + std::to_string(e.byte) + ": " +
                            e.what());
  } catch (const nlohmann::json::exception& e) {
    // Not only syntax: a number beyond a double ("1e999") throws out_of_range (406).
    return invalid_argument(what + ": not valid JSON: " + e.what());
  }
  return from_json(j, what);
}

}  // namespace zkpipe::plugins
