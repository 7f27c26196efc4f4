// tests/mpfr_oracle.hpp - the MPFR oracle of the ExaLA tests.
//
// mpfr_exact_sum accumulates terms and exact products of doubles in an MPFR number
// wide enough that every operation is exact (each add / mul checks MPFR's
// ternary value, so an oracle that silently rounds is caught), following
// IEEE 754 for special values and for the sign of zero (MPFR does), in the
// rounding direction given at construction: the additions are exact, so the
// direction only decides the sign of an exact zero (x + -x is -0 downward).
// round() then rounds the exact value once to binary64 with IEEE subnormals
// and overflow, using the recipe of the MPFR manual: round to 53 bits in the
// default exponent range, then mpfr_check_range + mpfr_subnormalize with
// emin = -1073, emax = 1024 (which uses the ternary value, so there is no
// double rounding), then mpfr_get_d (exact at that point).
//
// Only compiled when the build found MPFR (EXALA_TEST_HAVE_MPFR).
#pragma once

#ifdef EXALA_TEST_HAVE_MPFR

#include <mpfr.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "exala/rounding.hpp"

namespace exala_test {

inline mpfr_rnd_t to_mpfr(exala::rounding m) {
  switch (m) {
    case exala::rounding::to_nearest_even: return MPFR_RNDN;
    case exala::rounding::toward_zero: return MPFR_RNDZ;
    case exala::rounding::upward: return MPFR_RNDU;
    case exala::rounding::downward: return MPFR_RNDD;
  }
  throw std::logic_error("bad rounding");
}

// Correctly rounds x to binary64 in direction rnd (IEEE subnormals, overflow
// to +-inf or +-DBL_MAX by direction, signed zeros, NaN).
inline double mpfr_to_double(const mpfr_t x, mpfr_rnd_t rnd) {
  if (mpfr_nan_p(x)) return std::numeric_limits<double>::quiet_NaN();
  if (mpfr_inf_p(x))
    return mpfr_signbit(x) ? -std::numeric_limits<double>::infinity()
                           : std::numeric_limits<double>::infinity();
  if (mpfr_zero_p(x)) return mpfr_signbit(x) ? -0.0 : 0.0;
  mpfr_t t;
  mpfr_init2(t, 53);
  int inex = mpfr_set(t, x, rnd);  // in the default (wide) exponent range
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);  // MPFR exponents: x in [2^(e-1), 2^e); 2^-1074 has e = -1073
  mpfr_set_emax(1024);
  inex = mpfr_check_range(t, inex, rnd);
  inex = mpfr_subnormalize(t, inex, rnd);
  const double d = mpfr_get_d(t, rnd);  // exact: t is a binary64 value now
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(t);
  return d;
}

class mpfr_exact_sum {
 public:
  // 2^-2148 .. 2^2048 is 4196 bits; the rest is room for carries (and every
  // operation checks that it was exact anyway).
  static constexpr mpfr_prec_t precision = 4600;

  explicit mpfr_exact_sum(exala::rounding mode = exala::rounding::to_nearest_even)
      : rnd_(to_mpfr(mode)) {
    mpfr_init2(sum_, precision);
    mpfr_init2(term_, 128);  // a product of two doubles needs 106 bits
    mpfr_set_zero(sum_, +1);
  }
  ~mpfr_exact_sum() {
    mpfr_clear(sum_);
    mpfr_clear(term_);
  }
  mpfr_exact_sum(const mpfr_exact_sum&) = delete;
  mpfr_exact_sum& operator=(const mpfr_exact_sum&) = delete;

  void add(double x) {
    if (mpfr_set_d(term_, x, rnd_) != 0) throw std::logic_error("mpfr_exact_sum: inexact set_d");
    add_term();
  }

  void add_product(double a, double b) {
    mpfr_t ma, mb;
    mpfr_init2(ma, 53);
    mpfr_init2(mb, 53);
    mpfr_set_d(ma, a, rnd_);
    mpfr_set_d(mb, b, rnd_);
    const int inex = mpfr_mul(term_, ma, mb, rnd_);  // IEEE: inf*0 = NaN, signed zeros
    mpfr_clear(ma);
    mpfr_clear(mb);
    if (inex != 0) throw std::logic_error("mpfr_exact_sum: inexact product");
    add_term();
  }

  // The exact sum rounded once, in the direction given at construction (that
  // direction also decided the sign of an exact zero, so there is no overload
  // taking another one: build one mpfr_exact_sum per direction).
  double round() const { return mpfr_to_double(sum_, rnd_); }

  const mpfr_t& value() const { return sum_; }

 private:
  void add_term() {
    if (empty_) {
      mpfr_set(sum_, term_, rnd_);  // the first term is the sum (keeps -0)
      empty_ = false;
      return;
    }
    if (mpfr_add(sum_, sum_, term_, rnd_) != 0)
      throw std::logic_error("mpfr_exact_sum: inexact addition (precision too small)");
  }

  mpfr_rnd_t rnd_;
  mpfr_t sum_;
  mpfr_t term_;
  bool empty_ = true;
};

// round(alpha * S + beta * c) of an exact MPFR value S, once, to binary64 in
// direction m (every intermediate step is exact and checked).
inline double mpfr_round_axpby(const mpfr_t s, double alpha, double beta, double c,
                               exala::rounding m) {
  const mpfr_rnd_t rnd = to_mpfr(m);
  mpfr_t prod, bc, total, ma, mb, mc;
  mpfr_inits2(8000, prod, bc, total, static_cast<mpfr_ptr>(nullptr));
  mpfr_inits2(53, ma, mb, mc, static_cast<mpfr_ptr>(nullptr));
  mpfr_set_d(ma, alpha, rnd);
  mpfr_set_d(mb, beta, rnd);
  mpfr_set_d(mc, c, rnd);
  if (mpfr_mul(prod, s, ma, rnd) != 0) throw std::logic_error("mpfr_round_axpby: inexact alpha*S");
  if (mpfr_mul(bc, mb, mc, rnd) != 0) throw std::logic_error("mpfr_round_axpby: inexact beta*c");
  if (mpfr_add(total, prod, bc, rnd) != 0) throw std::logic_error("mpfr_round_axpby: inexact sum");
  const double r = mpfr_to_double(total, rnd);
  mpfr_clears(prod, bc, total, ma, mb, mc, static_cast<mpfr_ptr>(nullptr));
  return r;
}

// round(S / d) of an exact MPFR value S, once, to binary64 in direction m
// (MPFR's correctly rounded division, then the binary64 range as above).
inline double mpfr_round_div(const mpfr_t s, double d, exala::rounding m) {
  const mpfr_rnd_t rnd = to_mpfr(m);
  mpfr_t md, q;
  mpfr_init2(md, 53);
  mpfr_init2(q, 53);
  mpfr_set_d(md, d, rnd);
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  int inex = mpfr_div(q, s, md, rnd);
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  inex = mpfr_check_range(q, inex, rnd);
  inex = mpfr_subnormalize(q, inex, rnd);
  const double r = mpfr_get_d(q, rnd);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clears(md, q, static_cast<mpfr_ptr>(nullptr));
  return r;
}

}  // namespace exala_test

#endif  // EXALA_TEST_HAVE_MPFR
