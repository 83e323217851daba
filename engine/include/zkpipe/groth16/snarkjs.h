// zkpipe/groth16/snarkjs.h: interop with snarkjs 0.7.6 on curve bls12381 and the iden3 binary
// formats (the facts: docs/crypto.md, tests/interop/README.md): decimal strings of field elements,
// the verification_key.json / proof.json / public.json files, and .r1cs (v1) / .wtns (v2) readers
// and writers. JSON is passed as text, so no JSON library appears in this header. Every error
// names the file (`what` or the path) and the JSON key or the section and byte offset.
// Thread-safety: pure functions; the file functions touch only the path they are given.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/groth16/keys.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::groth16 {

// ---- decimal strings of canonical (not Montgomery) field elements ----
// "0", "1", ..., r - 1 without leading zeros. Parsing refuses an empty string, a sign, any
// non-digit and values >= the modulus; leading zeros are accepted. `what` prefixes the message
// ("vk.json: IC[3][1]: not a decimal < p: ...").
std::string fr_to_decimal(const Fr& v);
Result<Fr> fr_from_decimal(std::string_view text, std::string_view what);
std::string fp_to_decimal(const crypto::Fp& v);
Result<crypto::Fp> fp_from_decimal(std::string_view text, std::string_view what);

// ---- snarkjs JSON ----
// G1 is [x, y, "1"], infinity ["0", "1", "0"]; G2 [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]].
// The verifying key carries protocol, curve, nPublic, vk_alpha_1, vk_beta_2, vk_gamma_2,
// vk_delta_2 and IC (vk_alphabeta_12 is optional for snarkjs and not written). Public inputs
// exclude the constant one. Output is pretty-printed with a trailing newline.
std::string export_snarkjs_vk(const VerifyingKey& vk);
std::string export_snarkjs_proof(const Proof& proof);
std::string export_snarkjs_public(std::span<const Fr> public_inputs);

// Imports check protocol "groth16" and curve "bls12381" (when present: snarkjs always writes
// them), nPublic against IC, every coordinate (a decimal string below p), and every point (on
// the curve and in the prime-order subgroup). A point's third coordinate must be "1" (["1", "0"]
// in G2), or the point is exactly the encoding of infinity.
// snarkjs's key has no beta_g1 or delta_g1: the imported key sets them to the identity (our
// verifier does not read them; a key imported this way is for verification only).
Result<VerifyingKey> import_snarkjs_vk(std::string_view json_text, std::string_view what);
Result<Proof> import_snarkjs_proof(std::string_view json_text, std::string_view what);
Result<std::vector<Fr>> import_snarkjs_public(std::string_view json_text, std::string_view what);

// ---- iden3 .r1cs (version 1) and .wtns (version 2) ----
// Wire order: ours (1, public inputs, aux) is iden3's (1, public outputs, public inputs, private
// inputs, internal) with nPubOut = 0, nPubIn = num_inputs - 1, nPrvIn = 0 and the aux wires as
// internal signals; reading maps iden3's outputs and public inputs to our public inputs (in file
// order) and everything after them to aux. Coefficients are canonical little-endian (-1 is
// r - 1). The public binding rows are not part of an R1cs (snarkjs adds its own). The writer
// emits the header, constraints and a label section (nLabels = nWires, label of wire j = j).
// Readers check the magic, version, n8 = 32 and the prime r, refuse duplicate sections,
// truncated or oversized sections and non-canonical values, and name the file, the section and
// the byte offset: "c.r1cs: section 2 (constraints) at byte 812: truncated (need 32 bytes, 5
// left)". Custom-gate sections (PLONK, types 4 and 5) are refused; others unknown are skipped.
Status write_iden3_r1cs(const std::string& path, const R1cs& r1cs);
Result<R1cs> read_iden3_r1cs(const std::string& path);
// The full witness: inputs (inputs[0] = 1) then aux.
Status write_iden3_wtns(const std::string& path, const WitnessView& witness);
// The full witness, witness[0] = 1 (checked).
Result<std::vector<Fr>> read_iden3_wtns(const std::string& path);

}  // namespace zkpipe::groth16
