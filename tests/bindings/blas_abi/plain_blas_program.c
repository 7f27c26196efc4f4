/* plain_blas_program.c - a program that knows nothing of ExaLA: it calls the
 * Fortran BLAS (its own extern declarations, gfortran conventions) and CBLAS
 * (the system's cblas.h) on adversarial inputs and prints the bits of every
 * result, one "label index hex" line per double.
 *
 * It is built against the system BLAS only; the test driver
 * (run_plain_blas.cmake) runs it as is, under LD_PRELOAD=libexala_blas.so
 * with several EXALA_BACKEND / EXALA_NUM_THREADS settings, and linked with
 * -lexala_blas, and compares with plain_blas_expected.cpp (the same
 * computations through the exala C++ API).
 *
 * With the argument --bad-calls it makes two calls with an illegal argument
 * instead (dgemv_ with INCX = 0, cblas_dgemv row-major with M = -1) and
 * prints "returned" when both came back.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cblas.h>

#include "plain_blas_inputs.h"

extern double ddot_(const int* n, const double* x, const int* incx, const double* y,
                    const int* incy);
extern double dasum_(const int* n, const double* x, const int* incx);
extern double dnrm2_(const int* n, const double* x, const int* incx);
extern void daxpy_(const int* n, const double* alpha, const double* x, const int* incx, double* y,
                   const int* incy);
extern int idamax_(const int* n, const double* x, const int* incx);
extern void dgemv_(const char* trans, const int* m, const int* n, const double* alpha,
                   const double* a, const int* lda, const double* x, const int* incx,
                   const double* beta, double* y, const int* incy, size_t trans_len);
extern void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                   const int* k, const double* alpha, const double* a, const int* lda,
                   const double* b, const int* ldb, const double* beta, double* c, const int* ldc,
                   size_t transa_len, size_t transb_len);
extern void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n,
                   const double* a, const int* lda, double* x, const int* incx, size_t uplo_len,
                   size_t trans_len, size_t diag_len);
extern void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag,
                   const int* m, const int* n, const double* alpha, const double* a,
                   const int* lda, double* b, const int* ldb, size_t side_len, size_t uplo_len,
                   size_t transa_len, size_t diag_len);

static void put(const char* label, int i, double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  printf("%s %d %016llx\n", label, i, (unsigned long long)b);
}
static void put_array(const char* label, const double* v, int n) {
  for (int i = 0; i < n; ++i) put(label, i, v[i]);
}

static int bad_calls(void) {
  int m = 3, n = 2, lda = 3, zero = 0, one = 1;
  double alpha = 1.0, beta = 0.0, a[6] = {0}, x[3] = {0}, y[3] = {0};
  dgemv_("N", &m, &n, &alpha, a, &lda, x, &zero, &beta, y, &one, 1); /* INCX = 0: INFO 8 */
  cblas_dgemv(CblasRowMajor, CblasNoTrans, -1, 2, 1.0, a, 2, x, 1, 0.0, y, 1); /* M: 3 */
  printf("returned\n");
  return 0;
}

