// iden3 .r1cs version 1 and .wtns version 2 in the iden3 binary container (iden3_container.h):
// writers from an R1cs / WitnessView, and bounds-checked readers whose errors name the file, the
// section and the absolute byte offset.
// Thread-safety: pure functions over the files they are given.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "iden3_container.h"
#include "zkpipe/groth16/snarkjs.h"

namespace zkpipe::groth16 {
namespace {

using iden3::Cursor;
using iden3::read_container;
using iden3::read_file;
using iden3::section;
using iden3::SectionNames;

constexpr uint32_t kN8 = iden3::kFrBytes;
constexpr uint32_t kR1csVersion = 1, kWtnsVersion = 2;
constexpr uint32_t kR1csHeader = 1, kR1csConstraints = 2, kR1csLabels = 3;
constexpr uint32_t kR1csCustomGatesList = 4, kR1csCustomGatesUses = 5;
constexpr uint32_t kWtnsHeader = 1, kWtnsValues = 2;
constexpr uint64_t kR1csHeaderBytes = 4 + kN8 + 4 * 4 + 8 + 4;
constexpr uint64_t kWtnsHeaderBytes = 4 + kN8 + 4;

// ---- writing ----

class Writer {
 public:
  template <typename T>  // little-endian
  void put(T v) {
    for (size_t i = 0; i < sizeof(T); ++i) bytes_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  void u32(uint32_t v) { put(v); }
  void u64(uint64_t v) { put(v); }
  void limbs(const crypto::Limbs<4>& v) {
    for (uint64_t limb : v) u64(limb);
  }
  void fr(const Fr& v) { limbs(v.to_canonical()); }
  // Section header with a placeholder length, patched by end_section.
  void begin_section(uint32_t type) {
    u32(type);
    length_at_ = bytes_.size();
    u64(0);
  }
  void end_section() {
    const uint64_t len = bytes_.size() - length_at_ - 8;
    for (int i = 0; i < 8; ++i) bytes_[length_at_ + i] = static_cast<uint8_t>(len >> (8 * i));
  }
  void magic(const char (&m)[5]) { bytes_.insert(bytes_.end(), m, m + 4); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
  size_t length_at_ = 0;
};

Status write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    return not_found(path + ": cannot open for writing: " + std::strerror(errno));
  }
  const size_t n = std::fwrite(bytes.data(), 1, bytes.size(), f);
  const bool closed = std::fclose(f) == 0;
  if (n != bytes.size() || !closed) {
    return internal_error(path + ": write failed: " + std::strerror(errno));
  }
  return ok_status();
}

// ---- reading ----

const SectionNames& r1cs_names() {
  static const SectionNames names = {{kR1csHeader, "header"},
                                     {kR1csConstraints, "constraints"},
                                     {kR1csLabels, "wire labels"},
                                     {kR1csCustomGatesList, "custom gates list"},
                                     {kR1csCustomGatesUses, "custom gates uses"}};
  return names;
}
const SectionNames& wtns_names() {
  static const SectionNames names = {{kWtnsHeader, "header"}, {kWtnsValues, "values"}};
  return names;
}

// n8 and the prime, shared by both headers.
Status read_field_header(Cursor& c) {
  uint32_t n8 = 0;
  ZKP_RETURN_IF_ERROR(c.u32(n8));
  if (n8 != kN8) {
    return c.error("n8 = " + std::to_string(n8) + ", expected 32 (the BLS12-381 scalar field)",
                   c.pos() - 4);
  }
  const size_t at = c.pos();
  crypto::Limbs<4> prime{};
  ZKP_RETURN_IF_ERROR(c.limbs(prime));
  if (prime != Fr::kModulus) {
    return c.error("the prime is not the BLS12-381 scalar field order r (another curve?)", at);
  }
  return ok_status();
}

Status read_lc(Cursor& c, uint32_t num_wires, SparseMatrix& m) {
  uint32_t terms = 0;
  ZKP_RETURN_IF_ERROR(c.u32(terms));
  ZKP_RETURN_IF_ERROR(c.need(uint64_t{terms} * (4 + kN8)));
  for (uint32_t t = 0; t < terms; ++t) {
    uint32_t wire = 0;
    ZKP_RETURN_IF_ERROR(c.u32(wire));
    if (wire >= num_wires) {
      return c.error(
          "wire id " + std::to_string(wire) + " >= nWires = " + std::to_string(num_wires),
          c.pos() - 4);
    }
    Fr coeff;
    ZKP_RETURN_IF_ERROR(c.fr(coeff, "coefficient"));
    m.column.push_back(wire);
    m.value.push_back(coeff);
  }
  m.row_begin.push_back(m.column.size());
  return ok_status();
}

}  // namespace

Status write_iden3_r1cs(const std::string& path, const R1cs& r1cs) {
  ZKP_RETURN_IF_ERROR(r1cs.validate(path));
  if (r1cs.num_wires() > UINT32_MAX || r1cs.num_inputs == 0) {
    return invalid_argument(path + ": " + std::to_string(r1cs.num_wires()) +
                            " wires do not fit the .r1cs format (u32 wire ids)");
  }
  const auto num_wires = static_cast<uint32_t>(r1cs.num_wires());
  Writer w;
  w.magic("r1cs");
  w.u32(kR1csVersion);
  w.u32(3);
  w.begin_section(kR1csHeader);
  w.u32(kN8);
  w.limbs(Fr::kModulus);
  w.u32(num_wires);
  w.u32(0);                    // nPubOut
  w.u32(r1cs.num_inputs - 1);  // nPubIn
  w.u32(0);                    // nPrvIn
  w.u64(num_wires);            // nLabels
  w.u32(r1cs.num_constraints());
  w.end_section();
  w.begin_section(kR1csConstraints);
  for (size_t row = 0; row < r1cs.num_constraints(); ++row) {
    for (const SparseMatrix* m : {&r1cs.a, &r1cs.b, &r1cs.c}) {
      const uint64_t begin = m->row_begin[row], end = m->row_begin[row + 1];
      w.u32(static_cast<uint32_t>(end - begin));
      for (uint64_t t = begin; t < end; ++t) {
        w.u32(m->column[t]);
        w.fr(m->value[t]);
      }
    }
  }
  w.end_section();
  w.begin_section(kR1csLabels);
  for (uint64_t j = 0; j < num_wires; ++j) w.u64(j);
  w.end_section();
  return write_file(path, w.bytes());
}

Result<R1cs> read_iden3_r1cs(const std::string& path) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<uint8_t> data, read_file(path));
  ZKP_ASSIGN_OR_RETURN(auto sections,
                       read_container(path, data, "r1cs", kR1csVersion, r1cs_names()));
  for (uint32_t type : {kR1csCustomGatesList, kR1csCustomGatesUses}) {
    if (sections.count(type) != 0) {
      return invalid_argument(path + ": section " + std::to_string(type) +
                              " (custom gates, PLONK only) is not supported for Groth16");
    }
  }
  ZKP_ASSIGN_OR_RETURN(Cursor h, section(path, data, sections, kR1csHeader, r1cs_names()));
  if (h.left() != kR1csHeaderBytes) {
    return h.error("size " + std::to_string(h.left()) + ", expected " +
                   std::to_string(kR1csHeaderBytes));
  }
  ZKP_RETURN_IF_ERROR(read_field_header(h));
  uint32_t num_wires = 0, pub_out = 0, pub_in = 0, prv_in = 0, num_constraints = 0;
  uint64_t num_labels = 0;
  ZKP_RETURN_IF_ERROR(h.u32(num_wires));
  ZKP_RETURN_IF_ERROR(h.u32(pub_out));
  ZKP_RETURN_IF_ERROR(h.u32(pub_in));
  ZKP_RETURN_IF_ERROR(h.u32(prv_in));
  ZKP_RETURN_IF_ERROR(h.u64(num_labels));
  ZKP_RETURN_IF_ERROR(h.u32(num_constraints));
  if (uint64_t{1} + pub_out + pub_in + prv_in > num_wires) {
    return h.error(
        "nWires = " + std::to_string(num_wires) + " is less than 1 + nPubOut + nPubIn + nPrvIn",
        h.pos() - 28);
  }
  R1cs r1cs;
  r1cs.num_inputs = 1 + pub_out + pub_in;
  r1cs.num_aux = num_wires - r1cs.num_inputs;

  ZKP_ASSIGN_OR_RETURN(Cursor c, section(path, data, sections, kR1csConstraints, r1cs_names()));
  // Each constraint takes at least three term counts: refuse a count the section cannot hold
  // before reserving anything.
  if (uint64_t{num_constraints} * 12 > c.left()) {
    return c.error("nConstraints = " + std::to_string(num_constraints) + " needs at least " +
                   std::to_string(uint64_t{num_constraints} * 12) + " bytes, the section has " +
                   std::to_string(c.left()));
  }
  for (SparseMatrix* m : {&r1cs.a, &r1cs.b, &r1cs.c}) m->row_begin.reserve(num_constraints + 1);
  for (uint32_t i = 0; i < num_constraints; ++i) {
    ZKP_RETURN_IF_ERROR(read_lc(c, num_wires, r1cs.a));
    ZKP_RETURN_IF_ERROR(read_lc(c, num_wires, r1cs.b));
    ZKP_RETURN_IF_ERROR(read_lc(c, num_wires, r1cs.c));
  }
  ZKP_RETURN_IF_ERROR(c.expect_end());

  if (sections.count(kR1csLabels) != 0) {
    ZKP_ASSIGN_OR_RETURN(Cursor l, section(path, data, sections, kR1csLabels, r1cs_names()));
    if (num_labels > UINT64_MAX / 8 || l.left() != num_labels * 8) {
      return l.error("size " + std::to_string(l.left()) +
                     ", expected nLabels * 8 = " + std::to_string(num_labels * 8));
    }
  }
  ZKP_RETURN_IF_ERROR(r1cs.validate(path));
  return r1cs;
}

