// common.cl - shared device code of the exact OpenCL kernels: error-free
// transforms, per-work-item floating-point expansions, the work-group
// superaccumulator in local memory, term flags, and the group write-out.
// Every program is "common.cl + <program>.cl" (gpu/opencl/src/runtime.hpp).
//
// Method: Collange, Defour, Graillat, Iakymchuk, "Numerical reproducibility
// for the parallel reduction on multi- and many-core architectures" (ParCo
// 2015), as in ExBLAS (Iakymchuk et al. 2015): each work-item keeps an
// expansion of EXALA_FPE_N doubles in registers; what falls out of its last
// level is deposited exactly into a superaccumulator in __local memory; each
// group writes its digits once, carries partly resolved, and a later kernel
// (or the host) adds the groups up. Never any wait on another work-group.
//
// Assumptions (each one is what makes a step exact):
//  * binary64 with IEEE round-to-nearest, gradual underflow (no flush to
//    zero: OpenCL requires denormals for double), correctly rounded + - *,
//    and fma() correctly rounded (required for double by OpenCL 1.2).
//  * The program is built with "-cl-std=CL1.2" only (never
//    -cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations)
//    and contraction is off (pragma below), so a + b and a * b are rounded
//    exactly as written.
//  * TwoSum(a, b) is exact for all finite a, b whose sum does not overflow.
//    The expansions therefore only take terms of magnitude <= 2^960
//    (EXALA_FAST_MAX): a work-item's expansion holds at most the sum of the
//    magnitudes of its terms (< 2^62 * 2^960 < 2^1023), so nothing
//    overflows. Larger finite terms are deposited directly.
//  * TwoProd(a, b) = (p, fma(a, b, -p)) is exact when 2^-968 <= |p| <= DBL_MAX
//    (the error is then a representable multiple of ulp(a) ulp(b)). Other
//    products of finite nonzero doubles are deposited exactly as the integer
//    product of the significands (106 bits, mul_hi) at their exponent.
//  * cl_khr_int64_base_atomics: atom_add on __local long. Deposits are
//    pieces of less than 2^32 in magnitude; a digit receives at most a few
//    pieces per element and per work-item, and a group handles at most
//    EXALA_MAX_PER_GROUP = 2^27 elements (the host launches enough groups),
//    so |raw digit| < 2^(27 + 2 + 32) + small < 2^62: no overflow.
//  * Signed right shifts are avoided (their rounding of negative values is
//    implementation-defined in C); carries use exact division.
// Layout (identical to exala::superaccumulator, accum/include/exala/
// superaccumulator.hpp): EXALA_DIGITS = 136 signed 64-bit digits of radix
// 2^32, digit i weighing 2^(32 i + EXALA_MIN_EXP), EXALA_MIN_EXP = -2176; so
// the host folds device digits with superaccumulator::fold_digits.
// Special values never enter the digits: NaN, +inf, -inf and the term flags
// (has_term, not_negzero, not_poszero: the sign of an exactly zero result)
// are kept in a flags word with the bits of superaccumulator.
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#pragma OPENCL FP_CONTRACT OFF

#define EXALA_DIGITS 136
#define EXALA_MIN_EXP (-2176)
#define EXALA_FPE_N 4
#define EXALA_MAX_PER_GROUP (1L << 27)
// Bit pattern of 2^960: the largest magnitude the expansions take.
#define EXALA_FAST_MAX_BITS 0x7BF0000000000000UL
#define EXALA_DIGIT_MASK 0xFFFFFFFFL

// Flag bits (exala::superaccumulator).
#define EXALA_FLAG_NAN 1u
#define EXALA_FLAG_POS_INF 2u
#define EXALA_FLAG_NEG_INF 4u
#define EXALA_FLAG_HAS_TERM 8u
#define EXALA_FLAG_NOT_NEGZERO 16u
#define EXALA_FLAG_NOT_POSZERO 32u
#define EXALA_FLAGS_NONZERO (EXALA_FLAG_HAS_TERM | EXALA_FLAG_NOT_NEGZERO | EXALA_FLAG_NOT_POSZERO)

