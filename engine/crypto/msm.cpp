// The G1 and G2 instantiations of the Pippenger MSM (msm_impl.h): their endomorphisms and
// cost tables. Thread-safety: see msm.h.
#include "zkpipe/crypto/msm.h"

#include "msm_impl.h"
#include "zkpipe/crypto/group_ops.h"

namespace zkpipe::crypto {
namespace {

// Operation costs in coordinate-field multiplications (Fp for G1, Fp2 for G2), fitted to
// single-threaded timings of the msm loops on the 2-vCPU Xeon development machine (AVX-512,
// ADX; Fp mul ~45 ns, Fp2 mul ~150 ns) over n = 2^8 .. 2^18 with every window size; the
// additions and subtractions are folded into the multiplication counts. The inversion entries
// were lowered when inversion moved from Fermat to binary Euclid (Fp 30 -> 15 us, Fp2 mul now
// ~110 ns); the plans chosen for 2^10 .. 2^20 did not change.
constexpr msm_detail::MsmCosts kG1Costs{9.0, 13.0, 350.0, 20.0, 32.0};
constexpr msm_detail::MsmCosts kG2Costs{7.5, 11.0, 140.0, 17.0, 27.0};
// G1 with the AVX-512 IFMA batch adder (batch_add_ifma.h): ~73 ns per batch-affine addition and
// ~3.5 us per batch (inversion and lane tree) against ~43 ns per scalar Fp multiplication.
constexpr msm_detail::MsmCosts kG1CostsIfma{1.7, 13.0, 80.0, 5.0, 32.0};

const msm_detail::MsmCosts& g1_costs() {
  static const bool ifma = msm_detail::batch_add_g1_ifma_available();
  return ifma ? kG1CostsIfma : kG1Costs;
}

// [x^2] P = -phi(P) = (beta x, -y) on G1.
G1Affine g1_x2(const G1Affine& p) {
  static const Fp beta = g1_beta();
  return {p.x * beta, -p.y, false};
}

// [x^2] P = psi^2(P) = (x N(cx), y N(cy)) on G2, N(c) = c conj(c) in Fp.
struct Psi2 {
  Fp nx, ny;
};
G2Affine g2_x2(const G2Affine& p) {
  static const Psi2 k = [] {
    const PsiCoefficients& c = g2_psi_coefficients();
    return Psi2{(c.cx * c.cx.conjugate()).c0, (c.cy * c.cy.conjugate()).c0};
  }();
  return {p.x * k.nx, p.y * k.ny, false};
}

}  // namespace

MsmPlan msm_plan_g1(size_t n, unsigned threads) {
  return msm_detail::choose_plan(2 * n, msm_detail::kGlvDigitBits, resolve_threads(threads),
                                 g1_costs(), MsmBuckets::kAuto, 0);
}
MsmPlan msm_plan_g2(size_t n, unsigned threads) {
  return msm_detail::choose_plan(2 * n, msm_detail::kGlvDigitBits, resolve_threads(threads),
                                 kG2Costs, MsmBuckets::kAuto, 0);
}

uint64_t msm_scratch_bytes_g1(size_t n, const MsmOptions& options) {
  return msm_detail::scratch_bytes<G1>(n, options, g1_costs(),
                                       msm_detail::batch_add_g1_ifma_available());
}
uint64_t msm_scratch_bytes_g2(size_t n, const MsmOptions& options) {
  return msm_detail::scratch_bytes<G2>(n, options, kG2Costs, false);
}

G1 msm(const G1Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options) {
  return msm_detail::msm<G1>(bases, scalars, n, options, g1_costs(), g1_x2);
}
G2 msm(const G2Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options) {
  return msm_detail::msm<G2>(bases, scalars, n, options, kG2Costs, g2_x2);
}

}  // namespace zkpipe::crypto
