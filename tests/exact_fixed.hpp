// tests/exact_fixed.hpp - an exact oracle by plain integer arithmetic.
//
// exact_fixed holds a real number as a two's complement fixed-point integer
// of 72 x 64 bits whose least significant bit weighs 2^-2240. Every finite
// double (2^-1074 .. 2^1024) and every product of two finite doubles
// (2^-2148 .. 2^2048) is an integer multiple of 2^-2240, and sums of up to
// 2^100 of them stay far below the top bit (2^2367), so add / add_product /
// compare are exact. It deliberately shares no code with the library: it is
// the independent oracle for the error-free transforms and the expansions,
// and works without MPFR.
#pragma once

#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <stdexcept>

namespace exala_test {

class exact_fixed {
 public:
  static constexpr int lsb_exp = -2240;
  static constexpr int limbs = 72;  // 4608 bits

  exact_fixed() = default;
  explicit exact_fixed(double x) { add(x); }

  // += x (finite x only).
  void add(double x) {
    std::uint64_t m;
    int e;
    bool neg;
    decompose(x, m, e, neg);
    if (m != 0) add_scaled(m, e, neg);
  }
  void sub(double x) { add(-x); }

  // += a*b exactly (finite a, b).
  void add_product(double a, double b) {
    std::uint64_t ma, mb;
    int ea, eb;
    bool na, nb;
    decompose(a, ma, ea, na);
    decompose(b, mb, eb, nb);
    if (ma == 0 || mb == 0) return;
    add_scaled(static_cast<unsigned __int128>(ma) * mb, ea + eb, na != nb);
  }

  // += (-1)^neg * m * 2^e.
  void add_scaled(unsigned __int128 m, int e, bool neg) {
    const int shift = e - lsb_exp;
    if (shift < 0) throw std::logic_error("exact_fixed: term below 2^-2240");
    const int li = shift / 64, bi = shift % 64;
    // m << bi spans at most three limbs (m < 2^128, bi < 64).
    std::uint64_t v[3];
    const auto lo = static_cast<std::uint64_t>(m);
    const auto hi = static_cast<std::uint64_t>(m >> 64);
    v[0] = lo << bi;
    v[1] = bi ? (hi << bi) | (lo >> (64 - bi)) : hi;
    v[2] = bi ? hi >> (64 - bi) : 0;
    for (int k = 0; k < 3; ++k)
      if (li + k >= limbs && v[k] != 0) throw std::logic_error("exact_fixed: term above range");
    if (!neg) {
      unsigned carry = 0;
      for (int k = li; k < limbs; ++k) {
        const std::uint64_t add = k - li < 3 ? v[k - li] : 0;
        if (k - li >= 3 && carry == 0) break;
        const unsigned __int128 s = static_cast<unsigned __int128>(w_[k]) + add + carry;
        w_[k] = static_cast<std::uint64_t>(s);
        carry = static_cast<unsigned>(s >> 64);
      }
    } else {
      unsigned borrow = 0;
      for (int k = li; k < limbs; ++k) {
        const std::uint64_t sub = k - li < 3 ? v[k - li] : 0;
        if (k - li >= 3 && borrow == 0) break;
        const unsigned __int128 need = static_cast<unsigned __int128>(sub) + borrow;
        const std::uint64_t a = w_[k];
        w_[k] = a - static_cast<std::uint64_t>(need);  // modulo 2^64
        borrow = static_cast<unsigned __int128>(a) < need ? 1u : 0u;
      }
    }
  }

  void add(const exact_fixed& o) {
    unsigned carry = 0;
    for (int k = 0; k < limbs; ++k) {
      const unsigned __int128 s = static_cast<unsigned __int128>(w_[k]) + o.w_[k] + carry;
      w_[k] = static_cast<std::uint64_t>(s);
      carry = static_cast<unsigned>(s >> 64);
    }
  }

  void negate() {
    unsigned carry = 1;
    for (int k = 0; k < limbs; ++k) {
      const unsigned __int128 s = static_cast<unsigned __int128>(~w_[k]) + carry;
      w_[k] = static_cast<std::uint64_t>(s);
      carry = static_cast<unsigned>(s >> 64);
    }
  }

  int sign() const {
    if (w_[limbs - 1] >> 63) return -1;
    for (auto v : w_)
      if (v) return 1;
    return 0;
  }

  exact_fixed abs() const {
    exact_fixed r = *this;
    if (r.sign() < 0) r.negate();
    return r;
  }

  // Three-way comparison of the values.
  friend int compare(const exact_fixed& a, const exact_fixed& b) {
    exact_fixed d = a;
    exact_fixed nb = b;
    nb.negate();
    d.add(nb);
    return d.sign();
  }
  friend bool operator==(const exact_fixed& a, const exact_fixed& b) { return a.w_ == b.w_; }

  // Multiplies by 2^k exactly (k may be negative; bits shifted out must be 0).
  void scale2(int k) {
    exact_fixed r;
    const bool neg = sign() < 0;
    exact_fixed m = neg ? abs() : *this;
    for (int i = 0; i < limbs * 64; ++i) {
      if (!((m.w_[i / 64] >> (i % 64)) & 1)) continue;
      const int j = i + k;
      if (j < 0 || j >= limbs * 64 - 1) throw std::logic_error("exact_fixed::scale2 out of range");
      r.w_[j / 64] |= std::uint64_t{1} << (j % 64);
    }
    if (neg) r.negate();
    *this = r;
  }

  const std::array<std::uint64_t, limbs>& words() const { return w_; }

 private:
  static void decompose(double x, std::uint64_t& m, int& e, bool& neg) {
    if (!std::isfinite(x)) throw std::logic_error("exact_fixed: non-finite term");
    const std::uint64_t b = std::bit_cast<std::uint64_t>(x);
    const int biased = static_cast<int>((b >> 52) & 0x7ff);
    m = (b & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{biased != 0} << 52);
    e = (biased == 0 ? 1 : biased) - 1075;
    neg = (b >> 63) != 0;
  }

  std::array<std::uint64_t, limbs> w_{};
};

}  // namespace exala_test
