// groth16/zkey.cpp: the snarkjs .zkey reader (iden3 container "zkey", version 1, Groth16 over
// BLS12-381). Coordinates are stored little-endian in Montgomery form with R = 2^384, the limb
// layout of our Fp, so they are copied after a canonical check; coefficients are stored as
// c R^2 mod r with R = 2^256 (one Montgomery reduction gives our Montgomery form c R).
// Thread-safety: pure functions over the file they are given.
#include "zkpipe/groth16/zkey.h"

#include <atomic>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "iden3_container.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::groth16 {
namespace {

using crypto::Fp;
using crypto::Fp2;
using iden3::Cursor;

constexpr uint32_t kZkeyVersion = 1;
constexpr uint32_t kProtocol = 1, kHeader = 2, kIc = 3, kCoeffs = 4, kA = 5, kB1 = 6, kB2 = 7,
                   kC = 8, kH = 9, kContributions = 10;
constexpr uint32_t kGroth16Protocol = 1;
constexpr uint32_t kFpBytes = 48;
constexpr uint64_t kG1Bytes = 2 * kFpBytes, kG2Bytes = 4 * kFpBytes;
constexpr uint64_t kCoeffBytes = 12 + iden3::kFrBytes;
constexpr uint64_t kHeaderBytes = 4 + kFpBytes + 4 + iden3::kFrBytes + 12 + 3 * kG1Bytes +
                                  3 * kG2Bytes;  // alpha1, beta1, delta1; beta2, gamma2, delta2

const iden3::SectionNames& zkey_names() {
  static const iden3::SectionNames names = {{kProtocol, "protocol"},
                                            {kHeader, "Groth16 header"},
                                            {kIc, "IC"},
                                            {kCoeffs, "coefficients"},
                                            {kA, "A points"},
                                            {kB1, "B1 points"},
                                            {kB2, "B2 points"},
                                            {kC, "C points"},
                                            {kH, "H points"},
                                            {kContributions, "contributions"}};
  return names;
}

// A coordinate: 48 bytes little-endian, Montgomery form, canonical (< q).
Status read_coord(Cursor& c, Fp& out, const char* what, uint64_t index) {
  const size_t at = c.pos();
  crypto::Limbs<6> v;
  ZKP_RETURN_IF_ERROR(c.limbs(v));
  if (!crypto::limbs_less(v, Fp::kModulus)) {
    return c.error(std::string(what) + " " + std::to_string(index) +
                       ": a coordinate is not < q (not a canonical Montgomery value)",
                   at);
  }
  std::memcpy(out.l, v.data(), sizeof out.l);
  return ok_status();
}
Status read_coord(Cursor& c, Fp2& out, const char* what, uint64_t index) {
  ZKP_RETURN_IF_ERROR(read_coord(c, out.c0, what, index));
  return read_coord(c, out.c1, what, index);
}

// An affine point; all-zero bytes (snarkjs's encoding of infinity) give the identity.
template <typename Affine>
Status read_point(Cursor& c, Affine& out, const char* what, uint64_t index) {
  out.infinity = false;
  ZKP_RETURN_IF_ERROR(read_coord(c, out.x, what, index));
  ZKP_RETURN_IF_ERROR(read_coord(c, out.y, what, index));
  if (out.x.is_zero() && out.y.is_zero()) out = Affine::identity();
  return ok_status();
}

bool on_curve(const G1Affine& p) {
  return crypto::is_on_curve<Fp, crypto::G1Config>(p);
}
bool on_curve(const G2Affine& p) {
  return crypto::is_on_curve<Fp2, crypto::G2Config>(p);
}
template <typename Affine>
bool valid_point(const Affine& p) {
  if (p.infinity) return true;
  if constexpr (std::is_same_v<Affine, G1Affine>) {
    return on_curve(p) && crypto::g1_in_subgroup(p);
  } else {
    return on_curve(p) && crypto::g2_in_subgroup(p);
  }
}

// Points [0, n) that began at byte `begin` of the section `c` reads (stride bytes each): the first
// one off the curve or outside the subgroup is reported with its offset.
template <typename Affine>
Status check_points(const Cursor& c, std::span<const Affine> points, size_t begin, const char* what,
                    const ZkeyReadOptions& options) {
  if (!options.check_points) return ok_status();
  constexpr uint64_t stride = std::is_same_v<Affine, G1Affine> ? kG1Bytes : kG2Bytes;
  std::atomic<size_t> first_bad{std::numeric_limits<size_t>::max()};
  crypto::parallel_for_ranges(points.size(), 64, options.threads, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi && i < first_bad.load(std::memory_order_relaxed); ++i) {
      if (!valid_point(points[i])) {
        size_t cur = first_bad.load();
        while (i < cur && !first_bad.compare_exchange_weak(cur, i)) {
        }
        return;
      }
    }
  });
  const size_t bad = first_bad.load();
  if (bad == std::numeric_limits<size_t>::max()) return ok_status();
  const char* reason =
      on_curve(points[bad]) ? "is not in the prime-order subgroup" : "is not on the curve";
  return c.error(std::string(what) + " " + std::to_string(bad) + " " + reason,
                 begin + bad * stride);
}

