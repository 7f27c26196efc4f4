/* exala.h - the C API of ExaLA: exact, correctly rounded and reproducible
 * dense linear algebra from plain C99 (and from Fortran through the module
 * `exala`, which binds these functions directly).
 *
 * Conventions (every function):
 *  - Returns an exala_status; EXALA_SUCCESS is 0. Nothing here aborts, prints
 *    or exits: on failure the status says what kind of failure it was, and
 *    exala_last_error() gives this thread's message naming the argument and
 *    its value (as the C++ exceptions do). Outputs are written only on
 *    success, except where a function says otherwise.
 *  - Sizes, increments and leading dimensions are int64_t. Vectors are
 *    BLAS-style (n, pointer, increment; a negative increment walks backwards
 *    from x + (n-1)|inc|, as in BLAS). Matrices take a layout (row or column
 *    major) and a leading dimension, in CBLAS argument order; the enum values
 *    are CBLAS's, so CblasRowMajor etc. convert directly. No address is
 *    formed that could overflow: a matrix with more than 2^60 - 1 entries,
 *    or an increment or leading dimension whose largest element offset would
 *    pass 2^60 - 1 (INT64_MIN, 2^62, ...), gives
 *    EXALA_ERROR_INVALID_ARGUMENT naming it (e.g. 'c' for m = n = 2^32, 'lda'
 *    for lda = 2^62), before anything is read or written. One element takes
 *    any increment (it is never used).
 *  - `ex` selects the backend, the thread count, the rounding direction and
 *    the block size of one call. NULL means the process-wide default
 *    (exala_set_default_exec). The result bits never depend on the backend,
 *    the threads or the block size; only on the rounding direction.
 *  - The guarantees, error bounds and papers of each routine are those of the
 *    C++ function of the same name (exala/blas1.hpp, blas2.hpp, blas3.hpp,
 *    solvers.hpp, stripe_lu.hpp); the one-line summaries below repeat them.
 *
 * Thread safety: every function may be called from several threads at once
 * on different data; an exala_superacc or exala_stripe_lu handle must not be
 * used by two threads at the same time. The last-error message is per thread.
 */
#ifndef EXALA_H
#define EXALA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The enums below have int as their fixed underlying type in C++, so that
 * every int a C caller passes (a bad value included, which the functions
 * refuse with EXALA_ERROR_INVALID_ARGUMENT naming the argument) is a valid
 * value of the parameter's type: C++ gives an enum without a fixed type only
 * the values of its smallest bit-field, and reading any other is undefined
 * behaviour. In C they are plain enums (same size, same calling convention). */
#ifdef __cplusplus
#define EXALA_C_ENUM_(name) enum name : int
#else
#define EXALA_C_ENUM_(name) enum name
#endif

#define EXALA_VERSION_MAJOR 0
#define EXALA_VERSION_MINOR 1
#define EXALA_VERSION_PATCH 0

/* ------------------------------------------------------------------ status */

/* Every failure has a code; the values are stable (the Fortran module
 * mirrors them). */
typedef EXALA_C_ENUM_(exala_status) {
  EXALA_SUCCESS = 0,
  EXALA_ERROR_INVALID_ARGUMENT = 1, /* an argument outside its documented domain (n < 0, null
                                       pointer, lda too small, bad enum value, ...); the
                                       message names it */
  EXALA_ERROR_NOT_COMPILED_IN = 2,  /* a backend or component missing from this build */
  EXALA_ERROR_SINGULAR = 3,         /* trsv/trsm/solvers: exact zero on a non-unit diagonal;
                                       exala_last_error_index() is the 0-based row */
  EXALA_ERROR_SINGULAR_PIVOT = 4,   /* stripe LU: a zero or numerically singular pivot;
                                       exala_last_error_index() is the 0-based column */
  EXALA_ERROR_STORAGE = 5,          /* stripe LU: a file that cannot be read or written,
                                       truncated or corrupted, a full disk;
                                       exala_last_error_index() is the stripe or -1 */
  EXALA_ERROR_FORMAT = 6,           /* serialized data that cannot be decoded */
  EXALA_ERROR_OUT_OF_MEMORY = 7,    /* an allocation failed */
  EXALA_ERROR_RUNTIME = 8,          /* any other failure of a lower layer (an OpenCL or CUDA
                                       runtime error, a missing device, ...) */
  EXALA_ERROR_INTERNAL = 9,         /* an unexpected failure: a bug, please report it */
  EXALA_ERROR_OVERFLOW = 10         /* stripe LU: the solution is beyond the double range (finite
                                       A and b, scaled internally; a result is never inf or NaN
                                       silently); exala_last_error_index() is the 0-based row */
} exala_status;

