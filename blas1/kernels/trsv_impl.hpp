// Internal (kernel set, trsv part): the compensated and double-double substitution
// kernels, written once over a vector-traits class T (8 lanes of doubles:
// the register type and its operations as static functions, the style of
// blas1_simd_impl.hpp) and compiled by one translation unit per instruction
// set (generic/, avx2/, avx512/trsv.cpp), each defining its T.
//
// This file must be included inside an anonymous namespace: nothing here may
// have external linkage, or the linker could pick an AVX-512 copy of an
// inline function for the baseline code (it uses no library templates for
// the same reason; the EFTs are re-stated here with internal linkage).
//
// Canonical operand (trsv_kernels.hpp / solvers_common.hpp): op(A) lower or
// upper, rows or columns of op(A) contiguous. The unknowns are computed in
// substitution order; "position" k of an unknown is its rank in that order
// (k = j for lower, k = n-1-j for upper).
//
// Accumulation scheme (the same bits in every orientation). Each unknown i
// owns `lanes` partial states; the product of a predecessor at position k is
// accumulated into lane k mod lanes, predecessors in increasing position;
// lane 0 starts from b_i. When unknown i is due, its lanes are combined in
// lane order and divided by the diagonal. Two loop organisations perform
// exactly these operations:
//  * dot form (rows of op(A) contiguous): row i is read contiguously, the
//    `lanes` chains run side by side in one vector;
//  * axpy form (columns contiguous; the column-oriented algorithm): after
//    unknown j is computed, its column updates every later unknown's lane
//    (k mod lanes) state, one independent update per entry (vectorized
//    across entries), with the compensation carried per entry and lane.
// A lower row-major operand and its upper column-major transposed twin, or a
// lower operand and the upper one obtained by reversing rows and columns,
// therefore give identical results, as do all kernel sets.

// The including file includes <cmath> and <cstdint> first.

#define EXALA_SV_INLINE inline __attribute__((always_inline))
// Software prefetch distance (doubles) of the axpy form's column streams:
// -5..10% at n = 4000 on Zen 5; it changes no result.
#define EXALA_SV_AHEAD 64

// --------------------------------------------------------------- lanes
// The including file defines the traits class T of its 8-lane vector (in
// the same anonymous namespace: a set's simd_traits.hpp, shared with its
// blas1 kernels, is included there too) and calls solve<Op, T, R, C>.
// T provides the register type T::reg, T::width
// (8), and the static functions
//   zero(); set1(x) (all lanes, -0 kept); load(p) / store(p, v) (8
//   consecutive doubles); load_rev(p) (lanes p[0], p[-1], ..., p[-7]);
//   load_first(p, 1) (lane 0 = p[0], the other lanes +0);
//   add, sub, mul, neg (sign flipped); fmadd (a b + c), fmsub (a b - c),
//   fnmadd (c - a b), each rounded once;
//   sum / diff: a + b, a - b correctly rounded, by any instruction (an FMA
//   by 1 where the set balances its add and FMA pipes that way; the same
//   bits).
// sd: the same operations on one double (Op::lanes = 1, and the scalar
// tails of every set).
struct sd {
  using reg = double;
  static constexpr int width = 1;
  EXALA_SV_INLINE static reg zero() { return 0.0; }
  EXALA_SV_INLINE static reg set1(double x) { return x; }
  EXALA_SV_INLINE static reg load(const double* p) { return *p; }
  EXALA_SV_INLINE static reg load_rev(const double* p) { return *p; }
  EXALA_SV_INLINE static reg load_first(const double* p, int) { return *p; }
  EXALA_SV_INLINE static void store(double* p, reg v) { *p = v; }
  EXALA_SV_INLINE static reg add(reg a, reg b) { return a + b; }
  EXALA_SV_INLINE static reg sub(reg a, reg b) { return a - b; }
  EXALA_SV_INLINE static reg mul(reg a, reg b) { return a * b; }
  EXALA_SV_INLINE static reg neg(reg a) { return -a; }
  EXALA_SV_INLINE static reg fmadd(reg a, reg b, reg c) { return std::fma(a, b, c); }
  EXALA_SV_INLINE static reg fmsub(reg a, reg b, reg c) { return std::fma(a, b, -c); }
  EXALA_SV_INLINE static reg fnmadd(reg a, reg b, reg c) { return std::fma(-a, b, c); }
  EXALA_SV_INLINE static reg sum(reg a, reg b) { return a + b; }
  EXALA_SV_INLINE static reg diff(reg a, reg b) { return a - b; }
};

