// trsm: reproducible triangular solve with many right-hand sides.
//
// Guarantee: every column (side left) or row (side right) of X is exactly
// what exala::detail::trsv_scaled returns for that right-hand side: x_i =
// round((alpha b_i - sum_j op(A)_ij x_j) / op(A)_ii), each the correctly
// rounded quotient of its exact numerator (Iakymchuk, Defour, Collange,
// Graillat, "Reproducible triangular solvers for high-performance
// computing", ITNG 2015), so the bits do not depend on the backend, the
// thread count or exec.block. With alpha == 1 they equal exala::trsv's.
//
// Method: one trsv_scaled per right-hand side. Side right, X op(A) = alpha B,
// is row by row op(A)^T x_i = alpha b_i: the same triangle of A with the
// transpose flag flipped. Backend omp runs the right-hand sides in parallel
// (each solve on one thread with the simd kernels) when there are at least
// two of them; a single right-hand side gets the threads inside trsv.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>

#include "exala/blas3.hpp"
#include "exala/checked.hpp"
#include "exala/detail/opencl_hooks3.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"

namespace exala {

void trsm(layout lay, side sd, uplo ul, transpose trans, diag dg, std::int64_t m, std::int64_t n,
          double alpha, const double* a, std::int64_t lda, double* b, std::int64_t ldb,
          const exec& ex) {
  using namespace detail::gemm3;
  if (m < 0) throw invalid_argument("m", "must be >= 0, got " + std::to_string(m));
  if (n < 0) throw invalid_argument("n", "must be >= 0, got " + std::to_string(n));
  const bool left = sd == side::left;
  const std::int64_t na = left ? m : n;  // A is na x na
  const bool col = lay == layout::col_major;
  if (lda < std::max<std::int64_t>(1, na))
    throw invalid_argument("lda", "must be >= " + std::to_string(std::max<std::int64_t>(1, na)) +
                                      ", got " + std::to_string(lda));
  const std::int64_t bneed = std::max<std::int64_t>(1, col ? m : n);
  if (ldb < bneed)
    throw invalid_argument("ldb", "must be >= " + std::to_string(bneed) + ", got " + std::to_string(ldb));
  check_exec(ex);
  // Element counts and address spans of A and B within 2^60 - 1
  // (exala/checked.hpp), before any path computes an address (also alpha == 0).
  exala::detail::check_matrix_extent("a", "lda", !col, na, na, lda);
  exala::detail::check_matrix_extent("b", "ldb", !col, m, n, ldb);
  if (b == nullptr && m > 0 && n > 0)
    throw invalid_argument("b", "is a null pointer for a " + std::to_string(m) + " x " +
                                    std::to_string(n) + " matrix");
  if (m == 0 || n == 0) return;
  if (alpha == 0.0) {  // X = 0 (+0 everywhere) without reading A, as trsv_scaled
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) b[col ? i + j * ldb : i * ldb + j] = 0.0;
    return;
  }
  if (a == nullptr)
    throw invalid_argument("a", "is a null pointer for a " + std::to_string(na) + " x " +
                                    std::to_string(na) + " matrix");
  // Singularity is a property of A alone: checked once, before B is
  // touched, with trsv's rule (the first zero on the diagonal, 0-based).
  if (dg == diag::non_unit)
    for (std::int64_t i = 0; i < na; ++i)
      if (a[i * lda + i] == 0.0) throw singular_matrix("trsm", i);
  if (ex.backend == backend::opencl) {  // exact device kernels (exala::gpu), same bits
    exala::detail::require_opencl_blas3_hooks("trsm").trsm(lay, sd, ul, trans, dg, m, n, alpha, a, lda,
                                                           b, ldb, ex.mode);
    return;
  }
  if (ex.backend != backend::reference) active_kernel_set();  // a bad EXALA_SIMD throws here

  // Right-hand side r: its first element and increment, length na.
  const std::int64_t nrhs = left ? n : m;
  const transpose t = left ? trans : (trans == transpose::none ? transpose::trans : transpose::none);
  auto rhs = [&](std::int64_t r, std::int64_t& inc) -> double* {
    if (left) {  // column r of B
      inc = col ? 1 : ldb;
      return col ? b + r * ldb : b + r;
    }
    inc = col ? ldb : 1;  // row r of B
    return col ? b + r : b + r * ldb;
  };
  const int threads = static_cast<int>(std::min<std::int64_t>(threads_of(ex), nrhs));
  if (threads <= 1) {
    for (std::int64_t r = 0; r < nrhs; ++r) {
      std::int64_t inc = 1;
      double* x = rhs(r, inc);
      detail::trsv_scaled("trsm", lay, ul, t, dg, na, alpha, a, lda, x, inc, ex);
    }
    return;
  }
  exec inner = ex;
  inner.backend = backend::simd;
  inner.threads = 0;
  std::exception_ptr failure;
  std::int64_t failed_at = nrhs;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
  for (std::int64_t r = 0; r < nrhs; ++r) {
    try {
      std::int64_t inc = 1;
      double* x = rhs(r, inc);
      detail::trsv_scaled("trsm", lay, ul, t, dg, na, alpha, a, lda, x, inc, inner);
    } catch (...) {
#pragma omp critical(exala_trsm_failure)
      if (r < failed_at) {  // the error a sequential run would meet first
        failed_at = r;
        failure = std::current_exception();
      }
    }
  }
  if (failure) std::rethrow_exception(failure);
}

}  // namespace exala
