// exala/checked.hpp - checked size and address arithmetic, the one helper for
// every m*n, (n-1)*|inc| and (cols-1)*ld + rows in ExaLA.
//
// Guarantee: every function here either returns the exact mathematical value
// or reports that it does not fit; none wraps. An address computation is
// accepted only when its offset, in elements of 8-byte doubles, stays at most
// max_elements = PTRDIFF_MAX / 8 (2^60 - 1), so that pointer + offset and the
// byte offset 8 * offset are both representable. The checks throw
// exala::invalid_argument naming the argument that makes the address overflow
// (the increment or the leading dimension), with the sizes involved.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "exala/error.hpp"

namespace exala::detail {

// The largest element offset (and element count) an ExaLA routine addresses.
inline constexpr std::int64_t max_elements = std::int64_t(PTRDIFF_MAX / 8);

// a * b and a + b, or nothing when the exact result does not fit in int64.
inline std::optional<std::int64_t> mul_exact(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}
inline std::optional<std::int64_t> add_exact(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// The element count a * b of an a x b block (a, b >= 0), or nothing when it
// exceeds max_elements.
inline std::optional<std::int64_t> count_of(std::int64_t a, std::int64_t b) noexcept {
  const auto p = mul_exact(a, b);
  if (!p || *p > max_elements) return std::nullopt;
  return p;
}

// Elements spanned by a BLAS vector of n elements with increment inc:
// (n - 1) * |inc| + 1 (0 for n <= 0), or nothing beyond max_elements.
inline std::optional<std::int64_t> vector_span(std::int64_t n, std::int64_t inc) noexcept {
  if (n <= 0) return std::int64_t{0};
  if (n == 1) return std::int64_t{1};
  if (inc == INT64_MIN) return std::nullopt;
  const auto step = mul_exact(n - 1, inc < 0 ? -inc : inc);
  if (!step || *step >= max_elements) return std::nullopt;
  return *step + 1;
}

// Elements spanned by `lines` lines of `len` elements each, line j starting at
// j * ld: (lines - 1) * ld + len (0 when lines or len is 0), or nothing beyond
// max_elements. ld >= len is not checked here (the routines check it).
inline std::optional<std::int64_t> matrix_span(std::int64_t lines, std::int64_t len,
                                               std::int64_t ld) noexcept {
  if (lines <= 0 || len <= 0) return std::int64_t{0};
  const auto step = mul_exact(lines - 1, ld);
  if (!step) return std::nullopt;
  const auto end = add_exact(*step, len);
  if (!end || *end > max_elements) return std::nullopt;
  return end;
}

// Throws invalid_argument(inc_name) when a vector of n elements with this
// increment spans more than max_elements (its last address would overflow).
inline void check_vector_span(const char* inc_name, std::int64_t n, std::int64_t inc) {
  if (!vector_span(n, inc))
    throw invalid_argument(inc_name, "= " + std::to_string(inc) + " with " + std::to_string(n) +
                                         " elements spans more than 2^60 elements: the address "
                                         "(n-1)*|inc| overflows");
}

// Throws invalid_argument(ld_name) when `lines` lines of `len` elements with
// leading dimension ld span more than max_elements.
inline void check_matrix_span(const char* ld_name, std::int64_t lines, std::int64_t len,
                              std::int64_t ld) {
  if (!matrix_span(lines, len, ld))
    throw invalid_argument(ld_name, "= " + std::to_string(ld) + " with " + std::to_string(lines) +
                                        " columns (rows in row-major) of " + std::to_string(len) +
                                        " elements spans more than 2^60 elements: the address "
                                        "(cols-1)*ld + rows overflows");
}

// Offset of logical element i (0 <= i < n) of a BLAS vector with increment
// inc: i * inc for inc >= 0, and (i - (n - 1)) * inc for inc < 0 (a negative
// increment walks backwards from the far end). Exact, and never negates inc,
// so inc = INT64_MIN is fine for n == 1; callers check the span first
// (check_vector_span), which keeps every offset within max_elements.
inline constexpr std::int64_t vector_offset(std::int64_t i, std::int64_t n,
                                            std::int64_t inc) noexcept {
  return inc >= 0 ? i * inc : (i - (n - 1)) * inc;
}

// The first element of part t (0 <= t <= parts) of [0, n) split evenly into
// `parts` (n >= 0, parts >= 1): floor(n * t / parts) exactly, without
// forming n * t (which overflows for counts above 2^53 with 1024 parts).
inline constexpr std::int64_t split_point(std::int64_t n, std::int64_t t,
                                          std::int64_t parts) noexcept {
  return n / parts * t + n % parts * t / parts;
}

// Throws invalid_argument(name) when an element count exceeds max_elements:
// the limit holds for a count as for an offset, also where no address grows
// with it (a vector with increment 0 repeats one element n times: n above
// 2^60 would be a loop of 2^60 steps, not an answer).
inline void check_count(const char* name, std::int64_t n) {
  if (n > max_elements)
    throw invalid_argument(name, "= " + std::to_string(n) +
                                     " is more than 2^60 - 1, the largest element count");
}

// Throws invalid_argument(name) when an a x b block has more than
// max_elements elements; returns a * b.
inline std::int64_t checked_count(const char* name, std::int64_t a, std::int64_t b) {
  const auto p = count_of(a, b);
  if (!p)
    throw invalid_argument(name, "gives " + std::to_string(a) + " x " + std::to_string(b) +
                                     " elements, more than 2^60: the size overflows");
  return *p;
}

// The extent of a rows x cols matrix stored with leading dimension ld, by
// rows (row_major: `rows` lines of `cols` elements) or by columns: throws
// invalid_argument(name) when it has more than max_elements elements, and
// invalid_argument(ld_name) when its address span does; returns the span
// (0 for an empty matrix). ld >= the line length is the caller's check.
inline std::int64_t check_matrix_extent(const char* name, const char* ld_name, bool row_major,
                                        std::int64_t rows, std::int64_t cols, std::int64_t ld) {
  if (rows > 0 && cols > 0) checked_count(name, rows, cols);
  const std::int64_t lines = row_major ? rows : cols, len = row_major ? cols : rows;
  check_matrix_span(ld_name, lines, len, ld);
  return *matrix_span(lines, len, ld);
}

}  // namespace exala::detail
