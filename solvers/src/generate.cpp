// generate_ill_conditioned_trsv: lower triangular systems T x = b with a
// prescribed Skeel condition number cond(T, x), every entry of T and b an
// exactly representable double and the exact solution x well defined.
//
// Guarantee: for 1 <= cond <= 1e60 (n = 1: cond <= 10), cond(T, x) of the
// exact solution x = T^-1 b lies within a factor 1.1 of the request (by
// construction, and checked against MPFR by the tests; the internal estimate
// is accurate to about n u relative and x deviates from its design by a
// relative 2^-20 at most, checked, see below), or invalid_argument is thrown
// when n is too small for cond. Deterministic in (n, cond, seed) on every
// platform (own random streams: SplitMix64, no std distributions).
//
// Construction. The idea follows N. Louvet (thesis, Perpignan 2007, and
// Langlois & Louvet 2007): build the system around an exactly known solution
// with error-free arithmetic, and steer the conditioning with one parameter.
// Louvet makes the row sums exact with VecSum for x = (1, ..., 1) and spreads
// entry magnitudes by 10^(+-c); here, so that the request can be met within a
// small factor for every n, the parameter acts through a structure whose
// condition number can be computed accurately in double:
//  * T = S (D - g G) S with D = diag(d_i), d_i in [1/8, 16) random, G >= 0
//    strictly lower with G_ij = d_i u_ij, u_ij uniform in [0, 1), S a random
//    signature matrix (so T's off-diagonal signs look random). D - gG is an
//    M-matrix, so |T^-1| = (D - gG)^-1 >= 0 and |T| = D + gG: the Skeel
//    numerator |T^-1| |T| |x| is a substitution with nonnegative terms only
//    (no cancellation), accurate to ~2n u in double. It is nondecreasing and
//    continuous in g (Neumann series), from cond = 1 at g = 0: bisection on
//    log2(g) reaches the request within 2%.
//  * The design solution x^w has random signs and magnitudes in [1/4, 8).
//    b is built row by row so that the EXACT solution stays at x^w: with S_i
//    = sum_{j<i} t_ij x_j held exactly in a superaccumulator (x_j as a
//    5-term expansion of the exact x_j, computed alongside), b_i =
//    round(S_i + t_ii x^w_i). The exact x_i = (b_i - S_i) / t_ii then differs
//    from x^w_i by |b_i| u / |t_ii x^w_i| <= u (|T||x^w|)_i / (t_ii |x^w_i|)
//    relative only (the rounding of b_i, never amplified: later rows absorb
//    it). That per-row factor is checked to stay below 2^-20 (so cond moves
//    by less than 1e-6 relative); it fails only when few rows must carry a
//    huge cond (one row amplifying by ~1/u): n = 2 reaches ~1e10, n = 4
//    ~1e25, n >= 8 everything up to 1e60. The 5-term expansions carry x_j to
//    ~2^-260 relative, so the errors of S_i stay negligible up to 1e60.
// Cost: O(n^2) per bisection step (about 40 steps), plus n^2/2 x 5 exact
// products for b.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "exala/checked.hpp"
#include "exala/solvers.hpp"
#include "exala/superaccumulator.hpp"

namespace exala {

namespace {

constexpr double max_cond = 1e60;
constexpr int expansion_terms = 5;

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [0, 1) with 53 random bits.
double unit_double(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1p-53; }

class stream {
 public:
  explicit stream(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return splitmix64(state_);
  }
  double unit() { return unit_double(next()); }

 private:
  std::uint64_t state_;
};

struct design {
  std::int64_t n;
  std::uint64_t matrix_key;  // u_ij = hash(matrix_key, i, j)
  std::vector<double> d;     // diagonal
  std::vector<double> s;     // signature, +-1
  std::vector<double> xw;    // design solution
  double max_abs_x;

  double u(std::int64_t i, std::int64_t j) const {
    return unit_double(splitmix64(matrix_key ^ static_cast<std::uint64_t>(i * n + j) * 0xd1b54a32d192ed03ULL));
  }
  // |t_ij| for j < i at parameter g (the magnitude of the entry of T)
  double g_entry(double gd_i, std::int64_t i, std::int64_t j) const { return gd_i * u(i, j); }
};

// cond(T(g), x^w), with nonnegative terms only; +inf on overflow.
double condition_at(const design& w, double g) {
  const std::int64_t n = w.n;
  std::vector<double> z(static_cast<std::size_t>(n));
  double zmax = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double gd = g * w.d[static_cast<std::size_t>(i)];
    double y = w.d[static_cast<std::size_t>(i)] * std::fabs(w.xw[static_cast<std::size_t>(i)]);
    double gz = 0.0;
    for (std::int64_t j = 0; j < i; ++j) {
      const double gij = w.g_entry(gd, i, j);
      y += gij * std::fabs(w.xw[static_cast<std::size_t>(j)]);
      gz += gij * z[static_cast<std::size_t>(j)];
    }
    const double zi = (y + gz) / w.d[static_cast<std::size_t>(i)];
    z[static_cast<std::size_t>(i)] = zi;
    if (!(zi <= zmax)) zmax = zi;  // also catches +inf / NaN
  }
  if (!std::isfinite(zmax)) return std::numeric_limits<double>::infinity();
  return zmax / w.max_abs_x;
}

}  // namespace

