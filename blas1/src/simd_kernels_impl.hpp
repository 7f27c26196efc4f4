// Internal: the multi-level kernels, written once over a vector-traits class
// V and included by one translation unit per kernel set (AVX2, AVX-512).
//
// Guarantee: each kernel adds its terms to the accumulator exactly. Method
// (Collange, Defour, Graillat, Iakymchuk, ParCo 2015, adapted): U independent
// per-lane expansions of two terms (a0, a1) live in registers; each term goes
// through TwoSum(a0, .) then TwoSum(a1, .) and the final error, when nonzero,
// is spilled to a small buffer. For dot, p = fl(x*y) takes that path and the
// TwoProd error x*y - p takes its own two-term expansion (b0, b1). Work proceeds in blocks: at the end of a block
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

// Per lane: expansion (a0, a1) for the terms and, for dot, a second
// expansion (b0, b1) for the TwoProd error terms, whose bits reach 2^-106
// below the products and would not fit the first expansion's last term.
template <class V>
struct ml_state {
  typename V::reg a0[U];
  typename V::reg a1[U];
  typename V::reg b0[U];
  typename V::reg b1[U];
};

template <class V>
inline void ml_zero(ml_state<V>& s) {
  for (int u = 0; u < U; ++u) s.a0[u] = s.a1[u] = s.b0[u] = s.b1[u] = V::zero();
}

template <class V>
inline bool ml_finite(const ml_state<V>& s) {
  typename V::reg acc = V::zero();
  for (int u = 0; u < U; ++u) {
    acc = V::add(acc, V::add(V::sub(s.a0[u], s.a0[u]), V::sub(s.a1[u], s.a1[u])));
    acc = V::add(acc, V::add(V::sub(s.b0[u], s.b0[u]), V::sub(s.b1[u], s.b1[u])));
  }
  return V::all_zero_value(acc);  // x - x is 0 for finite x, NaN otherwise
}

