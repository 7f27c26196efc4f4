// tests/test_blas3_family.cpp - syrk, syr2k, symm, trmm, syr, syr2 (blas3)
// and rotm, rotg (blas1) against the MPFR oracle, bit for bit.
//
// Every result entry of the gemm family is one gemm entry, round(alpha * S
// + beta * c) of the exact S, so the oracle forms S in MPFR from the exact
// products the routine's definition names (syr2k: both products of each
// l, one sum; trmm: the products with the triangle's entries, the zeros
// outside it included as +0 factors; symm: the stored triangle mirrored)
// and rounds once (tests/mpfr_oracle.hpp). Each problem runs on every
// backend x thread count 1..4 x kernel set (tests/backend_matrix.hpp), in
// both layouts, with padded leading dimensions: the padding and the other
// triangle are filled with a marked NaN whose bits must be unchanged
// afterwards (a write shows), and read as NaN they would poison a result (a
// read shows). Data kinds: uniform, small integers (exact cancellation,
// signed zeros, ties), wide exponents, and inf / NaN / -0 sprinkled in.
// alpha and beta include 0 (the BLAS conventions: A not read, C not read).
// Sizes cross the panels of syrk and the blocks of trmm (n / 8 wide, 64 at least).
#define BOOST_TEST_MODULE exala_blas3_family
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/error.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

using namespace exala_test;
using exala::backend;
using exala::diag;
using exala::kernel_set;
using exala::layout;
using exala::rounding;
using exala::side;
using exala::transpose;
using exala::uplo;
using i64 = std::int64_t;

