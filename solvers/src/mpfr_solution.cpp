// trsv_mpfr_solution: the reference solution of a triangular system in MPFR.
//
// Guarantee: with a fixed `precision` p, each unknown is computed by the
// classic substitution with every operation rounded to p bits (MPFR, round to
// nearest), then rounded once to the nearest double (IEEE subnormals and
// overflow): the relative error before that final rounding is about
// n cond(op(A), x) 2^-p. With precision 0 the precision doubles from 256 bits
// until two successive precisions round to the same doubles (bit for bit, any
// NaN equal to any NaN), or up to 2^16 bits, where the last result is
// returned: then the doubles are the exact solution rounded to nearest
// unless an error of 2^-p moves an unknown across a rounding boundary
// (exact ties can keep two precisions from ever agreeing; the cap ends that).
// Cost: n^2/2 MPFR multiply-subtracts per precision tried.
// MPFR: Fousse, Hanrot, Lefevre, Pelissier, Zimmermann, ACM TOMS 33(2), 2007.
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#ifdef EXALA_HAVE_MPFR
#include <mpfr.h>
#endif

#include "exala/solvers.hpp"
#include "solvers_common.hpp"

namespace exala {

namespace {

constexpr int adaptive_start = 256;
constexpr int adaptive_cap = 1 << 16;
constexpr int max_precision = 1 << 24;

#ifdef EXALA_HAVE_MPFR

// n MPFR numbers of one precision, cleared on destruction.
class mpfr_array {
 public:
  mpfr_array(std::int64_t n, mpfr_prec_t p) : n_(n), v_(new __mpfr_struct[static_cast<std::size_t>(n)]) {
    for (std::int64_t i = 0; i < n_; ++i) mpfr_init2(&v_[i], p);
  }
  ~mpfr_array() {
    for (std::int64_t i = 0; i < n_; ++i) mpfr_clear(&v_[i]);
  }
  mpfr_array(const mpfr_array&) = delete;
  mpfr_array& operator=(const mpfr_array&) = delete;
  mpfr_ptr operator[](std::int64_t i) { return &v_[i]; }

 private:
  std::int64_t n_;
  std::unique_ptr<__mpfr_struct[]> v_;
};

// Correctly rounded to the nearest double, subnormals included: below 2^-1022
// the value is scaled exactly by 2^1074 and rounded to an integer once.
double to_double(mpfr_srcptr v) {
  if (mpfr_nan_p(v)) return std::nan("");
  if (mpfr_inf_p(v) || mpfr_zero_p(v)) return mpfr_get_d(v, MPFR_RNDN);
  if (mpfr_get_exp(v) <= -1022) {  // |v| < 2^-1022 (MPFR: v = m * 2^exp, 1/2 <= m < 1)
    mpfr_t t;
    mpfr_init2(t, mpfr_get_prec(v));
    mpfr_mul_2si(t, v, 1074, MPFR_RNDN);  // exact
    mpfr_rint(t, t, MPFR_RNDN);           // the one rounding
    const double m = mpfr_get_d(t, MPFR_RNDN);  // an integer <= 2^52, exact
    mpfr_clear(t);
    return std::ldexp(m, -1074);  // exact
  }
  return mpfr_get_d(v, MPFR_RNDN);
}

std::vector<double> solve_at(const solvers_detail::canonical& c, const std::vector<double>& b,
                             mpfr_prec_t p) {
  const std::int64_t n = c.n;
  mpfr_array x(n, p);
  mpfr_t s, t;
  mpfr_init2(s, p);
  mpfr_init2(t, p);
  std::vector<double> out(static_cast<std::size_t>(n));
  for (std::int64_t pos = 0; pos < n; ++pos) {
    const std::int64_t i = c.lower ? pos : n - 1 - pos;
    mpfr_set_d(s, b[static_cast<std::size_t>(i)], MPFR_RNDN);
    const std::int64_t lo = c.lower ? 0 : i + 1;
    const std::int64_t hi = c.lower ? i : n;
    for (std::int64_t j = lo; j < hi; ++j) {
      const double aij = c.rows ? c.a[i * c.lda + j] : c.a[j * c.lda + i];
      mpfr_mul_d(t, x[j], aij, MPFR_RNDN);
      mpfr_sub(s, s, t, MPFR_RNDN);
    }
    if (c.unit)
      mpfr_set(x[i], s, MPFR_RNDN);
    else
      mpfr_div_d(x[i], s, c.a[i * c.lda + i], MPFR_RNDN);
    out[static_cast<std::size_t>(i)] = to_double(x[i]);
  }
  mpfr_clear(s);
  mpfr_clear(t);
  return out;
}

bool same_doubles(const std::vector<double>& a, const std::vector<double>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) {
      if (!(std::isnan(a[i]) && std::isnan(b[i]))) return false;
    } else if (std::signbit(a[i]) != std::signbit(b[i]) || a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

#endif  // EXALA_HAVE_MPFR

}  // namespace

std::vector<double> trsv_mpfr_solution(layout lay, uplo ul, transpose trans, diag dg,
                                       std::int64_t n, const double* a, std::int64_t lda,
                                       const double* b, std::int64_t incb, int precision) {
  using namespace solvers_detail;
  check_args(lay, ul, trans, dg, n, a, lda, b, incb, "b", "incb", false);
  if (precision != 0 && (precision < 2 || precision > max_precision))
    throw invalid_argument("precision", "must be 0 (adaptive) or in [2, " + str(max_precision) +
                                            "] bits, got " + str(precision));
  const canonical c = make_canonical(lay, ul, trans, dg, n, a, lda);
  check_diagonal(c, "trsv_mpfr_solution");
#ifndef EXALA_HAVE_MPFR
  throw not_compiled_in("MPFR");
#else
  if (n == 0) return {};
  std::vector<double> rhs(static_cast<std::size_t>(n));
  gather(n, b, incb, rhs.data());
  if (precision > 0) return solve_at(c, rhs, precision);
  std::vector<double> prev = solve_at(c, rhs, adaptive_start);
  for (int p = 2 * adaptive_start; p <= adaptive_cap; p *= 2) {
    std::vector<double> next = solve_at(c, rhs, p);
    if (same_doubles(prev, next)) return next;
    prev = std::move(next);
  }
  return prev;
#endif
}

}  // namespace exala