// A whole section of `count` points.
template <typename Affine>
Status read_point_section(const std::string& path, const std::vector<uint8_t>& data,
                          const iden3::Sections& sections, uint32_t type, uint64_t count,
                          const char* what, std::vector<Affine>& out,
                          const ZkeyReadOptions& options) {
  constexpr uint64_t stride = std::is_same_v<Affine, G1Affine> ? kG1Bytes : kG2Bytes;
  ZKP_ASSIGN_OR_RETURN(Cursor c, iden3::section(path, data, sections, type, zkey_names()));
  if (c.left() != count * stride) {
    return c.error("size " + std::to_string(c.left()) + ", expected " + std::to_string(count) +
                   " points * " + std::to_string(stride) + " bytes");
  }
  const size_t begin = c.pos();
  out.resize(count);
  for (uint64_t i = 0; i < count; ++i) ZKP_RETURN_IF_ERROR(read_point(c, out[i], what, i));
  return check_points<Affine>(c, out, begin, what, options);
}

Status read_protocol(const std::string& path, const std::vector<uint8_t>& data,
                     const iden3::Sections& sections) {
  ZKP_ASSIGN_OR_RETURN(Cursor c, iden3::section(path, data, sections, kProtocol, zkey_names()));
  if (c.left() != 4) return c.error("size " + std::to_string(c.left()) + ", expected 4");
  uint32_t protocol = 0;
  ZKP_RETURN_IF_ERROR(c.u32(protocol));
  if (protocol != kGroth16Protocol) {
    return c.error("protocol " + std::to_string(protocol) + " is not Groth16 (1)", c.pos() - 4);
  }
  return ok_status();
}