namespace {

constexpr rounding RN = rounding::to_nearest_even;
const double marked = std::bit_cast<double>(std::uint64_t{0x7ff4'0000'dead'beefULL});  // poison

// A rows x cols matrix in `lay` with leading dimension ld (padding marked).
struct matrix {
  i64 rows = 0, cols = 0, ld = 1;
  bool col = true;
  std::vector<double> v;
  matrix(layout lay, i64 r, i64 c, i64 pad) : rows(r), cols(c), col(lay == layout::col_major) {
    ld = std::max<i64>(1, (col ? r : c) + pad);
    const i64 lines = std::max<i64>(1, col ? c : r);
    v.assign(static_cast<std::size_t>(ld * lines), marked);
  }
  double& operator()(i64 i, i64 j) { return v[static_cast<std::size_t>(col ? i + j * ld : i * ld + j)]; }
  double operator()(i64 i, i64 j) const {
    return v[static_cast<std::size_t>(col ? i + j * ld : i * ld + j)];
  }
  double* data() { return v.data(); }
  const double* data() const { return v.data(); }
};

enum class kind { uniform, integers, wide, specials, sparse, zeros, positive };
const char* name(kind k) {
  switch (k) {
    case kind::uniform: return "uniform";
    case kind::integers: return "integers";
    case kind::wide: return "wide";
    case kind::specials: return "specials";
    case kind::sparse: return "sparse";
    case kind::zeros: return "zeros";
    case kind::positive: return "positive";
  }
  return "?";
}
const std::vector<kind> all_kinds = {kind::uniform, kind::integers, kind::wide, kind::specials};

double sample(kind k, rng_t& r) {
  switch (k) {
    case kind::uniform: return uniform(r);
    case kind::integers: {
      const double v = static_cast<double>(static_cast<int>(r() % 7) - 3);
      return (v == 0.0 && (r() & 1)) ? -0.0 : v;
    }
    case kind::wide: return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 201) - 100);
    case kind::specials: {
      const unsigned t = static_cast<unsigned>(r() % 40);
      if (t == 0) return inf;
      if (t == 1) return -inf;
      if (t == 2) return qnan;
      if (t == 3) return -0.0;
      if (t == 4) return 0.0;
      return uniform(r);
    }
    case kind::sparse: {  // mostly signed zeros: exact zero sums of either sign
      const unsigned t = static_cast<unsigned>(r() % 16);
      if (t < 14) return (r() & 1) ? -0.0 : 0.0;
      return static_cast<double>(static_cast<int>(r() % 5) - 2);
    }
    case kind::zeros: return 0.0;
    case kind::positive: return 1.0 + std::fabs(uniform(r));
  }
  return 0.0;
}

void fill(matrix& m, kind k, rng_t& r) {
  for (i64 i = 0; i < m.rows; ++i)
    for (i64 j = 0; j < m.cols; ++j) m(i, j) = sample(k, r);
}

// round(alpha * S + beta * c), S = sum of the exact products; alpha == 0
// or no products: round(beta * c) (+0 for beta == 0); beta == 0: c not read.
double oracle(const std::vector<std::pair<double, double>>& prods, double alpha, double beta,
              double c, rounding mode) {
#ifdef EXALA_TEST_HAVE_MPFR
  if (alpha == 0.0 || prods.empty()) {
    if (beta == 0.0) return 0.0;
    mpfr_exact_sum t(mode);
    t.add_product(beta, c);
    return t.round();
  }
  mpfr_exact_sum s(mode);
  for (const auto& [x, y] : prods) s.add_product(x, y);
  return mpfr_round_axpby(s.value(), alpha, beta == 0.0 ? 0.0 : beta, beta == 0.0 ? 0.0 : c, mode);
#else
  (void)prods, (void)alpha, (void)beta, (void)c, (void)mode;
  return 0.0;
#endif
}

struct tally {
  std::int64_t compared = 0, failed = 0;
  std::vector<std::string> first;
  void report(const std::string& s) {
    ++failed;
    if (first.size() < 12) first.push_back(s);
  }
  void check() const {
    BOOST_TEST_MESSAGE(compared << " entries compared");
    for (const auto& s : first) BOOST_ERROR(s);
    BOOST_TEST(failed == 0);
  }
};

// Runs `call(ex, out)` on a fresh copy of `init` for every backend x threads
// x kernel set and compares entry (i, j) for want(i, j) true-valued cells
// with `expect`, and every other cell of the storage bit for bit with init.
// in_result(i, j) says which logical cells are results.
void run_all(const std::string& what, const matrix& init, const std::vector<rounding>& modes,
             const std::function<bool(i64, i64)>& in_result,
             const std::function<double(i64, i64, rounding)>& expect,
             const std::function<void(const exala::exec&, matrix&)>& call, tally& t,
             const std::vector<long long>& blocks = {0}) {
#ifndef EXALA_TEST_HAVE_MPFR
  BOOST_TEST_MESSAGE("no MPFR: skipped " << what);
  return;
#endif
  restore_kernel_set restore;
  for (rounding md : modes) {
    // The oracle once per mode.
    std::vector<double> want(static_cast<std::size_t>(init.rows * init.cols));
    for (i64 i = 0; i < init.rows; ++i)
      for (i64 j = 0; j < init.cols; ++j)
        if (in_result(i, j)) want[static_cast<std::size_t>(i + j * init.rows)] = expect(i, j, md);
    for (kernel_set ks : kernel_sets()) {
      exala::force_kernel_set(ks);
      for (const config& cf : all_configs())
       for (long long blk : blocks) {
        if (!runs_with_kernel_set(cf, ks)) continue;
        if (cf.b == backend::reference && ks != kernel_sets().front()) continue;
        if ((cf.b == backend::reference || cf.b == backend::opencl) && blk != blocks.front()) continue;
        matrix out = init;
        try {
          call(exala::exec{cf.b, cf.threads, md, blk}, out);
        } catch (const std::exception& e) {
          t.report(what + " " + describe(cf, ks) + " threw " + e.what());
          continue;
        }
        for (std::size_t p = 0; p < out.v.size(); ++p) {
          const i64 line = static_cast<i64>(p) / out.ld, off = static_cast<i64>(p) % out.ld;
          const i64 i = out.col ? off : line, j = out.col ? line : off;
          const bool logical = i < out.rows && j < out.cols;
          if (logical && in_result(i, j)) {
            const double w = want[static_cast<std::size_t>(i + j * init.rows)];
            ++t.compared;
            if (!same_bits(out.v[p], w))
              t.report(what + " " + describe(cf, ks) + " mode " + std::to_string(int(md)) +
                       " entry (" + std::to_string(i) + "," + std::to_string(j) + "): got " +
                       hex(out.v[p]) + ", MPFR " + hex(w));
          } else if (bits(out.v[p]) != bits(init.v[p])) {
            t.report(what + " " + describe(cf, ks) + " wrote outside its result at (" +
                     std::to_string(i) + "," + std::to_string(j) + ")");
          }
        }
      }
    }
  }
}

std::string desc(const char* r, layout lay, uplo ul, transpose tr, i64 n, i64 k, double alpha,
                 double beta, kind kd) {
  std::ostringstream os;
  os << r << " " << (lay == layout::col_major ? "col" : "row") << " "
     << (ul == uplo::upper ? "U" : "L") << (tr == transpose::none ? "N" : "T") << " n=" << n
     << " k=" << k << " alpha=" << alpha << " beta=" << beta << " " << name(kd);
  return os.str();
}

bool in_tri(uplo ul, i64 i, i64 j) { return ul == uplo::upper ? i <= j : i >= j; }

// op(A)_il of a stored A (n x k, or k x n transposed).
double op_at(const matrix& a, transpose tr, i64 i, i64 l) {
  return tr == transpose::none ? a(i, l) : a(l, i);
}

void check_syrk_case(layout lay, uplo ul, transpose tr, i64 n, i64 k, double alpha, double beta,
                     kind kd, bool two, const std::vector<rounding>& modes, rng_t& r, tally& t,
                     const std::vector<long long>& blocks = {0}) {
  matrix a(lay, tr == transpose::none ? n : k, tr == transpose::none ? k : n, 2);
  matrix b = a;
  fill(a, kd, r);
  fill(b, kd, r);
  matrix c(lay, n, n, 3);
  for (i64 i = 0; i < n; ++i)
    for (i64 j = 0; j < n; ++j)
      if (in_tri(ul, i, j)) c(i, j) = sample(kd == kind::specials ? kind::uniform : kd, r);
  auto expect = [&](i64 i, i64 j, rounding md) {
    std::vector<std::pair<double, double>> p;
    for (i64 l = 0; l < k; ++l) {
      if (two) {
        p.emplace_back(op_at(a, tr, i, l), op_at(b, tr, j, l));
        p.emplace_back(op_at(b, tr, i, l), op_at(a, tr, j, l));
      } else {
        p.emplace_back(op_at(a, tr, i, l), op_at(a, tr, j, l));
      }
    }
    return oracle(p, alpha, beta, c(i, j), md);
  };
  run_all(desc(two ? "syr2k" : "syrk", lay, ul, tr, n, k, alpha, beta, kd), c, modes,
          [&](i64 i, i64 j) { return in_tri(ul, i, j); }, expect,
          [&](const exala::exec& ex, matrix& out) {
            if (two)
              exala::syr2k(lay, ul, tr, n, k, alpha, a.data(), a.ld, b.data(), b.ld, beta,
                           out.data(), out.ld, ex);
            else
              exala::syrk(lay, ul, tr, n, k, alpha, a.data(), a.ld, beta, out.data(), out.ld, ex);
          },
          t, blocks);
}

void sweep_rank_k(bool two) {
  rng_t r(two ? 1717 : 1700);
  tally t;
  for (layout lay : {layout::col_major, layout::row_major})
    for (uplo ul : {uplo::upper, uplo::lower})
      for (transpose tr : {transpose::none, transpose::trans}) {
        for (auto [n, k] : std::vector<std::pair<i64, i64>>{{1, 1}, {6, 3}, {19, 11}, {5, 0}})
          for (kind kd : all_kinds)
            for (auto [alpha, beta] : std::vector<std::pair<double, double>>{
                     {1.0, 0.0}, {-0.75, 1.0}, {0.0, 0.5}, {3.0, -2.0}})
              check_syrk_case(lay, ul, tr, n, k, alpha, beta, kd, two, {RN}, r, t);
        // Directed modes, and several panels (rectangles and diagonal blocks).
        check_syrk_case(lay, ul, tr, 7, 5, 1.0, 1.0, kind::integers, two,
                        {rounding::toward_zero, rounding::upward, rounding::downward}, r, t);
        check_syrk_case(lay, ul, tr, 300, 3, -1.5, 0.25, kind::uniform, two, {RN}, r, t);
        check_syrk_case(lay, ul, tr, 280, 2, 1.0, 0.0, kind::sparse, two, {rounding::downward}, r, t);
      }
  t.check();
}

}  // namespace

