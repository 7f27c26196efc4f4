// The baseline kernel set (any x86-64, or any other target), trsv part:
// trsv_impl.hpp over a plain struct of 8 doubles, each operation a loop over
// the lanes (portable C++; scalar code, as trsv.cpp is built without SLP
// vectorization). std::fma is a libm call here (correctly rounded, so the
// same bits as the FMA instruction, only slower; it dominates the time).
#include <cmath>
#include <cstdint>

#include "trsv_kernels.hpp"

namespace exala::solvers_detail {
namespace {

#define EXALA_SV_LANES inline __attribute__((always_inline))
// 8 lanes, each operation lane by lane.
struct trsv_generic8 {
  struct reg {
    double l[8];
  };
  static constexpr int width = 8;
  EXALA_SV_LANES static reg zero() { return reg{}; }
  EXALA_SV_LANES static reg set1(double x) { return {x, x, x, x, x, x, x, x}; }
  EXALA_SV_LANES static reg load(const double* p) {
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = p[i];
    return r;
  }
  EXALA_SV_LANES static reg load_rev(const double* p) {  // lanes p[0], p[-1], ..., p[-7]
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = p[-i];
    return r;
  }
  EXALA_SV_LANES static reg load_first(const double* p, int k) {  // 0 <= k <= 8, +0 elsewhere
    reg r{};
    for (int i = 0; i < k; ++i) r.l[i] = p[i];
    return r;
  }
  EXALA_SV_LANES static void store(double* p, const reg& v) {
    for (int i = 0; i < 8; ++i) p[i] = v.l[i];
  }
#define EXALA_SV_LANEWISE(name, expr)                          \
  EXALA_SV_LANES static reg name(const reg& a, const reg& b) { \
    reg r;                                                     \
    for (int i = 0; i < 8; ++i) r.l[i] = (expr);               \
    return r;                                                  \
  }
  EXALA_SV_LANEWISE(add, a.l[i] + b.l[i])
  EXALA_SV_LANEWISE(sub, a.l[i] - b.l[i])
  EXALA_SV_LANEWISE(mul, a.l[i] * b.l[i])
  EXALA_SV_LANEWISE(sum, a.l[i] + b.l[i])
  EXALA_SV_LANEWISE(diff, a.l[i] - b.l[i])
#undef EXALA_SV_LANEWISE
  EXALA_SV_LANES static reg neg(const reg& a) {
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = -a.l[i];
    return r;
  }
  EXALA_SV_LANES static reg fmadd(const reg& a, const reg& b, const reg& c) {
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = std::fma(a.l[i], b.l[i], c.l[i]);
    return r;
  }
  EXALA_SV_LANES static reg fmsub(const reg& a, const reg& b, const reg& c) {
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = std::fma(a.l[i], b.l[i], -c.l[i]);
    return r;
  }
  EXALA_SV_LANES static reg fnmadd(const reg& a, const reg& b, const reg& c) {
    reg r;
    for (int i = 0; i < 8; ++i) r.l[i] = std::fma(-a.l[i], b.l[i], c.l[i]);
    return r;
  }
};
#undef EXALA_SV_LANES

#include "trsv_impl.hpp"
}  // namespace

void comp_solve_generic(const kernel_args& k, double* x, double* work) { solve<comp_op, trsv_generic8, 2, 1>(k, x, work); }
void dd_solve_generic(const kernel_args& k, double* x, double* work) { solve<dd_op, trsv_generic8, 4, 4>(k, x, work); }
const trsv_kernels trsv_generic{comp_solve_generic, dd_solve_generic};

}  // namespace exala::solvers_detail