/* A static string naming the status ("EXALA_ERROR_SINGULAR", ...). */
const char* exala_status_string(exala_status status);
/* This thread's message for the last failing call ("" after a success). The
 * pointer stays valid until this thread's next ExaLA call. */
const char* exala_last_error(void);
/* The row, column or stripe the last failure of this thread was about, or -1. */
int64_t exala_last_error_index(void);

/* ----------------------------------------------------------------- version */

/* "0.1.0": the version of the library actually linked (the macros above give
 * the header's). */
const char* exala_version(void);
void exala_version_numbers(int* major, int* minor, int* patch);

/* ------------------------------------------------- enums (CBLAS's values) */

typedef EXALA_C_ENUM_(exala_layout) { EXALA_ROW_MAJOR = 101, EXALA_COL_MAJOR = 102 } exala_layout;
typedef EXALA_C_ENUM_(exala_transpose) { EXALA_NO_TRANS = 111, EXALA_TRANS = 112 } exala_transpose;
typedef EXALA_C_ENUM_(exala_uplo) { EXALA_UPPER = 121, EXALA_LOWER = 122 } exala_uplo;
typedef EXALA_C_ENUM_(exala_diag) { EXALA_NON_UNIT = 131, EXALA_UNIT = 132 } exala_diag;
typedef EXALA_C_ENUM_(exala_side) { EXALA_LEFT = 141, EXALA_RIGHT = 142 } exala_side;

typedef EXALA_C_ENUM_(exala_rounding) {
  EXALA_ROUND_NEAREST_EVEN = 0, /* IEEE roundTiesToEven */
  EXALA_ROUND_TOWARD_ZERO = 1,
  EXALA_ROUND_UPWARD = 2,
  EXALA_ROUND_DOWNWARD = 3
} exala_rounding;

/* The backends (the order of the C++ X-macro EXALA_BACKENDS). */
typedef EXALA_C_ENUM_(exala_backend) {
  EXALA_BACKEND_REFERENCE = 0, /* scalar loops into a superaccumulator: the oracle */
  EXALA_BACKEND_SIMD = 1,      /* AVX-512 / AVX2 kernels chosen at run time */
  EXALA_BACKEND_OMP = 2,       /* OpenMP threads over the simd kernels */
  EXALA_BACKEND_OPENCL = 3,    /* OpenCL kernels (a build with exala::gpu) */
  EXALA_BACKEND_CUDA = 4       /* gemm on a CUDA GPU (a program linking exala::gpu_cuda) */
} exala_backend;

/* --------------------------------------------------- execution (backends) */

typedef struct exala_exec {
  int backend;      /* an exala_backend */
  int threads;      /* omp: 0..1024 (0: OpenMP's default) */
  int rounding;     /* an exala_rounding: the direction of every rounded result */
  int64_t block;    /* block size of trsv/trsm/gemm, 0: chosen (never changes the bits) */
} exala_exec;

/* Fills *ex with the library's initial defaults: simd, threads 0, to nearest
 * even, block 0 (whatever the process-wide default currently is). */
exala_status exala_exec_init(exala_exec* ex);
/* The process-wide default used when a routine gets ex == NULL. It starts as
 * exala_exec_init's values, then takes the environment variables
 * EXALA_BACKEND (reference|simd|omp|opencl|cuda) and EXALA_NUM_THREADS if set
 * (a bad value makes the first call that needs the default fail with
 * EXALA_ERROR_INVALID_ARGUMENT naming the variable). Setting it validates
 * every field (not_compiled_in for a backend missing from this build). */
exala_status exala_set_default_exec(const exala_exec* ex);
exala_status exala_get_default_exec(exala_exec* ex);
/* Shorthands changing one field of the default. */
exala_status exala_set_backend(exala_backend backend);
exala_status exala_set_threads(int threads);
/* The backend named `name` ("reference", "simd", "omp", "opencl", "cuda"). */
exala_status exala_backend_from_string(const char* name, exala_backend* backend);
/* Its name, or NULL for a value that is not a backend. */
const char* exala_backend_name(exala_backend backend);
/* 1 when compiled into this library, 0 otherwise. */
int exala_backend_compiled_in(exala_backend backend);
/* The SIMD kernel set in use: "avx512", "avx2" or "generic" (EXALA_SIMD
 * overrides the cpuid choice; it also accepts "scalar", the former name of
 * "generic"); *name is a static string. */
