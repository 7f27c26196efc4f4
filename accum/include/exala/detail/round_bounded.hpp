// Internal: deciding a correctly rounded result from an approximation with a
// proven error bound (Ziv's strategy), for the fast paths of the BLAS
// layers. A fast path evaluates its exact value S as hi + lo with
// |S - (hi + lo)| <= err; round_bounded says whether that interval rounds
// to one double in `mode`, and which. When it cannot tell (S may lie on
// either side of a rounding boundary) the caller falls back to its exact
// accumulator, so the result is always the correctly rounded one.
#pragma once

#include "exala/rounding.hpp"

namespace exala::detail {

// Preconditions: hi = fl(hi + lo) (as TwoSum leaves it: |lo| <= ulp(hi)/2),
// err >= 0. Returns false, leaving out alone, when the rounding of every
// value in [hi + lo - err, hi + lo + err] is not the same double, and also
// (conservatively) when hi is zero, not finite, above 2^1022 or below
// 2^-960 in magnitude (zero signs, overflow and the subnormal range are
// left to the exact path), or when err is not finite.
bool round_bounded(double hi, double lo, double err, rounding mode, double& out) noexcept;

}  // namespace exala::detail
