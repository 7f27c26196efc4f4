// The generic kernel set, gemm part: plain C++ loops, baseline flags (no
// FMA is assumed, so the reduction uses the split subtraction of
// gemm_kernels.hpp). The reference every SIMD set must agree with bit for bit;
// exact integer arithmetic makes them agree by construction.
#include <cstdint>

#include "gemm_kernels.hpp"

namespace exala::detail::gemm3 {

namespace {

constexpr int mr = 8;
constexpr int nr = 4;

// Rounds x (|x| < 2^30) to an integer q with |q - x| <= 1/2 + 2^-23, in any
// floating-point rounding direction (the truncating conversion does not
// depend on it): the bound of gemm_kernels.hpp.
inline double round_int(double x) noexcept {
  const double y = x + (x >= 0.0 ? 0.5 : -0.5);
  return static_cast<double>(static_cast<std::int64_t>(y));
}

// v mod m, |v| <= 2^53 + 2^48, result within m/2 + 8 (gemm_kernels.hpp).
inline double reduce(double v, const modulus& md) noexcept {
  const double q = round_int(v * md.minv);
  return (v - q * md.mh) - q * md.ml;
}

inline double residue(const double* hi, const double* lo, std::int64_t idx,
                      const modulus& md) noexcept {
  if (hi == nullptr) return reduce(lo[idx], md);
  // hi * 2^44 + lo = hi * (2^44 mod m) + lo (mod m): |reduce(hi) * p44| <
  // (m/2 + 8) m < 2^47 and |lo| < 2^44, so the sum is an exact integer.
  return reduce(reduce(hi[idx], md) * md.p44 + lo[idx], md);
}

void pack_a(const double* hi, const double* lo, std::int64_t ld, std::int64_t mc, std::int64_t kc,
            const modulus& md, double* dst) {
  for (std::int64_t p = 0; p * mr < mc; ++p) {
    double* d = dst + p * mr * kc;
    for (std::int64_t l = 0; l < kc; ++l)
      for (int r = 0; r < mr; ++r) {
        const std::int64_t i = p * mr + r;
        d[l * mr + r] = i < mc ? residue(hi, lo, i + l * ld, md) : 0.0;
      }
  }
}

void pack_b(const double* hi, const double* lo, std::int64_t ld, std::int64_t kc, std::int64_t nc,
            const modulus& md, double* dst) {
  for (std::int64_t q = 0; q * nr < nc; ++q) {
    double* d = dst + q * nr * kc;
    for (std::int64_t l = 0; l < kc; ++l)
      for (int c = 0; c < nr; ++c) {
        const std::int64_t j = q * nr + c;
        d[l * nr + c] = j < nc ? residue(hi, lo, l * ld + j, md) : 0.0;
      }
  }
}

// Every product is an integer below (m/2 + 8)^2 and every partial sum stays
// below 2^53 (max_kc bound): exact in any order.
void kernel(std::int64_t kc, const double* ap, const double* bp, double* c, std::int64_t ldc,
            bool first, const modulus& md) {
  double acc[nr][mr] = {};
  for (std::int64_t l = 0; l < kc; ++l)
    for (int j = 0; j < nr; ++j) {
      const double b = bp[l * nr + j];
      for (int r = 0; r < mr; ++r) acc[j][r] += ap[l * mr + r] * b;
    }
  for (int j = 0; j < nr; ++j)
    for (int r = 0; r < mr; ++r) {
      double& cv = c[j * ldc + r];
      cv = reduce(first ? acc[j][r] : acc[j][r] + cv, md);
    }
}

void garner(const double* c, std::int64_t plane, std::int64_t count, int nmod, const garner_consts& g,
            double* v) {
  for (int t = 0; t < nmod; ++t) {
    const modulus& md = g.md[t];
    double* vt = v + t * count;
    const double* ct = c + t * plane;
    for (std::int64_t e = 0; e < count; ++e) vt[e] = ct[e];
    for (int s = 0; s < t; ++s) {
      const double inv = g.inv[s][t];
      const double* vs = v + s * count;
      for (std::int64_t e = 0; e < count; ++e) vt[e] = reduce((vt[e] - vs[e]) * inv, md);
    }
  }
}

constexpr gemm_kernels table = {mr, nr, pack_a, pack_b, kernel, garner, nullptr, nullptr};

}  // namespace

const gemm_kernels gemm_generic = table;

}  // namespace exala::detail::gemm3
