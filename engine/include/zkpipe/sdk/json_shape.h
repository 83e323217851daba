// zkpipe/sdk/json_shape.h: a JSON request checked against its proof type's shape while it
// streams (nlohmann's SAX parser), before any tree is built: a key the shape does not list, an
// array longer than its bound or a string outside its length bounds is refused at once, naming
// its path (".proofs[3].challenges[1].path"). So a hostile request costs what its bytes cost:
// an unknown 64 MiB `pad` array used to be parsed into a ~1.5 GiB tree before from_json refused
// it (issue 34 finding 3). decode_request (request.h) runs it when given a shape; what passes is
// bounded by the shape, and from_json still checks every value. Installed with the SDK.
// Thread-safety: JsonShape values are immutable once built; check_json_shape is reentrant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/sdk/status.h"

namespace zkpipe::plugins {

struct JsonShape {
  enum class Kind { kString, kNumber, kBool, kObject, kArray };
  Kind kind = Kind::kNumber;
  size_t min_string = 0, max_string = 0;  // kString: bytes after unescaping
  size_t max_items = 0;                   // kArray
  std::vector<std::string> keys;          // kObject: the keys allowed
  std::vector<JsonShape> children;        // kObject: keys' value shapes; kArray: the item's

  static JsonShape string(size_t min, size_t max);
  static JsonShape number();
  static JsonShape boolean();
  static JsonShape object(std::vector<std::pair<std::string, JsonShape>> fields);
  static JsonShape array(size_t max_items, JsonShape item);
};

inline JsonShape JsonShape::string(size_t min, size_t max) {
  JsonShape s;
  s.kind = Kind::kString;
  s.min_string = min;
  s.max_string = max;
  return s;
}
inline JsonShape JsonShape::number() {
  return JsonShape{};
}
inline JsonShape JsonShape::boolean() {
  JsonShape s;
  s.kind = Kind::kBool;
  return s;
}
inline JsonShape JsonShape::object(std::vector<std::pair<std::string, JsonShape>> fields) {
  JsonShape s;
  s.kind = Kind::kObject;
  for (auto& [key, shape] : fields) {
    s.keys.push_back(std::move(key));
    s.children.push_back(std::move(shape));
  }
  return s;
}
inline JsonShape JsonShape::array(size_t max_items, JsonShape item) {
  JsonShape s;
  s.kind = Kind::kArray;
  s.max_items = max_items;
  s.children.push_back(std::move(item));
  return s;
}

namespace json_shape_detail {

inline const char* kind_name(JsonShape::Kind k) {
  switch (k) {
    case JsonShape::Kind::kString:
      return "a string";
    case JsonShape::Kind::kNumber:
      return "a number";
    case JsonShape::Kind::kBool:
      return "true or false";
    case JsonShape::Kind::kObject:
      return "an object";
    case JsonShape::Kind::kArray:
      return "an array";
  }
  return "a value";
}

// nlohmann's SAX interface. Each value is held to the shape its place expects; returning false
// stops the parse at once, with `error` set.
class ShapeSax {
 public:
  explicit ShapeSax(const JsonShape& root) : root_(root) {}
  std::string error;