BOOST_AUTO_TEST_CASE(syrk_against_mpfr) { sweep_rank_k(false); }
BOOST_AUTO_TEST_CASE(syr2k_against_mpfr) { sweep_rank_k(true); }

namespace {

void check_symm_case(layout lay, side sd, uplo ul, i64 m, i64 n, double alpha, double beta, kind kd,
                     const std::vector<rounding>& modes, rng_t& r, tally& t) {
  const i64 na = sd == side::left ? m : n;
  matrix a(lay, na, na, 1);
  for (i64 i = 0; i < na; ++i)
    for (i64 j = 0; j < na; ++j)
      if (in_tri(ul, i, j)) a(i, j) = sample(kd, r);  // the other triangle stays marked
  matrix b(lay, m, n, 2), c(lay, m, n, 1);
  fill(b, kd, r);
  fill(c, kd == kind::specials ? kind::uniform : kd, r);
  auto sym = [&](i64 i, i64 j) { return in_tri(ul, i, j) ? a(i, j) : a(j, i); };
  auto expect = [&](i64 i, i64 j, rounding md) {
    std::vector<std::pair<double, double>> p;
    if (sd == side::left)
      for (i64 l = 0; l < m; ++l) p.emplace_back(sym(i, l), b(l, j));
    else
      for (i64 l = 0; l < n; ++l) p.emplace_back(b(i, l), sym(l, j));
    return oracle(p, alpha, beta, c(i, j), md);
  };
  std::ostringstream os;
  os << "symm " << (lay == layout::col_major ? "col" : "row") << (sd == side::left ? " L" : " R")
     << (ul == uplo::upper ? "U" : "L") << " m=" << m << " n=" << n << " alpha=" << alpha
     << " beta=" << beta << " " << name(kd);
  run_all(os.str(), c, modes, [](i64, i64) { return true; }, expect,
          [&](const exala::exec& ex, matrix& out) {
            exala::symm(lay, sd, ul, m, n, alpha, a.data(), a.ld, b.data(), b.ld, beta, out.data(),
                        out.ld, ex);
          },
          t);
}

}  // namespace