exala_status exala_kernel_set(const char** name);

/* ------------------------------------------------- arith: error-free transforms
 * Each gives (hi, lo) with hi + lo exactly equal to the operation's exact
 * result (for finite inputs without overflow; see exala/arith.hpp). */
exala_status exala_two_sum(double a, double b, double* s, double* e);      /* Knuth */
exala_status exala_fast_two_sum(double a, double b, double* s, double* e); /* Dekker; needs |a| >= |b| (or a == 0) */
exala_status exala_two_prod(double a, double b, double* p, double* e);     /* FMA */
exala_status exala_split(double a, double* hi, double* lo);                /* Veltkamp, 26 + 26 bits */
exala_status exala_two_product_dekker(double a, double b, double* p, double* e); /* no FMA */
/* q = fl(a / b) and r ~ (a - q b) / b: a + ... (Langlois-Louvet ApproxTwoDiv) */
exala_status exala_approx_two_div(double a, double b, double* q, double* r);

/* ----------------------------------------------- accum: superaccumulator
 * Exact for every sum of finite doubles and of products of two doubles;
 * special values (NaN, +-inf) are kept beside the digits (IEEE rules). */
typedef struct exala_superacc exala_superacc;

exala_status exala_superacc_create(exala_superacc** acc);  /* holds exact zero */
void exala_superacc_destroy(exala_superacc* acc);          /* NULL is fine */
exala_status exala_superacc_clear(exala_superacc* acc);
exala_status exala_superacc_copy(const exala_superacc* src, exala_superacc* dst);
exala_status exala_superacc_add(exala_superacc* acc, double x);
exala_status exala_superacc_add_product(exala_superacc* acc, double a, double b);
/* acc += other (exact; associative and commutative). */
exala_status exala_superacc_merge(exala_superacc* acc, const exala_superacc* other);
exala_status exala_superacc_negate(exala_superacc* acc);
/* -1, 0 or +1: the sign of the exact finite value (special values ignored). */
exala_status exala_superacc_sign(const exala_superacc* acc, int* sign);
/* The exact value rounded once in `mode`. */
exala_status exala_superacc_round(const exala_superacc* acc, exala_rounding mode, double* result);
/* The exact square root of the value rounded once (NaN for a negative value). */
exala_status exala_superacc_round_sqrt(const exala_superacc* acc, exala_rounding mode,
                                       double* result);
/* 1 when both hold the same exact value and the same special flags. */
exala_status exala_superacc_equal(const exala_superacc* a, const exala_superacc* b, int* equal);
/* Serialized form: exala_superacc_serialized_size() bytes, platform independent
 * (little-endian, versioned); for files and MPI reductions. */
size_t exala_superacc_serialized_size(void);
exala_status exala_superacc_serialize(const exala_superacc* acc, void* buffer, size_t size);
/* EXALA_ERROR_FORMAT for data that is not a serialized accumulator, or whose
 * digits or flags break the invariant of exala/superaccumulator.hpp (every
 * accepted state merges with any other without overflow). */
exala_status exala_superacc_deserialize(const void* buffer, size_t size, exala_superacc** acc);
/* round(alpha * S + beta * c) and round(S / d), each rounded once from the
 * exact value (exala/exact_ops.hpp). */
exala_status exala_round_axpby(double alpha, const exala_superacc* s, double beta, double c,
                               exala_rounding mode, double* result);
exala_status exala_round_div(const exala_superacc* s, double d, exala_rounding mode,
                             double* result);

/* ------------------------------------------------------------------ blas1
 * sum, asum, dot, nrm2: correctly rounded (one rounding of the exact value in
 * ex->rounding; nrm2: of the exact square root). */
exala_status exala_sum(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                       double* result);
exala_status exala_asum(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                        double* result);
exala_status exala_dot(int64_t n, const double* x, int64_t incx, const double* y, int64_t incy,
                       const exala_exec* ex, double* result);
exala_status exala_nrm2(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                        double* result);
/* The exact values added into an accumulator (for blocked and distributed sums). */
exala_status exala_sum_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                            const exala_exec* ex);
exala_status exala_asum_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                             const exala_exec* ex);
exala_status exala_dot_into(exala_superacc* acc, int64_t n, const double* x, int64_t incx,
                            const double* y, int64_t incy, const exala_exec* ex);
