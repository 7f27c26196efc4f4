// test_eigen - the Eigen adapters (exala/eigen.hpp).
//
// The adapters add no arithmetic: each function must give exactly the bits
// of the raw C++ call on the same storage, for every way Eigen can describe
// that storage (contiguous, strided rows, InnerStride maps, negative
// strides, row-major, blocks with an outer stride, .transpose()), and plain
// storage must be read in place. Expressions are evaluated by Eigen first:
// the results equal the raw call on the evaluated temporary, and hand-derived
// cases show that this is NOT the exact value of the unevaluated expression.
// The solver classes must reproduce exala::trsv / trsm / trsv_exact_refined /
// trsv_compensated / trsv_double_double / stripe_lu bit for bit and report
// bad input through info() / lastError() as documented. Expected values are
// either the raw call's bits or derived by hand (exact arithmetic); the
// refined stripe LU's backward error is bounded with an exact MPFR residual.
#define BOOST_TEST_MODULE test_eigen
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <boost/test/unit_test.hpp>

#ifdef EXALA_TEST_HAVE_MPFR
#include <mpfr.h>
#endif

#include <Eigen/Dense>

#include "bindings/eigen/eigen_test_util.hpp"

#include "exala/eigen.hpp"

namespace {

namespace ee = exala::eigen;
namespace fs = std::filesystem;
using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMatrixXd = ee::RowMatrixXd;
using i64 = std::int64_t;
using exala::transpose;

const double nan_pad = std::numeric_limits<double>::quiet_NaN();

using eigen_test::same_bits;

// Entries with random signs and exponents over 2^-30..2^30: sums of them
// are rarely exact in double, so a wrong pairing or a dropped element shows.
using eigen_test::random_wide;
VectorXd random_vector(Index n, unsigned seed) { return random_wide(n, 1, seed).col(0); }

// A copy of M inside a NaN-padded bigger matrix (col- or row-major), so a
// block view has an outer stride and any read outside it poisons the result.
template <class Big>
Big padded(const MatrixXd& m) {
  Big big = Big::Constant(m.rows() + 3, m.cols() + 2, nan_pad);
  big.block(2, 1, m.rows(), m.cols()) = m;
  return big;
}
template <class Big>
bool padding_intact(const Big& big, Index rows, Index cols) {
  for (Index j = 0; j < big.cols(); ++j)
    for (Index i = 0; i < big.rows(); ++i) {
      const bool inside = i >= 2 && i < 2 + rows && j >= 1 && j < 1 + cols;
      if (!inside && !std::isnan(big(i, j))) return false;
    }
  return true;
}

// Calls f(view, name, reads_in_place) for every storage form of the matrix
// m: col-major, row-major, blocks of both (outer stride, NaN padding), the
// .transpose() of a col-major matrix (read in place as row-major), and an
// expression (evaluated by Eigen; here exact, so the same values).
template <class F>
void for_each_matrix_form(const MatrixXd& m, F&& f) {
  f(m, "col-major", true);
  const RowMatrixXd r = m;
  f(r, "row-major", true);
  const MatrixXd bc = padded<MatrixXd>(m);
  f(bc.block(2, 1, m.rows(), m.cols()), "col-major block", true);
  const RowMatrixXd br = padded<RowMatrixXd>(m);
  f(br.block(2, 1, m.rows(), m.cols()), "row-major block", true);
  const MatrixXd mt = m.transpose();
  f(mt.transpose(), "transpose of col-major", true);
  f(m * 1.0, "expression m * 1", false);
}

// Vector forms for inputs: contiguous, a row of a col-major matrix, every
// other element through Map<..., InnerStride<>>, and a negative stride.
template <class F>
void for_each_vector_form(const VectorXd& v, F&& f) {
  const Index n = v.size();
  f(v, "contiguous");
  MatrixXd rows = MatrixXd::Constant(4, n, nan_pad);
  rows.row(1) = v.transpose();
  f(rows.row(1), "row of a col-major matrix");
  std::vector<double> buf(std::size_t(2 * n + 1), nan_pad);
  for (Index i = 0; i < n; ++i) buf[std::size_t(2 * i)] = v[i];
  f(Eigen::Map<const VectorXd, 0, Eigen::InnerStride<>>(buf.data(), n, Eigen::InnerStride<>(2)),
    "Map with InnerStride 2");
  std::vector<double> rev(std::size_t(3 * n + 1), nan_pad);
  for (Index i = 0; i < n; ++i) rev[std::size_t(3 * (n - 1 - i))] = v[i];
  if (n > 0)
    f(Eigen::Map<const VectorXd, 0, Eigen::InnerStride<>>(rev.data() + 3 * (n - 1), n,
                                                          Eigen::InnerStride<>(-3)),
      "Map with InnerStride -3");
}

struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("exala_eigen_test_" + tag + "_" +
                                        std::to_string(::getpid()) + "_" +
                                        std::to_string(counter++));
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  std::string str() const { return path.string(); }
};

#ifdef EXALA_TEST_HAVE_MPFR
// An upper bound of ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf): the
// residual exact in MPFR (4400 bits hold every sum of products of doubles of
// these sizes), the norms exact too, the quotient rounded upward.
double mpfr_backward_error(const MatrixXd& a, const VectorXd& b, const VectorXd& x) {
  const Index n = a.rows();
  mpfr_t acc, t, rmax, anorm, rowsum, xmax, bmax, den;
  for (mpfr_ptr p : {acc, t, rmax, anorm, rowsum, xmax, bmax, den}) {
    mpfr_init2(p, 4400);
    mpfr_set_zero(p, 1);
  }
  for (Index i = 0; i < n; ++i) {
    mpfr_set_d(acc, b[i], MPFR_RNDN);
    mpfr_set_zero(rowsum, 1);
    for (Index j = 0; j < n; ++j) {
      mpfr_set_d(t, a(i, j), MPFR_RNDN);
      mpfr_mul_d(t, t, x[j], MPFR_RNDN);  // exact at 4400 bits
      mpfr_sub(acc, acc, t, MPFR_RNDN);   // exact
      mpfr_set_d(t, std::fabs(a(i, j)), MPFR_RNDN);
      mpfr_add(rowsum, rowsum, t, MPFR_RNDN);
    }
    mpfr_abs(acc, acc, MPFR_RNDN);
    mpfr_max(rmax, rmax, acc, MPFR_RNDN);
    mpfr_max(anorm, anorm, rowsum, MPFR_RNDN);
    mpfr_set_d(t, std::fabs(b[i]), MPFR_RNDN);
    mpfr_max(bmax, bmax, t, MPFR_RNDN);
    mpfr_set_d(t, std::fabs(x[i]), MPFR_RNDN);
    mpfr_max(xmax, xmax, t, MPFR_RNDN);
  }
  mpfr_mul(den, anorm, xmax, MPFR_RNDD);
  mpfr_add(den, den, bmax, MPFR_RNDD);
  mpfr_div(t, rmax, den, MPFR_RNDU);
  const double eta = mpfr_get_d(t, MPFR_RNDU);
  for (mpfr_ptr p : {acc, t, rmax, anorm, rowsum, xmax, bmax, den}) mpfr_clear(p);
  return eta;
}
#endif

}  // namespace

// ------------------------------------------------------------------ level 1

