// tests/test_blas1_elementwise.cpp - axpy, scal, copy, swap and iamax on
// every backend.
//
// Every backend (reference, simd, omp with 1..4 threads) x every kernel set
// this CPU supports (forced with exala::force_kernel_set) is checked against
// an oracle computed here: std::fma(alpha, x_i, y_i) for axpy (one rounding,
// by definition correctly rounded), alpha * x_i for scal, the plain
// definitions for copy, swap and iamax. Results must match bit for bit (any
// NaN matches any NaN where arithmetic produced it; copy and swap keep NaN
// payloads exactly). Vectors are laid out with their increment; the gaps and
// guard cells hold a marked NaN and must come back untouched, so an ignored
// stride, a wrong direction or a write out of bounds shows. Covered: lengths
// 0..70 and 100003 (SIMD bodies, tails, the OpenMP split), strides {1, 2, -1,
// -2} and mixed pairs, alpha in {0, 1, -1, 0.1, 2^-1074, DBL_MAX, NaN},
// subnormal and inf/NaN data, a case where fma differs from mul+add,
// iamax ties / NaN / signed zeros / negative strides, and argument errors.
#define BOOST_TEST_MODULE exala_blas1_elementwise
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/error.hpp"
#include "backend_matrix.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala_test;
using exala::backend;
using exala::kernel_set;

namespace {

// Calls f(exec, description) for every backend x thread count x kernel set.
template <class F>
void for_each_config(F f) {
  restore_kernel_set restore;
  static const bool listed = [] {
    std::ostringstream os;
    for (kernel_set k : kernel_sets()) os << exala::to_string(k) << " ";
    BOOST_TEST_MESSAGE("kernel sets under test: " << os.str());
    return true;
  }();
  (void)listed;
  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    for (const config& c : all_configs()) f(exala::exec{c.b, c.threads}, describe(c, k));
  }
}

struct failures {
  int count = 0;
  void report(const std::string& msg) {
    if (++count <= 25) BOOST_ERROR(msg);
  }
  ~failures() {
    BOOST_CHECK_MESSAGE(count <= 25, count << " mismatches in all (first 25 shown)");
  }
};

// ---------------------------------------------------------------- layout

// The marked NaN in gaps and guard cells.
const double poison = std::bit_cast<double>(std::uint64_t{0x7ff8deadbeef0001ULL});
constexpr std::int64_t guard = 9;

std::int64_t at(std::int64_t i, std::int64_t inc, std::int64_t n) {
  return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

// A logical vector laid out with its increment between guard cells.
struct placed {
  std::vector<double> mem;
  std::int64_t inc = 1, n = 0;
  placed(const std::vector<double>& v, std::int64_t inc_) : inc(inc_), n(static_cast<std::int64_t>(v.size())) {
    const std::int64_t a = inc < 0 ? -inc : inc;
    const std::int64_t span = n == 0 ? 0 : 1 + (n - 1) * a;
    mem.assign(static_cast<std::size_t>(span + 2 * guard), poison);
    for (std::int64_t i = 0; i < n; ++i) mem[static_cast<std::size_t>(guard + at(i, inc, n))] = v[i];
  }
  double* data() { return mem.data() + guard; }
  double get(std::int64_t i) const { return mem[static_cast<std::size_t>(guard + at(i, inc, n))]; }
  // The cells that are not elements still hold the poison (exact bits).
  bool gaps_intact() const {
    std::vector<bool> used(mem.size(), false);
    for (std::int64_t i = 0; i < n; ++i) used[static_cast<std::size_t>(guard + at(i, inc, n))] = true;
    for (std::size_t j = 0; j < mem.size(); ++j)
      if (!used[j] && bits(mem[j]) != bits(poison)) return false;
    return true;
  }
};

// ---------------------------------------------------------------- data

enum class kind { uniform, full_range, subnormal, special, count };

double pick(kind k, rng_t& r) {
  switch (k) {
    case kind::uniform: return uniform(r);
    case kind::full_range: return random_any_finite(r);
    case kind::subnormal: {
      const double v = std::ldexp(static_cast<double>(r() % (1ULL << 52)), -1074);
      return (r() & 1) ? -v : v;
    }
    case kind::special: {
      switch (r() % 8) {
        case 0: return inf;
        case 1: return -inf;
        case 2: return qnan;
        case 3: return 0.0;
        case 4: return -0.0;
        case 5: return dmax;
        default: return random_any_finite(r);
      }
    }
    case kind::count: break;
  }
  return 0.0;
}

std::vector<double> make_vec(kind k, std::int64_t n, rng_t& r) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (auto& e : v) e = pick(k, r);
  return v;
}

