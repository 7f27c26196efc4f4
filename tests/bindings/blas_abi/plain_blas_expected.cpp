// plain_blas_expected.cpp - the bits plain_blas_program.c must print when its
// BLAS is libexala_blas.so: the same computations, on the same inputs
// (plain_blas_inputs.h, the same generator calls in the same order), through
// the exala C++ API directly (whose results are correctly rounded and
// checked against MPFR in the layer suites). Same output format.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/blas3.hpp"

#include "plain_blas_inputs.h"

namespace {

using exala::layout;
using exala::transpose;

void put(const char* label, int i, double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  std::printf("%s %d %016llx\n", label, i, static_cast<unsigned long long>(b));
}
void put_array(const char* label, const double* v, int n) {
  for (int i = 0; i < n; ++i) put(label, i, v[i]);
}

double x[PLAIN_N1], y[PLAIN_N1], w[PLAIN_N1], v[PLAIN_N1];
double ga[(PLAIN_GM + 3) * PLAIN_GN], gx[2 * PLAIN_GM], gy[2 * PLAIN_GM];
double ma[PLAIN_MM * PLAIN_MK], mb[(PLAIN_MN + 1) * PLAIN_MK], mc[PLAIN_MM * PLAIN_MN];
double ta[PLAIN_TN * PLAIN_TN], tb[PLAIN_TN];
double sa[PLAIN_SM * PLAIN_SM], sb[PLAIN_SM * PLAIN_SN];

}  // namespace

