// exala/detail/ozaki8_engine.hpp - the host side of the 8-bit Ozaki-II
// exact gemm (exala/detail/ozaki8.hpp): the plan, the host engine that runs
// the whole decomposition on the CPU (what CI tests, and the oracle the CUDA
// engine must match bit for bit), and the exact finish of the entries an
// engine leaves undecided. Internal: used by blas3, the CUDA backend
// (gpu/cuda) and the tests.
#pragma once

#include <cstdint>

#include "exala/detail/ozaki8.hpp"
#include "exala/rounding.hpp"

namespace exala::detail::ozaki8 {

// C = alpha op(A) op(B) + beta C in column-major form (a row-major call is
// the transposed column-major one): op(A)(i, l) = ta ? a[l + i lda] :
// a[i + l lda], op(B)(l, j) = tb ? b[j + l ldb] : b[l + j ldb]; m, n, k > 0,
// alpha != 0 (the front ends take the rest). Also the CPU engine's form
// (gemm3::problem adds element access).
struct gemm_args {
  std::int64_t m, n, k;
  double alpha;
  const double* a;
  std::int64_t lda;
  bool ta;
  const double* b;
  std::int64_t ldb;
  bool tb;
  double beta;
  double* c;
  std::int64_t ldc;
  rounding mode;
  // Unrounded output (alpha == 1, beta == 0, the front end's special cases
  // not applied; blocked trsm's numerators): S_ij as hi = c[i + j ldc], lo =
  // c_lo[...], err = c_err[...] with |S_ij - hi - lo| <= err and hi =
  // fl(hi + lo); err NaN where the caller must form the entry exactly (a row
  // or column holding inf or NaN, or out of an engine's range).
  double* c_lo = nullptr;
  double* c_err = nullptr;
};

// The moduli count, widths and CRT constants for rows spanning pa bits and
// columns spanning pb bits (the widest lines) over k terms: the exact widths
// when 32 moduli suffice (and they are <= width_cap), else the widest
// truncation that fits, trimmed from the wider side (as gemm_crt).
crt_plan make_plan(int pa, int pb, std::int64_t k);

// What a run did (for tests and benchmarks; results never depend on it).
struct run_stats {
  int moduli = 0;
  int wa = 0, wb = 0;
  int chunks = 0;                  // k-chunks (int32 sums folded modulo m_t)
  bool truncated = false;          // some line was truncated (bounded path)
  std::int64_t exact_entries = 0;  // entries left to finish_exact
};

// The whole pipeline on the host: scan, scale, residues, one int8 x int8 ->
// int32 product per modulus and k-chunk, CRT, rounding; the entries it
// cannot decide are formed by finish_exact (with g.c_lo: the unrounded
// output instead of the rounding, nothing left to finish_exact). Single-threaded: it exists to
// test the decomposition, not to be fast (the CPU's fast engine is gemm_crt).
run_stats gemm_host(const gemm_args& g);

// Tests: routes exala::gemm's simd and omp backends through gemm_host (on)
// or back to the CPU engines (off); returns the previous setting.
bool set_host_engine(bool on) noexcept;
bool host_engine() noexcept;  // the current setting (gemm, and trsm's numerators)

// C_ij = round(alpha S_ij + beta C_ij) through an exact accumulator for the
// listed entries (index i + j m), in host memory.
void finish_exact(const gemm_args& g, const std::int64_t* entries, std::int64_t count);

}  // namespace exala::detail::ozaki8