namespace {
std::vector<exala::exec> some_execs() {
  std::vector<exala::exec> execs = {{}, {exala::backend::reference},
                                    {exala::backend::simd, 0, exala::rounding::upward}};
  if (exala::is_compiled_in(exala::backend::omp)) execs.push_back({exala::backend::omp, 2});
  return execs;
}

// sum, asum, nrm2, dot on every vector form (and every pair for dot) equal
// the raw calls on contiguous copies.
void check_level1(Index n, const exala::exec& ex, unsigned seed) {
  const VectorXd x = random_vector(n, seed), y = random_vector(n, seed + 1);
  const double s = exala::sum(n, x.data(), 1, ex), a = exala::asum(n, x.data(), 1, ex);
  const double r = exala::nrm2(n, x.data(), 1, ex);
  const double d = exala::dot(n, x.data(), 1, y.data(), 1, ex);
  for_each_vector_form(x, [&](const auto& xv, const char* xw) {
    BOOST_TEST_CONTEXT("n = " << n << ", backend " << exala::to_string(ex.backend) << ", x "
                              << xw) {
      BOOST_TEST(same_bits(ee::sum(xv, ex), s));
      BOOST_TEST(same_bits(ee::asum(xv, ex), a));
      BOOST_TEST(same_bits(ee::nrm2(xv, ex), r));
      for_each_vector_form(y, [&](const auto& yv, const char* yw) {
        BOOST_TEST_CONTEXT("y " << yw) { BOOST_TEST(same_bits(ee::dot(xv, yv, ex), d)); }
      });
    }
  });
}
}  // namespace

BOOST_AUTO_TEST_CASE(level1_every_vector_form_matches_raw_calls) {
  for (Index n : {0, 1, 2, 3, 7, 16, 33, 100})
    for (const exala::exec& ex : some_execs()) check_level1(n, ex, unsigned(11 + n));
}

BOOST_AUTO_TEST_CASE(level1_strided_views_are_read_in_place) {
  MatrixXd m = random_wide(5, 40, 3);
  for (Index i = 0; i < 5; ++i) {
    const ee::ConstVectorRef r(m.row(i));
    BOOST_TEST(r.data() == &m(i, 0));
    BOOST_TEST(r.innerStride() == 5);
    BOOST_TEST(same_bits(ee::sum(m.row(i)), exala::sum(40, &m(i, 0), 5)));
  }
  BOOST_TEST(same_bits(ee::dot(m.row(1), m.row(3)), exala::dot(40, &m(1, 0), 5, &m(3, 0), 5)));
  std::vector<double> buf(80);
  for (std::size_t i = 0; i < buf.size(); ++i) buf[i] = m(Index(i % 5), Index(i / 5));
  const Eigen::Map<const VectorXd, 0, Eigen::InnerStride<>> every_other(buf.data(), 40,
                                                                        Eigen::InnerStride<>(2));
  const ee::ConstVectorRef r(every_other);
  BOOST_TEST(r.data() == buf.data());
  BOOST_TEST(r.innerStride() == 2);
  BOOST_TEST(same_bits(ee::asum(every_other), exala::asum(40, buf.data(), 2)));
  // Negative stride: Eigen's element i is BLAS's logical element i, so the
  // pairing of dot matches the raw call with a negative increment.
  const Eigen::Map<const VectorXd, 0, Eigen::InnerStride<>> backwards(buf.data() + 78, 40,
                                                                      Eigen::InnerStride<>(-2));
  BOOST_TEST(backwards[0] == buf[78]);
  const VectorXd y = random_vector(40, 5);
  BOOST_TEST(same_bits(ee::dot(backwards, y), exala::dot(40, buf.data(), -2, y.data(), 1)));
}

BOOST_AUTO_TEST_CASE(level1_known_values_and_exec) {
  // x . y = 1e100 + 1 + 1 - 1e100 = 2 exactly; a rounded double sum in any
  // order that adds a 1 to +-1e100 first gives 0.
  VectorXd x(4), ones = VectorXd::Ones(4);
  x << 1e100, 1.0, 1.0, -1e100;
  BOOST_TEST(ee::dot(x, ones) == 2.0);
  BOOST_TEST(ee::sum(x) == 2.0);
  BOOST_TEST(ee::asum(x) == 2e100);  // 2e100 + 2 rounds to 2e100
  // exec reaches the routine: 1 + 2^-60 is 1 to nearest, 1 + 2^-52 upward.
  VectorXd t(2);
  t << 1.0, 0x1p-60;
  BOOST_TEST(ee::sum(t) == 1.0);
  BOOST_TEST(ee::sum(t, {exala::backend::simd, 0, exala::rounding::upward}) == 1.0 + 0x1p-52);
  // nrm2 of (3, 4) * 2^-600: the squares underflow in double, the exact sum does not.
  VectorXd v(2);
  v << 0x3p-600, 0x4p-600;
  BOOST_TEST(ee::nrm2(v) == 0x5p-600);
}

BOOST_AUTO_TEST_CASE(level1_size_mismatch_names_y) {
  const VectorXd x = VectorXd::Ones(3), y = VectorXd::Ones(4);
  try {
    (void)ee::dot(x, y);
    BOOST_FAIL("dot of sizes 3 and 4 did not throw");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "y");
    BOOST_TEST(std::string(e.what()).find("4 elements") != std::string::npos);
  }
}

// Issue 15, row 10: a Map may carry any stride without touching memory; a
// stride whose address would pass 2^60 - 1 elements is refused naming the
// argument before the adapter moves a pointer by it (the view of a negative
// stride, and the aliasing ranges, are computed from it).
BOOST_AUTO_TEST_CASE(hostile_strides_are_refused_naming_the_argument) {
  double buf[4] = {1.0, 2.0, 3.0, 4.0};
  const i64 p62 = i64{1} << 62;
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      return e.argument() == arg && std::string(e.what()).find("2^60") != std::string::npos;
    };
  };
  using StridedVec = Eigen::Map<const VectorXd, 0, Eigen::InnerStride<>>;
  for (const i64 inc : {p62, -p62, std::numeric_limits<i64>::min(), std::numeric_limits<i64>::max()}) {
    const StridedVec x(buf, 2, Eigen::InnerStride<>(static_cast<Index>(inc)));
    BOOST_CHECK_EXCEPTION((void)ee::sum(x), exala::invalid_argument, names("x"));
    BOOST_CHECK_EXCEPTION((void)ee::nrm2(x), exala::invalid_argument, names("x"));
    BOOST_CHECK_EXCEPTION((void)ee::dot(StridedVec(buf, 2, Eigen::InnerStride<>(1)), x), exala::invalid_argument,
                          names("y"));
  }
  const Eigen::Map<const MatrixXd, 0, Eigen::OuterStride<>> A(buf, 2, 2, Eigen::OuterStride<>(p62));
  VectorXd y = VectorXd::Zero(2);
  BOOST_CHECK_EXCEPTION(ee::gemv(transpose::none, 1.0, A, VectorXd::Ones(2), 0.0, y), exala::invalid_argument,
                        names("A"));
  MatrixXd C = MatrixXd::Zero(2, 2);
  BOOST_CHECK_EXCEPTION(ee::gemm(transpose::none, transpose::none, 1.0, MatrixXd::Ones(2, 2), A, 0.0, C),
                        exala::invalid_argument, names("B"));
  Eigen::Map<MatrixXd, 0, Eigen::OuterStride<>> Cm(buf, 2, 2, Eigen::OuterStride<>(p62));
  BOOST_CHECK_EXCEPTION(ee::gemm(transpose::none, transpose::none, 1.0, MatrixXd::Ones(2, 2),
                                 MatrixXd::Ones(2, 2), 0.0, Cm),
                        exala::invalid_argument, names("C"));
  BOOST_TEST((buf[0] == 1.0 && buf[3] == 4.0 && y.isZero() && C.isZero()));
}

// ------------------------------------------------------------------ level 2

