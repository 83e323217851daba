// engine/crypto/groth16/params_load.cpp: mapping a params file back into a ProvingKey (in place)
// and its validation: checksums, sizes against the header, and every point (flag byte, padding,
// canonical limbs, curve equation, prime-order subgroup), checked in parallel over the points.
// Thread-safety: pure functions.
#include <atomic>
#include <cstddef>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "le_bytes.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/crypto/parallel.h"
#include "zkpipe/groth16/params_file.h"

namespace zkpipe::groth16 {

using crypto::Fp;
using crypto::G1Config;
using crypto::G2Config;

namespace {

using namespace detail;  // le_bytes.h

constexpr size_t kVkBytes = 3 * sizeof(G1Affine) + 3 * sizeof(G2Affine);

uint32_t type_of(ParamsSection s) {
  return static_cast<uint32_t>(s);
}

template <typename Affine, typename Cfg>
std::string check_point(const uint8_t* p, size_t* bad_at) {
  constexpr size_t kInf = offsetof(Affine, infinity);
  constexpr size_t kCoords = kInf / sizeof(Fp);  // Fp values: 2 for G1, 4 for G2
  static_assert(kCoords * sizeof(Fp) == kInf);
  const uint8_t flag = p[kInf];
  *bad_at = kInf;
  if (flag > 1) return cat("infinity flag byte is ", unsigned{flag}, " (must be 0 or 1)");
  for (size_t i = kInf + 1; i < sizeof(Affine); ++i) {
    *bad_at = i;
    if (p[i] != 0) return "padding byte is not zero";
  }
  bool all_zero = true;
  for (size_t c = 0; c < kCoords; ++c) {
    crypto::Limbs<Fp::kLimbs> v{};
    std::memcpy(v.data(), p + c * sizeof(Fp), sizeof(Fp));
    *bad_at = c * sizeof(Fp);
    if (!crypto::limbs_less(v, Fp::kModulus)) {
      const char* g1[] = {"x", "y"};
      const char* g2[] = {"x.c0", "x.c1", "y.c0", "y.c1"};
      return cat("coordinate ", kCoords == 2 ? g1[c] : g2[c], " is not canonical (>= p)");
    }
    for (uint64_t limb : v) all_zero = all_zero && limb == 0;
  }
  *bad_at = 0;
  if (flag == 1) return all_zero ? "" : "point at infinity has non-zero coordinates";
  Affine a;
  std::memcpy(static_cast<void*>(&a), p, sizeof(Affine));  // flag byte known to be 0
  if (!crypto::is_on_curve<decltype(a.x), Cfg>(a)) return "not on the curve";
  bool in_subgroup;
  if constexpr (std::is_same_v<Affine, G1Affine>) {
    in_subgroup = crypto::g1_in_subgroup(a);
  } else {
    in_subgroup = crypto::g2_in_subgroup(a);
  }
  return in_subgroup ? "" : "on the curve but not in subgroup (cofactor component)";
}

// Checks `count` points from file offset `offset` in parallel; reports the first bad one. `stop`
// (when set) is read before each range: true ends the check with ABORTED.
template <typename Affine, typename Cfg>
Status check_points(const SectionedFileReader& r, uint32_t type, uint64_t offset, uint64_t count,
                    unsigned threads, const char* label = nullptr,
                    const std::atomic<bool>* stop = nullptr) {
  constexpr size_t kGrain = 256;
  const size_t ranges = (count + kGrain - 1) / kGrain;
  struct Failure {
    uint64_t index = UINT64_MAX;
    size_t at = 0;
    std::string why;
  };
  std::vector<Failure> failures(ranges);
  const uint8_t* base = r.bytes().data() + offset;
  std::atomic<bool> stopped{false};
  crypto::parallel_for_ranges(count, kGrain, threads, [&](size_t begin, size_t end) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) {
      stopped.store(true, std::memory_order_relaxed);
      return;
    }
    for (size_t i = begin; i < end; ++i) {
      size_t at = 0;
      std::string why = check_point<Affine, Cfg>(base + i * sizeof(Affine), &at);
      if (!why.empty()) {
        failures[begin / kGrain] = {i, at, std::move(why)};
        return;
      }
    }
  });
  if (stopped.load()) return aborted("the check of every point was stopped before its end");
  for (const Failure& f : failures) {
    if (f.index == UINT64_MAX) continue;
    const std::string which = label ? std::string(label) : cat("point ", f.index);
    return r.error(type, offset + f.index * sizeof(Affine) + f.at, cat(which, ": ", f.why));
  }
  return ok_status();
}

