// Filecoin's C1 output as JSON (zkpipe/filecoin_circuit/vanilla_porep.h): parse and encode.
#include "zkpipe/filecoin_circuit/vanilla_porep.h"

#include <nlohmann/json.hpp>

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

// A JSON reader that names where it is: every error carries `what` and the path.
struct JsonReader {
  const std::string& what;

  Status fail(const std::string& path, const std::string& why) const {
    return invalid_argument(what + ": " + path + ": " + why);
  }
  Result<const json*> field(const json& obj, const std::string& path, const char* key) const {
    if (!obj.is_object()) return fail(path, "not an object");
    auto it = obj.find(key);
    if (it == obj.end()) return fail(path + "." + key, "missing");
    return &*it;
  }
  Result<const json*> array(const json& obj, const std::string& path, const char* key) const {
    ZKP_ASSIGN_OR_RETURN(const json* v, field(obj, path, key));
    if (!v->is_array()) return fail(path + "." + key, "not an array");
    return v;
  }
  Result<uint64_t> number(const json& obj, const std::string& path, const char* key,
                          uint64_t max) const {
    ZKP_ASSIGN_OR_RETURN(const json* v, field(obj, path, key));
    if (!v->is_number_unsigned() || v->get<uint64_t>() > max) {
      return fail(path + "." + key, "not a number in 0.." + std::to_string(max));
    }
    return v->get<uint64_t>();
  }
  // A domain: an array of 32 bytes; `fr`: a canonical field element too.
  Result<Domain> domain(const json& v, const std::string& path, bool fr = true) const {
    if (!v.is_array() || v.size() != 32) return fail(path, "not an array of 32 bytes");
    Domain d;
    for (size_t i = 0; i < 32; ++i) {
      if (!v[i].is_number_unsigned() || v[i].get<uint64_t>() > 255) {
        return fail(path + "[" + std::to_string(i) + "]", "not a byte");
      }
      d[i] = static_cast<uint8_t>(v[i].get<uint64_t>());
    }
    if (fr && !filecoin::fr_from_domain(d).ok()) return fail(path, "not a canonical field element");
    return d;
  }
  Result<Domain> domain_field(const json& obj, const std::string& path, const char* key,
                              bool fr = true) const {
    ZKP_ASSIGN_OR_RETURN(const json* v, field(obj, path, key));
    return domain(*v, path + "." + key, fr);
  }
  Result<std::vector<Domain>> domains(const json& obj, const std::string& path,
                                      const char* key) const {
    ZKP_ASSIGN_OR_RETURN(const json* v, array(obj, path, key));
    std::vector<Domain> out;
    out.reserve(v->size());
    for (size_t i = 0; i < v->size(); ++i) {
      ZKP_ASSIGN_OR_RETURN(Domain d,
                           domain((*v)[i], path + "." + key + "[" + std::to_string(i) + "]"));
      out.push_back(d);
    }
    return out;
  }

  Result<std::vector<PathElement>> inclusion_path(const json& obj, const std::string& path,
                                                  const char* key,
                                                  std::vector<Domain>& hashes) const {
    ZKP_ASSIGN_OR_RETURN(const json* p, field(obj, path, key));
    const std::string at = path + "." + key;
    ZKP_ASSIGN_OR_RETURN(const json* elements, array(*p, at, "path"));
    std::vector<PathElement> out;
    for (size_t i = 0; i < elements->size(); ++i) {
      const std::string e_at = at + ".path[" + std::to_string(i) + "]";
      ZKP_ASSIGN_OR_RETURN(std::vector<Domain> h, domains((*elements)[i], e_at, "hashes"));
      if (h.empty() || h.size() > 35) return fail(e_at + ".hashes", "not 1..35 siblings");
      ZKP_ASSIGN_OR_RETURN(uint64_t index, number((*elements)[i], e_at, "index", h.size()));
      PathElement e;
      e.position = static_cast<uint32_t>(index);
      for (const Domain& d : h) {
        e.siblings.push_back(*filecoin::fr_from_domain(d));
        hashes.push_back(d);
      }
      out.push_back(std::move(e));
    }
    return out;
  }

