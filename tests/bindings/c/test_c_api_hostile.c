/* test_c_api_hostile.c - hostile sizes, increments and leading dimensions
 * through the C API (issue 15, rows 10 and 11): every routine that takes an
 * increment, a leading dimension or a size whose address arithmetic would
 * overflow (an element offset above 2^60 - 1) must return
 * EXALA_ERROR_INVALID_ARGUMENT with a message naming that argument, before it
 * touches memory; a serialized accumulator whose digits break the
 * carry-save invariant must give EXALA_ERROR_FORMAT.
 *
 * The arrays passed are real and small: a routine that computed an address
 * from the hostile argument would read or write far outside them, which
 * ASan/UBSan (the sanitizer build) or a segmentation fault reports. Cases
 * that must be accepted (one element with any increment: the increment is
 * never used) check their exact result.
 *
 * Usage: test_c_api_hostile [group]  (blas1, blas2, blas3, solvers, stripe,
 * accum, enums; default all). Every case runs; the exit status is 1 if any failed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exala.h"

static int checks = 0, failures = 0;

static void failed(int line, const char* call, const char* why) {
  ++failures;
  fprintf(stderr, "%s:%d: %s\n  %s\n  last message: \"%s\"\n", __FILE__, line, call, why,
          exala_last_error());
}

/* `call` must fail with `expected` and a message naming 'arg'. */
static void expect_refused(int line, const char* call, exala_status got, exala_status expected,
                           const char* arg) {
  char quoted[64];
  ++checks;
  if (got != expected) {
    char why[160];
    snprintf(why, sizeof why, "returned %s, expected %s", exala_status_string(got),
             exala_status_string(expected));
    failed(line, call, why);
    return;
  }
  if (arg == NULL) return;
  snprintf(quoted, sizeof quoted, "'%s'", arg);
  if (strstr(exala_last_error(), quoted) == NULL) failed(line, call, "the message does not name the argument");
}

