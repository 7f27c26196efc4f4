/* lapack_program.c - a program that knows nothing of ExaLA, linked with
 * -llapack (and the system BLAS), for run_exala_run.cmake: `exala run` and
 * `exala blas-check` must serve its BLAS calls through libexala_blas.so.
 *
 *   blas_abi_lapack_program [gesv|all]
 *
 * gesv: dgesv_ on a fixed 100 x 100 system (LAPACK's dgetrf calls dgemm_,
 * dtrsm_, dscal_, idamax_ ...); all (default): also one dgemm_ call of its
 * own. Prints every result as a hexadecimal float, one a line, so that two
 * runs can be compared bit for bit.
 */
#include <stdio.h>
#include <string.h>

void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b,
            const int* ldb, int* info);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, size_t, size_t);

enum { N = 100, K = 17 };

static unsigned long long state = 12345;
static double next_value(void) { /* in [-0.5, 0.5), 53 random bits */
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(state >> 11) * 0x1p-53 - 0.5;
}

int main(int argc, char** argv) {
  const int all = argc < 2 || strcmp(argv[1], "gesv") != 0;
  static double a[N * N], b[N], c[N * N];
  static int ipiv[N];
  const int n = N, one = 1, k = K;
  int info = 0;
  for (int i = 0; i < N * N; ++i) a[i] = next_value();
  for (int i = 0; i < N; ++i) b[i] = next_value();
  dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
  if (info != 0) {
    fprintf(stderr, "dgesv_: INFO = %d\n", info);
    return 1;
  }
  for (int i = 0; i < N; ++i) printf("x %d %a\n", i, b[i]);
  if (all) {
    const double alpha = 1.0, beta = 0.0;
    /* C (N x N) = L U factors (first K columns) times (first K rows): any data will do. */
    dgemm_("N", "N", &n, &n, &k, &alpha, a, &n, a, &n, &beta, c, &n, 1, 1);
    for (int i = 0; i < N * N; i += 7) printf("c %d %a\n", i, c[i]);
  }
  return 0;
}
