// exala/fpe.hpp - floating-point expansions and the scalar multi-level
// accumulator.
//
// fpe<N>: N doubles a[0..N-1] whose exact sum is the accumulated value (an
// expansion in the sense of Shewchuk 1997). add(x) runs x through a chain of
// TwoSums and returns what did not fit: the exact value satisfies
//   sum(a before) + x = sum(a after) + residual,
// so nothing is ever lost as long as the caller keeps the residual (the
// multi-level accumulator spills it into a superaccumulator). With early exit
// the chain stops as soon as the propagated error is zero (Collange et al.,
// ParCo 2015, Algorithm 3). Exact while no TwoSum overflows (|terms| < 2^1022).
//
// multilevel_accumulator<N>: an fpe<N> in registers that spills into a
// superaccumulator only when needed; exact for every input (special values
// and huge terms go straight to the superaccumulator).
#pragma once

#include <cmath>

#include "exala/arith.hpp"
#include "exala/superaccumulator.hpp"

namespace exala {

template <int N, bool EarlyExit = true>
struct fpe {
  static_assert(N >= 2 && N <= 8, "expansions of 2 to 8 terms");
  double a[N] = {};

  // Adds x; returns the residual that did not fit in the N terms (0 if none).
  constexpr double add(double x) noexcept {
    for (int i = 0; i < N; ++i) {
      const eft_pair r = two_sum(a[i], x);
      a[i] = r.hi;
      x = r.lo;
      if constexpr (EarlyExit) {
        if (x == 0.0) return 0.0;
      }
    }
    return x;
  }

  // Moves every term into the superaccumulator and clears the expansion.
  void flush(superaccumulator& sa) noexcept {
    for (int i = 0; i < N; ++i) {
      if (a[i] != 0.0) sa.deposit(a[i]);
      a[i] = 0.0;
    }
  }
};

template <int N, bool EarlyExit = true>
class multilevel_accumulator {
 public:
  // Terms at or above this magnitude bypass the expansion so that no TwoSum
  // can overflow: with |a[0]| and |x| below 2^1020 every intermediate of
  // two_sum stays below 2^1022.
  static constexpr double big = 0x1p1020;

  void add(double x) noexcept {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    if (!(std::fabs(x) < big)) {  // NaN, inf and huge values
      sa_.add(x);
      return;
    }
    flags_ |= superaccumulator::zero_flags(bits);
    const double r = e_.add(x);
    if (r != 0.0) sa_.deposit(r);
    if (!(std::fabs(e_.a[0]) < big)) e_.flush(sa_);
    has_term_ = true;
  }

  void add_product(double a, double b) noexcept {
    if (!two_prod_is_exact(a, b)) {
      sa_.add_product(a, b);
      return;
    }
    const eft_pair p = two_prod(a, b);
    if (p.hi == 0.0)  // exact zero product: record its IEEE sign
      flags_ |= (std::signbit(a) != std::signbit(b)) ? superaccumulator::flag_not_poszero
                                                     : superaccumulator::flag_not_negzero;
    else
      flags_ |= superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero;
    has_term_ = true;
    const double r1 = e_.add(p.hi);
    if (r1 != 0.0) sa_.deposit(r1);
    const double r2 = e_.add(p.lo);
    if (r2 != 0.0) sa_.deposit(r2);
    if (!(std::fabs(e_.a[0]) < big)) e_.flush(sa_);
  }

  // The exact value gathered so far, as a superaccumulator.
  superaccumulator result() const noexcept {
    superaccumulator s = sa_;
    fpe<N, EarlyExit> e = e_;
    e.flush(s);
    if (has_term_) s.or_flags(flags_ | superaccumulator::flag_has_term);
    return s;
  }

  double round(rounding mode = rounding::to_nearest_even) const noexcept {
    return result().round(mode);
  }

 private:
  fpe<N, EarlyExit> e_;
  superaccumulator sa_;
  std::uint32_t flags_ = 0;
  bool has_term_ = false;
};

}  // namespace exala
