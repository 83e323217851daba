// The optimal ate pairing of BLS12-381 (host only): Miller loop on the M-type sextic twist
// E': y^2 = x^3 + b' (b' = 4 (u + 1)) in homogeneous projective coordinates with sparse line
// evaluation, and the final exponentiation by the x-based chain of Hayashida-Hayasaka-Teruya.
// Thread-safety: pure functions.
#include "zkpipe/crypto/pairing.h"

#include <vector>

namespace zkpipe::crypto {
namespace {

// Q' = (x', y') on E' maps to Q = (x' / w^2, y' / w^3) on E (w^6 = u + 1). For the line through
// Q with slope lambda = lambda' / w (lambda' the slope on E'), evaluated at P in G1 and multiplied
// by w^3 (in Fp4, a proper subfield, so the final exponentiation removes it):
//   w^3 l(P) = (lambda' x' - y') - lambda' xP v + yP v w,
// which has coefficients 0, 1 and 4 only (Fp12::mul_by_014).

// T = (X : Y : Z) on E', x' = X / Z, y' = Y / Z.
struct TwistPoint {
  Fp2 x, y, z;
};

// 3 b' = 12 (u + 1) times a.
Fp2 mul_by_3b(const Fp2& a) {
  Fp2 a4 = a.dbl().dbl();
  return (a4 + a4.dbl()).mul_by_nonresidue();
}

// Doubles T and returns the tangent line at T. With the curve equation, the tangent scaled by
// 2 Y Z is (Y^2 - 3 b' Z^2) - 3 X^2 xP v + 2 Y Z yP v w; we keep its negation. The doubling is
// that of Costello-Lange-Naehrig (a = 0) with every coordinate scaled by 4 to avoid halvings:
//   X3 = 2 X Y (Y^2 - 9 b' Z^2), Y3 = (Y^2 + 9 b' Z^2)^2 - 108 b'^2 Z^4, Z3 = 8 Y^3 Z.
// 3M + 6S in Fp2.
LineCoeffs doubling_step(TwistPoint& t) {
  Fp2 a = t.x * t.y;
  Fp2 b = t.y.sqr();
  Fp2 c = t.z.sqr();
  Fp2 e = mul_by_3b(c);               // 3 b' Z^2
  Fp2 f = e.dbl() + e;                // 9 b' Z^2
  Fp2 h = (t.y + t.z).sqr() - b - c;  // 2 Y Z
  Fp2 j = t.x.sqr();
  Fp2 e2 = e.sqr();
  Fp2 e2_12 = e2.dbl().dbl();
  e2_12 = e2_12 + e2_12.dbl();
  t.x = (a * (b - f)).dbl();
  t.y = (b + f).sqr() - e2_12;
  t.z = (b * h).dbl().dbl();
  return {e - b, j.dbl() + j, -h};
}

// Adds the affine Q to T and returns the line through them. With theta = Y - y2 Z and
// lambda = X - x2 Z (the slope on E' is theta / lambda), the line scaled by lambda is
// (theta x2 - lambda y2) - theta xP v + lambda yP v w. The sum is the projective chord formula
// (11M + 2S in Fp2). T != +-Q in every step of the loop (T is a multiple of Q below r).
LineCoeffs addition_step(TwistPoint& t, const G2Affine& q) {
  Fp2 theta = t.y - q.y * t.z;
  Fp2 lambda = t.x - q.x * t.z;
  Fp2 c = theta.sqr();
  Fp2 d = lambda.sqr();
  Fp2 e = lambda * d;
  Fp2 f = t.z * c;
  Fp2 g = t.x * d;
  Fp2 h = e + f - g.dbl();
  t.x = lambda * h;
  t.y = theta * (g - h) - e * t.y;
  t.z = t.z * e;
  return {theta * q.x - lambda * q.y, -theta, lambda};
}

Fp12 mul_by_line(const Fp12& f, const LineCoeffs& l, const G1Affine& p) {
  return f.mul_by_014(l.c0, l.c1 * p.x, l.c4 * p.y);
}

// Calls step(false) for each doubling and step(true) for each addition of the Miller loop over
// the bits of |x| below the top one, in loop order.
template <typename Step>
void for_each_line(Step&& step) {
  for (int i = std::bit_width(kPairingXAbs) - 2; i >= 0; --i) {
    step(false);
    if ((kPairingXAbs >> i) & 1) step(true);
  }
}

// The Miller loop shared by every variant: `lines(f, add)` multiplies f by the next line of every
// pair (a doubling line, or an addition line when `add`). f is squared before each doubling but
// the first (f = 1 then).
template <typename Lines>
Fp12 miller_loop_with(Lines&& lines) {
  Fp12 f = Fp12::one();
  bool first = true;
  for_each_line([&](bool add) {
    if (!add && !first) f = f.sqr();
    first = false;
    lines(f, add);
  });
  // x < 0: f_{x,Q} = 1 / f_{|x|,Q} (up to a vertical line), and 1 / f = conj(f) after the
  // final exponentiation.
  return kPairingXIsNegative ? f.conjugate() : f;
}

// a^x for a in the cyclotomic subgroup (x < 0: the inverse is the conjugate).
Fp12 cyclotomic_exp_by_x(const Fp12& a) {
  Fp12 r = a;
  for (int i = std::bit_width(kPairingXAbs) - 2; i >= 0; --i) {
    r = r.cyclotomic_sqr();
    if ((kPairingXAbs >> i) & 1) r = r * a;
  }
  return kPairingXIsNegative ? r.conjugate() : r;
}

}  // namespace

G2Prepared::G2Prepared(const G2Affine& q) {
  if (q.infinity) return;
  identity_ = false;
  TwistPoint t{q.x, q.y, Fp2::one()};
  size_t n = 0;
  for_each_line([&](bool add) { lines_[n++] = add ? addition_step(t, q) : doubling_step(t); });
}

Fp12 multi_miller_loop(std::span<const PairingInput> pairs) {
  struct State {
    const G1Affine* p;
    const G2Affine* q;
    TwistPoint t;
  };
  std::vector<State> states;
  states.reserve(pairs.size());
  for (const auto& [p, q] : pairs) {
    if (!p.infinity && !q.infinity) states.push_back({&p, &q, {q.x, q.y, Fp2::one()}});
  }
  if (states.empty()) return Fp12::one();
  return miller_loop_with([&](Fp12& f, bool add) {
    for (State& s : states) {
      f = mul_by_line(f, add ? addition_step(s.t, *s.q) : doubling_step(s.t), *s.p);
    }
  });
}

Fp12 multi_miller_loop(std::span<const PreparedPairingInput> pairs) {
  std::vector<PreparedPairingInput> live;
  live.reserve(pairs.size());
  for (const auto& pq : pairs) {
    if (!pq.first.infinity && !pq.second->is_identity()) live.push_back(pq);
  }
  if (live.empty()) return Fp12::one();
  size_t n = 0;
  return miller_loop_with([&](Fp12& f, bool) {
    for (const auto& [p, q] : live) f = mul_by_line(f, q->lines()[n], p);
    ++n;
  });
}

Fp12 miller_loop(const G1Affine& p, const G2Affine& q) {
  const PairingInput in{p, q};
  return multi_miller_loop(std::span<const PairingInput>(&in, 1));
}

Fp12 miller_loop(const G1Affine& p, const G2Prepared& q) {
  const PreparedPairingInput in{p, &q};
  return multi_miller_loop(std::span<const PreparedPairingInput>(&in, 1));
}

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part, f^((p^6 - 1)(p^2 + 1)): the result m is in the cyclotomic subgroup, where
  // m^(p^6) = m^-1 = conj(m) and Granger-Scott squaring applies.
  Fp12 t = f.conjugate() * f.inverse();
  Fp12 m = t.frobenius(2) * t;
  // Hard part, m^(3 (p^4 - p^2 + 1) / r) = m^((x - 1)^2 (x + p) (x^2 + p^2 - 1) + 3)
  // (Hayashida, Hayasaka, Teruya, ePrint 2020/875, for BLS12). Powers of p are Frobenius maps.
  Fp12 a = cyclotomic_exp_by_x(m) * m.conjugate();   // m^(x - 1)
  a = cyclotomic_exp_by_x(a) * a.conjugate();        // m^((x - 1)^2)
  Fp12 b = cyclotomic_exp_by_x(a) * a.frobenius(1);  // a^(x + p)
  Fp12 c = cyclotomic_exp_by_x(cyclotomic_exp_by_x(b)) * b.frobenius(2) * b.conjugate();
  return c * m.cyclotomic_sqr() * m;  // b^(x^2 + p^2 - 1) m^3
}

Fp12 pairing(const G1Affine& p, const G2Affine& q) {
  return final_exponentiation(miller_loop(p, q));
}

Fp12 multi_pairing(std::span<const PairingInput> pairs) {
  return final_exponentiation(multi_miller_loop(pairs));
}

Fp12 multi_pairing(std::span<const PreparedPairingInput> pairs) {
  return final_exponentiation(multi_miller_loop(pairs));
}

bool pairing_product_is_one(std::span<const PairingInput> pairs) {
  return multi_pairing(pairs).is_one();
}

bool pairing_product_is_one(std::span<const PreparedPairingInput> pairs) {
  return multi_pairing(pairs).is_one();
}

}  // namespace zkpipe::crypto