  bool null() { return value(nullptr, "null"); }
  bool boolean(bool) { return value(JsonShape::Kind::kBool, "true or false"); }
  bool number_integer(int64_t) { return value(JsonShape::Kind::kNumber, "a number"); }
  bool number_unsigned(uint64_t) { return value(JsonShape::Kind::kNumber, "a number"); }
  bool number_float(double, const std::string&) {
    return value(JsonShape::Kind::kNumber, "a number");
  }
  bool binary(nlohmann::json::binary_t&) { return fail(path(), "binary values are not JSON"); }
  bool string(std::string& s) {
    const JsonShape* want = expect();
    if (want == nullptr) return false;
    if (want->kind != JsonShape::Kind::kString) return wrong(*want, "a string");
    if (s.size() < want->min_string || s.size() > want->max_string) {
      return fail(where_, want->min_string == want->max_string
                              ? "must be " + std::to_string(want->max_string) + " characters"
                              : "must be " + std::to_string(want->min_string) + " to " +
                                    std::to_string(want->max_string) + " characters");
    }
    return true;
  }
  bool start_object(size_t) {
    const JsonShape* want = expect();
    if (want == nullptr) return false;
    if (want->kind != JsonShape::Kind::kObject) return wrong(*want, "an object");
    stack_.push_back({want, where_, 0, nullptr, {}});
    return true;
  }
  bool key(std::string& k) {
    Frame& f = stack_.back();
    for (size_t i = 0; i < f.shape->keys.size(); ++i) {
      if (f.shape->keys[i] == k) {
        f.next = &f.shape->children[i];
        f.key = k;
        return true;
      }
    }
    std::string allowed;
    for (const std::string& name : f.shape->keys) allowed += (allowed.empty() ? "" : ", ") + name;
    return fail(f.path + "." + echo_value(k), "unknown key (allowed: " + allowed + ")");
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(size_t) {
    const JsonShape* want = expect();
    if (want == nullptr) return false;
    if (want->kind != JsonShape::Kind::kArray) return wrong(*want, "an array");
    stack_.push_back({want, where_, 0, nullptr, {}});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(size_t byte, const std::string&, const nlohmann::detail::exception& e) {
    error = "not valid JSON: byte " + std::to_string(byte) + ": " + echo_value(e.what());
    return false;
  }

 private:
  struct Frame {
    const JsonShape* shape;
    std::string path;
    size_t count;           // arrays: items so far
    const JsonShape* next;  // objects: the shape of the value after the last key
    std::string key;
  };

  std::string path() const { return stack_.empty() ? "" : stack_.back().path; }

  // The shape the next value must have, with where_ set to its path; null (error set) when
  // an array is over its bound.
  const JsonShape* expect() {
    if (stack_.empty()) {
      where_ = "";
      return &root_;
    }
    Frame& f = stack_.back();
    if (f.shape->kind == JsonShape::Kind::kObject) {
      where_ = f.path + "." + f.key;
      return f.next;
    }
    if (f.count == f.shape->max_items) {
      fail(f.path, "more than " + std::to_string(f.shape->max_items) + " entries");
      return nullptr;
    }
    where_ = f.path + "[" + std::to_string(f.count++) + "]";
    return &f.shape->children.front();
  }

  bool value(JsonShape::Kind kind, const char* what) {
    const JsonShape* want = expect();
    if (want == nullptr) return false;
    return want->kind == kind ? true : wrong(*want, what);
  }
  bool value(std::nullptr_t, const char* what) {
    const JsonShape* want = expect();
    return want == nullptr ? false : wrong(*want, what);
  }
  bool wrong(const JsonShape& want, const char* got) {
    return fail(where_, std::string("must be ") + kind_name(want.kind) + ", not " + got);
  }
  bool fail(const std::string& at, const std::string& message) {
    error = (at.empty() ? std::string("the request") : at) + ": " + message;
    return false;
  }

  const JsonShape& root_;
  std::vector<Frame> stack_;
  std::string where_;
};

}  // namespace json_shape_detail

// INVALID_ARGUMENT "<what>: <path>: <why>" (or "<what>: not valid JSON: byte N: ...") unless
// `bytes` is one JSON value of `shape`. Memory: the parser's own stack and the longest string.
inline Status check_json_shape(std::span<const uint8_t> bytes, const JsonShape& shape,
                               const std::string& what) {
  json_shape_detail::ShapeSax sax(shape);
  bool ok = false;
  try {
    ok = nlohmann::json::sax_parse(bytes.begin(), bytes.end(), &sax);
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(what + ": not valid JSON: " + echo_value(e.what()));
  }
  if (!ok) return invalid_argument(what + ": " + sax.error);
  return ok_status();
}

}  // namespace zkpipe::plugins