#define REFUSED(call, arg) expect_refused(__LINE__, #call, (call), EXALA_ERROR_INVALID_ARGUMENT, arg)
#define FORMAT(call) expect_refused(__LINE__, #call, (call), EXALA_ERROR_FORMAT, NULL)
#define OK(call) expect_refused(__LINE__, #call, (call), EXALA_SUCCESS, NULL)
#define CHECK(cond)                                                \
  do {                                                             \
    ++checks;                                                      \
    if (!(cond)) failed(__LINE__, #cond, "condition is false");    \
  } while (0)

static const int64_t i64_min = INT64_MIN;
static const int64_t p62 = INT64_C(1) << 62;   /* 2^62: 8 * 2^62 bytes wrap */
static const int64_t p60 = INT64_C(1) << 60;   /* (n-1) * 2^60 + 1 > 2^60 - 1 */
static const int64_t p32 = INT64_C(1) << 32;   /* 2^32 x 2^32 = 2^64 entries */

/* The hostile increments for a vector of 2 elements; every one makes the
 * offset of element 1 exceed 2^60 - 1 (or not be representable at all). */
static const int64_t bad_inc[] = {INT64_MIN, INT64_MIN + 1, -(INT64_C(1) << 62), INT64_C(1) << 62,
                                  INT64_C(1) << 60, INT64_MAX};
#define NBAD ((int)(sizeof bad_inc / sizeof bad_inc[0]))

/* ------------------------------------------------------------------ blas1 */

static void test_blas1(void) {
  double x[4] = {1.0, 2.0, 3.0, 4.0}, y[4] = {5.0, 6.0, 7.0, 8.0}, r = -1.0;
  int64_t idx = -7;
  exala_superacc* acc = NULL;
  int k;
  OK(exala_superacc_create(&acc));
  for (k = 0; k < NBAD; ++k) {
    const int64_t inc = bad_inc[k];
    REFUSED(exala_sum(2, x, inc, NULL, &r), "incx");
    REFUSED(exala_asum(2, x, inc, NULL, &r), "incx");
    REFUSED(exala_nrm2(2, x, inc, NULL, &r), "incx");
    REFUSED(exala_dot(2, x, inc, y, 1, NULL, &r), "incx");
    REFUSED(exala_dot(2, x, 1, y, inc, NULL, &r), "incy");
    REFUSED(exala_sum_into(acc, 2, x, inc, NULL), "incx");
    REFUSED(exala_asum_into(acc, 2, x, inc, NULL), "incx");
    REFUSED(exala_dot_into(acc, 2, x, inc, y, 1, NULL), "incx");
    REFUSED(exala_dot_into(acc, 2, x, 1, y, inc, NULL), "incy");
    REFUSED(exala_axpy(2, 2.0, x, inc, y, 1, NULL), "incx");
    REFUSED(exala_axpy(2, 2.0, x, 1, y, inc, NULL), "incy");
    /* the quick return (alpha == 0) must not skip the check */
    REFUSED(exala_axpy(2, 0.0, x, 1, y, inc, NULL), "incy");
    REFUSED(exala_scal(2, 2.0, x, inc, NULL), "incx");
    REFUSED(exala_copy(2, x, inc, y, 1, NULL), "incx");
    REFUSED(exala_copy(2, x, 1, y, inc, NULL), "incy");
    REFUSED(exala_swap(2, x, inc, y, 1, NULL), "incx");
    REFUSED(exala_swap(2, x, 1, y, inc, NULL), "incy");
    REFUSED(exala_iamax(2, x, inc, NULL, &idx), "incx");
  }
  /* nothing was written or accumulated */
  CHECK(x[0] == 1.0 && x[1] == 2.0 && y[0] == 5.0 && y[1] == 6.0 && r == -1.0 && idx == -7);
  OK(exala_superacc_round(acc, EXALA_ROUND_NEAREST_EVEN, &r));
  CHECK(r == 0.0);

  /* A count beyond 2^60 - 1 elements is refused even with increment 0 (it
   * would take 2^63 steps: a hang, not an answer). */
  REFUSED(exala_sum(INT64_MAX, x, 0, NULL, &r), "n");
  REFUSED(exala_dot(INT64_MAX, x, 0, y, 0, NULL, &r), "n");
  REFUSED(exala_axpy(INT64_MAX, 1.0, x, 0, y, 1, NULL), "n");
  REFUSED(exala_iamax(INT64_MAX, x, 0, NULL, &idx), "n");
  REFUSED(exala_sum(p60, x, 0, NULL, &r), "n");

  /* One element: the increment is never used, any value is fine (and no
   * address is formed from it). */
  OK(exala_sum(1, x, i64_min, NULL, &r));
  CHECK(r == 1.0);
  OK(exala_asum(1, x, i64_min, NULL, &r));
  CHECK(r == 1.0);
  OK(exala_nrm2(1, x + 1, i64_min, NULL, &r));
  CHECK(r == 2.0);
  OK(exala_dot(1, x, i64_min, y, i64_min, NULL, &r));
  CHECK(r == 5.0);
  OK(exala_iamax(1, x, i64_min, NULL, &idx));
  CHECK(idx == 0);
  OK(exala_axpy(1, 2.0, x, i64_min, y, i64_min, NULL));
  CHECK(y[0] == 7.0);
  OK(exala_scal(1, 3.0, x, i64_min, NULL));
  CHECK(x[0] == 3.0);
  OK(exala_copy(1, x, i64_min, y, i64_min, NULL));
  CHECK(y[0] == 3.0);
  OK(exala_swap(1, x + 1, i64_min, y + 1, INT64_MAX, NULL));
  CHECK(x[1] == 6.0 && y[1] == 2.0);
  OK(exala_sum(1, x + 2, INT64_MAX, NULL, &r));
  CHECK(r == 3.0);
  exala_superacc_destroy(acc);
}

/* ------------------------------------------------------------------ blas2 */

static void test_blas2(void) {
  double a[4] = {2.0, 1.0, 0.0, 4.0}, x[2] = {1.0, 1.0}, y[2] = {9.0, 9.0};
  int k;
  const exala_layout lays[2] = {EXALA_COL_MAJOR, EXALA_ROW_MAJOR};
  for (k = 0; k < 2; ++k) {
    const exala_layout lay = lays[k];
    /* lda = 2^62: (n-1) * lda overflows the byte offset */
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, 2, 2, 1.0, a, p62, x, 1, 0.0, y, 1, NULL), "lda");
    REFUSED(exala_gemv(lay, EXALA_TRANS, 2, 2, 1.0, a, INT64_MAX, x, 1, 0.0, y, 1, NULL), "lda");
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, 2, 2, 1.0, a, 2, x, i64_min, 0.0, y, 1, NULL), "incx");
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, 2, 2, 1.0, a, 2, x, 1, 0.0, y, p62, NULL), "incy");
    /* the alpha == 0 path (y = beta y only) still checks y */
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, 2, 2, 0.0, a, 2, x, 1, 2.0, y, i64_min, NULL), "incy");
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, 2, 2, 0.0, a, 2, x, 1, 2.0, y, p62, NULL), "incy");
    /* a 2^32 x 2^32 matrix has 2^64 entries: the count m * n wraps to 0 */
    REFUSED(exala_gemv(lay, EXALA_NO_TRANS, p32, p32, 1.0, a, p32, x, 1, 0.0, y, 1, NULL), "a");

    REFUSED(exala_trsv(lay, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a, p62, x, 1, NULL),
            "lda");
    REFUSED(exala_trsv(lay, EXALA_UPPER, EXALA_TRANS, EXALA_UNIT, 2, a, 2, x, i64_min, NULL),
            "incx");
    REFUSED(exala_trsv(lay, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a, 2, x, p62, NULL),
            "incx");
    REFUSED(exala_trsv(lay, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, p32, a, p32, x, 1, NULL),
            "a");
  }
  CHECK(x[0] == 1.0 && x[1] == 1.0 && y[0] == 9.0 && y[1] == 9.0);
  /* one element: any increment */
  OK(exala_gemv(EXALA_COL_MAJOR, EXALA_NO_TRANS, 1, 1, 1.0, a, 1, x, i64_min, 0.0, y, i64_min, NULL));
  CHECK(y[0] == 2.0);
  OK(exala_trsv(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 1, a, 1, y, i64_min,
                NULL));
  CHECK(y[0] == 1.0);
}

