// Internal: the multi-level kernels, written once over a vector-traits class
// V and included by one translation unit per kernel set (AVX2, AVX-512).
//
// Guarantee: each kernel adds its terms to the accumulator exactly. Method
// (Collange, Defour, Graillat, Iakymchuk, ParCo 2015, adapted): U independent
// per-lane expansions of two terms (a0, a1) live in registers; each term goes
// through TwoSum(a0, .) then TwoSum(a1, .) and the final error, when nonzero,
// is spilled to a small buffer. Work proceeds in blocks: at the end of a block
// the state and the spills are checked to be finite, and the spills are
// deposited into the superaccumulator. A block whose arithmetic met an inf,
// a NaN or an overflow, or (dot) a product whose TwoProd error may have
// underflowed, is redone from the saved state with the exact scalar path, so
// the fast path never has to be right about special cases: it only has to
// detect them. A block that spills too much (wide dynamic range) is redone
// with direct superaccumulator deposits, and the next blocks skip the
// expansions for a while.
//
// This file must be included inside an anonymous namespace.

constexpr int U = 4;                       // independent expansions per lane
constexpr std::size_t block_len = 2048;    // elements per verified block
constexpr int spill_cap = 64;              // spilled vectors per block
constexpr int wide_skip_blocks = 16;       // blocks to skip after a wide one

template <class V>
struct ml_state {
  typename V::reg a0[U];
  typename V::reg a1[U];
};

template <class V>
inline void ml_zero(ml_state<V>& s) {
  for (int u = 0; u < U; ++u) s.a0[u] = s.a1[u] = V::zero();
}

template <class V>
inline bool ml_finite(const ml_state<V>& s) {
  typename V::reg acc = V::zero();
  for (int u = 0; u < U; ++u) acc = V::add(acc, V::add(V::sub(s.a0[u], s.a0[u]), V::sub(s.a1[u], s.a1[u])));
  return V::all_zero_value(acc);  // x - x is 0 for finite x, NaN otherwise
}

template <class V>
inline void ml_flush(superaccumulator& acc, ml_state<V>& s) {
  alignas(64) double buf[2 * U * V::width];
  for (int u = 0; u < U; ++u) {
    V::store(buf + (2 * u) * V::width, s.a0[u]);
    V::store(buf + (2 * u + 1) * V::width, s.a1[u]);
  }
  acc.deposit_n(buf, 2 * U * V::width);
  ml_zero(s);
}

// (s, e) = TwoSum(a, b)
template <class V>
inline void vtwo_sum(typename V::reg a, typename V::reg b, typename V::reg& s, typename V::reg& e) {
  s = V::add(a, b);
  const typename V::reg bp = V::sub(s, a);
  const typename V::reg ap = V::sub(s, bp);
  e = V::add(V::sub(a, ap), V::sub(b, bp));
}

template <class V>
inline bool spills_finite(const double* spill, int nvec) {
  typename V::reg acc = V::zero();
  for (int k = 0; k < nvec; ++k) {
    const typename V::reg v = V::load(spill + k * V::width);
    acc = V::add(acc, V::sub(v, v));
  }
  return V::all_zero_value(acc);
}

// Shared block driver. Step(state, j, spill, nspill) processes U vectors at
// offset j of the block and returns false when the spill buffer is full.
// Check(begin, len) returns true when the block's fast-path result may be
// trusted beyond finiteness (dot: no underflowing TwoProd). Exact(begin, len)
// adds the block exactly.
template <class V, class Step, class Check, class Exact>
void run_blocks(superaccumulator& acc, std::size_t n, Step step, Check check, Exact exact) {
  constexpr std::size_t group = U * V::width;
  ml_state<V> st;
  ml_zero(st);
  alignas(64) double spill[spill_cap * V::width];
  int wide_skip = 0;
  std::size_t i = 0;
  while (n - i >= group) {
    const std::size_t avail = (n - i) / group * group;
    const std::size_t len = avail < block_len ? avail : block_len;  // no std:: templates here
    if (wide_skip > 0) {
      exact(i, len);
      --wide_skip;
      i += len;
      continue;
    }
    const ml_state<V> saved = st;
    int nspill = 0;
    bool full = false;
    for (std::size_t j = 0; j < len; j += group) {
      if (!step(st, i + j, spill, nspill)) {
        full = true;
        break;
      }
    }
    if (!full && ml_finite(st) && spills_finite<V>(spill, nspill) && check(i, len)) {
      acc.deposit_n(spill, static_cast<std::size_t>(nspill) * V::width);
    } else {
      st = saved;
      if (full) {
        wide_skip = wide_skip_blocks;  // wide dynamic range: deposit directly for a while
      } else {
        ml_flush(acc, st);  // restart the expansions from zero (they may be near overflow)
      }
      exact(i, len);
    }
    i += len;
  }
  if (i < n) exact(i, n - i);
  ml_flush(acc, st);
}

