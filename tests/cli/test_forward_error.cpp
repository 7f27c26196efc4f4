// test_forward_error.cpp - exala::cli::forward_error (bindings/cli/
// forward_error.hpp), the forward error of the solve summary, on cases whose
// value is known exactly: powers of two and small integers, so that every
// operation the definition needs is exact (or its one rounding is known).
#define BOOST_TEST_MODULE cli_forward_error
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "forward_error.hpp"

namespace {

double fe(std::int64_t n, const std::vector<double>& x, const std::vector<double>& xref) {
  BOOST_REQUIRE(x.size() == xref.size());
  return exala::cli::forward_error(n, static_cast<std::int64_t>(x.size()) / n, x.data(),
                                   xref.data());
}

constexpr double inf = std::numeric_limits<double>::infinity();

}  // namespace

BOOST_AUTO_TEST_CASE(exact_values) {
  BOOST_TEST(fe(3, {1, -2, 4}, {1, -2, 4}) == 0.0);
  BOOST_TEST(fe(3, {1, -2, 4.5}, {1, -2, 4}) == 0.125);  // 0.5 / 4
  BOOST_TEST(fe(3, {1, -2.5, 4}, {1, -2, 4}) == 0.125);  // the sign of the error does not matter
  BOOST_TEST(fe(1, {-0.0}, {0.0}) == 0.0);
  // One rounding of the quotient: 1 / 3 (the differences are exact).
  BOOST_TEST(fe(2, {2, 4}, {3, 3}) == 1.0 / 3.0);
}

// The largest ratio over the columns, not the ratio of the largest error to
// the largest reference over all of them (0.5 / 4 = 0.125 here).
BOOST_AUTO_TEST_CASE(columns) {
  BOOST_TEST(fe(2, {1, 4.5, 1.25, 0}, {1, 4, 1, 0}) == 0.25);
  BOOST_TEST(fe(2, {1.25, 0, 1, 4.5}, {1, 0, 1, 4}) == 0.25);
}

// A difference of finite entries beyond the double range: computed from
// halves, (DBL_MAX - (-DBL_MAX)) / DBL_MAX = 2 exactly.
BOOST_AUTO_TEST_CASE(difference_overflow) {
  BOOST_TEST(fe(2, {-DBL_MAX, 1}, {DBL_MAX, 1}) == 2.0);
  BOOST_TEST(fe(2, {DBL_MAX, -DBL_MAX}, {-DBL_MAX, DBL_MAX / 2}) == 2.0);
  // The other column does not halve.
  BOOST_TEST(fe(1, {-DBL_MAX, 1.5}, {DBL_MAX, 1}) == 2.0);
}

// Subnormal entries: exact differences, one rounding of the quotient
// (2^-1072 vs 2^-1070: 3 x 2^-1072 / 2^-1070 = 0.75).
BOOST_AUTO_TEST_CASE(subnormals) {
  BOOST_TEST(fe(1, {std::ldexp(1.0, -1072)}, {std::ldexp(1.0, -1070)}) == 0.75);
  BOOST_TEST(fe(2, {1, std::ldexp(1.0, -1074)}, {1, 0}) == std::ldexp(1.0, -1074));
}

// A zero reference, inf and NaN.
BOOST_AUTO_TEST_CASE(specials) {
  BOOST_TEST(fe(2, {0, -0.0}, {0, 0}) == 0.0);
  BOOST_TEST(fe(2, {0, 1e-300}, {0, 0}) == inf);
  BOOST_TEST(fe(2, {inf, 1}, {1, 1}) == inf);
  BOOST_TEST(std::isnan(fe(2, {std::nan(""), 1}, {1, 1})));
  BOOST_TEST(std::isnan(fe(1, {1, 1, 1, 1}, {1, 1, 1, std::nan("")})));  // in a later column
}
