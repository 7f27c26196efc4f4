/* example.c - ExaLA from C in three steps: an exact dot product where
 * ordinary floating-point summation fails, a correctly rounded matrix-vector
 * product, and the error model (a status code plus a message naming the bad
 * argument). Build: cc -std=c99 example.c -lexala
 * Exits with 0 when every result is the one stated in the comments. */
#include <stdio.h>

#include "exala.h"

int main(void) {
  int ok = 1;
  exala_status status;

  /* 1. Exact dot product. 1e16 * 1 + 1 * 1 - 1e16 * 1 is exactly 1, but a
   *    plain loop loses the 1 (1e16 + 1 is not a double) and prints 0. */
  double x[3] = {1e16, 1.0, -1e16};
  double ones[3] = {1.0, 1.0, 1.0};
  double naive = 0.0, dot = 0.0;
  int i;
  for (i = 0; i < 3; ++i) naive += x[i] * ones[i];
  status = exala_dot(3, x, 1, ones, 1, NULL, &dot); /* NULL: the default backend */
  if (status != EXALA_SUCCESS) {
    fprintf(stderr, "exala_dot failed: %s\n", exala_last_error());
    return 1;
  }
  printf("dot: naive loop %g, exala_dot %g\n", naive, dot);
  ok = ok && dot == 1.0;

  /* 2. Correctly rounded gemv: y = A x for the 2 x 3 row-major matrix A.
   *    Each y_i is the exact value rounded once: y_0 = 1 exactly again, and
   *    y_1 is the double nearest to the exact sum of the three doubles
   *    0.1, 0.2 and 0.3 (upward and downward rounding bracket it). */
  {
    const double a[6] = {1e16, 1.0, -1e16,
                         0.1,  0.2, 0.3};
    double y[2] = {0.0, 0.0}, up[2], down[2];
    exala_exec ex;
    status = exala_gemv(EXALA_ROW_MAJOR, EXALA_NO_TRANS, 2, 3, 1.0, a, 3, ones, 1, 0.0, y, 1, NULL);
    if (status != EXALA_SUCCESS) {
      fprintf(stderr, "exala_gemv failed: %s\n", exala_last_error());
      return 1;
    }
    exala_exec_init(&ex);
    ex.rounding = EXALA_ROUND_UPWARD;
    exala_gemv(EXALA_ROW_MAJOR, EXALA_NO_TRANS, 2, 3, 1.0, a, 3, ones, 1, 0.0, up, 1, &ex);
    ex.rounding = EXALA_ROUND_DOWNWARD;
    exala_gemv(EXALA_ROW_MAJOR, EXALA_NO_TRANS, 2, 3, 1.0, a, 3, ones, 1, 0.0, down, 1, &ex);
    printf("gemv: y = [%.17g, %.17g]; y_1 lies in [%.17g, %.17g]\n", y[0], y[1], down[1], up[1]);
    ok = ok && y[0] == 1.0 && down[1] <= y[1] && y[1] <= up[1] && down[1] < up[1];
  }

  /* 3. Errors: a status, and a message naming the argument. Here the leading
   *    dimension 2 is too small for rows of 3; y is left untouched. */
  {
    const double a[6] = {1, 2, 3, 4, 5, 6};
    double y[2] = {-1.0, -1.0};
    status = exala_gemv(EXALA_ROW_MAJOR, EXALA_NO_TRANS, 2, 3, 1.0, a, 2, ones, 1, 0.0, y, 1, NULL);
    printf("bad lda: %s: %s\n", exala_status_string(status), exala_last_error());
    ok = ok && status == EXALA_ERROR_INVALID_ARGUMENT && y[0] == -1.0;
  }

  printf("libexala %s: %s\n", exala_version(), ok ? "all results as expected" : "UNEXPECTED RESULT");
  return ok ? 0 : 1;
}
