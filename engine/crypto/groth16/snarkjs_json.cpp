// snarkjs JSON interop: decimal strings of field elements (limb arithmetic, base 10^19) and the
// verification_key.json / proof.json / public.json files of snarkjs 0.7.6 on bls12381.
// Thread-safety: pure functions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/groth16/snarkjs.h"

namespace zkpipe::groth16 {
namespace {

using crypto::Fp;
using crypto::Fp2;
using crypto::Limbs;
using Json = nlohmann::ordered_json;

constexpr uint64_t kTen19 = 10000000000000000000ull;  // the largest power of ten below 2^64

template <size_t N>
std::string limbs_to_decimal(Limbs<N> v) {
  if (crypto::limbs_is_zero(v)) return "0";
  std::vector<uint64_t> chunks;  // base 10^19, least significant first
  while (!crypto::limbs_is_zero(v)) {
    unsigned __int128 rem = 0;
    for (size_t i = N; i-- > 0;) {
      const unsigned __int128 cur = (rem << 64) | v[i];
      v[i] = static_cast<uint64_t>(cur / kTen19);
      rem = cur % kTen19;
    }
    chunks.push_back(static_cast<uint64_t>(rem));
  }
  std::string out = std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    const std::string part = std::to_string(chunks[i]);
    out.append(19 - part.size(), '0');
    out += part;
  }
  return out;
}

std::string quoted_prefix(std::string_view text) {
  return "\"" + echo_value(text) + "\"";
}

template <typename F>
Result<F> field_from_decimal(std::string_view text, std::string_view what, const char* name) {
  auto fail = [&](const std::string& why) -> Status {
    return invalid_argument(std::string(what) + ": not a decimal < " + name + ": " +
                            quoted_prefix(text) + " (" + why + ")");
  };
  if (text.empty()) return fail("empty");
  if (text[0] == '+' || text[0] == '-') return fail("a sign is not allowed");
  typename F::L v{};
  for (size_t pos = 0; pos < text.size(); ++pos) {
    const char ch = text[pos];
    if (ch < '0' || ch > '9') {
      return fail("character " + std::to_string(static_cast<unsigned char>(ch)) + " at position " +
                  std::to_string(pos) + " is not a digit");
    }
    unsigned __int128 carry = static_cast<unsigned>(ch - '0');
    for (auto& limb : v) {
      const unsigned __int128 t = static_cast<unsigned __int128>(limb) * 10 + carry;
      limb = static_cast<uint64_t>(t);
      carry = t >> 64;
    }
    // Once the value reaches the modulus, more digits only make it larger.
    if (carry != 0 || !crypto::limbs_less(v, F::kModulus)) {
      return fail(std::string(">= ") + name);
    }
  }
  return F::from_canonical(v);
}

// ---- JSON points ----

Json g1_to_json(const crypto::G1Affine& p) {
  if (p.infinity) return Json::array({"0", "1", "0"});
  return Json::array({fp_to_decimal(p.x), fp_to_decimal(p.y), "1"});
}

Json fp2_to_json(const Fp2& v) {
  return Json::array({fp_to_decimal(v.c0), fp_to_decimal(v.c1)});
}

Json g2_to_json(const crypto::G2Affine& p) {
  if (p.infinity) {
    return Json::array(
        {fp2_to_json(Fp2::zero()), fp2_to_json(Fp2::one()), fp2_to_json(Fp2::zero())});
  }
  return Json::array({fp2_to_json(p.x), fp2_to_json(p.y), fp2_to_json(Fp2::one())});
}

// key: "vk.json: IC[3]" (the file and the JSON path of `j`).
Result<Fp> fp_from_json(const Json& j, const std::string& key) {
  if (!j.is_string()) return invalid_argument(key + ": expected a decimal string");
  return fp_from_decimal(j.get_ref<const std::string&>(), key);
}

Result<Fp2> fp2_from_json(const Json& j, const std::string& key) {
  if (!j.is_array() || j.size() != 2) {
    return invalid_argument(key + ": expected [c0, c1] (two decimal strings)");
  }
  ZKP_ASSIGN_OR_RETURN(Fp c0, fp_from_json(j[0], key + "[0]"));
  ZKP_ASSIGN_OR_RETURN(Fp c1, fp_from_json(j[1], key + "[1]"));
  return Fp2{c0, c1};
}

// Shared by both groups: F is Fp or Fp2, parse reads one coordinate.
template <typename F, typename Cfg, typename Parse, typename InSubgroup>
Result<crypto::AffinePoint<F>> point_from_json(const Json& j, const std::string& key,
                                               const char* shape, const char* infinity_text,
                                               Parse parse, InSubgroup in_subgroup) {
  if (!j.is_array() || (j.size() != 3 && j.size() != 2)) {
    return invalid_argument(key + ": expected " + shape);
  }
  ZKP_ASSIGN_OR_RETURN(F x, parse(j[0], key + "[0]"));
  ZKP_ASSIGN_OR_RETURN(F y, parse(j[1], key + "[1]"));
  if (j.size() == 3) {
    ZKP_ASSIGN_OR_RETURN(F z, parse(j[2], key + "[2]"));
    if (z.is_zero()) {
      if (!x.is_zero() || y != F::one()) {
        return invalid_argument(key + ": the point at infinity must be written " + infinity_text);
      }
      return crypto::AffinePoint<F>::identity();
    }
    if (z != F::one()) {
      return invalid_argument(key + "[2]: expected 1 (affine coordinates) or 0 (infinity)");
    }
  }
  const crypto::AffinePoint<F> p{x, y, false};
  if (!crypto::is_on_curve<F, Cfg>(p)) return invalid_argument(key + ": not on the curve");
  if (!in_subgroup(p)) return invalid_argument(key + ": not in the prime-order subgroup");
  return p;
}

Result<crypto::G1Affine> g1_from_json(const Json& j, const std::string& key) {
  return point_from_json<Fp, crypto::G1Config>(
      j, key, "[x, y, \"1\"] (decimal strings)", "[\"0\", \"1\", \"0\"]", fp_from_json,
      [](const crypto::G1Affine& p) { return crypto::g1_in_subgroup(p); });
}

Result<crypto::G2Affine> g2_from_json(const Json& j, const std::string& key) {
  return point_from_json<Fp2, crypto::G2Config>(
      j, key, "[[x.c0, x.c1], [y.c0, y.c1], [\"1\", \"0\"]] (decimal strings)",
      "[[\"0\", \"0\"], [\"1\", \"0\"], [\"0\", \"0\"]]", fp2_from_json,
      [](const crypto::G2Affine& p) { return crypto::g2_in_subgroup(p); });
}

Result<Json> parse_json(std::string_view text, std::string_view what) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::exception& e) {
    return invalid_argument(std::string(what) + ": not valid JSON: " + echo_value(e.what()));
  }
}