// The traits of an operation's lane states: T for 8 lanes, sd for 1.
template <class Op, class T>
struct lane_traits_of {
  static_assert(Op::lanes == T::width, "one lane state per vector lane");
  using type = T;
};
template <class Op, class T>
  requires(Op::lanes == 1)
struct lane_traits_of<Op, T> {
  using type = sd;
};

// --------------------------------------------------------------- EFTs
// Independent operations are written as named temporaries, left to right:
// GCC evaluates nested call arguments right to left, and that order alone
// (no change of any result) made the AVX2 set's double-double row loop spill.
// TwoSum (Knuth): s + e == a + b exactly (lane-wise).
template <class W>
EXALA_SV_INLINE void sv_two_sum(typename W::reg a, typename W::reg b, typename W::reg& s,
                                typename W::reg& e) {
  // a, b by value: the outputs may alias the inputs
  s = W::add(a, b);
  const typename W::reg bp = W::sub(s, a);
  const typename W::reg ap = W::sub(s, bp);
  const typename W::reg da = W::sub(a, ap);
  const typename W::reg db = W::sub(b, bp);
  e = W::add(da, db);
}
// FastTwoSum (Dekker), exact when |a| >= |b| or a == 0.
template <class W>
EXALA_SV_INLINE void sv_fast_two_sum(typename W::reg a, typename W::reg b, typename W::reg& s,
                                     typename W::reg& e) {
  s = W::add(a, b);
  e = W::sub(b, W::sub(s, a));
}

// --------------------------------------------------------------- compensated
// CENA state of one lane: s (the running substitution numerator, computed as
// the classic algorithm would) and u (the running first-order correction:
// the local errors of every operation, minus the coefficients times the
// corrections of the unknowns already computed). Previous unknown: x^ (the
// uncorrected quotient, used in the main recursion as in the classic
// substitution) and c^ (its computed correction).
struct comp_op {
  static constexpr int lanes = 8;

  // s - t*xh = s' + e - pe exactly (TwoProd, TwoSum); the correction adds
  // e - pe and the propagated correction -t*c^ of the unknown.
  template <class W>
  EXALA_SV_INLINE static void update(typename W::reg& s, typename W::reg& u, typename W::reg t,
                                     typename W::reg xh, typename W::reg xc) {
    using reg = typename W::reg;
    const reg p = W::mul(t, xh);
    const reg pe = W::fmsub(t, xh, p);  // TwoProd: t*xh = p + pe
    // TwoSum(s, -p) written as a subtraction (no negation of p; the same
    // bits: fl(-p - bp) = -fl(p + bp)): ns + e = s - p exactly
    const reg ns = W::sub(s, p);
    const reg bp = W::sub(ns, s);
    const reg ap = W::sub(ns, bp);
    const reg sa = W::sub(s, ap);
    const reg pb = W::add(p, bp);
    const reg e = W::sub(sa, pb);
    s = ns;
    // u += (e - pe) - t c^: one add on the loop-carried chain. sum/diff
    // are a + b / a - b, correctly rounded (an FMA by 1 where the kernel set
    // balances its add and FMA pipes that way; the same bits).
    u = W::sum(u, W::fnmadd(t, xc, W::diff(e, pe)));
  }

  // Lanes combined in lane order: S + U approximates the numerator.
  EXALA_SV_INLINE static void combine(const double* s, const double* u, double& S, double& U) {
    S = s[0];
    U = u[0];
    for (int l = 1; l < lanes; ++l) {
      double ns, e;
      sv_two_sum<sd>(S, s[l], ns, e);
      S = ns;
      U = U + (e + u[l]);
    }
  }

  // x^ = fl(S / d), its division error by ApproxTwoDiv (rho = fl(fl(S - x^ d) / d),
  // the residual exact by FMA), and c^ = fl(U / d) + rho.
  EXALA_SV_INLINE static void finish(double S, double U, double d, bool unit, double& xh,
                                     double& xc) {
    if (unit) {
      xh = S;
      xc = U;
      return;
    }
    const double q = S / d;
    const double rho = std::fma(-q, d, S) / d;
    xh = q;
    xc = U / d + rho;
  }