BOOST_AUTO_TEST_CASE(symm_against_mpfr) {
  rng_t r(1718);
  tally t;
  for (layout lay : {layout::col_major, layout::row_major})
    for (side sd : {side::left, side::right})
      for (uplo ul : {uplo::upper, uplo::lower}) {
        for (auto [m, n] : std::vector<std::pair<i64, i64>>{{1, 1}, {4, 7}, {13, 5}})
          for (kind kd : all_kinds)
            for (auto [alpha, beta] : std::vector<std::pair<double, double>>{
                     {1.0, 0.0}, {-0.5, 1.0}, {0.0, 2.0}})
              check_symm_case(lay, sd, ul, m, n, alpha, beta, kd, {RN}, r, t);
        check_symm_case(lay, sd, ul, 6, 5, 1.25, -1.0, kind::integers,
                        {rounding::toward_zero, rounding::upward, rounding::downward}, r, t);
      }
  t.check();
}

namespace {

void check_trmm_case(layout lay, side sd, uplo ul, transpose tr, diag dg, i64 m, i64 n,
                     double alpha, kind kd_t, kind kd_b, const std::vector<rounding>& modes,
                     rng_t& r, tally& t, const std::vector<long long>& blocks = {0}) {
  const i64 na = sd == side::left ? m : n;
  matrix a(lay, na, na, 2);
  for (i64 i = 0; i < na; ++i)
    for (i64 j = 0; j < na; ++j)
      if (in_tri(ul, i, j) && !(i == j && dg == diag::unit)) a(i, j) = sample(kd_t, r);
  matrix b(lay, m, n, 1);
  fill(b, kd_b, r);
  if (kd_b == kind::positive) {
    // One line along T negative: the one the first (op(T) lower) or last
    // (upper) block's slice of T leaves out (see below).
    const bool op_upper = (ul == uplo::upper) != (tr == transpose::trans);
    const i64 e = op_upper ? 0 : na - 1;
    for (i64 q = 0; q < (sd == side::left ? n : m); ++q) {
      double& v = sd == side::left ? b(e, q) : b(q, e);
      v = -v;
    }
  }
  // op(T) of the full triangular matrix: zeros outside the triangle, 1 on a unit diagonal.
  auto full = [&](i64 i, i64 j) {
    if (i == j && dg == diag::unit) return 1.0;
    if (!in_tri(ul, i, j)) return 0.0;
    return a(i, j);
  };
  auto opt = [&](i64 i, i64 j) { return tr == transpose::none ? full(i, j) : full(j, i); };
  auto expect = [&](i64 i, i64 j, rounding md) {
    std::vector<std::pair<double, double>> p;
    if (sd == side::left)
      for (i64 l = 0; l < m; ++l) p.emplace_back(opt(i, l), b(l, j));
    else
      for (i64 l = 0; l < n; ++l) p.emplace_back(b(i, l), opt(l, j));
    return oracle(p, alpha, 0.0, 0.0, md);
  };
  std::ostringstream os;
  os << "trmm " << (lay == layout::col_major ? "col" : "row") << (sd == side::left ? " L" : " R")
     << (ul == uplo::upper ? "U" : "L") << (tr == transpose::none ? "N" : "T")
     << (dg == diag::unit ? "U" : "N") << " m=" << m << " n=" << n << " alpha=" << alpha << " T "
     << name(kd_t) << " B " << name(kd_b);
  run_all(os.str(), b, modes, [](i64, i64) { return true; }, expect,
          [&](const exala::exec& ex, matrix& out) {
            exala::trmm(lay, sd, ul, tr, dg, m, n, alpha, a.data(), a.ld, out.data(), out.ld, ex);
          },
          t, blocks);
}

}  // namespace

