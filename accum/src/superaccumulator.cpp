// Exact long accumulator: out-of-line parts (products, merge, rounding,
// serialization). See exala/superaccumulator.hpp for the contract.
#include "exala/superaccumulator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <limits>

#include "exala/arith.hpp"
#include "exala/error.hpp"
#include "exala/detail/round_digits.hpp"

namespace exala {

namespace {

using u128 = unsigned __int128;

constexpr std::uint64_t frac_mask = (std::uint64_t{1} << 52) - 1;

// Significand and biased exponent (subnormals use exponent 1) of a finite
// double: |x| = mant * 2^(exp - 1075).
struct unpacked {
  std::uint64_t mant;
  int exp;
  bool negative;
};

unpacked unpack(double x) noexcept {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  const int biased = static_cast<int>((bits >> 52) & 0x7ff);
  return {(bits & frac_mask) | (std::uint64_t{biased != 0} << 52), biased + (biased == 0),
          (bits >> 63) != 0};
}

}  // namespace

void superaccumulator::deposit_bits(std::uint64_t m, int pos, bool negative) noexcept {
  // m * 2^(pos + min_exponent); pos >= 0. Spread over three digits, each
  // increment below 2^32.
  const u128 v = static_cast<u128>(m) << (pos & 31);
  const int i = pos >> 5;
  const auto d0 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) & 0xffffffffu);
  const auto d1 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> 32) & 0xffffffffu);
  const auto d2 = static_cast<std::int64_t>(static_cast<std::uint64_t>(v >> 64));
  if (negative) {
    digits_[i] -= d0;
    digits_[i + 1] -= d1;
    digits_[i + 2] -= d2;
  } else {
    digits_[i] += d0;
    digits_[i + 1] += d1;
    digits_[i + 2] += d2;
  }
  if (++pending_ >= carry_limit) normalize();
}

void superaccumulator::add_special(double x) noexcept {
  flags_ |= flag_has_term | flag_not_negzero | flag_not_poszero;
  if (std::isnan(x))
    flags_ |= flag_nan;
  else
    flags_ |= std::signbit(x) ? flag_neg_inf : flag_pos_inf;
}

void superaccumulator::add_product(double a, double b) noexcept {
  if (!std::isfinite(a) || !std::isfinite(b)) {
    add_special(a * b);  // IEEE: NaN, or inf*0 = NaN, or a signed infinity
    return;
  }
  const unpacked ua = unpack(a);
  const unpacked ub = unpack(b);
  const bool negative = ua.negative != ub.negative;
  flags_ |= flag_has_term;
  if (ua.mant == 0 || ub.mant == 0) {  // exact zero product, IEEE sign
    flags_ |= negative ? flag_not_poszero : flag_not_negzero;
    return;
  }
  flags_ |= flag_not_negzero | flag_not_poszero;
  const u128 p = static_cast<u128>(ua.mant) * ub.mant;  // < 2^106, exact
  // |a*b| = p * 2^(ea + eb - 2150); bit position above min_exponent:
  const int pos = ua.exp + ub.exp - 2150 - min_exponent;
  deposit_bits(static_cast<std::uint64_t>(p), pos, negative);
  const auto high = static_cast<std::uint64_t>(p >> 64);
  if (high != 0) deposit_bits(high, pos + 64, negative);
}

// The batch loops deposit into four private digit arrays in turn (element i
// into array i mod 4), so that consecutive terms that hit the same digits do
// not form one long store-to-load dependency chain; every `chunk` terms the
// arrays are folded into the accumulator with one carry-propagating pass.
// Bounds: each array takes at most chunk/4 = 250 deposits of less than 2^53
// per digit (< 2^61), so the four of them plus a normalized digit and a carry
// stay below 2^63.
namespace {
constexpr std::size_t lanes = 4;
constexpr std::size_t chunk = 1000;

struct split_deposit {
  std::int64_t lo, hi;
  std::size_t idx;
};

inline split_deposit split_bits(std::uint64_t bits) noexcept {
  const std::uint64_t biased = (bits >> 52) & 0x7ff;
  const std::uint64_t mant = (bits & frac_mask) | (std::uint64_t{biased != 0} << 52);
  const std::uint64_t pos = biased + (biased == 0) - 1075 - superaccumulator::min_exponent;
  // mant * 2^sh split at bit 32 with two 64-bit shifts (sh < 32, mant < 2^53).
  const unsigned sh = static_cast<unsigned>(pos & 31);
  const std::int64_t sign = static_cast<std::int64_t>(bits) >> 63;
  const auto lo = static_cast<std::int64_t>((mant << sh) & 0xffffffffu);
  const auto hi = static_cast<std::int64_t>(mant >> (32 - sh));
  return {(lo ^ sign) - sign, (hi ^ sign) - sign, static_cast<std::size_t>(pos >> 5)};
}
}  // namespace

