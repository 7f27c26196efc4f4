// forward_error.hpp - the forward error that `exala solve --workdir` prints
// when the work directory set holds a reference solution (header-only, so
// that tests/cli/test_forward_error.cpp checks it without the tool).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

namespace exala::cli {

// The forward error of a solution x against a reference xref (both n x
// nrhs, column-major, ld = n): the largest over the columns of
//   max_i |x_i - xref_i| / max_i |xref_i|.
// Rounding: each difference x_i - xref_i is rounded once (and is exact when
// x_i and xref_i lie within a factor 2 of each other, as for any useful
// solution: Sterbenz), the maxima and |.| are exact, and the quotient is one
// IEEE division, so the result is within a factor (1 + u)^2 (u = 2^-53) of
// the exact value, and exactly it in the Sterbenz case up to the division's
// one rounding. A difference of two finite entries that overflows is not
// reported as inf: the column is then computed from halves, x_i/2 - xref_i/2
// and max |xref_i| / 2 (halving is exact above 2^-1021, so only entries
// negligible against the overflowing ones lose a bit). A column whose
// reference is zero gives 0 when x is zero there too and +inf otherwise;
// an infinite x_i gives +inf, a NaN in x or xref gives NaN.
inline double forward_error(std::int64_t n, std::int64_t nrhs, const double* x,
                            const double* xref) {
  double worst = 0;
  for (std::int64_t k = 0; k < nrhs; ++k) {
    const double* xc = x + k * n;
    const double* rc = xref + k * n;
    double diff = 0, ref = 0;
    bool halve = false;
    for (std::int64_t i = 0; i < n; ++i) {
      if (std::isnan(xc[i]) || std::isnan(rc[i])) return std::numeric_limits<double>::quiet_NaN();
      ref = std::max(ref, std::fabs(rc[i]));
      const double d = std::fabs(xc[i] - rc[i]);
      if (std::isinf(d) && std::isfinite(xc[i]) && std::isfinite(rc[i])) halve = true;
      diff = std::max(diff, d);
    }
    if (halve) {
      diff = 0;
      for (std::int64_t i = 0; i < n; ++i) diff = std::max(diff, std::fabs(xc[i] / 2 - rc[i] / 2));
      ref /= 2;
    }
    double q = 0;
    if (diff == 0)
      q = 0;
    else if (ref == 0 || std::isinf(diff))
      q = std::numeric_limits<double>::infinity();
    else
      q = diff / ref;
    worst = std::max(worst, q);
  }
  return worst;
}

}  // namespace exala::cli