namespace {
// gemv for every form of A (both ops), of x and of y (contiguous, a matrix
// row) equals the raw column-major call; a row-major A also equals the raw
// row-major call.
void check_gemv_forms(Index rows, Index cols, const exala::exec& ex, unsigned seed) {
  const MatrixXd a = random_wide(rows, cols, seed);
  for (transpose op : {transpose::none, transpose::trans}) {
    const Index in = op == transpose::none ? cols : rows, out = op == transpose::none ? rows : cols;
    const VectorXd x = random_vector(in, seed + 1), y0 = random_vector(out, seed + 2);
    for (const auto& ab : {std::pair{1.0, 0.0}, std::pair{0.1, -3.0}, std::pair{0.0, 0.7}}) {
      const double alpha = ab.first, beta = ab.second;
      VectorXd expect = y0;
      exala::gemv(exala::layout::col_major, op, rows, cols, alpha, a.data(), std::max<Index>(1, rows),
                  x.data(), 1, beta, expect.data(), 1, ex);
      for_each_matrix_form(a, [&](const auto& av, const char* aw, bool) {
        for_each_vector_form(x, [&](const auto& xv, const char* xw) {
          BOOST_TEST_CONTEXT(rows << " x " << cols << ", backend " << exala::to_string(ex.backend)
                                   << ", op " << int(op) << " alpha " << alpha << ", A " << aw << ", x "
                                   << xw) {
            VectorXd y = y0;  // contiguous y
            ee::gemv(op, alpha, av, xv, beta, y, ex);
            BOOST_TEST(same_bits(y, expect));
            MatrixXd ym = MatrixXd::Constant(3, out, nan_pad);  // y as a matrix row (stride 3)
            ym.row(1) = y0.transpose();
            ee::gemv(op, alpha, av, xv, beta, ym.row(1), ex);
            BOOST_TEST(same_bits(ym.row(1).transpose(), expect));
            BOOST_TEST(std::isnan(ym(0, 0)));
            BOOST_TEST(std::isnan(ym(2, out - 1)));
            if (op == transpose::none && alpha == 1.0 && beta == 0.0)
              BOOST_TEST(same_bits(ee::gemv(av, xv, ex), expect));
          }
        });
      });
    }
  }
  // A row-major A through the raw row-major call too.
  const RowMatrixXd r = a;
  const VectorXd x = random_vector(cols, seed + 3);
  VectorXd expect(rows);
  exala::gemv(exala::layout::row_major, transpose::none, rows, cols, 1.0, r.data(),
              std::max<Index>(1, cols), x.data(), 1, 0.0, expect.data(), 1, ex);
  BOOST_TEST(same_bits(ee::gemv(r, x, ex), expect));
}
}  // namespace

BOOST_AUTO_TEST_CASE(gemv_every_storage_form_matches_raw_gemv) {
  check_gemv_forms(7, 5, {}, 21);
  check_gemv_forms(1, 6, {}, 25);
  check_gemv_forms(6, 1, {exala::backend::reference}, 29);
  check_gemv_forms(40, 33, {exala::backend::simd, 0, exala::rounding::downward}, 33);
}

BOOST_AUTO_TEST_CASE(plain_matrix_storage_is_read_in_place) {
  const MatrixXd a = random_wide(6, 4, 31);
  int in_place = 0;
  for_each_matrix_form(a, [&](const auto& av, const char* aw, bool plain) {
    BOOST_TEST_CONTEXT(aw) {
      ee::detail::with_matrix(av, "A", [&](const ee::detail::matrix_view& v) {
        if constexpr (requires { av.data(); }) {
          BOOST_TEST(plain);
          BOOST_TEST(v.p == av.data());  // the caller's storage, no copy
          ++in_place;
        } else {
          BOOST_TEST(!plain);
        }
        const MatrixXd s = ee::detail::copy_of(v);  // the storage as described
        BOOST_TEST(same_bits(v.transposed ? MatrixXd(s.transpose()) : s, a));
      });
    }
  });
  BOOST_TEST(in_place == 5);
  // The .transpose() of a col-major matrix binds to the row-major Ref.
  static_assert(ee::detail::prefers_row_major<Eigen::Transpose<const MatrixXd>>);
  static_assert(!ee::detail::prefers_row_major<MatrixXd>);
  static_assert(!ee::detail::prefers_row_major<Eigen::Block<const MatrixXd, 1, Eigen::Dynamic>>);
  // A strided column of a row-major matrix is written in place.
  RowMatrixXd c = RowMatrixXd::Zero(4, 3);
  ee::VectorRef col(c.col(1));
  BOOST_TEST(col.data() == &c(0, 1));
  BOOST_TEST(col.innerStride() == 3);
}

BOOST_AUTO_TEST_CASE(gemv_known_values_exec_and_errors) {
  // Row (1, 2^-60) times (1, 1): 1 to nearest, 1 + 2^-52 upward; the
  // update form rounds alpha * sum + beta * y once: 3 (1 + 2^-60) - 2 =
  // 1 + 3 * 2^-60, upward 1 + 2^-52 (rounding 3 * 1 first would give 1).
  MatrixXd a(1, 2);
  a << 1.0, 0x1p-60;
  const VectorXd x = VectorXd::Ones(2);
  BOOST_TEST(ee::gemv(a, x)[0] == 1.0);
  BOOST_TEST(ee::gemv(a, x, {exala::backend::reference, 0, exala::rounding::upward})[0] ==
             1.0 + 0x1p-52);
  VectorXd y = VectorXd::Constant(1, -1.0);
  ee::gemv(transpose::none, 3.0, a, x, 2.0, y, {exala::backend::simd, 0, exala::rounding::upward});
  BOOST_TEST(y[0] == 1.0 + 0x1p-52);

  const MatrixXd m = MatrixXd::Ones(3, 2);
  auto names = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const exala::invalid_argument& e) {
      return e.argument();
    }
    return "(no throw)";
  };
  BOOST_TEST(names([&] { (void)ee::gemv(m, VectorXd::Ones(3)); }) == "x");
  BOOST_TEST(names([&] {
               VectorXd yy(2);
               ee::gemv(transpose::none, 1.0, m, VectorXd::Ones(2), 0.0, yy);
             }) == "y");
  BOOST_TEST(names([&] {
               VectorXd yy(2);
               ee::gemv(transpose::trans, 1.0, m, VectorXd::Ones(3), 0.0, yy);
             }) == "(no throw)");
  // Columns that overlap (outer stride < rows) are refused, naming A.
  std::vector<double> buf(10, 1.0);
  const Eigen::Map<const MatrixXd, 0, Eigen::OuterStride<>> overlapping(buf.data(), 3, 3,
                                                                        Eigen::OuterStride<>(2));
  BOOST_TEST(names([&] { (void)ee::gemv(overlapping, VectorXd::Ones(3)); }) == "A");
}