template <bool Terms, bool Abs>
void superaccumulator::deposit_loop(const double* x, std::size_t n) noexcept {
  if (n < 64) {  // not worth the private arrays
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t bits = std::bit_cast<std::uint64_t>(x[i]);
      if constexpr (Abs) bits &= 0x7fffffffffffffffu;
      if constexpr (Terms)
        add(std::bit_cast<double>(bits));
      else
        deposit(std::bit_cast<double>(bits));
    }
    return;
  }
  // Zero-sign bookkeeping by two running bit masks: every term is -0 iff the
  // OR and the AND of their bit patterns are both 0x8000...; every term is
  // +0 iff the OR is 0.
  std::uint64_t all_or = 0, all_and = ~std::uint64_t{0};
  std::size_t finite_terms = n;
  std::int64_t part[lanes][num_digits];
  for (std::size_t c = 0; c < n; c += chunk) {
    const std::size_t m = n - c < chunk ? n - c : chunk;
    for (auto& p : part) std::fill(std::begin(p), std::end(p), 0);
    auto one = [&](std::size_t i, std::int64_t* p) {
      std::uint64_t bits = std::bit_cast<std::uint64_t>(x[i]);
      if constexpr (Abs) bits &= 0x7fffffffffffffffu;
      if constexpr (Terms) {
        if ((~bits & 0x7ff0000000000000u) == 0) [[unlikely]] {  // inf or NaN
          add_special(std::bit_cast<double>(bits));
          --finite_terms;
          return;
        }
        all_or |= bits;
        all_and &= bits;
      }
      const split_deposit d = split_bits(bits);
      p[d.idx] += d.lo;
      p[d.idx + 1] += d.hi;
    };
    std::size_t i = c;
    for (; i + lanes <= c + m; i += lanes) {
      one(i, part[0]);
      one(i + 1, part[1]);
      one(i + 2, part[2]);
      one(i + 3, part[3]);
    }
    for (; i < c + m; ++i) one(i, part[0]);
    fold_digits(part, lanes);
  }
  if constexpr (Terms) {
    // Only finite terms reached the masks (specials set their own flags).
    if (finite_terms > 0) {
      constexpr std::uint64_t s = 0x8000000000000000u;
      flags_ |= flag_has_term;
      if (!(all_or == s && all_and == s)) flags_ |= flag_not_negzero;
      if (all_or != 0) flags_ |= flag_not_poszero;
    }
  }
}

void superaccumulator::fold_digits(const std::int64_t (*parts)[num_digits], int count) noexcept {
  for (int base = 0; base < count; base += 4) {
    const int m = count - base < 4 ? count - base : 4;
    normalize();
    std::int64_t carry = 0;
    for (int j = 0; j < num_digits; ++j) {
      if (j == num_digits - 1) {  // saturating, as normalize()
        std::int64_t t = top_add(digits_[j], carry);
        for (int k = 0; k < m; ++k) t = top_add(t, parts[base + k][j]);
        digits_[j] = t;
        break;
      }
      std::int64_t v = digits_[j] + carry;
      for (int k = 0; k < m; ++k) v += parts[base + k][j];
      digits_[j] = v & 0xffffffff;
      carry = v >> 32;
    }
  }
}

void superaccumulator::deposit_n(const double* v, std::size_t n) noexcept {
  deposit_loop<false, false>(v, n);
}

void superaccumulator::add_n(const double* x, std::size_t n) noexcept {
  deposit_loop<true, false>(x, n);
}

void superaccumulator::add_abs_n(const double* x, std::size_t n) noexcept {
  deposit_loop<true, true>(x, n);
}

