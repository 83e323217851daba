// curio's binary form of Filecoin's C1 output (zkpipe/filecoin_circuit/vanilla_porep.h): parse
// (every error names the field path and the byte offset) and encode.
#include <cstring>

#include "zkpipe/filecoin_circuit/vanilla_porep.h"

namespace zkpipe::filecoin_circuit {
namespace {

constexpr uint64_t kMaxCount = uint64_t{1} << 20;  // no C1 output holds more of anything
constexpr uint64_t kMaxSiblings = 35;              // an arity of 36 at most

class BinaryReader {
 public:
  BinaryReader(std::span<const uint8_t> b, const std::string& what) : b_(b), what_(what) {}

  Status fail(const std::string& field, const std::string& why) const {
    return fail_at(at_, field, why);
  }
  Status fail_at(size_t offset, const std::string& field, const std::string& why) const {
    return invalid_argument(what_ + ": " + field + " at byte " + std::to_string(offset) + ": " +
                            why);
  }
  size_t offset() const { return at_; }
  // An unsigned LEB128 varint (Go's binary.Uvarint): at most 10 bytes, no bits past 64.
  Result<uint64_t> uvarint(const std::string& field) {
    uint64_t v = 0;
    for (unsigned i = 0, shift = 0; i < 10; ++i, shift += 7) {
      if (at_ + i >= b_.size()) return fail(field, "truncated (a varint)");
      const uint8_t byte = b_[at_ + i];
      if (i == 9 && byte > 1) return fail(field, "a varint beyond 64 bits");
      v |= uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80) == 0) {
        at_ += i + 1;
        return v;
      }
    }
    return fail(field, "a varint beyond 64 bits");
  }
  // A count of elements of at least `min_bytes` each.
  Result<uint64_t> count(const std::string& field, uint64_t min_bytes) {
    const size_t start = at_;
    ZKP_ASSIGN_OR_RETURN(uint64_t n, uvarint(field));
    if (n > kMaxCount || n * min_bytes > b_.size() - at_) {
      at_ = start;
      return fail(field, "a count of " + std::to_string(n) + " is more than the bytes can hold");
    }
    return n;
  }
  Result<uint64_t> fixed(const std::string& field, size_t width) {
    if (b_.size() - at_ < width) {
      return fail(field, "truncated (" + std::to_string(width) + " bytes needed)");
    }
    uint64_t v = 0;
    for (size_t i = 0; i < width; ++i) v |= uint64_t{b_[at_ + i]} << (8 * i);
    at_ += width;
    return v;
  }
  Result<Domain> bytes32(const std::string& field, bool fr) {
    if (b_.size() - at_ < 32) return fail(field, "truncated (32 bytes needed)");
    Domain d;
    std::memcpy(d.data(), b_.data() + at_, 32);
    if (fr && !filecoin::fr_from_domain(d).ok()) {
      return fail(field, "not a canonical field element");
    }
    at_ += 32;
    return d;
  }
  Result<std::string> string(const std::string& field) {
    ZKP_ASSIGN_OR_RETURN(uint64_t n, count(field + ".len", 1));
    std::string s(reinterpret_cast<const char*>(b_.data() + at_), n);
    at_ += n;
    return s;
  }
  Status done() const {
    if (at_ == b_.size()) return ok_status();
    return fail("end", std::to_string(b_.size() - at_) + " bytes after the C1 output");
  }

