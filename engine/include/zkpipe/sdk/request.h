// zkpipe/sdk/request.h: a vanilla-proof request is binary, or JSON when its first
// non-blank byte is '{'. decode_request picks the decoder; JSON syntax errors name the byte, no
// JSON input makes it throw, and JSON nested deeper than kMaxJsonDepth is refused before it is
// parsed ("nesting too deep", naming the byte). Installed with the SDK as zkpipe/sdk/request.h
// (needs nlohmann_json).
// Thread-safety: reentrant.
#pragma once

#include <cctype>
#include <cstdint>
#include <span>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "zkpipe/sdk/json_shape.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::plugins {

// More levels of objects and arrays than any vanilla proof has (7).
inline constexpr size_t kMaxJsonDepth = 32;

// The byte offset of the first '{' or '[' that opens level kMaxJsonDepth + 1 (outside strings),
// or npos: one linear pass, so neither the parser nor anything walking the tree goes deep.
inline size_t too_deep_at(std::span<const uint8_t> bytes) {
  size_t depth = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const uint8_t c = bytes[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxJsonDepth) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::string::npos;
}

// Decode: Result<V>(std::span<const uint8_t>, const std::string&);
// FromJson: Result<V>(const nlohmann::json&, const std::string&).
// `shape` (json_shape.h; may be null): JSON is held to it while it streams, before the tree is
// built, so unknown keys and oversized arrays or strings cost no memory.
template <typename Decode, typename FromJson>
auto decode_request(std::span<const uint8_t> bytes, const std::string& what, const JsonShape* shape,
                    Decode&& decode, FromJson&& from_json) -> decltype(decode(bytes, what)) {
  size_t i = 0;
  while (i < bytes.size() && std::isspace(bytes[i])) ++i;
  if (i == bytes.size() || bytes[i] != '{') return decode(bytes, what);
  if (const size_t at = too_deep_at(bytes.subspan(i)); at != std::string::npos) {
    return invalid_argument(what + ": not valid JSON: byte " + std::to_string(i + at) +
                            ": nesting too deep (more than " + std::to_string(kMaxJsonDepth) +
                            " levels of objects and arrays)");
  }
  if (shape != nullptr) ZKP_RETURN_IF_ERROR(check_json_shape(bytes.subspan(i), *shape, what));
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(bytes.begin(), bytes.end());
  } catch (const nlohmann::json::parse_error& e) {
    // The message quotes the last token read, which may be a whole 3 MB string.
    return invalid_argument(what + ": not valid JSON: byte " + std::to_string(e.byte) + ": " +
                            echo_value(e.what()));
  } catch (const nlohmann::json::exception& e) {
    // Not only syntax: a number beyond a double ("1e999") throws out_of_range (406).
    return invalid_argument(what + ": not valid JSON: " + echo_value(e.what()));
  }
  return from_json(j, what);
}

template <typename Decode, typename FromJson>
auto decode_request(std::span<const uint8_t> bytes, const std::string& what, Decode&& decode,
                    FromJson&& from_json) -> decltype(decode(bytes, what)) {
  return decode_request(bytes, what, nullptr, std::forward<Decode>(decode),
                        std::forward<FromJson>(from_json));
}

}  // namespace zkpipe::plugins
