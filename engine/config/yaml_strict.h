// yaml_strict.h: private to engine/config. Strict, typed reading of a yaml-cpp tree for the
// config loader: one document, plain-string keys, no unknown or duplicate keys, no implicit
// conversions ("yes" is not a bool, "1" in quotes is not an integer), at most 64 levels of maps
// and lists ("nesting too deep", checked before yaml-cpp's recursive parser can go deeper).
// Every error is INVALID_ARGUMENT "<file>:<line>:<column>: <key path>: <what is wrong>" with
// 1-based positions; a quoted value is cut to its first 100 bytes (echo_value in status.h).
// Thread-safety: a YamlReader is immutable after construction; use one per parse.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/config.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::config_detail {

// A value in the tree and where it is.
struct Field {
  std::string key;   // the map key this value belongs to; empty for list items and the root
  std::string path;  // full key path: "memory.preallocate[0].size"; empty for the root
  YAML::Node node;
  YAML::Mark mark;      // of the value; of its key when the value is empty (yaml-cpp gives an
                        // empty value the position of the next token)
  YAML::Mark key_mark;  // of the key; equal to mark for list items and the root
};

class YamlReader {
 public:
  explicit YamlReader(std::string file) : file_(std::move(file)) {}

  // 1-based location of a 0-based yaml-cpp mark; 1:1 when yaml-cpp has no position.
  SourceLocation location(const YAML::Mark& mark) const;

  // INVALID_ARGUMENT "<file>:<line>:<column>: <path>: <message>" ("<path>: " omitted if empty).
  Status error_at(const YAML::Mark& mark, std::string_view path, std::string_view message) const;
  Status error(const Field& field, std::string_view message) const {
    return error_at(field.mark, field.path, message);
  }

  // Parses `text`, which must hold exactly one document whose top level is a map.
  Result<Field> load_root(std::string_view text) const;

  // The first entry of `map` with this key, before any strict check (to read `version` before
  // reporting keys a newer version may have added); nullopt when absent or `map` is no map.
  std::optional<Field> peek(const Field& map, std::string_view key) const;

  // The entries of a map, in file order. Errors: not a map, a key that is not a string, a key
  // not in `allowed` (the message lists them), a key that appears twice.
  Result<std::vector<Field>> map_fields(const Field& map,
                                        std::initializer_list<std::string_view> allowed) const;

  // The entries of a map whose keys are names the caller checks (e.g. proof types), in file
  // order: the same errors as map_fields but for unknown keys.
  Result<std::vector<Field>> map_entries(const Field& map) const;

  // The items of a list; an error when the value is not a list.
  Result<std::vector<Field>> list_items(const Field& list, std::string_view expected) const;

  // Any scalar, plain or quoted; `expected` ("a plugin name") is used in the error.
  Result<std::string> scalar(const Field& field, std::string_view expected) const;

  // A plain decimal integer in [min, max].
  Result<uint64_t> integer(const Field& field, uint64_t min, uint64_t max) const;

  // Plain true or false (also True/TRUE/False/FALSE, as YAML 1.2); not yes/no/on/off.
  Result<bool> boolean(const Field& field) const;

  // One of `options` (the message lists them).
  Result<std::string> choice(const Field& field,
                             std::initializer_list<std::string_view> options) const;

 private:
  Result<std::vector<Field>> map_fields(const Field& map,
                                        std::initializer_list<std::string_view> allowed,
                                        bool any_key) const;
  std::string file_;
};

// The field with this key, or nullptr.
const Field* find_field(const std::vector<Field>& fields, std::string_view key);

// "a, b or c".
std::string join_or(std::initializer_list<std::string_view> words);

}  // namespace zkpipe::config_detail
