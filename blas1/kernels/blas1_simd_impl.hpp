// Internal: the multi-level kernels, written once over a vector-traits class
// V and included by one translation unit per kernel set (AVX2, AVX-512).
//
// Guarantee: each kernel adds its terms to the accumulator exactly.
//
// Method: the multi-level accumulator of Collange, Defour, Graillat and
// Iakymchuk (ParCo 2015), with its register level made of anchored ("binned")
// expansions after Demmel and Nguyen (ARITH 2013): per lane, level 0 holds
// a0 = M0 + (a multiple of ulp(M0)) and level 1 holds a1 = M1 + (...), where
// the anchors M = 1.5 * 2^k are chosen from a bound X on the block's terms.
// Because |a0| > |x| always holds, FastTwoSum (3 flops) is exact where a
// general expansion needs TwoSum (6 flops):
//   s = a0 + x;  r = x - (s - a0);  a0 = s        (x = (s - a0) + r exactly)
//   s = a1 + r;  r2 = r - (s - a1); a1 = s
// and a nonzero r2 is spilled to a small buffer (rare: only bits more than
// 73 binades below X reach it). For dot, p = fl(x*y) runs through one such
// chain and the TwoProd error x*y - p through a second one anchored 53
// binades lower.
//
// Exactness does not rest on guesses: work proceeds in blocks, and a block's
// register work is kept only if, at its end, (1) every term was <= X in
// magnitude (so the FastTwoSum preconditions and the anchors' binades held),
// (2) the state and the spills are finite (no inf, NaN or overflow met), and
// (3) for dot, no product was small enough for its TwoProd error to
// underflow. Otherwise the block is redone from the saved state: with new
// anchors when its terms outgrew X, or else with direct exact deposits (also
// used when a block spills too much: wide dynamic range).
//
// Bounds, with L = terms per lane per block (<= 128), X a power of two and
// k0 = log2(X) + 22, k1 = k0 - 43:
//  * level 0 starts a block within 2^(k0-3) of M0 (checked, else flushed)
//    and moves by at most 2 L X <= 2^(k0-14), so a0 stays in (2^k0, 2^(k0+1)):
//    its ulp is 2^(k0-52) and |r| <= 2^(k0-53);
//  * level 1 starts within 2^(k1-3) of M1 and moves by at most
//    L 2^(k0-52) <= 2^(k1-2), so a1 stays in (2^k1, 2^(k1+1)) > |r|;
//  * a - M is exact (Sterbenz) when a level is flushed into the accumulator.
// The windows are sufficient, with a wide margin: FastTwoSum stays exact as
// long as |a| >= |term|, so a level that drifted past its window would still
// be exact (it would only spill more); exactness would be at risk only after
// a drift of about half the anchor (~2^22 X per lane, some 2^31 terms), which
// the recentering at every block start rules out.
// Anchors stay normal doubles for 2^-1001 <= X <= 2^1001; terms above
// 2^997 always take the direct path.
//
// This file must be included inside an anonymous namespace.

constexpr int U = 2;                       // independent vectors per level (2 beat 1, 3, 4
                                           // on Zen 5 for AVX-512 and AVX2: register pressure)
constexpr std::size_t lane_terms = 128;    // terms per lane per block (L in the bounds)
constexpr int spill_cap = 64;              // spilled vectors per block
constexpr int wide_skip_blocks = 16;       // blocks to skip after a wide one
constexpr int min_x_exp = -1001;           // X range for normal anchors
constexpr int max_x_exp = 1001;

inline double pow2(int e) {  // 2^e for -1022 <= e <= 1023, no library call
  return __builtin_bit_cast(double, static_cast<std::uint64_t>(e + 1023) << 52);
}
inline int exponent_bits(double v) {  // biased exponent field
  return static_cast<int>((__builtin_bit_cast(std::uint64_t, v) >> 52) & 0x7ff);
}

// Two anchored levels over U vectors.
template <class V>
struct chain {
  typename V::reg a0[U], a1[U];
  double m0, m1;  // anchors 1.5 * 2^k0, 1.5 * 2^k1
  double w0, w1;  // drift windows 2^(k0-3), 2^(k1-3)
  double x;       // terms must satisfy |t| <= x
};

template <class V>
inline void chain_anchor(chain<V>& c, int xexp) {
  c.x = pow2(xexp);
  c.m0 = 1.5 * pow2(xexp + 22);
  c.m1 = 1.5 * pow2(xexp + 22 - 43);
  c.w0 = pow2(xexp + 19);
  c.w1 = pow2(xexp + 22 - 46);
  for (int u = 0; u < U; ++u) {
    c.a0[u] = V::set1(c.m0);
    c.a1[u] = V::set1(c.m1);
  }
}

// Deposits a - M of every lane (exact by Sterbenz) and resets to the anchor.
template <class V>
inline void level_flush(superaccumulator& acc, typename V::reg* a, double m) {
  alignas(64) double buf[U * V::width];
  const typename V::reg vm = V::set1(m);
  for (int u = 0; u < U; ++u) {
    V::store(buf + u * V::width, V::sub(a[u], vm));
    a[u] = vm;
  }
  acc.deposit_n(buf, U * V::width);
}

template <class V>
inline void chain_flush(superaccumulator& acc, chain<V>& c) {
  level_flush<V>(acc, c.a0, c.m0);
  level_flush<V>(acc, c.a1, c.m1);
}

// At a block start: flush a level whose drift left its window.
template <class V>
inline void chain_recenter(superaccumulator& acc, chain<V>& c) {
  typename V::mask out = V::mask_none();
  const typename V::reg m0 = V::set1(c.m0), w0 = V::set1(c.w0);
  for (int u = 0; u < U; ++u) out = V::mask_or(out, V::gt(V::abs(V::sub(c.a0[u], m0)), w0));
  if (V::mask_any(out)) level_flush<V>(acc, c.a0, c.m0);
  out = V::mask_none();
  const typename V::reg m1 = V::set1(c.m1), w1 = V::set1(c.w1);
  for (int u = 0; u < U; ++u) out = V::mask_or(out, V::gt(V::abs(V::sub(c.a1[u], m1)), w1));
  if (V::mask_any(out)) level_flush<V>(acc, c.a1, c.m1);
}

template <class V>
inline bool chain_finite(const chain<V>& c) {
  typename V::reg z = V::zero();
  for (int u = 0; u < U; ++u) z = V::add(z, V::add(V::sub(c.a0[u], c.a0[u]), V::sub(c.a1[u], c.a1[u])));
  return V::all_zero_value(z);  // x - x is 0 for finite x, NaN otherwise
}