const double alphas[] = {0.0, 1.0, -1.0, 0.1, dmin_sub, dmax, qnan};

std::vector<std::int64_t> lengths() {
  std::vector<std::int64_t> l;
  for (std::int64_t n = 0; n <= 70; ++n) l.push_back(n);
  l.push_back(100003);
  return l;
}

// ---------------------------------------------------------------- checkers

void check_axpy(std::int64_t n, double alpha, const std::vector<double>& x, std::int64_t incx,
                const std::vector<double>& y, std::int64_t incy, failures& f) {
  std::vector<double> want(y);
  if (alpha != 0.0)
    for (std::int64_t i = 0; i < n; ++i) want[i] = std::fma(alpha, x[i], y[i]);
  for_each_config([&](const exala::exec& ex, const std::string& d) {
    placed px(x, incx), py(y, incy);
    exala::axpy(n, alpha, px.data(), incx, py.data(), incy, ex);
    const std::string what = "axpy n=" + std::to_string(n) + " alpha=" + hex(alpha) + " incx=" +
                             std::to_string(incx) + " incy=" + std::to_string(incy) + " " + d;
    if (!px.gaps_intact() || !py.gaps_intact()) f.report(what + ": gap or guard cell written");
    for (std::int64_t i = 0; i < n; ++i) {
      if (bits(px.get(i)) != bits(x[i])) {
        f.report(what + ": x changed at " + std::to_string(i));
        break;
      }
      // alpha == 0: y untouched, bit for bit (NaN payloads included)
      const bool ok = alpha == 0.0 ? bits(py.get(i)) == bits(want[i]) : same_bits(py.get(i), want[i]);
      if (!ok) {
        f.report(what + ": y[" + std::to_string(i) + "] = " + hex(py.get(i)) + ", want " + hex(want[i]));
        break;
      }
    }
  });
}

void check_scal(std::int64_t n, double alpha, const std::vector<double>& x, std::int64_t incx,
                failures& f) {
  std::vector<double> want(x);
  for (std::int64_t i = 0; i < n; ++i) want[i] = alpha * x[i];
  for_each_config([&](const exala::exec& ex, const std::string& d) {
    placed px(x, incx);
    exala::scal(n, alpha, px.data(), incx, ex);
    const std::string what = "scal n=" + std::to_string(n) + " alpha=" + hex(alpha) + " incx=" +
                             std::to_string(incx) + " " + d;
    if (!px.gaps_intact()) f.report(what + ": gap or guard cell written");
    for (std::int64_t i = 0; i < n; ++i)
      if (!same_bits(px.get(i), want[i])) {
        f.report(what + ": x[" + std::to_string(i) + "] = " + hex(px.get(i)) + ", want " + hex(want[i]));
        break;
      }
  });
}

const std::pair<std::int64_t, std::int64_t> stride_pairs[] = {
    {1, 1}, {2, 2}, {-1, -1}, {-2, -2}, {1, -1}, {-1, 1}, {2, -1}, {-2, 1}, {1, 2}, {0, 1}, {0, -2}};

}  // namespace

// ---------------------------------------------------------------- axpy

