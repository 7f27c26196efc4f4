// Internal (kernel set, trsv part): the compensated and double-double substitution
// kernels, written once in plain C++ with 8-lane vector types (GCC/Clang
// vector extensions, no intrinsics) and compiled by one translation unit per
// instruction set (generic/, avx2/, avx512/trsv.cpp).
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
// The including file defines the 8-lane vector type v8 (+, -, *, unary -,
// value-initialized to zeros) and, for it: vfma (lane-wise correctly rounded
// fused multiply-add), vload / vstore (8 consecutive doubles), vload_rev
// (lanes p[0], p[-1], ..., p[-7]), splat (all lanes, -0 kept), set_lane0,
// and vsum / vdiff (a + b, a - b correctly rounded, by any instruction).
// Here: the same operations on plain doubles (lanes = 1 and scalar tails).
EXALA_SV_INLINE double vfma(double a, double b, double c) { return std::fma(a, b, c); }
EXALA_SV_INLINE void vload(const double* p, double& v) { v = *p; }
EXALA_SV_INLINE void vload_rev(const double* p, double& v) { v = *p; }
EXALA_SV_INLINE void set_lane0(double& v, double b) { v = b; }
EXALA_SV_INLINE void vstore(double* p, double v) { *p = v; }
EXALA_SV_INLINE double vsum(double a, double b) { return a + b; }
EXALA_SV_INLINE double vdiff(double a, double b) { return a - b; }

