// exala/superaccumulator.hpp - a Kulisch-style long accumulator that is
// exact for every finite double and every product of two finite doubles.
//
// Guarantee: after any sequence of add / add_product / merge, the held value
// is the exact sum of the terms (no rounding ever happens inside); round()
// returns that value correctly rounded in the requested IEEE direction.
// Follows Kulisch & Miranker's long accumulator with carry-save digits as in
// R. Neal's xsum (2015) and Collange, Defour, Graillat, Iakymchuk, "Numerical
// reproducibility for the parallel reduction on multi- and many-core
// architectures" (ParCo 2015).
//
// Assumptions (all checked by tests/test_accum.cpp):
//  * binary64 doubles: 53-bit significands, exponents -1074 (subnormal lsb)
//    to 1023; the product of two finite doubles is m * 2^e with m < 2^106 and
//    -2148 <= e; its magnitude is < 2^2048;
//  * two's complement int64 and a 128-bit unsigned integer (GCC/Clang).
// Layout: num_digits signed 64-bit digits of radix 2^32; digit i weighs
// 2^(32 i + min_exponent), so the value is V = sum_i d_i 2^(32 i + min_exponent).
// Each deposit adds less than 2^53 to a digit, so up to carry_limit deposits
// fit before a normalization pass (carry-save: between passes a digit may
// hold any value below 2^63 in magnitude).
// Range: min_exponent = -2176 (a multiple of 32 below 2^-2148), and 136 digits
// reach 2^2176, with 31 more bits of headroom in the signed top digit.
//
// Invariant of a normalized state (what normalize() leaves, serialize()
// writes and deserialize() accepts; deserialize() refuses everything else):
//  * d_i in [0, 2^32) for i < num_digits - 1 (32 magnitude bits each);
//  * the top digit in [-2^32, 2^32): it carries the sign, and V lies in
//    [-2^2176, 2^2176) ("in range");
//  * flags: only the six bits below, in any combination (each bit has a
//    meaning of its own and merges by OR, so no combination can make a
//    merge or a rounding fail).
// Capacity: every sum of up to 2^64 finite doubles or products of two finite
// doubles stays in range (|V| < 2^64 * 2^2048 = 2^2112), and so does every
// merge of states holding such sums. merge() of any two in-range states (a
// state with itself included) is exact; so is merging up to 2^29 in-range
// states into one accumulator, or 30 successive a.merge(a) of an in-range
// a: the top digit stays within +-2^62. Beyond that the top digit
// saturates at +-2^62 (never wraps): the value keeps its sign and still
// rounds to the right infinity (or +-DBL_MAX by direction), but it is no
// longer exact. An in-range state holds only values that this capacity
// bound covers, so a deserialized state can be merged as freely as one
// built by add().
// Special values are kept in flags beside the digits, never in them: NaN in
// gives NaN; +inf with -inf gives NaN; otherwise an infinity wins.
#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "exala/rounding.hpp"

namespace exala {

class superaccumulator {
 public:
  static constexpr int digit_bits = 32;
  static constexpr int min_exponent = -2176;
  static constexpr int num_digits = 136;
  static constexpr int carry_limit = 1000;  // < 2^(63-53)
  // The top digit of an in-range (deserializable) state lies in
  // [-max_top_digit, max_top_digit); merges saturate it at +-top_saturation.
  static constexpr std::int64_t max_top_digit = std::int64_t{1} << 32;
  static constexpr std::int64_t top_saturation = std::int64_t{1} << 62;
  // Size in bytes of the serialized form (fixed, for MPI and GPU transfer).
  static constexpr std::size_t serialized_size = 16 + 8 * num_digits;

  // Flag bits (public for kernels that build accumulators directly).
  enum : std::uint32_t {
    flag_nan = 1u,          // a NaN term, or inf*0 in a product
    flag_pos_inf = 2u,      // a +inf term
    flag_neg_inf = 4u,      // a -inf term
    flag_has_term = 8u,     // at least one term was added
    flag_not_negzero = 16u, // some term was not -0
    flag_not_poszero = 32u, // some term was not +0
  };

  superaccumulator() noexcept { clear(); }

  void clear() noexcept {
    digits_.fill(0);
    pending_ = 0;
    flags_ = 0;
  }

  // Adds one term x exactly (special values go to the flags).
  void add(double x) noexcept {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    if (((bits >> 52) & 0x7ff) == 0x7ff) {
      add_special(x);
      return;
    }
    flags_ |= flag_has_term | zero_flags(bits);
    deposit(x);
  }

  // Adds the exact product a*b as one term (IEEE semantics for specials:
  // inf*0 is NaN, inf*finite is a signed infinity).
  void add_product(double a, double b) noexcept;