BOOST_AUTO_TEST_CASE(axpy_every_length_stride_alpha) {
  failures f;
  rng_t r(3001);
  int cases = 0;
  for (std::int64_t n : lengths()) {
    const bool big = n > 1000;
    for (std::size_t si = 0; si < std::size(stride_pairs); ++si) {
      const std::int64_t incx = stride_pairs[si].first, incy = stride_pairs[si].second;
      if (big && si > 4) break;  // the long vector: the contiguous and the equal-stride pairs
      if (incx == 0 && n > 0 && n % 7 != 0) continue;  // x with increment 0: a sample of lengths
      for (std::size_t ai = 0; ai < std::size(alphas); ++ai) {
        if (big && ai != 3 && ai != 6 && ai != 0) continue;
        const kind k = static_cast<kind>((n + si + ai) % static_cast<std::size_t>(kind::count));
        std::vector<double> x = make_vec(k, n, r), y = make_vec(kind::uniform, n, r);
        if (incx == 0) std::fill(x.begin(), x.end(), n > 0 ? x[0] : 0.0);
        if (incx == 0) {
          // x with increment 0: every element is x[0]; lay it out as one cell
          std::vector<double> want(y);
          if (alphas[ai] != 0.0)
            for (std::int64_t i = 0; i < n; ++i) want[i] = std::fma(alphas[ai], x[i], y[i]);
          for_each_config([&](const exala::exec& ex, const std::string& d) {
            placed px(std::vector<double>(n > 0 ? 1 : 0, n > 0 ? x[0] : 0.0), 1), py(y, incy);
            exala::axpy(n, alphas[ai], px.data(), 0, py.data(), incy, ex);
            for (std::int64_t i = 0; i < n; ++i)
              if (!same_bits(py.get(i), want[i])) {
                f.report("axpy incx=0 n=" + std::to_string(n) + " " + d);
                break;
              }
            if (!py.gaps_intact()) f.report("axpy incx=0: gap written " + d);
          });
        } else {
          check_axpy(n, alphas[ai], x, incx, y, incy, f);
        }
        ++cases;
      }
    }
  }
  BOOST_TEST_MESSAGE("axpy: " << cases << " problems x every config");
}

BOOST_AUTO_TEST_CASE(axpy_special_data) {
  failures f;
  rng_t r(3002);
  for (std::int64_t n : {1, 7, 8, 9, 33, 64}) {
    for (double alpha : alphas) {
      // specials and subnormals in both x and y
      check_axpy(n, alpha, make_vec(kind::special, n, r), 1, make_vec(kind::special, n, r), 1, f);
      check_axpy(n, alpha, make_vec(kind::subnormal, n, r), -1, make_vec(kind::subnormal, n, r), -1, f);
      check_axpy(n, alpha, make_vec(kind::subnormal, n, r), 2, make_vec(kind::special, n, r), -1, f);
    }
    // alpha == 0: y untouched even with NaN and inf in x (reference BLAS)
    std::vector<double> x(static_cast<std::size_t>(n), qnan), y = make_vec(kind::special, n, r);
    if (n > 1) x[1] = inf;
    check_axpy(n, 0.0, x, 1, y, 1, f);
    check_axpy(n, -0.0, x, -2, y, 1, f);
  }
}

// The `long` sweep: random lengths up to 5000, random strides in [-4, 4]
// (x may be 0), random alpha and data kinds.
BOOST_AUTO_TEST_CASE(axpy_scal_random_long, *utf::label("long")) {
  failures f;
  rng_t r(3010);
  for (int t = 0; t < 400; ++t) {
    const auto n = static_cast<std::int64_t>(r() % 5001);
    std::int64_t incx = static_cast<std::int64_t>(r() % 9) - 4, incy = static_cast<std::int64_t>(r() % 9) - 4;
    if (incx == 0) incx = 1;
    if (incy == 0) incy = -1;
    const double alpha = (r() % 4 == 0) ? alphas[r() % std::size(alphas)] : random_any_finite(r);
    const kind k = static_cast<kind>(r() % static_cast<std::uint64_t>(kind::count));
    check_axpy(n, alpha, make_vec(k, n, r), incx, make_vec(kind::full_range, n, r), incy, f);
    check_scal(n, alpha, make_vec(k, n, r), incx, f);
  }
}