BOOST_AUTO_TEST_CASE(gemv_output_overlapping_an_input) {
  // As Eigen's y = A * y, an output overlapping an input gives the result of
  // distinct operands (the raw call, given overlapping arrays, need not: it
  // writes y_i while later rows still read A).
  for (const exala::exec& ex : {exala::exec{exala::backend::reference}, exala::exec{}})
    for (Index n : {6, 300}) {
      BOOST_TEST_CONTEXT("backend " << exala::to_string(ex.backend) << ", n = " << n) {
        const MatrixXd a = random_wide(n, n, 41);
        // y := A y (x and y the same vector).
        VectorXd v = random_vector(n, 42);
        VectorXd expect(n);
        exala::gemv(exala::layout::col_major, transpose::none, n, n, 1.0, a.data(), n, v.data(), 1,
                    0.0, expect.data(), 1, ex);
        ee::gemv(transpose::none, 1.0, a, v, 0.0, v, ex);
        BOOST_TEST(same_bits(v, expect));
        // y a column of A itself.
        MatrixXd b = a;
        const VectorXd x = random_vector(n, 43);
        VectorXd expect2 = b.col(2);
        exala::gemv(exala::layout::col_major, transpose::none, n, n, 0.5, a.data(), n, x.data(), 1,
                    2.0, expect2.data(), 1, ex);
        ee::gemv(transpose::none, 0.5, b, x, 2.0, b.col(2), ex);
        BOOST_TEST(same_bits(b.col(2), expect2));
        // y the last row of A: y_0.. are written while the last row is
        // still to be read (raw exala::gemv goes by blocks of rows).
        MatrixXd c = a;
        VectorXd expect3 = c.row(n - 1).transpose();
        exala::gemv(exala::layout::col_major, transpose::none, n, n, 1.0, a.data(), n, x.data(), 1,
                    -1.0, expect3.data(), 1, ex);
        ee::gemv(transpose::none, 1.0, c, x, -1.0, c.row(n - 1), ex);
        BOOST_TEST(same_bits(c.row(n - 1).transpose(), expect3));
      }
    }
}

// ------------------------------------------------------------------ level 3

namespace {
// The raw call on column-major copies (copies are exact).
MatrixXd raw_gemm(transpose ta, transpose tb, double alpha, const MatrixXd& a, const MatrixXd& b,
                  double beta, MatrixXd c, const exala::exec& ex = {}) {
  const i64 m = c.rows(), n = c.cols(), k = ta == transpose::none ? a.cols() : a.rows();
  exala::gemm(exala::layout::col_major, ta, tb, m, n, k, alpha, a.data(),
              std::max<i64>(1, a.rows()), b.data(), std::max<i64>(1, b.rows()), beta, c.data(),
              std::max<i64>(1, m), ex);
  return c;
}
}  // namespace

namespace {
// gemm for every form of A and B (all four op pairs) into C as col-major,
// row-major and blocks of both equals the raw column-major call.
void check_gemm_forms(Index m, Index n, Index k, const exala::exec& ex, unsigned seed) {
  for (transpose ta : {transpose::none, transpose::trans})
    for (transpose tb : {transpose::none, transpose::trans}) {
      const MatrixXd a = ta == transpose::none ? random_wide(m, k, seed) : random_wide(k, m, seed);
      const MatrixXd b = tb == transpose::none ? random_wide(k, n, seed + 1) : random_wide(n, k, seed + 1);
      const MatrixXd c0 = random_wide(m, n, seed + 2);
      const double alpha = 0.1, beta = -0.7;
      const MatrixXd expect = raw_gemm(ta, tb, alpha, a, b, beta, c0, ex);
      for_each_matrix_form(a, [&](const auto& av, const char* aw, bool) {
        for_each_matrix_form(b, [&](const auto& bv, const char* bw, bool) {
          BOOST_TEST_CONTEXT(m << " x " << n << " x " << k << ", backend "
                                           << exala::to_string(ex.backend) << ", ta " << int(ta) << " tb " << int(tb) << ", A " << aw << ", B " << bw) {
            MatrixXd cc = c0;
            ee::gemm(ta, tb, alpha, av, bv, beta, cc, ex);
            BOOST_TEST(same_bits(cc, expect));
            RowMatrixXd cr = c0;
            ee::gemm(ta, tb, alpha, av, bv, beta, cr, ex);
            BOOST_TEST(same_bits(cr, expect));
            MatrixXd bigc = padded<MatrixXd>(c0);
            ee::gemm(ta, tb, alpha, av, bv, beta, bigc.block(2, 1, m, n), ex);
            BOOST_TEST(same_bits(bigc.block(2, 1, m, n), expect));
            BOOST_TEST(padding_intact(bigc, m, n));
            RowMatrixXd bigr = padded<RowMatrixXd>(c0);
            ee::gemm(ta, tb, alpha, av, bv, beta, bigr.block(2, 1, m, n), ex);
            BOOST_TEST(same_bits(bigr.block(2, 1, m, n), expect));
            BOOST_TEST(padding_intact(bigr, m, n));
          }
        });
      });
    }
}
}  // namespace

BOOST_AUTO_TEST_CASE(gemm_every_storage_form_matches_raw_gemm) {
  const Index m = 9, n = 6, k = 11;
  check_gemm_forms(m, n, k, {}, 51);
  check_gemm_forms(1, 4, 3, {exala::backend::reference}, 61);
  check_gemm_forms(5, 1, 0, {}, 65);  // k = 0: C = beta C
  // All row-major: the raw row-major call on the same storage.
  const RowMatrixXd a = random_wide(m, k, 54), b = random_wide(k, n, 55);
  RowMatrixXd expect(m, n);
  exala::gemm(exala::layout::row_major, transpose::none, transpose::none, m, n, k, 1.0, a.data(), k,
              b.data(), n, 0.0, expect.data(), n);
  BOOST_TEST(same_bits(ee::gemm(a, b), expect));
  // A C that no Ref fits (a strided column of a row-major matrix, n = 1):
  // computed in a temporary and assigned back.
  const MatrixXd a2 = random_wide(5, 4, 56), b2 = random_wide(4, 1, 57);
  RowMatrixXd c2 = RowMatrixXd::Constant(5, 3, nan_pad);
  c2.col(2) = random_vector(5, 58);
  const MatrixXd expect2 = raw_gemm(transpose::none, transpose::none, 0.3, a2, b2, 1.5,
                                    MatrixXd(c2.col(2)));
  ee::gemm(transpose::none, transpose::none, 0.3, a2, b2, 1.5, c2.col(2));
  BOOST_TEST(same_bits(c2.col(2), expect2));
  BOOST_TEST(std::isnan(c2(0, 0)));
  BOOST_TEST(std::isnan(c2(4, 1)));
}

BOOST_AUTO_TEST_CASE(gemm_known_values_aliasing_and_errors) {
  // (1, 2^-60) (1, 1)^T upward is 1 + 2^-52: exec reaches the routine.
  MatrixXd a(1, 2), b = MatrixXd::Ones(2, 1);
  a << 1.0, 0x1p-60;
  BOOST_TEST(ee::gemm(a, b)(0, 0) == 1.0);
  BOOST_TEST(ee::gemm(a, b, {exala::backend::reference, 0, exala::rounding::upward})(0, 0) ==
             1.0 + 0x1p-52);
  // Outputs overlapping inputs give the result of distinct operands (the
  // raw call on overlapping arrays does not, e.g. on the reference backend).
  for (const exala::exec& ex : {exala::exec{exala::backend::reference}, exala::exec{}})
    for (Index n : {5, 64}) {
      BOOST_TEST_CONTEXT("backend " << exala::to_string(ex.backend) << ", n = " << n) {
        // C := A C (B and C the same matrix).
        const MatrixXd sq = random_wide(n, n, 61);
        MatrixXd c = random_wide(n, n, 62);
        const MatrixXd expect = raw_gemm(transpose::none, transpose::none, 1.0, sq, c, 0.0, c, ex);
        ee::gemm(transpose::none, transpose::none, 1.0, sq, c, 0.0, c, ex);
        BOOST_TEST(same_bits(c, expect));
        // C := C^T C + C / 2 in place, C row-major.
        RowMatrixXd cr = random_wide(n, n, 63);
        const MatrixXd crc = cr;
        const MatrixXd expect2 =
            raw_gemm(transpose::trans, transpose::none, 1.0, crc, crc, 0.5, crc, ex);
        ee::gemm(transpose::trans, transpose::none, 1.0, cr, cr, 0.5, cr, ex);
        BOOST_TEST(same_bits(cr, expect2));
      }
    }

  auto names = [](auto&& call) -> std::string {
    try {
      call();
    } catch (const exala::invalid_argument& e) {
      return e.argument();
    }
    return "(no throw)";
  };
  const MatrixXd m32 = MatrixXd::Ones(3, 2), m43 = MatrixXd::Ones(4, 3);
  BOOST_TEST(names([&] { (void)ee::gemm(m32, m43); }) == "B");
  BOOST_TEST(names([&] {
               MatrixXd cc(3, 3);
               ee::gemm(transpose::none, transpose::trans, 1.0, m32, m43, 0.0, cc);
             }) == "B");
  BOOST_TEST(names([&] {
               MatrixXd cc(3, 4);
               ee::gemm(transpose::none, transpose::trans, 1.0, m32, MatrixXd::Ones(4, 2), 0.0, cc);
             }) == "(no throw)");
  BOOST_TEST(names([&] {
               MatrixXd cc(4, 3);
               ee::gemm(transpose::none, transpose::trans, 1.0, m32, MatrixXd::Ones(4, 2), 0.0, cc);
             }) == "C");
}