/* ------------------------------------------------------------------ blas3 */

static void test_blas3(void) {
  double a[4] = {2.0, 1.0, 0.0, 4.0}, b[4] = {1.0, 2.0, 3.0, 4.0}, c[4] = {7.0, 7.0, 7.0, 7.0};
  int k;
  const exala_layout lays[2] = {EXALA_COL_MAJOR, EXALA_ROW_MAJOR};
  for (k = 0; k < 2; ++k) {
    const exala_layout lay = lays[k];
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, 2, 2, 2, 1.0, a, p62, b, 2, 0.0, c, 2,
                       NULL),
            "lda");
    REFUSED(exala_gemm(lay, EXALA_TRANS, EXALA_TRANS, 2, 2, 2, 1.0, a, 2, b, p62, 0.0, c, 2, NULL),
            "ldb");
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, p62,
                       NULL),
            "ldc");
    /* k = 0 (and alpha = 0): C = beta C only, still checked before it is written */
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, 2, 2, 0, 1.0, a, 2, b, 2, 0.0, c,
                       INT64_MAX, NULL),
            "ldc");
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, 2, 2, 2, 0.0, a, 2, b, 2, 2.0, c, p62,
                       NULL),
            "ldc");
    /* m = n = ldc = 2^32, k = 0: C would have 2^64 entries */
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, p32, p32, 0, 1.0, a, p32, b, p32, 0.0, c,
                       p32, NULL),
            "c");
    /* A with 2^64 entries (k = 2^32) */
    REFUSED(exala_gemm(lay, EXALA_NO_TRANS, EXALA_NO_TRANS, p32, 1, p32, 1.0, a, p32, b, p32, 0.0, c,
                       p32, NULL),
            "a");

    REFUSED(exala_trsm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, 2, 1.0, a,
                       p62, b, 2, NULL),
            "lda");
    REFUSED(exala_trsm(lay, EXALA_RIGHT, EXALA_UPPER, EXALA_TRANS, EXALA_UNIT, 2, 2, 1.0, a, 2, b,
                       p62, NULL),
            "ldb");
    /* alpha = 0 (B = 0 without reading A) still checks B */
    REFUSED(exala_trsm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, 2, 0.0, a,
                       2, b, INT64_MAX, NULL),
            "ldb");
    /* A or B with more than 2^60 entries */
    REFUSED(exala_trsm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, p32, p32, 1.0,
                       a, p32, b, p32, NULL),
            "a");
    REFUSED(exala_trsm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 1, p62, 0.0, a,
                       1, b, p62, NULL),
            "b");
  }
  CHECK(c[0] == 7.0 && c[3] == 7.0 && b[0] == 1.0 && b[3] == 4.0);

  /* The gemm family (issue 17): the same checks before any memory is touched. */
  for (k = 0; k < 2; ++k) {
    const exala_layout lay = lays[k];
    REFUSED(exala_syrk(lay, EXALA_UPPER, EXALA_NO_TRANS, 2, 2, 1.0, a, p62, 0.0, c, 2, NULL), "lda");
    REFUSED(exala_syrk(lay, EXALA_LOWER, EXALA_TRANS, 2, 2, 1.0, a, 2, 0.0, c, p62, NULL), "ldc");
    /* alpha = 0: C = beta C only, still checked */
    REFUSED(exala_syrk(lay, EXALA_UPPER, EXALA_NO_TRANS, 2, 2, 0.0, a, 2, 2.0, c, INT64_MAX, NULL),
            "ldc");
    /* n = ldc = 2^32: C would have 2^64 entries */
    REFUSED(exala_syrk(lay, EXALA_UPPER, EXALA_NO_TRANS, p32, 0, 1.0, a, p32, 0.0, c, p32, NULL), "c");
    REFUSED(exala_syrk(lay, EXALA_UPPER, EXALA_NO_TRANS, 2, -1, 1.0, a, 2, 0.0, c, 2, NULL), "k");
    REFUSED(exala_syr2k(lay, EXALA_UPPER, EXALA_NO_TRANS, 2, 2, 1.0, a, 2, b, p62, 0.0, c, 2, NULL),
            "ldb");
    REFUSED(exala_syr2k(lay, EXALA_LOWER, EXALA_TRANS, 2, 2, 1.0, a, p62, b, 2, 0.0, c, 2, NULL),
            "lda");
    /* n = 2^32, k = 1: column-major A and B are 2^32 x 1 (fine) and C has 2^64 entries;
       row-major A already spans 2^32 rows of lda = 2^32 */
    REFUSED(exala_syr2k(lay, EXALA_UPPER, EXALA_NO_TRANS, p32, 1, 1.0, a, p32, b, p32, 0.0, c, p32,
                        NULL),
            lay == EXALA_COL_MAJOR ? "c" : "lda");
    REFUSED(exala_symm(lay, EXALA_LEFT, EXALA_UPPER, 2, 2, 1.0, a, p62, b, 2, 0.0, c, 2, NULL), "lda");
    REFUSED(exala_symm(lay, EXALA_RIGHT, EXALA_LOWER, 2, 2, 1.0, a, 2, b, 2, 0.0, c, p62, NULL), "ldc");
    REFUSED(exala_symm(lay, EXALA_LEFT, EXALA_UPPER, p32, p32, 1.0, a, p32, b, p32, 0.0, c, p32, NULL),
            "a");
    REFUSED(exala_trmm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, 2, 1.0, a,
                       p62, b, 2, NULL),
            "lda");
    /* alpha = 0 (B = 0 without reading A) still checks B */
    REFUSED(exala_trmm(lay, EXALA_RIGHT, EXALA_UPPER, EXALA_TRANS, EXALA_UNIT, 2, 2, 0.0, a, 2, b,
                       INT64_MAX, NULL),
            "ldb");
    REFUSED(exala_trmm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 1, p62, 1.0, a,
                       1, b, p62, NULL),
            "b");
    REFUSED(exala_syr(lay, EXALA_UPPER, 2, 1.0, a, p62, c, 2, NULL), "incx");
    REFUSED(exala_syr(lay, EXALA_LOWER, 2, 1.0, a, 1, c, p62, NULL), "lda");
    REFUSED(exala_syr2(lay, EXALA_UPPER, 2, 1.0, a, 1, b, i64_min, c, 2, NULL), "incy");
    REFUSED(exala_syr2(lay, EXALA_UPPER, p32, 1.0, a, 1, b, 1, c, p32, NULL), "a");
  }
  CHECK(c[0] == 7.0 && c[3] == 7.0 && b[0] == 1.0 && b[3] == 4.0 && a[0] == 2.0 && a[3] == 4.0);
  {
    double x[2] = {1.0, 2.0}, y[2] = {3.0, 4.0};
    const double param[5] = {-1.0, 1.0, 0.0, 0.0, 1.0};
    REFUSED(exala_rotm(2, x, p62, y, 1, param, NULL), "incx");
    REFUSED(exala_rotm(2, x, 1, y, i64_min, param, NULL), "incy");
    CHECK(x[0] == 1.0 && x[1] == 2.0 && y[0] == 3.0 && y[1] == 4.0);
  }
}

