// exala/blas3.hpp - correctly rounded gemm and reproducible trsm.
//
// gemm: C_ij = round(alpha * sum_l op(A)_il op(B)_lj + beta * C_ij), each
// entry rounded once from the exact value (exala::round_axpby), so every
// backend, thread count and block size gives the same bits. The exact sums
// come from error-free splitting of A and B into slices whose products an
// ordinary blocked DGEMM forms without error (Ozaki, Ogita, Oishi, Rump,
// "Error-free transformations of matrix multiplication by using fast routines
// of matrix multiplication and its applications", Numer. Algorithms 2012),
// the slice products accumulated exactly, with the multi-level accumulator
// as the fallback where the dynamic range needs it.
//
// trsm: solves op(A) X = alpha B (side left) or X op(A) = alpha B (side right)
// in place (B holds the right-hand sides on entry and X on exit). Every
// column (left) or row (right) of X is what exala::trsv gives for that
// right-hand side, with alpha * b_i entering the exact numerator as an exact
// product: x_i = round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii). With
// alpha == 1 the bits equal trsv's, for every backend, thread count and block.
//
// Conventions follow CBLAS (cblas_dgemm / cblas_dtrsm argument order), with
// the same differences from reference BLAS as exala/blas2.hpp: k == 0 still
// gives C = round(beta * C); alpha == 0 reads neither A nor B; beta == 0 does
// not read C on entry; trsm with alpha == 0 sets X = 0 without reading A.
// Bad arguments throw exala::invalid_argument naming the argument; an exact
// zero on a non-unit diagonal throws exala::singular_matrix naming the row.
#pragma once

#include <cstdint>

#include "exala/blas2.hpp"

namespace exala {

enum class side { left, right };

// C = alpha * op(A) * op(B) + beta * C with op(A) m x k, op(B) k x n, C m x n.
void gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n, std::int64_t k,
          double alpha, const double* a, std::int64_t lda, const double* b, std::int64_t ldb,
          double beta, double* c, std::int64_t ldc, const exec& ex = {});

// B := X with op(A) X = alpha B (left; A is m x m) or X op(A) = alpha B
// (right; A is n x n); B is m x n.
void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const double* a, std::int64_t lda, double* b, std::int64_t ldb,
          const exec& ex = {});

namespace detail {
// Which path the last gemm call on this thread took through the exact engine
// of the simd and omp backends (for tests and benchmarks: results never depend
// on it). moduli: residue DGEMMs (0: the engine did not run: reference
// backend, alpha == 0, k == 0 or an empty C); width_a / width_b: bits of the
// scaled integer rows of op(A) / columns of op(B); truncated: some rows or
// columns were wider and took the verified truncated path; exact_dot_entries:
// entries computed by an exact dot product instead (inf/NaN in their row or
// column, or a truncation bound that left the rounding undecided).
struct gemm_path {
  int moduli = 0;
  int width_a = 0, width_b = 0;
  bool truncated = false;
  std::int64_t exact_dot_entries = 0;
};
gemm_path last_gemm_path() noexcept;
}  // namespace detail

}  // namespace exala
