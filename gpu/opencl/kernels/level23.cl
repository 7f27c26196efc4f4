// level23.cl - exact kernels of the OpenCL level-2/3 BLAS (gemv, trsv, gemm,
// trsm), after Iakymchuk, Collange, Defour, Graillat, "ExBLAS: reproducible
// and accurate BLAS library" (2015) and "Reproducible triangular solvers for
// high-performance computing" (ITNG 2015).
//
// One kernel, l23_dot, computes for every output o = (i, j) of an M x N grid
// the EXACT sum S_o = sum_{l < K} A(i, l) B(l, j) of K products (A(i, l) at
// a[a_off + i a_rs + l a_cs], B(l, j) at b[b_off + l b_rs + j b_cs]; strides
// may be negative). A work-group owns R outputs; its W work-items split the
// K products of each output in W / R interleaved slices. Each work-item keeps
// a private floating-point expansion of EXALA_FPE_N doubles fed with TwoProd /
// TwoSum (exact); whatever the expansion cannot hold (the residual of its last
// TwoSum), products outside the range where TwoProd is exact, and (after the
// slices' expansions are merged pairwise in local memory) the final expansion
// terms go into the group's __local superaccumulator for that output
// (exala::superaccumulator's digit layout: 136 int64 digits of radix 2^32,
// digit i weighing 2^(32 i - 2176), special values and zero signs in flags
// beside the digits). Nothing is ever rounded, so S_o is exact.
//
// Then, per output, either (finish == 0) the normalized digits and flags are
// written out (the trsm panels: the host adds the rest and divides), or
// (finish == 1) the result y = round(alpha S + beta y) is formed on the device
// where a rigorous error bound proves the rounding (l23_try_round), and the
// digits of the other outputs go to a compact fallback list that the host
// rounds with exala::round_axpby. Either way the bits are those of the
// reference backend.
//
// Digit overflow: every deposit adds less than 2^32 in magnitude to a digit
// (doubles are split into three 32-bit chunks, exact products into five), and
// the group normalizes between blocks of L23_KCHUNK products per output, so
// fewer than 2 L23_KCHUNK + EXALA_FPE_N W < 2^31 deposits reach a digit between
// normalizations: |digit| < 2^63 always.
//
// The trsv kernels (l23_trsv_*) are described in their own section below.
//
// Built as "common.cl + level23.cl" (gpu/opencl/src/runtime.hpp): the error-
// free transforms, expansions, local-superaccumulator deposits and flag
// helpers (exala_*) come from common.cl; only what is specific to the
// level-2/3 kernels is here (l23_*).
#pragma OPENCL FP_CONTRACT OFF

#define L23_KCHUNK (1L << 24)
#define L23_SPECIAL (EXALA_FLAG_NAN | EXALA_FLAG_POS_INF | EXALA_FLAG_NEG_INF)

// Normalizes one superaccumulator (carry propagation: digits 0..134 in
// [0, 2^32), the top digit carries the sign), as superaccumulator::normalize.
void l23_normalize(volatile __local long* sa) {
  long carry = 0;
  for (int i = 0; i < EXALA_DIGITS - 1; ++i) {
    const long v = sa[i] + carry;
    sa[i] = v & EXALA_DIGIT_MASK;
    carry = exala_carry(v);
  }
  sa[EXALA_DIGITS - 1] += carry;
}

// Neighbours of a positive finite double q (bit increments: the successor of
// DBL_MAX is +inf, the predecessor of the smallest subnormal is +0).
inline double l23_next_up(double q) { return as_double(as_ulong(q) + 1UL); }
inline double l23_next_down(double q) { return as_double(as_ulong(q) - 1UL); }
// floor(log2 |x|) of a normal x (a subnormal x gives -1023: callers reject it).
inline int l23_exp(double x) { return (int)((as_ulong(x) >> 52) & 0x7FFUL) - 1023; }

// The top of normalized digits dg (exala::superaccumulator's layout) as a
// double-double: 0 when S == 0 or the top digit is not a sign digit (0 or
// -1); else |S| = (vh + vl) 2^E (1 + e1), |e1| < 2^-95, and *neg its sign.
// vh + vl is the sum of the four magnitude digits from the highest nonzero
// one h (TwoSum chain, error below 2^-100 of it, then renormalized), the
// digits below h - 3 weighing less than 2^-96 of it; E = 32 h + min exponent.
// Magnitude digit i (two's complement when negative: 2^32 - d_z at the
// lowest nonzero digit z, 2^32 - 1 - d_i above it, 0 below).
// One definition per address space (OpenCL 1.2 has no generic pointers).
#define L23_MAG(dg, i, neg, z)                                                   \
  ((i) < 0 ? 0UL                                                                 \
           : (!(neg) ? (ulong)(dg)[(i)]                                          \
                     : ((i) < (z) ? 0UL                                          \
                                  : ((i) == (z) ? 0x100000000UL - (ulong)(dg)[(i)] \
                                                : 0xffffffffUL - (ulong)(dg)[(i)]))))