// --------------------------------------------------------- the expression rule

BOOST_AUTO_TEST_CASE(expressions_are_evaluated_by_eigen_first) {
  // sum(x + y): x + y = (1 + 2^-60, 2^-60 - 1) rounds to (1, -1), whose sum
  // is 0; the exact sum of all x_i and y_i is 2^-59.
  VectorXd x(2), y(2);
  x << 1.0, 0x1p-60;
  y << 0x1p-60, -1.0;
  const VectorXd z = x + y;  // Eigen's element-wise rounding
  BOOST_TEST(same_bits(ee::sum(x + y), exala::sum(2, z.data(), 1)));
  BOOST_TEST(ee::sum(x + y) == 0.0);
  exala::superaccumulator acc;
  exala::sum_into(acc, 2, x.data(), 1);
  exala::sum_into(acc, 2, y.data(), 1);
  BOOST_TEST(acc.round() == 0x1p-59);
  // Random data: sum of an expression = sum of its evaluated vector.
  const VectorXd p = random_vector(50, 71), q = random_vector(50, 72);
  const VectorXd pq = p + q, pxq = p.cwiseProduct(q);
  BOOST_TEST(same_bits(ee::sum(p + q), exala::sum(50, pq.data(), 1)));
  BOOST_TEST(same_bits(ee::sum(p.cwiseProduct(q)), exala::sum(50, pxq.data(), 1)));

  // dot(x, y) is exact, dot(x .* y, 1) sums rounded products:
  // x = (1 + 2^-52, -1), y = (1 + 2^-52, 1 + 2^-51):
  // x . y = 1 + 2^-51 + 2^-104 - 1 - 2^-51 = 2^-104, while the rounded
  // products are 1 + 2^-51 and -(1 + 2^-51), summing to 0.
  x << 1.0 + 0x1p-52, -1.0;
  y << 1.0 + 0x1p-52, 1.0 + 0x1p-51;
  BOOST_TEST(ee::dot(x, y) == 0x1p-104);
  BOOST_TEST(ee::dot(x.cwiseProduct(y), VectorXd::Ones(2)) == 0.0);

  // gemm(A + E, B): A + E = (1 + 2^-60, 1) rounds to (1, 1), times (1, -1)^T
  // gives 0; the exact (A + E) B = 2^-60, reached by accumulating A B and
  // then E B with the update form (one rounding each, both exact here).
  MatrixXd a(1, 2), e(1, 2), b(2, 1);
  a << 1.0, 1.0;
  e << 0x1p-60, 0.0;
  b << 1.0, -1.0;
  BOOST_TEST(ee::gemm(a + e, b)(0, 0) == 0.0);
  MatrixXd c = ee::gemm(a, b);
  ee::gemm(transpose::none, transpose::none, 1.0, e, b, 1.0, c);
  BOOST_TEST(c(0, 0) == 0x1p-60);
  // A.transpose() * 2 (an expression: evaluated, here exactly) equals the
  // raw call on the evaluated matrix.
  const MatrixXd g = random_wide(4, 6, 73), h = random_wide(4, 3, 74);
  const MatrixXd gt2 = g.transpose() * 2;
  BOOST_TEST(same_bits(ee::gemm(g.transpose() * 2, h),
                       raw_gemm(transpose::none, transpose::none, 1.0, gt2, h, 0.0,
                                MatrixXd(6, 3))));
}

// ------------------------------------------------------- triangular solvers

namespace {
// A well-conditioned triangular matrix (strong diagonal) of the mode's shape;
// the other triangle holds NaN, which a solver must never read (nor the
// diagonal of a unit mode).
template <int Mode>
MatrixXd triangular(Index n, unsigned seed) {
  MatrixXd t = random_wide(n, n, seed) * 0x1p-31;
  for (Index i = 0; i < n; ++i) {
    t(i, i) = (i % 2 ? -1.0 : 1.0) * (1.5 + double(i % 5));
    for (Index j = 0; j < n; ++j) {
      const bool keep = (Mode & Eigen::Lower) ? j <= i : j >= i;
      if (!keep || (i == j && (Mode & Eigen::UnitDiag))) t(i, j) = nan_pad;
    }
  }
  return t;
}

template <int Mode>
void check_exact_solver_mode() {
  constexpr exala::uplo ul = (Mode & Eigen::Lower) ? exala::uplo::lower : exala::uplo::upper;
  constexpr exala::diag dg = (Mode & Eigen::UnitDiag) ? exala::diag::unit : exala::diag::non_unit;
  const Index n = 37;
  const MatrixXd t = triangular<Mode>(n, 81 + Mode);
  const MatrixXd bs = random_wide(n, 3, 82);
  for (const exala::exec& ex : {exala::exec{}, exala::exec{exala::backend::reference, 0,
                                                          exala::rounding::to_nearest_even, 8}}) {
    // The raw calls.
    MatrixXd plain = bs, refined = bs;
    std::vector<exala::refinement_report> reports;
    for (Index j = 0; j < 3; ++j) {
      exala::trsv(exala::layout::col_major, ul, transpose::none, dg, n, t.data(), n,
                  plain.col(j).data(), 1, ex);
      reports.push_back(exala::trsv_exact_refined(exala::layout::col_major, ul, transpose::none,
                                                  dg, n, t.data(), n, refined.col(j).data(), 1, 4,
                                                  ex));
    }
    for_each_matrix_form(t, [&](const auto& tv, const char* tw, bool) {
      BOOST_TEST_CONTEXT("mode " << Mode << ", T " << tw) {
        ee::ExactTriangularSolver<Mode> s(tv);
        s.setExec(ex);
        BOOST_TEST(s.info() == Eigen::Success);
        BOOST_TEST(s.lastError().empty());
        BOOST_TEST(s.rows() == n);
        const VectorXd x0 = s.solve(bs.col(0));
        BOOST_TEST(same_bits(x0, plain.col(0)));
        BOOST_TEST(same_bits(s.solve(bs), plain));  // trsm: trsv's bits per column
        const MatrixXd rowb = bs.transpose();        // a strided right-hand side
        BOOST_TEST(same_bits(s.solve(rowb.row(1).transpose()), plain.col(1)));
        s.setRefinementSteps(4);
        BOOST_TEST(same_bits(s.solve(bs.col(2)), refined.col(2)));
        BOOST_TEST(s.refinementReport().steps == reports[2].steps);
        BOOST_TEST(s.refinementReport().converged == reports[2].converged);
        BOOST_TEST(same_bits(s.solve(bs), refined));
      }
    });
  }
}
}  // namespace