void superaccumulator::add_products_n(const double* x, const double* y, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    const double a = x[i], b = y[i];
    // |fl(a*b)| in [2^-968, DBL_MAX] implies exponent(a)+exponent(b) >= -969
    // and no overflow, so TwoProd is exact (see two_prod_is_exact).
    const double pa = std::fabs(a * b);
    if ((pa >= 0x1p-968 && pa <= std::numeric_limits<double>::max()) || two_prod_is_exact(a, b)) {
      // Fast exact path: a*b = p + e with both parts finite doubles.
      const eft_pair p = two_prod(a, b);
      if (p.hi == 0.0) {
        flags_ |= flag_has_term |
                  (std::signbit(a) != std::signbit(b) ? flag_not_poszero : flag_not_negzero);
        continue;
      }
      flags_ |= flag_has_term | flag_not_negzero | flag_not_poszero;
      deposit(p.hi);
      if (p.lo != 0.0) deposit(p.lo);
    } else {
      add_product(a, b);
    }
  }
}

std::int64_t superaccumulator::top_add(std::int64_t top, std::int64_t v) noexcept {
  std::int64_t r;
  if (__builtin_add_overflow(top, v, &r)) r = top < 0 ? -top_saturation : top_saturation;
  if (r > top_saturation) return top_saturation;
  if (r < -top_saturation) return -top_saturation;
  return r;
}

void superaccumulator::normalize() noexcept {
  std::int64_t carry = 0;
  for (int i = 0; i < num_digits - 1; ++i) {
    const std::int64_t v = digits_[i] + carry;
    digits_[i] = v & 0xffffffff;
    carry = v >> 32;  // arithmetic shift: floor division by 2^32
  }
  digits_[num_digits - 1] = top_add(digits_[num_digits - 1], carry);
  pending_ = 0;
}

void superaccumulator::merge(const superaccumulator& other) noexcept {
  superaccumulator o = other;
  o.normalize();
  normalize();
  // Lower digits: each sum < 2^33. The top digits: saturating (both are
  // within +-2^62, so only a state beyond the documented capacity saturates;
  // see the header).
  for (int i = 0; i < num_digits - 1; ++i) digits_[i] += o.digits_[i];
  digits_[num_digits - 1] = top_add(digits_[num_digits - 1], o.digits_[num_digits - 1]);
  flags_ |= o.flags_;
  pending_ = 1;  // each digit grew by less than 2^32 + carry-ins
  normalize();
}

void superaccumulator::negate() noexcept {
  for (auto& d : digits_) d = -d;
  normalize();
  const std::uint32_t f = flags_;
  flags_ &= ~(flag_pos_inf | flag_neg_inf | flag_not_negzero | flag_not_poszero);
  if (f & flag_pos_inf) flags_ |= flag_neg_inf;
  if (f & flag_neg_inf) flags_ |= flag_pos_inf;
  if (f & flag_not_negzero) flags_ |= flag_not_poszero;
  if (f & flag_not_poszero) flags_ |= flag_not_negzero;
}

int superaccumulator::sign() const noexcept {
  superaccumulator t = *this;
  t.normalize();
  const std::int64_t top = t.digits_[num_digits - 1];
  if (top != 0) return top < 0 ? -1 : 1;
  for (int i = num_digits - 2; i >= 0; --i)
    if (t.digits_[i] != 0) return 1;
  return 0;
}

double superaccumulator::round(rounding mode) const noexcept { return round_scaled(0, mode); }

double superaccumulator::round_scaled(int k, rounding mode) const noexcept {
  constexpr double inf = std::numeric_limits<double>::infinity();
  if ((flags_ & flag_nan) || ((flags_ & flag_pos_inf) && (flags_ & flag_neg_inf)))
    return std::numeric_limits<double>::quiet_NaN();
  if (flags_ & flag_pos_inf) return inf;
  if (flags_ & flag_neg_inf) return -inf;

  superaccumulator t = *this;
  t.normalize();
  const bool negative = t.digits_[num_digits - 1] < 0;
  if (negative) {
    for (auto& d : t.digits_) d = -d;
    t.normalize();
  }
  int h = num_digits - 1;
  while (h >= 0 && t.digits_[h] == 0) --h;
  if (h < 0) {
    // Exact zero: IEEE sign rules for a sum (x + x keeps the sign of x).
    if (!(flags_ & flag_has_term)) return 0.0;
    if (!(flags_ & flag_not_negzero)) return -0.0;
    if (!(flags_ & flag_not_poszero)) return 0.0;
    return mode == rounding::downward ? -0.0 : 0.0;
  }
  return detail::round_magnitude(t.digits_.data(), h, min_exponent - k, negative, mode);
}