#define L23_DEFINE_TOP_DD(NAME, PTR)                                             \
  int NAME(PTR dg, int* neg, double* vh_out, double* vl_out, int* E) {           \
    const long top = dg[EXALA_DIGITS - 1];                                       \
    if (top != 0 && top != -1) return 0;                                         \
    const int s_neg = top < 0;                                                   \
    int z = 0;                                                                   \
    if (s_neg)                                                                   \
      while (z < EXALA_DIGITS - 1 && dg[z] == 0) ++z;                            \
    int h = EXALA_DIGITS - 2;                                                    \
    while (h >= 0 && L23_MAG(dg, h, s_neg, z) == 0) --h;                         \
    if (h < 0) return 0;                                                         \
    double vh = 0.0, vl = 0.0, e;                                                \
    for (int k = 0; k < 4; ++k) {                                                \
      vh = exala_two_sum(vh, ldexp((double)L23_MAG(dg, h - k, s_neg, z), -32 * k), &e); \
      vl += e;                                                                   \
    }                                                                            \
    vh = exala_two_sum(vh, vl, &e);                                              \
    *vh_out = vh;                                                                \
    *vl_out = e;                                                                 \
    *neg = s_neg;                                                                \
    *E = 32 * h + EXALA_MIN_EXP;                                                 \
    return 1;                                                                    \
  }
L23_DEFINE_TOP_DD(l23_top_dd_local, volatile __local const long*)
L23_DEFINE_TOP_DD(l23_top_dd_global, __global const long*)
#undef L23_DEFINE_TOP_DD
#undef L23_MAG

// The rounding decision shared by l23_try_round and l23_try_div: the exact
// value is th + tl + err with |err| <= margin and th = fl(th + tl) (a zero,
// subnormal or non-finite th gives no decision or a result both callers
// reject by its exponent afterwards). Sets *res to |the correctly rounded value| in
// direction `mode` (0 nearest, 1 toward zero, 2 up, 3 down) and returns 1
// when every value in [th + tl - margin, th + tl + margin] rounds to the same
// double: for nearest, the interval stays strictly inside the rounding
// interval of |th| (half a gap either side); for the directed modes it lies
// wholly above or below |th|, so the result is |th| or its neighbour. Else 0.
inline int l23_decide(double th, double tl, double margin, int mode, double* res) {
  const int neg = th < 0.0;
  const double qc = fabs(th);
  const double rest = neg ? -tl : tl;
  const double gu = l23_next_up(qc) - qc, gd = qc - l23_next_down(qc);
  if (mode == 0) {
    if (!(rest + margin < 0.5 * gu && rest - margin > -0.5 * gd)) return 0;
    *res = qc;
    return 1;
  }
  const int up = (mode == 2 && !neg) || (mode == 3 && neg);
  if (rest > margin)
    *res = up ? l23_next_up(qc) : qc;
  else if (rest < -margin)
    *res = up ? qc : l23_next_down(qc);
  else
    return 0;
  return 1;
}

