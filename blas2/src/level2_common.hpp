// Internal helpers shared by gemv.cpp and trsv.cpp (and blas3): matrix and
// vector views with BLAS strides, argument checks, packing, and the exact
// row products on the calling thread.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/blas2.hpp"
#include "exala/checked.hpp"
#include "exala/detail/exec.hpp"
#include "exala/error.hpp"
#include "exala/superaccumulator.hpp"

namespace exala::detail {

// op(A) as a strided view: element (i, j) of op(A) lives at a[i*rs + j*cs].
// Rows are contiguous when cs == 1.
struct mat_view {
  const double* a;
  std::int64_t rs, cs;
  double at(std::int64_t i, std::int64_t j) const noexcept { return a[i * rs + j * cs]; }
  const double* row(std::int64_t i) const noexcept { return a + i * rs; }
};

// The view of op(A) for a matrix stored in `lay` with leading dimension lda.
inline mat_view op_view(layout lay, transpose t, const double* a, std::int64_t lda) noexcept {
  const bool row_contiguous = (lay == layout::row_major) == (t == transpose::none);
  return row_contiguous ? mat_view{a, lda, 1} : mat_view{a, 1, lda};
}

// BLAS vector indexing: logical element i of a vector of n elements.
inline std::int64_t vec_index(std::int64_t i, std::int64_t n, std::int64_t inc) noexcept {
  return vector_offset(i, n, inc);
}

inline void check_nonneg(const char* name, std::int64_t v) {
  if (v < 0) throw invalid_argument(name, "must be >= 0, got " + std::to_string(v));
}
inline void check_ptr(const char* name, const void* p, std::int64_t count) {
  if (count > 0 && p == nullptr)
    throw invalid_argument(name, "is a null pointer with " + std::to_string(count) + " elements");
}
inline void check_ld(const char* name, std::int64_t ld, std::int64_t min_rows) {
  const std::int64_t need = min_rows > 1 ? min_rows : 1;
  if (ld < need)
    throw invalid_argument(name, "must be >= " + std::to_string(need) + ", got " + std::to_string(ld));
}
// A vector that is read: any increment (0 repeats element 0).
// A vector that is written: increment 0 only for a single element.
inline void check_written_inc(const char* name, std::int64_t inc, std::int64_t n) {
  if (inc == 0 && n > 1)
    throw invalid_argument(name, "is 0 for a written vector of " + std::to_string(n) + " elements");
}

// The n logical elements of a strided vector, contiguous.
inline std::vector<double> gather(const double* x, std::int64_t n, std::int64_t inc) {
  std::vector<double> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[i] = x[vec_index(i, n, inc)];
  return v;
}

// Term flags (zero signs) of the product terms a_j * x_j, j in [j0, j1), of
// row i: only needed when the exact sum is zero (its IEEE sign comes from them).
inline std::uint32_t product_zero_flags(const mat_view& A, std::int64_t i, const double* x,
                                        std::int64_t j0, std::int64_t j1) noexcept {
  std::uint32_t f = 0;
  for (std::int64_t j = j0; j < j1; ++j) {
    const double a = A.at(i, j), b = x[j];
    if (a != 0.0 && b != 0.0)
      return superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero;
    f |= std::signbit(a) != std::signbit(b) ? superaccumulator::flag_not_poszero
                                            : superaccumulator::flag_not_negzero;
  }
  return f;
}

// Completes the term flags of an accumulator that holds row i's products over
// [j0, j1) from the SIMD kernels (which may leave them incomplete).
inline void finish_row_flags(superaccumulator& acc, const mat_view& A, std::int64_t i,
                             const double* x, std::int64_t j0, std::int64_t j1) {
  if (j0 >= j1) return;
  acc.or_flags(superaccumulator::flag_has_term);
  if (acc.has_special() || acc.sign() != 0) {
    acc.or_flags(superaccumulator::flag_not_negzero | superaccumulator::flag_not_poszero);
    return;
  }
  acc.or_flags(product_zero_flags(A, i, x, j0, j1));
}

// Adds sum_{j in [j0, j1)} op(A)_ij x_j exactly into acc[r] for the rows
// i = i0 + r, r < rows, on the calling thread: the reference backend adds
// products one by one; otherwise contiguous rows go straight to the SIMD dot
// kernel and strided rows are packed (a rows x chunk block, transposed) first.
// Term flags may be incomplete (see finish_row_flags).
inline void add_row_products(superaccumulator* acc, const mat_view& A, std::int64_t i0,
                             std::int64_t rows, const double* x, std::int64_t j0, std::int64_t j1,
                             backend b, std::vector<double>& buf) {
  if (j1 <= j0 || rows <= 0) return;
  if (b == backend::reference) {
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t j = j0; j < j1; ++j) acc[r].add_product(A.at(i0 + r, j), x[j]);
    return;
  }
  if (A.cs == 1) {
    for (std::int64_t r = 0; r < rows; ++r)
      dot_contiguous(acc[r], A.row(i0 + r) + j0, x + j0, static_cast<std::size_t>(j1 - j0));
    return;
  }
  // Long chunks: one kernel call per row and chunk costs ~0.3 us.
  constexpr std::int64_t chunk = 4096;
  buf.resize(static_cast<std::size_t>(rows * std::min(chunk, j1 - j0)));
  for (std::int64_t c0 = j0; c0 < j1; c0 += chunk) {
    const std::int64_t len = j1 - c0 < chunk ? j1 - c0 : chunk;
    for (std::int64_t j = 0; j < len; ++j) {
      const double* col = A.a + (c0 + j) * A.cs + i0 * A.rs;  // rs == 1
      for (std::int64_t r = 0; r < rows; ++r) buf[r * len + j] = col[r];
    }
    for (std::int64_t r = 0; r < rows; ++r)
      dot_contiguous(acc[r], buf.data() + r * len, x + c0, static_cast<std::size_t>(len));
  }
}

}  // namespace exala::detail
