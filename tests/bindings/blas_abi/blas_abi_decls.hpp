// blas_abi_decls.hpp - the symbols of libexala_blas.so as a calling program
// declares them (Fortran BLAS with gfortran conventions, CBLAS with int
// enums), written from the reference signatures, not from the library.
#pragma once

#include <cstddef>

extern "C" {

// Fortran BLAS
double ddot_(const int* n, const double* x, const int* incx, const double* y, const int* incy);
double dasum_(const int* n, const double* x, const int* incx);
double dnrm2_(const int* n, const double* x, const int* incx);
void daxpy_(const int* n, const double* alpha, const double* x, const int* incx, double* y,
            const int* incy);
void dscal_(const int* n, const double* alpha, double* x, const int* incx);
void dcopy_(const int* n, const double* x, const int* incx, double* y, const int* incy);
void dswap_(const int* n, double* x, const int* incx, double* y, const int* incy);
int idamax_(const int* n, const double* x, const int* incx);
void drot_(const int* n, double* x, const int* incx, double* y, const int* incy, const double* c,
           const double* s);
void drotm_(const int* n, double* x, const int* incx, double* y, const int* incy,
            const double* param);
void drotg_(double* a, double* b, double* c, double* s);
void dsyr_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx,
           double* a, const int* lda, std::size_t);
void dsyr2_(const char* uplo, const int* n, const double* alpha, const double* x, const int* incx,
            const double* y, const int* incy, double* a, const int* lda, std::size_t);
void dsyr2k_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
             const double* a, const int* lda, const double* b, const int* ldb, const double* beta,
             double* c, const int* ldc, std::size_t, std::size_t);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, std::size_t);
void dger_(const int* m, const int* n, const double* alpha, const double* x, const int* incx,
           const double* y, const int* incy, double* a, const int* lda);
void dsymv_(const char* uplo, const int* n, const double* alpha, const double* a, const int* lda,
            const double* x, const int* incx, const double* beta, double* y, const int* incy,
            std::size_t);
void dtrmv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a,
            const int* lda, double* x, const int* incx, std::size_t, std::size_t, std::size_t);
void dtrsv_(const char* uplo, const char* trans, const char* diag, const int* n, const double* a,
            const int* lda, double* x, const int* incx, std::size_t, std::size_t, std::size_t);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, std::size_t, std::size_t);
void dsymm_(const char* side, const char* uplo, const int* m, const int* n, const double* alpha,
            const double* a, const int* lda, const double* b, const int* ldb, const double* beta,
            double* c, const int* ldc, std::size_t, std::size_t);
void dsyrk_(const char* uplo, const char* trans, const int* n, const int* k, const double* alpha,
            const double* a, const int* lda, const double* beta, double* c, const int* ldc,
            std::size_t, std::size_t);
void dtrmm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, std::size_t, std::size_t, std::size_t, std::size_t);
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, std::size_t, std::size_t, std::size_t, std::size_t);

// CBLAS (enums as int)
enum {
  CblasRowMajor = 101, CblasColMajor = 102,
  CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113,
  CblasUpper = 121, CblasLower = 122,
  CblasNonUnit = 131, CblasUnit = 132,
  CblasLeft = 141, CblasRight = 142
};
double cblas_ddot(int n, const double* x, int incx, const double* y, int incy);
double cblas_dasum(int n, const double* x, int incx);
double cblas_dnrm2(int n, const double* x, int incx);
void cblas_daxpy(int n, double alpha, const double* x, int incx, double* y, int incy);
void cblas_dscal(int n, double alpha, double* x, int incx);
void cblas_dcopy(int n, const double* x, int incx, double* y, int incy);
void cblas_dswap(int n, double* x, int incx, double* y, int incy);
std::size_t cblas_idamax(int n, const double* x, int incx);
void cblas_drot(int n, double* x, int incx, double* y, int incy, double c, double s);
void cblas_drotm(int n, double* x, int incx, double* y, int incy, const double* p);
void cblas_drotg(double* a, double* b, double* c, double* s);
void cblas_dsyr(int layout, int uplo, int n, double alpha, const double* x, int incx, double* a,
                int lda);
void cblas_dsyr2(int layout, int uplo, int n, double alpha, const double* x, int incx,
                 const double* y, int incy, double* a, int lda);
void cblas_dsyr2k(int layout, int uplo, int trans, int n, int k, double alpha, const double* a,
                  int lda, const double* b, int ldb, double beta, double* c, int ldc);
void cblas_dgemv(int layout, int trans, int m, int n, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy);
void cblas_dger(int layout, int m, int n, double alpha, const double* x, int incx,
                const double* y, int incy, double* a, int lda);
void cblas_dsymv(int layout, int uplo, int n, double alpha, const double* a, int lda,
                 const double* x, int incx, double beta, double* y, int incy);
void cblas_dtrmv(int layout, int uplo, int trans, int diag, int n, const double* a, int lda,
                 double* x, int incx);
void cblas_dtrsv(int layout, int uplo, int trans, int diag, int n, const double* a, int lda,
                 double* x, int incx);
void cblas_dgemm(int layout, int transa, int transb, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);
void cblas_dsymm(int layout, int side, int uplo, int m, int n, double alpha, const double* a,
                 int lda, const double* b, int ldb, double beta, double* c, int ldc);
void cblas_dsyrk(int layout, int uplo, int trans, int n, int k, double alpha, const double* a,
                 int lda, double beta, double* c, int ldc);
void cblas_dtrmm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                 const double* a, int lda, double* b, int ldb);
void cblas_dtrsm(int layout, int side, int uplo, int trans, int diag, int m, int n, double alpha,
                 const double* a, int lda, double* b, int ldb);
}