int main() {
  plain_rng r = {20261122u};
  const int n = PLAIN_N1;
  plain_cancelling_pair(&r, x, y, PLAIN_N1);
  plain_fill(&r, w, PLAIN_N1, -40, 40);

  put("ddot", 0, exala::dot(n, x, 1, y, 1));
  put("ddot_strided", 0, exala::dot(300, x, 2, y, -3));
  put("dasum", 0, exala::asum(n, w, 1));
  put("dnrm2", 0, exala::nrm2(n, w, 1));
  std::printf("idamax %d\n", static_cast<int>(exala::iamax(n, w, 1)) + 1);
  {
    const double alpha = plain_wide(&r, -10, 10);
    std::memcpy(v, y, sizeof v);
    exala::axpy(200, alpha, w, 1, v, 1);
    put_array("daxpy", v, 200);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ga, (PLAIN_GM + 3) * PLAIN_GN, -20, 20);
    plain_fill(&r, gx, 2 * PLAIN_GM, -20, 20);
    plain_fill(&r, gy, 2 * PLAIN_GM, -20, 20);
    exala::gemv(layout::col_major, transpose::none, PLAIN_GM, PLAIN_GN, alpha, ga, PLAIN_GM + 3,
                gx, -1, beta, gy, 2);
    put_array("dgemv_n", gy, 2 * PLAIN_GM);
    exala::gemv(layout::col_major, transpose::trans, PLAIN_GM, PLAIN_GN, alpha, ga, PLAIN_GM + 3,
                gx, 2, beta, gy, -1);
    put_array("dgemv_t", gy, 2 * PLAIN_GM);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ma, PLAIN_MM * PLAIN_MK, -20, 20);
    plain_fill(&r, mb, (PLAIN_MN + 1) * PLAIN_MK, -20, 20);
    plain_fill(&r, mc, PLAIN_MM * PLAIN_MN, -20, 20);
    exala::gemm(layout::col_major, transpose::none, transpose::trans, PLAIN_MM, PLAIN_MN, PLAIN_MK,
                alpha, ma, PLAIN_MM, mb, PLAIN_MN + 1, beta, mc, PLAIN_MM);
    put_array("dgemm_nt", mc, PLAIN_MM * PLAIN_MN);
  }
  {
    plain_triangular(&r, ta, PLAIN_TN, PLAIN_TN);
    plain_fill(&r, tb, PLAIN_TN, -10, 10);
    exala::trsv(layout::col_major, exala::uplo::lower, transpose::none, exala::diag::non_unit,
                PLAIN_TN, ta, PLAIN_TN, tb, 1);
    put_array("dtrsv_lnn", tb, PLAIN_TN);
    exala::trsv(layout::col_major, exala::uplo::upper, transpose::trans, exala::diag::unit,
                PLAIN_TN, ta, PLAIN_TN, tb, -1);
    put_array("dtrsv_utu", tb, PLAIN_TN);
  }
  {
    const double alpha = plain_wide(&r, -3, 3);
    plain_triangular(&r, sa, PLAIN_SM, PLAIN_SM);
    plain_fill(&r, sb, PLAIN_SM * PLAIN_SN, -10, 10);
    exala::trsm(layout::col_major, exala::side::left, exala::uplo::upper, transpose::none,
                exala::diag::non_unit, PLAIN_SM, PLAIN_SN, 3.0, sa, PLAIN_SM, sb, PLAIN_SM);
    put_array("dtrsm_lunn", sb, PLAIN_SM * PLAIN_SN);
    exala::trsm(layout::col_major, exala::side::right, exala::uplo::lower, transpose::trans,
                exala::diag::unit, PLAIN_SM, PLAIN_SN, alpha, sa, PLAIN_SM, sb, PLAIN_SM);
    put_array("dtrsm_rltu", sb, PLAIN_SM * PLAIN_SN);
  }

  put("cblas_ddot", 0, exala::dot(PLAIN_N1, x, 1, y, 1));
  put("cblas_dasum", 0, exala::asum(PLAIN_N1, w, 1));
  put("cblas_dnrm2", 0, exala::nrm2(PLAIN_N1, y, 1));
  std::printf("cblas_idamax %d\n", static_cast<int>(exala::iamax(PLAIN_N1, y, 1)));
  {
    const double alpha = plain_wide(&r, -10, 10);
    std::memcpy(v, x, sizeof v);
    exala::axpy(100, alpha, w, -2, v, 3);
    put_array("cblas_daxpy", v, 300);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ga, (PLAIN_GM + 3) * PLAIN_GN, -20, 20);
    plain_fill(&r, gx, 2 * PLAIN_GM, -20, 20);
    plain_fill(&r, gy, 2 * PLAIN_GM, -20, 20);
    exala::gemv(layout::row_major, transpose::none, PLAIN_GM, PLAIN_GN, alpha, ga, PLAIN_GN + 2,
                gx, 1, beta, gy, 1);
    put_array("cblas_dgemv_rn", gy, PLAIN_GM);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ma, PLAIN_MM * PLAIN_MK, -20, 20);
    plain_fill(&r, mb, (PLAIN_MN + 1) * PLAIN_MK, -20, 20);
    plain_fill(&r, mc, PLAIN_MM * PLAIN_MN, -20, 20);
    exala::gemm(layout::row_major, transpose::trans, transpose::none, PLAIN_MM, PLAIN_MN, PLAIN_MK,
                alpha, ma, PLAIN_MM, mb, PLAIN_MN + 1, beta, mc, PLAIN_MN);
    put_array("cblas_dgemm_rtn", mc, PLAIN_MM * PLAIN_MN);
  }
  {
    plain_triangular(&r, ta, PLAIN_TN, PLAIN_TN);
    plain_fill(&r, tb, PLAIN_TN, -10, 10);
    exala::trsv(layout::row_major, exala::uplo::upper, transpose::none, exala::diag::non_unit,
                PLAIN_TN, ta, PLAIN_TN, tb, 1);
    put_array("cblas_dtrsv_runn", tb, PLAIN_TN);
  }
  {
    const double alpha = plain_wide(&r, -3, 3);
    plain_triangular(&r, sa, PLAIN_SN, PLAIN_SN);
    plain_fill(&r, sb, PLAIN_SM * PLAIN_SN, -10, 10);
    exala::trsm(layout::row_major, exala::side::right, exala::uplo::lower, transpose::trans,
                exala::diag::non_unit, PLAIN_SM, PLAIN_SN, alpha, sa, PLAIN_SN, sb, PLAIN_SN);
    put_array("cblas_dtrsm_rrltn", sb, PLAIN_SM * PLAIN_SN);
  }
  return 0;
}