template <class V>
inline void ml_flush(superaccumulator& acc, ml_state<V>& s) {
  alignas(64) double buf[4 * U * V::width];
  for (int u = 0; u < U; ++u) {
    V::store(buf + (4 * u) * V::width, s.a0[u]);
    V::store(buf + (4 * u + 1) * V::width, s.a1[u]);
    V::store(buf + (4 * u + 2) * V::width, s.b0[u]);
    V::store(buf + (4 * u + 3) * V::width, s.b1[u]);
  }
  acc.deposit_n(buf, 4 * U * V::width);
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

// Direct exact deposits for blocks the expansions cannot absorb (wide
// dynamic range, or a block that met a special value). The split of each
// finite double m * 2^e into three 32-bit parts at its digit position is done
// in vector registers; only the three scatter-adds are scalar, and they go
// round-robin to four private digit arrays (no store-to-load chains between
// neighbouring terms). Each increment is below 2^32, so the arrays are folded
// into the superaccumulator only every fold_every terms (|digit| < 2^61).
struct scatter_acc {
  static constexpr std::size_t fold_every = std::size_t{1} << 28;
  std::int64_t d[4][superaccumulator::num_digits];
  std::size_t count;
  void clear() {
    for (auto& a : d)
      for (auto& v : a) v = 0;
    count = 0;
  }
  void fold_into(superaccumulator& acc) {
    if (count != 0) acc.fold_digits(d, 4);
    clear();
  }
};

// Adds W finite doubles (bit patterns in `bits`) to the scatter arrays.
template <class V>
inline void scatter_finite(scatter_acc& sc, typename V::ireg bits) {
  using ireg = typename V::ireg;
  alignas(64) std::int64_t lo[V::width], mid[V::width], hi[V::width], idx[V::width];
  const ireg biased = V::srli(bits, 52) & V::iset1(0x7ff);
  const ireg nz = V::nonzero01(biased);  // 1 for normal numbers, 0 for subnormals and zero
  const ireg mant = (bits & V::iset1(0x000fffffffffffffLL)) | V::slli(nz, 52);
  const ireg pos = biased + (V::iset1(1) - nz) + V::iset1(-1075 - superaccumulator::min_exponent);
  const ireg sh = pos & V::iset1(31);
  const ireg sign = V::iset1(0) - V::srli(bits, 63);  // 0 or -1 per lane
  const ireg l = V::sllv(mant, sh) & V::iset1(0xffffffffLL);
  const ireg m = V::srlv(mant, V::iset1(32) - sh) & V::iset1(0xffffffffLL);
  const ireg h = V::srlv(mant, V::iset1(64) - sh);  // a count of 64 gives 0
  V::istore(lo, (l ^ sign) - sign);
  V::istore(mid, (m ^ sign) - sign);
  V::istore(hi, (h ^ sign) - sign);
  V::istore(idx, V::srli(pos, 5));
  for (int k = 0; k < V::width; ++k) {
    std::int64_t* p = sc.d[k & 3] + idx[k];
    p[0] += lo[k];
    p[1] += mid[k];
    p[2] += hi[k];
  }
}

inline void scatter_count(superaccumulator& acc, scatter_acc& sc, std::size_t terms) {
  sc.count += terms;
  if (sc.count >= scatter_acc::fold_every) sc.fold_into(acc);
}

// sum / asum terms x[0..len) exactly: specials go to the scalar path one by one.
template <class V, bool Abs>
void wide_sum(superaccumulator& acc, scatter_acc& sc, const double* x, std::size_t len) {
  using ireg = typename V::ireg;
  std::size_t i = 0;
  for (; i + V::width <= len; i += V::width) {
    ireg bits = V::as_int(V::load(x + i));
    if constexpr (Abs) bits = bits & V::iset1(0x7fffffffffffffffLL);
    const unsigned special = V::special_lanes(bits);
    if (special != 0) [[unlikely]] {
      for (int k = 0; k < V::width; ++k)
        if (special & (1u << k)) {
          if constexpr (Abs) acc.add_abs_n(x + i + k, 1);
          else acc.add_n(x + i + k, 1);
        }
      bits = V::zero_lanes(bits, special);
    }
    scatter_finite<V>(sc, bits);
    scatter_count(acc, sc, V::width);
  }
  if (i < len) {
    if constexpr (Abs) acc.add_abs_n(x + i, len - i);
    else acc.add_n(x + i, len - i);
  }
}

// dot terms x[k]*y[k]: TwoProd where it is exact (|p| in [2^-968, DBL_MAX]),
// both parts scattered; every other lane (zero, tiny or special products)
// goes to the scalar exact path one by one.
template <class V>
void wide_dot(superaccumulator& acc, scatter_acc& sc, const double* x, const double* y, std::size_t len) {
  using reg = typename V::reg;
  std::size_t i = 0;
  const reg lo_ok = V::set1(0x1p-968), hi_ok = V::set1(0x1.fffffffffffffp+1023);
  for (; i + V::width <= len; i += V::width) {
    const reg a = V::load(x + i), b = V::load(y + i);
    reg p = V::mul(a, b);
    reg pe = V::fmsub(a, b, p);
    const reg ap = V::abs(p);
    const unsigned ok = V::mask_bits(V::mask_and(V::ge(ap, lo_ok), V::le(ap, hi_ok)));
    const unsigned bad = ~ok & ((1u << V::width) - 1);
    if (bad != 0) [[unlikely]] {
      for (int k = 0; k < V::width; ++k)
        if (bad & (1u << k)) acc.add_products_n(x + i + k, y + i + k, 1);
      p = V::as_double(V::zero_lanes(V::as_int(p), bad));
      pe = V::as_double(V::zero_lanes(V::as_int(pe), bad));
    }
    scatter_finite<V>(sc, V::as_int(p));
    scatter_finite<V>(sc, V::as_int(pe));
    scatter_count(acc, sc, 2 * V::width);
  }
  if (i < len) acc.add_products_n(x + i, y + i, len - i);
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
  scatter_acc sc;
  sc.clear();
  auto exact = [&acc, &sc, x](std::size_t b, std::size_t len) { wide_sum<V, Abs>(acc, sc, x + b, len); };
  run_blocks<V>(acc, n, step, check, exact);
  sc.fold_into(acc);
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
      reg s, r;
      vtwo_sum<V>(st.a0[u], p, st.a0[u], s);
      vtwo_sum<V>(st.a1[u], s, st.a1[u], e[u]);
      vtwo_sum<V>(st.b0[u], pe, st.b0[u], r);
      vtwo_sum<V>(st.b1[u], r, st.b1[u], f[u]);
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
  scatter_acc sc;
  sc.clear();
  auto exact = [&acc, &sc, x, y, &tiny_seen](std::size_t b, std::size_t len) {
    tiny_seen = V::mask_none();
    wide_dot<V>(acc, sc, x + b, y + b, len);
  };
  run_blocks<V>(acc, n, step, check, exact);
  sc.fold_into(acc);
}