// fma(alpha, x, y) differs from fl(fl(alpha*x) + y): one rounding, not two.
BOOST_AUTO_TEST_CASE(axpy_single_rounding) {
  const double alpha = 1 + 0x1p-52, xv = 1 - 0x1p-52, yv = -1.0;
  {
    volatile double a = alpha, b = xv;
    const double twice = a * b + yv;  // two roundings: (1 - 2^-104) rounds to 1, then 0
    BOOST_TEST(twice == 0.0);
  }
  for (std::int64_t n : {1, 5, 37, 100003}) {
    for_each_config([&](const exala::exec& ex, const std::string& d) {
      for (std::int64_t inc : {1, -1, 2}) {
        placed px(std::vector<double>(static_cast<std::size_t>(n), xv), inc);
        placed py(std::vector<double>(static_cast<std::size_t>(n), yv), inc);
        exala::axpy(n, alpha, px.data(), inc, py.data(), inc, ex);
        bool ok = true;
        for (std::int64_t i = 0; i < n; ++i) ok = ok && bits(py.get(i)) == bits(-0x1p-104);
        BOOST_TEST(ok, d << " n=" << n << " inc=" << inc);
      }
    });
  }
}

// ---------------------------------------------------------------- scal

BOOST_AUTO_TEST_CASE(scal_every_length_stride_alpha) {
  failures f;
  rng_t r(3003);
  const std::int64_t incs[] = {1, 2, -1, -2, 3};
  for (std::int64_t n : lengths()) {
    const bool big = n > 1000;
    for (std::size_t si = 0; si < std::size(incs); ++si) {
      if (big && si > 2) break;
      for (std::size_t ai = 0; ai < std::size(alphas); ++ai) {
        if (big && ai != 3 && ai != 5) continue;
        const kind k = static_cast<kind>((n + si + ai) % static_cast<std::size_t>(kind::count));
        check_scal(n, alphas[ai], make_vec(k, n, r), incs[si], f);
      }
    }
  }
}

// No special case for alpha == 0: 0 * NaN and 0 * inf are NaN, signs follow IEEE.
BOOST_AUTO_TEST_CASE(scal_zero_alpha_and_specials) {
  for_each_config([&](const exala::exec& ex, const std::string& d) {
    std::vector<double> x = {qnan, inf, 1.0, -1.0, -inf, 0.0, -0.0, dmin_sub, 2.5};
    exala::scal(0.0, x, ex);
    BOOST_TEST(std::isnan(x[0]), d);
    BOOST_TEST(std::isnan(x[1]), d);
    BOOST_TEST(bits(x[2]) == bits(0.0), d);
    BOOST_TEST(bits(x[3]) == bits(-0.0), d);
    BOOST_TEST(std::isnan(x[4]), d);
    BOOST_TEST(bits(x[5]) == bits(0.0), d);
    BOOST_TEST(bits(x[6]) == bits(-0.0), d);
    BOOST_TEST(bits(x[7]) == bits(0.0), d);
    BOOST_TEST(bits(x[8]) == bits(0.0), d);
    std::vector<double> s = {dmin_sub, 3 * dmin_sub, 0x1p-1022, dmax, -dmax};
    exala::scal(0.5, s, ex);  // subnormal results round to nearest even
    BOOST_TEST(bits(s[0]) == bits(0.0), d);
    BOOST_TEST(bits(s[1]) == bits(2 * dmin_sub), d);
    BOOST_TEST(bits(s[2]) == bits(0x1p-1023), d);
    exala::scal(4.0, s, ex);  // overflow to +-inf
    BOOST_TEST((s[3] == inf && s[4] == -inf), d);
  });
}

// ---------------------------------------------------------------- copy, swap