Result<const Json*> member(const Json& obj, const char* name, std::string_view what) {
  if (!obj.is_object()) return invalid_argument(std::string(what) + ": expected a JSON object");
  auto it = obj.find(name);
  if (it == obj.end()) return invalid_argument(std::string(what) + ": missing key '" + name + "'");
  return &*it;
}

// protocol must be "groth16" and curve "bls12381" where present.
Status check_protocol_and_curve(const Json& obj, std::string_view what) {
  if (!obj.is_object()) return invalid_argument(std::string(what) + ": expected a JSON object");
  const std::pair<const char*, const char*> expected[] = {{"protocol", "groth16"},
                                                          {"curve", "bls12381"}};
  for (const auto& [key, value] : expected) {
    auto it = obj.find(key);
    if (it == obj.end()) continue;
    if (!it->is_string() || it->get_ref<const std::string&>() != value) {
      return invalid_argument(std::string(what) + ": " + key + ": expected \"" + value +
                              "\", found " + echo_value(it->dump()));
    }
  }
  return ok_status();
}

std::string dump(const Json& j) {
  return j.dump(1) + "\n";
}

}  // namespace

std::string fr_to_decimal(const Fr& v) {
  return limbs_to_decimal(v.to_canonical());
}
std::string fp_to_decimal(const Fp& v) {
  return limbs_to_decimal(v.to_canonical());
}
Result<Fr> fr_from_decimal(std::string_view text, std::string_view what) {
  return field_from_decimal<Fr>(text, what, "r");
}
Result<Fp> fp_from_decimal(std::string_view text, std::string_view what) {
  return field_from_decimal<Fp>(text, what, "p");
}

std::string export_snarkjs_vk(const VerifyingKey& vk) {
  Json j;
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  j["nPublic"] = vk.ic.empty() ? 0 : vk.ic.size() - 1;
  j["vk_alpha_1"] = g1_to_json(vk.alpha_g1);
  j["vk_beta_2"] = g2_to_json(vk.beta_g2);
  j["vk_gamma_2"] = g2_to_json(vk.gamma_g2);
  j["vk_delta_2"] = g2_to_json(vk.delta_g2);
  Json ic = Json::array();
  for (const auto& p : vk.ic) ic.push_back(g1_to_json(p));
  j["IC"] = std::move(ic);
  return dump(j);
}

std::string export_snarkjs_proof(const Proof& proof) {
  Json j;
  j["pi_a"] = g1_to_json(proof.a);
  j["pi_b"] = g2_to_json(proof.b);
  j["pi_c"] = g1_to_json(proof.c);
  j["protocol"] = "groth16";
  j["curve"] = "bls12381";
  return dump(j);
}

