/* xerbla_module.c - a plugin with its own XERBLA, as numpy's extension
 * modules have: loaded with dlopen(RTLD_LOCAL) by xerbla_module_host.c, so
 * neither its xerbla_ / cblas_xerbla nor the system BLAS it links (-lblas)
 * are in the global scope. Under LD_PRELOAD=libexala_blas.so (issue 15,
 * row 13) its handlers must still receive the reports of
 *   - a routine of libexala_blas.so called by the module (dgemm_,
 *     cblas_dgemv): the drop-in library looks for the handler of the
 *     calling object when the global scope has none;
 *   - a routine of the system BLAS that the drop-in library does not have
 *     (dsyr2_): the system BLAS finds the module's xerbla_ itself, as long
 *     as no xerbla_ in the global scope (the preloaded library's) hides it.
 */
#include <stddef.h>
#include <stdio.h>

enum { ColMajor = 102, NoTrans = 111 };

void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, size_t transa_len, size_t transb_len);
void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx,
            const double* y, const int* incy, double* a, const int* lda, size_t uplo_len);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy);

void xerbla_(const char* srname, const int* info, size_t len) {
  printf("module xerbla_ %.*s %d\n", (int)(len < 6 ? len : 6), srname, *info);
}

void cblas_xerbla(int p, const char* rout, const char* form, ...) {
  (void)form;
  printf("module cblas_xerbla %d %s\n", p, rout);
}

/* Makes the three illegal calls; the handlers print one line each. */
void xerbla_module_run(void) {
  int bad = -1, two = 2, one = 1;
  double alpha = 1.0, beta = 0.0, a[4] = {0}, x[2] = {0}, y[2] = {0};
  dgemm_("N", "N", &bad, &two, &two, &alpha, a, &two, a, &two, &beta, a, &two, 1, 1); /* M: 3 */
  dsyr2_("U", &bad, &alpha, x, &one, y, &one, a, &two, 1);                             /* N: 2 */
  cblas_dgemv(ColMajor, NoTrans, -1, 2, 1.0, a, 1, x, 1, 0.0, y, 1);                  /* M: 3 */
  fflush(stdout);
}
