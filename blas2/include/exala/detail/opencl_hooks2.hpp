// exala/detail/opencl_hooks2.hpp - how the OpenCL level-2 code (exala::gpu, a
// layer above blas2) plugs into the blas2 front ends without blas2 linking it.
//
// exala::gpu fills one static table and registers it with
// register_hooks() (exala::opencl::register_backend() does this).
// The front ends check the arguments and handle the conventions that read
// no matrix (alpha == 0, empty sums, n == 0, singular diagonals) themselves,
// then call the hook for backend::opencl: it uploads the data, runs the exact
// device routine (same bits as the reference backend) and downloads the
// result. Errors are thrown as exala::error.
#pragma once

#include <cstdint>

#include "exala/detail/backend_hooks.hpp"

#include "exala/blas2.hpp"

namespace exala::detail {

struct opencl_blas2_hooks {
  // exala::gemv on host pointers (arguments already checked; alpha != 0,
  // m, n > 0).
  void (*gemv)(layout lay, transpose trans, std::int64_t m, std::int64_t n, double alpha,
               const double* a, std::int64_t lda, const double* x, std::int64_t incx, double beta,
               double* y, std::int64_t incy, rounding mode);
  // exala::detail::trsv_scaled on host pointers (arguments checked, n > 0,
  // alpha != 0, diagonal checked).
  void (*trsv_scaled)(const char* routine, layout lay, uplo ul, transpose trans, diag dg,
                      std::int64_t n, double alpha, const double* a, std::int64_t lda, double* x,
                      std::int64_t incx, rounding mode);
};

// Registered under (backend::opencl, hook_kind::blas2) in the one registration point,
// exala/detail/backend_hooks.hpp (register_hooks / require_hooks).

}  // namespace exala::detail