  Result<InclusionProof> merkle_proof(const json& v, const std::string& path) const {
    ZKP_ASSIGN_OR_RETURN(const json* data, field(v, path, "data"));
    const std::string at = path + ".data";
    if (!data->is_object() || data->size() != 1) {
      return fail(at, "not an object of one of Single, Sub, Top");
    }
    const std::string kind = data->begin().key();
    const json& body = data->begin().value();
    const std::string b_at = at + "." + kind;
    std::vector<const char*> parts;
    if (kind == "Single") {
      parts = {"path"};
    } else if (kind == "Sub") {
      parts = {"base_proof", "sub_proof"};
    } else if (kind == "Top") {
      parts = {"base_proof", "sub_proof", "top_proof"};
    } else {
      return fail(at, "unknown proof kind \"" + kind + "\" (Single, Sub, Top)");
    }
    InclusionProof p;
    for (const char* part : parts) {
      p.hashes.emplace_back();
      ZKP_ASSIGN_OR_RETURN(std::vector<PathElement> elements,
                           inclusion_path(body, b_at, part, p.hashes.back()));
      p.paths.push_back(std::move(elements));
    }
    ZKP_ASSIGN_OR_RETURN(p.root, domain_field(body, b_at, "root"));
    ZKP_ASSIGN_OR_RETURN(p.leaf, domain_field(body, b_at, "leaf"));
    return p;
  }

  Result<ColumnProof> column_proof(const json& v, const std::string& path) const {
    ColumnProof c;
    ZKP_ASSIGN_OR_RETURN(const json* column, field(v, path, "column"));
    ZKP_ASSIGN_OR_RETURN(uint64_t index, number(*column, path + ".column", "index", UINT32_MAX));
    c.index = static_cast<uint32_t>(index);
    ZKP_ASSIGN_OR_RETURN(c.rows, domains(*column, path + ".column", "rows"));
    ZKP_ASSIGN_OR_RETURN(const json* inclusion, field(v, path, "inclusion_proof"));
    ZKP_ASSIGN_OR_RETURN(c.inclusion, merkle_proof(*inclusion, path + ".inclusion_proof"));
    return c;
  }

  Result<std::vector<ColumnProof>> column_proofs(const json& obj, const std::string& path,
                                                 const char* key) const {
    ZKP_ASSIGN_OR_RETURN(const json* v, array(obj, path, key));
    std::vector<ColumnProof> out;
    for (size_t i = 0; i < v->size(); ++i) {
      ZKP_ASSIGN_OR_RETURN(ColumnProof c,
                           column_proof((*v)[i], path + "." + key + "[" + std::to_string(i) + "]"));
      out.push_back(std::move(c));
    }
    return out;
  }

  Result<LabelingProof> labeling(const json& v, const std::string& path) const {
    LabelingProof l;
    ZKP_ASSIGN_OR_RETURN(l.parents, domains(v, path, "parents"));
    ZKP_ASSIGN_OR_RETURN(uint64_t layer, number(v, path, "layer_index", UINT32_MAX));
    l.layer_index = static_cast<uint32_t>(layer);
    ZKP_ASSIGN_OR_RETURN(l.node, number(v, path, "node", UINT64_MAX));
    return l;
  }

