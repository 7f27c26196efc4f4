// tests/test_gemm_ozaki8.cpp - the 8-bit Ozaki-II exact gemm that the CUDA
// backend runs on INT8 tensor cores, run by its host engine
// (exala/detail/ozaki8_engine.hpp): the plan's number theory, which path a
// problem takes (the statistics), and the boundaries where the path changes:
// the k-chunk of the int32 sums (folded modulo m_t), the width cap (exact
// lines vs truncated lines with a bound), lines of inf/NaN and zero lines.
// Every result is compared with the reference backend bit for bit; the
// whole data matrix of test_blas3 (layouts, transposes, alpha/beta, ties,
// subnormals, specials, all rounding directions) also runs through this
// engine there (check_gemm).
#define BOOST_TEST_MODULE exala_gemm_ozaki8
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "exala/blas3.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "test_common.hpp"

using namespace exala_test;
namespace oz = exala::detail::ozaki8;
using exala::rounding;

namespace {

struct problem {
  std::int64_t m, n, k;
  std::vector<double> a, b, c;  // column-major, op = none, ld = rows
};

problem make(std::int64_t m, std::int64_t n, std::int64_t k) {
  problem p{m, n, k, std::vector<double>(m * k), std::vector<double>(k * n), std::vector<double>(m * n)};
  return p;
}

// Runs the host engine and the reference on the same data; true when every
// entry has the same bits. Returns the engine's statistics through st.
bool same_as_reference(const problem& p, double alpha, double beta, rounding md, oz::run_stats& st) {
  std::vector<double> got = p.c, want = p.c;
  const oz::gemm_args g{p.m, p.n, p.k, alpha, p.a.data(), p.m, false, p.b.data(), p.k, false,
                        beta, got.data(), p.m, md};
  st = oz::gemm_host(g);
  exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, p.m, p.n, p.k,
              alpha, p.a.data(), p.m, p.b.data(), p.k, beta, want.data(), p.m,
              exala::exec{exala::backend::reference, 0, md});
  bool ok = true;
  for (std::size_t e = 0; e < got.size(); ++e)
    if (!same_bits(got[e], want[e])) {
      BOOST_TEST_MESSAGE("entry " << e << ": got " << hex(got[e]) << ", reference " << hex(want[e]));
      ok = false;
    }
  return ok;
}

}  // namespace

BOOST_AUTO_TEST_CASE(moduli_are_pairwise_coprime_int8_and_cover_the_plan) {
  for (int s = 0; s < oz::max_moduli; ++s) {
    BOOST_TEST(oz::moduli.m[s] <= 256);
    BOOST_TEST(oz::moduli.m[s] >= 2);
    for (int t = 0; t < s; ++t) BOOST_TEST(std::gcd(oz::moduli.m[s], oz::moduli.m[t]) == 1);
  }
  // Balanced residues are int8 for every modulus: [-m/2, m/2).
  for (int t = 0; t < oz::max_moduli; ++t) {
    const oz::crt_plan P = oz::make_plan(53, 53, 1000);
    oz::int96 v{{0xffffffffu, 0xffffffffu, 0xffffffffu}, true};
    for (std::uint32_t x = 0; x < 3000; ++x) {
      v.l[0] = x * 2654435761u;
      v.neg = (x & 1) != 0;
      const int r = oz::residue(v, P.m[t], P.p32[t], P.p64[t]);
      BOOST_TEST((r >= -128 && r <= 127));
      BOOST_TEST((2 * r >= -P.m[t] && 2 * r < P.m[t]));
    }
  }
  // 53-bit data, k = 2^13: 2 + 13 + 53 + 53 = 121 bits -> 16 moduli of <= 8 bits.
  const oz::crt_plan P = oz::make_plan(53, 53, 8192);
  BOOST_TEST(P.exact);
  BOOST_TEST(P.n >= 16);
  BOOST_TEST(P.n <= 17);
  // Widths beyond the cap are truncated; the widest plan still fits 32 moduli.
  const oz::crt_plan W = oz::make_plan(400, 400, 8192);
  BOOST_TEST(!W.exact);
  BOOST_TEST(W.wa <= oz::width_cap);
  BOOST_TEST(W.n <= oz::max_moduli);
}

BOOST_AUTO_TEST_CASE(reconstruct_inverts_the_residues) {
  // X = +-(2^e - 1) and a few random 100-bit values: residues by hand,
  // reconstruct, compare limbs.
  const oz::crt_plan P = oz::make_plan(60, 60, 4);  // 124 bits of M at least
  rng_t r(7);
  for (int rep = 0; rep < 200; ++rep) {
    // X < 2^100 as three limbs plus a sign (|X| < M/4 holds).
    const std::uint32_t l0 = static_cast<std::uint32_t>(r()), l1 = static_cast<std::uint32_t>(r());
    const std::uint32_t l2 = static_cast<std::uint32_t>(r() & 0xfffffffu);
    const bool neg = rep % 2 == 1;
    const oz::int96 v{{l0, l1, l2}, neg};
    std::vector<std::int32_t> res(P.n);
    for (int t = 0; t < P.n; ++t) res[t] = oz::residue(v, P.m[t], P.p32[t], P.p64[t]) + 7 * P.m[t];
    oz::u32 x[oz::limbs];
    oz::reconstruct(res.data(), 1, P, x);
    // Two's complement of +-X in P.limbs_used limbs.
    std::uint64_t cy = neg ? 1 : 0;
    const std::uint32_t want_mag[4] = {l0, l1, l2, 0};
    for (int l = 0; l < P.limbs_used; ++l) {
      const std::uint32_t mag = l < 4 ? want_mag[l] : 0;
      const std::uint64_t w = static_cast<std::uint64_t>(neg ? ~mag : mag) + cy;
      cy = neg ? w >> 32 : 0;
      BOOST_TEST(x[l] == static_cast<std::uint32_t>(w));
    }
  }
}