template <typename Affine>
Result<std::span<const Affine>> point_section(const SectionedFileReader& r, ParamsSection s,
                                              uint64_t count) {
  const uint32_t type = type_of(s);
  ZKP_ASSIGN_OR_RETURN(auto b, r.require(type));
  if (count > b.size() / sizeof(Affine) || b.size() != count * sizeof(Affine)) {
    return r.error(type, r.find(type)->offset,
                   cat("section is ", b.size(), " bytes; the header says ", count, " points of ",
                       sizeof(Affine), " bytes"));
  }
  return std::span<const Affine>(reinterpret_cast<const Affine*>(b.data()), count);
}

Result<Density> read_density(const SectionedFileReader& r, ParamsSection s, uint64_t wires,
                             bool validate) {
  const uint32_t type = type_of(s);
  ZKP_ASSIGN_OR_RETURN(auto b, r.require(type));
  const uint64_t at = r.find(type)->offset;
  const uint64_t words = (wires + 63) / 64;
  if (b.size() / 8 != words || b.size() % 8 != 0) {
    return r.error(type, at,
                   cat("section is ", b.size(), " bytes; ", wires, " wires need ", words * 8));
  }
  Density d;
  d.wires = wires;
  d.bits.resize(words);
  for (uint64_t i = 0; i < words; ++i) d.bits[i] = load_u64(b.data() + 8 * i);
  if (validate && wires % 64 != 0 && (d.bits.back() >> (wires % 64)) != 0) {
    return r.error(type, at + 8 * (words - 1), cat("bits set past the last wire (", wires, ")"));
  }
  return d;
}

}  // namespace