// One term vector t into lane set u of the chain; returns the level-1 residual.
template <class V>
[[gnu::always_inline]] inline typename V::reg chain_add(chain<V>& c, int u, typename V::reg t) {
  typename V::reg s, r, r2;
  // fast_two_sum_fma: the same bits as fast_two_sum, with the subtractions on
  // the FMA pipes; on level 0 only, which measured best here (sum -13%, dot
  // -5% against plain FastTwoSum on both levels, U = 2, Zen 5).
  V::eft::fast_two_sum_fma(c.a0[u], t, s, r);
  c.a0[u] = s;
  V::eft::fast_two_sum(c.a1[u], r, s, r2);
  c.a1[u] = s;
  return r2;
}

// Exponent X of the smallest allowed power of two > 16 * m (headroom for
// slowly growing data), or max_x_exp + 1 when m is too large or not finite
// (e = floor(log2 m) + 5 <= max_x_exp exactly when m < 2^(max_x_exp - 4);
// callers take the direct path for any result above max_x_exp).
inline int x_exponent_for(double m) {
  if (!(m < pow2(max_x_exp - 4))) return max_x_exp + 1;
  int e = exponent_bits(m) - 1023 + 1 + 4;  // 2^e > m * 16
  return e < min_x_exp ? min_x_exp : e;
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

template <class V>
inline double hmin(typename V::reg v) {  // NaN if any lane is NaN
  alignas(64) double b[V::width];
  V::store(b, v);
  double m = b[0];
  for (int k = 1; k < V::width; ++k) m = (b[k] < m || b[k] != b[k]) ? b[k] : m;
  return m;
}

template <class V>
inline double hmax(typename V::reg v) {
  alignas(64) double b[V::width];
  V::store(b, v);
  double m = b[0];
  for (int k = 1; k < V::width; ++k) m = (b[k] > m || b[k] != b[k]) ? b[k] : m;
  return m;
}

// Direct exact deposits for blocks the expansions cannot absorb (wide
// dynamic range, or a block that met a special value): exponent-indexed bins
// with delayed carries, after R. Neal's "large superaccumulator" (xsum,
// arXiv:1505.05571). A finite double with sign s, biased exponent e and
// significand m (implicit bit included; for e = 0 the fraction, doubled)
// equals (-1)^s (m << ((e & 3) + [e = 0])) 2^(4 (e >> 2) - 1075), so each term
// is one unsigned add of a value below 2^56 into bin (s, e >> 2) of 1024 (the
// top ten bits of the double). The split is done in vector registers, only
// the adds are scalar. A bin's carry out (at most one per 2^8 adds to it) is
// recorded at once in a raw digit array; the bins are folded into the
// superaccumulator at the end, or every fold_every terms.
struct scatter_acc {
  static constexpr int nbins = 1024;
  // Raw digits stay below 2^61 (fold_digits' bound): per fold at most
  // fold_every / 2^8 carries of < 2^32 each, and at most four digit groups
  // (see fold_into) add < 2^32 each to one digit.
  static constexpr std::size_t fold_every = std::size_t{1} << 22;
  // Bin j weighs 2^(4 (j & 511) - 1075), i.e. bit 4 (j & 511) + bin_pos0
  // above the superaccumulator's min_exponent.
  static constexpr int bin_pos0 = -1075 - superaccumulator::min_exponent;
  std::uint64_t bins[nbins];
  std::int64_t raw[superaccumulator::num_digits];
  std::size_t count;
  bool zeroed;  // zeroed lazily: most calls never use the bins
  void reset() {
    count = 0;
    zeroed = false;
  }
  void prepare() {  // before any scatter
    if (zeroed) return;
    for (auto& v : bins) v = 0;
    for (auto& v : raw) v = 0;
    zeroed = true;
  }
  // 2^64 units of bin j, signed by the bin's sign.
  [[gnu::noinline]] void carry(std::uint64_t j) {
    const int pos = 4 * static_cast<int>(j & 511) + bin_pos0 + 64;
    const std::int64_t one = std::int64_t{1} << (pos & 31);
    raw[pos >> 5] += (j >> 9) != 0 ? -one : one;
  }
  // Leaves the bins and the raw digits zeroed. The two bins of one
  // exponent (two signs) are combined first (|v| < 2^64), and the
  // eight exponents that share a 32-bit digit position are summed in a
  // 128-bit register (|sum| < 2^100) before their digits are written: one
  // write per digit group instead of a chain of overlapping stores per bin.
  void fold_into(superaccumulator& acc) {
    if (!zeroed || count == 0) return;
    constexpr int half = nbins / 2;  // bins [half, nbins) hold the negative terms
    __int128 group = 0;
    int gd = -1;  // the digit of the group in progress
    auto flush = [&] {
      if (gd < 0) return;
      const auto ug = static_cast<unsigned __int128>(group);
      raw[gd] += static_cast<std::int64_t>(static_cast<std::uint64_t>(ug) & 0xffffffffu);
      raw[gd + 1] += static_cast<std::int64_t>(static_cast<std::uint64_t>(ug >> 32) & 0xffffffffu);
      raw[gd + 2] += static_cast<std::int64_t>(static_cast<std::uint64_t>(ug >> 64) & 0xffffffffu);
      raw[gd + 3] += static_cast<std::int64_t>(group >> 96);
      group = 0;
    };
    std::uint64_t* const b = bins;
    for (int j = 0; j < half; j += 4) {
      std::uint64_t any = 0;
      for (int t = j; t < j + 4; ++t) any |= b[t] | b[t + half];
      if (any == 0) continue;
      for (int t = j; t < j + 4; ++t) {
        const __int128 v = static_cast<__int128>(b[t]) - static_cast<__int128>(b[t + half]);
        b[t] = b[t + half] = 0;
        if (v == 0) continue;
        const int pos = 4 * t + bin_pos0;
        if ((pos >> 5) != gd) {
          flush();
          gd = pos >> 5;
        }
        group += v * (static_cast<__int128>(1) << (pos & 31));
      }
    }
    flush();
    acc.fold_digits(&raw, 1);
    for (auto& v : raw) v = 0;
    count = 0;
  }
};

// The split is staged: the vector part writes each term's bin index and
// shifted significand for up to stage_terms terms, then one scalar loop does
// the adds (a tight loop of load, add, store; no vector-to-scalar moves).
constexpr int stage_terms = 64;
struct stage_buf {
  alignas(64) std::int64_t val[stage_terms];
  alignas(64) std::int64_t idx[stage_terms];
};

// Stages W finite doubles (bit patterns in `bits`) at position k.
template <class V>
[[gnu::always_inline]] inline void stage_finite(stage_buf& st, int k, typename V::ireg bits) {
  using ireg = typename V::ireg;
  const ireg biased = V::srli(bits, 52) & V::iset1(0x7ff);
  const ireg nz = V::nonzero01(biased);  // 1 for normal numbers, 0 for subnormals and zero
  const ireg mant = (bits & V::iset1(0x000fffffffffffffLL)) | V::slli(nz, 52);
  const ireg sh = (biased & V::iset1(3)) + (V::iset1(1) - nz);
  V::istore(st.val + k, V::sllv(mant, sh));
  V::istore(st.idx + k, V::srli(bits, 54));
}

// Adds the first n staged terms to the bins.
inline void scatter_staged(scatter_acc& sc, const stage_buf& st, int n) {
  std::uint64_t* const b = sc.bins;
  for (int k = 0; k < n; ++k) {
    const auto j = static_cast<std::uint64_t>(st.idx[k]);
    std::uint64_t r;
    if (__builtin_add_overflow(b[j], static_cast<std::uint64_t>(st.val[k]), &r)) [[unlikely]] sc.carry(j);
    b[j] = r;
  }
}

// Before scattering `terms` more terms (at most fold_every): folds first if
// they would pass the bound.
inline void scatter_reserve(superaccumulator& acc, scatter_acc& sc, std::size_t terms) {
  sc.prepare();
  if (sc.count + terms > scatter_acc::fold_every) sc.fold_into(acc);
  sc.count += terms;
}

// sum / asum terms x[0..len) exactly: specials go to the scalar path one by one.
// Below this many terms the direct path deposits term by term: the bins
// (8 KiB) would cost more to zero and fold than the terms.
constexpr std::size_t scatter_min_terms = 64;
// Terms per scatter_reserve (far below fold_every).
constexpr std::size_t scatter_chunk = std::size_t{1} << 16;

template <class V, bool Abs>
void wide_sum(superaccumulator& acc, scatter_acc& sc, const double* x, std::size_t len) {
  using ireg = typename V::ireg;
  if (len < scatter_min_terms) {
    if constexpr (Abs) acc.add_abs_n(x, len);
    else acc.add_n(x, len);
    return;
  }
  stage_buf st;
  std::size_t i = 0;
  for (std::size_t reserved = 0; i + V::width <= len;) {
    if (i == reserved) {
      const std::size_t terms = len - i < scatter_chunk ? len - i : scatter_chunk;
      scatter_reserve(acc, sc, terms);
      reserved += terms;
    }
    int k = 0;
    for (; k < stage_terms && i + V::width <= len && i < reserved; k += V::width, i += V::width) {
      ireg bits = V::as_int(V::load(x + i));
      if constexpr (Abs) bits = bits & V::iset1(0x7fffffffffffffffLL);
      const unsigned special = V::special_lanes(bits);
      if (special != 0) [[unlikely]] {
        for (int l = 0; l < V::width; ++l)
          if (special & (1u << l)) {
            if constexpr (Abs) acc.add_abs_n(x + i + l, 1);
            else acc.add_n(x + i + l, 1);
          }
        bits = V::zero_lanes(bits, special);
      }
      stage_finite<V>(st, k, bits);
    }
    scatter_staged(sc, st, k);
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
  if (len < scatter_min_terms) {
    acc.add_products_n(x, y, len);
    return;
  }
  stage_buf st;
  std::size_t i = 0;
  const reg lo_ok = V::set1(0x1p-968), hi_ok = V::set1(0x1.fffffffffffffp+1023);
  for (std::size_t reserved = 0; i + V::width <= len;) {
    if (i == reserved) {  // two terms per product
      const std::size_t terms = len - i < scatter_chunk ? len - i : scatter_chunk;
      scatter_reserve(acc, sc, 2 * terms);
      reserved += terms;
    }
    int k = 0;
    for (; k < stage_terms && i + V::width <= len && i < reserved; k += 2 * V::width, i += V::width) {
      const reg a = V::load(x + i), b = V::load(y + i);
      reg p = V::mul(a, b);
      reg pe = V::fmsub(a, b, p);
      const reg ap = V::abs(p);
      const unsigned ok = V::mask_bits(V::mask_and(V::ge(ap, lo_ok), V::le(ap, hi_ok)));
      const unsigned bad = ~ok & ((1u << V::width) - 1);
      if (bad != 0) [[unlikely]] {
        for (int l = 0; l < V::width; ++l)
          if (bad & (1u << l)) acc.add_products_n(x + i + l, y + i + l, 1);
        p = V::as_double(V::zero_lanes(V::as_int(p), bad));
        pe = V::as_double(V::zero_lanes(V::as_int(pe), bad));
      }
      stage_finite<V>(st, k, V::as_int(p));
      stage_finite<V>(st, k + V::width, V::as_int(pe));
    }
    scatter_staged(sc, st, k);
  }
  if (i < len) acc.add_products_n(x + i, y + i, len - i);
}

// Shared block driver over a kernel policy K with:
//   static constexpr int chains;          // 1 (sum) or 2 (dot)
//   double block_max(b, len);             // max |term| of a block (NaN if any)
//   void anchor(chain* c, int xexp);      // set all chains' anchors from X
//   bool step(chain* c, j, spill, nspill, vmax&)  // U vectors; false: spill full
//   bool check(b, len);                   // extra validity (dot: tiny products)
//   void exact(b, len);                   // direct exact deposits
template <class V, class K>
void run_blocks(superaccumulator& acc, std::size_t n, K& k) {
  using reg = typename V::reg;
  constexpr std::size_t group = U * V::width;
  chain<V> ch[K::chains];
  bool anchored = false;
  alignas(64) double spill[spill_cap * V::width];
  int wide_skip = 0;
  std::size_t i = 0;
  auto flush_all = [&] {
    if (anchored)
      for (auto& c : ch) chain_flush<V>(acc, c);
    anchored = false;
  };
  while (n - i >= group) {
    const std::size_t avail = (n - i) / group * group;
    constexpr std::size_t block_len = lane_terms * group;  // elements per verified block
    const std::size_t len = avail < block_len ? avail : block_len;  // no std:: templates here
    if (wide_skip > 0) {
      k.exact(i, len);
      --wide_skip;
      i += len;
      continue;
    }
    bool retried = false;
    for (;;) {
      if (!anchored) {
        const int xe = x_exponent_for(k.block_max(i, len));
        if (xe > max_x_exp) {  // huge or special terms: no anchors fit
          k.exact(i, len);
          break;
        }
        k.anchor(ch, xe);
        anchored = true;
      }
      for (auto& c : ch) chain_recenter<V>(acc, c);
      chain<V> saved[K::chains];
      for (int c = 0; c < K::chains; ++c) saved[c] = ch[c];
      int nspill = 0;
      bool full = false;
      reg vmax = V::zero();
      for (std::size_t j = 0; j < len; j += group) {
        if (!k.step(ch, i + j, spill, nspill, vmax)) {
          full = true;
          break;
        }
      }
      bool finite = true;
      for (auto& c : ch) finite = finite && chain_finite<V>(c);
      const double m = hmax<V>(vmax);
      if (!full && finite && m <= ch[0].x && spills_finite<V>(spill, nspill) && k.check(i, len)) {
        acc.deposit_n(spill, static_cast<std::size_t>(nspill) * V::width);
        break;
      }
      for (int c = 0; c < K::chains; ++c) ch[c] = saved[c];
      // Terms outgrew X, or fell far below it (a full spill buffer with small
      // terms): re-anchor from this block and try once more.
      const double bm = k.block_max(i, len);
      const bool rescale = !retried && bm == bm && (bm > ch[0].x || (full && bm * 0x1p20 < ch[0].x));
      flush_all();
      if (rescale) {
        retried = true;
        continue;
      }
      if (full) wide_skip = wide_skip_blocks;  // wide dynamic range: deposit directly for a while
      k.exact(i, len);
      break;
    }
    i += len;
  }
  if (i < n) k.exact(i, n - i);
  flush_all();
}

template <class V, bool Abs>
struct sum_policy {
  using reg = typename V::reg;
  static constexpr int chains = 1;
  superaccumulator& acc;
  scatter_acc& sc;
  const double* x;

  double block_max(std::size_t b, std::size_t len) const {
    reg m = V::zero();
    for (std::size_t j = 0; j < len; j += V::width) m = V::max_nan(m, V::abs(V::load(x + b + j)));
    return hmax<V>(m);
  }
  void anchor(chain<V>* c, int xe) const { chain_anchor<V>(c[0], xe); }
  bool step(chain<V>* c, std::size_t j, double* spill, int& nspill, reg& vmax) const {
    reg e[U];
    for (int u = 0; u < U; ++u) {
      reg v = V::load(x + j + u * V::width);
      if constexpr (Abs) v = V::abs(v);
      vmax = V::max_nan(vmax, Abs ? v : V::abs(v));
      e[u] = chain_add<V>(c[0], u, v);
    }
    reg any = e[0];
    for (int u = 1; u < U; ++u) any = V::bor(any, e[u]);
    if (V::any_bits(any)) [[unlikely]] {
      if (nspill + U > spill_cap) return false;
      for (int u = 0; u < U; ++u) V::store(spill + (nspill + u) * V::width, e[u]);
      nspill += U;
    }
    return true;
  }
  bool check(std::size_t, std::size_t) const { return true; }
  void exact(std::size_t b, std::size_t len) const { wide_sum<V, Abs>(acc, sc, x + b, len); }
};

template <class V, bool Abs>
void sum_kernel(superaccumulator& acc, const double* x, std::size_t n) {
  scatter_acc sc;
  sc.reset();
  sum_policy<V, Abs> k{acc, sc, x};
  run_blocks<V>(acc, n, k);
  sc.fold_into(acc);
}

// Smallest |p| for which TwoProd's error term is certainly exact: |p| >= 2^-968
// implies exponent(x) + exponent(y) >= -969.
constexpr double tiny_product = 0x1p-968;
constexpr double inf_value = __builtin_inf();

template <class V>
struct dot_policy {
  using reg = typename V::reg;
  using mask = typename V::mask;
  static constexpr int chains = 2;  // products, TwoProd errors
  superaccumulator& acc;
  scatter_acc& sc;
  const double* x;
  const double* y;
  reg pmin;  // running min |p| of the block (one op per vector, checked at the end)

  double block_max(std::size_t b, std::size_t len) const {
    reg m = V::zero();
    for (std::size_t j = 0; j < len; j += V::width)
      m = V::max_nan(m, V::abs(V::mul(V::load(x + b + j), V::load(y + b + j))));
    return hmax<V>(m);
  }
  void anchor(chain<V>* c, int xe) const {
    chain_anchor<V>(c[0], xe);
    // |x*y - p| <= 2^-53 |p|
    chain_anchor<V>(c[1], xe - 53 < min_x_exp ? min_x_exp : xe - 53);
  }
  bool step(chain<V>* c, std::size_t j, double* spill, int& nspill, reg& vmax) {
    reg e[U], f[U];
    for (int u = 0; u < U; ++u) {
      const reg a = V::load(x + j + u * V::width);
      const reg b = V::load(y + j + u * V::width);
      reg p, pe;  // a*b = p + pe exactly unless |p| is tiny (checked at the block end)
      V::eft::two_prod(a, b, p, pe);
      const reg ap = V::abs(p);
      vmax = V::max_nan(vmax, ap);
      pmin = V::min(pmin, ap);
      e[u] = chain_add<V>(c[0], u, p);
      f[u] = chain_add<V>(c[1], u, pe);
    }
    reg any = V::bor(e[0], f[0]);
    for (int u = 1; u < U; ++u) any = V::bor(any, V::bor(e[u], f[u]));
    if (V::any_bits(any)) [[unlikely]] {
      if (nspill + 2 * U > spill_cap) return false;
      for (int u = 0; u < U; ++u) {
        V::store(spill + (nspill + 2 * u) * V::width, e[u]);
        V::store(spill + (nspill + 2 * u + 1) * V::width, f[u]);
      }
      nspill += 2 * U;
    }
    return true;
  }
  // A tiny |p| is harmless when the exact product is zero (x or y is zero);
  // otherwise the block is redone exactly.
  bool check(std::size_t b, std::size_t len) {
    const bool clean = hmin<V>(pmin) >= tiny_product;  // false on NaN too: then scan
    pmin = V::set1(inf_value);
    if (clean) return true;
    const reg t = V::set1(tiny_product);
    const reg z = V::zero();
    for (std::size_t k = 0; k < len; k += V::width) {
      const reg a = V::load(x + b + k);
      const reg c = V::load(y + b + k);
      const mask bad = V::mask_and(V::lt(V::abs(V::mul(a, c)), t), V::mask_and(V::ne(a, z), V::ne(c, z)));
      if (V::mask_any(bad)) return false;
    }
    return true;
  }
  void exact(std::size_t b, std::size_t len) {
    pmin = V::set1(inf_value);
    wide_dot<V>(acc, sc, x + b, y + b, len);
  }
};

template <class V>
void dot_kernel(superaccumulator& acc, const double* x, const double* y, std::size_t n) {
  scatter_acc sc;
  sc.reset();
  dot_policy<V> k{acc, sc, x, y, V::set1(inf_value)};
  run_blocks<V>(acc, n, k);
  sc.fold_into(acc);
}

// ------------------------------------------------------------ short dots
//
// The fast path of short dots: Dot2 (Ogita, Rump and Oishi, SIAM J. Sci.
// Comput. 26(6), 2005) in U * width lanes, with a bound that lets
// round_bounded decide the correctly rounded result (Ziv's strategy). No
// accumulator is built, nothing is allocated; the caller falls back to the
// exact kernels whenever the bound cannot decide.
//
// Terms: a_i b_i = p_i + e_i by FMA TwoProd (exact unless the product is
// near the subnormal range; |a_i b_i - p_i - e_i| <= 2^-1075 always), and
// every TwoSum s + p = t + q exactly. So the exact dot is S = s + C + D, with
// s the final sum, C the exact sum of every e and q, and |D| <= n 2^-1075.
// c, the computed sum of the e and q (N <= 2n + 2L terms, L = lanes + 1,
// zeros included), satisfies |c - C| <= gamma_N (sum |e| + sum |q|), where
//   sum |e| <= u P + n 2^-1075,   P = sum |p_i| (exact),
//   sum |q| <= u (n + L) (1 + gamma_{n+L})^2 P   (|q| <= u |t|, and every
//              partial sum t is at most (1 + gamma)^2 P in magnitude),
// and the computed P' satisfies P <= (1 + gamma_{n+L}) P'. For n <= 2^24 the
// products of (1 + gamma) factors stay below 1.01, so with
// K = (2n + 2L + 2) (n + L + 2):  |S - (s + c)| <= 1.02 K u^2 P' + (n + 1) 2^-1075.
// hi + lo = s + c exactly (TwoSum), and err = 2^-105 K P' + 2^-1000 covers
// that with a factor 2 (also for the rounding of err itself and the
// underflow of its product). The absolute term is 2^-1000 rather than
// (n + 1) 2^-1073 because arithmetic with subnormal results costs a
// microcode assist (~100 cycles) on x86: it only refuses results below
// about 2^-947, which round_bounded refuses below 2^-960 anyway.
// One term vector a * b into a lane set's Dot2 state: s + c holds the sum
// (a * b = p + e and s + p = t + q exactly), pa the sum of |p|.
template <class V>
[[gnu::always_inline]] inline void dot2_step(typename V::reg& s, typename V::reg& c, typename V::reg& pa,
                                             typename V::reg a, typename V::reg b) {
  typename V::reg p, e, t, q;
  V::eft::two_prod(a, b, p, e);
  V::eft::two_sum(s, p, t, q);
  s = t;
  c = V::add(c, V::add(e, q));
  pa = V::add(pa, V::abs(p));
}

inline void two_sum_scalar(double a, double b, double& t, double& q) {  // t + q = a + b exactly
  t = a + b;
  const double z = t - a;
  q = (a - (t - z)) + (b - z);
}

// The same step in one scalar lane (this set's FMA unit for TwoProd).
inline void dot2_scalar_step(double& s, double& c, double& pa, double u, double v) {
  const double p = u * v;
  const double e = __builtin_fma(u, v, -p);
  double t, q;
  two_sum_scalar(s, p, t, q);
  s = t;
  c = c + (e + q);
  pa = pa + (p < 0.0 ? -p : p);
}

// Pairwise TwoSum tree over the U W lanes of (s, c, pa): lane k + w into
// lane k for w = U W / 2, ..., 1 (first vector u into vector 0, then within
// the vector, by lane moves); the result is lane 0.
template <class V, int w = V::width / 2>
[[gnu::always_inline]] inline void lane_fold(typename V::reg& s, typename V::reg& c, typename V::reg& pa) {
  if constexpr (w >= 1) {
    typename V::reg t, q;
    V::eft::two_sum(s, V::template down<w>(s), t, q);
    s = t;
    c = V::add(c, V::add(V::template down<w>(c), q));
    pa = V::add(pa, V::template down<w>(pa));
    lane_fold<V, w / 2>(s, c, pa);
  }
}

template <class V>
[[gnu::always_inline]] inline void lane_tree(typename V::reg* s, typename V::reg* c, typename V::reg* pa,
                                             double& st, double& ct, double& pt) {
  static_assert(U == 1 || U == 2, "the first level combines two vectors");
  typename V::reg s0 = s[0], c0 = c[0], p0 = pa[0];
  if constexpr (U == 2) {
    typename V::reg t, q;
    V::eft::two_sum(s0, s[1], t, q);
    s0 = t;
    c0 = V::add(c0, V::add(c[1], q));
    p0 = V::add(p0, pa[1]);
  }
  lane_fold<V>(s0, c0, p0);
  st = V::first(s0);
  ct = V::first(c0);
  pt = V::first(p0);
}

// Terms: 0 for x_i y_i, 1 for x_i, 2 for |x_i| (y is not read for 1 and 2;
// the products with 1 are exact, so the bound holds as stated).
template <class V, int Terms = 0>
bool dot_bounded_kernel(const double* x, const double* y, std::size_t n, bounded& out) {
  using reg = typename V::reg;
  constexpr int W = V::width;
  static_assert((U * W & (U * W - 1)) == 0, "the lane tree needs a power of two");
  if (n > dot_bounded_max) return false;
  double st = 0.0, ct = 0.0, pt = 0.0;
  std::size_t i = 0;
  std::size_t padded = n;  // terms in the bound: the tail is padded with zeros
  {
    reg s[U], c[U], pa[U];
    for (int u = 0; u < U; ++u) s[u] = c[u] = pa[u] = V::zero();
    auto step = [&](int u, reg a, reg b) {
      if constexpr (Terms == 0) dot2_step<V>(s[u], c[u], pa[u], a, b);
      else if constexpr (Terms == 1) dot2_step<V>(s[u], c[u], pa[u], a, V::set1(1.0));
      else dot2_step<V>(s[u], c[u], pa[u], V::abs(a), V::set1(1.0));
    };
    // A lane's first term: TwoSum(0, p) is (p, 0), so s = p and c = e, with
    // the same values and a shorter dependency chain (short calls).
    auto first_step = [&](int u, reg a, reg b) {
      if constexpr (Terms == 0) {
        V::eft::two_prod(a, b, s[u], c[u]);
        pa[u] = V::abs(s[u]);
      } else {
        s[u] = Terms == 2 ? V::abs(a) : a;
        pa[u] = V::abs(a);
      }
    };
    for (; i + U * W <= n; i += U * W)
      for (int u = 0; u < U; ++u) step(u, V::load(x + i + u * W), Terms == 0 ? V::load(y + i + u * W) : V::zero());
    // The tail (fewer than U W terms; short calls are often all tail): one
    // more term per lane, zeros in the lanes past n, instead of a serial
    // scalar chain.
    if (i < n) {
      for (int u = 0; u < U; ++u) {
        const std::size_t b = i + static_cast<std::size_t>(u) * W;
        if (b >= n) break;
        const int k = n - b < static_cast<std::size_t>(W) ? static_cast<int>(n - b) : W;
        const reg xa = V::load_first(x + b, k), yb = Terms == 0 ? V::load_first(y + b, k) : V::zero();
        if (i == 0) first_step(u, xa, yb);
        else step(u, xa, yb);
      }
      padded = i + U * W;
      i = n;
    }
    // The lanes, pairwise (a tree of depth log2(U W) instead of a chain of
    // U W dependent TwoSums; each is still exact, its error goes to c), in
    // registers: lane k takes lane k + w, first across the U vectors, then
    // within one (lane_tree).
    lane_tree<V>(s, c, pa, st, ct, pt);
  }
  // Not finite (inf or NaN met, or an overflow on the way): the exact path.
  if (!(st - st == 0.0 && ct - ct == 0.0 && pt - pt == 0.0)) return false;
  two_sum_scalar(st, ct, out.hi, out.lo);
  if (!(out.hi - out.hi == 0.0)) return false;
  const double nd = static_cast<double>(padded);
  constexpr double lanes = U * W + 1;
  const double k = (2.0 * nd + 2.0 * lanes + 2.0) * (nd + lanes + 2.0);  // exact: < 2^53
  out.err = pt * (k * 0x1p-105) + 0x1p-1000;  // 2^-1000 > (n + 1) 2^-1073, and normal
  return true;
}

// ------------------------------------------------------------ gemv rows in lanes
//
// "Lanes = rows": the r <= 16 rows of a block (four AVX2 or two AVX-512
// vectors: a column visit loads whole cache lines) whose element (k, j) is
// a[k + j * ld] (column-major gemv "N", row-major "T") each keep their own
// Dot2 state (s, c, P) in one SIMD lane while the columns stream by, so no
// row is packed and no lanes are combined. Per row this is the dot above
// with one lane (L = 1), so its bound holds as stated there. A row whose
// state is not finite gets a NaN err (round_bounded refuses it).
constexpr std::size_t prefetch_cols = 16;

// The Dot2 states (s, c, P) of the r lanes, stored to ls, lc, lp (R each);
// false (nothing stored) where n or r is out of the bound's range.
template <class V, int UR>
bool rows_dot2_lanes(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* x,
                     double* ls, double* lc, double* lp) {
  using reg = typename V::reg;
  constexpr int W = V::width;
  constexpr std::size_t R = UR * W;
  if (n > dot_bounded_max || r > R) return false;
  reg s[UR], c[UR], pa[UR];
  for (int u = 0; u < UR; ++u) s[u] = c[u] = pa[u] = V::zero();
  alignas(64) double part[R];  // a partial block's column, zero padded
  for (std::size_t k = r; k < R; ++k) part[k] = 0.0;
  for (std::size_t j = 0; j < n; ++j) {
    const double* col = a + static_cast<std::int64_t>(j) * ld;
    const std::uintptr_t col_address = reinterpret_cast<std::uintptr_t>(col);
    if (r < R) {
      for (std::size_t k = 0; k < r; ++k) part[k] = col[k];
      col = part;
    }
    // The columns are ld apart (often more than a page): the hardware
    // prefetchers do not follow, so the lines a few columns ahead are asked
    // for here (prefetching never faults, even past the matrix).
    // (Addresses as integers: a pointer past the array would be undefined.)
    const std::uintptr_t ahead = col_address +
                                 static_cast<std::uintptr_t>(prefetch_cols * static_cast<std::size_t>(ld)) * 8;
    __builtin_prefetch(reinterpret_cast<const void*>(ahead));
    __builtin_prefetch(reinterpret_cast<const void*>(ahead + (R - 1) * 8));
    const reg xj = V::set1(x[j]);
    for (int u = 0; u < UR; ++u) dot2_step<V>(s[u], c[u], pa[u], V::load(col + u * W), xj);
  }
  for (int u = 0; u < UR; ++u) {
    V::store(ls + u * W, s[u]);
    V::store(lc + u * W, c[u]);
    V::store(lp + u * W, pa[u]);
  }
  return true;
}

// K of the Dot2 bound for one lane (L = 1) and n terms, exact.
inline double lane_bound_k(std::size_t n) {
  const double nd = static_cast<double>(n);
  return (2.0 * nd + 4.0) * (nd + 3.0);
}

template <class V, int UR>
void rows_bounded_lanes(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                        const double* x, bounded* out) {
  constexpr std::size_t R = UR * V::width;
  alignas(64) double ls[R], lc[R], lp[R];
  if (!rows_dot2_lanes<V, UR>(a, ld, r, n, x, ls, lc, lp)) {
    for (std::size_t k = 0; k < r; ++k) out[k] = bounded{0.0, 0.0, __builtin_nan("")};
    return;
  }
  const double kk = lane_bound_k(n);
  for (std::size_t k = 0; k < r; ++k) {
    bounded& b = out[k];
    if (!(ls[k] - ls[k] == 0.0 && lc[k] - lc[k] == 0.0 && lp[k] - lp[k] == 0.0)) {
      b = bounded{0.0, 0.0, __builtin_nan("")};
      continue;
    }
    two_sum_scalar(ls[k], lc[k], b.hi, b.lo);
    b.err = b.hi - b.hi == 0.0 ? lp[k] * (kk * 0x1p-105) + 0x1p-1000 : __builtin_nan("");
  }
}

// 16 rows per column visit (four AVX2 or two AVX-512 vectors); a block of
// at most 8 rows (short matrices) visits only the vectors it fills.
template <class V>
void rows_bounded_kernel(const double* a, std::int64_t ld, std::size_t r, std::size_t n,
                         const double* x, bounded* out) {
  constexpr int UR = 16 / V::width;
  if (UR >= 2 && r <= 8) rows_bounded_lanes<V, (UR >= 2 ? UR / 2 : 1)>(a, ld, r, n, x, out);
  else rows_bounded_lanes<V, UR>(a, ld, r, n, x, out);
}

// ------------------------------------------------------------ rank-1 columns
//
// round_bounded's test to nearest in SIMD lanes, for H + L = fl(H + L)
// within err of an exact value: |H| in [2^-960, 2^1022] and the signed L
// (toward |H|) plus and minus err strictly inside the half gaps below and
// above |H| (the gap below halves at a power of two). store() writes the
// decided lanes (H) and leaves the others as they were, sets their left
// flags and returns how many are left.
template <class V>
struct nearest_lanes {
  using reg = typename V::reg;
  using mask = typename V::mask;
  const reg lo_h = V::set1(0x1p-960), hi_h = V::set1(0x1p1022);
  const reg half = V::set1(0.5), ulp_scale = V::set1(0x1p-52), err_scale = V::set1(0x1p-50);
  const reg two = V::set1(2.0), abs_err = V::set1(0x1p-1000);
  const reg tiny = V::set1(0x1p-968), huge = V::set1(0x1.fffffffffffffp+1023);  // TwoProd's exact range
  const typename V::ireg exp_bits = V::iset1(0x7ff0000000000000LL);
  const typename V::ireg sign_bit = V::iset1(static_cast<long long>(0x8000000000000000ULL));

  // 2 (|a| + |b| + |c|) 2^-50 + 2^-1000: three roundings of the
  // compensation sum plus the underflows (bounded_axpby's bound).
  reg err_of(reg a, reg b, reg c) const {
    return V::add(V::mul(two, V::mul(V::add(V::add(V::abs(a), V::abs(b)), V::abs(c)), err_scale)), abs_err);
  }
  mask exact_product(reg p) const { return V::mask_and(V::ge(V::abs(p), tiny), V::le(V::abs(p), huge)); }
  mask decided(reg hh, reg ll, reg err) const {
    const reg ah = V::abs(hh);
    const reg g = V::as_double(V::as_int(ah) & exp_bits);  // 2^exponent(|H|)
    const reg g_up = V::mul(g, ulp_scale);
    const reg g_dn = V::select(V::ne(ah, g), g_up, V::mul(half, g_up));
    const reg d = V::as_double(V::as_int(ll) ^ (V::as_int(hh) & sign_bit));
    mask ok = V::mask_and(V::ge(ah, lo_h), V::le(ah, hi_h));
    ok = V::mask_and(ok, V::lt(V::add(d, err), V::mul(half, g_up)));
    return V::mask_and(ok, V::gt_ordered(V::sub(d, err), V::sub(V::zero(), V::mul(half, g_dn))));
  }
  std::size_t store(double* c, reg old, reg hh, mask ok, unsigned char* left) const {
    V::store(c, V::select(ok, hh, old));
    const unsigned bits = V::mask_bits(ok);
    for (int k = 0; k < V::width; ++k) left[k] = static_cast<unsigned char>(((bits >> k) & 1u) ^ 1u);
    return static_cast<std::size_t>(V::width - __builtin_popcount(bits));
  }
};

// Triangular-solve rows in lanes (blocked trsm): lane k's numerator N_k is
// within extra[k] of sum_j a[k + j ld] w[j]; x[k] = round(N_k / d) to
// nearest where the bound decides. Per lane, rows_bounded's bound gives hi +
// lo within e of the sum (hi = fl(hi + lo)), so N_k is within E = 2 (e +
// extra[k]) of hi + lo (twice: the rounding of that sum), and then as
// round_bounded_div: q1 = fl(hi / d), r = fma(-q1, d, hi) within u |r|,
// t = fl(r + lo) within u |t|, q2 = fl(t / d) within u |q2|, q1 + q2 = H + L
// (TwoSum) within (E + u (|r| + |t|)) / |d| + u |q2| of N_k / d, doubled
// plus 2^-1000 for the roundings and underflows of the bound itself, with
// |hi| and |q1| in [2^-900, 2^1000] (the remainder step must not underflow),
// and nearest_lanes' test. d finite and nonzero (1 for a unit diagonal).
// Lanes it does not decide get left[k] = 1 (x[k] untouched); returns how many.
template <class V, int UR>
std::size_t rows_solve_lanes(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                             const double* extra, double d, double* x, unsigned char* left) {
  using reg = typename V::reg;
  using mask = typename V::mask;
  constexpr int W = V::width;
  constexpr std::size_t R = UR * W;
  alignas(64) double ls[R], lc[R], lp[R], ex[R], xo[R];
  alignas(64) unsigned char lf[R];
  if (!rows_dot2_lanes<V, UR>(a, ld, r, n, w, ls, lc, lp)) {
    for (std::size_t k = 0; k < r; ++k) left[k] = 1;
    return r;
  }
  for (std::size_t k = 0; k < R; ++k) ex[k] = k < r ? extra[k] : 0.0;
  const nearest_lanes<V> nl;
  const reg kk = V::set1(lane_bound_k(n) * 0x1p-105), floor_err = V::set1(0x1p-1000);
  const reg two = V::set1(2.0), u = V::set1(0x1p-53), lo_q = V::set1(0x1p-900), hi_q = V::set1(0x1p1000);
  const reg vd = V::set1(d), ad = V::set1(d < 0 ? -d : d);
  for (int v = 0; v < UR; ++v) {
    const reg s = V::load(ls + v * W), c = V::load(lc + v * W), pa = V::load(lp + v * W);
    reg hi, lo;
    V::eft::two_sum(s, c, hi, lo);
    const reg e = V::add(V::mul(pa, kk), floor_err);
    const reg big_e = V::mul(two, V::add(e, V::load(ex + v * W)));
    const reg q1 = V::div(hi, vd);
    const reg rr = V::fnmadd(q1, vd, hi);
    const reg t = V::add(rr, lo);
    const reg q2 = V::div(t, vd);
    reg qh, ql;
    V::eft::two_sum(q1, q2, qh, ql);
    const reg err = V::add(
        V::mul(two, V::add(V::div(V::add(big_e, V::mul(V::add(V::abs(rr), V::abs(t)), u)), ad),
                           V::mul(V::abs(q2), u))),
        floor_err);
    mask ok = V::mask_and(V::ge(V::abs(hi), lo_q), V::le(V::abs(hi), hi_q));
    ok = V::mask_and(ok, V::mask_and(V::ge(V::abs(q1), lo_q), V::le(V::abs(q1), hi_q)));
    ok = V::mask_and(ok, V::le(err, hi_q));  // also false on NaN (inf and NaN states)
    ok = V::mask_and(ok, nl.decided(qh, ql, err));
    nl.store(xo + v * W, V::zero(), qh, ok, lf + v * W);
  }
  std::size_t nleft = 0;
  for (std::size_t k = 0; k < r; ++k) {
    left[k] = lf[k];
    if (lf[k] == 0) x[k] = xo[k];
    nleft += lf[k];
  }
  return nleft;
}

// 16 lanes (8 for a block of at most 8), as rows_bounded_kernel.
template <class V>
std::size_t rows_solve_kernel(const double* a, std::int64_t ld, std::size_t r, std::size_t n, const double* w,
                              const double* extra, double d, double* x, unsigned char* left) {
  constexpr int UR = 16 / V::width;
  if (UR >= 2 && r <= 8) return rows_solve_lanes<V, (UR >= 2 ? UR / 2 : 1)>(a, ld, r, n, w, extra, d, x, left);
  return rows_solve_lanes<V, UR>(a, ld, r, n, w, extra, d, x, left);
}

// c_i = round(c_i + alpha x_i b) to nearest, for one column of a rank-1
// update (dger; gemm with k = 1 and beta = 1), one row per lane. With
// alpha x_i = uh_i + ul_i exactly (the caller's TwoProd; a NaN uh_i marks
// a row it could not split), the exact value is c + p + e + ul b, where
// uh b = p + e (TwoProd, exact for |p| in [2^-968, DBL_MAX], checked) and
// m = fl(ul b) is ul b within u |m| + 2^-1075. Then, as bounded_axpby does:
// c + p = h1 + q1 (TwoSum), r = fl((e + m) + q1), H + L = h1 + r (TwoSum),
// err = 2 (|e| + |m| + |q1|) 2^-50 + 2^-1000, and the test to nearest.
// Decided entries are written; left[i] is 1 for the others (c_i
// untouched; the tail past the last full vector is always left). Returns
// the number of entries left.
template <class V>
std::size_t rank1_nearest_kernel(const double* uh, const double* ul, double b, double* c, std::size_t m,
                                 unsigned char* left) {
  using reg = typename V::reg;
  constexpr int W = V::width;
  const nearest_lanes<V> t;
  const reg vb = V::set1(b);
  std::size_t i = 0, nleft = 0;
  for (; i + W <= m; i += W) {
    const reg u1 = V::load(uh + i), u2 = V::load(ul + i), cv = V::load(c + i);
    reg p, e, h1, q1, hh, ll;
    V::eft::two_prod(u1, vb, p, e);
    const reg mm = V::mul(u2, vb);
    V::eft::two_sum(cv, p, h1, q1);
    const reg r = V::add(V::add(e, mm), q1);
    V::eft::two_sum(h1, r, hh, ll);
    const auto ok = V::mask_and(t.exact_product(p), t.decided(hh, ll, t.err_of(e, mm, q1)));
    nleft += t.store(c + i, cv, hh, ok, left + i);
  }
  for (; i < m; ++i, ++nleft) left[i] = 1;
  return nleft;
}

// out_i = round(alpha S_i + beta y_i) to nearest for r bounded values S_i
// (|S_i - (hi_i + lo_i)| <= err_i; a NaN err_i marks one that could not be
// bounded), one per lane: bounded_axpby's composition and bound (alpha
// hi = ph + pl and beta y = bh + bl by TwoProd, exact for |ph|, |bh| in
// [2^-968, DBL_MAX] or a zero y; m = fl(alpha lo); ph + bh = h1 + q1;
// r = ((pl + m) + bl) + q1; H + L = h1 + r; err = 2 (|alpha| err_i +
// (|pl| + |m| + |bl| + |q1|) 2^-50) + 2^-1000) and the test to nearest.
// beta == 0: y is not read. Writes out_i for decided lanes, left_i = 1 for
// the others; returns how many are left.
template <class V>
std::size_t axpby_nearest_kernel(const double* hi, const double* lo, const double* err, double alpha, double beta,
                                 const double* y, double* out, std::size_t r, unsigned char* left) {
  using reg = typename V::reg;
  constexpr int W = V::width;
  const nearest_lanes<V> t;
  const reg va = V::set1(alpha), vbeta = V::set1(beta), aabs = V::set1(alpha < 0.0 ? -alpha : alpha);
  const bool beta_zero = beta == 0.0;
  std::size_t i = 0, nleft = 0;
  for (; i + W <= r; i += W) {
    reg ph, pl, bh = V::zero(), bl = V::zero(), h1, q1, hh, ll;
    V::eft::two_prod(va, V::load(hi + i), ph, pl);
    auto ok = t.exact_product(ph);
    if (!beta_zero) {
      const reg yy = V::load(y + i);
      V::eft::two_prod(vbeta, yy, bh, bl);
      ok = V::mask_and(ok, V::mask_or(t.exact_product(bh), V::mask_and(V::le(V::abs(yy), V::zero()),
                                                                      V::le(V::abs(vbeta), t.huge))));
    }
    const reg m = V::mul(va, V::load(lo + i));
    V::eft::two_sum(ph, bh, h1, q1);
    const reg rr = V::add(V::add(V::add(pl, m), bl), q1);
    V::eft::two_sum(h1, rr, hh, ll);
    const reg mags = V::add(V::add(V::add(V::abs(pl), V::abs(m)), V::abs(bl)), V::abs(q1));
    const reg e = V::add(V::mul(t.two, V::add(V::mul(aabs, V::load(err + i)), V::mul(mags, t.err_scale))), t.abs_err);
    ok = V::mask_and(ok, t.decided(hh, ll, e));
    nleft += t.store(out + i, V::zero(), hh, ok, left + i);
  }
  for (; i < r; ++i, ++nleft) left[i] = 1;
  return nleft;
}

// c_i = round(u_i b0 + v_i b1) to nearest, for one column of a product with
// k = 2 (drot: [x y] times a 2 x 2 rotation), one row per lane: TwoProd of
// both products (exact for |p| in [2^-968, DBL_MAX], or exact zeros when
// the factor b is 0 and u_i or v_i is finite), p1 + p2 = h + q (TwoSum),
// r = fl((e1 + e2) + q), H + L = h + r (TwoSum), err = 2 (|e1| + |e2| + |q|)
// 2^-50 + 2^-1000 (the sum has every term exact, so only r's three
// roundings count), and the test to nearest. Writes the decided entries,
// left[i] = 1 for the others; returns how many are left.
template <class V>
std::size_t two_products_nearest_kernel(const double* u, const double* v, double b0, double b1, double* c,
                                        std::size_t m, unsigned char* left) {
  using reg = typename V::reg;
  constexpr int W = V::width;
  const nearest_lanes<V> t;
  const reg vb0 = V::set1(b0), vb1 = V::set1(b1);
  const bool zero0 = b0 == 0.0, zero1 = b1 == 0.0;
  std::size_t i = 0, nleft = 0;
  for (; i + W <= m; i += W) {
    const reg uu = V::load(u + i), vv = V::load(v + i);
    reg p1, e1, p2, e2, h, q, hh, ll;
    V::eft::two_prod(uu, vb0, p1, e1);
    V::eft::two_prod(vv, vb1, p2, e2);
    // An exact product: in the TwoProd range, or a zero factor b with a
    // finite other factor (then p = e = 0 exactly).
    auto ok = zero0 ? V::le(V::abs(uu), t.huge) : t.exact_product(p1);
    ok = V::mask_and(ok, zero1 ? V::le(V::abs(vv), t.huge) : t.exact_product(p2));
    if (zero0) p1 = e1 = V::zero();
    if (zero1) p2 = e2 = V::zero();
    V::eft::two_sum(p1, p2, h, q);
    const reg r = V::add(V::add(e1, e2), q);
    V::eft::two_sum(h, r, hh, ll);
    ok = V::mask_and(ok, t.decided(hh, ll, t.err_of(e1, e2, q)));
    nleft += t.store(c + i, V::load(c + i), hh, ok, left + i);
  }
  for (; i < m; ++i, ++nleft) left[i] = 1;
  return nleft;
}

// ------------------------------------------------------------ one strided row
//
// Dot2 in one scalar lane (FMA TwoProd on this set's FMA unit) of
// sum_j a[j * inc] x[j] + sum_k terms[k] + alpha * b: the short, sequential
// rows of a triangular solve's diagonal block, with the panel's bounded
// value and the right-hand side joined in as extra terms (each term is a
// product whose TwoProd error is zero). The bound is dot_bounded's with L = 1
// and n + nterms + 1 products.
inline bool strided_bounded_kernel(const double* a, std::int64_t inc, const double* x, std::size_t n,
                                   const double* terms, std::size_t nterms, double alpha, double b,
                                   bounded& out) {
  if (n > dot_bounded_max) return false;
  double s = 0.0, c = 0.0, pa = 0.0;
  auto add = [&](double u, double v) { dot2_scalar_step(s, c, pa, u, v); };
  add(alpha, b);
  for (std::size_t k = 0; k < nterms; ++k) add(terms[k], 1.0);
  for (std::size_t j = 0; j < n; ++j) add(a[static_cast<std::int64_t>(j) * inc], x[j]);
  if (!(s - s == 0.0 && c - c == 0.0 && pa - pa == 0.0)) return false;
  two_sum_scalar(s, c, out.hi, out.lo);
  if (!(out.hi - out.hi == 0.0)) return false;
  const double nd = static_cast<double>(n + nterms + 1);
  out.err = pa * ((2.0 * nd + 4.0) * (nd + 3.0) * 0x1p-105) + 0x1p-1000;
  return true;
}