static double x[PLAIN_N1], y[PLAIN_N1], w[PLAIN_N1], v[PLAIN_N1];
static double ga[(PLAIN_GM + 3) * PLAIN_GN], gx[2 * PLAIN_GM], gy[2 * PLAIN_GM];
static double ma[PLAIN_MM * PLAIN_MK], mb[(PLAIN_MN + 1) * PLAIN_MK], mc[PLAIN_MM * PLAIN_MN];
static double ta[PLAIN_TN * PLAIN_TN], tb[PLAIN_TN];
static double sa[PLAIN_SM * PLAIN_SM], sb[PLAIN_SM * PLAIN_SN];

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "--bad-calls") == 0) return bad_calls();

  plain_rng r = {20261122u};
  int n = PLAIN_N1, one = 1, two = 2, minus_one = -1, minus_three = -3, n3 = 300, n200 = 200;
  plain_cancelling_pair(&r, x, y, PLAIN_N1);
  plain_fill(&r, w, PLAIN_N1, -40, 40);

  /* ---- Fortran level 1 */
  put("ddot", 0, ddot_(&n, x, &one, y, &one));
  put("ddot_strided", 0, ddot_(&n3, x, &two, y, &minus_three));
  put("dasum", 0, dasum_(&n, w, &one));
  put("dnrm2", 0, dnrm2_(&n, w, &one));
  printf("idamax %d\n", idamax_(&n, w, &one));
  {
    const double alpha = plain_wide(&r, -10, 10);
    memcpy(v, y, sizeof v);
    daxpy_(&n200, &alpha, w, &one, v, &one);
    put_array("daxpy", v, 200);
  }

  /* ---- dgemv, both transposes, negative and non-unit increments */
  {
    int m = PLAIN_GM, nn = PLAIN_GN, lda = PLAIN_GM + 3;
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ga, (PLAIN_GM + 3) * PLAIN_GN, -20, 20);
    plain_fill(&r, gx, 2 * PLAIN_GM, -20, 20);
    plain_fill(&r, gy, 2 * PLAIN_GM, -20, 20);
    dgemv_("N", &m, &nn, &alpha, ga, &lda, gx, &minus_one, &beta, gy, &two, 1);
    put_array("dgemv_n", gy, 2 * PLAIN_GM);
    dgemv_("T", &m, &nn, &alpha, ga, &lda, gx, &two, &beta, gy, &minus_one, 1);
    put_array("dgemv_t", gy, 2 * PLAIN_GM);
  }

  /* ---- dgemm N,T */
  {
    int m = PLAIN_MM, nn = PLAIN_MN, k = PLAIN_MK, lda = PLAIN_MM, ldb = PLAIN_MN + 1,
        ldc = PLAIN_MM;
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ma, PLAIN_MM * PLAIN_MK, -20, 20);
    plain_fill(&r, mb, (PLAIN_MN + 1) * PLAIN_MK, -20, 20);
    plain_fill(&r, mc, PLAIN_MM * PLAIN_MN, -20, 20);
    dgemm_("N", "T", &m, &nn, &k, &alpha, ma, &lda, mb, &ldb, &beta, mc, &ldc, 1, 1);
    put_array("dgemm_nt", mc, PLAIN_MM * PLAIN_MN);
  }

  /* ---- dtrsv */
  {
    int nn = PLAIN_TN;
    plain_triangular(&r, ta, PLAIN_TN, PLAIN_TN);
    plain_fill(&r, tb, PLAIN_TN, -10, 10);
    dtrsv_("L", "N", "N", &nn, ta, &nn, tb, &one, 1, 1, 1);
    put_array("dtrsv_lnn", tb, PLAIN_TN);
    dtrsv_("U", "T", "U", &nn, ta, &nn, tb, &minus_one, 1, 1, 1);
    put_array("dtrsv_utu", tb, PLAIN_TN);
  }

  /* ---- dtrsm */
  {
    int m = PLAIN_SM, nn = PLAIN_SN, ldb = PLAIN_SM;
    const double three = 3.0, alpha = plain_wide(&r, -3, 3);
    plain_triangular(&r, sa, PLAIN_SM, PLAIN_SM);
    plain_fill(&r, sb, PLAIN_SM * PLAIN_SN, -10, 10);
    dtrsm_("L", "U", "N", "N", &m, &nn, &three, sa, &m, sb, &ldb, 1, 1, 1, 1);
    put_array("dtrsm_lunn", sb, PLAIN_SM * PLAIN_SN);
    dtrsm_("R", "L", "T", "U", &m, &nn, &alpha, sa, &m, sb, &ldb, 1, 1, 1, 1);
    put_array("dtrsm_rltu", sb, PLAIN_SM * PLAIN_SN);
  }

  /* ---- CBLAS, row-major where it matters */
  put("cblas_ddot", 0, cblas_ddot(PLAIN_N1, x, 1, y, 1));
  put("cblas_dasum", 0, cblas_dasum(PLAIN_N1, w, 1));
  put("cblas_dnrm2", 0, cblas_dnrm2(PLAIN_N1, y, 1));
  printf("cblas_idamax %d\n", (int)cblas_idamax(PLAIN_N1, y, 1));
  {
    const double alpha = plain_wide(&r, -10, 10);
    memcpy(v, x, sizeof v);
    cblas_daxpy(100, alpha, w, -2, v, 3);
    put_array("cblas_daxpy", v, 300);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ga, (PLAIN_GM + 3) * PLAIN_GN, -20, 20);
    plain_fill(&r, gx, 2 * PLAIN_GM, -20, 20);
    plain_fill(&r, gy, 2 * PLAIN_GM, -20, 20);
    /* row-major A: GM rows of GN, lda = GN + 2 */
    cblas_dgemv(CblasRowMajor, CblasNoTrans, PLAIN_GM, PLAIN_GN, alpha, ga, PLAIN_GN + 2, gx, 1,
                beta, gy, 1);
    put_array("cblas_dgemv_rn", gy, PLAIN_GM);
  }
  {
    const double alpha = plain_wide(&r, -5, 5), beta = plain_wide(&r, -5, 5);
    plain_fill(&r, ma, PLAIN_MM * PLAIN_MK, -20, 20);
    plain_fill(&r, mb, (PLAIN_MN + 1) * PLAIN_MK, -20, 20);
    plain_fill(&r, mc, PLAIN_MM * PLAIN_MN, -20, 20);
    /* row-major: A is K x M (lda = M), B is K x N (ldb = N + 1), C is M x N (ldc = N) */
    cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, PLAIN_MM, PLAIN_MN, PLAIN_MK, alpha, ma,
                PLAIN_MM, mb, PLAIN_MN + 1, beta, mc, PLAIN_MN);
    put_array("cblas_dgemm_rtn", mc, PLAIN_MM * PLAIN_MN);
  }
  {
    plain_triangular(&r, ta, PLAIN_TN, PLAIN_TN);
    plain_fill(&r, tb, PLAIN_TN, -10, 10);
    cblas_dtrsv(CblasRowMajor, CblasUpper, CblasNoTrans, CblasNonUnit, PLAIN_TN, ta, PLAIN_TN, tb,
                1);
    put_array("cblas_dtrsv_runn", tb, PLAIN_TN);
  }
  {
    const double alpha = plain_wide(&r, -3, 3);
    plain_triangular(&r, sa, PLAIN_SN, PLAIN_SN);
    plain_fill(&r, sb, PLAIN_SM * PLAIN_SN, -10, 10);
    /* row-major B: SM rows of SN; A: SN x SN */
    cblas_dtrsm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, PLAIN_SM,
                PLAIN_SN, alpha, sa, PLAIN_SN, sb, PLAIN_SN);
    put_array("cblas_dtrsm_rrltn", sb, PLAIN_SM * PLAIN_SN);
  }
  return 0;
}
