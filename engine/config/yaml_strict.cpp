// yaml_strict.cpp: strict, typed reading of a yaml-cpp tree (see yaml_strict.h).
// yaml-cpp is lenient in ways a config must not be: it keeps both entries of a duplicated key,
// converts "yes" to true and "1" (quoted) to 1, and gives 0-based marks. This file closes
// those gaps. Thread-safety: no shared state; a YamlReader is read-only.
#include "yaml_strict.h"

#include <yaml-cpp/eventhandler.h>

#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace zkpipe::config_detail {
namespace {

// yaml-cpp tags: "?" for a plain scalar, "!" for a quoted one, the full tag when explicit.
constexpr std::string_view kPlainTag = "?";

// More levels of maps and lists than any config has, and far fewer than yaml-cpp's recursive
// parser (a few stack frames per level) can take.
constexpr int kMaxDepth = 64;

struct TooDeep {
  YAML::Mark mark;  // of the first collection beyond kMaxDepth
};

// Follows the nesting of maps and lists as the parser reports it and stops the parse (throws)
// at the first collection beyond kMaxDepth: the parser announces a collection before it recurses
// into it, so a 10,000-level document never recurses deeper than kMaxDepth.
class DepthCheck final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnSequenceEnd() override { --depth_; }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    enter(mark);
  }
  void OnMapEnd() override { --depth_; }

 private:
  void enter(const YAML::Mark& mark) {
    if (++depth_ > kMaxDepth) throw TooDeep{mark};
  }
  int depth_ = 0;
};

bool has_position(const YAML::Mark& mark) {
  return mark.line >= 0 && mark.column >= 0;
}

// "a map", "a list", "an empty value", "'text'".
std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Scalar:
      return "'" + echo_value(node.Scalar()) + "'";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "an empty value";
}

std::string child_path(const std::string& parent, const std::string& key) {
  return parent.empty() ? key : parent + "." + key;
}

// The entry `key: value` of `map`. An empty value is placed at its key.
Field make_field(const YAML::Node& key, const YAML::Node& value, const Field& map) {
  const YAML::Mark key_mark = has_position(key.Mark()) ? key.Mark() : map.mark;
  const bool value_placed = !value.IsNull() && has_position(value.Mark());
  return Field{key.Scalar(), child_path(map.path, key.Scalar()), value,
               value_placed ? value.Mark() : key_mark, key_mark};
}

}  // namespace

std::string join_or(std::initializer_list<std::string_view> words) {
  std::string out;
  size_t i = 0;
  for (std::string_view word : words) {
    if (i > 0) out += (i + 1 == words.size()) ? " or " : ", ";
    out += word;
    ++i;
  }
  return out;
}

const Field* find_field(const std::vector<Field>& fields, std::string_view key) {
  for (const Field& field : fields) {
    if (field.key == key) return &field;
  }
  return nullptr;
}

SourceLocation YamlReader::location(const YAML::Mark& mark) const {
  SourceLocation loc;
  loc.file = file_;
  loc.line = has_position(mark) ? mark.line + 1 : 1;
  loc.column = has_position(mark) ? mark.column + 1 : 1;
  return loc;
}

Status YamlReader::error_at(const YAML::Mark& mark, std::string_view path,
                            std::string_view message) const {
  std::string text = location(mark).to_string() + ": ";
  if (!path.empty()) text += echo_value(path) + ": ";
  text += message;
  return invalid_argument(std::move(text));
}

Result<Field> YamlReader::load_root(std::string_view text) const {
  std::vector<YAML::Node> docs;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DepthCheck depth;  // a first pass that builds nothing, so the load below never goes deep
    while (parser.HandleNextDocument(depth)) {
    }
    docs = YAML::LoadAll(std::string(text));
  } catch (const TooDeep& e) {
    return error_at(
        e.mark, "",
        "nesting too deep: more than " + std::to_string(kMaxDepth) + " levels of maps and lists");
  } catch (const YAML::Exception& e) {
    return error_at(e.mark, "", "invalid YAML: " + echo_value(e.msg));
  }
  if (docs.size() > 1) {
    return error_at(docs[1].Mark(), "", "a second YAML document; a config holds exactly one");
  }
  if (docs.empty() || docs[0].IsNull()) {
    return error_at(YAML::Mark::null_mark(), "",
                    "empty config; expected a map with at least 'version' and 'memory'");
  }
  const YAML::Node& root = docs[0];
  if (!root.IsMap()) {
    return error_at(root.Mark(), "", "expected a map at the top level, got " + describe(root));
  }
  return Field{"", "", root, root.Mark(), root.Mark()};
}