/* ---------------------------------------------------------------- solvers */

static void test_solvers(void) {
  double a[4] = {2.0, 1.0, 0.0, 4.0}, x[2] = {2.0, 5.0}, r = -1.0, sol[2];
  int steps = -1, conv = -1;
  REFUSED(exala_trsv_compensated(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a,
                                 p62, x, 1),
          "lda");
  REFUSED(exala_trsv_compensated(EXALA_ROW_MAJOR, EXALA_UPPER, EXALA_TRANS, EXALA_NON_UNIT, 2, a, 2,
                                 x, i64_min),
          "incx");
  REFUSED(exala_trsv_compensated(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, p32,
                                 a, p32, x, 1),
          "a");
  REFUSED(exala_trsv_double_double(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, INT64_MAX, x, 1),
          "lda");
  REFUSED(exala_trsv_double_double(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, 2, x, p62),
          "incx");
  REFUSED(exala_trsv_exact_refined(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, p62, x, 1, 4, NULL, &steps, &conv),
          "lda");
  REFUSED(exala_trsv_exact_refined(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, 2, x, i64_min, 4, NULL, &steps, &conv),
          "incx");
  REFUSED(exala_skeel_condition(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a,
                                p62, x, 1, &r),
          "lda");
  REFUSED(exala_skeel_condition(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a,
                                2, x, i64_min, &r),
          "incx");
  REFUSED(exala_trsv_mpfr_solution(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, p62, x, 1, 0, sol),
          "lda");
  REFUSED(exala_trsv_mpfr_solution(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2,
                                   a, 2, x, p62, 0, sol),
          "incb");
  /* t must receive n * n doubles: 2^64 wraps to 0 */
  REFUSED(exala_generate_ill_conditioned_trsv(p32, 10.0, 1, a, x), "n");
  CHECK(x[0] == 2.0 && x[1] == 5.0 && r == -1.0 && steps == -1 && conv == -1);
  /* one element: any increment */
  OK(exala_trsv_compensated(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 1, a, 1, x,
                            i64_min));
  CHECK(x[0] == 1.0);
  OK(exala_skeel_condition(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 1, a, 1, x,
                           i64_min, &r));
  CHECK(r == 1.0);
}

