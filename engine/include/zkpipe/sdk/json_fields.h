// zkpipe/sdk/json_fields.h: typed reads from the JSON form of vanilla proofs. Every error
// names the input (`what`) and the JSON path of the key (".partitions[1].challenges[0].data");
// an object with a key its format does not have is refused (only_keys), as the YAML config is.
// Field elements are "0x" + 64 hex digits, big-endian canonical. Installed with the SDK as
// zkpipe/sdk/json_fields.h (needs nlohmann_json).
// Thread-safety: const methods; reentrant.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::plugins {

inline std::string fr_hex(const crypto::Fr& x) {
  return "0x" + x.to_hex();
}

inline nlohmann::json fr_hexes(const std::vector<crypto::Fr>& xs) {
  nlohmann::json a = nlohmann::json::array();
  for (const crypto::Fr& x : xs) a.push_back(fr_hex(x));
  return a;
}

inline std::string bytes_hex(const std::array<uint8_t, 32>& b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  for (uint8_t x : b) {
    s += kDigits[x >> 4];
    s += kDigits[x & 15];
  }
  return s;
}

// Reads with the JSON path of every key in the error.
class JsonReader {
 public:
  explicit JsonReader(const std::string& what) : what_(what) {}

  Status error(const std::string& path, const std::string& m) const {
    return invalid_argument(what_ + ": " + path + ": " + m);
  }
  // `obj` (at `path`, "" for the top level) is an object whose every key is in `allowed`; an
  // unknown key is named by its path: ".shape.extra: unknown key (allowed: nodes, layers)".
  Status only_keys(const nlohmann::json& obj, const std::string& path,
                   std::initializer_list<std::string_view> allowed) const {
    if (!obj.is_object()) return error(path.empty() ? "." : path, "not an object");
    for (const auto& item : obj.items()) {
      if (std::find(allowed.begin(), allowed.end(), item.key()) != allowed.end()) continue;
      std::string names;
      for (std::string_view a : allowed) names += (names.empty() ? "" : ", ") + std::string(a);
      return error(path + "." + echo_value(item.key()), "unknown key (allowed: " + names + ")");
    }
    return ok_status();
  }
  Result<const nlohmann::json*> at(const nlohmann::json& obj, const std::string& key,
                                   const std::string& path) const {
    if (!obj.is_object() || !obj.contains(key)) return error(path + "." + key, "missing");
    return &obj.at(key);
  }
  Result<uint64_t> u64(const nlohmann::json& obj, const std::string& key,
                       const std::string& path) const {
    ZKP_ASSIGN_OR_RETURN(const nlohmann::json* v, at(obj, key, path));
    if (!v->is_number_unsigned()) return error(path + "." + key, "not an unsigned integer");
    return v->get<uint64_t>();
  }
  Result<uint32_t> u32(const nlohmann::json& obj, const std::string& key,
                       const std::string& path) const {
    ZKP_ASSIGN_OR_RETURN(uint64_t v, u64(obj, key, path));
    if (v > UINT32_MAX) return error(path + "." + key, "above 2^32 - 1");
    return static_cast<uint32_t>(v);
  }
  Result<crypto::Fr> fr(const nlohmann::json& v, const std::string& path) const {
    if (!v.is_string()) return error(path, "not a string");
    std::string s = v.get<std::string>();
    if (s.rfind("0x", 0) == 0) s = s.substr(2);
    auto r = crypto::Fr::from_hex(s);
    if (!r.ok())
      return error(path, "not a canonical field element in hex: " + r.status().message());
    return r.value();
  }
  Result<crypto::Fr> fr(const nlohmann::json& obj, const std::string& key,
                        const std::string& path) const {
    ZKP_ASSIGN_OR_RETURN(const nlohmann::json* v, at(obj, key, path));
    return fr(*v, path + "." + key);
  }
  Status frs(const nlohmann::json& obj, const std::string& key, const std::string& path, size_t n,
             std::vector<crypto::Fr>& out) const {
    ZKP_ASSIGN_OR_RETURN(const nlohmann::json* v, at(obj, key, path));
    if (!v->is_array() || v->size() != n) {
      return error(path + "." + key, "must be an array of " + std::to_string(n) + " elements");
    }
    out.resize(n);
    for (size_t i = 0; i < n; ++i) {
      ZKP_ASSIGN_OR_RETURN(out[i], fr((*v)[i], path + "." + key + "[" + std::to_string(i) + "]"));
    }
    return ok_status();
  }
  // 64 hex digits -> 32 bytes (a seed).
  Status bytes32(const nlohmann::json& obj, const std::string& key, const std::string& path,
                 std::array<uint8_t, 32>& out) const {
    ZKP_ASSIGN_OR_RETURN(const nlohmann::json* v, at(obj, key, path));
    auto digit = [](char c) {
      return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    };
    std::string s = v->is_string() ? v->get<std::string>() : "";
    bool ok = s.size() == 64;
    for (size_t i = 0; ok && i < 32; ++i) {
      int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
      ok = hi >= 0 && lo >= 0;
      out[i] = static_cast<uint8_t>(16 * hi + lo);
    }
    return ok ? ok_status() : error(path + "." + key, "must be 64 lowercase hex digits");
  }

 private:
  const std::string& what_;
};

}  // namespace zkpipe::plugins