template <class V, bool Abs>
void sum_kernel(superaccumulator& acc, const double* x, std::size_t n) {
  using reg = typename V::reg;
  auto step = [x](ml_state<V>& st, std::size_t j, double* spill, int& nspill) {
    reg e[U];
    for (int u = 0; u < U; ++u) {
      reg v = V::load(x + j + u * V::width);
      if constexpr (Abs) v = V::abs(v);
      reg t;
      vtwo_sum<V>(st.a0[u], v, st.a0[u], t);
      vtwo_sum<V>(st.a1[u], t, st.a1[u], e[u]);
    }
    const reg any = V::bor(V::bor(e[0], e[1]), V::bor(e[2], e[3]));
    if (V::any_bits(any)) [[unlikely]] {
      if (nspill + U > spill_cap) return false;
      for (int u = 0; u < U; ++u) V::store(spill + (nspill + u) * V::width, e[u]);
      nspill += U;
    }
    return true;
  };
  auto check = [](std::size_t, std::size_t) { return true; };
  auto exact = [&acc, x](std::size_t b, std::size_t len) {
    if constexpr (Abs)
      acc.add_abs_n(x + b, len);
    else
      acc.add_n(x + b, len);
  };
  run_blocks<V>(acc, n, step, check, exact);
}

// Smallest |p| for which TwoProd's error term is certainly exact: |p| >= 2^-968
// implies exponent(x) + exponent(y) >= -969.
constexpr double tiny_product = 0x1p-968;

template <class V>
void dot_kernel(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  using reg = typename V::reg;
  typename V::mask tiny_seen = V::mask_none();
  auto step = [x, y, &tiny_seen](ml_state<V>& st, std::size_t j, double* spill, int& nspill) {
    reg e[U], f[U];
    typename V::mask tiny = V::mask_none();
    const reg t = V::set1(tiny_product);
    for (int u = 0; u < U; ++u) {
      const reg a = V::load(x + j + u * V::width);
      const reg b = V::load(y + j + u * V::width);
      const reg p = V::mul(a, b);
      const reg pe = V::fmsub(a, b, p);  // a*b - p, exact unless tiny
      tiny = V::mask_or(tiny, V::lt(V::abs(p), t));
      reg s;
      vtwo_sum<V>(st.a0[u], p, st.a0[u], s);
      vtwo_sum<V>(st.a1[u], s, st.a1[u], e[u]);
      vtwo_sum<V>(st.a1[u], pe, st.a1[u], f[u]);
    }
    tiny_seen = V::mask_or(tiny_seen, tiny);
    const reg any = V::bor(V::bor(V::bor(e[0], e[1]), V::bor(e[2], e[3])),
                           V::bor(V::bor(f[0], f[1]), V::bor(f[2], f[3])));
    if (V::any_bits(any)) [[unlikely]] {
      if (nspill + 2 * U > spill_cap) return false;
      for (int u = 0; u < U; ++u) {
        V::store(spill + (nspill + 2 * u) * V::width, e[u]);
        V::store(spill + (nspill + 2 * u + 1) * V::width, f[u]);
      }
      nspill += 2 * U;
    }
    return true;
  };
  // A tiny |p| is harmless when the exact product is zero (x or y is zero);
  // otherwise the block is redone exactly.
  auto check = [x, y, &tiny_seen](std::size_t b, std::size_t len) {
    if (!V::mask_any(tiny_seen)) return true;
    tiny_seen = V::mask_none();
    const reg t = V::set1(tiny_product);
    const reg z = V::zero();
    for (std::size_t k = 0; k < len; k += V::width) {
      const reg a = V::load(x + b + k);
      const reg c = V::load(y + b + k);
      const typename V::mask bad =
          V::mask_and(V::lt(V::abs(V::mul(a, c)), t), V::mask_and(V::ne(a, z), V::ne(c, z)));
      if (V::mask_any(bad)) return false;
    }
    return true;
  };
  auto exact = [&acc, x, y, &tiny_seen](std::size_t b, std::size_t len) {
    tiny_seen = V::mask_none();
    acc.add_products_n(x + b, y + b, len);
  };
  run_blocks<V>(acc, n, step, check, exact);
}