std::string export_snarkjs_public(std::span<const Fr> public_inputs) {
  Json j = Json::array();
  for (const Fr& v : public_inputs) j.push_back(fr_to_decimal(v));
  return dump(j);
}

Result<VerifyingKey> import_snarkjs_vk(std::string_view json_text, std::string_view what) {
  const std::string w(what);
  ZKP_ASSIGN_OR_RETURN(Json j, parse_json(json_text, what));
  ZKP_RETURN_IF_ERROR(check_protocol_and_curve(j, what));
  VerifyingKey vk;
  ZKP_ASSIGN_OR_RETURN(const Json* alpha, member(j, "vk_alpha_1", what));
  ZKP_ASSIGN_OR_RETURN(vk.alpha_g1, g1_from_json(*alpha, w + ": vk_alpha_1"));
  const std::pair<const char*, G2Affine*> g2s[] = {
      {"vk_beta_2", &vk.beta_g2}, {"vk_gamma_2", &vk.gamma_g2}, {"vk_delta_2", &vk.delta_g2}};
  for (const auto& [key, out] : g2s) {
    ZKP_ASSIGN_OR_RETURN(const Json* p, member(j, key, what));
    ZKP_ASSIGN_OR_RETURN(*out, g2_from_json(*p, w + ": " + key));
  }
  // Not in snarkjs's key; our verifier does not read them.
  vk.beta_g1 = G1Affine::identity();
  vk.delta_g1 = G1Affine::identity();
  ZKP_ASSIGN_OR_RETURN(const Json* ic, member(j, "IC", what));
  if (!ic->is_array() || ic->empty()) {
    return invalid_argument(w + ": IC: expected a non-empty array of G1 points");
  }
  ZKP_ASSIGN_OR_RETURN(const Json* n_public, member(j, "nPublic", what));
  if (!n_public->is_number_unsigned() || n_public->get<uint64_t>() != ic->size() - 1) {
    return invalid_argument(w + ": nPublic: expected " + std::to_string(ic->size() - 1) +
                            " (the number of IC points minus one), found " +
                            echo_value(n_public->dump()));
  }
  vk.ic.reserve(ic->size());
  for (size_t i = 0; i < ic->size(); ++i) {
    ZKP_ASSIGN_OR_RETURN(G1Affine p, g1_from_json((*ic)[i], w + ": IC[" + std::to_string(i) + "]"));
    vk.ic.push_back(p);
  }
  ZKP_RETURN_IF_ERROR(check_key_points(vk, w));
  return vk;
}

Result<Proof> import_snarkjs_proof(std::string_view json_text, std::string_view what) {
  const std::string w(what);
  ZKP_ASSIGN_OR_RETURN(Json j, parse_json(json_text, what));
  ZKP_RETURN_IF_ERROR(check_protocol_and_curve(j, what));
  Proof proof;
  ZKP_ASSIGN_OR_RETURN(const Json* a, member(j, "pi_a", what));
  ZKP_ASSIGN_OR_RETURN(proof.a, g1_from_json(*a, w + ": pi_a"));
  ZKP_ASSIGN_OR_RETURN(const Json* b, member(j, "pi_b", what));
  ZKP_ASSIGN_OR_RETURN(proof.b, g2_from_json(*b, w + ": pi_b"));
  ZKP_ASSIGN_OR_RETURN(const Json* c, member(j, "pi_c", what));
  ZKP_ASSIGN_OR_RETURN(proof.c, g1_from_json(*c, w + ": pi_c"));
  if (proof.a.infinity) return invalid_argument(w + ": pi_a is the point at infinity (refused)");
  if (proof.b.infinity) return invalid_argument(w + ": pi_b is the point at infinity (refused)");
  return proof;
}

Result<std::vector<Fr>> import_snarkjs_public(std::string_view json_text, std::string_view what) {
  const std::string w(what);
  ZKP_ASSIGN_OR_RETURN(Json j, parse_json(json_text, what));
  if (!j.is_array()) return invalid_argument(w + ": expected an array of decimal strings");
  std::vector<Fr> out;
  out.reserve(j.size());
  for (size_t i = 0; i < j.size(); ++i) {
    const std::string key = w + ": [" + std::to_string(i) + "]";
    if (!j[i].is_string()) return invalid_argument(key + ": expected a decimal string");
    ZKP_ASSIGN_OR_RETURN(Fr v, fr_from_decimal(j[i].get_ref<const std::string&>(), key));
    out.push_back(v);
  }
  return out;
}

}  // namespace zkpipe::groth16