Status read_header(const std::string& path, const std::vector<uint8_t>& data,
                   const iden3::Sections& sections, SnarkjsKey& key,
                   const ZkeyReadOptions& options) {
  ZKP_ASSIGN_OR_RETURN(Cursor c, iden3::section(path, data, sections, kHeader, zkey_names()));
  if (c.left() != kHeaderBytes) {
    return c.error("size " + std::to_string(c.left()) + ", expected " +
                   std::to_string(kHeaderBytes));
  }
  uint32_t n8q = 0, n8r = 0;
  ZKP_RETURN_IF_ERROR(c.u32(n8q));
  if (n8q != kFpBytes) {
    return c.error("n8q = " + std::to_string(n8q) + ", expected 48 (BLS12-381)", c.pos() - 4);
  }
  crypto::Limbs<6> q;
  ZKP_RETURN_IF_ERROR(c.limbs(q));
  if (q != Fp::kModulus) {
    return c.error("q is not the BLS12-381 base field prime (another curve?)", c.pos() - 48);
  }
  ZKP_RETURN_IF_ERROR(c.u32(n8r));
  if (n8r != iden3::kFrBytes) {
    return c.error("n8r = " + std::to_string(n8r) + ", expected 32 (BLS12-381)", c.pos() - 4);
  }
  crypto::Limbs<4> r;
  ZKP_RETURN_IF_ERROR(c.limbs(r));
  if (r != Fr::kModulus) {
    return c.error("r is not the BLS12-381 scalar field order (another curve?)", c.pos() - 32);
  }
  const size_t counts_at = c.pos();
  uint32_t domain = 0;
  ZKP_RETURN_IF_ERROR(c.u32(key.n_vars));
  ZKP_RETURN_IF_ERROR(c.u32(key.n_public));
  ZKP_RETURN_IF_ERROR(c.u32(domain));
  key.domain_size = domain;
  if (uint64_t{key.n_public} + 1 > key.n_vars) {
    return c.error("nPublic + 1 = " + std::to_string(uint64_t{key.n_public} + 1) +
                       " exceeds nVars = " + std::to_string(key.n_vars),
                   counts_at);
  }
  // snarkjs needs the 2n-th roots of unity for its odd coset: n <= 2^31.
  if (domain == 0 || (domain & (domain - 1)) != 0 || domain > (uint32_t{1} << 31)) {
    return c.error("domainSize = " + std::to_string(domain) + " is not a power of two in [1, 2^31]",
                   counts_at + 8);
  }
  const size_t points_at = c.pos();
  VerifyingKey& vk = key.vk;
  G1Affine g1[3];
  G2Affine g2[3];
  ZKP_RETURN_IF_ERROR(read_point(c, vk.alpha_g1, "alpha1", 0));
  ZKP_RETURN_IF_ERROR(read_point(c, vk.beta_g1, "beta1", 0));
  ZKP_RETURN_IF_ERROR(read_point(c, vk.beta_g2, "beta2", 0));
  ZKP_RETURN_IF_ERROR(read_point(c, vk.gamma_g2, "gamma2", 0));
  ZKP_RETURN_IF_ERROR(read_point(c, vk.delta_g1, "delta1", 0));
  ZKP_RETURN_IF_ERROR(read_point(c, vk.delta_g2, "delta2", 0));
  ZKP_RETURN_IF_ERROR(c.expect_end());
  g1[0] = vk.alpha_g1, g1[1] = vk.beta_g1, g1[2] = vk.delta_g1;
  g2[0] = vk.beta_g2, g2[1] = vk.gamma_g2, g2[2] = vk.delta_g2;
  // Offsets: alpha1 +0, beta1 +96, beta2 +192, gamma2 +384, delta1 +576, delta2 +672.
  const size_t g1_at[3] = {0, 96, 576}, g2_at[3] = {192, 384, 672};
  const char* g1_names[3] = {"alpha1", "beta1", "delta1"};
  const char* g2_names[3] = {"beta2", "gamma2", "delta2"};
  static constexpr const char* kDegenerate =
      " is the point at infinity (a degenerate key: refused)";
  for (int i = 0; i < 3; ++i) {
    ZKP_RETURN_IF_ERROR(check_points<G1Affine>(c, std::span<const G1Affine>(&g1[i], 1),
                                               points_at + g1_at[i], g1_names[i], options));
    ZKP_RETURN_IF_ERROR(check_points<G2Affine>(c, std::span<const G2Affine>(&g2[i], 1),
                                               points_at + g2_at[i], g2_names[i], options));
    // A degenerate key (gamma = O makes forged proofs verify) is refused whatever the options.
    if (g1[i].infinity)
      return c.error(std::string(g1_names[i]) + kDegenerate, points_at + g1_at[i]);
    if (g2[i].infinity)
      return c.error(std::string(g2_names[i]) + kDegenerate, points_at + g2_at[i]);
  }
  return ok_status();
}

struct Entry {
  uint32_t row, column;
  Fr value;
};

// Entries (any order) -> row-major matrix over `rows` rows, stable within a row.
SparseMatrix to_matrix(const std::vector<Entry>& entries, uint64_t rows) {
  SparseMatrix m;
  m.row_begin.assign(rows + 1, 0);
  for (const Entry& e : entries) ++m.row_begin[e.row + 1];
  for (uint64_t i = 0; i < rows; ++i) m.row_begin[i + 1] += m.row_begin[i];
  m.column.resize(entries.size());
  m.value.resize(entries.size());
  std::vector<uint64_t> next(m.row_begin.begin(), m.row_begin.end() - 1);
  for (const Entry& e : entries) {
    const uint64_t at = next[e.row]++;
    m.column[at] = e.column;
    m.value[at] = e.value;
  }
  return m;
}