  // The compensated result x^ + c^, rounded once; a non-finite x^ (overflow,
  // inf or NaN data) is returned as the classic substitution would give it.
  EXALA_SV_INLINE static double result(double xh, double xc) {
    return std::isfinite(xh) ? xh + xc : xh;
  }
};

// --------------------------------------------------------------- double-double
// State: the numerator as a double-double (hi, lo); previous unknown
// (xh, xl) a normalized double-double. Arithmetic as in XBLAS (Li, Demmel et
// al. 2002): dd * d product normalized by FastTwoSum, then the accurate
// ("IEEE") double-double addition with two TwoSums.
struct dd_op {
  static constexpr int lanes = 1;  // per-entry sequential, as XBLAS

  template <class W>
  EXALA_SV_INLINE static void update(typename W::reg& hi, typename W::reg& lo, typename W::reg t,
                                     typename W::reg xh, typename W::reg xl) {
    using reg = typename W::reg;
    // p = t * (xh + xl) as a double-double
    const reg p = W::mul(t, xh);
    reg pl = W::fmsub(t, xh, p);
    pl = W::fmadd(t, xl, pl);
    reg ph;
    sv_fast_two_sum<W>(p, pl, ph, pl);
    // (hi, lo) - (ph, pl)
    reg s, e, v, f;
    sv_two_sum<W>(hi, W::neg(ph), s, e);
    sv_two_sum<W>(lo, W::neg(pl), v, f);
    e = W::add(e, v);
    sv_fast_two_sum<W>(s, e, s, e);
    e = W::add(e, f);
    sv_fast_two_sum<W>(s, e, hi, lo);
  }

  EXALA_SV_INLINE static void combine(const double* s, const double* u, double& S, double& U) {
    S = s[0];
    U = u[0];
  }

  // (S + U) / d as a double-double: q1 = fl(S/d), exact remainder
  // (S - q1 d) + U, q2 = fl(remainder / d), normalized.
  EXALA_SV_INLINE static void finish(double S, double U, double d, bool unit, double& xh,
                                     double& xl) {
    if (unit) {
      xh = S;
      xl = U;
      return;
    }
    const double q1 = S / d;
    const double p = q1 * d;
    const double pe = std::fma(q1, d, -p);
    double r, e;
    sv_two_sum<sd>(S, -p, r, e);
    e = e - pe;
    e = e + U;
    const double q2 = (r + e) / d;
    sv_fast_two_sum<sd>(q1, q2, xh, xl);
  }

  EXALA_SV_INLINE static double result(double xh, double xl) {
    return std::isfinite(xh) ? xh + xl : xh;
  }
};