int superaccumulator::exponent() const noexcept {
  superaccumulator t = *this;
  t.normalize();
  if (t.digits_[num_digits - 1] < 0) {
    for (auto& d : t.digits_) d = -d;
    t.normalize();
  }
  int h = num_digits - 1;
  while (h >= 0 && t.digits_[h] == 0) --h;
  if (h < 0) return std::numeric_limits<int>::min();
  return 32 * h + 63 - std::countl_zero(static_cast<std::uint64_t>(t.digits_[h])) + min_exponent;
}

namespace {

// Sign of S - v^2, exactly.
int compare_square(const superaccumulator& s, double v) {
  superaccumulator t = s;
  t.add_product(-v, v);
  return t.sign();
}

// Sign of 4 S - (a + 2^sh * c)^2 for sh in {0, 1}, exactly: S against the
// square of the midpoint of a and b = 2^sh c. Only products of doubles are
// formed (never 2a or a + b, which could overflow), so this is exact for all
// finite a, c; sh = 1 with c = 2^1023 stands for b = 2^1024, the overflow
// threshold's other end.
int compare_midpoint_square(const superaccumulator& s, double a, double c, int sh) {
  superaccumulator t = s;
  t.merge(s);
  superaccumulator t2 = t;
  t.merge(t2);  // 4 S
  const int w = sh == 0 ? 1 : 2;  // (a + w c)^2 = a^2 + 2 w a c + w^2 c^2
  t.add_product(-a, a);
  for (int i = 0; i < 2 * w; ++i) t.add_product(-a, c);
  for (int i = 0; i < w * w; ++i) t.add_product(-c, c);
  return t.sign();
}

bool odd(double v) { return (std::bit_cast<std::uint64_t>(v) & 1) != 0; }

}  // namespace

