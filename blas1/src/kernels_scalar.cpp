// The portable kernel set: the scalar multi-level accumulator (an fpe<2> that
// spills into the superaccumulator). Used where no SIMD set applies, or with
// EXALA_SIMD=scalar. Exact for every input (see exala/fpe.hpp).
#include <cmath>

#include "exala/fpe.hpp"
#include "kernels.hpp"

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

const kernel_table table{"scalar", sum_s, asum_s, dot_s, axpy_s, scal_s, nullptr, nullptr, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

}  // namespace

const kernel_table* kernels_scalar() noexcept { return &table; }

}  // namespace exala::detail