  Result<SealVanillaProof> seal_proof(const json& v, const std::string& path) const {
    SealVanillaProof p;
    ZKP_ASSIGN_OR_RETURN(const json* d, field(v, path, "comm_d_proofs"));
    ZKP_ASSIGN_OR_RETURN(p.comm_d, merkle_proof(*d, path + ".comm_d_proofs"));
    ZKP_ASSIGN_OR_RETURN(const json* r, field(v, path, "comm_r_last_proof"));
    ZKP_ASSIGN_OR_RETURN(p.comm_r_last, merkle_proof(*r, path + ".comm_r_last_proof"));
    ZKP_ASSIGN_OR_RETURN(const json* rcp, field(v, path, "replica_column_proofs"));
    const std::string rcp_at = path + ".replica_column_proofs";
    ZKP_ASSIGN_OR_RETURN(const json* c_x, field(*rcp, rcp_at, "c_x"));
    ZKP_ASSIGN_OR_RETURN(p.c_x, column_proof(*c_x, rcp_at + ".c_x"));
    ZKP_ASSIGN_OR_RETURN(p.drg_parents, column_proofs(*rcp, rcp_at, "drg_parents"));
    ZKP_ASSIGN_OR_RETURN(p.exp_parents, column_proofs(*rcp, rcp_at, "exp_parents"));
    ZKP_ASSIGN_OR_RETURN(const json* labels, array(v, path, "labeling_proofs"));
    for (size_t i = 0; i < labels->size(); ++i) {
      ZKP_ASSIGN_OR_RETURN(LabelingProof l, labeling((*labels)[i], path + ".labeling_proofs[" +
                                                                       std::to_string(i) + "]"));
      p.labeling.push_back(std::move(l));
    }
    ZKP_ASSIGN_OR_RETURN(const json* e, field(v, path, "encoding_proof"));
    ZKP_ASSIGN_OR_RETURN(p.encoding, labeling(*e, path + ".encoding_proof"));
    return p;
  }
};

json domain_json(const Domain& d) {
  return json(std::vector<int>(d.begin(), d.end()));
}

json domains_json(const std::vector<Domain>& ds) {
  json out = json::array();
  for (const Domain& d : ds) out.push_back(domain_json(d));
  return out;
}

json merkle_json(const InclusionProof& p) {
  static const char* const kParts[] = {"base_proof", "sub_proof", "top_proof"};
  json body = json::object();
  for (size_t part = 0; part < p.paths.size(); ++part) {
    json elements = json::array();
    size_t h = 0;
    for (const PathElement& e : p.paths[part]) {
      json hashes = json::array();
      for (size_t k = 0; k < e.siblings.size(); ++k)
        hashes.push_back(domain_json(p.hashes[part][h++]));
      elements.push_back({{"hashes", hashes}, {"index", e.position}});
    }
    body[p.paths.size() == 1 ? "path" : kParts[part]] = {{"path", elements}};
  }
  body["root"] = domain_json(p.root);
  body["leaf"] = domain_json(p.leaf);
  const char* kind = p.paths.size() == 1 ? "Single" : p.paths.size() == 2 ? "Sub" : "Top";
  return {{"data", {{kind, body}}}};
}

json column_json(const ColumnProof& c) {
  return {{"column", {{"index", c.index}, {"rows", domains_json(c.rows)}, {"_h", nullptr}}},
          {"inclusion_proof", merkle_json(c.inclusion)}};
}

json labeling_json(const LabelingProof& l) {
  return {{"parents", domains_json(l.parents)}, {"layer_index", l.layer_index}, {"node", l.node}};
}

}  // namespace

std::string vanilla_seal_key(uint64_t sector_size) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {uint64_t{2} << 10, "2KiB"},   {uint64_t{8} << 20, "8MiB"},   {uint64_t{512} << 20, "512MiB"},
      {uint64_t{32} << 30, "32GiB"}, {uint64_t{64} << 30, "64GiB"},
  };
  for (const auto& [bytes, name] : kNames) {
    if (bytes == sector_size) return std::string("StackedDrg") + name + "V1";
  }
  return "";
}

Result<Commit1Output> parse_commit1_output(std::span<const uint8_t> bytes,
                                           const std::string& what) {
  const json j = json::parse(bytes.begin(), bytes.end(), nullptr, false);
  if (j.is_discarded() || !j.is_object()) return invalid_argument(what + ": not a JSON object");
  return parse_commit1_json(j, what);
}