/* y = fl(alpha x + y), one rounding per element (to nearest only). */
exala_status exala_axpy(int64_t n, double alpha, const double* x, int64_t incx, double* y,
                        int64_t incy, const exala_exec* ex);
exala_status exala_scal(int64_t n, double alpha, double* x, int64_t incx, const exala_exec* ex);
exala_status exala_copy(int64_t n, const double* x, int64_t incx, double* y, int64_t incy,
                        const exala_exec* ex);
exala_status exala_swap(int64_t n, double* x, int64_t incx, double* y, int64_t incy,
                        const exala_exec* ex);
/* 0-based index of the first largest |x_i| (first NaN if any), -1 for n == 0. */
exala_status exala_iamax(int64_t n, const double* x, int64_t incx, const exala_exec* ex,
                         int64_t* index);

/* Modified Givens rotation (H from param, flag param[0] in -2, -1, 0, 1 as
 * reference BLAS drotm): each x_i', y_i' ONE rounding of the exact two-term
 * sum h11 x_i + h12 y_i, h21 x_i + h22 y_i (another flag:
 * EXALA_ERROR_INVALID_ARGUMENT naming param). */
exala_status exala_rotm(int64_t n, double* x, int64_t incx, double* y, int64_t incy,
                        const double* param, const exala_exec* ex);
/* Givens rotation (reference BLAS 3.10 drotg rules for a = 0, b = 0, the sign
 * of r and z): r = sign * the correctly rounded sqrt(a^2 + b^2); c = a / r,
 * s = b / r IEEE quotients by that rounded r (not correctly rounded
 * themselves); on return *a = r, *b = z. */
exala_status exala_rotg(double* a, double* b, double* c, double* s, const exala_exec* ex);

/* ------------------------------------------------------------------ blas2 */
/* y = alpha op(A) x + beta y, each y_i rounded once from the exact value. */
exala_status exala_gemv(exala_layout layout, exala_transpose trans, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, const double* x, int64_t incx,
                        double beta, double* y, int64_t incy, const exala_exec* ex);
/* op(A) x = b in place; each x_i the correctly rounded quotient of its exact
 * numerator (reproducible; exact when the solution is representable). */
exala_status exala_trsv(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                        exala_diag diag, int64_t n, const double* a, int64_t lda, double* x,
                        int64_t incx, const exala_exec* ex);

/* Symmetric rank-1 / rank-2 updates of the uplo triangle of the n x n A (the
 * other triangle is not touched): a_ij = round(a_ij + alpha x_i x_j), and
 * round(a_ij + alpha (x_i y_j + y_i x_j)), one rounding of the exact value
 * (gemm entries with k = 1, 2 and beta = 1). alpha == 0 returns at once. */
exala_status exala_syr(exala_layout layout, exala_uplo uplo, int64_t n, double alpha,
                       const double* x, int64_t incx, double* a, int64_t lda,
                       const exala_exec* ex);
exala_status exala_syr2(exala_layout layout, exala_uplo uplo, int64_t n, double alpha,
                        const double* x, int64_t incx, const double* y, int64_t incy, double* a,
                        int64_t lda, const exala_exec* ex);

/* ------------------------------------------------------------------ blas3 */
/* C = alpha op(A) op(B) + beta C, each C_ij rounded once from the exact value. */
exala_status exala_gemm(exala_layout layout, exala_transpose transa, exala_transpose transb,
                        int64_t m, int64_t n, int64_t k, double alpha, const double* a,
                        int64_t lda, const double* b, int64_t ldb, double beta, double* c,
                        int64_t ldc, const exala_exec* ex);
/* op(A) X = alpha B or X op(A) = alpha B in place; every column/row as trsv. */
exala_status exala_trsm(exala_layout layout, exala_side side, exala_uplo uplo,
                        exala_transpose trans, exala_diag diag, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, double* b, int64_t ldb,
                        const exala_exec* ex);

/* The gemm family: every result entry is one gemm entry (rounded once from
 * the exact value), conventions as exala_gemm (alpha == 0: A, B not read;
 * beta == 0: C not read). syrk / syr2k write only the uplo triangle of C:
 * alpha op(A) op(A)^T + beta C, and alpha (op(A) op(B)^T + op(B) op(A)^T) +
 * beta C with ONE rounding per entry; op(A) is n x k. */
exala_status exala_syrk(exala_layout layout, exala_uplo uplo, exala_transpose trans, int64_t n,
                        int64_t k, double alpha, const double* a, int64_t lda, double beta,
                        double* c, int64_t ldc, const exala_exec* ex);