// Tries to round alpha S + beta c (S: the normalized digits dg with term flags
// `flags`; c already 0 when beta == 0) on the device, in rounding mode `mode`
// (0 nearest-even, 1 toward zero, 2 upward, 3 downward, as exala::rounding).
// Returns 1 and the correctly rounded result in *out only where that is
// proven; 0 (undecided) leaves the entry to the host's exact round_axpby.
//
// Proof (Ziv's strategy, as exala's round_div_fast): with h the top nonzero
// magnitude digit, |S| = V 2^E (1 + e1), V = sum_{k<4} mag(h-k) 2^(-32k) in
// [1, 2^32) held as the double-double vh + vl (TwoSum chain: error below
// 2^-100 V) and the digits below h - 3 worth less than 2^-96 V, so
// |e1| < 2^-95. alpha = am 2^ea, c = cm 2^ec, beta = bm 2^eb (frexp, exact);
// P = am (vh + vl) = p1 + p2 up to 2^-94 |P| (TwoProd exact, am vl rounded
// once), Q = bm cm = q1 + q2 exactly (TwoProd; no underflow since the factors
// are in [0.5, 1)). Both are scaled by 2^(-s), s the larger of their
// exponents, so the larger term lies in [0.25, 2^32) and the smaller one is
// shifted down by at most 900 bits (else undecided; the subnormal loss there
// is below 2^-1074, far below the margin). T = P + Q is formed as th + tl
// (TwoSum, then the low parts added: two roundings of terms below 2^-50
// (|p1| + |q1|)); altogether |T - (th + tl)| < 2^-93 (|p1| + |q1|) <
// margin = 2^-90 (|p1| + |q1|). With qc = |th| and rest = +-tl (|rest| <=
// half an ulp of qc), the rounding of T in the scaled space is qc (or its
// neighbour) whenever [rest - margin, rest + margin] contains no rounding
// boundary of the mode (midpoints for nearest, qc itself for the directed
// modes); an exact T (rest == 0) in a directed mode is left undecided.
// Scaling back by 2^s is exact and preserves the decision when the result
// stays at least one binade above the subnormal range and finite; otherwise
// undecided. Special values, S == 0 (zero signs) and non-finite alpha, beta,
// c are undecided too.
int l23_try_round(volatile __local const long* dg, uint flags, double alpha, double beta, double c,
                  int mode, double* out) {
  if ((flags & L23_SPECIAL) != 0) return 0;
  if (!isfinite(alpha) || !isfinite(beta) || !isfinite(c) || alpha == 0.0) return 0;
  int s_neg = 0, E = 0;
  double vh = 0.0, vl = 0.0;
  if (!l23_top_dd_local(dg, &s_neg, &vh, &vl, &E)) return 0;  // S == 0: IEEE zero signs on the host
  int ea = 0;
  double am = frexp(alpha, &ea);  // [0.5, 1), exact
  if (s_neg) am = -am;
  const double p1 = am * vh;
  double p2 = fma(am, vh, -p1);
  p2 += am * vl;
  const long sP = (long)ea + E;
  double q1 = 0.0, q2 = 0.0;
  long sQ = sP;
  const int has_q = beta != 0.0 && c != 0.0;
  if (has_q) {
    int eb = 0, ec = 0;
    const double bm = frexp(beta, &eb), cm = frexp(c, &ec);
    q1 = bm * cm;
    q2 = fma(bm, cm, -q1);
    sQ = (long)eb + ec;
  }
  const long s = sP > sQ ? sP : sQ;
  const long dP = sP - s, dQ = sQ - s;  // <= 0
  if (dP < -900 || dQ < -900) return 0;
  const double P1 = ldexp(p1, (int)dP), P2 = ldexp(p2, (int)dP);
  const double Q1 = ldexp(q1, (int)dQ), Q2 = ldexp(q2, (int)dQ);
  double t1 = P1 + Q1;
  double bb = t1 - P1;
  double t2 = (P1 - (t1 - bb)) + (Q1 - bb);
  t2 = t2 + (P2 + Q2);
  const double th = t1 + t2;
  bb = th - t1;
  const double tl = (t1 - (th - bb)) + (t2 - bb);
  const double margin = (fabs(P1) + fabs(Q1)) * 0x1p-90;
  const int neg = th < 0.0;
  if (!(fabs(th) > 0x1p-1000)) return 0;
  double res;
  if (!l23_decide(th, tl, margin, mode, &res)) return 0;
  const long re = (long)l23_exp(res) + s;
  if (re < -1020 || re > 1023) return 0;
  const double r = ldexp(res, (int)s);
  if (!isfinite(r)) return 0;
  *out = neg ? -r : r;
  return 1;
}