Result<Commit1Output> parse_commit1_json(const json& j, const std::string& what) {
  if (!j.is_object()) return invalid_argument(what + ": not a JSON object");
  const JsonReader r{what};
  Commit1Output c;
  ZKP_ASSIGN_OR_RETURN(const json* name, r.field(j, "$", "registered_proof"));
  if (!name->is_string()) return r.fail("$.registered_proof", "not a string");
  c.registered_proof = name->get<std::string>();
  Result<filecoin::PorepConfig> config = filecoin::registered_porep(c.registered_proof);
  if (!config.ok()) return r.fail("$.registered_proof", config.status().message());
  c.config = *config;
  ZKP_ASSIGN_OR_RETURN(c.comm_r, r.domain_field(j, "$", "comm_r"));
  ZKP_ASSIGN_OR_RETURN(c.comm_d, r.domain_field(j, "$", "comm_d"));
  ZKP_ASSIGN_OR_RETURN(c.replica_id, r.domain_field(j, "$", "replica_id"));
  ZKP_ASSIGN_OR_RETURN(c.seed, r.domain_field(j, "$", "seed", false));
  ZKP_ASSIGN_OR_RETURN(c.ticket, r.domain_field(j, "$", "ticket", false));

  ZKP_ASSIGN_OR_RETURN(const json* vp, r.field(j, "$", "vanilla_proofs"));
  const std::string key = vanilla_seal_key(c.config.sector_size);
  if (!vp->is_object() || vp->size() != 1) {
    return r.fail("$.vanilla_proofs", "not an object with the one key \"" + key + "\"");
  }
  if (vp->begin().key() != key) {
    return r.fail("$.vanilla_proofs", "holds \"" + vp->begin().key() + "\" proofs; " +
                                          c.registered_proof + " needs \"" + key + "\"");
  }
  const json& partitions = vp->begin().value();
  const std::string at = "$.vanilla_proofs." + key;
  if (!partitions.is_array()) return r.fail(at, "not an array of partitions");
  for (size_t k = 0; k < partitions.size(); ++k) {
    const std::string k_at = at + "[" + std::to_string(k) + "]";
    if (!partitions[k].is_array()) return r.fail(k_at, "not an array of challenge proofs");
    std::vector<SealVanillaProof> proofs;
    for (size_t i = 0; i < partitions[k].size(); ++i) {
      ZKP_ASSIGN_OR_RETURN(SealVanillaProof p,
                           r.seal_proof(partitions[k][i], k_at + "[" + std::to_string(i) + "]"));
      proofs.push_back(std::move(p));
    }
    c.vanilla_proofs.push_back(std::move(proofs));
  }
  return c;
}

std::string encode_commit1_output(const Commit1Output& c) {
  json partitions = json::array();
  for (const std::vector<SealVanillaProof>& part : c.vanilla_proofs) {
    json proofs = json::array();
    for (const SealVanillaProof& p : part) {
      json drg = json::array(), exp = json::array(), labels = json::array();
      for (const ColumnProof& col : p.drg_parents) drg.push_back(column_json(col));
      for (const ColumnProof& col : p.exp_parents) exp.push_back(column_json(col));
      for (const LabelingProof& l : p.labeling) labels.push_back(labeling_json(l));
      proofs.push_back({{"comm_d_proofs", merkle_json(p.comm_d)},
                        {"comm_r_last_proof", merkle_json(p.comm_r_last)},
                        {"replica_column_proofs",
                         {{"c_x", column_json(p.c_x)}, {"drg_parents", drg}, {"exp_parents", exp}}},
                        {"labeling_proofs", labels},
                        {"encoding_proof", labeling_json(p.encoding)}});
    }
    partitions.push_back(std::move(proofs));
  }
  const json j = {{"registered_proof", c.registered_proof},
                  {"vanilla_proofs", {{vanilla_seal_key(c.config.sector_size), partitions}}},
                  {"comm_r", domain_json(c.comm_r)},
                  {"comm_d", domain_json(c.comm_d)},
                  {"replica_id", domain_json(c.replica_id)},
                  {"seed", domain_json(c.seed)},
                  {"ticket", domain_json(c.ticket)}};
  return j.dump();
}

}  // namespace zkpipe::filecoin_circuit