exala_status exala_syr2k(exala_layout layout, exala_uplo uplo, exala_transpose trans, int64_t n,
                         int64_t k, double alpha, const double* a, int64_t lda, const double* b,
                         int64_t ldb, double beta, double* c, int64_t ldc, const exala_exec* ex);
/* C = alpha A B + beta C (left) or alpha B A + beta C (right); A symmetric,
 * its uplo triangle read; B and C m x n. */
exala_status exala_symm(exala_layout layout, exala_side side, exala_uplo uplo, int64_t m,
                        int64_t n, double alpha, const double* a, int64_t lda, const double* b,
                        int64_t ldb, double beta, double* c, int64_t ldc, const exala_exec* ex);
/* B = alpha op(T) B (left) or alpha B op(T) (right) in place; T triangular
 * (zeros outside the uplo triangle enter the products: inf in B times them
 * gives NaN, as gemm with the full matrix). */
exala_status exala_trmm(exala_layout layout, exala_side side, exala_uplo uplo,
                        exala_transpose trans, exala_diag diag, int64_t m, int64_t n,
                        double alpha, const double* a, int64_t lda, double* b, int64_t ldb,
                        const exala_exec* ex);

/* ---------------------------------------------------------------- solvers */
/* Compensated (CENA, Langlois-Louvet) and double-double triangular solves:
 * ~ u + n cond u^2, the same bits on every kernel set. */
exala_status exala_trsv_compensated(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                                    exala_diag diag, int64_t n, const double* a, int64_t lda,
                                    double* x, int64_t incx);
exala_status exala_trsv_double_double(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, double* x, int64_t incx);
/* exala_trsv, then refinement with the exact residual; <= 1 ulp while
 * cond u < 1/n. steps / converged may be NULL. max_steps 0..100. */
exala_status exala_trsv_exact_refined(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, double* x, int64_t incx,
                                      int max_steps, const exala_exec* ex, int* steps,
                                      int* converged);
/* Skeel's cond(op(A), x). */
exala_status exala_skeel_condition(exala_layout layout, exala_uplo uplo, exala_transpose trans,
                                   exala_diag diag, int64_t n, const double* a, int64_t lda,
                                   const double* x, int64_t incx, double* result);
/* An ill-conditioned lower-triangular test system with exact data: t gets n*n
 * doubles (row-major, strict upper triangle zero), b gets n. */
exala_status exala_generate_ill_conditioned_trsv(int64_t n, double cond, uint64_t seed,
                                                 double* t, double* b);
/* The exact solution rounded to nearest, computed in MPFR (precision 0:
 * adaptive); x gets n doubles (contiguous). EXALA_ERROR_NOT_COMPILED_IN
 * without MPFR. */
exala_status exala_trsv_mpfr_solution(exala_layout layout, exala_uplo uplo,
                                      exala_transpose trans, exala_diag diag, int64_t n,
                                      const double* a, int64_t lda, const double* b, int64_t incb,
                                      int precision, double* x);

/* --------------------------------------------------- solvers: stripe LU
 * Out-of-core (or in-core) Gauss elimination by stripes of rows; reproducible
 * (bits independent of threads, cache, order, resume); see exala/stripe_lu.hpp. */
typedef EXALA_C_ENUM_(exala_stripe_order) {
  EXALA_ORDER_BASIC = 0,
  EXALA_ORDER_ZIGZAG = 1,
  EXALA_ORDER_META_ZIGZAG = 2
} exala_stripe_order;
typedef EXALA_C_ENUM_(exala_pivoting) { EXALA_PIVOT_LOCAL = 0, EXALA_PIVOT_PARTIAL = 1 } exala_pivoting;
#undef EXALA_C_ENUM_

typedef struct exala_stripe_lu_progress {
  const char* phase; /* "factor", "solve", "refine" */
  int64_t step, steps;
  double fraction, elapsed_s, eta_s, gflops, io_read_mbs, io_write_mbs;
  int64_t cache_hits, cache_misses;
} exala_stripe_lu_progress;