/* ------------------------------------------------------------- stripe LU */

static void test_stripe(void) {
  double a[4] = {2.0, 1.0, 0.0, 4.0}, b[2] = {2.0, 5.0}, x[2] = {0.0, 0.0}, be = -1.0;
  exala_stripe_lu* lu = NULL;
  /* n = lda = 2^32: the copy of A would have 2^64 entries */
  REFUSED(exala_stripe_lu_factor(p32, a, p32, NULL, &lu), "a");
  CHECK(lu == NULL);
  REFUSED(exala_stripe_lu_factor(2, a, p62, NULL, &lu), "lda");
  CHECK(lu == NULL);
  OK(exala_stripe_lu_factor(2, a, 2, NULL, &lu));
  if (lu == NULL) return;
  REFUSED(exala_stripe_lu_solve(lu, 2, b, p62), "ldb");
  REFUSED(exala_stripe_lu_solve(lu, p62, b, 2), "b");
  REFUSED(exala_stripe_lu_solve_refined(lu, 2, b, 2, x, p62, 2, NULL), "ldx");
  REFUSED(exala_stripe_lu_solve_refined(lu, 2, b, INT64_MAX, x, 2, 2, NULL), "ldb");
  REFUSED(exala_stripe_lu_backward_error(lu, 2, b, p62, x, 2, &be), "ldb");
  REFUSED(exala_stripe_lu_backward_error(lu, p62, b, 2, x, 2, &be), "b");
  CHECK(b[0] == 2.0 && b[1] == 5.0 && x[0] == 0.0 && be == -1.0);
  OK(exala_stripe_lu_solve_refined(lu, 1, b, 2, x, 2, 2, NULL));
  CHECK(x[0] == 1.0 && x[1] == 1.0);
  exala_stripe_lu_destroy(lu);
}

/* ------------------------------------------------------------------ accum */

static void put_u64(unsigned char* p, uint64_t v) {
  int i;
  for (i = 0; i < 8; ++i) p[i] = (unsigned char)(v >> (8 * i));
}