BOOST_AUTO_TEST_CASE(copy_and_swap_strides) {
  failures f;
  rng_t r(3004);
  for (std::int64_t n : {0, 1, 2, 3, 7, 8, 9, 31, 70, 1000}) {
    for (const auto& stride : stride_pairs) {
      const std::int64_t incx = stride.first, incy = stride.second;
      std::vector<double> x = make_vec(kind::special, n, r), y = make_vec(kind::full_range, n, r);
      if (n > 0) x[0] = std::bit_cast<double>(std::uint64_t{0xfff0000000001234ULL});  // NaN payload
      const std::vector<double> x0 = incx == 0 ? std::vector<double>(x.size(), n > 0 ? x[0] : 0.0) : x;
      const std::string what =
          "n=" + std::to_string(n) + " incx=" + std::to_string(incx) + " incy=" + std::to_string(incy);
      for_each_config([&](const exala::exec& ex, const std::string& d) {
        placed px(incx == 0 ? std::vector<double>(n > 0 ? 1 : 0, n > 0 ? x[0] : 0.0) : x, incx == 0 ? 1 : incx);
        placed py(y, incy);
        exala::copy(n, px.data(), incx, py.data(), incy, ex);
        for (std::int64_t i = 0; i < n; ++i)
          if (bits(py.get(i)) != bits(x0[i])) {
            f.report("copy " + what + " " + d + ": y[" + std::to_string(i) + "] = " + hex(py.get(i)));
            break;
          }
        if (!py.gaps_intact() || !px.gaps_intact()) f.report("copy " + what + " " + d + ": gap written");
        if (incx == 0) return;
        placed sx(x, incx), sy(y, incy);
        exala::swap(n, sx.data(), incx, sy.data(), incy, ex);
        for (std::int64_t i = 0; i < n; ++i)
          if (bits(sx.get(i)) != bits(y[i]) || bits(sy.get(i)) != bits(x[i])) {
            f.report("swap " + what + " " + d + ": element " + std::to_string(i));
            break;
          }
        if (!sx.gaps_intact() || !sy.gaps_intact()) f.report("swap " + what + " " + d + ": gap written");
      });
    }
  }
  // span forms
  std::vector<double> a = {1, 2, 3}, b = {4, 5, 6};
  exala::swap(std::span<double>(a), std::span<double>(b));
  BOOST_TEST((a == std::vector<double>{4, 5, 6} && b == std::vector<double>{1, 2, 3}));
  exala::copy(std::span<const double>(a), std::span<double>(b));
  BOOST_TEST((b == std::vector<double>{4, 5, 6}));
  exala::axpy(2.0, std::span<const double>(a), std::span<double>(b));
  BOOST_TEST((b == std::vector<double>{12, 15, 18}));
}

// ---------------------------------------------------------------- iamax

namespace {
std::int64_t iamax_oracle(const std::vector<double>& v) {
  if (v.empty()) return -1;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (std::isnan(v[i])) return static_cast<std::int64_t>(i);
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (std::fabs(v[i]) > std::fabs(v[best])) best = i;
  return static_cast<std::int64_t>(best);
}
}  // namespace

BOOST_AUTO_TEST_CASE(iamax_cases) {
  struct tc {
    std::vector<double> v;
    std::int64_t want;
  };
  const std::vector<tc> cases = {
      {{}, -1},
      {{-0.0}, 0},
      {{-0.0, 0.0}, 0},          // -0 and +0 tie: the first
      {{0.0, -0.0, 0.0}, 0},
      {{1.0, -3.0, 3.0, 2.0}, 1},  // tie in |x|: the first
      {{qnan, inf, 1.0}, 0},       // NaN first
      {{1.0, inf, qnan, -inf, qnan}, 2},  // first NaN, not the infinity
      {{-inf, inf}, 0},
      {{dmin_sub, -2 * dmin_sub, 2 * dmin_sub}, 1},
      {{1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, -9.0}, 8},
  };
  for_each_config([&](const exala::exec& ex, const std::string& d) {
    for (const tc& c : cases) {
      const auto n = static_cast<std::int64_t>(c.v.size());
      BOOST_TEST(exala::iamax(n, c.v.data(), 1, ex) == c.want, d << " n=" << n);
      // stride 2 and -2 (logical order: negative walks back from the far end)
      for (std::int64_t inc : {2, -2, -1}) {
        placed p(c.v, inc);
        BOOST_TEST(exala::iamax(n, p.data(), inc, ex) == c.want, d << " n=" << n << " inc=" << inc);
      }
    }
    // memory [1, 5, 5, 2] with increment -1 is the logical vector [2, 5, 5, 1]
    const double m[] = {1.0, 5.0, 5.0, 2.0};
    BOOST_TEST(exala::iamax(4, m, -1, ex) == 1, d);
    BOOST_TEST(exala::iamax(4, m, 1, ex) == 1, d);
    const double m2[] = {7.0, 1.0, 7.0, qnan, 9.0, qnan};
    BOOST_TEST(exala::iamax(3, m2, 2, ex) == 2, d);   // logical [7, 7, 9]
    BOOST_TEST(exala::iamax(3, m2, -2, ex) == 0, d);  // logical [9, 7, 7]
    BOOST_TEST(exala::iamax(2, m2 + 3, 1, ex) == 0, d);
    BOOST_TEST(exala::iamax(3, m2, 0, ex) == 0, d);   // increment 0: all equal, the first
  });
  // random vectors with specials, every length 0..70
  failures f;
  rng_t r(3005);
  for (std::int64_t n = 0; n <= 70; ++n)
    for (int k = 0; k < static_cast<int>(kind::count); ++k) {
      std::vector<double> v = make_vec(static_cast<kind>(k), n, r);
      const std::int64_t want = iamax_oracle(v);
      for_each_config([&](const exala::exec& ex, const std::string& d) {
        for (std::int64_t inc : {1, -1, 3}) {
          placed p(v, inc);
          const std::int64_t got = exala::iamax(n, p.data(), inc, ex);
          if (got != want)
            f.report("iamax n=" + std::to_string(n) + " inc=" + std::to_string(inc) + " " + d + ": got " +
                     std::to_string(got) + ", want " + std::to_string(want));
        }
      });
    }
}

