// Parses <name>.plugin.toml, strictly: every key known, every type right, errors naming
// path:line:column. Thread-safety: pure functions.
#include <regex>
#include <string>

#include <toml++/toml.h>

#include "zkpipe/plugin.h"

namespace zkpipe {
namespace {

std::string where(const std::string& path, const toml::source_region& src) {
  return path + ":" + std::to_string(src.begin.line) + ":" + std::to_string(src.begin.column);
}

Result<std::string> get_string(const std::string& path, const toml::table& t, const char* key,
                               bool required) {
  const toml::node* n = t.get(key);
  if (n == nullptr) {
    if (!required) return std::string();
    return invalid_argument(path + ": missing required key '" + key + "'");
  }
  if (!n->is_string()) {
    return invalid_argument(
        where(path, n->source()) + ": '" + key + "' must be a string, not " +
        std::string(toml::impl::node_type_friendly_names[static_cast<int>(n->type())]));
  }
  return std::string(n->as_string()->get());
}

Status check_keys(const std::string& path, const toml::table& t,
                  std::initializer_list<const char*> allowed, const std::string& section) {
  for (auto&& [k, v] : t) {
    bool known = false;
    for (const char* a : allowed) known = known || k.str() == a;
    if (known) continue;
    std::string list;
    for (const char* a : allowed) list += std::string(list.empty() ? "" : ", ") + a;
    return invalid_argument(where(path, k.source()) + ": unknown key '" + section +
                            std::string(k.str()) + "' (allowed: " + list + ")");
  }
  return ok_status();
}

}  // namespace

uint32_t kind_from_name(const std::string& name) {
  if (name == "memory") return ZKP_KIND_MEMORY;
  if (name == "compute") return ZKP_KIND_COMPUTE;
  if (name == "proof_type") return ZKP_KIND_PROOF_TYPE;
  return 0;
}

const char* kind_name(uint32_t kind) {
  switch (kind) {
    case ZKP_KIND_MEMORY:
      return "memory";
    case ZKP_KIND_COMPUTE:
      return "compute";
    case ZKP_KIND_PROOF_TYPE:
      return "proof_type";
  }
  return "unknown";
}

Result<Manifest> load_manifest(const std::string& path) {
  ZKP_RETURN_IF_ERROR(check_regular_file(path, "plugin manifest"));
  toml::table root;
  try {
    root = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    if (b.line == 0)
      return not_found(path + ": cannot read manifest: " + std::string(e.description()));
    return invalid_argument(path + ":" + std::to_string(b.line) + ":" + std::to_string(b.column) +
                            ": " + std::string(e.description()));
  }
  ZKP_RETURN_IF_ERROR(
      check_keys(path, root, {"name", "kind", "abi", "version", "description", "requires"}, ""));
  Manifest m;
  m.path = path;
  ZKP_ASSIGN_OR_RETURN(m.name, get_string(path, root, "name", true));
  ZKP_ASSIGN_OR_RETURN(m.kind, get_string(path, root, "kind", true));
  ZKP_ASSIGN_OR_RETURN(std::string abi, get_string(path, root, "abi", true));
  ZKP_ASSIGN_OR_RETURN(m.version, get_string(path, root, "version", true));
  ZKP_ASSIGN_OR_RETURN(m.description, get_string(path, root, "description", false));

  static const std::regex kName("[a-z0-9_]+");
  if (!std::regex_match(m.name, kName)) {
    return invalid_argument(where(path, root.get("name")->source()) + ": name '" + m.name +
                            "' must match [a-z0-9_]+");
  }
  if (kind_from_name(m.kind) == 0) {
    return invalid_argument(where(path, root.get("kind")->source()) + ": kind '" + m.kind +
                            "' is not one of memory, compute, proof_type");
  }
  static const std::regex kAbi("([0-9]{1,4})\\.([0-9]{1,4})");
  std::smatch match;
  if (!std::regex_match(abi, match, kAbi)) {
    return invalid_argument(where(path, root.get("abi")->source()) + ": abi '" + abi +
                            "' must be MAJOR.MINOR, e.g. \"1.0\"");
  }
  m.abi_major = static_cast<uint16_t>(std::stoi(match[1]));
  m.abi_minor = static_cast<uint16_t>(std::stoi(match[2]));
  if (m.version.empty()) return invalid_argument(path + ": version must not be empty");

  if (const toml::node* req = root.get("requires")) {
    if (!req->is_table()) {
      return invalid_argument(where(path, req->source()) + ": 'requires' must be a table");
    }
    const toml::table& rt = *req->as_table();
    ZKP_RETURN_IF_ERROR(check_keys(path, rt, {"cuda"}, "requires."));
    if (const toml::node* cuda = rt.get("cuda")) {
      if (!cuda->is_boolean()) {
        return invalid_argument(where(path, cuda->source()) +
                                ": 'requires.cuda' must be true or false");
      }
      m.requires_cuda = cuda->as_boolean()->get();
    }
  }
  return m;
}

}  // namespace zkpipe