  Result<std::vector<PathElement>> path(const std::string& field, std::vector<Domain>& hashes) {
    ZKP_ASSIGN_OR_RETURN(uint64_t n, count(field + ".path.len", 2));
    std::vector<PathElement> out;
    for (uint64_t i = 0; i < n; ++i) {
      const std::string at = field + ".path[" + std::to_string(i) + "]";
      const size_t hashes_at = at_;
      ZKP_ASSIGN_OR_RETURN(uint64_t m, count(at + ".hashes.len", 32));
      if (m == 0 || m > kMaxSiblings) {
        return fail_at(hashes_at, at + ".hashes", "not 1..35 siblings");
      }
      PathElement e;
      for (uint64_t j = 0; j < m; ++j) {
        ZKP_ASSIGN_OR_RETURN(Domain h, bytes32(at + ".hashes[" + std::to_string(j) + "]", true));
        e.siblings.push_back(*filecoin::fr_from_domain(h));
        hashes.push_back(h);
      }
      const size_t index_at = at_;
      ZKP_ASSIGN_OR_RETURN(uint64_t index, uvarint(at + ".index"));
      if (index > m) {
        return fail_at(index_at, at + ".index", "not a number in 0.." + std::to_string(m));
      }
      e.position = static_cast<uint32_t>(index);
      out.push_back(std::move(e));
    }
    return out;
  }

  Result<InclusionProof> merkle(const std::string& field) {
    const size_t start = at_;
    ZKP_ASSIGN_OR_RETURN(uint64_t kind, uvarint(field + ".data"));
    static const char* const kParts[3][3] = {{"path", nullptr, nullptr},
                                             {"base_proof", "sub_proof", nullptr},
                                             {"base_proof", "sub_proof", "top_proof"}};
    static const char* const kKinds[3] = {"Single", "Sub", "Top"};
    if (kind > 2) {
      return fail_at(start, field + ".data",
                     "unknown proof kind " + std::to_string(kind) + " (0 Single, 1 Sub, 2 Top)");
    }
    const std::string at = field + ".data." + kKinds[kind];
    InclusionProof p;
    auto read_paths = [&]() -> Status {
      for (const char* part : kParts[kind]) {
        if (part == nullptr) break;
        p.hashes.emplace_back();
        ZKP_ASSIGN_OR_RETURN(std::vector<PathElement> e, path(at + "." + part, p.hashes.back()));
        p.paths.push_back(std::move(e));
      }
      return ok_status();
    };
    if (kind == 0) {  // Single: root, leaf, path
      ZKP_ASSIGN_OR_RETURN(p.root, bytes32(at + ".root", true));
      ZKP_ASSIGN_OR_RETURN(p.leaf, bytes32(at + ".leaf", true));
      ZKP_RETURN_IF_ERROR(read_paths());
    } else {  // Sub, Top: the paths, then root and leaf
      ZKP_RETURN_IF_ERROR(read_paths());
      ZKP_ASSIGN_OR_RETURN(p.root, bytes32(at + ".root", true));
      ZKP_ASSIGN_OR_RETURN(p.leaf, bytes32(at + ".leaf", true));
    }
    return p;
  }

  Result<ColumnProof> column(const std::string& field) {
    ColumnProof c;
    ZKP_ASSIGN_OR_RETURN(uint64_t index, fixed(field + ".column.index", 4));
    c.index = static_cast<uint32_t>(index);
    ZKP_ASSIGN_OR_RETURN(uint64_t rows, count(field + ".column.rows.len", 32));
    for (uint64_t i = 0; i < rows; ++i) {
      ZKP_ASSIGN_OR_RETURN(Domain d,
                           bytes32(field + ".column.rows[" + std::to_string(i) + "]", true));
      c.rows.push_back(d);
    }
    ZKP_ASSIGN_OR_RETURN(c.inclusion, merkle(field + ".inclusion_proof"));
    return c;
  }

  Result<std::vector<ColumnProof>> columns(const std::string& field) {
    ZKP_ASSIGN_OR_RETURN(uint64_t n, count(field + ".len", 6));
    std::vector<ColumnProof> out;
    for (uint64_t i = 0; i < n; ++i) {
      ZKP_ASSIGN_OR_RETURN(ColumnProof c, column(field + "[" + std::to_string(i) + "]"));
      out.push_back(std::move(c));
    }
    return out;
  }