typedef struct exala_stripe_lu_options {
  int64_t stripe;        /* S rows per stripe; 0: chosen */
  int64_t substripe;     /* S' rows; 0: min(S, 128) */
  int64_t meta;          /* stripes per meta-stripe; 0: chosen */
  int order;             /* an exala_stripe_order */
  int pivot;             /* an exala_pivoting */
  uint64_t cache_bytes;  /* host cache budget; 0: unlimited */
  int threads;           /* engine threads; 0: all */
  int io_threads;
  int sync;              /* fsync before every rename */
  int drop_page_cache;
  int resume;            /* continue a matching partial run */
  double pivot_threshold;        /* < 0: n u max|a_ij|; 0: exact zeros only */
  double checkpoint_interval_s;
  const char* engine;            /* "cpu" or "cuda"; NULL: "cpu" */
  /* Called from the computing thread; NULL: none. */
  void (*on_progress)(const exala_stripe_lu_progress* progress, void* user);
  void* user;
  double progress_interval_s;
} exala_stripe_lu_options;

typedef struct exala_stripe_lu_report {
  int64_t n, stripe, substripe, meta;
  int in_core, resumed;
  int64_t groups_resumed;
  double factor_seconds, factor_gflops;
  int64_t bytes_read, bytes_written, cache_hits, cache_misses;
  uint64_t peak_cache_bytes;
  double min_pivot_ratio, io_wait_seconds;
} exala_stripe_lu_report;

typedef struct exala_refine_report {
  int steps, converged;
  double backward_error_before, backward_error_after, seconds;
} exala_refine_report;

typedef struct exala_stripe_lu exala_stripe_lu;

/* The C++ defaults (stripe 0, order zigzag, local pivoting, io_threads 2,
 * resume 1, pivot_threshold -1, checkpoint 30 s, engine "cpu", 0.5 s). */
exala_status exala_stripe_lu_options_init(exala_stripe_lu_options* opt);
/* In core: factors the n x n column-major a (copied). opt NULL: defaults. */
exala_status exala_stripe_lu_factor(int64_t n, const double* a, int64_t lda,
                                    const exala_stripe_lu_options* opt, exala_stripe_lu** lu);
/* Out of core: the system stored in ndirs work directories (dirs[0] holds
 * the manifest), resuming a partial run when opt->resume. */
exala_status exala_stripe_lu_open(const char* const* dirs, int ndirs,
                                  const exala_stripe_lu_options* opt, exala_stripe_lu** lu);
void exala_stripe_lu_destroy(exala_stripe_lu* lu); /* NULL is fine */
exala_status exala_stripe_lu_n(const exala_stripe_lu* lu, int64_t* n);
exala_status exala_stripe_lu_get_report(const exala_stripe_lu* lu, exala_stripe_lu_report* report);
/* b (n x nrhs, column-major, ldb) := A^-1 b with the factors. */
exala_status exala_stripe_lu_solve(const exala_stripe_lu* lu, int64_t nrhs, double* b,
                                   int64_t ldb);
/* x := the solution refined against the exact residual (max_refine 0..100);
 * report may be NULL. */
exala_status exala_stripe_lu_solve_refined(const exala_stripe_lu* lu, int64_t nrhs,
                                           const double* b, int64_t ldb, double* x, int64_t ldx,
                                           int max_refine, exala_refine_report* report);
/* Out of core: the stored right-hand sides solved; x gets n*nrhs doubles
 * (ld = n); *nrhs (may be NULL) their count. */
exala_status exala_stripe_lu_solve_stored(const exala_stripe_lu* lu, double* x, int64_t size,
                                          int max_refine, int64_t* nrhs,
                                          exala_refine_report* report);
/* Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||), exact residual. */
exala_status exala_stripe_lu_backward_error(const exala_stripe_lu* lu, int64_t nrhs,
                                            const double* b, int64_t ldb, const double* x,
                                            int64_t ldx, double* result);
/* A random dense system written as stripe files into the directories:
 * cond == 0: entries uniform in [-0.5, 0.5]; cond >= 1: 2-norm condition ~
 * cond. Also writes x_true and B = A x_true (nrhs columns). */
exala_status exala_generate_dense_system(const char* const* dirs, int ndirs, int64_t n,
                                         int64_t nrhs, uint64_t seed, int64_t stripe, double cond,
                                         int overwrite);

/* ---------------------------------------------------------------- opencl */
/* The OpenCL devices (EXALA_ERROR_NOT_COMPILED_IN without exala::gpu). */
exala_status exala_opencl_device_count(int* count);
/* Chooses the device for backend opencl by a spec as EXALA_OPENCL_DEVICE:
 * "P:D" (platform and device indices), "P", or a case-insensitive substring
 * of the platform or device name ("pocl", "NVIDIA"). */
exala_status exala_opencl_select_device(const char* spec);

#ifdef __cplusplus
}
#endif

#endif /* EXALA_H */