// Exact: s + *e == a + b (no overflow), s = fl(a + b); Knuth's TwoSum (TAOCP
// vol. 2), as used by Collange et al. (ParCo 2015).
inline double exala_two_sum(double a, double b, double* e) {
  const double s = a + b;
  const double bb = s - a;
  *e = (a - (s - bb)) + (b - bb);
  return s;
}

// Exact: p + *e == a * b when 2^-968 <= |p| <= DBL_MAX; TwoProd with a
// correctly rounded fma (Ogita, Rump, Oishi, SISC 2005). p is formed as fma(a, b, 0), which is fl(a * b)
// except that an exact -0 product gives +0 (callers never use the sign of a
// zero p): so a compiler that ignored FP_CONTRACT OFF still could not fuse
// the product into a later addition (p + a0 must add the ROUNDED product).
inline double exala_two_prod(double a, double b, double* e) {
  const double p = fma(a, b, 0.0);
  *e = fma(a, b, -p);
  return p;
}

// Exact bookkeeping: the term flags of one finite term with these bits
// (superaccumulator::zero_flags plus has_term).
inline uint exala_term_flags(ulong bits) {
  return EXALA_FLAG_HAS_TERM | (bits == 0x8000000000000000UL ? 0u : EXALA_FLAG_NOT_NEGZERO) |
         (bits == 0UL ? 0u : EXALA_FLAG_NOT_POSZERO);
}

// Exact bookkeeping: the flags of a special term v (inf or NaN), as
// superaccumulator::add_special (IEEE semantics kept beside the digits).
inline uint exala_special_flags(double v) {
  return EXALA_FLAGS_NONZERO |
         (isnan(v) ? EXALA_FLAG_NAN : (signbit(v) ? EXALA_FLAG_NEG_INF : EXALA_FLAG_POS_INF));
}

// Exact: adds the signed piece (|piece| < 2^32) to digit i (integer atomics:
// the order of the group's deposits cannot change the digits).
inline void exala_lsa_add(volatile __local long* sa, int i, ulong piece, long neg) {
  if (piece != 0UL) atom_add(&sa[i], neg ? -(long)piece : (long)piece);
}

// Exact: deposits the finite double v, its significand m < 2^53 at its bit
// position cut into three pieces of less than 2^32 (flags untouched); the
// long accumulator of Kulisch, with the layout of Collange et al. (2015).
inline void exala_lsa_deposit(volatile __local long* sa, double v) {
  const ulong bits = as_ulong(v);
  const uint biased = (uint)((bits >> 52) & 0x7FFUL);
  const ulong mant = (bits & 0x000FFFFFFFFFFFFFUL) | ((ulong)(biased != 0u) << 52);
  if (mant == 0UL) return;
  // v = m * 2^(max(biased, 1) - 1075); bit position above EXALA_MIN_EXP:
  const int pos = (int)biased + (biased == 0u ? 1 : 0) - 1075 - EXALA_MIN_EXP;
  const int sh = pos & 31, i = pos >> 5;
  const long neg = (long)(bits >> 63);
  exala_lsa_add(sa, i, (mant << sh) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 1, (mant >> (32 - sh)) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 2, (mant >> 1) >> (63 - sh), neg);  // bits 64.. (0 when sh == 0)
}

