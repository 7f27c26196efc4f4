/* test_c_api.c - the C API (exala.h) from a plain C99 program linking only
 * libexala: the version query, every status code this build can reach with
 * its message and index, results known exactly by construction (integer data,
 * cancellations, ties, values between two doubles), strides, layouts and
 * rounding directions, the superaccumulator, and the stripe LU in core and
 * out of core. Exits nonzero with a message at the first failed check.
 *
 * The expected values are derived by hand or with integer arithmetic, never
 * from another floating-point routine: e.g. 1 + 2^-52 + 2^-53 lies exactly
 * halfway between 1 + 2^-52 and 1 + 2^-51, so to nearest (ties to even) it
 * must give 1 + 2^-51. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, opendir: the out-of-core scratch directory */

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exala.h"

static int checks = 0;

static void fail(const char* file, int line, const char* what) {
  fprintf(stderr, "%s:%d: check failed: %s\n  last status message: \"%s\" (index %lld)\n", file,
          line, what, exala_last_error(), (long long)exala_last_error_index());
  exit(1);
}

#define CHECK(cond)                                \
  do {                                             \
    ++checks;                                      \
    if (!(cond)) fail(__FILE__, __LINE__, #cond);  \
  } while (0)

/* A call that must return `expected`. */
#define CHECK_STATUS(call, expected)                                                  \
  do {                                                                                \
    exala_status got_ = (call);                                                       \
    ++checks;                                                                         \
    if (got_ != (expected)) {                                                         \
      fprintf(stderr, "%s:%d: %s\n  returned %s, expected %s\n", __FILE__, __LINE__, \
              #call, exala_status_string(got_), exala_status_string(expected));       \
      fail(__FILE__, __LINE__, "status");                                             \
    }                                                                                 \
  } while (0)

#define CHECK_OK(call) CHECK_STATUS(call, EXALA_SUCCESS)

/* The last error names argument `arg` (as 'arg'). */
#define CHECK_NAMES(arg) CHECK(strstr(exala_last_error(), "'" arg "'") != NULL)

/* Bit equality (distinguishes -0 from +0; NaN equal to the same NaN). */
static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* 2^e exactly, for -1074 <= e <= 1023. */
static double pow2(int e) { return ldexp(1.0, e); }

/* ---------------------------------------------------------------- version */

static void test_version(void) {
  char expected[32];
  int major = -1, minor = -1, patch = -1;
  snprintf(expected, sizeof expected, "%d.%d.%d", EXALA_VERSION_MAJOR, EXALA_VERSION_MINOR,
           EXALA_VERSION_PATCH);
  CHECK(strcmp(exala_version(), expected) == 0);
  exala_version_numbers(&major, &minor, &patch);
  CHECK(major == EXALA_VERSION_MAJOR && minor == EXALA_VERSION_MINOR &&
        patch == EXALA_VERSION_PATCH);
  exala_version_numbers(NULL, NULL, NULL); /* NULL outputs are skipped */
  CHECK(strcmp(exala_status_string(EXALA_SUCCESS), "EXALA_SUCCESS") == 0);
  CHECK(strcmp(exala_status_string(EXALA_ERROR_SINGULAR_PIVOT), "EXALA_ERROR_SINGULAR_PIVOT") == 0);
  CHECK(strcmp(exala_status_string(EXALA_ERROR_INTERNAL), "EXALA_ERROR_INTERNAL") == 0);
  CHECK(strcmp(exala_status_string(EXALA_ERROR_OVERFLOW), "EXALA_ERROR_OVERFLOW") == 0);
  CHECK(strcmp(exala_status_string((exala_status)42), "EXALA_STATUS_UNKNOWN") == 0);
}

/* ------------------------------------------------------- invalid arguments */

static void test_invalid_arguments(void) {
  double x[3] = {1.0, 2.0, 3.0}, y[3] = {0.0, 0.0, 0.0};
  double result = -7.0;
  int64_t index = 99;
  exala_exec ex;

  /* a negative size: the message names n, the output is untouched */
  CHECK_STATUS(exala_sum(-1, x, 1, NULL, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("n");
  CHECK(strstr(exala_last_error(), "-1") != NULL);
  CHECK(exala_last_error_index() == -1);
  CHECK(result == -7.0);
  /* a null output pointer */
  CHECK_STATUS(exala_dot(3, x, 1, x, 1, NULL, NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("result");
  CHECK_STATUS(exala_iamax(3, x, 1, NULL, NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("index");
  /* a null input vector */
  CHECK_STATUS(exala_asum(3, NULL, 1, NULL, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("x");
  /* enum values outside their sets, named with the accepted values */
  CHECK_STATUS(exala_gemv((exala_layout)7, EXALA_NO_TRANS, 1, 1, 1.0, x, 1, x, 1, 0.0, y, 1, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(exala_last_error(),
               "exala: argument 'layout' must be EXALA_ROW_MAJOR (101) or EXALA_COL_MAJOR (102), "
               "got 7") == 0);
  CHECK_STATUS(exala_gemv(EXALA_COL_MAJOR, (exala_transpose)0, 1, 1, 1.0, x, 1, x, 1, 0.0, y, 1,
                          NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("trans");
  CHECK_STATUS(exala_trsv(EXALA_COL_MAJOR, (exala_uplo)0, EXALA_NO_TRANS, EXALA_UNIT, 1, x, 1, y,
                          1, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("uplo");
  CHECK_STATUS(exala_trsm(EXALA_COL_MAJOR, (exala_side)3, EXALA_LOWER, EXALA_NO_TRANS, EXALA_UNIT,
                          1, 1, 1.0, x, 1, y, 1, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("side");
  CHECK_STATUS(exala_trsv(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, (exala_diag)5, 1, x, 1, y,
                          1, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("diag");
  /* an lda that is too small (checked by the C++ layer, named the same way) */
  CHECK_STATUS(exala_gemv(EXALA_COL_MAJOR, EXALA_NO_TRANS, 3, 1, 1.0, x, 2, x, 1, 0.0, y, 1, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("lda");
  /* a bad exec field */
  CHECK_OK(exala_exec_init(&ex));
  ex.rounding = 9;
  CHECK_STATUS(exala_sum(3, x, 1, &ex, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex->rounding");
  CHECK(strstr(exala_last_error(), "EXALA_ROUND_DOWNWARD (3)") != NULL);
  CHECK_OK(exala_exec_init(&ex));
  ex.threads = -2;
  CHECK_STATUS(exala_sum(3, x, 1, &ex, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex->threads");
  CHECK_OK(exala_exec_init(&ex));
  ex.backend = 17;
  CHECK_STATUS(exala_sum(3, x, 1, &ex, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex->backend");
  CHECK_STATUS(exala_set_default_exec(&ex), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex->backend");
  CHECK_OK(exala_exec_init(&ex));
  ex.block = -1;
  CHECK_STATUS(exala_sum(3, x, 1, &ex, &result), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex->block");
  /* axpy rounds to nearest only: a directed mode is refused */
  CHECK_OK(exala_exec_init(&ex));
  ex.rounding = EXALA_ROUND_UPWARD;
  CHECK_STATUS(exala_axpy(3, 2.0, x, 1, y, 1, &ex), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("mode");
  /* a written vector with increment 0 */
  CHECK_STATUS(exala_scal(3, 2.0, x, 0, NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("incx");
  CHECK_STATUS(exala_backend_from_string("gpu", NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("backend");
  CHECK_STATUS(exala_exec_init(NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ex");
  CHECK_STATUS(exala_set_threads(2000), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("threads");
  CHECK(index == 99 && y[0] == 0.0 && x[0] == 1.0);

  /* a success clears the message and the index */
  CHECK_OK(exala_sum(3, x, 1, NULL, &result));
  CHECK(strcmp(exala_last_error(), "") == 0);
  CHECK(exala_last_error_index() == -1);
  CHECK(result == 6.0);
}

/* ---------------------------------------------------- backends and exec */

static void test_exec_and_backends(void) {
  exala_exec ex, def;
  exala_backend b = EXALA_BACKEND_OPENCL;
  const char* kernels = NULL;
  double x[4] = {0.5, 0.25, -3.0, 8.0}, r = 0;
  int i;

  CHECK_OK(exala_exec_init(&ex));
  CHECK(ex.backend == EXALA_BACKEND_SIMD && ex.threads == 0 &&
        ex.rounding == EXALA_ROUND_NEAREST_EVEN && ex.block == 0);
  CHECK_OK(exala_backend_from_string("reference", &b));
  CHECK(b == EXALA_BACKEND_REFERENCE);
  CHECK_STATUS(exala_backend_from_string("fast", &b), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(exala_last_error(), "fast") != NULL);
  CHECK(b == EXALA_BACKEND_REFERENCE);
  CHECK(strcmp(exala_backend_name(EXALA_BACKEND_OMP), "omp") == 0);
  CHECK(exala_backend_name((exala_backend)12) == NULL);
  CHECK(exala_backend_compiled_in(EXALA_BACKEND_REFERENCE) == 1);
  CHECK(exala_backend_compiled_in(EXALA_BACKEND_SIMD) == 1);
  CHECK(exala_backend_compiled_in((exala_backend)-1) == 0);
  CHECK_OK(exala_kernel_set(&kernels));
  CHECK(strcmp(kernels, "avx512") == 0 || strcmp(kernels, "avx2") == 0 ||
        strcmp(kernels, "generic") == 0);

  /* every backend: the same exact sum, or not_compiled_in (cuda: the sum
   * runs the host simd path) */
  CHECK(strcmp(exala_backend_name(EXALA_BACKEND_CUDA), "cuda") == 0);
  for (i = EXALA_BACKEND_REFERENCE; i <= EXALA_BACKEND_CUDA; ++i) {
    exala_status s;
    CHECK_OK(exala_exec_init(&ex));
    ex.backend = i;
    r = -1;
    s = exala_sum(4, x, 1, &ex, &r);
    if (exala_backend_compiled_in((exala_backend)i)) {
      /* opencl may lack a device here: a runtime error, never a wrong value */
      CHECK(s == EXALA_SUCCESS || (i == EXALA_BACKEND_OPENCL && s == EXALA_ERROR_RUNTIME));
      if (s == EXALA_SUCCESS) CHECK(r == 5.75);
      if (i == EXALA_BACKEND_CUDA) {
        /* a small gemm runs the CPU engine under cuda; from 256^3
         * multiply-adds it needs the CUDA code, which libexala loads from its
         * plugin (libexala_cuda.so): the reference's bits on a GPU, else a
         * runtime error naming CUDA (no device) */
        double a1 = 2.0, b1 = 3.0, c1 = 7.0;
        double* big = (double*)malloc(3 * 256 * 256 * sizeof(double));
        CHECK_OK(exala_gemm(EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_NO_TRANS, 1, 1, 1, 1.0, &a1, 1, &b1, 1, 0.0,
                            &c1, 1, &ex));
        CHECK(c1 == 6.0);
        CHECK(big != NULL);
        if (big != NULL) {
          double *c_cuda = big + 256 * 256, *c_ref = c_cuda + 256 * 256;
          exala_exec refx;
          exala_status sg;
          int e;
          for (e = 0; e < 256 * 256; ++e) big[e] = (double)((e * 7919) % 1031 - 515) / 64.0 + 1.0 / 3.0;
          CHECK_OK(exala_exec_init(&refx));
          refx.backend = EXALA_BACKEND_REFERENCE;
          CHECK_OK(exala_gemm(EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_TRANS, 256, 256, 256, 1.0, big, 256, big, 256,
                              0.0, c_ref, 256, &refx));
          sg = exala_gemm(EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_TRANS, 256, 256, 256, 1.0, big, 256, big, 256, 0.0,
                          c_cuda, 256, &ex);
          if (sg == EXALA_SUCCESS) {
            CHECK(memcmp(c_cuda, c_ref, 256 * 256 * sizeof(double)) == 0);
          } else {
            CHECK(sg == EXALA_ERROR_RUNTIME);
            CHECK(strstr(exala_last_error(), "CUDA") != NULL);
          }
          free(big);
        }
      }
    } else {
      CHECK(s == EXALA_ERROR_NOT_COMPILED_IN);
      CHECK(strstr(exala_last_error(), exala_backend_name((exala_backend)i)) != NULL);
      CHECK(r == -1);
      CHECK_STATUS(exala_set_backend((exala_backend)i), EXALA_ERROR_NOT_COMPILED_IN);
    }
  }

  /* the process-wide default (this test runs without EXALA_BACKEND set) */
  CHECK_OK(exala_get_default_exec(&def));
  CHECK_OK(exala_set_backend(EXALA_BACKEND_REFERENCE));
  CHECK_OK(exala_set_threads(1));
  CHECK_OK(exala_get_default_exec(&ex));
  CHECK(ex.backend == EXALA_BACKEND_REFERENCE && ex.threads == 1);
  CHECK_OK(exala_sum(4, x, 1, NULL, &r));
  CHECK(r == 5.75);
  ex.rounding = EXALA_ROUND_UPWARD;
  CHECK_OK(exala_set_default_exec(&ex));
  {
    /* 1 + 2^-60 rounded upward by the default */
    double t[2];
    t[0] = 1.0;
    t[1] = pow2(-60);
    CHECK_OK(exala_sum(2, t, 1, NULL, &r));
    CHECK(r == 1.0 + pow2(-52));
  }
  CHECK_OK(exala_set_default_exec(&def));
  CHECK_OK(exala_get_default_exec(&ex));
  CHECK(ex.backend == def.backend && ex.threads == def.threads && ex.rounding == def.rounding &&
        ex.block == def.block);
}

/* ---------------------------------------------------- error-free transforms */

/* s + e == a + b exactly: the difference, accumulated exactly, is zero. */
static int sums_equal(double a, double b, double s, double e) {
  exala_superacc* acc = NULL;
  int sign = 7;
  if (exala_superacc_create(&acc) != EXALA_SUCCESS) return 0;
  exala_superacc_add(acc, a);
  exala_superacc_add(acc, b);
  exala_superacc_add(acc, -s);
  exala_superacc_add(acc, -e);
  exala_superacc_sign(acc, &sign);
  exala_superacc_destroy(acc);
  return sign == 0;
}

static void test_eft(void) {
  double s = 0, e = 0, hi = 0, lo = 0, q = 0, r = 0, ref = 0;
  exala_superacc* acc = NULL;
  int sign = 2;

  CHECK_OK(exala_two_sum(1.0, pow2(-60), &s, &e));
  CHECK(s == 1.0 && e == pow2(-60));
  CHECK_OK(exala_two_sum(0.1, 0.2, &s, &e));
  CHECK(sums_equal(0.1, 0.2, s, e) && e != 0.0);
  CHECK_OK(exala_fast_two_sum(1e16, 3.0, &s, &e));
  CHECK(s + e == s && sums_equal(1e16, 3.0, s, e));
  CHECK_STATUS(exala_two_sum(1.0, 2.0, NULL, &e), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("s");

  /* p + e == a * b: the difference a*b - p - e, accumulated exactly, is zero */
  CHECK_OK(exala_two_prod(0.1, 0.3, &s, &e));
  CHECK_OK(exala_superacc_create(&acc));
  CHECK_OK(exala_superacc_add_product(acc, 0.1, 0.3));
  CHECK_OK(exala_superacc_add(acc, -s));
  CHECK_OK(exala_superacc_add(acc, -e));
  CHECK_OK(exala_superacc_sign(acc, &sign));
  CHECK(sign == 0 && e != 0.0);
  CHECK_OK(exala_two_product_dekker(0.1, 0.3, &hi, &lo));
  CHECK(same_bits(hi, s) && same_bits(lo, e));

  /* split: hi + lo == a, and hi has at most 26 significant bits */
  CHECK_OK(exala_split(0.1, &hi, &lo));
  CHECK(sums_equal(hi, lo, 0.1, 0.0));
  CHECK(ldexp(hi, 26 - ilogb(hi) - 1) == floor(ldexp(hi, 26 - ilogb(hi) - 1)));

  /* approx_two_div: q is the correctly rounded quotient (the library's exact
   * division of the accumulated value agrees), and a - q b == r b to within
   * the rounding of r (here exactly: r b is the exact residual 1 - 3q) */
  CHECK_OK(exala_approx_two_div(1.0, 3.0, &q, &r));
  CHECK_OK(exala_superacc_clear(acc));
  CHECK_OK(exala_superacc_add(acc, 1.0));
  CHECK_OK(exala_round_div(acc, 3.0, EXALA_ROUND_NEAREST_EVEN, &ref));
  CHECK(same_bits(q, ref));
  CHECK(r != 0.0 && fabs(r) < pow2(-53) * fabs(q));
  exala_superacc_destroy(acc);
}

/* -------------------------------------------------- superaccumulator */

static void test_superaccumulator(void) {
  exala_superacc *acc = NULL, *copy = NULL, *back = NULL, *other = NULL;
  unsigned char buffer[4096];
  size_t size = exala_superacc_serialized_size();
  double r = 0;
  int equal = 0, sign = 0;

  CHECK(size > 16 && size <= sizeof buffer);
  CHECK_OK(exala_superacc_create(&acc));
  CHECK_OK(exala_superacc_round(acc, EXALA_ROUND_NEAREST_EVEN, &r));
  CHECK(same_bits(r, 0.0));
  /* 1e300 + 1 - 1e300 + 2^-1074 * 2^-1074 + 3: exact value 4 + 2^-2148 */
  CHECK_OK(exala_superacc_add(acc, 1e300));
  CHECK_OK(exala_superacc_add(acc, 1.0));
  CHECK_OK(exala_superacc_add(acc, -1e300));
  CHECK_OK(exala_superacc_add_product(acc, pow2(-1074), pow2(-1074)));
  CHECK_OK(exala_superacc_add(acc, 3.0));
  CHECK_OK(exala_superacc_round(acc, EXALA_ROUND_NEAREST_EVEN, &r));
  CHECK(r == 4.0);
  CHECK_OK(exala_superacc_round(acc, EXALA_ROUND_UPWARD, &r)); /* the 2^-2148 is kept */
  CHECK(r == 4.0 + pow2(-50));
  CHECK_OK(exala_superacc_round(acc, EXALA_ROUND_TOWARD_ZERO, &r));
  CHECK(r == 4.0);
  CHECK_OK(exala_superacc_round_sqrt(acc, EXALA_ROUND_DOWNWARD, &r));
  CHECK(r == 2.0);
  CHECK_OK(exala_superacc_round_sqrt(acc, EXALA_ROUND_UPWARD, &r));
  CHECK(r == 2.0 + pow2(-51));
  CHECK_STATUS(exala_superacc_round(acc, (exala_rounding)4, &r), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("mode");
  CHECK_OK(exala_superacc_sign(acc, &sign));
  CHECK(sign == 1);

  /* serialize / deserialize: the same exact value and flags */
  CHECK_OK(exala_superacc_serialize(acc, buffer, size));
  CHECK_OK(exala_superacc_deserialize(buffer, size, &back));
  CHECK_OK(exala_superacc_equal(acc, back, &equal));
  CHECK(equal == 1);
  CHECK_OK(exala_superacc_round(back, EXALA_ROUND_UPWARD, &r));
  CHECK(r == 4.0 + pow2(-50));
  CHECK_STATUS(exala_superacc_serialize(acc, buffer, size - 1), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("size");

  /* copy, merge, negate: acc + (-acc) == 0 */
  CHECK_OK(exala_superacc_create(&copy));
  CHECK_OK(exala_superacc_copy(acc, copy));
  CHECK_OK(exala_superacc_equal(acc, copy, &equal));
  CHECK(equal == 1);
  CHECK_OK(exala_superacc_negate(copy));
  CHECK_OK(exala_superacc_equal(acc, copy, &equal));
  CHECK(equal == 0);
  CHECK_OK(exala_superacc_merge(copy, acc));
  CHECK_OK(exala_superacc_sign(copy, &sign));
  CHECK(sign == 0);

  /* round_axpby / round_div on S = 4 + 2^-2148 */
  CHECK_OK(exala_round_axpby(0.5, acc, -2.0, 1.0, EXALA_ROUND_DOWNWARD, &r));
  CHECK(r == 0.0 && !signbit(r)); /* 2 + 2^-2149 - 2 rounds down to +0: the tail is positive */
  CHECK_OK(exala_round_axpby(0.5, acc, -2.0, 1.0, EXALA_ROUND_UPWARD, &r));
  CHECK(r == pow2(-1074));
  CHECK_OK(exala_round_div(acc, 4.0, EXALA_ROUND_NEAREST_EVEN, &r));
  CHECK(r == 1.0);
  CHECK_OK(exala_round_div(acc, 4.0, EXALA_ROUND_UPWARD, &r));
  CHECK(r == 1.0 + pow2(-52));

  /* the _into forms add the exact terms into an accumulator */
  {
    double x[3] = {1e300, 1.0, -1e300}, y[3] = {2.0, 3.0, 2.0};
    CHECK_OK(exala_superacc_create(&other));
    CHECK_OK(exala_sum_into(other, 3, x, 1, NULL)); /* 1 */
    CHECK_OK(exala_asum_into(other, 1, x + 1, 1, NULL)); /* + 1 */
    CHECK_OK(exala_dot_into(other, 3, x, 1, y, 1, NULL)); /* + 3 */
    CHECK_OK(exala_superacc_round(other, EXALA_ROUND_NEAREST_EVEN, &r));
    CHECK(r == 5.0);
    CHECK_STATUS(exala_sum_into(NULL, 3, x, 1, NULL), EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("acc");
  }

  /* garbage is a format error, and the output handle is not written */
  memset(buffer, 0x5a, sizeof buffer);
  CHECK_STATUS(exala_superacc_deserialize(buffer, size, &other), EXALA_ERROR_FORMAT);
  CHECK(strlen(exala_last_error()) > 0);
  CHECK(other != NULL);
  exala_superacc_destroy(other);
  other = NULL;
  CHECK_STATUS(exala_superacc_deserialize(buffer, 3, &other), EXALA_ERROR_FORMAT);
  CHECK(other == NULL);

  exala_superacc_destroy(acc);
  exala_superacc_destroy(copy);
  exala_superacc_destroy(back);
  exala_superacc_destroy(NULL);
}

/* --------------------------------------------------- blas1: exact values */

/* The sign of S - (r + h)^2 = S - r^2 - 2 r h - h^2 (every term an exact
 * product of two doubles, accumulated exactly), h a power of two. */
static int sign_minus_square(const exala_superacc* s, double r, double h) {
  exala_superacc* t = NULL;
  int sign = 9;
  if (exala_superacc_create(&t) != EXALA_SUCCESS) return 9;
  exala_superacc_copy(s, t);
  exala_superacc_add_product(t, -r, r);
  exala_superacc_add_product(t, -2.0 * r, h);
  exala_superacc_add_product(t, -h, h);
  exala_superacc_sign(t, &sign);
  exala_superacc_destroy(t);
  return sign;
}

/* r is sqrt(S) rounded to nearest: (r - ulp/2)^2 <= S <= (r + ulp/2)^2 (a
 * square root of a finite sum is never exactly a midpoint). */
static int is_rounded_sqrt(const exala_superacc* s, double r) {
  const double h = ldexp(1.0, ilogb(r) - 53);
  return r > 0 && sign_minus_square(s, r, -h) >= 0 && sign_minus_square(s, r, h) <= 0;
}

static void test_blas1(void) {
  double r = 0;
  exala_exec ex;
  int i;

  /* sum of {1e300, 1, -1e300} is exactly 1 (naive summation gives 0) */
  {
    double x[3] = {1e300, 1.0, -1e300};
    CHECK_OK(exala_sum(3, x, 1, NULL, &r));
    CHECK(r == 1.0);
  }
  /* a dot whose exact value 1 + 2^-52 + 2^-53 is a tie: to nearest even it is
   * 1 + 2^-51; the 3e100 products cancel exactly (naive order gives 0) */
  {
    double x[4], y[4];
    x[0] = 1.0 + pow2(-52); y[0] = 1.0;
    x[1] = pow2(-27);       y[1] = pow2(-26);
    x[2] = 1e100;           y[2] = 3.0;
    x[3] = -1e100;          y[3] = 3.0;
    CHECK_OK(exala_dot(4, x, 1, y, 1, NULL, &r));
    CHECK(r == 1.0 + pow2(-51));
    CHECK_OK(exala_exec_init(&ex));
    ex.rounding = EXALA_ROUND_TOWARD_ZERO;
    CHECK_OK(exala_dot(4, x, 1, y, 1, &ex, &r));
    CHECK(r == 1.0 + pow2(-52));
  }
  /* all four directions on values between two doubles: +-(1 + 2^-60) */
  {
    const double expect_pos[4] = {1.0, 1.0, 1.0 + pow2(-52), 1.0};
    const double expect_neg[4] = {-1.0, -1.0, -1.0, -1.0 - pow2(-52)};
    double p[2], n[2];
    p[0] = 1.0; p[1] = pow2(-60);
    n[0] = -1.0; n[1] = -pow2(-60);
    for (i = 0; i < 4; ++i) {
      CHECK_OK(exala_exec_init(&ex));
      ex.rounding = i;
      CHECK_OK(exala_sum(2, p, 1, &ex, &r));
      CHECK(r == expect_pos[i]);
      CHECK_OK(exala_sum(2, n, 1, &ex, &r));
      CHECK(r == expect_neg[i]);
      CHECK_OK(exala_asum(2, n, 1, &ex, &r));
      CHECK(r == expect_pos[i]);
    }
  }
  /* nrm2 of {3, 4} is 5; of {1e300, 1e300, 3e-300} it is sqrt(2e600 + 9e-600)
   * rounded to nearest, with no overflow or underflow on the way: checked by
   * comparing exact squares of the neighbouring midpoints */
  {
    double x[2] = {3.0, 4.0}, big[3] = {1e300, 1e300, 3e-300};
    exala_superacc* s = NULL;
    CHECK_OK(exala_nrm2(2, x, 1, NULL, &r));
    CHECK(r == 5.0);
    CHECK_OK(exala_nrm2(3, big, 1, NULL, &r));
    CHECK_OK(exala_superacc_create(&s));
    for (i = 0; i < 3; ++i) CHECK_OK(exala_superacc_add_product(s, big[i], big[i]));
    CHECK(is_rounded_sqrt(s, r));
    exala_superacc_destroy(s);
  }
  /* n == 0 gives +0 */
  CHECK_OK(exala_sum(0, NULL, 1, NULL, &r));
  CHECK(same_bits(r, 0.0));

  /* strides: integer data, expected values from integer arithmetic */
  {
    double x[40], y[40];
    int64_t k, n = 13, expect = 0, idx = -5;
    for (k = 0; k < 40; ++k) {
      x[k] = (double)(k * 7 % 11) - 5.0;
      y[k] = (double)(k * 5 % 13) - 6.0;
    }
    /* incx = 3, incy = -2: element i of y is y[(n-1-i)*2] */
    for (k = 0; k < n; ++k)
      expect += (int64_t)x[k * 3] * (int64_t)y[(n - 1 - k) * 2];
    CHECK_OK(exala_dot(n, x, 3, y, -2, NULL, &r));
    CHECK(r == (double)expect);
    /* incx = -3 pairs in reverse: the same products as incx = 3, incy = 2 reversed */
    expect = 0;
    for (k = 0; k < n; ++k) expect += (int64_t)x[(n - 1 - k) * 3] * (int64_t)y[k * 2];
    CHECK_OK(exala_dot(n, x, -3, y, 2, NULL, &r));
    CHECK(r == (double)expect);
    expect = 0;
    for (k = 0; k < n; ++k) expect += (int64_t)x[k * 3];
    CHECK_OK(exala_sum(n, x, -3, NULL, &r));
    CHECK(r == (double)expect);
    /* increment 0 repeats x[0] */
    CHECK_OK(exala_sum(n, x + 2, 0, NULL, &r));
    CHECK(r == (double)n * x[2]);
    /* iamax: 0-based, logical index under a negative increment */
    {
      double v[5] = {1.0, -9.0, 3.0, 9.0, 2.0};
      CHECK_OK(exala_iamax(5, v, 1, NULL, &idx));
      CHECK(idx == 1);
      CHECK_OK(exala_iamax(5, v, -1, NULL, &idx)); /* reversed: 2, 9, 3, -9, 1 */
      CHECK(idx == 1);
      CHECK_OK(exala_iamax(0, v, 1, NULL, &idx));
      CHECK(idx == -1);
    }
  }
  /* element-wise: axpy with one rounding, scal, copy, swap with strides */
  {
    double x[6] = {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, y[6] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    double a[3] = {1.0, 1.0, 1.0}, b[3];
    b[0] = pow2(-53); b[1] = 1.0; b[2] = 2.0;
    /* fma(3, 1, 2^-53) = 3 + 2^-53 rounds to 3 (one rounding) */
    CHECK_OK(exala_axpy(1, 3.0, a, 1, b, 1, NULL));
    CHECK(b[0] == 3.0);
    CHECK_OK(exala_axpy(3, 2.0, x, 2, y, -1, NULL)); /* y[2-i] += 2 x[2i] */
    CHECK(y[2] == 2.5 && y[1] == 6.5 && y[0] == 10.5 && y[3] == 0.5);
    CHECK_OK(exala_scal(2, -0.5, x, 3, NULL));
    CHECK(x[0] == -0.5 && x[3] == -2.0 && x[1] == 2.0);
    CHECK_OK(exala_copy(3, x, 1, y, -2, NULL)); /* y[4] = x0, y[2] = x1, y[0] = x2 */
    CHECK(y[4] == -0.5 && y[2] == 2.0 && y[0] == 3.0);
    CHECK_OK(exala_swap(2, x, 1, a, 1, NULL));
    CHECK(x[0] == 1.0 && x[1] == 1.0 && a[0] == -0.5 && a[1] == 2.0);
  }
}

/* ------------------------------------------- blas2/3: layouts and strides */

/* A 3 x 4 integer matrix, entry (i, j), stored row- or column-major. */
static double entry(int i, int j) { return (double)((i + 1) * (j + 2) % 7) - 3.0; }

static void store(double* a, int m, int n, int lda, exala_layout lay) {
  int i, j;
  for (i = 0; i < m; ++i)
    for (j = 0; j < n; ++j) a[lay == EXALA_ROW_MAJOR ? i * lda + j : j * lda + i] = entry(i, j);
}

static void test_blas23(void) {
  const exala_layout lays[2] = {EXALA_ROW_MAJOR, EXALA_COL_MAJOR};
  int l, i, j;
  for (l = 0; l < 2; ++l) {
    const exala_layout lay = lays[l];
    double a[64], x[8] = {1.0, -2.0, 3.0, 0.5}, y[12], c[32], b[32];
    const int lda = lay == EXALA_ROW_MAJOR ? 5 : 4; /* padded */
    int64_t expect;
    store(a, 3, 4, lda, lay);
    /* y = 2 A x - y with y on stride -2: y_i = y[(2-i)*2] */
    for (i = 0; i < 12; ++i) y[i] = (double)i;
    CHECK_OK(exala_gemv(lay, EXALA_NO_TRANS, 3, 4, 2.0, a, lda, x, 1, -1.0, y, -2, NULL));
    for (i = 0; i < 3; ++i) {
      double sum = 0;
      for (j = 0; j < 4; ++j) sum += entry(i, j) * x[j]; /* small dyadic values: exact */
      CHECK(y[(2 - i) * 2] == 2.0 * sum - (double)((2 - i) * 2));
    }
    CHECK(y[1] == 1.0 && y[3] == 3.0); /* untouched between the strides */
    /* A^T x on stride 2 for x */
    {
      double xt[6] = {1.0, 99.0, 2.0, 99.0, -1.0, 99.0}, yt[4] = {7, 7, 7, 7};
      CHECK_OK(exala_gemv(lay, EXALA_TRANS, 3, 4, 1.0, a, lda, xt, 2, 0.0, yt, 1, NULL));
      for (j = 0; j < 4; ++j)
        CHECK(yt[j] == entry(0, j) * 1.0 + entry(1, j) * 2.0 + entry(2, j) * -1.0);
    }
    /* gemm: C (3 x 3) = A (3 x 4) * A^T; integer entries, exact */
    {
      const int ldc = 3;
      CHECK_OK(exala_gemm(lay, EXALA_NO_TRANS, EXALA_TRANS, 3, 3, 4, 1.0, a, lda, a, lda, 0.0, c,
                          ldc, NULL));
      for (i = 0; i < 3; ++i)
        for (j = 0; j < 3; ++j) {
          int k;
          expect = 0;
          for (k = 0; k < 4; ++k) expect += (int64_t)entry(i, k) * (int64_t)entry(j, k);
          CHECK(c[i * ldc + j] == (double)expect); /* symmetric: either layout reads the same */
        }
    }
    /* trsv: unit lower triangular L with integer entries and an integer
     * solution; b = L x computed in integers, so the solve is exact */
    {
      double t[16], rhs[8];
      const int64_t sol[4] = {3, -1, 4, -2};
      int n = 4;
      for (i = 0; i < 16; ++i) t[i] = 1000.0; /* the unread triangle and diagonal */
      for (i = 0; i < n; ++i)
        for (j = 0; j < i; ++j)
          t[lay == EXALA_ROW_MAJOR ? i * n + j : j * n + i] = (double)((i * 3 + j) % 5) - 2.0;
      for (i = 0; i < n; ++i) {
        expect = sol[i];
        for (j = 0; j < i; ++j)
          expect += (int64_t)t[lay == EXALA_ROW_MAJOR ? i * n + j : j * n + i] * sol[j];
        rhs[(n - 1 - i) * 2] = (double)expect; /* incx = -2 */
      }
      CHECK_OK(exala_trsv(lay, EXALA_LOWER, EXALA_NO_TRANS, EXALA_UNIT, n, t, n, rhs, -2, NULL));
      for (i = 0; i < n; ++i) CHECK(rhs[(n - 1 - i) * 2] == (double)sol[i]);
      /* trsm, side left, alpha 2: two right-hand sides (n x 2 in the layout) */
      for (i = 0; i < n; ++i) {
        expect = sol[i];
        for (j = 0; j < i; ++j)
          expect += (int64_t)t[lay == EXALA_ROW_MAJOR ? i * n + j : j * n + i] * sol[j];
        b[lay == EXALA_ROW_MAJOR ? i * 2 : i] = (double)expect;
        b[lay == EXALA_ROW_MAJOR ? i * 2 + 1 : n + i] = (double)(-3 * expect);
      }
      CHECK_OK(exala_trsm(lay, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_UNIT, n, 2, 2.0, t,
                          n, b, lay == EXALA_ROW_MAJOR ? 2 : n, NULL));
      for (i = 0; i < n; ++i) {
        CHECK(b[lay == EXALA_ROW_MAJOR ? i * 2 : i] == 2.0 * (double)sol[i]);
        CHECK(b[lay == EXALA_ROW_MAJOR ? i * 2 + 1 : n + i] == -6.0 * (double)sol[i]);
      }
    }
  }
}

/* ------------------------------------------------- the gemm family (issue 17) */

/* syrk, syr2k, symm, trmm, syr, syr2 on small integer data (every result is
 * exact, so it is known), in both layouts; the other triangle untouched;
 * rotm and rotg; bad enums named. */
static void test_gemm_family(void) {
  int li;
  for (li = 0; li < 2; ++li) {
    const exala_layout lay = li == 0 ? EXALA_COL_MAJOR : EXALA_ROW_MAJOR;
    const int n = 4, k = 3;
    double a[12], b[12], c[16], ref[16], x[4] = {1, -2, 3, 2}, y[4] = {2, 0, -1, 1};
    int i, j, l;
    /* A is n x k in `lay` (lda k row-major, n col-major) */
#define AT(m, i, j) (m)[lay == EXALA_ROW_MAJOR ? (i) * k + (j) : (j) * n + (i)]
#define CT(m, i, j) (m)[lay == EXALA_ROW_MAJOR ? (i) * n + (j) : (j) * n + (i)]
    for (i = 0; i < n; ++i)
      for (l = 0; l < k; ++l) {
        AT(a, i, l) = (double)((i * 5 + l * 3) % 7) - 3.0;
        AT(b, i, l) = (double)((i * 2 + l * 5) % 5) - 2.0;
      }
    for (i = 0; i < 16; ++i) c[i] = 100.0 + i;
    /* syrk, upper: C = 2 A A^T + 1 C on the triangle */
    CHECK_OK(exala_syrk(lay, EXALA_UPPER, EXALA_NO_TRANS, n, k, 2.0, a, lay == EXALA_ROW_MAJOR ? k : n,
                        1.0, c, n, NULL));
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j) {
        double s = 0;
        for (l = 0; l < k; ++l) s += AT(a, i, l) * AT(a, j, l);
        CHECK(CT(c, i, j) == (i <= j ? 2.0 * s + 100.0 + (double)(lay == EXALA_ROW_MAJOR ? i * n + j : j * n + i)
                                     : 100.0 + (double)(lay == EXALA_ROW_MAJOR ? i * n + j : j * n + i)));
      }
    /* syr2k, lower, beta 0: C = A B^T + B A^T on the triangle */
    for (i = 0; i < 16; ++i) c[i] = -7.0;
    CHECK_OK(exala_syr2k(lay, EXALA_LOWER, EXALA_NO_TRANS, n, k, 1.0, a, lay == EXALA_ROW_MAJOR ? k : n, b,
                         lay == EXALA_ROW_MAJOR ? k : n, 0.0, c, n, NULL));
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j) {
        double s = 0;
        for (l = 0; l < k; ++l) s += AT(a, i, l) * AT(b, j, l) + AT(b, i, l) * AT(a, j, l);
        CHECK(CT(c, i, j) == (i >= j ? s : -7.0));
      }
    /* symm, left, upper: C = S B2 with S the symmetric matrix from c's upper triangle */
    {
      double s4[16], b2[8], c2[8];
      for (i = 0; i < n; ++i)
        for (j = 0; j < n; ++j) CT(s4, i, j) = i <= j ? (double)(i + 2 * j - 3) : 1e300; /* unread */
      for (i = 0; i < 8; ++i) b2[i] = (double)(i % 3) - 1.0;
      CHECK_OK(exala_symm(lay, EXALA_LEFT, EXALA_UPPER, n, 2, 1.0, s4, n, b2, lay == EXALA_ROW_MAJOR ? 2 : n,
                          0.0, c2, lay == EXALA_ROW_MAJOR ? 2 : n, NULL));
      for (i = 0; i < n; ++i)
        for (j = 0; j < 2; ++j) {
          double s = 0;
          for (l = 0; l < n; ++l) {
            const int r = i <= l ? i : l, q = i <= l ? l : i;
            s += (double)(r + 2 * q - 3) * b2[lay == EXALA_ROW_MAJOR ? l * 2 + j : j * n + l];
          }
          CHECK(c2[lay == EXALA_ROW_MAJOR ? i * 2 + j : j * n + i] == s);
        }
      /* trmm, left, upper, unit: B2 := 3 U B2 (the stored diagonal not read) */
      for (i = 0; i < 8; ++i) ref[i] = b2[i];
      CHECK_OK(exala_trmm(lay, EXALA_LEFT, EXALA_UPPER, EXALA_NO_TRANS, EXALA_UNIT, n, 2, 3.0, s4, n, b2,
                          lay == EXALA_ROW_MAJOR ? 2 : n, NULL));
      for (i = 0; i < n; ++i)
        for (j = 0; j < 2; ++j) {
          double s = ref[lay == EXALA_ROW_MAJOR ? i * 2 + j : j * n + i];
          for (l = i + 1; l < n; ++l) s += CT(s4, i, l) * ref[lay == EXALA_ROW_MAJOR ? l * 2 + j : j * n + l];
          CHECK(b2[lay == EXALA_ROW_MAJOR ? i * 2 + j : j * n + i] == 3.0 * s);
        }
    }
    /* syr / syr2, upper: A += alpha x x^T (+ y x^T) on the triangle only */
    for (i = 0; i < 16; ++i) c[i] = ref[i] = (double)i;
    CHECK_OK(exala_syr(lay, EXALA_UPPER, n, 0.5, x, 1, c, n, NULL));
    CHECK_OK(exala_syr2(lay, EXALA_UPPER, n, -1.0, x, 1, y, -1, c, n, NULL));
    for (i = 0; i < n; ++i)
      for (j = 0; j < n; ++j) {
        /* y with increment -1: logical element i is y[n - 1 - i] */
        const double yi = y[n - 1 - i], yj = y[n - 1 - j];
        const double want = i <= j ? CT(ref, i, j) + 0.5 * x[i] * x[j] - (x[i] * yj + yi * x[j]) : CT(ref, i, j);
        CHECK(CT(c, i, j) == want);
      }
#undef AT
#undef CT
  }
  {
    double x[3] = {1, 2, 3}, y[3] = {-1, 0.5, 4};
    const double param[5] = {-1.0, 2.0, -1.0, 3.0, 0.5}; /* H = [[2, 3], [-1, 0.5]] */
    double r = 3.0, z = 4.0, c = 0, s = 0;
    int i;
    CHECK_OK(exala_rotm(3, x, 1, y, 1, param, NULL));
    {
      const double x0[3] = {1, 2, 3}, y0[3] = {-1, 0.5, 4};
      for (i = 0; i < 3; ++i) {
        CHECK(x[i] == 2.0 * x0[i] + 3.0 * y0[i]);
        CHECK(y[i] == -1.0 * x0[i] + 0.5 * y0[i]);
      }
    }
    CHECK_OK(exala_rotg(&r, &z, &c, &s, NULL));
    CHECK(r == 5.0 && c == 3.0 / 5.0 && s == 4.0 / 5.0 && z == 1.0 / (3.0 / 5.0));
    CHECK_STATUS(exala_rotg(NULL, &z, &c, &s, NULL), EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("a");
    {
      const double bad[5] = {7.0, 0, 0, 0, 0};
      CHECK_STATUS(exala_rotm(3, x, 1, y, 1, bad, NULL), EXALA_ERROR_INVALID_ARGUMENT);
      CHECK_NAMES("param");
    }
  }
  {
    double a[4] = {1, 2, 3, 4}, c[4] = {0, 0, 0, 0};
    CHECK_STATUS(exala_syrk(EXALA_COL_MAJOR, (exala_uplo)5, EXALA_NO_TRANS, 2, 2, 1.0, a, 2, 0.0, c, 2, NULL),
                 EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("uplo");
    CHECK_STATUS(exala_symm(EXALA_COL_MAJOR, (exala_side)0, EXALA_UPPER, 2, 2, 1.0, a, 2, a, 2, 0.0, c, 2, NULL),
                 EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("side");
    CHECK_STATUS(exala_syr2k(EXALA_COL_MAJOR, EXALA_UPPER, EXALA_NO_TRANS, 2, 2, 1.0, a, 1, a, 2, 0.0, c, 2, NULL),
                 EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("lda");
    CHECK_STATUS(exala_trmm(EXALA_COL_MAJOR, EXALA_LEFT, EXALA_UPPER, EXALA_NO_TRANS, (exala_diag)9, 2, 2, 1.0, a,
                            2, c, 2, NULL),
                 EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("diag");
    CHECK(c[0] == 0.0 && c[3] == 0.0);
  }
}

/* ------------------------------------------------------------- singular */

static void test_singular(void) {
  /* lower 3 x 3 (column-major) with an exact zero on the diagonal at row 1 */
  double a[9] = {2.0, 1.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 4.0};
  double x[3] = {2.0, 3.0, 4.0}, b[6] = {2.0, 3.0, 4.0, 5.0, 6.0, 7.0};
  CHECK_STATUS(exala_trsv(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, 3, a, 3, x,
                          1, NULL),
               EXALA_ERROR_SINGULAR);
  CHECK(exala_last_error_index() == 1);
  CHECK(strstr(exala_last_error(), "row 1") != NULL);
  CHECK(x[0] == 2.0 && x[1] == 3.0 && x[2] == 4.0); /* nothing written */
  CHECK_STATUS(exala_trsm(EXALA_COL_MAJOR, EXALA_LEFT, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT,
                          3, 2, 1.0, a, 3, b, 3, NULL),
               EXALA_ERROR_SINGULAR);
  CHECK(exala_last_error_index() == 1);
  CHECK(b[0] == 2.0 && b[5] == 7.0);
  CHECK_STATUS(exala_trsv_compensated(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT,
                                      3, a, 3, x, 1),
               EXALA_ERROR_SINGULAR);
  CHECK(exala_last_error_index() == 1);
  /* with a unit diagonal the zero is not read */
  CHECK_OK(exala_trsv(EXALA_COL_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_UNIT, 3, a, 3, x, 1,
                      NULL));
  CHECK(x[0] == 2.0 && x[1] == 1.0 && x[2] == 4.0 - 2.0 - 1.0);
}

/* --------------------------------------------------------------- solvers */

static void test_solvers(void) {
  /* an ill-conditioned exact test system; the refined exact trsv, the
   * compensated and double-double solvers; MPFR gives the rounded truth */
  enum { n = 12 };
  double t[n * n], b[n], x[n], xc[n], xd[n], truth[n], cond = 0;
  int steps = -1, converged = -1, i;
  exala_status mpfr;
  CHECK_OK(exala_generate_ill_conditioned_trsv(n, 1e8, 3, t, b));
  for (i = 0; i < n; ++i) x[i] = xc[i] = xd[i] = b[i];
  CHECK_OK(exala_trsv_exact_refined(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT,
                                    n, t, n, x, 1, 8, NULL, &steps, &converged));
  CHECK(steps >= 0 && converged == 1);
  CHECK_OK(exala_trsv_exact_refined(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT,
                                    n, t, n, xd, 1, 8, NULL, NULL, NULL)); /* NULL outputs */
  CHECK(memcmp(x, xd, sizeof x) == 0);
  CHECK_STATUS(exala_trsv_exact_refined(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS,
                                        EXALA_NON_UNIT, n, t, n, xd, 1, 101, NULL, NULL, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("max_steps");
  for (i = 0; i < n; ++i) xd[i] = b[i];
  CHECK_OK(exala_trsv_compensated(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, n,
                                  t, n, xc, 1));
  CHECK_OK(exala_trsv_double_double(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT,
                                    n, t, n, xd, 1));
  CHECK_OK(exala_skeel_condition(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, n,
                                 t, n, x, 1, &cond));
  CHECK(cond > 1e8 / 1.25 && cond < 1e8 * 1.25);
  mpfr = exala_trsv_mpfr_solution(EXALA_ROW_MAJOR, EXALA_LOWER, EXALA_NO_TRANS, EXALA_NON_UNIT, n,
                                  t, n, b, 1, 0, truth);
  CHECK(mpfr == EXALA_SUCCESS || mpfr == EXALA_ERROR_NOT_COMPILED_IN);
  if (mpfr == EXALA_SUCCESS) {
    /* refined: within 1 ulp of the rounded exact solution per component;
     * compensated and double-double: normwise 2 (u + n cond u^2) */
    const double u = pow2(-53), bound = 2 * (u + n * (1.25e8) * u * u);
    double norm = 0, errc = 0, errd = 0;
    for (i = 0; i < n; ++i) {
      CHECK(fabs(x[i] - truth[i]) <= ldexp(1.0, ilogb(truth[i]) - 52));
      norm = fmax(norm, fabs(truth[i]));
      errc = fmax(errc, fabs(xc[i] - truth[i]));
      errd = fmax(errd, fabs(xd[i] - truth[i]));
    }
    CHECK(errc <= bound * norm && errd <= bound * norm);
  }
  CHECK_STATUS(exala_generate_ill_conditioned_trsv(0, 10.0, 1, t, b),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("n");
  CHECK_STATUS(exala_generate_ill_conditioned_trsv(4, 10.0, 1, NULL, b),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("t");
}

/* ------------------------------------------------------------- stripe LU */

/* A deterministic matrix with entries in [-0.5, 0.5) (64-bit LCG) plus a
 * dominant diagonal: nonsingular, well conditioned. */
static void random_matrix(double* a, int n, uint64_t seed) {
  int i;
  for (i = 0; i < n * n; ++i) {
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (double)(seed >> 11) * pow2(-53) - 0.5;
  }
  for (i = 0; i < n; ++i) a[i * n + i] += 4.0;
}

static int progress_calls = 0;
static int progress_phases_ok = 1;
static void on_progress(const exala_stripe_lu_progress* p, void* user) {
  ++*(int*)user;
  if (strcmp(p->phase, "factor") != 0 && strcmp(p->phase, "solve") != 0 &&
      strcmp(p->phase, "refine") != 0)
    progress_phases_ok = 0;
  if (!(p->fraction >= 0.0 && p->fraction <= 1.0)) progress_phases_ok = 0;
}

static void test_stripe_lu_in_core(void) {
  enum { n = 60, nrhs = 2 };
  static double a[n * n], xt[n * nrhs], b[n * nrhs], x[n * nrhs];
  exala_stripe_lu* lu = NULL;
  exala_stripe_lu_options opt;
  exala_stripe_lu_report rep;
  exala_refine_report ref;
  double be = 1.0;
  int64_t nn = 0;
  int i;

  random_matrix(a, n, 11);
  for (i = 0; i < n * nrhs; ++i) xt[i] = (double)(i % 9) - 4.0;
  /* b = A xt, each entry correctly rounded (exact gemv) */
  for (i = 0; i < nrhs; ++i)
    CHECK_OK(exala_gemv(EXALA_COL_MAJOR, EXALA_NO_TRANS, n, n, 1.0, a, n, xt + i * n, 1, 0.0,
                        b + i * n, 1, NULL));
  CHECK_OK(exala_stripe_lu_options_init(&opt));
  CHECK(opt.order == EXALA_ORDER_ZIGZAG && opt.pivot == EXALA_PIVOT_LOCAL && opt.resume == 1 &&
        opt.io_threads == 2 && opt.pivot_threshold < 0 && strcmp(opt.engine, "cpu") == 0 &&
        opt.on_progress == NULL);
  opt.stripe = 16;
  opt.substripe = 8;
  opt.on_progress = on_progress;
  opt.user = &progress_calls;
  opt.progress_interval_s = 0;
  CHECK_OK(exala_stripe_lu_factor(n, a, n, &opt, &lu));
  CHECK_OK(exala_stripe_lu_n(lu, &nn));
  CHECK(nn == n);
  CHECK_OK(exala_stripe_lu_get_report(lu, &rep));
  CHECK(rep.n == n && rep.in_core == 1 && rep.stripe == 16 && rep.substripe == 8);
  CHECK(progress_calls > 0 && progress_phases_ok);
  CHECK_OK(exala_stripe_lu_solve_refined(lu, nrhs, b, n, x, n, 10, &ref));
  CHECK(ref.backward_error_after <= pow2(-52));
  CHECK(ref.backward_error_after <= ref.backward_error_before);
  CHECK_OK(exala_stripe_lu_backward_error(lu, nrhs, b, n, x, n, &be));
  CHECK(be <= pow2(-52));
  /* solve in place, then refine: the same system */
  memcpy(x, b, sizeof x);
  CHECK_OK(exala_stripe_lu_solve(lu, nrhs, x, n));
  CHECK_OK(exala_stripe_lu_backward_error(lu, nrhs, b, n, x, n, &be));
  CHECK(be < pow2(-40));
  CHECK_STATUS(exala_stripe_lu_solve(lu, nrhs, x, n - 1), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ldb");
  CHECK_STATUS(exala_stripe_lu_solve_refined(lu, nrhs, b, n, x, n, 101, NULL),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("max_refine");
  CHECK_STATUS(exala_stripe_lu_solve_stored(lu, x, n * nrhs, 0, NULL, NULL),
               EXALA_ERROR_INVALID_ARGUMENT); /* in core: no stored right-hand sides */
  exala_stripe_lu_destroy(lu);
  exala_stripe_lu_destroy(NULL);

  /* bad options: enum fields and the C++ checks, named */
  lu = NULL;
  CHECK_OK(exala_stripe_lu_options_init(&opt));
  opt.order = 5;
  CHECK_STATUS(exala_stripe_lu_factor(n, a, n, &opt, &lu), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("opt->order");
  CHECK_OK(exala_stripe_lu_options_init(&opt));
  opt.pivot = -1;
  CHECK_STATUS(exala_stripe_lu_factor(n, a, n, &opt, &lu), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("opt->pivot");
  CHECK_OK(exala_stripe_lu_options_init(&opt));
  opt.engine = "gpu";
  CHECK_STATUS(exala_stripe_lu_factor(n, a, n, &opt, &lu), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("engine");
  /* the cuda engine: loaded from the plugin libexala_cuda.so where the
   * build has CUDA (on a GPU: factors whose refined solution reaches a
   * backward error <= 2^-52, as the cpu engine's do; the factors themselves
   * are cuBLAS's, not the cpu engine's bits; without a device a runtime
   * error naming CUDA), else not compiled in */
  opt.engine = "cuda";
  {
    const exala_status s = exala_stripe_lu_factor(n, a, n, &opt, &lu);
    if (exala_backend_compiled_in(EXALA_BACKEND_CUDA)) {
      CHECK(s == EXALA_SUCCESS || s == EXALA_ERROR_RUNTIME);
      if (s == EXALA_SUCCESS) {
        CHECK_OK(exala_stripe_lu_get_report(lu, &rep));
        CHECK(rep.n == n && rep.in_core == 1);
        CHECK_OK(exala_stripe_lu_solve_refined(lu, nrhs, b, n, x, n, 10, &ref));
        CHECK(ref.backward_error_after <= pow2(-52));
        CHECK_OK(exala_stripe_lu_backward_error(lu, nrhs, b, n, x, n, &be));
        CHECK(be <= pow2(-52));
        exala_stripe_lu_destroy(lu);
        lu = NULL;
      } else {
        CHECK(strstr(exala_last_error(), "CUDA") != NULL);
        CHECK(lu == NULL);
      }
    } else {
      CHECK(s == EXALA_ERROR_NOT_COMPILED_IN);
      CHECK(strstr(exala_last_error(), "cuda") != NULL);
      CHECK(lu == NULL);
    }
  }

  /* Near the ends of the range (issue 15 row 1): A = [1 0; 1 4] with
   * b = (1e308, -1e308) solves to its exact solution (1e308, -1e308/2);
   * A = 1e-300 I with b = (1, 1e300) has a solution beyond the double range:
   * EXALA_ERROR_OVERFLOW naming row 1, never an inf or NaN with success. */
  {
    const double a2[4] = {1.0, 1.0, 0.0, 4.0}, big[4] = {1e-300, 0.0, 0.0, 1e-300};
    double y[2] = {1e308, -1e308};
    exala_stripe_lu* lu2 = NULL;
    CHECK_OK(exala_stripe_lu_factor(2, a2, 2, NULL, &lu2));
    CHECK_OK(exala_stripe_lu_solve(lu2, 1, y, 2));
    CHECK(y[0] == 1e308 && y[1] == -1e308 / 2);
    exala_stripe_lu_destroy(lu2);
    lu2 = NULL;
    y[0] = 1.0;
    y[1] = 1e300;
    CHECK_OK(exala_stripe_lu_factor(2, big, 2, NULL, &lu2));
    CHECK_STATUS(exala_stripe_lu_solve(lu2, 1, y, 2), EXALA_ERROR_OVERFLOW);
    CHECK(exala_last_error_index() == 1);
    CHECK(strstr(exala_last_error(), "exceeds the double range") != NULL);
    exala_stripe_lu_destroy(lu2);
  }

  /* a singular matrix: column 2 all zero, so the pivot of column 2 is 0 */
  for (i = 0; i < n; ++i) a[2 * n + i] = 0.0;
  CHECK_STATUS(exala_stripe_lu_factor(n, a, n, NULL, &lu), EXALA_ERROR_SINGULAR_PIVOT);
  CHECK(exala_last_error_index() == 2);
  CHECK(strstr(exala_last_error(), "column 2") != NULL);
  CHECK(lu == NULL);
}

/* Removes the regular files of a scratch directory (one level), then it. */
static void remove_tree(const char* dir) {
  DIR* d = opendir(dir);
  struct dirent* e;
  char path[4096];
  if (d == NULL) return;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    if (unlink(path) != 0) remove_tree(path);
  }
  closedir(d);
  rmdir(dir);
}

static void test_stripe_lu_out_of_core(void) {
  enum { n = 150, nrhs = 2 };
  char root[] = "/tmp/exala_c_api_XXXXXX";
  char work[4200], missing[4200];
  const char* dirs[1];
  static double x[n * nrhs];
  exala_stripe_lu* lu = NULL;
  exala_stripe_lu_options opt;
  exala_stripe_lu_report rep;
  exala_refine_report ref;
  int64_t got_nrhs = 0;

  CHECK(mkdtemp(root) != NULL);
  snprintf(work, sizeof work, "%s/work", root);
  snprintf(missing, sizeof missing, "%s/missing", root);
  dirs[0] = work;
  CHECK_OK(exala_generate_dense_system(dirs, 1, n, nrhs, 42, 32, 0.0, 0));
  /* a second generation into the same set needs overwrite */
  CHECK(exala_generate_dense_system(dirs, 1, n, nrhs, 42, 32, 0.0, 0) != EXALA_SUCCESS);
  CHECK_OK(exala_generate_dense_system(dirs, 1, n, nrhs, 42, 32, 0.0, 1));

  CHECK_OK(exala_stripe_lu_options_init(&opt));
  opt.stripe = 32;
  opt.substripe = 16;
  opt.cache_bytes = 3 * 32 * n * sizeof(double); /* three stripes: really out of core */
  CHECK_OK(exala_stripe_lu_open(dirs, 1, &opt, &lu));
  CHECK_OK(exala_stripe_lu_get_report(lu, &rep));
  CHECK(rep.in_core == 0 && rep.n == n && rep.bytes_written > 0);
  CHECK_STATUS(exala_stripe_lu_solve_stored(lu, x, n * nrhs - 1, 5, &got_nrhs, &ref),
               EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("size");
  CHECK(got_nrhs == 0);
  CHECK_OK(exala_stripe_lu_solve_stored(lu, x, n * nrhs, 5, &got_nrhs, &ref));
  CHECK(got_nrhs == nrhs);
  CHECK(ref.backward_error_after <= pow2(-52));
  exala_stripe_lu_destroy(lu);
  lu = NULL;

  /* a missing work directory is a storage error (not about one stripe) */
  dirs[0] = missing;
  CHECK_STATUS(exala_stripe_lu_open(dirs, 1, NULL, &lu), EXALA_ERROR_STORAGE);
  CHECK(exala_last_error_index() == -1);
  CHECK(strstr(exala_last_error(), "missing") != NULL);
  CHECK(lu == NULL);
  CHECK_STATUS(exala_stripe_lu_open(dirs, 0, NULL, &lu), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("ndirs");
  dirs[0] = NULL;
  CHECK_STATUS(exala_stripe_lu_open(dirs, 1, NULL, &lu), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("dirs[0]");

  remove_tree(work);
  remove_tree(root);
}

/* ---------------------------------------------------------------- opencl */

static void test_opencl(void) {
  int count = -1;
  exala_status s = exala_opencl_device_count(&count);
  if (exala_backend_compiled_in(EXALA_BACKEND_OPENCL)) {
    CHECK(s == EXALA_SUCCESS && count >= 0);
    CHECK_STATUS(exala_opencl_select_device("no-such-device-xyz"), EXALA_ERROR_INVALID_ARGUMENT);
    CHECK_NAMES("spec");
  } else {
    CHECK(s == EXALA_ERROR_NOT_COMPILED_IN && count == -1);
    CHECK_STATUS(exala_opencl_select_device("0"), EXALA_ERROR_NOT_COMPILED_IN);
  }
  CHECK_STATUS(exala_opencl_select_device(NULL), EXALA_ERROR_INVALID_ARGUMENT);
  CHECK_NAMES("spec");
}

int main(void) {
  test_version();
  test_invalid_arguments();
  test_exec_and_backends();
  test_eft();
  test_superaccumulator();
  test_blas1();
  test_blas23();
  test_gemm_family();
  test_singular();
  test_solvers();
  test_stripe_lu_in_core();
  test_stripe_lu_out_of_core();
  test_opencl();
  printf("test_c_api: %d checks passed\n", checks);
  return 0;
}
