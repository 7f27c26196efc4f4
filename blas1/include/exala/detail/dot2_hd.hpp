// exala/detail/dot2_hd.hpp - Dot2 (Ogita, Rump, Oishi, "Accurate sum and
// dot product", SIAM J. Sci. Comput. 26, 2005) as chains plus a pairwise
// tree, with the proven bound of the CPU's SIMD kernels
// (blas1/kernels/blas1_simd_impl.hpp, dot_bounded_kernel): the per-thread
// arithmetic of the CUDA dot and gemv (gpu/cuda/src/blas12_cuda.cu), shared
// with their host engines so that CI tests it (EXALA_HD).
//
// Guarantee: a state built from n terms a_i b_i (zeros included) in L
// chains, merged pairwise in any tree, gives hi + lo with |S - hi - lo| <=
// err for the exact S = sum a_i b_i, where err = 2^-105 K P' + 2^-1000,
// K = (2n + 2(L + 1) + 2)(n + (L + 1) + 2), P' the computed sum of |p_i|
// (the kernel's proof with L + 1 "lanes": its N counts every TwoSum error
// and every e_i, its partial sums are bounded whatever the association,
// and its (1 + gamma) products stay below 1.01 for n + L <= 2^24). A
// state that is not finite (inf, NaN, an overflow on the way) gives no
// bound: the caller forms the value exactly.
#pragma once

#include <cmath>
#include <cstdint>

#include "exala/detail/round_bounded_hd.hpp"
#include "exala/hd.hpp"
#include "exala/rounding.hpp"

namespace exala::detail::dot2 {

// The bound's range: n + L <= 2^24 terms and chains.
inline constexpr double max_terms = 16777216.0;

struct state {
  double s = 0.0;   // the running sum
  double c = 0.0;   // the sum of the errors (TwoProd's e, TwoSum's q)
  double pa = 0.0;  // the sum of |p|
};

// One term a b into a chain.
EXALA_HD inline void step(state& st, double a, double b) noexcept {
  const double p = a * b;
  const double e = std::fma(a, b, -p);
  double t, q;
  hd::two_sum(st.s, p, t, q);
  st.s = t;
  st.c = st.c + (e + q);
  st.pa = st.pa + std::fabs(p);
}

// Another chain's (or subtree's) state into this one.
EXALA_HD inline void merge(state& into, const state& other) noexcept {
  double t, q;
  hd::two_sum(into.s, other.s, t, q);
  into.s = t;
  into.c = into.c + (other.c + q);
  into.pa = into.pa + other.pa;
}

// The reductions of one vector pass: term i is a_i b_i with (a_i, b_i) =
// (x_i, y_i) for dot, (x_i, 1) for sum, (|x_i|, 1) for asum and (x_i, x_i)
// for nrm2 (whose result is the square root of the sum). A product with 1 is
// exact, so the bound holds as stated for every kind.
enum class reduction { dot, sum, asum, nrm2 };
EXALA_HD inline void add_term(state& st, reduction r, double x, double y) noexcept {
  switch (r) {
    case reduction::dot: step(st, x, y); return;
    case reduction::sum: step(st, x, 1.0); return;
    case reduction::asum: step(st, std::fabs(x), 1.0); return;
    case reduction::nrm2: step(st, x, x); return;
  }
}

// The bounded value of a state over n terms in L chains, or false.
EXALA_HD inline bool finish(const state& st, double n, double chains, bounded& out) noexcept {
  if (!(n + chains <= max_terms)) return false;
  if (!(st.s - st.s == 0.0 && st.c - st.c == 0.0 && st.pa - st.pa == 0.0)) return false;
  hd::two_sum(st.s, st.c, out.hi, out.lo);
  if (!(out.hi - out.hi == 0.0)) return false;
  const double lanes = chains + 1.0;
  const double k = (2.0 * n + 2.0 * lanes + 2.0) * (n + lanes + 2.0);  // exact: < 2^53
  out.err = st.pa * (k * 0x1p-105) + 0x1p-1000;
  return out.err - out.err == 0.0;
}

// round(alpha S + beta y) from a state over n terms in L chains (beta == 0:
// y not read), decided as round_bounded(_axpby) decides, or false.
EXALA_HD inline bool round_state(const state& st, double n, double chains, double alpha, double beta, double y,
                                 rounding mode, double& out) noexcept {
  if (!std::isfinite(alpha) || !std::isfinite(beta)) return false;
  bounded b;
  if (!finish(st, n, chains, b)) return false;
  if (alpha == 1.0 && beta == 0.0) return hd::round_bounded(b.hi, b.lo, b.err, mode, out);
  return hd::round_bounded_axpby(alpha, b, beta, beta == 0.0 ? 0.0 : y, mode, out);
}

// x_i of a triangular solve from the Dot2 state of sum_(j<i) a_ij x_j over
// `terms` terms in one chain: the numerator b - sum bounded
// (bounded_axpby; with no terms it is b itself, exactly), then x_i =
// round(numerator) (unit diagonal) or round(numerator / diag)
// (round_bounded_div), or false.
EXALA_HD inline bool trsv_decide(const state& st, double terms, double b, double diag, bool unit, rounding mode,
                                 double& out) noexcept {
  bounded s, num;
  if (terms == 0.0) {
    if (!(b - b == 0.0)) return false;
    num = bounded{b, 0.0, 0.0};
  } else if (!finish(st, terms, 1.0, s) || !hd::bounded_axpby(-1.0, s, 1.0, b, num)) {
    return false;
  }
  return unit ? hd::round_bounded(num.hi, num.lo, num.err, mode, out) : hd::round_bounded_div(num, diag, mode, out);
}

// A triangular solve in forward form: op(A) lower triangular, row i of it
// at base[i rs + j cs] (strides of either sign: a backward solve runs on
// the reversed indices), x_i at x[x0 + i xs].
struct trsv_form {
  std::int64_t n;
  const double* base;
  std::int64_t rs, cs;
  std::int64_t x0, xs;
  EXALA_HD double at(std::int64_t i, std::int64_t j) const noexcept { return base[i * rs + j * cs]; }
  EXALA_HD std::int64_t xi(std::int64_t i) const noexcept { return x0 + i * xs; }
};
inline constexpr int trsv_block = 128;  // rows of a diagonal block (one CUDA block)

// Element i of a BLAS vector of n elements with increment inc (negative:
// the vector runs backward from the end).
EXALA_HD inline std::int64_t element(std::int64_t i, std::int64_t n, std::int64_t inc) noexcept {
  return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

// The device layout of the dot (a CUDA block per chunk) and of gemv.
inline constexpr int dot_chains = 256;          // threads of a block: chains per chunk
inline constexpr std::int64_t dot_chunk = 65536;  // terms per chunk
inline constexpr int col_chains = 32;           // a warp per output (contiguous terms)
// Outputs along A's contiguous dimension: `groups` chains per output, each
// a contiguous range of the terms, so that m * groups threads keep the
// memory busy (a power of two in 1..64, at most the number of terms).
EXALA_HD inline int row_groups(std::int64_t outputs, std::int64_t terms) noexcept {
  int g = 1;
  while (g < 64 && outputs * g < (std::int64_t{1} << 18) && 2 * std::int64_t{g} <= terms) g *= 2;
  return g;
}

}  // namespace exala::detail::dot2
