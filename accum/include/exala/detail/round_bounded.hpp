// Internal: deciding a correctly rounded result from an approximation with a
// proven error bound (Ziv's strategy), for the fast paths of the BLAS
// layers. A fast path evaluates its exact value S as hi + lo with
// |S - (hi + lo)| <= err; round_bounded says whether that interval rounds
// to one double in `mode`, and which. When it cannot tell (S may lie on
// either side of a rounding boundary) the caller falls back to its exact
// accumulator, so the result is always the correctly rounded one.
#pragma once

#include "exala/detail/round_bounded_hd.hpp"
#include "exala/rounding.hpp"

namespace exala::detail {

// struct bounded {hi, lo, err}: exala/detail/round_bounded_hd.hpp.

// Preconditions: hi = fl(hi + lo) (as TwoSum leaves it: |lo| <= ulp(hi)/2),
// err >= 0. Returns false, leaving out alone, when the rounding of every
// value in [hi + lo - err, hi + lo + err] is not the same double, and also
// (conservatively) when hi is zero, not finite, above 2^1022 or below
// 2^-960 in magnitude (zero signs, overflow and the subnormal range are
// left to the exact path), or when err is not finite.
bool round_bounded(double hi, double lo, double err, rounding mode, double& out) noexcept;

// round(alpha * S + beta * y) for S known as `s` (beta == 0: y is not read),
// decided as round_bounded decides, or false. alpha * s.hi and beta * y are
// split exactly by TwoProd (false where exala::two_prod_is_exact is false:
// factors whose exponents sum outside [-970, 1021]), the rest is summed
// with a bound.
bool round_bounded_axpby(double alpha, const bounded& s, double beta, double y, rounding mode,
                         double& out) noexcept;

// The same composition left bounded: out bounds alpha * S + beta * y, or false.
bool bounded_axpby(double alpha, const bounded& s, double beta, double y, bounded& out) noexcept;


// round(N / d) for N known as n and a finite nonzero d, decided as
// round_bounded decides, or false (also when the quotient or N is outside
// [2^-900, 2^1000] in magnitude: the remainder step must not underflow).
bool round_bounded_div(const bounded& n, double d, rounding mode, double& out) noexcept;

// round(sqrt(S)) for S >= 0 known as s, decided as round_bounded decides,
// or false (also when s.hi is outside [2^-900, 2^1000]: the residual step
// must not underflow). For nrm2.
bool round_bounded_sqrt(const bounded& s, rounding mode, double& out) noexcept;

}  // namespace exala::detail