BOOST_AUTO_TEST_CASE(exact_triangular_solver_matches_trsv_trsm_and_refined) {
  check_exact_solver_mode<Eigen::Lower>();
  check_exact_solver_mode<Eigen::Upper>();
  check_exact_solver_mode<Eigen::UnitLower>();
  check_exact_solver_mode<Eigen::UnitUpper>();
}

BOOST_AUTO_TEST_CASE(exact_triangular_solver_known_solutions) {
  // L = [2 0; 1 3], b = (1, 1): x = (1/2, 1/6), the second correctly rounded.
  Eigen::Matrix2d l;
  l << 2, 0, 1, 3;
  const ee::ExactTriangularSolver<Eigen::Lower> s(l);
  const VectorXd x = s.solve(Eigen::Vector2d(1, 1));
  BOOST_TEST(x[0] == 0.5);
  BOOST_TEST(x[1] == 1.0 / 6.0);  // IEEE division: the correctly rounded 1/6
  // Integer upper-triangular T and integer x: b = T x is exact in double, so
  // the exact solver returns x exactly.
  const Index n = 12;
  MatrixXd t = MatrixXd::Zero(n, n);
  VectorXd xs(n);
  for (Index i = 0; i < n; ++i) {
    xs[i] = double((i * 7) % 11) - 5.0;
    for (Index j = i; j < n; ++j) t(i, j) = i == j ? double(1 + i % 3) : double((i + 2 * j) % 5) - 2;
  }
  VectorXd b = VectorXd::Zero(n);
  for (Index i = 0; i < n; ++i)
    for (Index j = i; j < n; ++j) b[i] += t(i, j) * xs[j];  // small integers: exact
  const ee::ExactTriangularSolver<Eigen::Upper> u(t);
  BOOST_TEST(same_bits(u.solve(b), xs));
}

namespace {
template <class Solver>
void check_bad_input(const char* name) {
  BOOST_TEST_CONTEXT(name) {
    Solver s;
    BOOST_TEST(s.info() == Eigen::InvalidInput);  // nothing computed yet
    BOOST_CHECK_THROW((void)s.solve(VectorXd::Ones(2)), exala::error);
    // Non-square.
    s.compute(MatrixXd::Ones(3, 4));
    BOOST_TEST(s.info() == Eigen::InvalidInput);
    BOOST_TEST(s.lastError().find("'T'") != std::string::npos);
    BOOST_TEST(s.lastError().find("not square") != std::string::npos);
    BOOST_CHECK_THROW((void)s.solve(VectorXd::Ones(3)), exala::error);
    // Exact zero on the diagonal at row 2.
    MatrixXd z = MatrixXd::Identity(4, 4);
    z(2, 2) = 0.0;
    s.compute(z);
    BOOST_TEST(s.info() == Eigen::NumericalIssue);
    BOOST_TEST(s.singularRow() == 2);
    BOOST_TEST(s.lastError().find("row 2") != std::string::npos);
    try {
      (void)s.solve(VectorXd::Ones(4));
      BOOST_FAIL("solve after a failed compute did not throw");
    } catch (const exala::error& e) {
      BOOST_TEST(std::string(e.what()).find("row 2") != std::string::npos);
    }
    // A good matrix, then a right-hand side of the wrong size: recorded,
    // thrown, and the next good solve succeeds.
    s.compute(MatrixXd::Identity(4, 4) * 2.0);
    BOOST_TEST(s.info() == Eigen::Success);
    BOOST_TEST(s.singularRow() == -1);
    try {
      (void)s.solve(VectorXd::Ones(5));
      BOOST_FAIL("solve with 5 rows for a 4 x 4 matrix did not throw");
    } catch (const exala::invalid_argument& e) {
      BOOST_TEST(e.argument() == "b");
    }
    BOOST_TEST(s.info() == Eigen::InvalidInput);
    BOOST_TEST(s.lastError().find("'b'") != std::string::npos);
    BOOST_CHECK_THROW((void)s.solve(MatrixXd::Ones(3, 2)), exala::invalid_argument);
    const VectorXd x = s.solve(VectorXd::Ones(4));
    BOOST_TEST(s.info() == Eigen::Success);
    BOOST_TEST(s.lastError().empty());
    BOOST_TEST(same_bits(x, VectorXd::Constant(4, 0.5)));
  }
}
}  // namespace

BOOST_AUTO_TEST_CASE(triangular_solvers_bad_input) {
  check_bad_input<ee::ExactTriangularSolver<Eigen::Lower>>("exact lower");
  check_bad_input<ee::ExactTriangularSolver<Eigen::Upper>>("exact upper");
  check_bad_input<ee::CompensatedTriangularSolver<Eigen::Lower>>("compensated lower");
  check_bad_input<ee::CompensatedTriangularSolver<Eigen::Upper>>("compensated upper");
  // A unit diagonal is not read: a zero there is not singular.
  MatrixXd z = MatrixXd::Identity(3, 3);
  z(1, 1) = 0.0;
  z(2, 0) = 4.0;
  ee::ExactTriangularSolver<Eigen::UnitLower> unit(z);
  BOOST_TEST(unit.info() == Eigen::Success);
  const VectorXd x = unit.solve(Eigen::Vector3d(1, 2, 3));
  BOOST_TEST(same_bits(x, Eigen::Vector3d(1, 2, -1)));  // 3 - 4 * 1
  // Refinement steps outside 0..100, and refinement with a directed rounding.
  ee::ExactTriangularSolver<Eigen::Lower> s(MatrixXd::Identity(2, 2));
  try {
    s.setRefinementSteps(101);
    BOOST_FAIL("101 refinement steps accepted");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "steps");
  }
  s.setRefinementSteps(2).setExec({exala::backend::simd, 0, exala::rounding::upward});
  BOOST_CHECK_THROW((void)s.solve(VectorXd::Ones(2)), exala::invalid_argument);
  BOOST_TEST(s.info() == Eigen::InvalidInput);
  BOOST_TEST(s.lastError().find("'mode'") != std::string::npos);
}

namespace {
template <int Mode>
void check_compensated_mode() {
  constexpr exala::uplo ul = (Mode & Eigen::Lower) ? exala::uplo::lower : exala::uplo::upper;
  constexpr exala::diag dg = (Mode & Eigen::UnitDiag) ? exala::diag::unit : exala::diag::non_unit;
  const Index n = 29;
  const MatrixXd t = triangular<Mode>(n, 91 + Mode);
  const MatrixXd bs = random_wide(n, 2, 92);
  MatrixXd cena = bs, dd = bs;
  for (Index j = 0; j < 2; ++j) {
    exala::trsv_compensated(exala::layout::col_major, ul, transpose::none, dg, n, t.data(), n,
                            cena.col(j).data(), 1);
    exala::trsv_double_double(exala::layout::col_major, ul, transpose::none, dg, n, t.data(), n,
                              dd.col(j).data(), 1);
  }
  for_each_matrix_form(t, [&](const auto& tv, const char* tw, bool) {
    BOOST_TEST_CONTEXT("mode " << Mode << ", T " << tw) {
      ee::CompensatedTriangularSolver<Mode> s(tv);
      BOOST_TEST(s.info() == Eigen::Success);
      BOOST_TEST((s.method() == ee::compensation::cena));
      BOOST_TEST(same_bits(s.solve(bs.col(1)), cena.col(1)));
      BOOST_TEST(same_bits(s.solve(bs), cena));
      s.setMethod(ee::compensation::double_double);
      BOOST_TEST(same_bits(s.solve(bs.col(0)), dd.col(0)));
      BOOST_TEST(same_bits(s.solve(bs), dd));
    }
  });
}
}  // namespace

