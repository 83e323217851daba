// engine/crypto/groth16/r1cs_cache.cpp: the R1CS cache beside the params file
// (zkpipe/groth16/params_file.h): CSR arrays in the sectioned container, values as canonical
// 32-byte little-endian integers (refused when >= r), checked with R1cs::validate on load.
// Thread-safety: pure functions.
#include <cstring>
#include <sstream>

#include "le_bytes.h"
#include "zkpipe/groth16/params_file.h"

namespace zkpipe::groth16 {
namespace {

using namespace detail;  // le_bytes.h

constexpr uint32_t kHeader = 1;
constexpr uint32_t kNamespaces = 11;
constexpr uint32_t kConstraintNamespace = 12;
constexpr size_t kHeaderBytes = 48;
constexpr size_t kValueBytes = 32;
constexpr const char* kMatrixNames[] = {"A", "B", "C"};

// Section types of matrix m (0, 1, 2 for A, B, C).
constexpr uint32_t row_begin_type(size_t m) {
  return static_cast<uint32_t>(2 + 3 * m);
}
constexpr uint32_t column_type(size_t m) {
  return static_cast<uint32_t>(3 + 3 * m);
}
constexpr uint32_t value_type(size_t m) {
  return static_cast<uint32_t>(4 + 3 * m);
}

// Little-endian integers of `bytes` each, one section.
template <typename T>
Status write_ints(SectionedFileWriter& w, uint32_t type, const std::vector<T>& v) {
  std::vector<uint8_t> buf(v.size() * sizeof(T));
  for (size_t i = 0; i < v.size(); ++i) store_le(&buf[i * sizeof(T)], v[i], sizeof(T));
  return w.write_section(type, buf);
}

template <typename T>
Result<std::vector<T>> read_ints(const SectionedFileReader& r, uint32_t type, uint64_t count) {
  ZKP_ASSIGN_OR_RETURN(auto b, r.require(type));
  if (count > b.size() / sizeof(T) || b.size() != count * sizeof(T)) {
    return r.error(type, r.find(type)->offset,
                   cat("section is ", b.size(), " bytes; the header says ", count, " entries of ",
                       sizeof(T), " bytes"));
  }
  std::vector<T> v(count);
  for (uint64_t i = 0; i < count; ++i) {
    v[i] = static_cast<T>(load_le(b.data() + i * sizeof(T), sizeof(T)));
  }
  return v;
}

}  // namespace

const SectionedFormat& r1cs_cache_format() {
  static const SectionedFormat format{"R1CS cache",
                                      std::string("ZKPR1CS\0", 8),
                                      kR1csCacheVersion,
                                      {{kHeader, "header"},
                                       {row_begin_type(0), "a_row_begin"},
                                       {column_type(0), "a_column"},
                                       {value_type(0), "a_value"},
                                       {row_begin_type(1), "b_row_begin"},
                                       {column_type(1), "b_column"},
                                       {value_type(1), "b_value"},
                                       {row_begin_type(2), "c_row_begin"},
                                       {column_type(2), "c_column"},
                                       {value_type(2), "c_value"},
                                       {kNamespaces, "namespaces"},
                                       {kConstraintNamespace, "constraint_namespace"}}};
  return format;
}

// Header (48 bytes): u32 num_inputs, u32 num_aux, u32 num_constraints, u32 0, u64 terms of A,
// B, C, u64 namespace count.
Status write_r1cs_cache(const std::string& path, const R1cs& r1cs) {
  ZKP_RETURN_IF_ERROR(r1cs.validate(path + ": cannot write R1CS cache"));
  const bool named = !r1cs.constraint_namespace.empty();
  ZKP_ASSIGN_OR_RETURN(auto w,
                       SectionedFileWriter::create(path, r1cs_cache_format(), named ? 12 : 10));
  std::vector<uint8_t> header(kHeaderBytes, 0);
  store_le(&header[0], r1cs.num_inputs, 4);
  store_le(&header[4], r1cs.num_aux, 4);
  store_le(&header[8], r1cs.num_constraints(), 4);
  const SparseMatrix* ms[] = {&r1cs.a, &r1cs.b, &r1cs.c};
  for (size_t m = 0; m < 3; ++m) store_le(&header[16 + 8 * m], ms[m]->terms(), 8);
  store_le(&header[40], named ? r1cs.namespaces.size() : 0, 8);
  ZKP_RETURN_IF_ERROR(w.write_section(kHeader, header));
  for (size_t m = 0; m < 3; ++m) {
    ZKP_RETURN_IF_ERROR(write_ints(w, row_begin_type(m), ms[m]->row_begin));
    ZKP_RETURN_IF_ERROR(write_ints(w, column_type(m), ms[m]->column));
    ZKP_RETURN_IF_ERROR(w.begin_section(value_type(m)));
    std::vector<uint8_t> buf;
    buf.reserve(4096 * kValueBytes);
    for (size_t i = 0; i < ms[m]->value.size(); ++i) {
      const auto limbs = ms[m]->value[i].to_canonical();
      uint8_t bytes[kValueBytes];
      for (size_t k = 0; k < 4; ++k) store_le(bytes + 8 * k, limbs[k], 8);
      buf.insert(buf.end(), bytes, bytes + kValueBytes);
      if (buf.size() >= 4096 * kValueBytes) {
        ZKP_RETURN_IF_ERROR(w.append(buf.data(), buf.size()));
        buf.clear();
      }
    }
    ZKP_RETURN_IF_ERROR(w.append(buf.data(), buf.size()));
    ZKP_RETURN_IF_ERROR(w.end_section());
  }
  if (named) {
    std::vector<uint8_t> names;
    for (const auto& n : r1cs.namespaces) {
      uint8_t len[4];
      store_le(len, n.size(), 4);
      names.insert(names.end(), len, len + 4);
      names.insert(names.end(), n.begin(), n.end());
    }
    ZKP_RETURN_IF_ERROR(w.write_section(kNamespaces, names));
    ZKP_RETURN_IF_ERROR(write_ints(w, kConstraintNamespace, r1cs.constraint_namespace));
  }
  return w.finish();
}

Result<R1cs> load_r1cs_cache(const std::string& path) {
  ZKP_ASSIGN_OR_RETURN(auto r, SectionedFileReader::open(path, r1cs_cache_format()));
  ZKP_RETURN_IF_ERROR(r.verify_checksums());
  ZKP_ASSIGN_OR_RETURN(auto header, r.require(kHeader));
  const uint64_t header_at = r.find(kHeader)->offset;
  if (header.size() != kHeaderBytes) {
    return r.error(kHeader, header_at,
                   cat("header is ", header.size(), " bytes, expected ", kHeaderBytes));
  }
  R1cs r1cs;
  r1cs.num_inputs = static_cast<uint32_t>(load_le(&header[0], 4));
  r1cs.num_aux = static_cast<uint32_t>(load_le(&header[4], 4));
  const uint64_t rows = load_le(&header[8], 4);
  SparseMatrix* ms[] = {&r1cs.a, &r1cs.b, &r1cs.c};
  for (size_t m = 0; m < 3; ++m) {
    const uint64_t terms = load_le(&header[16 + 8 * m], 8);
    SparseMatrix& mat = *ms[m];
    ZKP_ASSIGN_OR_RETURN(mat.row_begin, read_ints<uint64_t>(r, row_begin_type(m), rows + 1));
    ZKP_ASSIGN_OR_RETURN(mat.column, read_ints<uint32_t>(r, column_type(m), terms));
    const uint32_t vt = value_type(m);
    ZKP_ASSIGN_OR_RETURN(auto values, r.require(vt));
    const uint64_t values_at = r.find(vt)->offset;
    if (terms > values.size() / kValueBytes || values.size() != terms * kValueBytes) {
      return r.error(vt, values_at,
                     cat("section is ", values.size(), " bytes; the header says ", terms,
                         " values of ", kValueBytes, " bytes"));
    }
    mat.value.resize(terms);
    for (uint64_t i = 0; i < terms; ++i) {
      crypto::Limbs<4> v{};
      for (size_t k = 0; k < 4; ++k) v[k] = load_le(values.data() + i * kValueBytes + 8 * k, 8);
      if (!crypto::limbs_less(v, Fr::kModulus)) {
        // The row holding term i (row_begin is not validated yet: a search is only a hint).
        uint64_t row = 0;
        while (row + 1 < mat.row_begin.size() && mat.row_begin[row + 1] <= i) ++row;
        return r.error(vt, values_at + i * kValueBytes,
                       cat("matrix ", kMatrixNames[m], " term ", i, " (row ", row,
                           "): value is not canonical (>= r)"));
      }
      mat.value[i] = Fr::from_canonical(v);
    }
  }
  const uint64_t names = load_le(&header[40], 8);
  if (r.has(kNamespaces) || r.has(kConstraintNamespace) || names != 0) {
    ZKP_ASSIGN_OR_RETURN(auto b, r.require(kNamespaces));
    const uint64_t at = r.find(kNamespaces)->offset;
    size_t pos = 0;
    for (uint64_t i = 0; i < names; ++i) {
      if (b.size() - pos < 4 || load_le(b.data() + pos, 4) > b.size() - pos - 4) {
        return r.error(kNamespaces, at + pos, cat("name ", i, " runs past the section end"));
      }
      const size_t len = load_le(b.data() + pos, 4);
      r1cs.namespaces.emplace_back(reinterpret_cast<const char*>(b.data() + pos + 4), len);
      pos += 4 + len;
    }
    if (pos != b.size()) {
      return r.error(kNamespaces, at + pos, cat("bytes left after ", names, " names"));
    }
    ZKP_ASSIGN_OR_RETURN(r1cs.constraint_namespace,
                         read_ints<uint32_t>(r, kConstraintNamespace, rows));
  }
  ZKP_RETURN_IF_ERROR(r1cs.validate(path));
  return r1cs;
}

}  // namespace zkpipe::groth16
