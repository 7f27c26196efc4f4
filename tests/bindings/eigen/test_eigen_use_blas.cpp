// test_eigen_use_blas - an ordinary Eigen program, compiled with
// EIGEN_USE_BLAS and linked against libexala_blas.so (and no other BLAS),
// gets ExaLA's correctly rounded products from Eigen's own syntax.
//
// Eigen with EIGEN_USE_BLAS sends its large dense products to the Fortran
// BLAS symbols (Eigen/src/Core/products/*_BLAS.h): general products to
// dgemm_ / dgemv_, selfadjointView products to dsymm_ / dsymv_,
// triangularView products to dtrmm_, rankUpdate to dsyrk_, triangular solves
// with a matrix right-hand side to dtrsm_. This suite checks, on wide data
// where ordinary arithmetic rounds differently:
//  * that those symbols resolve to libexala_blas.so in this process;
//  * C = A * B, C.noalias() += alpha * A^T * B, row-major operands, y = A x,
//    y += alpha A^T x: the bits of exala::gemm / exala::gemv with Eigen's
//    alpha and beta (one call, beta = 1 on the destination: one rounding
//    per entry), and a sample of entries against MPFR;
//  * S.selfadjointView<Lower>() * B and T.triangularView<Upper>() * B: the
//    bits of exala::gemm on the expanded matrix (correctly rounded);
//  * T.triangularView<Lower>().solve(B): the bits of exala::trsm;
//  * what is NOT covered, so that the README's table stays true: products
//    with m + n + k < 20 (Eigen's coefficient-based lazy product), dot
//    products and vector triangular solves are Eigen's own arithmetic.
#define BOOST_TEST_MODULE test_eigen_use_blas
#ifndef EIGEN_USE_BLAS
#error "test_eigen_use_blas must be compiled with -DEIGEN_USE_BLAS"
#endif
#include <dlfcn.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include <boost/test/unit_test.hpp>

#include <Eigen/Dense>

#include "bindings/eigen/eigen_test_util.hpp"

#include "exala/blas2.hpp"
#include "exala/blas3.hpp"
#include "mpfr_oracle.hpp"

namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMatrixXd = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using exala::layout;
using exala::transpose;

using eigen_test::same_bits;
// Count of entries whose bits differ (to show ordinary arithmetic differs).
template <class A, class B>
Index differing(const Eigen::MatrixBase<A>& a, const Eigen::MatrixBase<B>& b) {
  Index d = 0;
  for (Index j = 0; j < a.cols(); ++j)
    for (Index i = 0; i < a.rows(); ++i) d += !same_bits(a(i, j), b(i, j));
  return d;
}

using eigen_test::random_wide;

// The shared object that defines `symbol` for this process.
std::string provider(const char* symbol) {
  void* p = dlsym(RTLD_DEFAULT, symbol);
  if (p == nullptr) return "(undefined)";
  Dl_info info{};
  if (dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "(unknown)";
  return info.dli_fname;
}

// exala::gemm on column-major Eigen matrices: C = alpha op(A) B + beta C.
void exala_gemm(transpose ta, double alpha, const MatrixXd& A, const MatrixXd& B, double beta,
                MatrixXd& C) {
  const std::int64_t m = C.rows(), n = C.cols(), k = ta == transpose::none ? A.cols() : A.rows();
  exala::gemm(layout::col_major, ta, transpose::none, m, n, k, alpha, A.data(), A.rows(), B.data(),
              B.rows(), beta, C.data(), C.rows());
}

const Index m = 23, k = 17, n = 11;  // m + n + k >= 20: Eigen's BLAS path

}  // namespace

BOOST_AUTO_TEST_CASE(eigen_blas_symbols_come_from_libexala_blas) {
  for (const char* s : {"dgemm_", "dgemv_", "dsymm_", "dsymv_", "dtrmm_", "dtrsm_", "dsyrk_"}) {
    const std::string lib = provider(s);
    BOOST_TEST(lib.find("libexala_blas") != std::string::npos, s << " from " << lib);
  }
}

BOOST_AUTO_TEST_CASE(general_products_are_correctly_rounded) {
  const MatrixXd A = random_wide(m, k, 1), B = random_wide(k, n, 2), At = random_wide(k, m, 3),
                 C0 = random_wide(m, n, 4);
  // C = A * B: Eigen zeroes C and calls dgemm_ with beta = 1 once.
  const MatrixXd C = A * B;
  MatrixXd want = MatrixXd::Zero(m, n);
  exala_gemm(transpose::none, 1.0, A, B, 1.0, want);
  BOOST_TEST(same_bits(C, want));
  BOOST_TEST(differing(C, MatrixXd(A.lazyProduct(B))) > 0);  // Eigen's own arithmetic differs
  // Row-major operands: dgemm_ with transa = 'T', same bits.
  const RowMatrixXd Ar = A;
  const MatrixXd Cr = Ar * B;
  BOOST_TEST(same_bits(Cr, want));
  // C += alpha A^T B: one dgemm_ (alpha, beta = 1), one rounding per entry.
  const double alpha = -0x1.8p-3;
  MatrixXd D = C0;
  D.noalias() += alpha * At.transpose() * B;
  want = C0;
  exala_gemm(transpose::trans, alpha, At, B, 1.0, want);
  BOOST_TEST(same_bits(D, want));
#ifdef EXALA_TEST_HAVE_MPFR
  for (Index j = 0; j < n; j += 3)
    for (Index i = 0; i < m; i += 4) {
      exala_test::mpfr_exact_sum s;
      for (Index p = 0; p < k; ++p) s.add_product(A(i, p), B(p, j));
      BOOST_TEST(same_bits(C(i, j), s.round()), "C(" << i << ", " << j << ")");
      exala_test::mpfr_exact_sum t;
      for (Index p = 0; p < k; ++p) t.add_product(At(p, i), B(p, j));
      BOOST_TEST(same_bits(D(i, j), exala_test::mpfr_round_axpby(t.value(), alpha, 1.0, C0(i, j),
                                                                  exala::rounding::to_nearest_even)));
    }
#endif
}