BOOST_AUTO_TEST_CASE(trmm_against_mpfr) {
  rng_t r(1719);
  tally t;
  const std::vector<rounding> directed = {rounding::toward_zero, rounding::upward,
                                          rounding::downward};
  for (layout lay : {layout::col_major, layout::row_major})
    for (side sd : {side::left, side::right})
      for (uplo ul : {uplo::upper, uplo::lower})
        for (transpose tr : {transpose::none, transpose::trans})
          for (diag dg : {diag::non_unit, diag::unit}) {
            for (auto [m, n] : std::vector<std::pair<i64, i64>>{{1, 1}, {6, 5}, {3, 9}})
              for (kind kd : all_kinds)
                for (double alpha : {1.0, -0.375, 0.0})
                  check_trmm_case(lay, sd, ul, tr, dg, m, n, alpha, kd, kd, {RN}, r, t);
            // Finite B (the sliced path) and inf in B (the expanded path) in every
            // direction: integer data makes exact zero sums, whose sign is the
            // reason downward takes the expanded path.
            check_trmm_case(lay, sd, ul, tr, dg, 5, 6, 1.0, kind::integers, kind::integers,
                            directed, r, t);
            check_trmm_case(lay, sd, ul, tr, dg, 5, 6, -1.0, kind::integers, kind::specials,
                            directed, r, t);
            // Across the 64-row (column) blocks, where the sliced path skips
            // zeros of T: finite B in every direction (exact zero sums of
            // either sign from sparse data), and inf / NaN in B (the zeros
            // then give NaN and the expanded path runs).
            const i64 big = 270;
            const i64 bm = sd == side::left ? big : 2, bn = sd == side::left ? 2 : big;
            check_trmm_case(lay, sd, ul, tr, dg, bm, bn, 0.5, kind::uniform, kind::uniform, {RN}, r, t);
            check_trmm_case(lay, sd, ul, tr, dg, bm, bn, -1.0, kind::sparse, kind::sparse,
                            {RN, rounding::downward, rounding::upward}, r, t);
            check_trmm_case(lay, sd, ul, tr, dg, bm, bn, 2.0, kind::uniform, kind::specials, {RN}, r, t);
            // T = +0 and B positive but for one line: every sum is an exact
            // zero, -0 downward exactly when a product with the negative line
            // enters, including the zeros outside the triangle that a slice
            // skips: the sliced path must not run downward.
            if (dg == diag::non_unit)
              check_trmm_case(lay, sd, ul, tr, dg, bm, bn, 1.0, kind::zeros, kind::positive,
                              {RN, rounding::downward, rounding::toward_zero}, r, t);
          }
  t.check();
}