// Exact: deposits the product a * b of finite nonzero doubles (Kulisch's
// exact dot product, for the products TwoProd cannot split): the 106-bit
// integer product of the significands at bit position ea + eb - 2150 above
// EXALA_MIN_EXP (>= 28; the top piece lands at most at digit 132), cut into
// five pieces of less than 2^32.
inline void exala_lsa_deposit_product(volatile __local long* sa, double a, double b) {
  const ulong ba = as_ulong(a), bb = as_ulong(b);
  const uint ea = (uint)((ba >> 52) & 0x7FFUL), eb = (uint)((bb >> 52) & 0x7FFUL);
  const ulong ma = (ba & 0x000FFFFFFFFFFFFFUL) | ((ulong)(ea != 0u) << 52);
  const ulong mb = (bb & 0x000FFFFFFFFFFFFFUL) | ((ulong)(eb != 0u) << 52);
  const ulong lo = ma * mb, hi = mul_hi(ma, mb);
  const int pos = (int)(ea + (ea == 0u ? 1u : 0u)) + (int)(eb + (eb == 0u ? 1u : 0u)) - 2150 - EXALA_MIN_EXP;
  const int sh = pos & 31, i = pos >> 5;
  const long neg = (long)((ba ^ bb) >> 63);
  const ulong q0 = lo & 0xFFFFFFFFUL, q1 = lo >> 32, q2 = hi & 0xFFFFFFFFUL, q3 = hi >> 32;
  // piece k = bits [32k, 32k + 32) of (q3 q2 q1 q0) << sh; q >> 32 is 0 for sh == 0.
  const int rs = 32 - sh;
  exala_lsa_add(sa, i, (q0 << sh) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 1, ((q1 << sh) | (q0 >> rs)) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 2, ((q2 << sh) | (q1 >> rs)) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 3, ((q3 << sh) | (q2 >> rs)) & 0xFFFFFFFFUL, neg);
  exala_lsa_add(sa, i + 4, (q3 >> rs) & 0xFFFFFFFFUL, neg);
}

// Exact: adds x (finite, |x| <= 2^960) to the expansion a[0..EXALA_FPE_N),
// the floating-point expansion level of Collange et al. (ParCo 2015): a
// TwoSum per level, leaving as soon as the remainder is zero; a remainder
// left after the last level is deposited into the local superaccumulator.
// Invariant: sum(a) + deposits == sum of the terms added.
inline void exala_fpe_add(double* a, double x, volatile __local long* sa) {
  double e;
  a[0] = exala_two_sum(a[0], x, &e);
  if (e == 0.0) return;
  a[1] = exala_two_sum(a[1], e, &x);
  if (x == 0.0) return;
  a[2] = exala_two_sum(a[2], x, &e);
  if (e == 0.0) return;
  a[3] = exala_two_sum(a[3], e, &x);
  if (x == 0.0) return;
  exala_lsa_deposit(sa, x);
}

// Exact, as exala_fpe_add (Collange et al., ParCo 2015), starting at level
// 1: for terms far below a[0] (the TwoProd error of a product that went to
// level 0), which would only pass through level 0 unchanged. Exactness does not depend on the level a term
// enters at; only the number of TwoSums does.
inline void exala_fpe_add1(double* a, double x, volatile __local long* sa) {
  double e;
  a[1] = exala_two_sum(a[1], x, &e);
  if (e == 0.0) return;
  a[2] = exala_two_sum(a[2], e, &x);
  if (x == 0.0) return;
  a[3] = exala_two_sum(a[3], x, &e);
  if (e == 0.0) return;
  exala_lsa_deposit(sa, e);
}

// Exact: deposits the expansion into the local superaccumulator (end of a
// work-item; Collange et al., ParCo 2015).
inline void exala_fpe_flush(const double* a, volatile __local long* sa) {
  for (int k = 0; k < EXALA_FPE_N; ++k) exala_lsa_deposit(sa, a[k]);
}

