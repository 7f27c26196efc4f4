// The generic kernel set, blas1 part: the scalar multi-level accumulator (an
// fpe<2> that spills into the superaccumulator). Used where no SIMD set
// applies, or with EXALA_SIMD=generic. Exact for every input (see
// exala/fpe.hpp).
#include <cmath>

#include "exala/fpe.hpp"
#include "blas1_kernels.hpp"

namespace exala::detail {
namespace {

void sum_s(superaccumulator& acc, const double* x, std::size_t n) {
  multilevel_accumulator<2> ml;
  for (std::size_t i = 0; i < n; ++i) ml.add(x[i]);
  acc.merge(ml.result());
}

void asum_s(superaccumulator& acc, const double* x, std::size_t n) {
  multilevel_accumulator<2> ml;
  for (std::size_t i = 0; i < n; ++i) ml.add(std::fabs(x[i]));
  acc.merge(ml.result());
}

void dot_s(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  multilevel_accumulator<2> ml;
  for (std::size_t i = 0; i < n; ++i) ml.add_product(x[i], y[i]);
  acc.merge(ml.result());
}

void axpy_s(double alpha, const double* x, double* y, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) y[i] = std::fma(alpha, x[i], y[i]);
}

void scal_s(double alpha, double* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = alpha * x[i];
}

}  // namespace

// No bounded fast paths: the front ends take the exact path.
const blas1_kernels blas1_generic{sum_s, asum_s, dot_s, axpy_s, scal_s, nullptr, nullptr, 0, nullptr,
                                  nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace exala::detail