  // Adds a finite double exactly, without touching the term flags. This is
  // the hot path of the kernels (they record terms themselves).
  void deposit(double x) noexcept {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const std::uint64_t biased = (bits >> 52) & 0x7ff;
    const std::uint64_t mant =
        (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{biased != 0} << 52);
    // value = mant * 2^(max(biased,1) - 1075); bit position above min_exponent:
    static_assert(-1075 - min_exponent > 0, "the offset is a positive constant");
    const std::uint64_t pos = biased + (biased == 0) + static_cast<std::uint64_t>(-1075 - min_exponent);
    // mant * 2^sh split at bit 32 with two 64-bit shifts (sh < 32, mant < 2^53).
    const unsigned sh = static_cast<unsigned>(pos & 31);
    const std::int64_t sign = static_cast<std::int64_t>(bits) >> 63;  // 0 or -1
    const auto lo = static_cast<std::int64_t>((mant << sh) & 0xffffffffu);
    const auto hi = static_cast<std::int64_t>(mant >> (32 - sh));  // < 2^53
    digits_[pos >> 5] += (lo ^ sign) - sign;
    digits_[(pos >> 5) + 1] += (hi ^ sign) - sign;
    if (++pending_ >= carry_limit) normalize();
  }

  // Adds `count` raw digit arrays in this accumulator's layout (digit i of
  // weight 2^(32 i + min_exponent)), exactly, and normalizes. Kernels that
  // scatter their own deposits use it; each raw digit must satisfy
  // |d| < 2^61 so that four arrays can be folded in one pass.
  void fold_digits(const std::int64_t (*parts)[num_digits], int count) noexcept;

  // Records special or term flags computed elsewhere (kernels).
  void or_flags(std::uint32_t f) noexcept { flags_ |= f; }
  std::uint32_t flags() const noexcept { return flags_; }

  // Term flags for a finite term with these bits (sign-of-zero bookkeeping).
  static constexpr std::uint32_t zero_flags(std::uint64_t bits) noexcept {
    return (bits == 0x8000000000000000u ? 0u : flag_not_negzero) |
           (bits == 0 ? 0u : flag_not_poszero);
  }

  // Adds the special value x (inf or NaN) as a term.
  void add_special(double x) noexcept;

  // Batch forms, compiled out of line with baseline flags so that SIMD
  // translation units (built with -mavx2 / -mavx512f) never emit their own
  // copies of shared inline code. Exact, like the scalar calls.
  void deposit_n(const double* v, std::size_t n) noexcept;       // finite values, no term flags
  void add_n(const double* x, std::size_t n) noexcept;           // terms x[i]
  void add_abs_n(const double* x, std::size_t n) noexcept;       // terms |x[i]|
  void add_products_n(const double* x, const double* y, std::size_t n) noexcept;  // x[i]*y[i]

  // this += other, exactly (used for parallel and distributed reduction).
  void merge(const superaccumulator& other) noexcept;

  // Negates the held value (and swaps the infinity and zero-sign flags).
  void negate() noexcept;

  // Propagates carries so that every digit but the top lies in [0, 2^32)
  // (the top digit saturating at +-top_saturation, see above).
  void normalize() noexcept;

  // -1, 0 or +1: the sign of the exact finite part (flags ignored).
  int sign() const noexcept;
  bool is_zero() const noexcept { return sign() == 0; }

  // True when a NaN or an infinity was added.
  bool has_special() const noexcept { return (flags_ & (flag_nan | flag_pos_inf | flag_neg_inf)) != 0; }

  // The exact value correctly rounded to double in the given direction,
  // with IEEE overflow (to +-inf or +-DBL_MAX by direction), exact subnormal
  // results, and the IEEE sign of an exact zero sum.
  double round(rounding mode = rounding::to_nearest_even) const noexcept;

  // The exact value times 2^-k, correctly rounded (as round(); k may be any
  // value in [-2400, 2400]): reaches values beyond the double range.
  double round_scaled(int k, rounding mode = rounding::to_nearest_even) const noexcept;

  // floor(log2 |value|) of the finite part, or INT_MIN when it is zero.
  int exponent() const noexcept;

  // The square root of the exact value, correctly rounded in the given
  // direction (IEEE sqrt semantics: NaN for a negative value or -inf, +inf
  // for +inf, sqrt(+-0) = +-0). A first guess from round_scaled is corrected
  // by exact comparisons of the value with squares of doubles and of their
  // midpoints, so no overflow or underflow occurs on the way.
  double round_sqrt(rounding mode = rounding::to_nearest_even) const noexcept;

  // Fixed-size little-endian encoding: magic "EXSA", version, digit count,
  // flags, then the normalized digits. deserialize() validates every field
  // (size, magic, version, digit count, flag bits, and every digit against
  // the invariant above) and throws exala::format_error on bad data; a state
  // beyond the range (only a saturated one) serializes to data it refuses.
  void serialize(std::span<std::byte, serialized_size> out) const noexcept;
  std::vector<std::byte> serialize() const;
  static superaccumulator deserialize(std::span<const std::byte> in);

  // Read access for tests and for other backends' merge code.
  const std::array<std::int64_t, num_digits>& digits() const noexcept { return digits_; }

  friend bool operator==(const superaccumulator& a, const superaccumulator& b) noexcept;

 private:
  void deposit_bits(std::uint64_t m, int pos, bool negative) noexcept;
  // top + v for the top digit, saturating at +-top_saturation.
  static std::int64_t top_add(std::int64_t top, std::int64_t v) noexcept;
  template <bool Terms, bool Abs>
  void deposit_loop(const double* x, std::size_t n) noexcept;

  std::array<std::int64_t, num_digits> digits_;
  int pending_;
  std::uint32_t flags_;
};

}  // namespace exala