  Result<LabelingProof> labeling(const std::string& field) {
    LabelingProof l;
    ZKP_ASSIGN_OR_RETURN(uint64_t n, count(field + ".parents.len", 32));
    for (uint64_t i = 0; i < n; ++i) {
      ZKP_ASSIGN_OR_RETURN(Domain d, bytes32(field + ".parents[" + std::to_string(i) + "]", true));
      l.parents.push_back(d);
    }
    ZKP_ASSIGN_OR_RETURN(uint64_t layer, fixed(field + ".layer_index", 4));
    l.layer_index = static_cast<uint32_t>(layer);
    ZKP_ASSIGN_OR_RETURN(l.node, fixed(field + ".node", 8));
    return l;
  }

  Result<SealVanillaProof> seal_proof(const std::string& field) {
    SealVanillaProof p;
    ZKP_ASSIGN_OR_RETURN(p.comm_d, merkle(field + ".comm_d_proofs"));
    ZKP_ASSIGN_OR_RETURN(p.comm_r_last, merkle(field + ".comm_r_last_proof"));
    const std::string rcp = field + ".replica_column_proofs";
    ZKP_ASSIGN_OR_RETURN(p.c_x, column(rcp + ".c_x"));
    ZKP_ASSIGN_OR_RETURN(p.drg_parents, columns(rcp + ".drg_parents"));
    ZKP_ASSIGN_OR_RETURN(p.exp_parents, columns(rcp + ".exp_parents"));
    ZKP_ASSIGN_OR_RETURN(uint64_t n, count(field + ".labeling_proofs.len", 13));
    for (uint64_t i = 0; i < n; ++i) {
      ZKP_ASSIGN_OR_RETURN(LabelingProof l,
                           labeling(field + ".labeling_proofs[" + std::to_string(i) + "]"));
      p.labeling.push_back(std::move(l));
    }
    ZKP_ASSIGN_OR_RETURN(p.encoding, labeling(field + ".encoding_proof"));
    return p;
  }

 private:
  std::span<const uint8_t> b_;
  const std::string& what_;
  size_t at_ = 0;
};

