// blas1.cl - exact level-1 reductions (sum, asum, dot; nrm2 is dot(x, x)).
// Appended to common.cl (its assumptions hold here).
//
// Each kernel adds its terms exactly: element i is x[start + i * inc] (the
// host turns BLAS strides, negative ones included, into start/inc), visited
// by work-item (i mod global size), so consecutive work-items read
// consecutive elements. A term goes the fast way (an expansion in registers)
// when it is finite, nonzero and at most 2^960 in magnitude (for dot: when
// TwoProd is exact, 2^-968 <= |x*y| <= 2^960); every other term is rare and
// goes to exact slow code: zeros only set flags, specials only set flags,
// huge terms and tiny or huge products are deposited exactly. Each group
// writes column group_id of `partial` (common.cl, exala_lsa_write).

// Exact sum of x_i (absval = 0) or |x_i| (absval = 1), Collange et al.
// (ParCo 2015) multi-level scheme: adds every term exactly into the group's
// partial superaccumulator with complete term flags.
inline void exala_sum_body(const long n, __global const double* x, const long start, const long inc,
                           const int absval, __global long* partial, volatile __local long* sa,
                           volatile __local uint* lflags) {
  exala_lsa_init(sa, lflags);
  double a[EXALA_FPE_N] = {0.0, 0.0, 0.0, 0.0};
  uint flags = 0u;
  const long stride = (long)get_global_size(0);
  for (long i = (long)get_global_id(0); i < n; i += stride) {
    double v = x[start + i * inc];
    if (absval) v = fabs(v);
    const ulong mag = as_ulong(v) & 0x7FFFFFFFFFFFFFFFUL;
    if (mag - 1UL < EXALA_FAST_MAX_BITS) {  // 0 < |v| <= 2^960
      flags |= EXALA_FLAGS_NONZERO;
      exala_fpe_add(a, v, sa);
    } else if (mag == 0UL) {
      flags |= exala_term_flags(as_ulong(v));
    } else if (mag >= 0x7FF0000000000000UL) {
      flags |= exala_special_flags(v);
    } else {
      flags |= EXALA_FLAGS_NONZERO;
      exala_lsa_deposit(sa, v);
    }
  }
  exala_fpe_flush(a, sa);
  if (flags != 0u) atomic_or(lflags, flags);
  barrier(CLK_LOCAL_MEM_FENCE);
  exala_lsa_write(sa, lflags, partial, (long)get_group_id(0), (long)get_num_groups(0));
}

__kernel void exala_sum(const long n, __global const double* x, const long start, const long inc,
                        __global long* partial) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_sum_body(n, x, start, inc, 0, partial, sa, &lflags);
}

__kernel void exala_asum(const long n, __global const double* x, const long start, const long inc,
                         __global long* partial) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_sum_body(n, x, start, inc, 1, partial, sa, &lflags);
}

// Exact sum of x_i * y_i, Collange et al. (ParCo 2015) with FMA TwoProd:
// both parts of every product enter the expansion where TwoProd is exact;
// other products are exact integer deposits, flags or specials.
__kernel void exala_dot(const long n, __global const double* x, const long xstart, const long incx,
                        __global const double* y, const long ystart, const long incy,
                        __global long* partial) {
  __local long sa[EXALA_DIGITS];
  __local uint lflags;
  exala_lsa_init(sa, &lflags);
  double a[EXALA_FPE_N] = {0.0, 0.0, 0.0, 0.0};
  uint flags = 0u;
  const long stride = (long)get_global_size(0);
  for (long i = (long)get_global_id(0); i < n; i += stride) {
    const double u = x[xstart + i * incx];
    const double v = y[ystart + i * incy];
    double e;
    const double p = exala_two_prod(u, v, &e);
    const double ap = fabs(p);
    if (ap >= 0x1p-968 && ap <= 0x1p960) {
      flags |= EXALA_FLAGS_NONZERO;
      exala_fpe_add(a, p, sa);
      if (e != 0.0) exala_fpe_add(a, e, sa);
    } else if (isinf(u) || isnan(u) || isinf(v) || isnan(v)) {
      flags |= exala_special_flags(p);  // IEEE: NaN, inf * 0 = NaN, or a signed infinity
    } else if (u == 0.0 || v == 0.0) {
      flags |= EXALA_FLAG_HAS_TERM | ((signbit(u) != 0) != (signbit(v) != 0) ? EXALA_FLAG_NOT_POSZERO
                                                                             : EXALA_FLAG_NOT_NEGZERO);
    } else {
      flags |= EXALA_FLAGS_NONZERO;
      exala_lsa_deposit_product(sa, u, v);
    }
  }
  exala_fpe_flush(a, sa);
  if (flags != 0u) atomic_or(&lflags, flags);
  barrier(CLK_LOCAL_MEM_FENCE);
  exala_lsa_write(sa, &lflags, partial, (long)get_group_id(0), (long)get_num_groups(0));
}
