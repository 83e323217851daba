// engine/crypto/groth16/params_file.cpp: the params file (zkpipe/groth16/params_file.h): its
// format and layout tag, the header section, writing a proving key, and params_info. Loading and
// the point checks are in params_load.cpp. Thread-safety: pure functions.
#include "zkpipe/groth16/params_file.h"
#include "le_bytes.h"

#include <bit>
#include <cstddef>
#include <cstring>
#include <sstream>
#include <type_traits>

namespace zkpipe::groth16 {

using crypto::Fp;

namespace {

using namespace detail;  // le_bytes.h

static_assert(std::is_standard_layout_v<G1Affine> && std::is_standard_layout_v<G2Affine>);
static_assert(std::is_trivially_copyable_v<G1Affine> && std::is_trivially_copyable_v<G2Affine>);
static_assert(sizeof(bool) == 1);

constexpr size_t kHeaderBytes = 128;
constexpr size_t kVkBytes = 3 * sizeof(G1Affine) + 3 * sizeof(G2Affine);
constexpr uint32_t kFlagSeeded = 1;

uint32_t type_of(ParamsSection s) {
  return static_cast<uint32_t>(s);
}

// ---- points -------------------------------------------------------------------------------------
// Bytes of a point as it lies in memory, padding zeroed; an infinity point has zero coordinates.
template <typename Affine>
void put_point(const Affine& p, uint8_t* out) {
  std::memset(out, 0, sizeof(Affine));
  if (!p.infinity) {
    std::memcpy(out + offsetof(Affine, x), &p.x, sizeof(p.x));
    std::memcpy(out + offsetof(Affine, y), &p.y, sizeof(p.y));
  }
  out[offsetof(Affine, infinity)] = p.infinity ? 1 : 0;
}

template <typename Affine>
Status write_points(SectionedFileWriter& w, ParamsSection s, std::span<const Affine> points) {
  ZKP_RETURN_IF_ERROR(w.begin_section(type_of(s)));
  constexpr size_t kChunk = 4096;
  std::vector<uint8_t> buf(kChunk * sizeof(Affine));
  for (size_t i = 0; i < points.size(); i += kChunk) {
    const size_t n = std::min(kChunk, points.size() - i);
    for (size_t j = 0; j < n; ++j) put_point(points[i + j], &buf[j * sizeof(Affine)]);
    ZKP_RETURN_IF_ERROR(w.append(buf.data(), n * sizeof(Affine)));
  }
  return w.end_section();
}

// Empty when the point at `p` is valid; otherwise why not (and *bad_at its byte within).
}  // namespace

// ---- header -------------------------------------------------------------------------------------
// 0 u32 header bytes (128), 4 u32 flags, 8 u32 num_inputs, 12 u32 num_aux, 16 u64 domain_size,
// 24 u64 ic_len, 32 u64 density_wires, 40..80 u64 h, l, a, b_g1, b_g2 lengths, 80..104 layout
// tag (6 x u32), 104..128 zero.
std::vector<uint8_t> encode_params_header(const ParamsHeader& h) {
  std::vector<uint8_t> b(kHeaderBytes, 0);
  store_u32(&b[0], kHeaderBytes);
  store_u32(&b[4], h.seeded_development_setup ? kFlagSeeded : 0);
  store_u32(&b[8], h.num_inputs);
  store_u32(&b[12], h.num_aux);
  const uint64_t u64s[] = {h.domain_size, h.ic_len, h.density_wires, h.h_len,
                           h.l_len,       h.a_len,  h.b_g1_len,      h.b_g2_len};
  for (size_t i = 0; i < 8; ++i) store_u64(&b[16 + 8 * i], u64s[i]);
  const uint32_t tag[] = {h.layout.fp_limbs,           h.layout.g1_affine_bytes,
                          h.layout.g2_affine_bytes,    h.layout.g1_infinity_offset,
                          h.layout.g2_infinity_offset, h.layout.little_endian};
  for (size_t i = 0; i < 6; ++i) store_u32(&b[80 + 4 * i], tag[i]);
  return b;
}

Result<ParamsHeader> read_params_header(const SectionedFileReader& r) {
  const uint32_t type = type_of(ParamsSection::kHeader);
  ZKP_ASSIGN_OR_RETURN(auto b, r.require(type));
  const uint64_t at = r.find(type)->offset;
  if (b.size() != kHeaderBytes || load_u32(b.data()) != kHeaderBytes) {
    return r.error(type, at,
                   cat("header is ", b.size(), " bytes (declares ",
                       b.size() >= 4 ? load_u32(b.data()) : 0, "), expected ", kHeaderBytes));
  }
  ParamsHeader h;
  const uint32_t flags = load_u32(&b[4]);
  if ((flags & ~kFlagSeeded) != 0) {
    return r.error(type, at + 4, cat("unknown flag bits 0x", std::hex, flags));
  }
  h.seeded_development_setup = (flags & kFlagSeeded) != 0;
  h.num_inputs = load_u32(&b[8]);
  h.num_aux = load_u32(&b[12]);
  uint64_t* u64s[] = {&h.domain_size, &h.ic_len, &h.density_wires, &h.h_len,
                      &h.l_len,       &h.a_len,  &h.b_g1_len,      &h.b_g2_len};
  for (size_t i = 0; i < 8; ++i) *u64s[i] = load_u64(&b[16 + 8 * i]);
  uint32_t* tag[] = {&h.layout.fp_limbs,           &h.layout.g1_affine_bytes,
                     &h.layout.g2_affine_bytes,    &h.layout.g1_infinity_offset,
                     &h.layout.g2_infinity_offset, &h.layout.little_endian};
  for (size_t i = 0; i < 6; ++i) *tag[i] = load_u32(&b[80 + 4 * i]);
  for (size_t i = 104; i < kHeaderBytes; ++i) {
    if (b[i] != 0) return r.error(type, at + i, "reserved header byte is not zero");
  }
  return h;
}

// ---- format -------------------------------------------------------------------------------------

const SectionedFormat& params_format() {
  static const SectionedFormat format{"params file",
                                      "ZKPPARAM",
                                      kParamsVersion,
                                      {{1, "header"},
                                       {2, "vk"},
                                       {3, "ic"},
                                       {4, "a_density"},
                                       {5, "b_density"},
                                       {6, "h_query"},
                                       {7, "l_query"},
                                       {8, "a_query"},
                                       {9, "b_g1_query"},
                                       {10, "b_g2_query"}}};
  return format;
}

LayoutTag LayoutTag::native() {
  LayoutTag t;
  t.fp_limbs = Fp::kLimbs;
  t.g1_affine_bytes = sizeof(G1Affine);
  t.g2_affine_bytes = sizeof(G2Affine);
  t.g1_infinity_offset = offsetof(G1Affine, infinity);
  t.g2_infinity_offset = offsetof(G2Affine, infinity);
  t.little_endian = std::endian::native == std::endian::little ? 1 : 0;
  return t;
}

std::string LayoutTag::describe() const {
  return cat(fp_limbs, " x 64-bit limbs, G1Affine ", g1_affine_bytes, " B (infinity at ",
             g1_infinity_offset, "), G2Affine ", g2_affine_bytes, " B (infinity at ",
             g2_infinity_offset, "), ", little_endian == 1 ? "little-endian" : "big-endian");
}

// ---- write --------------------------------------------------------------------------------------

Status write_params(const std::string& path, const ProvingKey& pk,
                    const ParamsWriteOptions& options) {
  ZKP_RETURN_IF_ERROR(pk.check_shape(path + ": cannot write params"));
  ParamsHeader h;
  h.seeded_development_setup = options.seeded_development_setup;
  h.num_inputs = pk.num_inputs;
  h.num_aux = pk.num_aux;
  h.domain_size = pk.domain_size;
  h.ic_len = pk.vk.ic.size();
  h.density_wires = pk.a_density.wires;
  h.h_len = pk.h_query.size();
  h.l_len = pk.l_query.size();
  h.a_len = pk.a_query.size();
  h.b_g1_len = pk.b_g1_query.size();
  h.b_g2_len = pk.b_g2_query.size();
  h.layout = LayoutTag::native();

  ZKP_ASSIGN_OR_RETURN(auto w, SectionedFileWriter::create(path, params_format(), 10));
  ZKP_RETURN_IF_ERROR(w.write_section(type_of(ParamsSection::kHeader), encode_params_header(h)));
  std::vector<uint8_t> vk(kVkBytes);
  const G1Affine g1s[] = {pk.vk.alpha_g1, pk.vk.beta_g1, pk.vk.delta_g1};
  const G2Affine g2s[] = {pk.vk.beta_g2, pk.vk.gamma_g2, pk.vk.delta_g2};
  for (size_t i = 0; i < 3; ++i) put_point(g1s[i], &vk[i * sizeof(G1Affine)]);
  for (size_t i = 0; i < 3; ++i) {
    put_point(g2s[i], &vk[3 * sizeof(G1Affine) + i * sizeof(G2Affine)]);
  }
  ZKP_RETURN_IF_ERROR(w.write_section(type_of(ParamsSection::kVk), vk));
  ZKP_RETURN_IF_ERROR(write_points<G1Affine>(w, ParamsSection::kIc, pk.vk.ic));
  for (const auto& [s, d] : {std::pair{ParamsSection::kADensity, &pk.a_density},
                             std::pair{ParamsSection::kBDensity, &pk.b_density}}) {
    std::vector<uint8_t> bits(8 * d->bits.size());
    for (size_t i = 0; i < d->bits.size(); ++i) store_u64(&bits[8 * i], d->bits[i]);
    ZKP_RETURN_IF_ERROR(w.write_section(type_of(s), bits));
  }
  ZKP_RETURN_IF_ERROR(write_points<G1Affine>(w, ParamsSection::kHQuery, pk.h_query));
  ZKP_RETURN_IF_ERROR(write_points<G1Affine>(w, ParamsSection::kLQuery, pk.l_query));
  ZKP_RETURN_IF_ERROR(write_points<G1Affine>(w, ParamsSection::kAQuery, pk.a_query));
  ZKP_RETURN_IF_ERROR(write_points<G1Affine>(w, ParamsSection::kBG1Query, pk.b_g1_query));
  ZKP_RETURN_IF_ERROR(write_points<G2Affine>(w, ParamsSection::kBG2Query, pk.b_g2_query));
  return w.finish();
}

// ---- read ---------------------------------------------------------------------------------------

Result<ParamsInfo> params_info(const std::string& path) {
  ZKP_ASSIGN_OR_RETURN(auto r, SectionedFileReader::open(path, params_format()));
  ParamsInfo info;
  info.path = path;
  info.file_bytes = r.file_size();
  info.version = r.version();
  info.table_offset = r.table_offset();
  info.checksum_offset = r.checksum_offset();
  for (const auto& s : r.sections()) {
    info.sections.push_back(
        {s.type, params_format().section_name(s.type), s.offset, s.length, to_hex(s.sha256)});
  }
  ZKP_ASSIGN_OR_RETURN(info.header, read_params_header(r));
  info.layout_matches = info.header.layout == LayoutTag::native();
  return info;
}

}  // namespace zkpipe::groth16