double superaccumulator::round_sqrt(rounding mode) const noexcept {
  constexpr double inf = std::numeric_limits<double>::infinity();
  constexpr double dmax = std::numeric_limits<double>::max();
  if ((flags_ & flag_nan) || (flags_ & flag_neg_inf)) return std::numeric_limits<double>::quiet_NaN();
  if (flags_ & flag_pos_inf) return inf;
  const int sg = sign();
  if (sg == 0) return round(mode);  // sqrt(+-0) = +-0
  if (sg < 0) return std::numeric_limits<double>::quiet_NaN();

  // First guess, within a few ulps: S = f 2^k with k even and f in [1, 4].
  const int e = exponent();
  const int k = e & ~1;  // floor to even (two's complement)
  double r = std::ldexp(std::sqrt(round_scaled(k, rounding::to_nearest_even)), k / 2);
  if (r > dmax) r = dmax;
  if (r == 0.0) r = std::numeric_limits<double>::denorm_min();
  auto succ = [](double v) { return std::nextafter(v, inf); };
  auto pred = [](double v) { return std::nextafter(v, 0.0); };

  // Then exact comparisons of S with squares of doubles and of midpoints.
  // The guess is within a few ulps, so each loop ends after a few steps; the
  // cap only turns a future bug into a NaN instead of a hang.
  constexpr int max_steps = 64;
  switch (mode) {
    case rounding::to_nearest_even:
      for (int step = 0; step < max_steps; ++step) {
        const int up = r == dmax ? compare_midpoint_square(*this, r, 0x1p1023, 1)
                                 : compare_midpoint_square(*this, r, succ(r), 0);
        if (up > 0 || (up == 0 && odd(r))) {  // above the upper midpoint (or a tie to even)
          if (r == dmax) return inf;
          r = succ(r);
          continue;
        }
        const double p = pred(r);
        const int lo = compare_midpoint_square(*this, r, p, 0);
        if (lo < 0 || (lo == 0 && odd(r))) {
          r = p;
          continue;
        }
        return r;
      }
      break;
    case rounding::toward_zero:
    case rounding::downward:  // the largest r with r^2 <= S
      for (int step = 0; step < max_steps; ++step) {
        if (compare_square(*this, r) < 0) {
          r = pred(r);
          continue;
        }
        if (r != dmax && compare_square(*this, succ(r)) >= 0) {
          r = succ(r);
          continue;
        }
        return r;
      }
      break;
    case rounding::upward:  // the smallest r with r^2 >= S
      for (int step = 0; step < max_steps; ++step) {
        if (compare_square(*this, r) > 0) {
          if (r == dmax) return inf;
          r = succ(r);
          continue;
        }
        const double p = pred(r);
        if (p > 0.0 && compare_square(*this, p) <= 0) {
          r = p;
          continue;
        }
        return r;
      }
      break;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

namespace {
constexpr char magic[4] = {'E', 'X', 'S', 'A'};
constexpr std::uint16_t format_version = 1;

void put_u64(std::byte* p, std::uint64_t v) noexcept {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<std::byte>((v >> (8 * i)) & 0xff);
}
std::uint64_t get_u64(const std::byte* p) noexcept {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(p[i]) << (8 * i);
  return v;
}
}  // namespace

void superaccumulator::serialize(std::span<std::byte, serialized_size> out) const noexcept {
  superaccumulator t = *this;
  t.normalize();
  std::memcpy(out.data(), magic, 4);
  out[4] = static_cast<std::byte>(format_version & 0xff);
  out[5] = static_cast<std::byte>(format_version >> 8);
  out[6] = static_cast<std::byte>(num_digits & 0xff);
  out[7] = static_cast<std::byte>(num_digits >> 8);
  put_u64(out.data() + 8, flags_);
  for (int i = 0; i < num_digits; ++i)
    put_u64(out.data() + 16 + 8 * i, static_cast<std::uint64_t>(t.digits_[i]));
}

std::vector<std::byte> superaccumulator::serialize() const {
  std::vector<std::byte> out(serialized_size);
  serialize(std::span<std::byte, serialized_size>(out.data(), serialized_size));
  return out;
}

superaccumulator superaccumulator::deserialize(std::span<const std::byte> in) {
  if (in.size() != serialized_size)
    throw format_error("exala: serialized superaccumulator has " + std::to_string(in.size()) +
                       " bytes, expected " + std::to_string(serialized_size));
  if (std::memcmp(in.data(), magic, 4) != 0)
    throw format_error("exala: serialized superaccumulator has a bad magic number");
  const unsigned version = static_cast<unsigned>(in[4]) | (static_cast<unsigned>(in[5]) << 8);
  const unsigned nd = static_cast<unsigned>(in[6]) | (static_cast<unsigned>(in[7]) << 8);
  if (version != format_version || nd != static_cast<unsigned>(num_digits))
    throw format_error("exala: serialized superaccumulator has version " + std::to_string(version) +
                       " with " + std::to_string(nd) + " digits; this build reads version " +
                       std::to_string(format_version) + " with " + std::to_string(num_digits));
  // Every field is checked against the invariant of the header before the
  // state exists: the six known flag bits (any combination), digits
  // 0..num_digits-2 in [0, 2^32), the top digit in [-2^32, 2^32).
  const std::uint64_t f = get_u64(in.data() + 8);
  if (f >= 64)
    throw format_error("exala: serialized superaccumulator has unknown flag bits (flags " +
                       std::to_string(f) + ", only the low 6 bits are defined)");
  superaccumulator r;
  r.flags_ = static_cast<std::uint32_t>(f);
  for (int i = 0; i < num_digits; ++i) {
    const auto v = static_cast<std::int64_t>(get_u64(in.data() + 16 + 8 * i));
    if (i < num_digits - 1 && (v < 0 || v > 0xffffffff))
      throw format_error("exala: serialized superaccumulator digit " + std::to_string(i) + " is " +
                         std::to_string(v) + ", not normalized (must be in [0, 2^32))");
    if (i == num_digits - 1 && (v < -max_top_digit || v >= max_top_digit))
      throw format_error("exala: serialized superaccumulator top digit " + std::to_string(i) +
                         " is " + std::to_string(v) +
                         ", outside [-2^32, 2^32): the value is beyond the accumulator's "
                         "range [-2^2176, 2^2176)");
    r.digits_[i] = v;
  }
  return r;
}

bool operator==(const superaccumulator& a, const superaccumulator& b) noexcept {
  superaccumulator x = a, y = b;
  x.normalize();
  y.normalize();
  return x.flags_ == y.flags_ && x.digits_ == y.digits_;
}

}  // namespace exala