// Exact (Collange et al., ParCo 2015, with the work-group level merged as
// expansions first): merges the expansions of all work-items of the group
// pairwise in local memory, then work-item 0 flushes the one that remains.
// Every work-item stores its expansion in buf (EXALA_FPE_N doubles each);
// in log2(local size) rounds the lower half adds its partner's components
// to its own with exala_fpe_add (exact; spills go to the superaccumulator)
// and stores the result back. The group's end thus costs a dozen atomics
// instead of a dozen per work-item, all on the same few digits; no private
// array lives across a barrier (CPU runtimes would move it to memory). The
// local size must be a power of two. All work-items call it. No overflow:
// a merged expansion holds at most the sum of |terms| of the group
// (< 2^27 * 2^960).
inline void exala_fpe_group_flush(const double* a, __local double* buf, volatile __local long* sa) {
  const int lid = (int)get_local_id(0);
  for (int k = 0; k < EXALA_FPE_N; ++k) buf[lid * EXALA_FPE_N + k] = a[k];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = (int)get_local_size(0) / 2; s > 0; s /= 2) {
    if (lid < s) {
      double m[EXALA_FPE_N];
      for (int k = 0; k < EXALA_FPE_N; ++k) m[k] = buf[lid * EXALA_FPE_N + k];
      for (int k = 0; k < EXALA_FPE_N; ++k) {
        const double v = buf[(lid + s) * EXALA_FPE_N + k];
        if (v != 0.0) exala_fpe_add(m, v, sa);
      }
      for (int k = 0; k < EXALA_FPE_N; ++k) buf[lid * EXALA_FPE_N + k] = m[k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    double m[EXALA_FPE_N];
    for (int k = 0; k < EXALA_FPE_N; ++k) m[k] = buf[k];
    exala_fpe_flush(m, sa);
  }
}

// Zeroes the group's superaccumulator and flags (all work-items call it;
// ends with a barrier).
inline void exala_lsa_init(volatile __local long* sa, volatile __local uint* flags) {
  for (int j = (int)get_local_id(0); j < EXALA_DIGITS; j += (int)get_local_size(0)) sa[j] = 0;
  if (get_local_id(0) == 0) *flags = 0u;
  barrier(CLK_LOCAL_MEM_FENCE);
}

// Exact: floor(d / 2^32) (d minus its low 32 bits is a multiple of 2^32).
inline long exala_carry(long d) { return (d - (d & EXALA_DIGIT_MASK)) / 0x100000000L; }

// Exact (the value is unchanged by the carry step): writes the group's
// digits and flags as column `group` of the digit-major array
// out[(EXALA_DIGITS + 1) * groups]: out[j * groups + group] is digit j
// after one parallel carry step (low 32 bits plus the carry of digit j - 1;
// the top digit keeps its sign and all of its value), so every written digit
// lies in (-2^31, 2^32 + 2^31); row EXALA_DIGITS holds the flags. All
// work-items call it, after a barrier that follows their last deposit.
inline void exala_lsa_write(volatile __local long* sa, volatile __local uint* flags, __global long* out,
                            long group, long groups) {
  for (int j = (int)get_local_id(0); j <= EXALA_DIGITS; j += (int)get_local_size(0)) {
    long v;
    if (j == EXALA_DIGITS) {
      v = (long)*flags;
    } else {
      const long d = sa[j];
      v = j == EXALA_DIGITS - 1 ? d : (d & EXALA_DIGIT_MASK);
      if (j > 0) v += exala_carry(sa[j - 1]);
    }
    out[(long)j * groups + group] = v;
  }
}

// Exact (integer sums; Collange et al., ParCo 2015, global merge): sums row
// j (= group id, 0..EXALA_DIGITS) of the digit-major partials over
// `groups` columns: digits are added, the flags row is OR-ed. One work-group
// per row, a power-of-two local size, `scratch` of local-size longs. With
// groups < 2^27 each sum stays below 2^61 in magnitude, as
// superaccumulator::fold_digits requires.
__kernel void exala_merge_rows(__global const long* partial, const long groups, __global long* out,
                               __local long* scratch) {
  const long row = (long)get_group_id(0);
  const int lid = (int)get_local_id(0), ls = (int)get_local_size(0);
  long acc = 0;
  if (row == EXALA_DIGITS) {
    for (long g = lid; g < groups; g += ls) acc |= partial[row * groups + g];
  } else {
    for (long g = lid; g < groups; g += ls) acc += partial[row * groups + g];
  }
  scratch[lid] = acc;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int s = ls / 2; s > 0; s /= 2) {
    if (lid < s) {
      if (row == EXALA_DIGITS) scratch[lid] |= scratch[lid + s];
      else scratch[lid] += scratch[lid + s];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) out[row] = scratch[0];
}