// The exact dot products of an M x N grid of outputs (see the file comment),
// for the outputs o in [o_base, o_end) of this launch. Local memory: sa holds
// R x 136 digits, fl R flags, tree W x EXALA_FPE_N doubles, tflags W flags.
// finish == 0: digits and flags of output o go to out_digits[(o - o_base) *
// 136 ..] / out_flags[o - o_base] (all outputs). finish == 1:
// y[y_off + i y_is + j y_js] = round(alpha S + beta y)
// where l23_try_round decides, else a fallback slot (atomic counter) gets the
// digits, the flags, o and the y value read (0 when beta == 0: y not read).
__kernel void l23_dot(__global const double* a, long a_off, long a_rs, long a_cs,
                      __global const double* b, long b_off, long b_rs, long b_cs, long M, long N,
                      long K, long o_base, long o_end, int R, __local long* sa, __local uint* fl,
                      __local double* tree, __local uint* tflags, int finish, double alpha,
                      double beta, __global double* y, long y_off, long y_is, long y_js, int mode,
                      __global long* out_digits, __global uint* out_flags, __global long* slot_index,
                      __global double* slot_c, __global uint* counter) {
  const int lid = (int)get_local_id(0);
  const int W = (int)get_local_size(0);
  const int t = lid % R;
  const int S = W / R;
  const int sl = lid / R;
  const long o = o_base + (long)get_group_id(0) * R + t;
  const int valid = o < o_end && sl < S;
  volatile __local long* my = sa + (long)t * EXALA_DIGITS;
  for (int q = lid; q < R * EXALA_DIGITS; q += W) sa[q] = 0;
  for (int q = lid; q < R; q += W) fl[q] = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);

  double f[EXALA_FPE_N];
  for (int k = 0; k < EXALA_FPE_N; ++k) f[k] = 0.0;
  uint flags = 0u;
  const long i = valid ? o % M : 0, j = valid ? o / M : 0;
  __global const double* ap = a + a_off + i * a_rs;
  __global const double* bp = b + b_off + j * b_cs;
  for (long c0 = 0; c0 < K; c0 += L23_KCHUNK) {
    const long c1 = K - c0 < L23_KCHUNK ? K : c0 + L23_KCHUNK;
    if (valid) {
      for (long l = c0 + sl; l < c1; l += S) {
        const double x = ap[l * a_cs], w = bp[l * b_rs];
        const ulong ux = as_ulong(x), uw = as_ulong(w);
        // Term flags (zero signs): a nonzero product is neither +0 nor -0.
        if (((ux << 1) != 0UL) && ((uw << 1) != 0UL))
          flags |= EXALA_FLAG_NOT_NEGZERO | EXALA_FLAG_NOT_POSZERO;
        else
          flags |= ((ux ^ uw) >> 63) != 0UL ? EXALA_FLAG_NOT_POSZERO : EXALA_FLAG_NOT_NEGZERO;
        double e;
        const double p = exala_two_prod(x, w, &e);
        const ulong up = as_ulong(p) & 0x7fffffffffffffffUL;
        if (up >= 0x0370000000000000UL && up <= EXALA_FAST_MAX_BITS) {
          // 2^-968 <= |p| <= 2^960: TwoProd is exact (common.cl) and the
          // expansion takes both terms.
          exala_fpe_add(f, p, my);
          if (e != 0.0) exala_fpe_add(f, e, my);
        } else if (p == 0.0 && (x == 0.0 || w == 0.0)) {
          // an exact zero product: nothing to add
        } else if (isfinite(x) && isfinite(w)) {
          exala_lsa_deposit_product(my, x, w);  // underflowing or huge product
        } else {
          // IEEE: NaN in, or inf * 0, gives NaN; otherwise a signed infinity.
          flags |= exala_special_flags(x * w);
        }
      }
    }
    if (c1 < K) {  // keep every digit below 2^63 (file comment)
      barrier(CLK_LOCAL_MEM_FENCE);
      if (sl == 0 && valid) l23_normalize(my);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  // Merge the S expansions of each output pairwise in local memory (S is a
  // power of two): the work-item of slice sl < st adds the terms of slice
  // sl + st to its own expansion (exactly: residuals, and terms above the
  // expansions' 2^960 bound, are deposited), so that one expansion per output
  // is flushed instead of S (far fewer contended atomics).
  if (K > 0) flags |= EXALA_FLAG_HAS_TERM;
  for (int st = S / 2; st >= 1; st /= 2) {
    if (sl >= st && sl < 2 * st) {
      for (int k = 0; k < EXALA_FPE_N; ++k) tree[lid * EXALA_FPE_N + k] = f[k];
      tflags[lid] = flags;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sl < st) {
      const int other = lid + st * R;
      for (int k = 0; k < EXALA_FPE_N; ++k) {
        const double v = tree[other * EXALA_FPE_N + k];
        if (v == 0.0) continue;
        if ((as_ulong(v) & 0x7fffffffffffffffUL) <= EXALA_FAST_MAX_BITS)
          exala_fpe_add(f, v, my);
        else
          exala_lsa_deposit(my, v);
      }
      flags |= tflags[other];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (valid && sl == 0) {
    exala_fpe_flush(f, my);
    fl[t] = flags;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (sl == 0 && valid) l23_normalize(my);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (!(valid)) return;
  const uint fo = fl[t];
  if (finish == 0) {
    for (int q = sl; q < EXALA_DIGITS; q += S) out_digits[(o - o_base) * EXALA_DIGITS + q] = my[q];
    if (sl == 0) out_flags[o - o_base] = fo;
    return;
  }
  if (sl != 0) return;
  __global double* yp = y + y_off + i * y_is + j * y_js;
  const double cv = beta != 0.0 ? *yp : 0.0;
  double r;
  if (l23_try_round(my, fo, alpha, beta, cv, mode, &r)) {
    *yp = r;
    return;
  }
  const uint slot = atomic_inc(counter);
  for (int q = 0; q < EXALA_DIGITS; ++q) out_digits[(long)slot * EXALA_DIGITS + q] = my[q];
  out_flags[slot] = fo;
  slot_index[slot] = o;
  slot_c[slot] = cv;
}

// y[pos[k]] = val[k] for k < n: the host's exactly rounded fallback entries.
__kernel void l23_scatter(__global double* y, __global const long* pos, __global const double* val, long n) {
  const long k = (long)get_global_id(0);
  if (k < n) y[pos[k]] = val[k];
}

// ---------------------------------------------------------------- trsv
//
// The device trsv (one right-hand side): the blocked algorithm of Iakymchuk,
// Defour, Collange, Graillat (ITNG 2015) in right-looking form, with kernel
// boundaries only (no work-group waits for another):
//  * every row i owns an exact accumulator in global memory: 136 digits
//    (acc + 136 i), flags (accf[i]) and an expansion of EXALA_FPE_N doubles
//    (fpe + 4 i), holding alpha b_i plus the products with the solutions
//    found so far (l23_trsv_init; l23_trsv_update: a few work-items per row
//    merged in local memory, the row's expansion written by one owner, its
//    digits taking atomic deposits; the digits are used only when an
//    expansion overflows, flagged by L23_DIGITS_USED);
//  * l23_trsv_diag solves one diagonal block in one work-group: each row's
//    exact numerator is approximated by a double-double nh + nl with a
//    rigorous bound eb, the block's own products are added as the solutions
//    appear, and x_i is rounded on the device where l23_try_div proves the
//    correctly rounded quotient; otherwise the kernel records the row in
//    status[] and stops, every later kernel returns at once, and the host
//    rounds that x_i exactly (exala::round_div on the digits plus the block's
//    products) and relaunches from there.
// Each x_i is thus the correctly rounded quotient of its exact numerator,
// whichever path formed it: the bits of the reference backend.

// Adds the signed piece (|piece| < 2^32) to digit i of a row accumulator in
// global memory (atomically: the work-items of one row in l23_trsv_update
// may deposit at the same time).
inline void l23_gadd(__global long* d, int i, ulong piece, long neg) {
  if (piece != 0UL) atom_add((volatile __global long*)&d[i], neg ? -(long)piece : (long)piece);
}
// exala_lsa_deposit for a row accumulator in global memory.
void l23_g_deposit(__global long* d, double v) {
  const ulong bits = as_ulong(v);
  const uint biased = (uint)((bits >> 52) & 0x7FFUL);
  const ulong mant = (bits & 0x000FFFFFFFFFFFFFUL) | ((ulong)(biased != 0u) << 52);
  if (mant == 0UL) return;
  const int pos = (int)biased + (biased == 0u ? 1 : 0) - 1075 - EXALA_MIN_EXP;
  const int sh = pos & 31, i = pos >> 5;
  const long neg = (long)(bits >> 63);
  l23_gadd(d, i, (mant << sh) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 1, (mant >> (32 - sh)) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 2, (mant >> 1) >> (63 - sh), neg);
}
// exala_lsa_deposit_product for a row accumulator in global memory.
void l23_g_deposit_product(__global long* d, double a, double b) {
  const ulong ba = as_ulong(a), bb = as_ulong(b);
  const uint ea = (uint)((ba >> 52) & 0x7FFUL), eb = (uint)((bb >> 52) & 0x7FFUL);
  const ulong ma = (ba & 0x000FFFFFFFFFFFFFUL) | ((ulong)(ea != 0u) << 52);
  const ulong mb = (bb & 0x000FFFFFFFFFFFFFUL) | ((ulong)(eb != 0u) << 52);
  const ulong lo = ma * mb, hi = mul_hi(ma, mb);
  const int pos = (int)(ea + (ea == 0u ? 1u : 0u)) + (int)(eb + (eb == 0u ? 1u : 0u)) - 2150 - EXALA_MIN_EXP;
  const int sh = pos & 31, i = pos >> 5;
  const long neg = (long)((ba ^ bb) >> 63);
  const ulong q0 = lo & 0xFFFFFFFFUL, q1 = lo >> 32, q2 = hi & 0xFFFFFFFFUL, q3 = hi >> 32;
  const int rs = 32 - sh;
  l23_gadd(d, i, (q0 << sh) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 1, ((q1 << sh) | (q0 >> rs)) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 2, ((q2 << sh) | (q1 >> rs)) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 3, ((q3 << sh) | (q2 >> rs)) & 0xFFFFFFFFUL, neg);
  l23_gadd(d, i + 4, (q3 >> rs) & 0xFFFFFFFFUL, neg);
}
// Flag bit (beside superaccumulator's six) set once a row's digits received
// a deposit; until then the row's exact value is its expansion alone.
#define L23_DIGITS_USED 64u

// exala_fpe_add with the residual deposited into a global row accumulator.
inline void l23_g_fpe_add(double* f, double x, __global long* d, uint* flags) {
  double e;
  f[0] = exala_two_sum(f[0], x, &e);
  if (e == 0.0) return;
  f[1] = exala_two_sum(f[1], e, &x);
  if (x == 0.0) return;
  f[2] = exala_two_sum(f[2], x, &e);
  if (e == 0.0) return;
  f[3] = exala_two_sum(f[3], e, &x);
  if (x == 0.0) return;
  l23_g_deposit(d, x);
  *flags |= L23_DIGITS_USED;
}
// Adds the exact product x w to a row's expansion / digits, and its term flags.
inline void l23_g_add_product(double* f, __global long* d, uint* flags, double x, double w) {
  const ulong ux = as_ulong(x), uw = as_ulong(w);
  if (((ux << 1) != 0UL) && ((uw << 1) != 0UL))
    *flags |= EXALA_FLAG_NOT_NEGZERO | EXALA_FLAG_NOT_POSZERO;
  else
    *flags |= ((ux ^ uw) >> 63) != 0UL ? EXALA_FLAG_NOT_POSZERO : EXALA_FLAG_NOT_NEGZERO;
  *flags |= EXALA_FLAG_HAS_TERM;
  double e;
  const double p = exala_two_prod(x, w, &e);
  const ulong up = as_ulong(p) & 0x7fffffffffffffffUL;
  if (up >= 0x0370000000000000UL && up <= EXALA_FAST_MAX_BITS) {
    l23_g_fpe_add(f, p, d, flags);
    if (e != 0.0) l23_g_fpe_add(f, e, d, flags);
  } else if (p == 0.0 && (x == 0.0 || w == 0.0)) {
  } else if (isfinite(x) && isfinite(w)) {
    l23_g_deposit_product(d, x, w);
    *flags |= L23_DIGITS_USED;
  } else {
    *flags |= exala_special_flags(x * w);
  }
}

// acc[i] = alpha b_i exactly (b_i = b[b_off + i b_inc]), expansions zero.
__kernel void l23_trsv_init(__global const double* b, long b_off, long b_inc, double alpha, long n,
                            __global long* acc, __global uint* accf, __global double* fpe) {
  const long i = (long)get_global_id(0);
  if (i >= n) return;
  __global long* d = acc + i * EXALA_DIGITS;
  for (int q = 0; q < EXALA_DIGITS; ++q) d[q] = 0;
  double f[EXALA_FPE_N];
  for (int k = 0; k < EXALA_FPE_N; ++k) f[k] = 0.0;
  uint flags = 0u;
  l23_g_add_product(f, d, &flags, alpha, b[b_off + i * b_inc]);
  for (int k = 0; k < EXALA_FPE_N; ++k) fpe[i * EXALA_FPE_N + k] = f[k];
  accf[i] = flags;
}

// Rows [r0, r1) add op(A)(i, l) xneg[l] for the solved columns [c0, c1).
// A group owns R rows, its W work-items S = W / R interleaved column slices
// each; lanes run along the rows (rows_in_lanes: column-major op(A), adjacent
// rows adjacent in memory) or along a row's columns (contiguous rows), so that
// neighbouring work-items read neighbouring doubles. The slices' expansions
// are merged pairwise in local memory (exactly, residuals deposited), then the
// row's owner adds the merged terms to the row's stored expansion.
__kernel void l23_trsv_update(__global const double* a, long a_rs, long a_cs, __global const double* xneg,
                              __global long* acc, __global uint* accf, __global double* fpe, long c0,
                              long c1, long r0, long r1, __global const int* status, int R,
                              int rows_in_lanes, __local double* tree, __local uint* tflags) {
  if (status[0] >= 0) return;
  const int lid = (int)get_local_id(0);
  const int W = (int)get_local_size(0);
  const int S = W / R;
  const int t = rows_in_lanes ? lid % R : lid / S;
  const int sl = rows_in_lanes ? lid / R : lid % S;
  const long i = r0 + (long)get_group_id(0) * R + t;
  const int valid = i < r1;
  __global long* d = acc + (valid ? i : r0) * EXALA_DIGITS;
  double f[EXALA_FPE_N];
  for (int k = 0; k < EXALA_FPE_N; ++k) f[k] = 0.0;
  uint flags = 0u;
  if (valid) {
    __global const double* ap = a + i * a_rs;
    for (long l = c0 + sl; l < c1; l += S) l23_g_add_product(f, d, &flags, ap[l * a_cs], xneg[l]);
  }
  for (int st = S / 2; st >= 1; st /= 2) {
    if (sl >= st && sl < 2 * st) {
      for (int k = 0; k < EXALA_FPE_N; ++k) tree[lid * EXALA_FPE_N + k] = f[k];
      tflags[lid] = flags;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sl < st) {
      const int other = rows_in_lanes ? lid + st * R : lid + st;
      for (int k = 0; k < EXALA_FPE_N; ++k) {
        const double v = tree[other * EXALA_FPE_N + k];
        if (v == 0.0) continue;
        if ((as_ulong(v) & 0x7fffffffffffffffUL) <= EXALA_FAST_MAX_BITS) {
          l23_g_fpe_add(f, v, d, &flags);
        } else {
          l23_g_deposit(d, v);
          flags |= L23_DIGITS_USED;
        }
      }
      flags |= tflags[other];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (!valid || sl != 0) return;
  double g[EXALA_FPE_N];
  for (int k = 0; k < EXALA_FPE_N; ++k) g[k] = fpe[i * EXALA_FPE_N + k];
  for (int k = 0; k < EXALA_FPE_N; ++k) {
    const double v = f[k];
    if (v == 0.0) continue;
    if ((as_ulong(v) & 0x7fffffffffffffffUL) <= EXALA_FAST_MAX_BITS) {
      l23_g_fpe_add(g, v, d, &flags);
    } else {
      l23_g_deposit(d, v);
      flags |= L23_DIGITS_USED;
    }
  }
  for (int k = 0; k < EXALA_FPE_N; ++k) fpe[i * EXALA_FPE_N + k] = g[k];
  accf[i] |= flags;
}

// Normalizes a row accumulator in global memory (called by the row's only
// work-item in l23_trsv_diag; no other kernel runs meanwhile).
void l23_g_normalize(__global long* sa) {
  long carry = 0;
  for (int i = 0; i < EXALA_DIGITS - 1; ++i) {
    const long v = sa[i] + carry;
    sa[i] = v & EXALA_DIGIT_MASK;
    carry = exala_carry(v);
  }
  sa[EXALA_DIGITS - 1] += carry;
}

// The normalized digits as nh + nl with |S - (nh + nl)| <= *eb; 0 when S is
// zero or beyond 2^+-900 (the exact path decides then). Same magnitude
// extraction as l23_try_round: relative error below 2^-95.
int l23_g_dd(__global const long* dg, double* nh, double* nl, double* eb) {
  int s_neg = 0, E = 0;
  double vh = 0.0, vl = 0.0;
  if (!l23_top_dd_global(dg, &s_neg, &vh, &vl, &E)) return 0;
  if (E < -900 || E > 900) return 0;
  *nh = ldexp(s_neg ? -vh : vh, E);
  *nl = ldexp(s_neg ? -vl : vl, E);
  *eb = fabs(*nh) * 0x1p-94 + 0x1p-1070;
  return 1;
}

// nh + nl += x w (x w exact by TwoProd), the bound eb covering the two
// roundings of the low part (each below 2^-53 of its result); 0 when the
// product or the sum leaves the ranges where this holds.
int l23_dd_add_product(double x, double w, double* nh, double* nl, double* eb) {
  if (x == 0.0 || w == 0.0) return isfinite(x) && isfinite(w);
  double e;
  const double p = exala_two_prod(x, w, &e);
  const ulong up = as_ulong(p) & 0x7fffffffffffffffUL;
  if (!(up >= 0x0370000000000000UL && up <= EXALA_FAST_MAX_BITS)) return 0;
  double err1;
  const double s = exala_two_sum(*nh, p, &err1);
  if (!(fabs(s) < 0x1p1000)) return 0;
  const double t = (*nl + e) + err1;
  *eb += (fabs(*nl) + fabs(e) + fabs(err1) + fabs(t)) * 0x1p-51;
  double lo;
  *nh = exala_two_sum(s, t, &lo);
  *nl = lo;
  return 1;
}

// The correctly rounded quotient N / d in `mode`, where N lies within eb of
// nh + nl (|nl| <= half an ulp of nh) and inv = RN(1 / d): 1 and *out where
// proven, else 0. No division on this critical path: qh = RN(nh inv) lies
// within 1.5 ulps of nh / d (no underflow or overflow in the ranges
// checked), so r = RN(nh - qh d) (fma) is below 2^-50 |nh| and within
// 2^-103 |q d| of the exact remainder, and ql = RN(RN(r + nl) inv) (|ql| <
// 2^-50 |q|) is within 2^-100 |q| of (nh + nl) / d - qh; hence N / d lies
// within margin = eb |inv| (1 + 2^-40) + 2^-96 |qh| of qh + ql, and the
// rounding is decided as in l23_try_round when that interval holds no
// rounding boundary.
int l23_try_div(double nh, double nl, double eb, double d, double inv, int mode, double* out) {
  if (nh == 0.0 || !isfinite(nh) || !isfinite(d) || d == 0.0) return 0;
  const int en = l23_exp(nh), ed = l23_exp(d);
  if (en < -900 || en > 900 || ed < -900 || ed > 900 || en - ed < -900 || en - ed > 900) return 0;
  const double qh = nh * inv;
  const double r = fma(-qh, d, nh);
  const double ql = (r + nl) * inv;
  double tl;
  const double th = exala_two_sum(qh, ql, &tl);
  const double margin = (eb * fabs(inv)) * (1.0 + 0x1p-40) + fabs(qh) * 0x1p-96;
  const int neg = th < 0.0;
  double res;
  if (!l23_decide(th, tl, margin, mode, &res)) return 0;
  if (!isfinite(res) || l23_exp(res) < -1020) return 0;
  *out = neg ? -res : res;
  return 1;
}

// Solves the diagonal block of rows [i0, i0 + rows) from solve position s0 on
// (positions before s0 are solved: their products are added first). One
// work-group of at least `rows` work-items; work-item r owns row i0 + r.
// status[0] < 0: running; else the row whose x the host must form exactly
// (status[1]: its position), and every kernel returns at once.
__kernel void l23_trsv_diag(__global const double* a, long a_rs, long a_cs, __global double* xneg,
                            __global long* acc, __global const uint* accf, __global double* fpe,
                            long i0, int rows, int forward, int s0, int unit, int mode,
                            __global int* status, __local double* lx, __local int* lstop) {
  if (status[0] >= 0) return;
  const int r = (int)get_local_id(0);
  const int mine = r < rows;
  const long i = i0 + r;
  double nh = 0.0, nl = 0.0, eb = 0.0, dii = 1.0;
  int ok = 0;
  if (mine) {
    const uint fl = accf[i];
    if ((fl & L23_DIGITS_USED) != 0u) {
      // Digits in use: flush the expansion into them, normalize, read the top.
      __global long* d = acc + i * EXALA_DIGITS;
      for (int k = 0; k < EXALA_FPE_N; ++k) {
        const double v = fpe[i * EXALA_FPE_N + k];
        if (v != 0.0) l23_g_deposit(d, v);
        fpe[i * EXALA_FPE_N + k] = 0.0;
      }
      l23_g_normalize(d);
      ok = (fl & L23_SPECIAL) == 0u && l23_g_dd(d, &nh, &nl, &eb);
    } else {
      // The usual case: the value is the expansion's EXALA_FPE_N terms
      // (|terms| <= 2^1023), summed by TwoSum with the rounding errors of the
      // low part bounded (below 2^-53 of each partial sum of magnitudes).
      double lo = 0.0, mag = 0.0;
      nh = fpe[i * EXALA_FPE_N];
      for (int k = 1; k < EXALA_FPE_N; ++k) {
        double e;
        nh = exala_two_sum(nh, fpe[i * EXALA_FPE_N + k], &e);
        lo += e;
        mag += fabs(e) + fabs(lo);
      }
      double e;
      nh = exala_two_sum(nh, lo, &e);
      nl = e;
      eb = mag * 0x1p-50 + 0x1p-1070;
      ok = (fl & L23_SPECIAL) == 0u && nh != 0.0 && fabs(nh) < 0x1p1000 && fabs(nh) > 0x1p-900;
    }
    if (!unit) dii = a[i * a_rs + i * a_cs];
  }
  const double inv = 1.0 / dii;  // off the critical path (l23_try_div)
  for (int p = 0; p < s0; ++p) {
    const int rp = forward ? p : rows - 1 - p;
    if (mine && ok && (forward ? r > rp : r < rp))
      ok = l23_dd_add_product(a[i * a_rs + (i0 + rp) * a_cs], xneg[i0 + rp], &nh, &nl, &eb);
  }
  // One barrier per position: the solution of position s travels in slot
  // s & 1 of lx / lstop, which position s + 2 rewrites only after every
  // work-item has passed the barrier of position s + 1 (so has read it).
  for (int s = s0; s < rows; ++s) {
    const int rs = forward ? s : rows - 1 - s;
    const int slot = s & 1;
    if (r == rs) {
      double q = 0.0;
      if (ok && l23_try_div(nh, nl, eb, dii, inv, mode, &q)) {
        lx[slot] = q;
        lstop[slot] = 0;
        xneg[i] = -q;
      } else {
        lstop[slot] = 1;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lstop[slot] != 0) {
      if (r == 0) {
        status[0] = (int)(i0 + rs);
        status[1] = s;
      }
      return;
    }
    const double xq = lx[slot];
    if (mine && ok && (forward ? r > rs : r < rs))
      ok = l23_dd_add_product(a[i * a_rs + (i0 + rs) * a_cs], -xq, &nh, &nl, &eb);
  }
}

// x[x_off + i incx] = -xneg[i].
__kernel void l23_trsv_store(__global const double* xneg, __global double* x, long x_off, long incx, long n) {
  const long i = (long)get_global_id(0);
  if (i < n) x[x_off + i * incx] = -xneg[i];
}
