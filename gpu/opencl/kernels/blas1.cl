// blas1.cl - exact level-1 reductions (sum, asum, dot; nrm2 is dot(x, x)).
// Appended to common.cl (its assumptions hold here).
//
// Each kernel adds its terms exactly: element i is x[start + i * inc] (the
// host turns BLAS strides, negative ones included, into start/inc), visited
// by work-item (i mod global size), so consecutive work-items read
// consecutive elements; each work-item takes two elements per iteration
// (both loads issued before the arithmetic) and steps its index by adding,
// not multiplying. A term goes the fast way (an expansion in registers) when
// it is finite, nonzero and at most 2^960 in magnitude (for dot: when TwoProd
// is exact, 2^-968 <= |x*y| <= 2^960); every other term is rare and goes to
// exact slow code: zeros only set flags, specials only set flags, huge terms
// and tiny or huge products are deposited exactly. At the end the group's
// expansions are merged pairwise in local memory (fbuf: EXALA_FPE_N doubles
// per work-item, a power-of-two local size) and flushed once; each group
// writes column group_id of `partial` (common.cl, exala_lsa_write).

// Exact (Collange et al., ParCo 2015): adds one sum term v (already |x_i|
// for asum) by the expansion, a direct deposit, or flags only.
inline void exala_sum_term(double* a, uint* flags, double v, volatile __local long* sa) {
  const ulong mag = as_ulong(v) & 0x7FFFFFFFFFFFFFFFUL;
  if (mag - 1UL < EXALA_FAST_MAX_BITS) {  // 0 < |v| <= 2^960 (0 wraps around)
    *flags |= EXALA_FLAGS_NONZERO;
    exala_fpe_add(a, v, sa);
  } else if (mag == 0UL) {
    *flags |= exala_term_flags(as_ulong(v));
  } else if (mag >= 0x7FF0000000000000UL) {
    *flags |= exala_special_flags(v);
  } else {
    *flags |= EXALA_FLAGS_NONZERO;
    exala_lsa_deposit(sa, v);
  }
}

// Exact (Collange et al., ParCo 2015; ExBLAS): adds one dot term u * v by
// TwoProd into the expansion (p at level 0, its error at level 1), an exact
// integer product, or flags only.
inline void exala_dot_term(double* a, uint* flags, double u, double v, volatile __local long* sa) {
  double e;
  const double p = exala_two_prod(u, v, &e);
  const double ap = fabs(p);
  if (ap >= 0x1p-968 && ap <= 0x1p960) {
    *flags |= EXALA_FLAGS_NONZERO;
    exala_fpe_add(a, p, sa);
    if (e != 0.0) exala_fpe_add1(a, e, sa);
  } else if (isinf(u) || isnan(u) || isinf(v) || isnan(v)) {
    *flags |= exala_special_flags(u * v);  // IEEE: NaN, inf * 0 = NaN, or a signed infinity
  } else if (u == 0.0 || v == 0.0) {
    *flags |= EXALA_FLAG_HAS_TERM |
              ((signbit(u) != 0) != (signbit(v) != 0) ? EXALA_FLAG_NOT_POSZERO : EXALA_FLAG_NOT_NEGZERO);
  } else {
    *flags |= EXALA_FLAGS_NONZERO;
    exala_lsa_deposit_product(sa, u, v);
  }
}

// Exact sum of x_i (absval = 0) or |x_i| (absval = 1), Collange et al.
// (ParCo 2015) multi-level scheme: adds every term exactly into the group's
// partial superaccumulator with complete term flags.
inline void exala_sum_body(const long n, __global const double* x, const long start, const long inc,
                           const int absval, __global long* partial, __local double* fbuf,
                           volatile __local long* sa, volatile __local uint* lflags) {
  exala_lsa_init(sa, lflags);
  double a[EXALA_FPE_N] = {0.0, 0.0, 0.0, 0.0};
  uint flags = 0u;
  const long stride = (long)get_global_size(0);
  const long step = stride * inc;
  long i = (long)get_global_id(0);
  long ix = start + i * inc;
  for (; i + stride < n; i += 2 * stride, ix += 2 * step) {
    double v0 = x[ix], v1 = x[ix + step];
    if (absval) v0 = fabs(v0), v1 = fabs(v1);
    exala_sum_term(a, &flags, v0, sa);
    exala_sum_term(a, &flags, v1, sa);
  }
  if (i < n) exala_sum_term(a, &flags, absval ? fabs(x[ix]) : x[ix], sa);
  if (flags != 0u) atomic_or(lflags, flags);  // before any barrier: no private state lives across one
  exala_fpe_group_flush(a, fbuf, sa);
  barrier(CLK_LOCAL_MEM_FENCE);
  exala_lsa_write(sa, lflags, partial, (long)get_group_id(0), (long)get_num_groups(0));
}

__kernel void exala_sum(const long n, __global const double* x, const long start, const long inc,
                        __global long* partial, __local double* fbuf) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_sum_body(n, x, start, inc, 0, partial, fbuf, sa, &lflags);
}

__kernel void exala_asum(const long n, __global const double* x, const long start, const long inc,
                         __global long* partial, __local double* fbuf) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_sum_body(n, x, start, inc, 1, partial, fbuf, sa, &lflags);
}

// Exact sum of x_i * y_i, Collange et al. (ParCo 2015) with FMA TwoProd:
// both parts of every product enter the expansion where TwoProd is exact;
// other products are exact integer deposits, flags or specials.
__kernel void exala_dot(const long n, __global const double* x, const long xstart, const long incx,
                        __global const double* y, const long ystart, const long incy,
                        __global long* partial, __local double* fbuf) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_lsa_init(sa, &lflags);
  double a[EXALA_FPE_N] = {0.0, 0.0, 0.0, 0.0};
  uint flags = 0u;
  const long stride = (long)get_global_size(0);
  const long sx = stride * incx, sy = stride * incy;
  long i = (long)get_global_id(0);
  long ix = xstart + i * incx, iy = ystart + i * incy;
  for (; i + stride < n; i += 2 * stride, ix += 2 * sx, iy += 2 * sy) {
    const double u0 = x[ix], v0 = y[iy], u1 = x[ix + sx], v1 = y[iy + sy];
    exala_dot_term(a, &flags, u0, v0, sa);
    exala_dot_term(a, &flags, u1, v1, sa);
  }
  if (i < n) exala_dot_term(a, &flags, x[ix], y[iy], sa);
  if (flags != 0u) atomic_or(&lflags, flags);  // before any barrier: no private state lives across one
  exala_fpe_group_flush(a, fbuf, sa);
  barrier(CLK_LOCAL_MEM_FENCE);
  exala_lsa_write(sa, &lflags, partial, (long)get_group_id(0), (long)get_num_groups(0));
}