// --------------------------------------------------------------- EFTs
// TwoSum (Knuth): s + e == a + b exactly (lane-wise).
template <class V>
EXALA_SV_INLINE void sv_two_sum(const V& a_in, const V& b_in, V& s, V& e) {
  const V a = a_in, b = b_in;  // copies: the outputs may alias the inputs
  s = a + b;
  const V bp = s - a;
  const V ap = s - bp;
  e = (a - ap) + (b - bp);
}
// FastTwoSum (Dekker), exact when |a| >= |b| or a == 0.
template <class V>
EXALA_SV_INLINE void sv_fast_two_sum(const V& a_in, const V& b_in, V& s, V& e) {
  const V a = a_in, b = b_in;  // copies: the outputs may alias the inputs
  s = a + b;
  e = b - (s - a);
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
  using vec = v8;

  // s - t*xh = s' + e - pe exactly (TwoProd, TwoSum); the correction adds
  // e - pe and the propagated correction -t*c^ of the unknown.
  template <class V>
  EXALA_SV_INLINE static void update(V& s, V& u, const V& t, const V& xh, const V& xc) {
    const V p = t * xh;
    const V pe = vfma(t, xh, -p);  // TwoProd: t*xh = p + pe
    // TwoSum(s, -p) written as a subtraction (no negation of p; the same
    // bits: fl(-p - bp) = -fl(p + bp)): ns + e = s - p exactly
    const V ns = s - p;
    const V bp = ns - s;
    const V ap = ns - bp;
    const V e = (s - ap) - (p + bp);
    s = ns;
    // u += (e - pe) - t c^: one add on the loop-carried chain. vsum/vdiff
    // are a + b / a - b, correctly rounded (an FMA by 1 where the kernel set
    // balances its add and FMA pipes that way; the same bits).
    u = vsum(u, vfma(-t, xc, vdiff(e, pe)));
  }

  // Lanes combined in lane order: S + U approximates the numerator.
  EXALA_SV_INLINE static void combine(const double* s, const double* u, double& S, double& U) {
    S = s[0];
    U = u[0];
    for (int l = 1; l < lanes; ++l) {
      double ns, e;
      sv_two_sum(S, s[l], ns, e);
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
  using vec = double;

  template <class V>
  EXALA_SV_INLINE static void update(V& hi, V& lo, const V& t, const V& xh, const V& xl) {
    // p = t * (xh + xl) as a double-double
    const V p = t * xh;
    V pl = vfma(t, xh, -p);
    pl = vfma(t, xl, pl);
    V ph;
    sv_fast_two_sum(p, pl, ph, pl);
    // (hi, lo) - (ph, pl)
    V s, e, v, f;
    sv_two_sum(hi, -ph, s, e);
    sv_two_sum(lo, -pl, v, f);
    e = e + v;
    sv_fast_two_sum(s, e, s, e);
    e = e + f;
    sv_fast_two_sum(s, e, hi, lo);
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
    sv_two_sum(S, -p, r, e);
    e = e - pe;
    e = e + U;
    const double q2 = (r + e) / d;
    sv_fast_two_sum(q1, q2, xh, xl);
  }

  EXALA_SV_INLINE static double result(double xh, double xl) {
    return std::isfinite(xh) ? xh + xl : xh;
  }
};

// --------------------------------------------------------------- dot form
// Rows of op(A) contiguous: row i is a + i*lda, op(A)_ij = row[j].
// xa, xb: the two parts of the unknowns computed so far (logical order).
// The lanes of one row run side by side in one lane vector V (Op::vec).
// R rows (consecutive in substitution order) are processed together: their
// predecessors in the full chunks of `lanes` positions before the block are
// shared, so the loop reads R row streams at once (memory parallelism) and
// loads x^, c^ once for R rows; then the rows are finished one by one (the
// remaining positions lane by lane, then combine and divide). Every row sees
// exactly the operations of the one-row loop, so R does not change any bit.
template <class Op, bool Lower, int R>
EXALA_SV_INLINE void dot_block(const double* a, std::int64_t lda, std::int64_t n, bool unit,
                               double* x, double* xa, double* xb, std::int64_t pos0) {
  using V = typename Op::vec;
  constexpr int L = Op::lanes;
  const double* row[R];
  V s[R], u[R];
  for (int r = 0; r < R; ++r) {
    const std::int64_t i = Lower ? pos0 + r : n - 1 - (pos0 + r);
    row[r] = a + i * lda;
    s[r] = V{};
    u[r] = V{};
    set_lane0(s[r], x[i]);  // lane 0 starts from b_i
  }
  // full chunks of predecessors common to the R rows: positions [0, kend)
  const std::int64_t kend = pos0 / L * L;
  if (Lower) {
    // predecessor at position k is j = k
    for (std::int64_t k = 0; k < kend; k += L) {
      V ha, hb;
      vload(xa + k, ha);
      vload(xb + k, hb);
      for (int r = 0; r < R; ++r) {
        V t;
        vload(row[r] + k, t);
        Op::template update<V>(s[r], u[r], t, ha, hb);
      }
    }
  } else {
    // predecessor at position k is j = n-1-k: walk the rows backwards
    for (std::int64_t k = 0; k < kend; k += L) {
      V ha, hb;
      vload_rev(xa + (n - 1 - k), ha);
      vload_rev(xb + (n - 1 - k), hb);
      for (int r = 0; r < R; ++r) {
        V t;
        vload_rev(row[r] + (n - 1 - k), t);
        Op::template update<V>(s[r], u[r], t, ha, hb);
      }
    }
  }
  for (int r = 0; r < R; ++r) {
    const std::int64_t pos = pos0 + r;
    const std::int64_t i = Lower ? pos : n - 1 - pos;
    double sl[L], ul[L];
    vstore(sl, s[r]);
    vstore(ul, u[r]);
    // the remaining positions [kend, pos), lane by lane (lane = k mod L)
    for (std::int64_t k = kend; k < pos; ++k) {
      const std::int64_t j = Lower ? k : n - 1 - k;
      const int l = static_cast<int>(k % L);
      Op::template update<double>(sl[l], ul[l], row[r][j], xa[j], xb[j]);
    }
    double S, U;
    Op::combine(sl, ul, S, U);
    Op::finish(S, U, unit ? 1.0 : row[r][i], unit, xa[i], xb[i]);
    x[i] = Op::result(xa[i], xb[i]);
  }
}

template <class Op, bool Lower, int R>
void dot_solve(const double* a, std::int64_t lda, std::int64_t n, bool unit, double* x,
               double* xa, double* xb) {
  std::int64_t pos = 0;
  for (; pos + R <= n; pos += R) dot_block<Op, Lower, R>(a, lda, n, unit, x, xa, xb, pos);
  for (; pos < n; ++pos) dot_block<Op, Lower, 1>(a, lda, n, unit, x, xa, xb, pos);
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
// after the block, 8 entries at a time with all their lane states held in
// registers across the C updates (the state is read and written once per
// block instead of once per column). Each entry's lane receives its updates
// in increasing position, so every entry sees exactly the operations of the
// one-column loop, which handles the last n mod C columns.
template <class Op, bool Lower, int C>
EXALA_SV_INLINE void axpy_block(const double* a, std::int64_t lda, std::int64_t n, bool unit,
                                double* x, double* xa, double* xb, double* sa, double* sb,
                                std::int64_t pos0) {
  constexpr int L = Op::lanes;
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
      Op::template update<double>(sa[l * n + i], sb[l * n + i], col[r][i], h[r], c[r]);
    }
  }
  // the entries after the block: indices [lo, hi)
  const std::int64_t lo = Lower ? pos0 + C : 0;
  const std::int64_t hi = Lower ? n : n - pos0 - C;
  if constexpr (C == 1) {
    const std::int64_t l = pos0 % L;
    double* ua = sa + l * n;
    double* ub = sb + l * n;
    const v8 hv = splat(h[0]), cv = splat(c[0]);
    std::int64_t i = lo;
    for (; i + 8 <= hi; i += 8) {
      v8 s, u, t;
      vload(ua + i, s);
      vload(ub + i, u);
      vload(col[0] + i, t);
      Op::template update<v8>(s, u, t, hv, cv);
      vstore(ua + i, s);
      vstore(ub + i, u);
    }
    for (; i < hi; ++i) Op::template update<double>(ua[i], ub[i], col[0][i], h[0], c[0]);
  } else {
    std::int64_t i = lo;
    for (; i + 8 <= hi; i += 8) {
      v8 s[L], u[L];
#pragma GCC unroll 8
      for (int l = 0; l < L; ++l) {
        vload(sa + l * n + i, s[l]);
        vload(sb + l * n + i, u[l]);
      }
#pragma GCC unroll 32
      for (int r = 0; r < C; ++r) {  // unrolled: the lane states stay in registers
        v8 t;
        vload(col[r] + i, t);
        __builtin_prefetch(col[r] + i + EXALA_SV_AHEAD);
        Op::template update<v8>(s[r % L], u[r % L], t, splat(h[r]), splat(c[r]));
      }
#pragma GCC unroll 8
      for (int l = 0; l < L; ++l) {
        vstore(sa + l * n + i, s[l]);
        vstore(sb + l * n + i, u[l]);
      }
    }
    for (; i < hi; ++i)
      for (int r = 0; r < C; ++r) {
        const int l = r % L;
        Op::template update<double>(sa[l * n + i], sb[l * n + i], col[r][i], h[r], c[r]);
      }
  }
}

template <class Op, bool Lower, int C>
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
  for (; pos + C <= n; pos += C) axpy_block<Op, Lower, C>(a, lda, n, unit, x, xa, xb, sa, sb, pos);
  for (; pos < n; ++pos) axpy_block<Op, Lower, 1>(a, lda, n, unit, x, xa, xb, sa, sb, pos);
}

// R: rows per dot-form block, C: columns per axpy-form block (the including
// file's choice, for its register count; results do not depend on them).
template <class Op, int R, int C>
void solve(const exala::solvers_detail::kernel_args& k, double* x, double* work) {
  double* xa = work;
  double* xb = work + k.n;
  double* st = work + 2 * k.n;
  if (k.rows) {
    if (k.lower)
      dot_solve<Op, true, R>(k.a, k.lda, k.n, k.unit, x, xa, xb);
    else
      dot_solve<Op, false, R>(k.a, k.lda, k.n, k.unit, x, xa, xb);
  } else {
    if (k.lower)
      axpy_solve<Op, true, C>(k.a, k.lda, k.n, k.unit, x, xa, xb, st);
    else
      axpy_solve<Op, false, C>(k.a, k.lda, k.n, k.unit, x, xa, xb, st);
  }
}

#undef EXALA_SV_INLINE
#undef EXALA_SV_AHEAD