BOOST_AUTO_TEST_CASE(matrix_vector_products_are_one_gemv) {
  const MatrixXd A = random_wide(m, k, 5);
  const VectorXd x = random_wide(k, 1, 6).col(0), z = random_wide(m, 1, 7).col(0),
                 y0 = random_wide(k, 1, 8).col(0);
  const VectorXd y = A * x;
  VectorXd want = VectorXd::Zero(m);
  exala::gemv(layout::col_major, transpose::none, m, k, 1.0, A.data(), m, x.data(), 1, 1.0,
              want.data(), 1);
  BOOST_TEST(same_bits(y, want));
  const double alpha = 0x1.4p2;
  VectorXd u = y0;
  u.noalias() += alpha * A.transpose() * z;
  VectorXd wu = y0;
  exala::gemv(layout::col_major, transpose::trans, m, k, alpha, A.data(), m, z.data(), 1, 1.0,
              wu.data(), 1);
  BOOST_TEST(same_bits(u, wu));
  // One rounding of y + A^T x even for a 2 x 2 A (Eigen's gemv has no small
  // size path): y = 1, (A^T x)_i = 2^-53 + 2^-106 gives 1 + 2^-52, where
  // Eigen's own arithmetic (lazyProduct) rounds twice and gives 1.
  const MatrixXd a = MatrixXd::Ones(2, 2);
  VectorXd v(2);
  v << 0x1p-53, 0x1p-106;
  VectorXd w = VectorXd::Ones(2);
  w.noalias() += a.transpose() * v;
  BOOST_TEST(w[0] == 1.0 + 0x1p-52);
  BOOST_TEST(w[1] == 1.0 + 0x1p-52);
  VectorXd own = VectorXd::Ones(2);
  own += a.transpose().lazyProduct(v);
  BOOST_TEST(own[0] == 1.0);
  // But a product whose left factor has ONE row at run time is Eigen's own
  // dot product (Eigen 3.4 falls back to it before calling gemv): not
  // through the BLAS, so rounded twice here. (Documented in the README.)
  const MatrixXd a1 = MatrixXd::Ones(2, 1);
  VectorXd w1 = VectorXd::Ones(1);
  w1.noalias() += a1.transpose() * v;
  BOOST_TEST(w1[0] == 1.0);
}

BOOST_AUTO_TEST_CASE(selfadjoint_and_triangular_products_are_correctly_rounded) {
  const MatrixXd S0 = random_wide(m, m, 9), B = random_wide(m, n, 10);
  // Lower triangle used; the full symmetric matrix for the exact gemm.
  const MatrixXd full = MatrixXd(S0.triangularView<Eigen::Lower>()) +
                        MatrixXd(S0.triangularView<Eigen::StrictlyLower>()).transpose();
  const MatrixXd P = S0.selfadjointView<Eigen::Lower>() * B;
  MatrixXd want = MatrixXd::Zero(m, n);
  exala_gemm(transpose::none, 1.0, full, B, 1.0, want);
  BOOST_TEST(same_bits(P, want));
  const MatrixXd up = S0.triangularView<Eigen::Upper>();
  const MatrixXd Q = S0.triangularView<Eigen::Upper>() * B;
  want.setZero();
  exala_gemm(transpose::none, 1.0, up, B, 1.0, want);
  BOOST_TEST(same_bits(Q, want));
}

BOOST_AUTO_TEST_CASE(triangular_solve_with_matrix_rhs_is_trsm) {
  MatrixXd T = random_wide(m, m, 11);
  for (Index i = 0; i < m; ++i) T(i, i) = 1.0 + std::abs(T(i, i)) * 0x1p-20 + 1.0;
  const MatrixXd B = random_wide(m, n, 12);
  const MatrixXd X = T.triangularView<Eigen::Lower>().solve(B);
  MatrixXd want = B;
  exala::trsm(layout::col_major, exala::side::left, exala::uplo::lower, transpose::none,
              exala::diag::non_unit, m, n, 1.0, T.data(), m, want.data(), m);
  BOOST_TEST(same_bits(X, want));
}

// The edges documented in the README: these stay Eigen's own arithmetic.
BOOST_AUTO_TEST_CASE(small_products_and_dots_are_not_blas) {
  const MatrixXd A = random_wide(6, 6, 13), B = random_wide(6, 6, 14);  // 6 + 6 + 6 < 20
  const MatrixXd C = A * B;
  BOOST_TEST(same_bits(C, MatrixXd(A.lazyProduct(B))));  // Eigen's coefficient-based product
  MatrixXd exact = MatrixXd::Zero(6, 6);
  exala_gemm(transpose::none, 1.0, A, B, 1.0, exact);
  BOOST_TEST(differing(C, exact) > 0);  // ... which is not ExaLA's
}
