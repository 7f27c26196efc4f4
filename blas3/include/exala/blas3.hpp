// exala/blas3.hpp - correctly rounded gemm and reproducible trsm.
//
// gemm: C_ij = round(alpha * sum_l op(A)_il op(B)_lj + beta * C_ij), each
// entry rounded once from the exact value (error <= 1/2 ulp to nearest, < 1
// ulp in the directed modes; bit-identical to exala::round_axpby on an exact
// accumulator, which is what the reference backend does), so every backend,
// thread count, SIMD kernel set and block size gives the same bits.
// The simd and omp backends find the exact sums with the integer-modular
// form of the Ozaki scheme (error-free transformation of the operands into
// integers, products by ordinary blocked DGEMMs that make no rounding error:
// Ozaki, Ogita, Oishi, Rump, "Error-free transformations of matrix
// multiplication by using fast routines of matrix multiplication and its
// applications", Numer. Algorithms 2012; Ozaki, Uchino, Imamura, "Ozaki
// Scheme II: a GEMM-oriented emulation of floating-point matrix
// multiplication using an integer modular technique", 2025): each row of
// op(A) and column of op(B) is scaled to integers, their products are
// formed modulo up to 10 primes below 2^24 by exact residue DGEMMs
// (AVX-512, AVX2 or portable kernels), and the Chinese remainder theorem
// gives the exact integer sums. Rows or columns spanning more than 97 bits
// (e.g. data over 2^-200..2^200) are truncated with a rigorous error bound,
// and an entry is accepted only where the bound cannot change its rounding;
// the few others, and the rows and columns holding inf or NaN, get an exact
// dot product into a superaccumulator. The rounding of each entry is
// decided from a double-double of the exact sum with a proven bound (in
// SIMD lanes where alpha and beta are powers of two, to nearest; Ziv's
// strategy), the multi-limb integer rounding taking only what that leaves.
// Cost: 5 residue DGEMMs for 53-bit data at k <= 2^11 (more for wider data
// or larger k), each about 1.1x a DGEMM on AVX2 (6.2-7.1x OpenBLAS's dgemm
// at n = 500-2000, 1 and 2 threads; 14x on data over 2^-200..2^200), and
// a few ns per entry for the reconstruction and the rounding; workspace
// about (8 + 8 x moduli) x 576 x 768 bytes per thread, kept between calls.
//
// trsm: solves op(A) X = alpha B (side left) or X op(A) = alpha B (side right)
// in place (B holds the right-hand sides on entry and X on exit). Every
// column (left) or row (right) of X is what exala::trsv gives for that
// right-hand side, with alpha * b_i entering the exact numerator as an exact
// product: x_i = round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii). With
// alpha == 1 the bits equal trsv's, for every backend, thread count and block.
// simd/omp with 4 or more right-hand sides solve by blocks of 512 rows: the
// known part of the numerators by the gemm engine (unrounded, with a bound),
// the diagonal block 16 right-hand sides at a time in SIMD lanes, quotients
// decided from the bound and the undecided ones from the exact numerator
// (src/trsm.cpp): 8-10x OpenBLAS's dtrsm at n = 2000 and at 64 x 2000.
//
// Conventions follow CBLAS (cblas_dgemm / cblas_dtrsm argument order), with
// the same differences from reference BLAS as exala/blas2.hpp: k == 0 still
// gives C = round(beta * C); alpha == 0 reads neither A nor B; beta == 0 does
// not read C on entry; trsm with alpha == 0 sets X = 0 without reading A.
// Bad arguments throw exala::invalid_argument naming the argument; an exact
// zero on a non-unit diagonal throws exala::singular_matrix naming the row.
// Every operand's extent is checked first, read or not (exala/checked.hpp):
// more than 2^60 - 1 entries names the matrix ("a", "b", "c": e.g.
// m = n = 2^32 with k = 0, whose C has 2^64 entries), an address span
// beyond that names its leading dimension.
// Aliasing: gemm's C must not overlap A or B, and trsm's B must not overlap
// A (the result is then undefined; the Eigen adapters copy first).
#pragma once

#include <cstddef>
#include <cstdint>

#include "exala/blas2.hpp"

namespace exala {

enum class side { left, right };

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n.
// Leading dimensions as CBLAS: lda >= max(1, rows of A as stored in `lay`)
// (col-major: m, or k transposed; row-major: k, or m transposed), likewise
// ldb, and ldc >= max(1, m) col-major, max(1, n) row-major. A and B may be
// null when alpha == 0 or k == 0; C is written only in its m x n entries.
// beta == 0 adds the term beta * C as +0, as round_axpby(alpha, S, 0, 0):
// an exact zero alpha * S gives +0 (-0 downward) unless both zeros are -0.
void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
          double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
          double beta, double* c, std::int64_t ldc, const exec& ex = {});

// B := X with op(A) X = alpha B (left; A is m x m) or X op(A) = alpha B
// (right; A is n x n); B is m x n. lda >= max(1, order of A); ldb >=
// max(1, m) col-major, max(1, n) row-major. Only the `ul` triangle of A is
// read (not its diagonal with diag::unit). The diagonal is checked before B
// is touched: on singular_matrix (the first zero, 0-based row) B is unchanged.
void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const double* a, std::int64_t lda, double* b, std::int64_t ldb,
          const exec& ex = {});