// backend cuda from an Eigen program that does not link exala::gpu_cuda
// (where the build has CUDA, the registry loads the plugin libexala_cuda.so):
// a 256^3 product past the CPU cut-off has the reference's bits on a GPU;
// without a device, an exala::error naming CUDA. Never a wrong value.
BOOST_AUTO_TEST_CASE(backend_cuda_through_the_plugin) {
  if (!exala::is_compiled_in(exala::backend::cuda)) return;
  const MatrixXd A = random_wide(256, 256, 71), B = random_wide(256, 256, 72);
  MatrixXd want(256, 256), got = MatrixXd::Constant(256, 256, nan_pad);
  ee::gemm(transpose::none, transpose::trans, 1.0, A, B, 0.0, want, exala::exec{exala::backend::reference});
  try {
    ee::gemm(transpose::none, transpose::trans, 1.0, A, B, 0.0, got, exala::exec{exala::backend::cuda});
    BOOST_TEST(same_bits(got, want));
  } catch (const exala::error& e) {
    BOOST_TEST(std::string(e.what()).find("CUDA") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(compensated_triangular_solver_matches_raw_solvers) {
  check_compensated_mode<Eigen::Lower>();
  check_compensated_mode<Eigen::Upper>();
  check_compensated_mode<Eigen::UnitLower>();
  check_compensated_mode<Eigen::UnitUpper>();
  // An ill-conditioned generated system (row-major storage) through a Map:
  // the raw row-major calls' bits. At cond 1e25 both methods err by about
  // n cond u^2 ~ 1e-5, so CENA and double-double differ here (required, so
  // that the method switch is observable).
  const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(40, 1e25, 3);
  const Eigen::Map<const RowMatrixXd> t(p.t.data(), 40, 40);
  const Eigen::Map<const VectorXd> b(p.b.data(), 40);
  std::vector<double> cena = p.b, dd = p.b;
  exala::trsv_compensated(exala::layout::row_major, exala::uplo::lower, transpose::none,
                          exala::diag::non_unit, 40, p.t.data(), 40, cena.data(), 1);
  exala::trsv_double_double(exala::layout::row_major, exala::uplo::lower, transpose::none,
                            exala::diag::non_unit, 40, p.t.data(), 40, dd.data(), 1);
  const Eigen::Map<const VectorXd> xc(cena.data(), 40), xd(dd.data(), 40);
  BOOST_TEST_REQUIRE(!same_bits(xc, xd));
  ee::CompensatedTriangularSolver<Eigen::Lower> s(t);
  BOOST_TEST(same_bits(s.solve(b), xc));
  s.setMethod(ee::compensation::double_double);
  BOOST_TEST(same_bits(s.solve(b), xd));
  // Exact solver on the same system: exala::trsv's bits, and refinement.
  std::vector<double> plain = p.b;
  exala::trsv(exala::layout::row_major, exala::uplo::lower, transpose::none, exala::diag::non_unit,
              40, p.t.data(), 40, plain.data(), 1);
  ee::ExactTriangularSolver<Eigen::Lower> e(t);
  BOOST_TEST(same_bits(e.solve(b), Eigen::Map<const VectorXd>(plain.data(), 40)));
}

// ------------------------------------------------------------------ StripeLU

namespace {
MatrixXd random_matrix(Index n, unsigned seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-0.5, 0.5);
  MatrixXd a(n, n);
  for (Index j = 0; j < n; ++j)
    for (Index i = 0; i < n; ++i) a(i, j) = d(g);
  return a;
}
exala::stripe_lu_options small_stripes() {
  exala::stripe_lu_options o;
  o.stripe = 16;
  o.substripe = 8;
  o.threads = 2;
  return o;
}
}  // namespace

BOOST_AUTO_TEST_CASE(stripe_lu_in_core_matches_raw_stripe_lu) {
  const Index n = 70;
  const MatrixXd a = random_matrix(n, 101);
  const MatrixXd bs = random_matrix(n, 102).leftCols(3);
  for (exala::pivoting pv : {exala::pivoting::local, exala::pivoting::partial}) {
    exala::stripe_lu_options opt = small_stripes();
    opt.pivot = pv;
    const exala::stripe_lu raw(n, a.data(), n, opt);
    MatrixXd solved = bs;
    raw.solve(3, solved.data(), n);
    MatrixXd refined(n, 3);
    const exala::refine_report rr = raw.solve_refined(3, bs.data(), n, refined.data(), n, 10);
    VectorXd refined1(n);
    const exala::refine_report rr1 = raw.solve_refined(1, bs.data(), n, refined1.data(), n, 10);
    for_each_matrix_form(a, [&](const auto& av, const char* aw, bool) {
      BOOST_TEST_CONTEXT("pivot " << exala::to_string(pv) << ", A " << aw) {
        const ee::StripeLU lu(av, opt);
        BOOST_TEST(lu.info() == Eigen::Success);
        BOOST_TEST(lu.rows() == n);
        BOOST_TEST(lu.report().in_core);
        BOOST_TEST(lu.report().stripe == raw.report().stripe);
        BOOST_TEST(same_bits(lu.solve(bs), solved));
        BOOST_TEST(same_bits(lu.solve(bs.col(2)), solved.col(2)));
        const MatrixXd x = lu.solveRefined(bs);
        BOOST_TEST(same_bits(x, refined));
        BOOST_TEST(lu.refineReport().steps == rr.steps);
        BOOST_TEST(same_bits(lu.refineReport().backward_error_after, rr.backward_error_after));
        const VectorXd x1 = lu.solveRefined(bs.col(0));
        BOOST_TEST(same_bits(x1, refined1));
        BOOST_TEST(lu.refineReport().steps == rr1.steps);
        // A strided right-hand side (a row of the transpose).
        const MatrixXd bt = bs.transpose();
        BOOST_TEST(same_bits(lu.solveRefined(bt.row(0).transpose()), refined1));
        BOOST_TEST(same_bits(lu.backwardError(bs, x),
                             raw.backward_error(3, bs.data(), n, x.data(), n)));
        BOOST_TEST(lu.backwardError(bs.col(0), x1) <= 0x1p-52);
#ifdef EXALA_TEST_HAVE_MPFR
        for (Index j = 0; j < 3; ++j)
          BOOST_TEST(mpfr_backward_error(a, bs.col(j), x.col(j)) <= 0x1p-52);
#endif
      }
    });
  }
}

BOOST_AUTO_TEST_CASE(stripe_lu_bad_input) {
  ee::StripeLU lu;
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_CHECK_THROW((void)lu.solve(VectorXd::Ones(2)), exala::error);
  BOOST_CHECK_THROW((void)lu.report(), exala::error);
  // Non-square.
  lu.compute(MatrixXd::Ones(4, 5));
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_TEST(lu.lastError().find("'A'") != std::string::npos);
  BOOST_CHECK_THROW((void)lu.solveRefined(VectorXd::Ones(4)), exala::error);
  // Column 5 all zero: an exactly zero pivot there.
  MatrixXd s = random_matrix(20, 111);
  s.col(5).setZero();
  lu.compute(s, small_stripes());
  BOOST_TEST(lu.info() == Eigen::NumericalIssue);
  BOOST_TEST(lu.singularColumn() == 5);
  BOOST_TEST(lu.lastError().find("column 5") != std::string::npos);
  try {
    (void)lu.solve(VectorXd::Ones(20));
    BOOST_FAIL("solve after a singular factorization did not throw");
  } catch (const exala::error& e) {
    BOOST_TEST(std::string(e.what()).find("column 5") != std::string::npos);
  }
  // A non-finite entry is bad input.
  MatrixXd inf = MatrixXd::Identity(3, 3);
  inf(1, 2) = std::numeric_limits<double>::infinity();
  lu.compute(inf);
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_TEST(lu.lastError().find("not finite") != std::string::npos);
  // Bad options are bad input.
  exala::stripe_lu_options bad;
  bad.threads = -1;
  lu.compute(MatrixXd::Identity(3, 3), bad);
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_TEST(lu.lastError().find("'threads'") != std::string::npos);
  // A good factorization, then wrong sizes: recorded and thrown, then fine.
  lu.compute(MatrixXd::Identity(3, 3) * 4.0);
  BOOST_TEST(lu.info() == Eigen::Success);
  BOOST_TEST(lu.singularColumn() == -1);
  try {
    (void)lu.solve(VectorXd::Ones(4));
    BOOST_FAIL("wrong right-hand side accepted");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "b");
  }
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_CHECK_THROW((void)lu.solveRefined(MatrixXd::Ones(2, 2)), exala::invalid_argument);
  try {
    (void)lu.backwardError(VectorXd::Ones(3), MatrixXd::Ones(3, 2));
    BOOST_FAIL("backwardError with x of another shape accepted");
  } catch (const exala::invalid_argument& e) {
    BOOST_TEST(e.argument() == "x");
  }
  BOOST_CHECK_THROW((void)lu.solveRefined(VectorXd::Ones(3), 101), exala::invalid_argument);
  BOOST_TEST(lu.lastError().find("'max_refine'") != std::string::npos);
  // solveStored needs a work directory.
  BOOST_CHECK_THROW((void)lu.solveStored(), exala::invalid_argument);
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  const VectorXd x = lu.solve(Eigen::Vector3d(1, 2, 3));
  BOOST_TEST(lu.info() == Eigen::Success);
  BOOST_TEST(same_bits(x, Eigen::Vector3d(0.25, 0.5, 0.75)));
  // Out of core: a work directory that does not exist.
  temp_dir tmp("missing");
  lu.compute(std::vector<std::string>{(tmp.path / "nothing-here").string()});
  BOOST_TEST(lu.info() == Eigen::InvalidInput);
  BOOST_TEST(!lu.lastError().empty());
  BOOST_CHECK_THROW((void)lu.solveStored(), exala::error);
}

BOOST_AUTO_TEST_CASE(stripe_lu_out_of_core_matches_raw_stripe_lu) {
  const i64 n = 96, nrhs = 2;
  // The same generated system twice (a function of the seed), one factored
  // through the adapter and one directly, so neither resumes the other.
  temp_dir d1("ooc_adapter"), d2("ooc_raw");
  exala::generate_dense_system({d1.str()}, n, nrhs, 7, 16, 0);
  exala::generate_dense_system({d2.str()}, n, nrhs, 7, 16, 0);
  exala::stripe_lu_options opt = small_stripes();
  opt.cache_bytes = 4 * 16 * std::uint64_t(n) * 8;  // 4 stripes of 96: the disk tier works
  opt.checkpoint_interval_s = 0;

  const ee::StripeLU lu(std::vector<std::string>{d1.str()}, opt);
  BOOST_TEST_REQUIRE(lu.info() == Eigen::Success, lu.lastError());
  const exala::stripe_lu raw(std::vector<std::string>{d2.str()}, opt);
  BOOST_TEST(!lu.report().in_core);
  BOOST_TEST(lu.report().n == n);
  BOOST_TEST(lu.report().cache_misses > 0);

  std::vector<double> xr;
  const exala::refine_report rr = raw.solve_stored(xr, 5);
  const MatrixXd xs = lu.solveStored(5);
  BOOST_TEST(xs.rows() == n);
  BOOST_TEST(xs.cols() == nrhs);
  BOOST_TEST(same_bits(xs, Eigen::Map<const MatrixXd>(xr.data(), n, nrhs)));
  BOOST_TEST(lu.refineReport().steps == rr.steps);
  BOOST_TEST(lu.refineReport().backward_error_after <= 0x1p-52);

  // The stored system, read back, through solve / solveRefined / backwardError.
  const exala::stripe_system_reader reader(std::vector<std::string>{d1.str()});
  MatrixXd a(n, n), b(n, nrhs);
  reader.read_rows(0, n, a.data(), n);
  reader.read_rhs(b.data(), n);
  MatrixXd solved = b;
  raw.solve(nrhs, solved.data(), n);
  BOOST_TEST(same_bits(lu.solve(b), solved));
  MatrixXd refined(n, nrhs);
  raw.solve_refined(nrhs, b.data(), n, refined.data(), n, 5);
  const MatrixXd x = lu.solveRefined(b, 5);
  BOOST_TEST(same_bits(x, refined));
  BOOST_TEST(same_bits(x, xs));  // the stored right-hand sides are these
  BOOST_TEST(same_bits(lu.backwardError(b, x), raw.backward_error(nrhs, b.data(), n, x.data(), n)));
#ifdef EXALA_TEST_HAVE_MPFR
  for (Index j = 0; j < nrhs; ++j) BOOST_TEST(mpfr_backward_error(a, b.col(j), x.col(j)) <= 0x1p-52);
#endif
}

// ------------------------------------------------------------- long sweep

BOOST_AUTO_TEST_CASE(long_sweep_bigger_sizes_every_backend, *boost::unit_test::label("long")) {
  for (const exala::exec& ex : some_execs()) {
    for (Index n : {1000, 4097, 20000}) check_level1(n, ex, unsigned(n));
    check_gemv_forms(300, 170, ex, 201);
    check_gemv_forms(17, 1000, ex, 205);
    check_gemm_forms(70, 45, 300, ex, 211);
    check_gemm_forms(33, 1, 129, ex, 215);
  }
  // Stripe LU, bigger: in core (both pivotings) and out of core.
  const Index n = 300;
  const MatrixXd a = random_matrix(n, 221);
  const MatrixXd bs = random_matrix(n, 222).leftCols(4);
  for (exala::pivoting pv : {exala::pivoting::local, exala::pivoting::partial}) {
    exala::stripe_lu_options opt;
    opt.stripe = 64;
    opt.pivot = pv;
    const exala::stripe_lu raw(n, a.data(), n, opt);
    MatrixXd refined(n, 4);
    raw.solve_refined(4, bs.data(), n, refined.data(), n, 10);
    const RowMatrixXd ar = a;
    const ee::StripeLU lu(ar, opt);
    BOOST_TEST_REQUIRE(lu.info() == Eigen::Success, lu.lastError());
    const MatrixXd x = lu.solveRefined(bs);
    BOOST_TEST(same_bits(x, refined));
#ifdef EXALA_TEST_HAVE_MPFR
    for (Index j = 0; j < 4; ++j) BOOST_TEST(mpfr_backward_error(a, bs.col(j), x.col(j)) <= 0x1p-52);
#endif
  }
  temp_dir d1("long_adapter"), d2("long_raw");
  exala::generate_dense_system({d1.str()}, 256, 3, 11, 32, 1e6);
  exala::generate_dense_system({d2.str()}, 256, 3, 11, 32, 1e6);
  exala::stripe_lu_options opt = small_stripes();
  opt.stripe = 32;
  opt.cache_bytes = 3 * 32 * 256 * 8;
  const ee::StripeLU lu(std::vector<std::string>{d1.str()}, opt);
  BOOST_TEST_REQUIRE(lu.info() == Eigen::Success, lu.lastError());
  const exala::stripe_lu raw(std::vector<std::string>{d2.str()}, opt);
  std::vector<double> xr;
  raw.solve_stored(xr, 10);
  BOOST_TEST(same_bits(lu.solveStored(10), Eigen::Map<const MatrixXd>(xr.data(), 256, 3)));
  BOOST_TEST(lu.refineReport().backward_error_after <= 0x1p-52);
}
