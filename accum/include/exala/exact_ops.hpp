// exala/exact_ops.hpp - correctly rounded operations on an exact accumulated
// value: the one final rounding of the level-2/3 BLAS and the triangular
// solvers.
//
// round_axpby(alpha, S, beta, c) = round(alpha*S + beta*c) and
// round_div(S, d) = round(S / d), where S is the exact value held by a
// superaccumulator. Both are correctly rounded in the requested IEEE
// direction (error <= 1/2 ulp to nearest), with no intermediate rounding:
// alpha*S reaches 2^-3250 .. 2^3263, beyond any accumulator for sums of
// products, so round_axpby forms it in a wider internal accumulator; the
// quotient is found by exact comparisons of S with q*d and with the
// midpoints (q + ulp/2)*d, as in Kulisch's exact scalar product followed by
// a correctly rounded division.
//
// Special values follow IEEE for the exact expression: a NaN anywhere (or
// inf*0, inf - inf, 0/0, inf/inf) gives NaN; an infinity wins otherwise; an
// exact result beyond the double range rounds to +-inf or +-DBL_MAX by
// direction; an exact zero gets the sign IEEE arithmetic would give it.
#pragma once

#include "exala/rounding.hpp"
#include "exala/superaccumulator.hpp"

namespace exala {

// round(alpha * S + beta * c), one rounding. The two products are exact. The
// BLAS conventions are the caller's business (round_axpby always reads all
// four operands): with alpha == 0 and an infinite S this returns NaN.
double round_axpby(double alpha, const superaccumulator& s, double beta, double c,
                   rounding mode = rounding::to_nearest_even) noexcept;

// round(S / d), one rounding (d == 0 follows IEEE: +-inf, or NaN for 0/0).
double round_div(const superaccumulator& s, double d,
                 rounding mode = rounding::to_nearest_even) noexcept;

}  // namespace exala
