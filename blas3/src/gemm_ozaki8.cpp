// The host engine of the 8-bit Ozaki-II exact gemm (exala/detail/ozaki8.hpp,
// ozaki8_engine.hpp): the decomposition the CUDA engine runs on tensor
// cores, run here with plain loops so that CI tests every step of it (the
// scaling, the residues, the k-chunk folds, the CRT and the rounding
// decisions) against the reference backend bit for bit.
//
// Guarantee: C_ij = round(alpha S_ij + beta C_ij) of the exact S_ij, the
// reference backend's bits (undecided entries go to entry_finish: a bounded
// Dot2, else an exact accumulator).
#include "exala/detail/ozaki8_engine.hpp"

#include <algorithm>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>

#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "gemm_engine.hpp"

namespace exala::detail::ozaki8 {

namespace {

// Little-endian 32-bit limbs of a product of moduli.
struct big {
  u32 l[limbs + 1] = {};
  void mul(u32 v) {
    u64 cy = 0;
    for (u32& x : l) {
      const u64 t = static_cast<u64>(x) * v + cy;
      x = static_cast<u32>(t);
      cy = t >> 32;
    }
  }
  int bit_length() const {
    for (int i = limbs; i >= 0; --i)
      if (l[i] != 0) return 32 * i + 32 - std::countl_zero(l[i]);
    return 0;
  }
};

int mod_pow2(int e, int m) {  // 2^e mod m
  u64 r = 1 % static_cast<u64>(m);
  for (int i = 0; i < e; ++i) r = (r * 2) % static_cast<u64>(m);
  return static_cast<int>(r);
}

int inverse_mod(int a, int m) {  // a invertible mod m (extended Euclid)
  int r0 = m, r1 = a % m, s0 = 0, s1 = 1;
  while (r1 != 0) {
    const int q = r0 / r1;
    std::tie(r0, r1) = std::make_pair(r1, r0 - q * r1);
    std::tie(s0, s1) = std::make_pair(s1, s0 - q * s1);
  }
  return ((s0 % m) + m) % m;
}

// floor(log2 M_n) for n = 0..max_moduli (M_0 = 1).
struct log2_table {
  int v[max_moduli + 1];
  log2_table() {
    big p;
    p.l[0] = 1;
    v[0] = 0;
    for (int n = 1; n <= max_moduli; ++n) {
      p.mul(static_cast<u32>(moduli.m[n - 1]));
      v[n] = p.bit_length() - 1;
    }
  }
};
const log2_table& log2_m() {
  static const log2_table t;
  return t;
}

}  // namespace

crt_plan make_plan(int pa, int pb, std::int64_t k) {
  const log2_table& L = log2_m();
  crt_plan P;
  P.clog2k = ceil_log2(k);
  int wa = std::max(1, std::min(pa, width_cap)), wb = std::max(1, std::min(pb, width_cap));
  // The CRT sum needs log2 M + 6 bits in `limbs` limbs (sum_t y_t M/m_t < 32 M).
  const int max_log2 = std::min(L.v[max_moduli], 32 * limbs - 8);
  const int budget = max_log2 - 2 - P.clog2k;  // wa + wb allowed
  if (budget < 2) throw exala::invalid_argument("k", "is too large for the 8-bit exact gemm engine");
  while (wa + wb > budget) {
    if (wa >= wb) --wa;
    else --wb;
  }
  P.wa = wa;
  P.wb = wb;
  P.exact = wa >= pa && wb >= pb;
  const int need = 2 + P.clog2k + wa + wb;
  int n = 1;
  while (L.v[n] < need) ++n;  // terminates: need <= max_log2
  P.n = n;
  P.limbs_used = std::min(limbs, (L.v[n] + 8) / 32 + 1);
  big mm;
  mm.l[0] = 1;
  for (int t = 0; t < n; ++t) mm.mul(static_cast<u32>(moduli.m[t]));
  for (int l = 0; l < limbs; ++l) P.big_m[l] = mm.l[l];
  for (int t = 0; t < max_moduli; ++t) {
    P.m[t] = moduli.m[t];
    P.p32[t] = mod_pow2(32, P.m[t]);
    P.p64[t] = mod_pow2(64, P.m[t]);
    P.inv[t] = 0;
    for (int l = 0; l < limbs; ++l) P.w[t][l] = 0;
    if (t >= n) continue;
    big w;
    w.l[0] = 1;
    int wmod = 1;  // (M / m_t) mod m_t
    for (int s = 0; s < n; ++s)
      if (s != t) {
        w.mul(static_cast<u32>(moduli.m[s]));
        wmod = (wmod * (moduli.m[s] % P.m[t])) % P.m[t];
      }
    for (int l = 0; l < limbs; ++l) P.w[t][l] = w.l[l];
    P.inv[t] = inverse_mod(wmod, P.m[t]);
  }
  return P;
}

void finish_exact(const gemm_args& g, const std::int64_t* entries, std::int64_t count) {
  const gemm3::problem p{g};
  for (std::int64_t e = 0; e < count; ++e) gemm3::entry_finish(p, entries[e] % g.m, entries[e] / g.m);
}

run_stats gemm_host(const gemm_args& g) {
  run_stats st;
  const std::int64_t m = g.m, n = g.n, k = g.k;
  auto opa = [&](std::int64_t i, std::int64_t l) { return g.ta ? g.a[l + i * g.lda] : g.a[i + l * g.lda]; };
  auto opb = [&](std::int64_t l, std::int64_t j) { return g.tb ? g.b[j + l * g.ldb] : g.b[l + j * g.ldb]; };

  // 1. Scan the lines (in element order, as the CUDA scan does).
  std::vector<line_info> ra(static_cast<std::size_t>(m)), cb(static_cast<std::size_t>(n));
  int pa = 0, pb = 0;
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t l = 0; l < k; ++l) scan_value(opa(i, l), ra[i]);
    pa = std::max(pa, natural_width(ra[i]));
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t l = 0; l < k; ++l) scan_value(opb(l, j), cb[j]);
    pb = std::max(pb, natural_width(cb[j]));
  }
  // 2. The plan and the line scales.
  const crt_plan P = make_plan(pa, pb, k);
  std::vector<line_scale> sa(static_cast<std::size_t>(m)), sb(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < m; ++i) sa[i] = scale_of(ra[i], P.wa, k, P.clog2k);
  for (std::int64_t j = 0; j < n; ++j) sb[j] = scale_of(cb[j], P.wb, k, P.clog2k);
  st.moduli = P.n;
  st.wa = P.wa;
  st.wb = P.wb;
  st.truncated = !P.exact;

  // 3. Per k-chunk: residues (rows of op(A), columns of op(B), each padded
  // to kp), one int8 product per modulus, folded modulo m_t.
  const std::int64_t mn = checked_count("m*n", m, n);
  const std::int64_t chunk = std::min<std::int64_t>(k, k_chunk);
  const std::int64_t kp = (chunk + k_align - 1) / k_align * k_align;
  std::vector<std::int8_t> ares(static_cast<std::size_t>(checked_count("a residues", P.n * m, kp)));
  std::vector<std::int8_t> bres(static_cast<std::size_t>(checked_count("b residues", P.n * n, kp)));
  std::vector<std::int32_t> cres(static_cast<std::size_t>(checked_count("c residues", P.n, mn)));
  std::vector<std::int32_t> prod(static_cast<std::size_t>(mn));
  for (std::int64_t l0 = 0; l0 < k; l0 += chunk) {
    const std::int64_t len = std::min(chunk, k - l0);
    std::fill(ares.begin(), ares.end(), std::int8_t{0});
    std::fill(bres.begin(), bres.end(), std::int8_t{0});
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t l = 0; l < len; ++l) {
        const int96 v = to_integer(opa(i, l0 + l), sa[i]);
        for (int t = 0; t < P.n; ++t)
          ares[(t * m + i) * kp + l] = static_cast<std::int8_t>(residue(v, P.m[t], P.p32[t], P.p64[t]));
      }
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t l = 0; l < len; ++l) {
        const int96 v = to_integer(opb(l0 + l, j), sb[j]);
        for (int t = 0; t < P.n; ++t)
          bres[(t * n + j) * kp + l] = static_cast<std::int8_t>(residue(v, P.m[t], P.p32[t], P.p64[t]));
      }
    for (int t = 0; t < P.n; ++t) {
      // The residue product (what cublasGemmEx does on the GPU: int8 inputs,
      // exact int32 sums).
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int8_t* bj = &bres[(t * n + j) * kp];
        for (std::int64_t i = 0; i < m; ++i) {
          const std::int8_t* ai = &ares[(t * m + i) * kp];
          std::int32_t s = 0;
          for (std::int64_t l = 0; l < kp; ++l) s += static_cast<std::int32_t>(ai[l]) * bj[l];
          prod[i + j * m] = s;
        }
      }
      std::int32_t* ct = &cres[t * mn];
      if (l0 == 0) std::memcpy(ct, prod.data(), sizeof(std::int32_t) * static_cast<std::size_t>(mn));
      else
        for (std::int64_t e = 0; e < mn; ++e) ct[e] = fold(ct[e], prod[e], P.m[t]);
    }
    ++st.chunks;
  }

  // 4. CRT and rounding per entry; the undecided ones exactly.
  std::vector<std::int64_t> undecided;
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t i = 0; i < m; ++i) {
      u32 x[limbs];
      const std::int64_t e = i + j * m;
      reconstruct(&cres[e], mn, P, x);
      double& c = g.c[i + j * g.ldc];
      if (g.c_lo != nullptr) {
        unrounded_entry(x, P, sa[i], sb[j], c, g.c_lo[i + j * g.ldc], g.c_err[i + j * g.ldc]);
        continue;
      }
      double v;
      if (finish_entry(x, P, sa[i], sb[j], g.alpha, g.beta, g.beta == 0.0 ? 0.0 : c, g.mode, v)) c = v;
      else undecided.push_back(e);
    }
  st.exact_entries = static_cast<std::int64_t>(undecided.size());
  finish_exact(g, undecided.data(), st.exact_entries);
  return st;
}

}  // namespace exala::detail::ozaki8