void put_uvarint(std::vector<uint8_t>& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<uint8_t>(v));
}
void put_fixed(std::vector<uint8_t>& out, uint64_t v, size_t width) {
  for (size_t i = 0; i < width; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void put_bytes32(std::vector<uint8_t>& out, const Domain& d) {
  out.insert(out.end(), d.begin(), d.end());
}
void put_merkle(std::vector<uint8_t>& out, const InclusionProof& p) {
  const size_t kind = p.paths.size() - 1;  // 1, 2 or 3 paths: Single, Sub, Top
  put_uvarint(out, kind);
  auto paths = [&] {
    for (size_t k = 0; k < p.paths.size(); ++k) {
      put_uvarint(out, p.paths[k].size());
      size_t h = 0;
      for (const PathElement& e : p.paths[k]) {
        put_uvarint(out, e.siblings.size());
        for (size_t j = 0; j < e.siblings.size(); ++j) put_bytes32(out, p.hashes[k][h++]);
        put_uvarint(out, e.position);
      }
    }
  };
  if (kind == 0) {
    put_bytes32(out, p.root);
    put_bytes32(out, p.leaf);
    paths();
  } else {
    paths();
    put_bytes32(out, p.root);
    put_bytes32(out, p.leaf);
  }
}
void put_column(std::vector<uint8_t>& out, const ColumnProof& c) {
  put_fixed(out, c.index, 4);
  put_uvarint(out, c.rows.size());
  for (const Domain& d : c.rows) put_bytes32(out, d);
  put_merkle(out, c.inclusion);
}
void put_labeling(std::vector<uint8_t>& out, const LabelingProof& l) {
  put_uvarint(out, l.parents.size());
  for (const Domain& d : l.parents) put_bytes32(out, d);
  put_fixed(out, l.layer_index, 4);
  put_fixed(out, l.node, 8);
}
void put_string(std::vector<uint8_t>& out, const std::string& s) {
  put_uvarint(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

}  // namespace

Result<Commit1Output> parse_commit1_binary(std::span<const uint8_t> bytes,
                                           const std::string& what) {
  BinaryReader r(bytes, what);
  Commit1Output c;
  ZKP_ASSIGN_OR_RETURN(c.comm_d, r.bytes32("comm_d", true));
  ZKP_ASSIGN_OR_RETURN(c.comm_r, r.bytes32("comm_r", true));
  const size_t name_at = r.offset();
  ZKP_ASSIGN_OR_RETURN(c.registered_proof, r.string("registered_proof"));
  Result<filecoin::PorepConfig> config = filecoin::registered_porep(c.registered_proof);
  if (!config.ok()) return r.fail_at(name_at, "registered_proof", config.status().message());
  c.config = *config;
  ZKP_ASSIGN_OR_RETURN(c.replica_id, r.bytes32("replica_id", true));
  ZKP_ASSIGN_OR_RETURN(c.seed, r.bytes32("seed", false));
  ZKP_ASSIGN_OR_RETURN(c.ticket, r.bytes32("ticket", false));
  const std::string key = vanilla_seal_key(c.config.sector_size);
  const size_t map_at = r.offset();
  ZKP_ASSIGN_OR_RETURN(uint64_t entries, r.uvarint("vanilla_proofs.len"));
  if (entries != 1) {
    return r.fail_at(
        map_at, "vanilla_proofs",
        "holds " + std::to_string(entries) + " proof kinds; needs the one \"" + key + "\"");
  }
  const size_t key_at = r.offset();
  ZKP_ASSIGN_OR_RETURN(const std::string kind, r.string("vanilla_proofs.key"));
  if (kind != key) {
    return r.fail_at(
        key_at, "vanilla_proofs",
        "holds \"" + kind + "\" proofs; " + c.registered_proof + " needs \"" + key + "\"");
  }
  const std::string at = "vanilla_proofs." + key;
  ZKP_ASSIGN_OR_RETURN(uint64_t partitions, r.count(at + ".len", 1));
  for (uint64_t k = 0; k < partitions; ++k) {
    const std::string k_at = at + "[" + std::to_string(k) + "]";
    ZKP_ASSIGN_OR_RETURN(uint64_t challenges, r.count(k_at + ".len", 64));
    std::vector<SealVanillaProof> proofs;
    for (uint64_t i = 0; i < challenges; ++i) {
      ZKP_ASSIGN_OR_RETURN(SealVanillaProof p, r.seal_proof(k_at + "[" + std::to_string(i) + "]"));
      proofs.push_back(std::move(p));
    }
    c.vanilla_proofs.push_back(std::move(proofs));
  }
  ZKP_RETURN_IF_ERROR(r.done());
  return c;
}

std::vector<uint8_t> encode_commit1_binary(const Commit1Output& c) {
  std::vector<uint8_t> out;
  put_bytes32(out, c.comm_d);
  put_bytes32(out, c.comm_r);
  put_string(out, c.registered_proof);
  put_bytes32(out, c.replica_id);
  put_bytes32(out, c.seed);
  put_bytes32(out, c.ticket);
  put_uvarint(out, 1);
  put_string(out, vanilla_seal_key(c.config.sector_size));
  put_uvarint(out, c.vanilla_proofs.size());
  for (const std::vector<SealVanillaProof>& part : c.vanilla_proofs) {
    put_uvarint(out, part.size());
    for (const SealVanillaProof& p : part) {
      put_merkle(out, p.comm_d);
      put_merkle(out, p.comm_r_last);
      put_column(out, p.c_x);
      put_uvarint(out, p.drg_parents.size());
      for (const ColumnProof& col : p.drg_parents) put_column(out, col);
      put_uvarint(out, p.exp_parents.size());
      for (const ColumnProof& col : p.exp_parents) put_column(out, col);
      put_uvarint(out, p.labeling.size());
      for (const LabelingProof& l : p.labeling) put_labeling(out, l);
      put_labeling(out, p.encoding);
    }
  }
  return out;
}

}  // namespace zkpipe::filecoin_circuit