BOOST_AUTO_TEST_CASE(uniform_data_is_decided_without_the_exact_path) {
  rng_t r(11);
  problem p = make(37, 29, 300);
  for (double& v : p.a) v = uniform(r);
  for (double& v : p.b) v = uniform(r);
  for (double& v : p.c) v = uniform(r);
  for (rounding md : {rounding::to_nearest_even, rounding::upward}) {
    oz::run_stats st;
    BOOST_TEST(same_as_reference(p, 1.0, 0.0, md, st));
    BOOST_TEST(st.exact_entries == 0);
    BOOST_TEST(!st.truncated);
    BOOST_TEST(st.chunks == 1);
    BOOST_TEST(same_as_reference(p, -0.75, 1.5, md, st));
    BOOST_TEST(st.exact_entries == 0);
  }
}

BOOST_AUTO_TEST_CASE(k_chunks_fold_their_int32_sums) {
  // One row times one column over k around the chunk length: the int32 sums
  // of a chunk reach 128^2 k_chunk < 2^31 with the extreme residues, so the
  // data is chosen to produce large residues, and results must not change
  // across the chunk boundary.
  rng_t r(13);
  for (std::int64_t k : {oz::k_chunk - 1, oz::k_chunk, oz::k_chunk + 1, 2 * oz::k_chunk + 5}) {
    problem p = make(2, 3, k);
    for (double& v : p.a) v = -std::ldexp(static_cast<double>(r() | 1), -64) * (r() % 2 ? 1 : -1);
    for (double& v : p.b) v = uniform(r);
    oz::run_stats st;
    BOOST_TEST(same_as_reference(p, 1.0, 0.0, rounding::to_nearest_even, st), "k = " << k);
    BOOST_TEST(st.chunks == (k + oz::k_chunk - 1) / oz::k_chunk);
    BOOST_TEST(st.exact_entries == 0);
  }
}

BOOST_AUTO_TEST_CASE(width_cap_separates_exact_and_truncated_lines) {
  // A row spanning exactly width_cap bits stays exact; one more bit and it
  // is truncated, decided from the bound (or exactly), same bits.
  rng_t r(17);
  for (int span : {oz::width_cap - 1, oz::width_cap, oz::width_cap + 1, 300}) {
    problem p = make(3, 4, 8);
    for (double& v : p.a) v = 1.0 + std::ldexp(static_cast<double>(r() % 1024), -10);
    for (std::int64_t l = 0; l < p.k; ++l) p.a[0 + l * p.m] = static_cast<double>(1 + r() % 255);
    p.a[0] = std::ldexp(1.0, span - 1);  // row 0: bits 2^(span-1) .. 2^0
    p.a[0 + 3 * p.m] = 1.0;
    for (double& v : p.b) v = uniform(r);
    oz::run_stats st;
    BOOST_TEST(same_as_reference(p, 1.0, 0.0, rounding::to_nearest_even, st), "span = " << span);
    BOOST_TEST(st.truncated == (span > oz::width_cap), "span = " << span);
  }
}

BOOST_AUTO_TEST_CASE(special_and_zero_lines_take_the_exact_path) {
  problem p = make(4, 3, 5);
  rng_t r(19);
  for (double& v : p.a) v = uniform(r);
  for (double& v : p.b) v = uniform(r);
  for (double& v : p.c) v = uniform(r) - 0.5;
  p.a[1 + 2 * 4] = INFINITY;   // row 1 holds inf
  for (std::int64_t l = 0; l < 5; ++l) p.a[2 + l * 4] = (l % 2) ? -0.0 : 0.0;  // row 2 zero
  p.b[0 + 1 * 5] = NAN;        // column 1 holds NaN
  for (rounding md : {rounding::to_nearest_even, rounding::downward}) {
    oz::run_stats st;
    BOOST_TEST(same_as_reference(p, 1.0, 0.0, md, st));
    BOOST_TEST(same_as_reference(p, 2.0, -1.0, md, st));
  }
}

BOOST_AUTO_TEST_CASE(int32_sums_at_their_limit) {
  // Integers = 128 mod 256 (one odd entry pins the scale to 2^0): their
  // residue modulo 256 is -128, so a chunk's int32 sum for that modulus is
  // 128^2 times the chunk length, 2^31 - 2^18 for a full chunk. A longer
  // chunk would wrap and change the result.
  rng_t r(23);
  for (std::int64_t k : {oz::k_chunk, oz::k_chunk + 1, 2 * oz::k_chunk}) {
    problem p = make(1, 1, k);
    for (double& v : p.a) v = 128.0 + 256.0 * static_cast<double>(r() % 4096);
    for (double& v : p.b) v = 128.0 + 256.0 * static_cast<double>(r() % 4096);
    p.a[k / 2] = 1.0;
    p.b[k / 3] = 3.0;
    oz::run_stats st;
    BOOST_TEST(same_as_reference(p, 1.0, 0.0, rounding::to_nearest_even, st), "k = " << k);
    BOOST_TEST(st.exact_entries == 0);
  }
}