Status write_iden3_wtns(const std::string& path, const WitnessView& witness) {
  const uint64_t count = uint64_t{witness.inputs.size()} + witness.aux.size();
  if (witness.inputs.empty() || !witness.inputs[0].is_one()) {
    return invalid_argument(path + ": the witness must start with the constant one");
  }
  if (count > UINT32_MAX) {
    return invalid_argument(path + ": " + std::to_string(count) +
                            " values do not fit the .wtns format (u32 count)");
  }
  Writer w;
  w.magic("wtns");
  w.u32(kWtnsVersion);
  w.u32(2);
  w.begin_section(kWtnsHeader);
  w.u32(kN8);
  w.limbs(Fr::kModulus);
  w.u32(static_cast<uint32_t>(count));
  w.end_section();
  w.begin_section(kWtnsValues);
  for (const Fr& v : witness.inputs) w.fr(v);
  for (const Fr& v : witness.aux) w.fr(v);
  w.end_section();
  return write_file(path, w.bytes());
}

Result<std::vector<Fr>> read_iden3_wtns(const std::string& path) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<uint8_t> data, read_file(path));
  ZKP_ASSIGN_OR_RETURN(auto sections,
                       read_container(path, data, "wtns", kWtnsVersion, wtns_names()));
  ZKP_ASSIGN_OR_RETURN(Cursor h, section(path, data, sections, kWtnsHeader, wtns_names()));
  if (h.left() != kWtnsHeaderBytes) {
    return h.error("size " + std::to_string(h.left()) + ", expected " +
                   std::to_string(kWtnsHeaderBytes));
  }
  ZKP_RETURN_IF_ERROR(read_field_header(h));
  uint32_t count = 0;
  ZKP_RETURN_IF_ERROR(h.u32(count));
  ZKP_ASSIGN_OR_RETURN(Cursor v, section(path, data, sections, kWtnsValues, wtns_names()));
  if (v.left() != uint64_t{count} * kN8) {
    return v.error("size " + std::to_string(v.left()) + ", expected " + std::to_string(count) +
                   " values * 32 bytes");
  }
  if (count == 0) return v.error("no values (witness[0] must be 1)");
  std::vector<Fr> out(count);
  for (uint32_t i = 0; i < count; ++i)
    ZKP_RETURN_IF_ERROR(v.fr(out[i], "value " + std::to_string(i)));
  if (!out[0].is_one()) return invalid_argument(path + ": witness[0] is not 1");
  return out;
}

}  // namespace zkpipe::groth16