namespace {

// A BLAS vector of n logical elements with increment inc (marked padding).
struct vec {
  std::vector<double> v;
  i64 n, inc;
  vec(i64 n_, i64 inc_) : n(n_), inc(inc_) {
    v.assign(static_cast<std::size_t>(std::max<i64>(1, (n - 1) * std::abs(inc) + 1)), marked);
  }
  double& at(i64 i) {
    return v[static_cast<std::size_t>(inc >= 0 ? i * inc : (i - (n - 1)) * inc)];
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(syr_syr2_against_mpfr) {
  rng_t r(1720);
  tally t;
  for (layout lay : {layout::col_major, layout::row_major})
    for (uplo ul : {uplo::upper, uplo::lower})
      for (i64 n : {1, 7, 33, 270})
        for (i64 incx : {1, -2, 3})
          for (kind kd : all_kinds)
            for (double alpha : {1.0, -2.5, 0.0})
              for (bool two : {false, true}) {
                if (n == 270 && (kd != kind::uniform || incx != 1 || alpha != 1.0)) continue;
                vec x(n, incx), y(n, -incx);
                for (i64 i = 0; i < n; ++i) x.at(i) = sample(kd, r), y.at(i) = sample(kd, r);
                matrix a(lay, n, n, 1);
                for (i64 i = 0; i < n; ++i)
                  for (i64 j = 0; j < n; ++j)
                    if (in_tri(ul, i, j)) a(i, j) = sample(kd == kind::specials ? kind::uniform : kd, r);
                auto expect = [&](i64 i, i64 j, rounding md) {
                  if (alpha == 0.0) return a(i, j);  // returns at once
                  std::vector<std::pair<double, double>> p = {{x.at(i), x.at(j)}};
                  if (two) p = {{x.at(i), y.at(j)}, {y.at(i), x.at(j)}};
                  return oracle(p, alpha, 1.0, a(i, j), md);
                };
                std::ostringstream os;
                os << (two ? "syr2 " : "syr ") << (lay == layout::col_major ? "col " : "row ")
                   << (ul == uplo::upper ? "U" : "L") << " n=" << n << " incx=" << incx
                   << " alpha=" << alpha << " " << name(kd);
                run_all(os.str(), a, {RN}, [&](i64 i, i64 j) { return in_tri(ul, i, j); }, expect,
                        [&](const exala::exec& ex, matrix& out) {
                          if (two)
                            exala::syr2(lay, ul, n, alpha, x.v.data(), x.inc, y.v.data(), y.inc,
                                        out.data(), out.ld, ex);
                          else
                            exala::syr(lay, ul, n, alpha, x.v.data(), x.inc, out.data(), out.ld, ex);
                        },
                        t);
              }
  t.check();
}

BOOST_AUTO_TEST_CASE(rotm_against_mpfr) {
#ifdef EXALA_TEST_HAVE_MPFR
  rng_t r(1721);
  tally t;
  restore_kernel_set restore;
  for (double flag : {-2.0, -1.0, 0.0, 1.0})
    for (i64 n : {0, 1, 5, 70})
      for (i64 incx : {1, -1, 3})
        for (kind kd : all_kinds)
          for (rounding md : {RN, rounding::downward, rounding::upward}) {
            const double param[5] = {flag, sample(kd, r), sample(kd, r), sample(kd, r), sample(kd, r)};
            double h11 = param[1], h21 = param[2], h12 = param[3], h22 = param[4];
            if (flag == 0.0) h11 = h22 = 1.0;
            if (flag == 1.0) h21 = -1.0, h12 = 1.0;
            vec x0(n, incx), y0(n, 2);
            for (i64 i = 0; i < n; ++i) x0.at(i) = sample(kd, r), y0.at(i) = sample(kd, r);
            for (kernel_set ks : kernel_sets()) {
              exala::force_kernel_set(ks);
              for (const config& cf : all_configs()) {
                vec x = x0, y = y0;
                exala::rotm(n, x.v.data(), incx, y.v.data(), 2, param, exala::exec{cf.b, cf.threads, md});
                for (i64 i = 0; i < n; ++i) {
                  double wx = x0.at(i), wy = y0.at(i);
                  if (flag != -2.0) {
                    mpfr_exact_sum sx(md), sy(md);
                    sx.add_product(h11, x0.at(i));
                    sx.add_product(h12, y0.at(i));
                    sy.add_product(h21, x0.at(i));
                    sy.add_product(h22, y0.at(i));
                    wx = sx.round();
                    wy = sy.round();
                  }
                  t.compared += 2;
                  if (!same_bits(x.at(i), wx) || !same_bits(y.at(i), wy))
                    t.report("rotm flag=" + std::to_string(flag) + " n=" + std::to_string(n) + " " +
                             name(kd) + " " + describe(cf, ks) + " element " + std::to_string(i) +
                             ": got " + hex(x.at(i)) + " " + hex(y.at(i)) + ", MPFR " + hex(wx) +
                             " " + hex(wy));
                }
                for (std::size_t p = 0; p < x.v.size(); ++p)
                  if (bits(x0.v[p]) == bits(marked) && bits(x.v[p]) != bits(marked))
                    t.report("rotm wrote a gap of x");
              }
            }
          }
  t.check();
#endif
}

BOOST_AUTO_TEST_CASE(rotg_definition) {
#ifdef EXALA_TEST_HAVE_MPFR
  rng_t r(1722);
  auto check = [](double a, double b) {
    double ra = a, rb = b, c = qnan, s = qnan;
    exala::rotg(ra, rb, c, s);
    if (b == 0.0) {
      BOOST_TEST((bits(ra) == bits(a) && c == 1.0 && bits(s) == bits(0.0) && bits(rb) == bits(0.0)));
      return;
    }
    if (a == 0.0) {
      BOOST_TEST((bits(ra) == bits(b) && bits(c) == bits(0.0) && s == 1.0 && rb == 1.0));
      return;
    }
    // r = sigma * correctly rounded sqrt(a^2 + b^2) (MPFR), c, s, z from it.
    mpfr_exact_sum q;
    q.add_product(a, a);
    q.add_product(b, b);
    const double norm = exala::nrm2(2, std::vector<double>{a, b}.data(), 1);
    const double sigma = std::fabs(a) > std::fabs(b) ? std::copysign(1.0, a) : std::copysign(1.0, b);
    const double rr = sigma * norm;
    const double cc = a / rr, ss = b / rr;
    const double z = std::fabs(a) > std::fabs(b) ? ss : (cc != 0.0 ? 1.0 / cc : 1.0);
    BOOST_TEST(same_bits(ra, rr), "r " << hex(ra) << " want " << hex(rr));
    BOOST_TEST(same_bits(c, cc));
    BOOST_TEST(same_bits(s, ss));
    BOOST_TEST(same_bits(rb, z));
    // The norm itself against MPFR's correctly rounded square root.
    mpfr_t e;
    mpfr_init2(e, 53);
    const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
    int inex = mpfr_sqrt(e, q.value(), MPFR_RNDN);  // one rounding to 53 bits (a normal result here)
    mpfr_set_emin(-1073);
    mpfr_set_emax(1024);
    inex = mpfr_check_range(e, inex, MPFR_RNDN);
    inex = mpfr_subnormalize(e, inex, MPFR_RNDN);
    const double want = mpfr_get_d(e, MPFR_RNDN);
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_clear(e);
    BOOST_TEST(same_bits(norm, want), "nrm2 " << hex(norm) << " MPFR " << hex(want));
  };
  check(0.0, 0.0);
  check(-0.0, 0.0);
  check(3.0, 0.0);
  check(-3.0, -0.0);
  check(0.0, 4.0);
  check(-0.0, -4.0);
  check(3.0, 4.0);
  check(-4.0, 3.0);
  check(1e300, 1e300);    // the sum of squares overflows, the norm does not
  check(1e-300, -1e-310);  // underflowing squares
  check(5.0, -5.0);       // tie: the sign of b
  for (int i = 0; i < 2000; ++i) check(random_exp(r, -600, 600), random_exp(r, -600, 600));
  // NaN in, NaN out (r, c, s, z).
  double a = qnan, b = 1.0, c, s;
  exala::rotg(a, b, c, s);
  BOOST_TEST((std::isnan(a) && std::isnan(c) && std::isnan(s)));
#endif
}

BOOST_AUTO_TEST_CASE(argument_errors_name_the_argument) {
  std::vector<double> m(64, 1.0), v(8, 1.0);
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) { return e.argument() == arg; };
  };
  const auto col = layout::col_major;
  BOOST_CHECK_EXCEPTION(exala::syrk(col, uplo::upper, transpose::none, -1, 1, 1.0, m.data(), 1, 0.0, m.data(), 1),
                        exala::invalid_argument, names("n"));
  BOOST_CHECK_EXCEPTION(exala::syrk(col, uplo::upper, transpose::none, 4, 2, 1.0, m.data(), 3, 0.0, m.data(), 4),
                        exala::invalid_argument, names("lda"));
  BOOST_CHECK_EXCEPTION(exala::syrk(col, uplo::upper, transpose::none, 4, 2, 1.0, m.data(), 4, 0.0, m.data(), 3),
                        exala::invalid_argument, names("ldc"));
  BOOST_CHECK_EXCEPTION(exala::syrk(col, uplo::upper, transpose::none, 4, 2, 1.0, nullptr, 4, 0.0, m.data(), 4),
                        exala::invalid_argument, names("a"));
  BOOST_CHECK_EXCEPTION(exala::syr2k(col, uplo::lower, transpose::trans, 4, 2, 1.0, m.data(), 2, m.data(), 1, 0.0,
                                     m.data(), 4),
                        exala::invalid_argument, names("ldb"));
  BOOST_CHECK_EXCEPTION(exala::syr2k(col, uplo::lower, transpose::none, 4, -2, 1.0, m.data(), 4, m.data(), 4, 0.0,
                                     m.data(), 4),
                        exala::invalid_argument, names("k"));
  BOOST_CHECK_EXCEPTION(exala::symm(col, side::left, uplo::upper, 4, 2, 1.0, m.data(), 3, m.data(), 4, 0.0,
                                    m.data(), 4),
                        exala::invalid_argument, names("lda"));
  BOOST_CHECK_EXCEPTION(exala::symm(col, side::right, uplo::upper, 4, -1, 1.0, m.data(), 4, m.data(), 4, 0.0,
                                    m.data(), 4),
                        exala::invalid_argument, names("n"));
  BOOST_CHECK_EXCEPTION(exala::trmm(col, side::left, uplo::upper, transpose::none, diag::unit, 4, 2, 1.0,
                                    nullptr, 4, m.data(), 4),
                        exala::invalid_argument, names("a"));
  BOOST_CHECK_EXCEPTION(exala::trmm(layout::row_major, side::left, uplo::upper, transpose::none, diag::unit, 4,
                                    2, 1.0, m.data(), 4, m.data(), 1),
                        exala::invalid_argument, names("ldb"));
  BOOST_CHECK_EXCEPTION(exala::syr(col, uplo::upper, 3, 1.0, nullptr, 1, m.data(), 3), exala::invalid_argument,
                        names("x"));
  BOOST_CHECK_EXCEPTION(exala::syr2(col, uplo::upper, 3, 1.0, v.data(), 1, v.data(), 1, m.data(), 2),
                        exala::invalid_argument, names("lda"));
  BOOST_CHECK_EXCEPTION(exala::syr2(col, uplo::upper, 3, 1.0, v.data(), INT64_MIN, v.data(), 1, m.data(), 3),
                        exala::invalid_argument, names("incx"));
  const double bad[5] = {2.0, 1, 1, 1, 1};
  BOOST_CHECK_EXCEPTION(exala::rotm(2, v.data(), 1, v.data() + 2, 1, bad, {}), exala::invalid_argument,
                        names("param"));
  BOOST_CHECK_EXCEPTION(exala::rotm(2, v.data(), 0, v.data() + 2, 1, bad, {}), exala::invalid_argument,
                        names("incx"));
  // An extent beyond 2^60 names the matrix (k = 0: not read, still checked).
  BOOST_CHECK_EXCEPTION(exala::syrk(col, uplo::upper, transpose::none, i64{1} << 32, 0, 1.0, nullptr,
                                    i64{1} << 32, 1.0, m.data(), i64{1} << 32),
                        exala::invalid_argument, names("c"));
  // alpha == 0 reads neither A nor B (null is fine).
  BOOST_CHECK_NO_THROW(exala::syr2k(col, uplo::upper, transpose::none, 4, 2, 0.0, nullptr, 4, nullptr, 4, 1.0,
                                    m.data(), 4));
}

// Bigger problems (several panels of n / 8 = 96 and blocks), every exec.block
// given to the inner gemm calls: the bits cannot depend on it.
BOOST_AUTO_TEST_CASE(larger_problems_and_blocks, *boost::unit_test::label("long")) {
  rng_t r(1723);
  tally t;
  const std::vector<long long> blocks = {0, 33, 200};
  for (layout lay : {layout::col_major, layout::row_major})
    for (uplo ul : {uplo::upper, uplo::lower}) {
      check_syrk_case(lay, ul, transpose::trans, 530, 17, 0.5, -1.0, kind::wide, false, {RN}, r, t,
                      blocks);
      check_syrk_case(lay, ul, transpose::none, 530, 9, -2.0, 0.0, kind::specials, true, {RN}, r, t,
                      blocks);
      check_trmm_case(lay, side::left, ul, transpose::trans, diag::non_unit, 530, 5, 1.0,
                      kind::wide, kind::wide, {RN}, r, t, blocks);
      check_trmm_case(lay, side::right, ul, transpose::none, diag::unit, 4, 530, -1.0,
                      kind::integers, kind::sparse, {rounding::downward}, r, t, blocks);
    }
  t.check();
}
