// Internal: the gemm part of a kernel set (kernel_set.hpp): the kernels of the
// exact gemm of blas3 (residue packing, the residue DGEMM micro-kernel, the
// Garner digits and the rounding), one per instruction set (generic/gemm.cpp,
// avx2/gemm.cpp, avx512/gemm.cpp). They use the standard library only.
//
// What a kernel computes (the same exact integers in every set, so the set
// never changes a result bit):
//  * pack_a / pack_b: residues r = v mod m of integer-valued operands v,
//    |r| <= m/2 + 8 (balanced, "nearly reduced": see residue_bound), laid out
//    for the micro-kernel and padded with zeros;
//  * kernel: C := reduce(C + Ap * Bp) on an mr x nr block, where every
//    product of residues and every partial sum is an integer of magnitude
//    <= 2^53, hence exact in binary64 whatever the order or fusion of the
//    operations, and reduce() maps the exact integer sum back into
//    |c| <= m/2 + 8 (an exact fused multiply-subtract of q*m).
//
// The integer operands come in one of two forms (see gemm_crt.cpp):
//  * one limb:  v = lo, an integer-valued double with |v| <= 2^53;
//  * two limbs: v = hi * 2^44 + lo, |hi| < 2^53, |lo| < 2^44, both integer
//    valued and of the sign of v.
// Assumptions: binary64; the kernels' exactness does not depend on the
// floating-point rounding direction (every bound below allows a rounding
// error of one ulp in the two inexact operations, x * minv and the rounding
// to an integer).
#pragma once

#include <cstdint>

namespace exala::detail::gemm3 {

// One modulus and the constants the kernels need.
struct modulus {
  double m;     // an odd prime, 2^24 - 2^16 < m <= 2^24 - 2^10
  double minv;  // fl(1 / m)
  double p44;   // 2^44 mod m, in [0, m)
  double mh;    // m rounded down to a multiple of 2^12 (portable reduction)
  double ml;    // m - mh, < 2^12
};

// Residue bound: every reduction maps an integer v with |v| <= 2^53 + 2^48
// to r = v - q m with |r| < m/2 + 8 =: residue_bound(m). Proof: minv and
// x = fl(v * minv) each carry a relative error of at most 2^-52 (one ulp, in
// any rounding direction), so |x - v/m| <= |v/m| 2^-50.99; the rounding of x
// to the integer q adds at most 1/2 + eta, with eta = 0 for an exact
// round-to-nearest instruction and eta <= 2^-23 for the portable x +- 1/2
// truncation (|x| < 2^30). Hence |r| = m |v/m - q| <= m/2 + m eta +
// |v| 2^-50.99 <= m/2 + 2 + 4.2 < m/2 + 8 for m < 2^24. The subtraction
// v - q m is exact: one FMA (its exact result is an integer below 2^24), or
// without FMA (v - q mh) - q ml with mh = m rounded down to a multiple of
// 2^12 and ml = m - mh: q < 2^30, so q mh (a 30-bit times a 12-bit integer)
// and q ml are exact, and both differences are integers below 2^53.
// The micro-kernel sums at most max_kc products: max_kc * (m/2 + 8)^2 +
// (m/2 + 8) <= 2^53 for every m <= 2^24 - 2^10 (checked in gemm_crt.cpp).
inline constexpr int max_kc = 128;

// At most this many moduli (their product stays below 2^240: four limbs).
inline constexpr int max_moduli = 10;

// The constants of the balanced Garner recurrence: md[t] and inv[s][t] =
// m_s^-1 mod m_t (s < t) as an integer-valued double below 2^24.
struct garner_consts {
  modulus md[max_moduli];
  double inv[max_moduli][max_moduli];
};

struct gemm_kernels {
  int mr;  // rows of the micro-tile (a multiple of the vector width)
  int nr;  // columns of the micro-tile
  // Packs rows [0, mc) x columns [0, kc) of op(A) given column-major
  // (element (i, l) at lo[i + l * ld], and hi[...] when hi != nullptr) into
  // ceil(mc / mr) panels of mr x kc: dst[p * mr * kc + l * mr + r] holds the
  // residue of element (p * mr + r, l), zero past mc.
  void (*pack_a)(const double* hi, const double* lo, std::int64_t ld, std::int64_t mc,
                 std::int64_t kc, const modulus& md, double* dst);
  // Packs rows [0, kc) x columns [0, nc) of op(B) given row-major (element
  // (l, j) at lo[l * ld + j]) into ceil(nc / nr) panels of kc x nr:
  // dst[q * nr * kc + l * nr + c] holds the residue of element (l, q * nr + c).
  void (*pack_b)(const double* hi, const double* lo, std::int64_t ld, std::int64_t kc,
                 std::int64_t nc, const modulus& md, double* dst);
  // C (mr x nr, column-major with leading dimension ldc) := reduce((first ?
  // 0 : C) + Ap Bp) for one packed A panel (kc x mr) and B panel (kc x nr),
  // kc <= max_kc, |C| <= m/2 + 8 on entry.
  void (*kernel)(std::int64_t kc, const double* ap, const double* bp, double* c, std::int64_t ldc,
                 bool first, const modulus& md);
  // Mixed-radix digits of `count` entries (Garner's algorithm with balanced
  // digits, Knuth TAOCP 4.3.2): from residues c[t * plane + e] (|c| < m_t/2
  // + 8), v[t * count + e] = v_t with |v_t| < m_t/2 + 8 and
  // v_0 + m_0 (v_1 + m_1 (v_2 + ...)) == X (mod M). Each step is
  // v <- reduce((v - v_s) * inv[s][t]) mod m_t: |v - v_s| < 2^24 + 16 and
  // the product is an integer below 2^49, exact, so the reduction bound of
  // the kernels applies.
  void (*garner)(const double* c, std::int64_t plane, std::int64_t count, int nmod,
                 const garner_consts& g, double* v);
  // The common case of the rounding, to nearest, for `count` entries of one
  // column of C (c[e], read only when beta != 0): from garner's digits,
  // S_e = X_e 2^(row_scale[e] + col_scale), alpha and beta
  // powers of two (or beta == 0), writes c[e] = round(alpha S_e + beta c[e])
  // where a bound decides it (gemm_finish_avx2.hpp) and sets left[e] = 1,
  // c[e] untouched, for the others (returns how many). Null in sets without it.
  std::int64_t (*finish_nearest)(const double* v, std::int64_t count, int nmod, const garner_consts& g,
                                 const std::int64_t* row_scale, std::int64_t col_scale, double alpha,
                                 double beta, double* c, unsigned char* left) noexcept;
  // The unrounded output (problem::c_lo) of `count` entries of one column:
  // hi[e] + lo[e] within err[e] of S_e (as above, without alpha and beta),
  // where the scale allows it; left[e] = 1, nothing written, for the others.
  std::int64_t (*split_unrounded)(const double* v, std::int64_t count, int nmod, const garner_consts& g,
                                  const std::int64_t* row_scale, std::int64_t col_scale, double* hi,
                                  double* lo, double* err, unsigned char* left) noexcept;
};

extern const gemm_kernels gemm_generic;
extern const gemm_kernels gemm_avx2;
extern const gemm_kernels gemm_avx512;

}  // namespace exala::detail::gemm3
