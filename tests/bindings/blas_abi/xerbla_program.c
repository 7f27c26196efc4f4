/* xerbla_program.c - illegal BLAS/CBLAS calls from a program that knows
 * nothing of ExaLA (its own declarations, int enums), for run_xerbla.cmake.
 *
 * Built three ways:
 *   blas_abi_xerbla_lblas      linked with -lblas (the system BLAS chosen by
 *                              update-alternatives), no handler of its own:
 *                              under LD_PRELOAD=libexala_blas.so every call
 *                              must print the reference message and return
 *                              (issue 15, row 7: with OpenBLAS's libblas.so.3
 *                              wrapper, libopenblas's exiting cblas_xerbla
 *                              used to run and the program died with 255).
 *   blas_abi_xerbla_own        -DPROGRAM_HANDLERS, linked with -lblas: the
 *                              program's own xerbla_ and cblas_xerbla run
 *                              (they print what they receive on stdout),
 *                              also for a routine only the system BLAS has.
 *   blas_abi_xerbla_own_only   -DPROGRAM_HANDLERS -DEXALA_ONLY, linked with
 *                              libexala_blas.so alone: the handlers are still
 *                              found (the executable must export them).
 *   blas_abi_xerbla_llapack    -DFORTRAN_ONLY, linked with -llapack -lblas:
 *                              the first xerbla_ in the global scope is the
 *                              LAPACK library's (the reference one STOPs the
 *                              program), which must be skipped like a BLAS
 *                              library's: print and return.
 * Every variant prints "returned" when all calls came back.
 */
#include <stddef.h>
#include <stdio.h>

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Upper = 121, NonUnit = 131, Left = 141 };

void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, size_t trans_len);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
void cblas_dtrsm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                 const double* a, int lda, double* b, int ldb);

#ifdef PROGRAM_HANDLERS
#include <dlfcn.h>

/* Netlib's CBLAS keeps the layout of the current call in the global int
 * RowMajorStrg (where a Netlib CBLAS is loaded); its handlers read it. */
static const char* row_major_flag(void) {
  const int* p = (const int*)dlsym(RTLD_DEFAULT, "RowMajorStrg");
  return p == NULL ? "-" : (*p ? "1" : "0");
}

void xerbla_(const char* srname, const int* info, size_t len) {
  printf("xerbla_ %.*s %d\n", (int)(len < 6 ? len : 6), srname, *info);
}

void cblas_xerbla(int p, const char* rout, const char* form, ...) {
  (void)form;
  printf("cblas_xerbla %d %s RowMajorStrg=%s\n", p, rout, row_major_flag());
}
#endif

#if defined(PROGRAM_HANDLERS) && !defined(EXALA_ONLY)
/* A routine that libexala_blas.so does not provide: the system BLAS reports
 * through the program's xerbla_ as it would without the preload. */
void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx,
            const double* y, const int* incy, double* a, const int* lda, size_t uplo_len);
#endif

int main(void) {
  int m = 3, n = 2, lda = 3, zero = 0, one = 1;
  double alpha = 1.0, beta = 0.0, a[16] = {0}, x[4] = {0}, y[4] = {0}, c[16] = {0};
  dgemv_("N", &m, &n, &alpha, a, &lda, x, &zero, &beta, y, &one, 1); /* INCX = 0: INFO 8 */
#ifndef FORTRAN_ONLY
  /* Column-major M = -1: position 3. */
  cblas_dgemv(ColMajor, NoTrans, -1, 2, 1.0, a, 1, x, 1, 0.0, y, 1);
  /* Row-major M = -1: the Fortran DGEMV gets (TRANS 'T', N, M): its N,
   * parameter 3, is bad: Netlib hands 3 + 1 = 4 to cblas_xerbla with
   * RowMajorStrg = 1, which maps it back to 3, M's position. */
  cblas_dgemv(RowMajor, NoTrans, -1, 2, 1.0, a, 2, x, 1, 0.0, y, 1);
  /* Row-major lda = 1 < K = 2: Fortran DGEMM(B, A) sees its LDB (10) bad:
   * Netlib number 11, position 9. */
  cblas_dgemm(RowMajor, NoTrans, NoTrans, 2, 2, 2, 1.0, a, 1, a, 2, 0.0, c, 2);
  /* Row-major M = -1: Fortran DTRSM gets (N, M): its N (6) is bad: Netlib
   * number 7, position 6. */
  cblas_dtrsm(RowMajor, Left, Upper, NoTrans, NonUnit, -1, 2, 1.0, a, 2, c, 2);
#endif
#if defined(PROGRAM_HANDLERS) && !defined(EXALA_ONLY)
  {
    int bad_n = -1;
    dsyr2_("U", &bad_n, &alpha, x, &one, y, &one, a, &lda, 1); /* N: INFO 2 */
  }
#endif
  printf("returned\n");
  return 0;
}