// ------------------------------------------------------------ the gemm family
// Every routine below computes each result entry as ONE gemm entry of the
// contract above (round(alpha * S + beta * c), S exact, one rounding in
// exec.mode), so its bits are those of exala::gemm on the equivalent full
// problem, on every backend, thread count, kernel set and block. Same
// conventions as gemm: alpha == 0 (or k == 0) reads neither A nor B and
// gives round(beta * c); beta == 0 does not read C (its term is +0);
// arguments are checked (names and extents) before anything is read or
// written; row-major calls are the column-major call on the transposed
// problem (uplo and side flip), as CBLAS defines them. Outputs must not
// overlap inputs (except where the routine works in place).

// C := alpha op(A) op(A)^T + beta C on the `ul` triangle of the n x n C
// (the diagonal included); the other triangle is neither read nor written.
// op(A) is n x k: A is n x k (trans none) or k x n (trans), lda as gemm.
// Only the triangle is computed: column panels of C, the rectangle beside
// the diagonal block by gemm straight into C, the diagonal block through a
// small scratch block (about half the products of the full gemm).
void syrk(layout lay, uplo ul, transpose trans, std::int64_t n, std::int64_t k, double alpha,
          const double* a, std::int64_t lda, double beta, double* c, std::int64_t ldc,
          const exec& ex = {});

// C := alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C on the `ul` triangle,
// each entry ONE rounding of the exact value: the gemm with k' = 2k of the
// concatenations [op(A) op(B)] and [op(B) op(A)] (built in scratch: 4 n k
// doubles), the triangle as syrk. A and B as
// syrk's A, with lda and ldb.
void syr2k(layout lay, uplo ul, transpose trans, std::int64_t n, std::int64_t k, double alpha,
           const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
           double* c, std::int64_t ldc, const exec& ex = {});

// C := alpha A B + beta C (side left: A is m x m) or alpha B A + beta C
// (right: A is n x n); A symmetric, only its `ul` triangle read; B and C are
// m x n. Each entry the gemm entry of the full symmetric matrix (expanded
// once into scratch: order^2 doubles).
void symm(layout lay, side sd, uplo ul, std::int64_t m, std::int64_t n, double alpha,
          const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta,
          double* c, std::int64_t ldc, const exec& ex = {});

// B := alpha op(T) B (left: T is m x m) or alpha B op(T) (right: T is
// n x n), in place; T triangular, only its `ul` triangle read (not the
// diagonal with diag::unit, taken as 1). Each entry is the gemm entry
// round(alpha * sum_l op(T)_il b_lj) (beta = 0) of the FULL triangular
// matrix, its other triangle +0: as in gemm, an inf or NaN of B times such
// a zero gives NaN. B is copied to scratch (m n doubles). Where B is finite
// and the direction is not downward, the zeros cannot change a result bit,
// and only the nonzero slice of op(T) enters each block of about m / 8
// (n / 8) rows (columns) of the result: about 9/16 of the full gemm's products.
// alpha == 0 sets B = +0 without reading T. Lda and ldb as trsm.
void trmm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const double* a, std::int64_t lda, double* b, std::int64_t ldb,
          const exec& ex = {});

// Level-2 rank updates of a symmetric matrix, here because each entry is a
// gemm entry (k = 1 or 2, beta = 1; blas2 does not link blas3):
// syr:  a_ij := round(a_ij + alpha x_i x_j), the triple product exact;
// syr2: a_ij := round(a_ij + alpha (x_i y_j + y_i x_j)), one rounding;
// on the `ul` triangle of the n x n A only (the other is not touched).
// Vectors as exala::gemv's (negative increments walk backwards; 0 is
// accepted for these read-only vectors). alpha == 0 returns at once.
void syr(layout lay, uplo ul, std::int64_t n, double alpha, const double* x, std::int64_t incx,
         double* a, std::int64_t lda, const exec& ex = {});
void syr2(layout lay, uplo ul, std::int64_t n, double alpha, const double* x, std::int64_t incx,
          const double* y, std::int64_t incy, double* a, std::int64_t lda, const exec& ex = {});

namespace detail {
// Which path the last gemm call on this thread took through the exact engine
// of the simd and omp backends (for tests and benchmarks: results never depend
// on it). moduli: residue DGEMMs (0: the engine did not run: reference
// backend, alpha == 0, k == 0 or an empty C); width_a / width_b: bits of the
// scaled integer rows of op(A) / columns of op(B); truncated: some rows or
// columns were wider and took the verified truncated path; exact_dot_entries:
// entries computed one by one instead (inf/NaN in their row or column, or a
// truncation bound that left the rounding undecided): by the bounded Dot2
// path where it decides, else by an exact dot product;
// zero_entries: small-product entries whose products were all exact zeros,
// finished without an accumulator.
struct gemm_path {
  int moduli = 0;
  int width_a = 0, width_b = 0;
  bool truncated = false;
  std::int64_t exact_dot_entries = 0;
  std::int64_t zero_entries = 0;
};
gemm_path last_gemm_path() noexcept;
// Products of at most this many multiplications (m n k, with k <= 1024) take
// the bounded Dot2 path instead of the CRT engine (simd/omp; default 2^21,
// where it measured faster than the engine on this 2-core AVX2 machine;
// last_gemm_path() then reports only exact_dot_entries, the entries the
// bound could not decide). Returns the previous limit; 0 sends every
// product to the engine (tests of the engine's own paths).
std::int64_t set_small_gemm_limit(std::int64_t products) noexcept;
// The blocked trsm (simd, omp) solves its right-hand sides in chunks whose
// solution buffer (order x chunk doubles) stays within this many bytes
// (default 256 MiB; at least one group of SIMD lanes per chunk). Returns the
// previous value; tests make it small to run several chunks. Never changes bits.
std::size_t set_trsm_chunk_bytes(std::size_t bytes) noexcept;
}  // namespace detail

}  // namespace exala