Result<ProvingKey> load_params(const std::string& path, const ParamsLoadOptions& options) {
  ZKP_ASSIGN_OR_RETURN(auto r, SectionedFileReader::open(path, params_format()));
  if (options.validate) ZKP_RETURN_IF_ERROR(r.verify_checksums());
  ZKP_ASSIGN_OR_RETURN(const ParamsHeader h, read_params_header(r));
  const uint32_t header_type = type_of(ParamsSection::kHeader);
  const uint64_t header_at = r.find(header_type)->offset;
  if (!(h.layout == LayoutTag::native())) {
    return Status(Code::kFailedPrecondition,
                  cat(path, ": section 'header' at byte offset ", header_at + 80,
                      ": layout tag differs from this build: the file stores points as ",
                      h.layout.describe(), "; this build uses ", LayoutTag::native().describe(),
                      "; regenerate the params file with this build"));
  }
  auto header_mismatch = [&](const char* field, uint64_t got, uint64_t want) {
    return r.error(header_type, header_at,
                   cat(field, " is ", got, " but must be ", want, " (num_inputs ", h.num_inputs,
                       ", num_aux ", h.num_aux, ", domain_size ", h.domain_size, ")"));
  };
  const uint64_t wires = uint64_t{h.num_inputs} + h.num_aux;
  if (h.ic_len != h.num_inputs) return header_mismatch("ic length", h.ic_len, h.num_inputs);
  if (h.density_wires != wires) return header_mismatch("density wires", h.density_wires, wires);
  if (h.l_len != h.num_aux) return header_mismatch("l_query length", h.l_len, h.num_aux);
  if (h.domain_size == 0 || h.h_len != h.domain_size - 1) {
    return header_mismatch("h_query length", h.h_len, h.domain_size - 1);
  }
  if (h.b_g1_len != h.b_g2_len) {
    return header_mismatch("b_g1_query length", h.b_g1_len, h.b_g2_len);
  }

  ProvingKey pk;
  pk.num_inputs = h.num_inputs;
  pk.num_aux = h.num_aux;
  pk.domain_size = h.domain_size;
  ZKP_ASSIGN_OR_RETURN(pk.a_density,
                       read_density(r, ParamsSection::kADensity, wires, options.validate));
  ZKP_ASSIGN_OR_RETURN(pk.b_density,
                       read_density(r, ParamsSection::kBDensity, wires, options.validate));
  if (h.a_len != pk.a_density.count()) {
    return header_mismatch("a_query length", h.a_len, pk.a_density.count());
  }
  if (h.b_g1_len != pk.b_density.count()) {
    return header_mismatch("b_g1_query length", h.b_g1_len, pk.b_density.count());
  }

  // The six fixed points.
  static constexpr const char* kDegenerate =
      " is the point at infinity (a degenerate key: refused)";
  const uint32_t vk_type = type_of(ParamsSection::kVk);
  ZKP_ASSIGN_OR_RETURN(auto vk, r.require(vk_type));
  const uint64_t vk_at = r.find(vk_type)->offset;
  if (vk.size() != kVkBytes) {
    return r.error(vk_type, vk_at, cat("section is ", vk.size(), " bytes, expected ", kVkBytes));
  }
  const char* g1_names[] = {"alpha_g1", "beta_g1", "delta_g1"};
  const char* g2_names[] = {"beta_g2", "gamma_g2", "delta_g2"};
  G1Affine* g1s[] = {&pk.vk.alpha_g1, &pk.vk.beta_g1, &pk.vk.delta_g1};
  G2Affine* g2s[] = {&pk.vk.beta_g2, &pk.vk.gamma_g2, &pk.vk.delta_g2};
  for (size_t i = 0; i < 3; ++i) {
    const uint64_t at1 = vk_at + i * sizeof(G1Affine);
    const uint64_t at2 = vk_at + 3 * sizeof(G1Affine) + i * sizeof(G2Affine);
    // The flag bytes are checked even for a trusted load: these points are copied as values.
    if (options.validate || r.bytes()[at1 + offsetof(G1Affine, infinity)] > 1) {
      ZKP_RETURN_IF_ERROR((check_points<G1Affine, G1Config>(r, vk_type, at1, 1, 1, g1_names[i])));
    }
    if (options.validate || r.bytes()[at2 + offsetof(G2Affine, infinity)] > 1) {
      ZKP_RETURN_IF_ERROR((check_points<G2Affine, G2Config>(r, vk_type, at2, 1, 1, g2_names[i])));
    }
    std::memcpy(static_cast<void*>(g1s[i]), r.bytes().data() + at1, sizeof(G1Affine));
    std::memcpy(static_cast<void*>(g2s[i]), r.bytes().data() + at2, sizeof(G2Affine));
    // A degenerate key (gamma = O makes forged proofs verify): refused even for a trusted load.
    if (g1s[i]->infinity) return r.error(vk_type, at1, cat(g1_names[i], kDegenerate));
    if (g2s[i]->infinity) return r.error(vk_type, at2, cat(g2_names[i], kDegenerate));
  }

  ZKP_ASSIGN_OR_RETURN(auto ic, point_section<G1Affine>(r, ParamsSection::kIc, h.ic_len));
  ZKP_ASSIGN_OR_RETURN(pk.h_query, point_section<G1Affine>(r, ParamsSection::kHQuery, h.h_len));
  ZKP_ASSIGN_OR_RETURN(pk.l_query, point_section<G1Affine>(r, ParamsSection::kLQuery, h.l_len));
  ZKP_ASSIGN_OR_RETURN(pk.a_query, point_section<G1Affine>(r, ParamsSection::kAQuery, h.a_len));
  ZKP_ASSIGN_OR_RETURN(pk.b_g1_query,
                       point_section<G1Affine>(r, ParamsSection::kBG1Query, h.b_g1_len));
  ZKP_ASSIGN_OR_RETURN(pk.b_g2_query,
                       point_section<G2Affine>(r, ParamsSection::kBG2Query, h.b_g2_len));
  if (options.validate) {
    for (auto [s, n] : {std::pair{ParamsSection::kIc, h.ic_len},
                        {ParamsSection::kHQuery, h.h_len},
                        {ParamsSection::kLQuery, h.l_len},
                        {ParamsSection::kAQuery, h.a_len},
                        {ParamsSection::kBG1Query, h.b_g1_len}}) {
      ZKP_RETURN_IF_ERROR((check_points<G1Affine, G1Config>(
          r, type_of(s), r.find(type_of(s))->offset, n, options.threads, nullptr, options.stop)));
    }
    const uint32_t b2 = type_of(ParamsSection::kBG2Query);
    ZKP_RETURN_IF_ERROR((check_points<G2Affine, G2Config>(r, b2, r.find(b2)->offset, h.b_g2_len,
                                                          options.threads, nullptr, options.stop)));
  } else {
    // ic is copied as values: its flag bytes must be 0 or 1 even here.
    const uint64_t ic_at = r.find(type_of(ParamsSection::kIc))->offset;
    for (uint64_t i = 0; i < h.ic_len; ++i) {
      if (r.bytes()[ic_at + i * sizeof(G1Affine) + offsetof(G1Affine, infinity)] > 1) {
        return r.error(type_of(ParamsSection::kIc),
                       ic_at + i * sizeof(G1Affine) + offsetof(G1Affine, infinity),
                       cat("point ", i, ": infinity flag byte is not 0 or 1"));
      }
    }
  }
  pk.vk.ic.assign(ic.begin(), ic.end());
  pk.storage = r.storage();
  ZKP_RETURN_IF_ERROR(pk.check_shape(path));
  return pk;
}

Status verify_params(const std::string& path, unsigned threads, ParamsInfo* info_out) {
  auto info = params_info(path);
  if (info.ok() && info_out != nullptr) *info_out = *info;
  ParamsLoadOptions options;
  options.threads = threads;
  // The load checks the payload checksums before it reads the header, so a corrupt header is
  // reported as such rather than as the odd values it now holds.
  ZKP_RETURN_IF_ERROR(load_params(path, options).status());
  return info.status();
}

}  // namespace zkpipe::groth16