Status read_coefficients(const std::string& path, const std::vector<uint8_t>& data,
                         const iden3::Sections& sections, SnarkjsKey& key) {
  ZKP_ASSIGN_OR_RETURN(Cursor c, iden3::section(path, data, sections, kCoeffs, zkey_names()));
  uint32_t count = 0;
  ZKP_RETURN_IF_ERROR(c.u32(count));
  if (c.left() != uint64_t{count} * kCoeffBytes) {
    return c.error("size " + std::to_string(c.left()) + " after the count, expected " +
                   std::to_string(count) + " entries * 44 bytes");
  }
  std::vector<Entry> per_matrix[2];
  for (uint32_t i = 0; i < count; ++i) {
    const size_t at = c.pos();
    uint32_t matrix = 0, row = 0, column = 0;
    ZKP_RETURN_IF_ERROR(c.u32(matrix));
    ZKP_RETURN_IF_ERROR(c.u32(row));
    ZKP_RETURN_IF_ERROR(c.u32(column));
    const std::string entry = "coefficient " + std::to_string(i);
    if (matrix > 1) {
      return c.error(entry + ": matrix " + std::to_string(matrix) + " is neither A (0) nor B (1)",
                     at);
    }
    if (row >= key.domain_size) {
      return c.error(entry + ": constraint " + std::to_string(row) +
                         " >= domainSize = " + std::to_string(key.domain_size),
                     at + 4);
    }
    if (column >= key.n_vars) {
      return c.error(entry + ": signal " + std::to_string(column) +
                         " >= nVars = " + std::to_string(key.n_vars),
                     at + 8);
    }
    crypto::Limbs<4> v;
    ZKP_RETURN_IF_ERROR(c.limbs(v));
    if (!crypto::limbs_less(v, Fr::kModulus)) return c.error(entry + ": value is not < r", at + 12);
    // v = c R^2 (R = 2^256); read as a Montgomery form it is c R; one reduction gives c R, which
    // is our Montgomery form of c.
    Fr stored, value;
    std::memcpy(stored.l, v.data(), sizeof stored.l);
    const crypto::Limbs<4> mont = stored.to_canonical();
    std::memcpy(value.l, mont.data(), sizeof value.l);
    per_matrix[matrix].push_back({row, column, value});
  }
  key.a = to_matrix(per_matrix[0], key.domain_size);
  key.b = to_matrix(per_matrix[1], key.domain_size);
  return ok_status();
}

}  // namespace

Result<SnarkjsKey> read_snarkjs_zkey(const std::string& path, const ZkeyReadOptions& options) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<uint8_t> data, iden3::read_file(path));
  ZKP_ASSIGN_OR_RETURN(auto sections,
                       iden3::read_container(path, data, "zkey", kZkeyVersion, zkey_names()));
  SnarkjsKey key;
  ZKP_RETURN_IF_ERROR(read_protocol(path, data, sections));
  ZKP_RETURN_IF_ERROR(read_header(path, data, sections, key, options));
  const uint64_t n_vars = key.n_vars, n_private = uint64_t{key.n_vars} - key.n_public - 1;
  ZKP_RETURN_IF_ERROR(read_point_section(path, data, sections, kIc, uint64_t{key.n_public} + 1,
                                         "IC point", key.vk.ic, options));
  ZKP_RETURN_IF_ERROR(read_coefficients(path, data, sections, key));
  ZKP_RETURN_IF_ERROR(
      read_point_section(path, data, sections, kA, n_vars, "A point", key.a_query, options));
  ZKP_RETURN_IF_ERROR(
      read_point_section(path, data, sections, kB1, n_vars, "B1 point", key.b1_query, options));
  ZKP_RETURN_IF_ERROR(
      read_point_section(path, data, sections, kB2, n_vars, "B2 point", key.b2_query, options));
  ZKP_RETURN_IF_ERROR(
      read_point_section(path, data, sections, kC, n_private, "C point", key.c_query, options));
  ZKP_RETURN_IF_ERROR(read_point_section(path, data, sections, kH, key.domain_size, "H point",
                                         key.h_query, options));
  return key;
}

}  // namespace zkpipe::groth16
