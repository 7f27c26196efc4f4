// Internal: the exact gemm engine (gemm_crt.cpp) and the per-entry exact
// paths it shares with the front end (gemm.cpp).
#pragma once

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/checked.hpp"
#include "exala/detail/exec.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "exala/error.hpp"
#include "exala/superaccumulator.hpp"
#include "gemm_kernels.hpp"

namespace exala::detail::gemm3 {

// Argument checks of the blas3 front ends (gemm, syrk, symm, trmm, ...),
// each naming the argument.
inline void check_nonneg(const char* name, std::int64_t v) {
  if (v < 0) throw invalid_argument(name, "must be >= 0, got " + std::to_string(v));
}
inline void check_ld(const char* name, std::int64_t ld, std::int64_t rows) {
  const std::int64_t need = std::max<std::int64_t>(1, rows);
  if (ld < need)
    throw invalid_argument(name, "must be >= " + std::to_string(need) + ", got " + std::to_string(ld));
}
inline void check_ptr(const char* name, const void* p, std::int64_t rows, std::int64_t cols) {
  if (p == nullptr && rows > 0 && cols > 0)
    throw invalid_argument(name, "is a null pointer for a " + std::to_string(rows) + " x " +
                                     std::to_string(cols) + " matrix");
}
// An a x b scratch matrix, its element count checked (named `name`).
inline std::vector<double> scratch(const char* name, std::int64_t a, std::int64_t b) {
  return std::vector<double>(static_cast<std::size_t>(checked_count(name, a, b)));
}

// C = alpha op(A) op(B) + beta C in column-major form, the fields of
// ozaki8::gemm_args (exala/detail/ozaki8_engine.hpp; every engine takes this
// form). The front end has handled m == 0, n == 0, k == 0 and alpha == 0.
// gemm_crt's unrounded output (c_lo): each of hi and lo a correct rounding
// to nearest of the exact value or of what is left of it, plus the
// truncation bound of a wide row or column; err inf where hi overflows.
struct problem : ozaki8::gemm_args {
  double opa(std::int64_t i, std::int64_t l) const noexcept {
    return ta ? a[l + i * lda] : a[i + l * lda];
  }
  double opb(std::int64_t l, std::int64_t j) const noexcept {
    return tb ? b[j + l * ldb] : b[l + j * ldb];
  }
};

// The IEEE zero sign of S_ij as the accumulator rounds an exact zero: -0 if
// every product is -0, +0 if every product is +0, else +0 (-0 downward); a
// product with two nonzero factors (an exact cancellation) counts as mixed.
// exact_zeros: every product is an exact zero (a zero factor facing a
// finite one), so that S_ij = 0 exactly.
struct zero_sum_sign {
  bool neg;
  bool exact_zeros;
};
inline zero_sum_sign zero_sign_of(const problem& p, std::int64_t i, std::int64_t j) noexcept {
  bool all_neg = true, all_pos = true, exact = true;
  for (std::int64_t l = 0; l < p.k; ++l) {
    const double av = p.opa(i, l), bv = p.opb(l, j);
    if (av != 0.0 && bv != 0.0) return {p.mode == rounding::downward, false};
    exact = exact && std::isfinite(av == 0.0 ? bv : av);  // the other factor finite
    const bool sg = std::signbit(av) != std::signbit(bv);
    all_neg = all_neg && sg;
    all_pos = all_pos && !sg;
  }
  if (all_neg) return {true, exact};
  if (all_pos) return {false, exact};
  return {p.mode == rounding::downward, exact};
}

// The exact sum S_ij = sum_l op(A)_il op(B)_lj, added into acc: the plain
// scalar loop (reference) or the blas1 dot kernels (simd).
void entry_sum(const problem& p, std::int64_t i, std::int64_t j, superaccumulator& acc,
               bool reference);
// C_ij = round(alpha S_ij + beta C_ij) through the accumulator and
// exala::round_axpby (beta == 0: C_ij not read): the oracle path.
void entry_exact(const problem& p, std::int64_t i, std::int64_t j, bool reference);
// entry_exact after a bounded Dot2 attempt (k <= 1024): the engines' finish
// of the entries their own bound leaves undecided. Same bits.
void entry_finish(const problem& p, std::int64_t i, std::int64_t j);

// The fast exact engine (gemm_crt.cpp): `threads` >= 1 OpenMP threads (1:
// no parallel region), the given kernel set, exec.block as the tile size.
void gemm_crt(const problem& p, int threads, long long block, const gemm_kernels& ks);

// Statistics of the last gemm_crt call on this thread (for tests and
// benchmarks: which path ran; results never depend on them).
struct crt_stats {
  int moduli = 0;            // number of residue DGEMMs (0: not run)
  int width_a = 0, width_b = 0;  // integer widths of the scaled rows/columns
  bool truncated = false;    // some rows/columns were truncated (verified path)
  std::int64_t fallback_entries = 0;  // entries recomputed by exact dot products
  std::int64_t zero_entries = 0;      // small-path entries with only exact zero products
};
crt_stats last_crt_stats() noexcept;
void clear_crt_stats() noexcept;
// One more entry formed exactly (the small-product path's fallbacks).
void count_exact_dot_entry() noexcept;
void count_zero_entry() noexcept;

// The gemm part of the active kernel set (kernel_set.hpp: cpuid +
// EXALA_SIMD; a bad EXALA_SIMD throws).
const gemm_kernels& active_gemm_kernels();

// detail::threads_of (exala/detail/exec.hpp), cut so that each thread gets
// at least min_products_per_thread of the call's `products` multiply-adds (1
// for a small call): an OpenMP region costs tens of microseconds where the idle threads sleep
// (OMP_WAIT_POLICY=passive), more than a small call's work.
inline constexpr std::int64_t min_products_per_thread = std::int64_t{1} << 20;
int threads_for_products(const exec& ex, std::int64_t products);
// a b c, or INT64_MAX where it overflows (nonnegative factors).
inline std::int64_t saturated_product(std::int64_t a, std::int64_t b, std::int64_t c) noexcept {
  std::int64_t p = 0;
  if (__builtin_mul_overflow(a, b, &p) || __builtin_mul_overflow(p, c, &p)) return INT64_MAX;
  return p;
}

}  // namespace exala::detail::gemm3
