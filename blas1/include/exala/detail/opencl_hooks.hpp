// exala/detail/opencl_hooks.hpp - how the OpenCL backend (exala::gpu, a layer
// above blas1) plugs into the blas1 front ends without blas1 linking it.
//
// exala::gpu fills one static table and registers it with
// register_hooks() (exala::opencl::register_backend() does this; a
// program that includes <exala/opencl.hpp> calls it during static
// initialization). The blas1 front ends keep validating the arguments and
// rounding the accumulator themselves; a hook only adds the exact terms of a
// reduction to `acc` (digits and term flags, exactly as superaccumulator::add
// and add_product would), so the rounded results are the bits of the
// reference backend by construction.
#pragma once

#include <cstdint>

#include "exala/detail/backend_hooks.hpp"

#include "exala/superaccumulator.hpp"

namespace exala::detail {

struct opencl_blas1_hooks {
  // Each adds the exact terms x_i (sum), |x_i| (asum) or x_i * y_i (dot) of
  // the BLAS-style vectors (n >= 0, pointers valid for n elements with the
  // given increments: already checked by the caller) to `acc`, with complete
  // term flags. Errors are thrown as exala::error.
  void (*sum_into)(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx);
  void (*asum_into)(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx);
  void (*dot_into)(superaccumulator& acc, std::int64_t n, const double* x, std::int64_t incx,
                   const double* y, std::int64_t incy);
};

// Registered under (backend::opencl, hook_kind::blas1) in the one registration point,
// exala/detail/backend_hooks.hpp (register_hooks / require_hooks).

}  // namespace exala::detail
