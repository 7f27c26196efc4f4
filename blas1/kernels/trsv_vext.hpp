// Internal (kernel set, trsv part): the 8-lane vector v8 of the generic and
// AVX-512 kernel sets, as a GCC/Clang vector extension (one zmm register
// with AVX-512; four SSE2 registers in the baseline set). Included inside an
// anonymous namespace, before trsv_impl.hpp; the including file
// defines vfma, vsum and vdiff.
// v8 never crosses a call (everything here is internal and inlined), so
// GCC's notes about passing a vector wider than the registers (the baseline
// set) or its calling convention do not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif
typedef double v8 __attribute__((vector_size(64)));
inline __attribute__((always_inline)) void vload(const double* p, v8& v) {
  __builtin_memcpy(&v, p, sizeof v);
}
inline __attribute__((always_inline)) void vload_rev(const double* p, v8& v) {
  v8 t;
  __builtin_memcpy(&t, p - 7, sizeof t);
  v = __builtin_shufflevector(t, t, 7, 6, 5, 4, 3, 2, 1, 0);
}
inline __attribute__((always_inline)) void vstore(double* p, const v8& v) {
  __builtin_memcpy(p, &v, sizeof v);
}
inline __attribute__((always_inline)) v8 splat(double x) { return v8{x, x, x, x, x, x, x, x}; }
inline __attribute__((always_inline)) void set_lane0(v8& v, double b) { v[0] = b; }
