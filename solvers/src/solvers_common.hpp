// Internal to exala::solvers: argument checks shared by every solver, the
// canonical form of a triangular operand, and BLAS-stride gather/scatter.
//
// Canonical form. The 8 variants (uplo x trans x diag) in both layouts reduce
// to two facts about op(A):
//  * lower: op(A) is lower triangular (uplo == lower XOR trans == trans);
//    the substitution then runs i = 0, 1, ..., n-1, otherwise n-1, ..., 0;
//  * rows: the rows of op(A) are contiguous in memory (row_major XOR trans),
//    so op(A)_ij = a[i*lda + j]; otherwise the columns are, and
//    op(A)_ij = a[j*lda + i].
// In both cases op(A)_ii = a[i*lda + i]. A lower row-major matrix and the same
// memory read as upper column-major transposed are therefore the same
// canonical operand, and every solver gives them the same bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "exala/blas2.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "trsv_kernels.hpp"

namespace exala::solvers_detail {

struct canonical {
  const double* a;
  std::int64_t lda;
  std::int64_t n;
  bool lower;  // op(A) lower triangular
  bool rows;   // rows of op(A) contiguous
  bool unit;   // diagonal taken as 1, not read
};

inline std::string str(std::int64_t v) { return std::to_string(v); }

inline void check_enums(layout lay, uplo ul, transpose trans, diag dg) {
  if (lay != layout::row_major && lay != layout::col_major)
    throw invalid_argument("layout", "is not row_major or col_major (value " +
                                         str(static_cast<int>(lay)) + ")");
  if (ul != uplo::upper && ul != uplo::lower)
    throw invalid_argument("uplo", "is not upper or lower (value " + str(static_cast<int>(ul)) + ")");
  if (trans != transpose::none && trans != transpose::trans)
    throw invalid_argument("trans", "is not none or trans (value " +
                                        str(static_cast<int>(trans)) + ")");
  if (dg != diag::non_unit && dg != diag::unit)
    throw invalid_argument("diag", "is not non_unit or unit (value " + str(static_cast<int>(dg)) + ")");
}

// The checks of every solver: enums, n >= 0, lda >= max(1, n), the extent of
// A and of the vector (checked arithmetic), null pointers (only when n > 0),
// and the increment of the vector (0 is refused for a written vector with
// n > 1; a read-only vector may repeat its one element).
inline void check_args(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                       const double* a, std::int64_t lda, const void* x, std::int64_t incx,
                       const char* xname, const char* incname, bool written) {
  check_enums(lay, ul, trans, dg);
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + str(n));
  const std::int64_t min_lda = n > 1 ? n : 1;
  if (lda < min_lda)
    throw invalid_argument("lda", "must be >= max(1, n) = " + str(min_lda) + ", got " + str(lda));
  // The n x n matrix and the vector within 2^60 - 1 elements of address
  // span (exala/checked.hpp): no index i * lda + j or i * inc below overflows.
  detail::check_matrix_extent("a", "lda", lay == layout::row_major, n, n, lda);
  detail::check_vector_span(incname, n, incx);
  if (n > 0 && a == nullptr) throw invalid_argument("a", "is a null pointer with n = " + str(n));
  if (n > 0 && x == nullptr) throw invalid_argument(xname, "is a null pointer with n = " + str(n));
  if (written && incx == 0 && n > 1)
    throw invalid_argument(incname, "is 0 for a vector that is written, with n = " + str(n) +
                                        " (the result would depend on the order)");
}

inline canonical make_canonical(layout lay, uplo ul, transpose trans, diag dg, std::int64_t n,
                                const double* a, std::int64_t lda) {
  const bool t = trans == transpose::trans;
  return canonical{a, lda, n, (ul == uplo::lower) != t, (lay == layout::row_major) != t,
                   dg == diag::unit};
}

// Throws singular_matrix naming the smallest row with an exact zero (either
// sign) on a non-unit diagonal, before anything is written (as exala::trsv).
inline void check_diagonal(const canonical& c, const char* routine) {
  if (c.unit) return;
  for (std::int64_t i = 0; i < c.n; ++i)
    if (c.a[i * c.lda + i] == 0.0) throw singular_matrix(routine, i);
}

// Offset of logical element i of a BLAS vector (a negative increment walks
// backwards from the far end).
inline std::int64_t at(std::int64_t i, std::int64_t inc, std::int64_t n) noexcept {
  return detail::vector_offset(i, n, inc);
}

inline void gather(std::int64_t n, const double* x, std::int64_t inc, double* out) {
  if (inc == 1) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = x[i];
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = x[at(i, inc, n)];
}

inline void scatter(std::int64_t n, const double* in, double* x, std::int64_t inc) {
  for (std::int64_t i = 0; i < n; ++i) x[at(i, inc, n)] = in[i];
}

// The compensated and double-double kernels of the active kernel set.
solve_fn comp_kernel();
solve_fn dd_kernel();

// The front end of the compensated and double-double solvers (argument
// checks, gather, kernel, scatter), in trsv_compensated.cpp.
void run_kernel(const char* routine, solve_fn kernel, bool compensated, layout lay, uplo ul,
                transpose trans, diag dg, std::int64_t n, const double* a, std::int64_t lda,
                double* x, std::int64_t incx);

}  // namespace exala::solvers_detail