// --------------------------------------------------------------- dot form
// Rows of op(A) contiguous: row i is a + i*lda, op(A)_ij = row[j].
// xa, xb: the two parts of the unknowns computed so far (logical order).
// The lanes of one row run side by side in one register of W (T for 8
// lanes, sd for 1).
// R rows (consecutive in substitution order) are processed together: their
// predecessors in the full chunks of `lanes` positions before the block are
// shared, so the loop reads R row streams at once (memory parallelism) and
// loads x^, c^ once for R rows; then the rows are finished one by one (the
// remaining positions lane by lane, then combine and divide). Every row sees
// exactly the operations of the one-row loop, so R does not change any bit.
template <class Op, class T, bool Lower, int R>
EXALA_SV_INLINE void dot_block(const double* a, std::int64_t lda, std::int64_t n, bool unit,
                               double* x, double* xa, double* xb, std::int64_t pos0) {
  using W = typename lane_traits_of<Op, T>::type;
  using V = typename W::reg;
  constexpr int L = Op::lanes;
  const double* row[R];
  V s[R], u[R];
  for (int r = 0; r < R; ++r) {
    const std::int64_t i = Lower ? pos0 + r : n - 1 - (pos0 + r);
    row[r] = a + i * lda;
    s[r] = W::load_first(x + i, 1);  // lane 0 starts from b_i, the others from +0
    u[r] = W::zero();
  }
  // full chunks of predecessors common to the R rows: positions [0, kend)
  const std::int64_t kend = pos0 / L * L;
  if (Lower) {
    // predecessor at position k is j = k
    for (std::int64_t k = 0; k < kend; k += L) {
      const V ha = W::load(xa + k);
      const V hb = W::load(xb + k);
      for (int r = 0; r < R; ++r) Op::template update<W>(s[r], u[r], W::load(row[r] + k), ha, hb);
    }
  } else {
    // predecessor at position k is j = n-1-k: walk the rows backwards
    for (std::int64_t k = 0; k < kend; k += L) {
      const V ha = W::load_rev(xa + (n - 1 - k));
      const V hb = W::load_rev(xb + (n - 1 - k));
      for (int r = 0; r < R; ++r)
        Op::template update<W>(s[r], u[r], W::load_rev(row[r] + (n - 1 - k)), ha, hb);
    }
  }
  for (int r = 0; r < R; ++r) {
    const std::int64_t pos = pos0 + r;
    const std::int64_t i = Lower ? pos : n - 1 - pos;
    double sl[L], ul[L];
    W::store(sl, s[r]);
    W::store(ul, u[r]);
    // the remaining positions [kend, pos), lane by lane (lane = k mod L)
    for (std::int64_t k = kend; k < pos; ++k) {
      const std::int64_t j = Lower ? k : n - 1 - k;
      const int l = static_cast<int>(k % L);
      Op::template update<sd>(sl[l], ul[l], row[r][j], xa[j], xb[j]);
    }
    double S, U;
    Op::combine(sl, ul, S, U);
    Op::finish(S, U, unit ? 1.0 : row[r][i], unit, xa[i], xb[i]);
    x[i] = Op::result(xa[i], xb[i]);
  }
}

template <class Op, class T, bool Lower, int R>
void dot_solve(const double* a, std::int64_t lda, std::int64_t n, bool unit, double* x,
               double* xa, double* xb) {
  std::int64_t pos = 0;
  for (; pos + R <= n; pos += R) dot_block<Op, T, Lower, R>(a, lda, n, unit, x, xa, xb, pos);
  for (; pos < n; ++pos) dot_block<Op, T, Lower, 1>(a, lda, n, unit, x, xa, xb, pos);
}

