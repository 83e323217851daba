// The sealed-sector cache (zkpipe/sector/sector_file.h).
#include "zkpipe/sector/sector_file.h"

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/groth16/sectioned_file.h"

namespace zkpipe::porep {
namespace {

constexpr uint32_t kShapeSection = 1;
constexpr uint32_t kDataSection = 2;
constexpr uint32_t kLabelsSection = 3;
constexpr size_t kShapeBytes = 8 + 5 * 4 + 32;  // nodes, layers..partitions, replica id

const groth16::SectionedFormat& sector_format() {
  static const groth16::SectionedFormat f{
      "sector cache",
      "ZKPSECTR",
      1,
      {{kShapeSection, "shape"}, {kDataSection, "data"}, {kLabelsSection, "labels"}}};
  return f;
}

std::vector<uint8_t> elements(std::span<const Fr> xs) {
  std::vector<uint8_t> out;
  out.reserve(xs.size() * 32);
  for (const Fr& x : xs) {
    auto b = gadgets::fr_to_le_bytes(x);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

uint64_t le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int b = n - 1; b >= 0; --b) v = (v << 8) | p[b];
  return v;
}

Status read_elements(const groth16::SectionedFileReader& r, uint32_t type,
                     std::span<const uint8_t> bytes, std::vector<Fr>& out, size_t first,
                     uint64_t skip = 0) {
  const uint64_t base = r.find(type)->offset + skip;
  for (size_t i = 0; i < out.size(); ++i) {
    auto x = gadgets::fr_from_le_bytes(
        std::span<const uint8_t, 32>(bytes.data() + 32 * (first + i), 32));
    if (!x.ok()) return r.error(type, base + 32 * (first + i), "not a canonical field element");
    out[i] = x.value();
  }
  return ok_status();
}

}  // namespace

Status write_sector(const std::string& path, const SealedSector& s) {
  ZKP_ASSIGN_OR_RETURN(auto w, groth16::SectionedFileWriter::create(path, sector_format(), 3));
  std::vector<uint8_t> shape(kShapeBytes);
  for (int b = 0; b < 8; ++b) shape[b] = static_cast<uint8_t>(s.shape.nodes >> (8 * b));
  const uint32_t fields[5] = {s.shape.layers, s.shape.base_degree, s.shape.expansion_degree,
                              s.shape.challenges, s.shape.partitions};
  for (int f = 0; f < 5; ++f) {
    for (int b = 0; b < 4; ++b) shape[8 + 4 * f + b] = static_cast<uint8_t>(fields[f] >> (8 * b));
  }
  auto id = gadgets::fr_to_le_bytes(s.replica_id);
  std::copy(id.begin(), id.end(), shape.begin() + 28);
  ZKP_RETURN_IF_ERROR(w.write_section(kShapeSection, shape));
  ZKP_RETURN_IF_ERROR(w.write_section(kDataSection, elements(s.data)));
  ZKP_RETURN_IF_ERROR(w.begin_section(kLabelsSection));
  for (const std::vector<Fr>& layer : s.labels) {
    std::vector<uint8_t> bytes = elements(layer);
    ZKP_RETURN_IF_ERROR(w.append(bytes.data(), bytes.size()));
  }
  ZKP_RETURN_IF_ERROR(w.end_section());
  return w.finish();
}

Result<SealedSector> load_sector(const std::string& path, unsigned threads) {
  ZKP_ASSIGN_OR_RETURN(auto r, groth16::SectionedFileReader::open(path, sector_format()));
  ZKP_RETURN_IF_ERROR(r.verify_checksums());
  ZKP_ASSIGN_OR_RETURN(auto shape_bytes, r.require(kShapeSection));
  if (shape_bytes.size() != kShapeBytes) {
    return r.error(
        kShapeSection, r.find(kShapeSection)->offset,
        "is " + std::to_string(shape_bytes.size()) + " bytes, not " + std::to_string(kShapeBytes));
  }
  SealedSector s;
  s.shape.nodes = le(shape_bytes.data(), 8);
  uint32_t* fields[5] = {&s.shape.layers, &s.shape.base_degree, &s.shape.expansion_degree,
                         &s.shape.challenges, &s.shape.partitions};
  for (int f = 0; f < 5; ++f)
    *fields[f] = static_cast<uint32_t>(le(shape_bytes.data() + 8 + 4 * f, 4));
  name_after_preset(s.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(s.shape, path + ": section 'shape'"));
  std::vector<Fr> id(1);
  ZKP_RETURN_IF_ERROR(read_elements(r, kShapeSection, shape_bytes.subspan(28), id, 0, 28));
  s.replica_id = id[0];
  ZKP_ASSIGN_OR_RETURN(auto data, r.require(kDataSection));
  ZKP_ASSIGN_OR_RETURN(auto labels, r.require(kLabelsSection));
  const uint64_t n = s.shape.nodes;
  if (data.size() != 32 * n || labels.size() != 32 * n * s.shape.layers) {
    return r.error(kDataSection, r.find(kDataSection)->offset,
                   "data or labels have the wrong size for " + std::to_string(n) + " nodes and " +
                       std::to_string(s.shape.layers) + " layers");
  }
  s.data.resize(n);
  ZKP_RETURN_IF_ERROR(read_elements(r, kDataSection, data, s.data, 0));
  s.labels.assign(s.shape.layers, std::vector<Fr>(n));
  for (uint32_t l = 0; l < s.shape.layers; ++l) {
    ZKP_RETURN_IF_ERROR(read_elements(r, kLabelsSection, labels, s.labels[l], l * n));
  }
  build_trees(s, threads);
  return s;
}

}  // namespace zkpipe::porep