trsv_problem generate_ill_conditioned_trsv(std::int64_t n, double cond, std::uint64_t seed) {
  if (n < 1) throw invalid_argument("n", "must be >= 1, got " + std::to_string(n));
  detail::checked_count("n", n, n);  // T has n * n entries: 2^32 would wrap to 0
  if (!std::isfinite(cond) || !(cond >= 1.0) || cond > max_cond)
    throw invalid_argument("cond", "must be finite and in [1, 1e60], got " + std::to_string(cond));
  if (n == 1 && cond > 10.0)
    throw invalid_argument("cond", "must be <= 10 for n = 1 (a 1 x 1 system has condition 1), got " +
                                       std::to_string(cond));

  stream rng(splitmix64(seed ^ 0x45584c41ULL) ^ static_cast<std::uint64_t>(n));
  design w;
  w.n = n;
  w.matrix_key = rng.next();
  w.d.resize(static_cast<std::size_t>(n));
  w.s.resize(static_cast<std::size_t>(n));
  w.xw.resize(static_cast<std::size_t>(n));
  w.max_abs_x = 0.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    w.d[k] = std::ldexp(1.0 + rng.unit(), static_cast<int>(rng.next() % 8) - 3);  // [1/8, 16)
    w.s[k] = (rng.next() & 1) ? -1.0 : 1.0;
    const double mag = std::ldexp(1.0 + rng.unit(), static_cast<int>(rng.next() % 5) - 2);
    w.xw[k] = (rng.next() & 1) ? -mag : mag;
    w.max_abs_x = std::fmax(w.max_abs_x, mag);
  }

  // Bisection on log2(g): cond(0) = 1, nondecreasing, unbounded for n >= 2.
  double g = 0.0;
  if (n >= 2 && cond > 1.0) {
    double lo = -90.0, hi = 220.0;  // cond(2^-90) ~ 1, cond(2^220) >= 1e60 for n >= 2
    for (int it = 0; it < 200; ++it) {
      const double mid = 0.5 * (lo + hi);
      const double c = condition_at(w, std::exp2(mid));
      if (std::fabs(std::log(c / cond)) < std::log(1.02)) {
        lo = hi = mid;
        break;
      }
      if (c < cond)
        lo = mid;
      else
        hi = mid;
      if (hi - lo < 1e-12) break;
    }
    g = std::exp2(0.5 * (lo + hi));
  }

  trsv_problem p;
  p.n = n;
  p.t.assign(static_cast<std::size_t>(n * n), 0.0);
  p.b.assign(static_cast<std::size_t>(n), 0.0);
  double deviation = 0.0;  // max_i u (|T| |x^w|)_i / (t_ii |x^w_i|), see below
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const double gd = g * w.d[k];
    double* row = p.t.data() + static_cast<std::size_t>(i * n);
    double sum = w.d[k] * std::fabs(w.xw[k]);
    for (std::int64_t j = 0; j < i; ++j) {
      row[j] = -(w.s[k] * w.s[static_cast<std::size_t>(j)]) * w.g_entry(gd, i, j);
      sum += std::fabs(row[j]) * std::fabs(w.xw[static_cast<std::size_t>(j)]);
    }
    row[i] = w.d[k];
    deviation = std::fmax(deviation, 0x1p-53 * sum / (w.d[k] * std::fabs(w.xw[k])));
  }
  // The rounding of b_i moves the exact x_i off x^w_i by up to this relative
  // amount; it stays negligible unless one row has to carry an amplification
  // near 1/u (few rows, huge cond: e.g. n = 2 and cond > ~1e9).
  if (!(deviation <= 0x1p-20))
    throw invalid_argument("cond", std::to_string(cond) + " is beyond what n = " + std::to_string(n) +
                                       " rows reach with exactly representable data (one row "
                                       "would have to amplify errors by ~1/u); use a larger n");

  // b row by row around the exact solution, x_j carried as expansions.
  std::vector<std::vector<double>> xe(expansion_terms, std::vector<double>(static_cast<std::size_t>(n), 0.0));
  superaccumulator acc, tmp;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::size_t k = static_cast<std::size_t>(i);
    const double* row = p.t.data() + static_cast<std::size_t>(i * n);
    acc.clear();
    for (int e = 0; e < expansion_terms; ++e)
      acc.add_products_n(row, xe[static_cast<std::size_t>(e)].data(), static_cast<std::size_t>(i));
    tmp = acc;  // S_i
    tmp.add_product(row[i], w.xw[k]);
    const double bi = tmp.round();
    p.b[k] = bi;
    acc.negate();
    acc.add(bi);  // b_i - S_i = t_ii x_i exactly
    for (int e = 0; e < expansion_terms; ++e) {
      const double q = acc.round() / row[i];
      xe[static_cast<std::size_t>(e)][k] = q;
      if (q == 0.0) break;
      acc.add_product(-q, row[i]);
    }
  }
  return p;
}

}  // namespace exala
