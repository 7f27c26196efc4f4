/* plain_blas_inputs.h - the inputs of plain_blas_program.c, shared with
 * plain_blas_expected.cpp so that both see the same bits.
 *
 * Every value is built exactly (an integer times a power of two through
 * ldexp, which is exact in range), so the inputs do not depend on the
 * compiler, its flags or the language. The data are adversarial for a
 * floating-point BLAS: exponents spread over 2^-40..2^40 and sums that
 * cancel (pairs x_i y_i and -x_i y_i around small terms), so a BLAS that
 * rounds its partial sums gives bits other than the correctly rounded ones.
 */
#ifndef EXALA_TEST_PLAIN_BLAS_INPUTS_H
#define EXALA_TEST_PLAIN_BLAS_INPUTS_H

#include <math.h>
#include <stdint.h>

typedef struct {
  uint64_t state;
} plain_rng;

static uint32_t plain_next(plain_rng* r) {
  /* 64-bit LCG (Knuth's MMIX constants), top 32 bits. */
  r->state = r->state * 6364136223846793005ULL + 1442695040888963407ULL;
  return (uint32_t)(r->state >> 32);
}

/* +-(odd integer below 2^30) * 2^e with e uniform in [emin, emax]. */
static double plain_wide(plain_rng* r, int emin, int emax) {
  const uint32_t m = (plain_next(r) >> 2) | 1u;
  const int e = emin + (int)(plain_next(r) % (uint32_t)(emax - emin + 1));
  const double v = ldexp((double)m, e - 30);
  return (plain_next(r) & 1u) ? -v : v;
}

static void plain_fill(plain_rng* r, double* v, int n, int emin, int emax) {
  for (int i = 0; i < n; ++i) v[i] = plain_wide(r, emin, emax);
}

/* x, y of length n (even) whose dot product cancels: the second half
 * repeats the first with y negated and x moved by 2 units in its last place
 * (m -> m + 2, exact), so the exact dot product is a sum of terms about
 * 2^-29 times the big ones, which a rounded summation loses. */
static void plain_cancelling_pair(plain_rng* r, double* x, double* y, int n) {
  const int h = n / 2;
  for (int i = 0; i < h; ++i) {
    const uint32_t m = (plain_next(r) >> 3) | 1u; /* < 2^29: m + 2 stays exact */
    const int e = (int)(plain_next(r) % 41u);
    const double s = (plain_next(r) & 1u) ? -1.0 : 1.0;
    x[i] = s * ldexp((double)m, e - 30);
    x[h + i] = s * ldexp((double)(m + 2u), e - 30);
    y[i] = plain_wide(r, 0, 40);
    y[h + i] = -y[i];
  }
}

/* A column-major n x n triangular-friendly matrix: off-diagonal entries in
 * (-1, 1), diagonal entries +-(n + something): well conditioned, and the
 * solution entries are not representable quotients. */
static void plain_triangular(plain_rng* r, double* a, int n, int lda) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double v = plain_wide(r, -20, 0);
      if (i == j) v = (v < 0 ? -1.0 : 1.0) * ((double)n + 3.0 + fabs(v));
      a[i + j * lda] = v;
    }
}

/* Sizes used by both programs. */
enum {
  PLAIN_N1 = 1000, /* level-1 vectors */
  PLAIN_GM = 50,   /* gemv m */
  PLAIN_GN = 40,   /* gemv n */
  PLAIN_MM = 24,   /* gemm m */
  PLAIN_MN = 20,   /* gemm n */
  PLAIN_MK = 100,  /* gemm k */
  PLAIN_TN = 40,   /* trsv n */
  PLAIN_SM = 30,   /* trsm m */
  PLAIN_SN = 6     /* trsm n */
};

#endif /* EXALA_TEST_PLAIN_BLAS_INPUTS_H */