// ---------------------------------------------------------------- errors

namespace {
bool names(const exala::invalid_argument& e, const std::string& arg) { return e.argument() == arg; }
#define EXPECT_ARG(call, arg)                                         \
  BOOST_CHECK_EXCEPTION(call, exala::invalid_argument,               \
                        [](const exala::invalid_argument& e) { return names(e, arg); })
}  // namespace

BOOST_AUTO_TEST_CASE(argument_errors) {
  double x[4] = {1, 2, 3, 4}, y[4] = {5, 6, 7, 8};
  const exala::exec rz{backend::simd, 0, exala::rounding::toward_zero};
  // n < 0
  EXPECT_ARG(exala::axpy(-1, 1.0, x, 1, y, 1), "n");
  EXPECT_ARG(exala::scal(-1, 1.0, x, 1), "n");
  EXPECT_ARG(exala::copy(-1, x, 1, y, 1), "n");
  EXPECT_ARG(exala::swap(-1, x, 1, y, 1), "n");
  EXPECT_ARG(exala::iamax(-1, x, 1), "n");
  // null pointers with n > 0
  EXPECT_ARG(exala::axpy(2, 1.0, nullptr, 1, y, 1), "x");
  EXPECT_ARG(exala::axpy(2, 1.0, x, 1, nullptr, 1), "y");
  EXPECT_ARG(exala::scal(2, 1.0, nullptr, 1), "x");
  EXPECT_ARG(exala::copy(2, nullptr, 1, y, 1), "x");
  EXPECT_ARG(exala::copy(2, x, 1, nullptr, 1), "y");
  EXPECT_ARG(exala::swap(2, nullptr, 1, y, 1), "x");
  EXPECT_ARG(exala::swap(2, x, 1, nullptr, 1), "y");
  EXPECT_ARG(exala::iamax(2, nullptr, 1), "x");
  // null pointers with n == 0 are fine
  exala::axpy(0, 1.0, nullptr, 1, nullptr, 1);
  exala::scal(0, 1.0, nullptr, 1);
  exala::copy(0, nullptr, 1, nullptr, 1);
  exala::swap(0, nullptr, 1, nullptr, 1);
  BOOST_TEST(exala::iamax(0, nullptr, 1) == -1);
  // increment 0 on a written vector with n > 1
  EXPECT_ARG(exala::axpy(2, 1.0, x, 1, y, 0), "incy");
  EXPECT_ARG(exala::scal(2, 2.0, x, 0), "incx");
  EXPECT_ARG(exala::copy(2, x, 1, y, 0), "incy");
  EXPECT_ARG(exala::swap(2, x, 0, y, 1), "incx");
  EXPECT_ARG(exala::swap(2, x, 1, y, 0), "incy");
  // ... but allowed with n == 1, and on the read-only x
  exala::axpy(1, 1.0, x, 1, y, 0);
  BOOST_TEST(y[0] == 6.0);
  exala::scal(1, 2.0, x, 0);
  BOOST_TEST(x[0] == 2.0);
  // rounding mode: axpy and scal round, and only to nearest
  EXPECT_ARG(exala::axpy(2, 1.0, x, 1, y, 1, rz), "mode");
  EXPECT_ARG(exala::scal(2, 1.0, x, 1, rz), "mode");
  EXPECT_ARG(exala::axpy(2, 1.0, x, 1, y, 1, exala::exec{backend::reference, 0, exala::rounding::upward}),
             "mode");
  exala::copy(2, x, 1, y, 1, rz);  // copy, swap, iamax do not round
  exala::swap(2, x, 1, y, 1, rz);
  x[0] = 1.0, x[1] = -3.0;
  BOOST_TEST(exala::iamax(2, x, 1, rz) == 1);
  // threads out of range
  EXPECT_ARG(exala::axpy(2, 1.0, x, 1, y, 1, exala::exec{backend::omp, -1}), "threads");
  EXPECT_ARG(exala::scal(2, 1.0, x, 1, exala::exec{backend::omp, 5000}), "threads");
  // Issue 15, row 10: increments whose address (n-1)*|inc| passes 2^60 - 1
  // elements are refused naming them, before anything is read or written,
  // on every backend, also on axpy's alpha == 0 quick return; one element
  // takes any increment (no address is formed from it).
  for (const backend b : {backend::reference, backend::simd, backend::omp}) {
    if (!exala::is_compiled_in(b)) continue;
    const exala::exec e{b, 2};
    double u[2] = {1.0, 2.0}, w[2] = {5.0, 6.0};
    for (const std::int64_t inc : {INT64_MIN, -(std::int64_t{1} << 62), std::int64_t{1} << 62,
                                   std::int64_t{1} << 60, INT64_MAX}) {
      BOOST_TEST_CONTEXT(exala::to_string(b) << " inc " << inc) {
        EXPECT_ARG(exala::axpy(2, 2.0, u, inc, w, 1, e), "incx");
        EXPECT_ARG(exala::axpy(2, 2.0, u, 1, w, inc, e), "incy");
        EXPECT_ARG(exala::axpy(2, 0.0, u, 1, w, inc, e), "incy");
        EXPECT_ARG(exala::scal(2, 2.0, u, inc, e), "incx");
        EXPECT_ARG(exala::copy(2, u, inc, w, 1, e), "incx");
        EXPECT_ARG(exala::copy(2, u, 1, w, inc, e), "incy");
        EXPECT_ARG(exala::swap(2, u, inc, w, 1, e), "incx");
        EXPECT_ARG(exala::swap(2, u, 1, w, inc, e), "incy");
        EXPECT_ARG(exala::iamax(2, u, inc, e), "incx");
      }
    }
    BOOST_TEST((u[0] == 1.0 && u[1] == 2.0 && w[0] == 5.0 && w[1] == 6.0));
    // counts above 2^60 - 1 (with increment 0 no address grows: a hang otherwise)
    EXPECT_ARG(exala::iamax(INT64_MAX, u, 0, e), "n");
    EXPECT_ARG(exala::axpy(std::int64_t{1} << 60, 1.0, u, 0, w, 1, e), "n");
    // one element: any increment
    exala::axpy(1, 2.0, u, INT64_MIN, w, INT64_MIN, e);
    BOOST_TEST(w[0] == 7.0);
    exala::scal(1, 3.0, u, INT64_MIN, e);
    BOOST_TEST(u[0] == 3.0);
    exala::copy(1, u + 1, INT64_MIN, w + 1, INT64_MAX, e);
    BOOST_TEST(w[1] == 2.0);
    exala::swap(1, u, INT64_MIN, w, INT64_MIN, e);
    BOOST_TEST((u[0] == 7.0 && w[0] == 3.0));
    BOOST_TEST(exala::iamax(1, u, INT64_MIN, e) == 0);
  }
  // span size mismatch
  std::vector<double> a(3), b(4);
  EXPECT_ARG(exala::axpy(1.0, std::span<const double>(a), std::span<double>(b)), "y");
  EXPECT_ARG(exala::copy(std::span<const double>(a), std::span<double>(b)), "y");
  EXPECT_ARG(exala::swap(std::span<double>(a), std::span<double>(b)), "y");
}