std::optional<Field> YamlReader::peek(const Field& map, std::string_view key) const {
  if (!map.node.IsMap()) return std::nullopt;
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    if (!it->first.IsScalar() || it->first.Scalar() != key) continue;
    return make_field(it->first, it->second, map);
  }
  return std::nullopt;
}

Result<std::vector<Field>> YamlReader::map_entries(const Field& map) const {
  return map_fields(map, {}, true);
}

Result<std::vector<Field>> YamlReader::map_fields(
    const Field& map, std::initializer_list<std::string_view> allowed) const {
  return map_fields(map, allowed, false);
}

Result<std::vector<Field>> YamlReader::map_fields(const Field& map,
                                                  std::initializer_list<std::string_view> allowed,
                                                  bool any_key) const {
  if (!map.node.IsMap()) return error(map, "expected a map, got " + describe(map.node));
  std::vector<Field> fields;
  std::map<std::string, YAML::Mark, std::less<>> seen;
  for (auto it = map.node.begin(); it != map.node.end(); ++it) {
    const YAML::Node key = it->first;  // a copy: `it->` yields a temporary proxy
    const YAML::Mark key_mark = has_position(key.Mark()) ? key.Mark() : map.mark;
    if (!key.IsScalar()) {
      return error_at(key_mark, map.path, "expected a string key, got " + describe(key));
    }
    const std::string& name = key.Scalar();
    const std::string path = child_path(map.path, name);
    bool known = any_key;
    for (std::string_view a : allowed) known = known || a == name;
    if (!known) {
      const std::string where = map.path.empty() ? "at the top level" : "in '" + map.path + "'";
      return error_at(key_mark, path,
                      "unknown key '" + echo_value(name) + "' (allowed " + where + ": " +
                          join_or(allowed) + ")");
    }
    const auto [first, inserted] = seen.emplace(name, key_mark);
    if (!inserted) {
      const SourceLocation loc = location(first->second);
      return error_at(key_mark, path,
                      "duplicate key '" + echo_value(name) + "' (first at line " +
                          std::to_string(loc.line) + ", column " + std::to_string(loc.column) +
                          ")");
    }
    fields.push_back(make_field(key, it->second, map));
  }
  return fields;
}

Result<std::vector<Field>> YamlReader::list_items(const Field& list,
                                                  std::string_view expected) const {
  if (!list.node.IsSequence()) {
    return error(list, "expected " + std::string(expected) + ", got " + describe(list.node));
  }
  std::vector<Field> items;
  size_t index = 0;
  for (const YAML::Node& item : list.node) {
    const YAML::Mark mark = has_position(item.Mark()) ? item.Mark() : list.mark;
    items.push_back(Field{"", list.path + "[" + std::to_string(index) + "]", item, mark, mark});
    ++index;
  }
  return items;
}

Result<std::string> YamlReader::scalar(const Field& field, std::string_view expected) const {
  if (!field.node.IsScalar()) {
    return error(field, "expected " + std::string(expected) + ", got " + describe(field.node));
  }
  return field.node.Scalar();
}

Result<uint64_t> YamlReader::integer(const Field& field, uint64_t min, uint64_t max) const {
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  ZKP_ASSIGN_OR_RETURN(const std::string text, scalar(field, range));
  if (field.node.Tag() != kPlainTag) {
    return error(field, "expected " + range + ", got the string '" + echo_value(text) +
                            "' (remove the quotes)");
  }
  bool digits = !text.empty();
  uint64_t value = 0;
  bool overflow = false;
  for (char c : text) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (value > (UINT64_MAX - d) / 10) overflow = true;
    if (!overflow) value = value * 10 + d;
  }
  if (!digits || overflow || value < min || value > max) {
    return error(field, "expected " + range + ", got '" + echo_value(text) + "'");
  }
  return value;
}

Result<bool> YamlReader::boolean(const Field& field) const {
  ZKP_ASSIGN_OR_RETURN(const std::string text, scalar(field, "true or false"));
  if (field.node.Tag() == kPlainTag) {
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
  }
  return error(field, "expected true or false, got '" + echo_value(text) + "'");
}

Result<std::string> YamlReader::choice(const Field& field,
                                       std::initializer_list<std::string_view> options) const {
  ZKP_ASSIGN_OR_RETURN(std::string text, scalar(field, "one of " + join_or(options)));
  for (std::string_view option : options) {
    if (option == text) return text;
  }
  return error(field, "unknown value '" + echo_value(text) + "' (use " + join_or(options) + ")");
}

}  // namespace zkpipe::config_detail