static void test_accum(void) {
  const size_t size = exala_superacc_serialized_size();
  const size_t top = size - 8; /* the last digit: the signed top digit */
  unsigned char* buf = (unsigned char*)malloc(size);
  exala_superacc* acc = NULL;
  exala_superacc* in = NULL;
  double r = 0.0;
  if (buf == NULL) return;
  OK(exala_superacc_create(&acc));
  OK(exala_superacc_add(acc, 1.0));
  OK(exala_superacc_serialize(acc, buf, size));
  /* the case: a top digit of INT64_MAX was accepted, and merging the
   * state with itself overflowed (+inf doubled rounded to -inf) */
  put_u64(buf + top, (uint64_t)INT64_MAX);
  FORMAT(exala_superacc_deserialize(buf, size, &in));
  CHECK(in == NULL);
  put_u64(buf + top, (uint64_t)INT64_MIN);
  FORMAT(exala_superacc_deserialize(buf, size, &in));
  put_u64(buf + top, (uint64_t)1 << 32); /* one past the bound */
  FORMAT(exala_superacc_deserialize(buf, size, &in));
  put_u64(buf + top, ((uint64_t)1 << 32) - 1); /* the largest accepted top digit */
  OK(exala_superacc_deserialize(buf, size, &in));
  if (in != NULL) {
    int i;
    /* doubling it over and over never wraps: the value stays positive and
     * rounds to +inf */
    for (i = 0; i < 80; ++i) OK(exala_superacc_merge(in, in));
    OK(exala_superacc_round(in, EXALA_ROUND_NEAREST_EVEN, &r));
    CHECK(r > 0.0 && isinf(r));
    OK(exala_superacc_round(in, EXALA_ROUND_TOWARD_ZERO, &r));
    CHECK(r > 0.0 && !isinf(r));
    exala_superacc_destroy(in);
  }
  exala_superacc_destroy(acc);
  free(buf);
}

/* ------------------------------------------------------------------ enums
 * A C caller can pass any int where an enum is expected. In C++ an enum
 * without a fixed underlying type holds only the values of its smallest
 * bit-field (exala_rounding: 0..3), and reading another one is undefined
 * (UBSan: "load of value 4, which is not a valid value for type
 * 'exala_rounding'"); exala.h gives the enums int as their fixed type in
 * C++, so a bad value is an ordinary argument error. */

static void test_enums(void) {
  double a[4] = {2.0, 1.0, 0.0, 4.0}, x[2] = {1.0, 1.0}, y[2] = {0.0, 0.0}, r = 0.0;
  exala_superacc* acc = NULL;
  OK(exala_superacc_create(&acc));
  REFUSED(exala_superacc_round(acc, (exala_rounding)4, &r), "mode");
  REFUSED(exala_superacc_round_sqrt(acc, (exala_rounding)-1, &r), "mode");
  REFUSED(exala_gemv((exala_layout)1000, EXALA_NO_TRANS, 2, 2, 1.0, a, 2, x, 1, 0.0, y, 1, NULL), "layout");
  REFUSED(exala_gemv(EXALA_COL_MAJOR, (exala_transpose)INT32_MIN, 2, 2, 1.0, a, 2, x, 1, 0.0, y, 1, NULL),
          "trans");
  REFUSED(exala_trsv(EXALA_COL_MAJOR, (exala_uplo)-5, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, a, 2, x, 1, NULL),
          "uplo");
  REFUSED(exala_trsv(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, (exala_diag)255, 2, a, 2, x, 1, NULL),
          "diag");
  REFUSED(exala_trsm(EXALA_COL_MAJOR, (exala_side)100000, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 2, 1,
                     1.0, a, 2, x, 2, NULL),
          "side");
  REFUSED(exala_set_backend((exala_backend)99), "backend");
  CHECK(x[0] == 1.0 && y[0] == 0.0);
  exala_superacc_destroy(acc);
}

int main(int argc, char** argv) {
  struct {
    const char* name;
    void (*run)(void);
  } groups[] = {{"blas1", test_blas1}, {"blas2", test_blas2},   {"blas3", test_blas3},
                {"solvers", test_solvers}, {"stripe", test_stripe}, {"accum", test_accum},
                {"enums", test_enums}};
  size_t g;
  for (g = 0; g < sizeof groups / sizeof groups[0]; ++g)
    if (argc < 2 || strcmp(argv[1], groups[g].name) == 0) groups[g].run();
  if (failures > 0) {
    fprintf(stderr, "test_c_api_hostile: %d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("test_c_api_hostile: %d checks passed\n", checks);
  return 0;
}