// --------------------------------------------------------------- axpy form
// Columns of op(A) contiguous: column j is a + j*lda, op(A)_ij = col[i].
// st holds 2 * lanes * n doubles: the lane states of every unknown, lane by
// lane (sa[l*n + i], sb[l*n + i]).
//
// C columns (consecutive in substitution order, C a multiple of lanes, the
// blocks starting at multiples of C, so column r of a block feeds lane
// r mod lanes) form a block: its unknowns are finished one by one, each
// updating the block's later entries; then the C columns update the entries
// after the block, 8 entries (one T register) at a time with all their lane states held in
// registers across the C updates (the state is read and written once per
// block instead of once per column). Each entry's lane receives its updates
// in increasing position, so every entry sees exactly the operations of the
// one-column loop, which handles the last n mod C columns.
template <class Op, class T, bool Lower, int C>
EXALA_SV_INLINE void axpy_block(const double* a, std::int64_t lda, std::int64_t n, bool unit,
                                double* x, double* xa, double* xb, double* sa, double* sb,
                                std::int64_t pos0) {
  using V = typename T::reg;
  constexpr int L = Op::lanes;
  constexpr int W = T::width;
  static_assert(C == 1 || C % L == 0, "blocks of whole lane cycles");
  double h[C], c[C];
  const double* col[C];
  for (int r = 0; r < C; ++r) {
    const std::int64_t pos = pos0 + r;
    const std::int64_t j = Lower ? pos : n - 1 - pos;
    col[r] = a + j * lda;
    double la[L], lb[L];
    for (int l = 0; l < L; ++l) {
      la[l] = sa[l * n + j];
      lb[l] = sb[l * n + j];
    }
    double S, U;
    Op::combine(la, lb, S, U);
    Op::finish(S, U, unit ? 1.0 : col[r][j], unit, h[r], c[r]);
    xa[j] = h[r];
    xb[j] = c[r];
    x[j] = Op::result(h[r], c[r]);
    const std::int64_t l = pos % L;
    for (int q = r + 1; q < C; ++q) {  // the block's later entries
      const std::int64_t i = Lower ? pos0 + q : n - 1 - (pos0 + q);
      Op::template update<sd>(sa[l * n + i], sb[l * n + i], col[r][i], h[r], c[r]);
    }
  }
  // the entries after the block: indices [lo, hi)
  const std::int64_t lo = Lower ? pos0 + C : 0;
  const std::int64_t hi = Lower ? n : n - pos0 - C;
  if constexpr (C == 1) {
    const std::int64_t l = pos0 % L;
    double* ua = sa + l * n;
    double* ub = sb + l * n;
    const V hv = T::set1(h[0]), cv = T::set1(c[0]);
    std::int64_t i = lo;
    for (; i + W <= hi; i += W) {
      V s = T::load(ua + i), u = T::load(ub + i);
      Op::template update<T>(s, u, T::load(col[0] + i), hv, cv);
      T::store(ua + i, s);
      T::store(ub + i, u);
    }
    for (; i < hi; ++i) Op::template update<sd>(ua[i], ub[i], col[0][i], h[0], c[0]);
  } else {
    std::int64_t i = lo;
    for (; i + W <= hi; i += W) {
      V s[L], u[L];
#pragma GCC unroll 8
      for (int l = 0; l < L; ++l) {
        s[l] = T::load(sa + l * n + i);
        u[l] = T::load(sb + l * n + i);
      }
#pragma GCC unroll 32
      for (int r = 0; r < C; ++r) {  // unrolled: the lane states stay in registers
        const V t = T::load(col[r] + i);
        __builtin_prefetch(col[r] + i + EXALA_SV_AHEAD);
        Op::template update<T>(s[r % L], u[r % L], t, T::set1(h[r]), T::set1(c[r]));
      }
#pragma GCC unroll 8
      for (int l = 0; l < L; ++l) {
        T::store(sa + l * n + i, s[l]);
        T::store(sb + l * n + i, u[l]);
      }
    }
    for (; i < hi; ++i)
      for (int r = 0; r < C; ++r) {
        const int l = r % L;
        Op::template update<sd>(sa[l * n + i], sb[l * n + i], col[r][i], h[r], c[r]);
      }
  }
}

template <class Op, class T, bool Lower, int C>
void axpy_solve(const double* a, std::int64_t lda, std::int64_t n, bool unit, double* x,
                double* xa, double* xb, double* st) {
  constexpr int L = Op::lanes;
  double* sa = st;
  double* sb = st + L * n;
  for (std::int64_t i = 0; i < L * n; ++i) {
    sa[i] = 0.0;
    sb[i] = 0.0;
  }
  for (std::int64_t i = 0; i < n; ++i) sa[i] = x[i];  // lane 0 starts from b
  std::int64_t pos = 0;
  for (; pos + C <= n; pos += C) axpy_block<Op, T, Lower, C>(a, lda, n, unit, x, xa, xb, sa, sb, pos);
  for (; pos < n; ++pos) axpy_block<Op, T, Lower, 1>(a, lda, n, unit, x, xa, xb, sa, sb, pos);
}

// T: the set's 8-lane traits; R: rows per dot-form block, C: columns per
// axpy-form block (the including file's choice, for its register count;
// results do not depend on them).
template <class Op, class T, int R, int C>
void solve(const exala::solvers_detail::kernel_args& k, double* x, double* work) {
  static_assert(T::width == 8 && comp_op::lanes == exala::solvers_detail::comp_lanes,
                "8 accumulation lanes in every kernel set (the same bits)");
  double* xa = work;
  double* xb = work + k.n;
  double* st = work + 2 * k.n;
  if (k.rows) {
    if (k.lower)
      dot_solve<Op, T, true, R>(k.a, k.lda, k.n, k.unit, x, xa, xb);
    else
      dot_solve<Op, T, false, R>(k.a, k.lda, k.n, k.unit, x, xa, xb);
  } else {
    if (k.lower)
      axpy_solve<Op, T, true, C>(k.a, k.lda, k.n, k.unit, x, xa, xb, st);
    else
      axpy_solve<Op, T, false, C>(k.a, k.lda, k.n, k.unit, x, xa, xb, st);
  }
}

#undef EXALA_SV_INLINE
#undef EXALA_SV_AHEAD
