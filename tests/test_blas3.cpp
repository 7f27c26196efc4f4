// tests/test_blas3.cpp - gemm and trsm on every backend.
//
// gemm: the reference backend (an exact accumulator per entry and
// exala::round_axpby) against the MPFR oracle (the exact alpha * S + beta * c
// formed in MPFR and rounded once), and every other backend x thread count
// 1..4 x kernel set (forced with exala::force_kernel_set) x exec.block
// against the reference with BIT equality, on:
//  * both layouts x all four transpose combinations, leading dimensions with
//    padding (the gaps and guard cells poisoned with NaN: a read shows as a
//    NaN result, a write as a changed guard);
//  * alpha and beta in {0, +-1, random, powers of two, tiny, huge, inf, NaN};
//  * data kinds: uniform, small integers, wide (2^-200..2^200: the truncated
//    and verified path), the full double range (subnormals, overflowing
//    products, the exact-dot fallback), subnormals, exact cancellation
//    (results tiny or exactly zero: the zero-sign rules), ties (exact
//    midpoints, with and without a far sticky bit, at every binade including
//    the subnormal one and the overflow threshold), signed zeros, sparse
//    data, inf and NaN;
//  * all four rounding directions via exec.mode;
//  * sizes across the micro-tile and tile edges and k across the residue
//    kernel's 128-step reductions;
//  * the BLAS conventions (alpha == 0 and k == 0 read neither A nor B,
//    beta == 0 does not read C) and argument errors.
// trsm: every side x uplo x transpose x diag x layout and alpha, each column
// (left) or row (right) of X against exala::detail::trsv_scaled on that
// right-hand side (and exala::trsv for alpha == 1) with bit equality, on every
// backend x threads x kernel set x block; singular matrices and argument
// errors. The `long` cases sweep bigger random problems.
// backend::opencl is in the matrix (tests/backend_matrix.hpp) when exala::gpu
// is built and a device is present (PoCL in CI: once per case, not per kernel
// set or block, on which it cannot depend); without a device it is reported as
// SKIPPED. The device-resident routines are checked in test_opencl_level23.cpp.
// test_blas3_cuda (label `cuda`, the GPU machine) is this source with
// backend::cuda in the matrix (exala::gpu_cuda, the 8-bit Ozaki-II gemm on
// INT8 tensor cores); the device-pointer API is checked in test_gemm_cuda.cpp.
#define BOOST_TEST_MODULE exala_blas3
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "backend_matrix.hpp"
#include "exala/blas2.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/detail/ozaki8_engine.hpp"
#include "exala/error.hpp"
#include "mpfr_oracle.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala_test;
using exala::backend;
using exala::diag;
using exala::kernel_set;
using exala::layout;
using exala::rounding;
using exala::side;
using exala::transpose;
using exala::uplo;

namespace {

constexpr rounding RN = rounding::to_nearest_even;
const std::vector<rounding> all_modes = {rounding::to_nearest_even, rounding::toward_zero,
                                         rounding::upward, rounding::downward};
const char* name(rounding m) {
  switch (m) {
    case rounding::to_nearest_even: return "RN";
    case rounding::toward_zero: return "RZ";
    case rounding::upward: return "RU";
    case rounding::downward: return "RD";
  }
  return "?";
}
const char* name(layout l) { return l == layout::row_major ? "row" : "col"; }
const char* name(transpose t) { return t == transpose::none ? "N" : "T"; }

// Failure bookkeeping: report the first few mismatches in full, count all,
// and count the comparisons made (one assertion per test case at the end).
struct failures {
  int count = 0;
  long long compared = 0;
  void report(const std::string& msg) {
    if (++count <= 25) BOOST_ERROR(msg);
  }
  ~failures() {
    BOOST_TEST(count == 0, count << " mismatches in " << compared << " comparisons (first 25 shown)");
    BOOST_TEST_MESSAGE(compared << " bitwise comparisons");
  }
};

// ---------------------------------------------------------------- storage

// A logical rows x cols matrix (row-major values).
struct mat {
  std::int64_t rows = 0, cols = 0;
  std::vector<double> v;
  mat() = default;
  mat(std::int64_t r, std::int64_t c, double fill = 0.0)
      : rows(r), cols(c), v(static_cast<std::size_t>(r * c), fill) {}
  double& operator()(std::int64_t i, std::int64_t j) { return v[static_cast<std::size_t>(i * cols + j)]; }
  double operator()(std::int64_t i, std::int64_t j) const {
    return v[static_cast<std::size_t>(i * cols + j)];
  }
};

constexpr std::int64_t guard = 8;

// A matrix in memory: the logical matrix, or its transpose, stored in a
// layout with a leading dimension, every other cell poisoned.
struct stored {
  std::vector<double> buf;
  std::int64_t ld = 1;
  bool col = true;
  std::int64_t srows = 0, scols = 0;  // stored shape
  double* ptr() { return buf.data() + guard; }
  const double* ptr() const { return buf.data() + guard; }
  std::size_t index(std::int64_t r, std::int64_t c) const {
    return static_cast<std::size_t>(guard + (col ? r + c * ld : r * ld + c));
  }
};

// Stores `m` (transposed when `trans`) in layout `lay` with leading dimension
// minimal + pad.
stored store(const mat& m, bool trans, layout lay, std::int64_t pad, double poison = qnan) {
  stored s;
  s.col = lay == layout::col_major;
  s.srows = trans ? m.cols : m.rows;
  s.scols = trans ? m.rows : m.cols;
  s.ld = std::max<std::int64_t>(1, (s.col ? s.srows : s.scols) + pad);
  const std::int64_t outer = s.col ? s.scols : s.srows;
  s.buf.assign(static_cast<std::size_t>(s.ld * outer + 2 * guard), poison);
  for (std::int64_t r = 0; r < s.srows; ++r)
    for (std::int64_t c = 0; c < s.scols; ++c) s.buf[s.index(r, c)] = trans ? m(c, r) : m(r, c);
  return s;
}

// The logical (untransposed) matrix read back, and whether every cell outside
// it kept its bits.
mat load(const stored& s, const stored& before, bool& others_intact) {
  mat m(s.srows, s.scols);
  std::vector<bool> inside(s.buf.size(), false);
  for (std::int64_t r = 0; r < s.srows; ++r)
    for (std::int64_t c = 0; c < s.scols; ++c) {
      m(r, c) = s.buf[s.index(r, c)];
      inside[s.index(r, c)] = true;
    }
  others_intact = true;
  for (std::size_t t = 0; t < s.buf.size(); ++t)
    if (!inside[t] && bits(s.buf[t]) != bits(before.buf[t])) others_intact = false;
  return m;
}

// ---------------------------------------------------------------- gemm problems

struct gemm_problem {
  layout lay = layout::col_major;
  transpose ta = transpose::none, tb = transpose::none;
  std::int64_t m = 0, n = 0, k = 0;
  double alpha = 1.0, beta = 0.0;
  mat a, b, c;  // op(A) m x k, op(B) k x n, C m x n (logical)
  std::int64_t pad_a = 0, pad_b = 0, pad_c = 0;
  std::string what;
  std::string describe() const {
    std::ostringstream os;
    os << what << " " << name(lay) << " " << name(ta) << name(tb) << " m=" << m << " n=" << n
       << " k=" << k << " alpha=" << hex(alpha) << " beta=" << hex(beta) << " pads=" << pad_a << ","
       << pad_b << "," << pad_c;
    return os.str();
  }
};

struct gemm_run {
  mat c;
  bool others_intact = true;
};

gemm_run run_gemm(const gemm_problem& p, const exala::exec& ex) {
  const stored sa = store(p.a, p.ta == transpose::trans, p.lay, p.pad_a);
  const stored sb = store(p.b, p.tb == transpose::trans, p.lay, p.pad_b);
  stored sc = store(p.c, false, p.lay, p.pad_c);
  const stored before = sc;
  exala::gemm(p.lay, p.ta, p.tb, p.m, p.n, p.k, p.alpha, sa.ptr(), sa.ld, sb.ptr(), sb.ld, p.beta,
              sc.ptr(), sc.ld, ex);
  gemm_run r;
  r.c = load(sc, before, r.others_intact);
  return r;
}

#ifdef EXALA_TEST_HAVE_MPFR
// round(alpha * S + beta * c) in MPFR: S exact (mpfr_exact_sum), alpha * S
// and the sum with beta * c exact at 7200 bits (alpha * S spans 2^-3250 ..
// 2^3263, beta * c 2^-2148 .. 2^2048), every step checked for exactness,
// one rounding at the end; IEEE special values and zero signs come from
// MPFR. Conventions: alpha == 0 or k == 0 gives round(beta * c) (beta == 0:
// +0), beta == 0 adds +0 (c not read).
double oracle_entry(const gemm_problem& p, std::int64_t i, std::int64_t j, rounding mode) {
  const mpfr_rnd_t rnd = to_mpfr(mode);
  if (p.alpha == 0.0 || p.k == 0) {
    if (p.beta == 0.0) return 0.0;
    mpfr_exact_sum t(mode);
    t.add_product(p.beta, p.c(i, j));
    return t.round();
  }
  mpfr_exact_sum s(mode);
  for (std::int64_t l = 0; l < p.k; ++l) s.add_product(p.a(i, l), p.b(l, j));
  mpfr_t x, al, t2, bb, cc;
  mpfr_inits2(7200, x, static_cast<mpfr_ptr>(nullptr));
  mpfr_inits2(53, al, bb, cc, static_cast<mpfr_ptr>(nullptr));
  mpfr_init2(t2, 128);
  mpfr_set_d(al, p.alpha, rnd);
  int inex = mpfr_mul(x, s.value(), al, rnd);
  if (p.beta == 0.0) {
    mpfr_set_zero(t2, +1);
  } else {
    mpfr_set_d(bb, p.beta, rnd);
    mpfr_set_d(cc, p.c(i, j), rnd);
    inex |= mpfr_mul(t2, bb, cc, rnd);
  }
  inex |= mpfr_add(x, x, t2, rnd);
  const double r = mpfr_to_double(x, rnd);
  mpfr_clears(x, al, t2, bb, cc, static_cast<mpfr_ptr>(nullptr));
  if (inex != 0) throw std::logic_error("oracle_entry: inexact MPFR step");
  return r;
}
#endif

// Routes gemm's simd backend through the 8-bit Ozaki-II host engine while
// it lives.
struct host_ozaki8 {
  bool was = exala::detail::ozaki8::set_host_engine(true);
  ~host_ozaki8() { exala::detail::ozaki8::set_host_engine(was); }
};

// Runs one problem: reference vs MPFR, then every other backend x threads x
// kernel set (and the given block sizes) vs reference, in each direction.
void check_gemm(const gemm_problem& p, failures& f, const std::vector<rounding>& modes,
                bool with_oracle = true, const std::vector<long long>& blocks = {0}) {
  for (rounding md : modes) {
    const gemm_run ref = run_gemm(p, exala::exec{backend::reference, 0, md});
    if (!ref.others_intact) f.report("reference wrote outside C: " + p.describe());
#ifdef EXALA_TEST_HAVE_MPFR
    if (with_oracle)
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) {
          const double want = oracle_entry(p, i, j, md);
          ++f.compared;
          if (!same_bits(ref.c(i, j), want))
            f.report("reference vs MPFR: " + p.describe() + " " + name(md) + " entry (" +
                     std::to_string(i) + "," + std::to_string(j) + "): got " + hex(ref.c(i, j)) +
                     ", MPFR " + hex(want));
        }
#else
    (void)with_oracle;
#endif
    for (kernel_set ks : kernel_sets()) {
      exala::force_kernel_set(ks);
      for (const config& cf : non_reference_configs())
        for (long long blk : blocks) {
          // opencl ignores the host kernel set and exec.block: run it once.
          if (!runs_with_kernel_set(cf, ks) ||
              ((cf.b == backend::opencl || cf.b == backend::cuda) && blk != blocks.front()))
            continue;
          const gemm_run got = run_gemm(p, exala::exec{cf.b, cf.threads, md, blk});
          if (!got.others_intact)
            f.report(describe(cf, ks) + " wrote outside C: " + p.describe());
          for (std::int64_t i = 0; i < p.m; ++i)
            for (std::int64_t j = 0; j < p.n; ++j, ++f.compared)
              if (!same_bits(got.c(i, j), ref.c(i, j)))
                f.report(describe(cf, ks) + " block=" + std::to_string(blk) + " vs reference: " +
                         p.describe() + " " + name(md) + " entry (" + std::to_string(i) + "," +
                         std::to_string(j) + "): got " + hex(got.c(i, j)) + ", reference " +
                         hex(ref.c(i, j)));
        }
    }
    // The CUDA backend's decomposition (8-bit Ozaki II: residue products,
    // k-chunk folds, CRT from a quotient, rounding on the device), run by
    // its host engine.
    const host_ozaki8 on;
    const gemm_run got = run_gemm(p, exala::exec{backend::simd, 0, md});
    if (!got.others_intact) f.report("ozaki8 host engine wrote outside C: " + p.describe());
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j, ++f.compared)
        if (!same_bits(got.c(i, j), ref.c(i, j)))
          f.report("ozaki8 host engine vs reference: " + p.describe() + " " + name(md) + " entry (" +
                   std::to_string(i) + "," + std::to_string(j) + "): got " + hex(got.c(i, j)) +
                   ", reference " + hex(ref.c(i, j)));
  }
}

// ---------------------------------------------------------------- data

enum class kind {
  uniform,
  integers,
  wide,
  full_range,
  subnormal,
  cancellation,
  ties,
  signed_zeros,
  sparse,
  specials,
  near_overflow,
  underflow,
  count
};
const char* name(kind k) {
  static const char* n[] = {"uniform",      "integers", "wide",   "full_range",
                            "subnormal",    "cancellation", "ties", "signed_zeros",
                            "sparse",       "specials", "near_overflow", "underflow"};
  return n[static_cast<int>(k)];
}

double wide(rng_t& r) { return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 401) - 200); }

// Fills op(A), op(B) and C of the problem with data of kind k.
void fill(gemm_problem& p, kind kd, rng_t& r) {
  p.a = mat(p.m, p.k);
  p.b = mat(p.k, p.n);
  p.c = mat(p.m, p.n);
  auto each = [&](mat& x, const std::function<double()>& g) {
    for (double& v : x.v) v = g();
  };
  switch (kd) {
    case kind::uniform:
      each(p.a, [&] { return uniform(r); });
      each(p.b, [&] { return uniform(r); });
      each(p.c, [&] { return uniform(r); });
      break;
    case kind::integers:  // exact small integers: many exact and tied results
      each(p.a, [&] { return static_cast<double>(static_cast<int>(r() % 17) - 8); });
      each(p.b, [&] { return static_cast<double>(static_cast<int>(r() % 9) - 4); });
      each(p.c, [&] { return static_cast<double>(static_cast<int>(r() % 33) - 16) * 0.5; });
      break;
    case kind::wide:
      each(p.a, [&] { return wide(r); });
      each(p.b, [&] { return wide(r); });
      each(p.c, [&] { return wide(r); });
      break;
    case kind::full_range:
      each(p.a, [&] { return random_any_finite(r); });
      each(p.b, [&] { return random_any_finite(r); });
      each(p.c, [&] { return random_any_finite(r); });
      break;
    case kind::subnormal:
      each(p.a, [&] { return (r() & 1) ? random_exp(r, -1074, -1023) : random_exp(r, -60, 2); });
      each(p.b, [&] { return (r() % 3 == 0) ? random_exp(r, -1074, -1000) : random_exp(r, -4, 4); });
      each(p.c, [&] { return random_exp(r, -1074, -1020); });
      break;
    case kind::cancellation: {
      // Columns l and l + h of op(A) are negatives of each other and rows l
      // and l + h of op(B) are equal, so those products cancel exactly; an odd
      // k leaves one last column of tiny terms (the exact result), or none.
      const std::int64_t h = p.k / 2;
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t l = 0; l < h; ++l) {
          const double v = random_exp(r, -300, 300);
          p.a(i, l) = v;
          p.a(i, l + h) = -v;
        }
      for (std::int64_t l = 0; l < h; ++l)
        for (std::int64_t j = 0; j < p.n; ++j) p.b(l, j) = p.b(l + h, j) = random_exp(r, -300, 300);
      if (p.k % 2 == 1) {
        const std::int64_t l = p.k - 1;
        for (std::int64_t i = 0; i < p.m; ++i)
          p.a(i, l) = (r() % 4 == 0) ? 0.0 : ((r() & 1) ? dmin_sub : random_exp(r, -1074, -1000));
        for (std::int64_t j = 0; j < p.n; ++j)
          p.b(l, j) = (r() % 4 == 0) ? -0.0 : ((r() & 1) ? -1.0 : random_exp(r, -80, 0));
      }
      each(p.c, [&] { return (r() % 3 == 0) ? 0.0 : (r() % 2 ? -0.0 : random_exp(r, -1074, -1060)); });
      break;
    }
    case kind::ties: {
      // Row i of op(A) = [x_i, h_i, s_i, tiny...]; column j of op(B) =
      // [1, w_j, e_j, 0...] with w_j in {1, 1/2}, e_j in {-1, 0, 1}.
      // For a normal x_i, h_i is half an ulp of x_i: S_ij = x_i + h_i w_j is
      // a midpoint (w_j = 1) or a quarter point, plus or minus the far
      // sticky term s_i e_j, or exactly the midpoint (e_j = 0). For a
      // subnormal x_i, h_i = 2^-1074 is one ulp and h_i / 2 the half ulp
      // (w_j = 1/2). x_i = +-DBL_MAX puts the sum on the overflow threshold
      // 2^1024 - 2^970. x_i is moved one ulp toward zero half of the time
      // (odd and even significands).
      for (std::int64_t i = 0; i < p.m; ++i) {
        double x, h;
        const int sel = static_cast<int>(r() % 5);
        if (sel == 0) {
          x = random_exp(r, -1074, -1023);  // subnormal: ulp 2^-1074
          h = dmin_sub;
        } else if (sel == 1) {
          x = (r() & 1) ? DBL_MAX : -DBL_MAX;
          h = std::copysign(0x1p970, x);
        } else {
          x = random_exp(r, -1000, 1000);
          h = std::copysign(std::ldexp(1.0, std::ilogb(x) - 53), x);
        }
        if ((r() & 1) && std::fabs(x) > dmin_sub) x = std::nextafter(x, 0.0);
        if (p.k >= 1) p.a(i, 0) = x;
        if (p.k >= 2) p.a(i, 1) = h;
        if (p.k >= 3) p.a(i, 2) = (r() & 1) ? dmin_sub : std::ldexp(std::fabs(h), -60);
        for (std::int64_t l = 3; l < p.k; ++l) p.a(i, l) = (r() % 3 == 0) ? 0.0 : uniform(r) * 0x1p-1000;
      }
      for (std::int64_t j = 0; j < p.n; ++j) {
        if (p.k >= 1) p.b(0, j) = 1.0;
        if (p.k >= 2) p.b(1, j) = (j % 2 == 0) ? 1.0 : 0.5;
        if (p.k >= 3) p.b(2, j) = static_cast<double>(static_cast<int>(j % 3) - 1);
        for (std::int64_t l = 3; l < p.k; ++l) p.b(l, j) = 0.0;
      }
      each(p.c, [&] { return (r() % 2) ? 0.0 : random_exp(r, -1074, 1000); });
      break;
    }
    case kind::signed_zeros:
      each(p.a, [&] { return (r() & 1) ? -0.0 : 0.0; });
      each(p.b, [&] { return (r() % 4 == 0) ? ((r() & 1) ? -0.0 : 0.0) : uniform(r); });
      each(p.c, [&] { return (r() & 1) ? -0.0 : 0.0; });
      break;
    case kind::sparse:
      each(p.a, [&] { return (r() % 4 == 0) ? uniform(r) : ((r() & 1) ? -0.0 : 0.0); });
      each(p.b, [&] { return (r() % 4 == 0) ? wide(r) : ((r() & 1) ? -0.0 : 0.0); });
      each(p.c, [&] { return (r() % 2) ? -0.0 : uniform(r); });
      break;
    case kind::specials: {
      const double sp[] = {inf, -inf, qnan};
      each(p.a, [&] { return (r() % 9 == 0) ? sp[r() % 3] : ((r() % 7 == 0) ? 0.0 : uniform(r)); });
      each(p.b, [&] { return (r() % 9 == 0) ? sp[r() % 3] : ((r() % 7 == 0) ? -0.0 : uniform(r)); });
      each(p.c, [&] { return (r() % 6 == 0) ? sp[r() % 3] : uniform(r); });
      break;
    }
    case kind::near_overflow:  // products near 2^1024 and beyond, partly cancelling
      each(p.a, [&] { return random_exp(r, 480, 540); });
      each(p.b, [&] { return random_exp(r, 470, 530); });
      each(p.c, [&] { return (r() & 1) ? DBL_MAX : random_exp(r, 1000, 1023); });
      break;
    case kind::underflow:  // products below 2^-1074 mixed with tiny normal ones
      each(p.a, [&] { return (r() & 1) ? random_exp(r, -620, -560) : random_exp(r, -1074, -1000); });
      each(p.b, [&] { return (r() & 1) ? random_exp(r, -620, -560) : random_exp(r, -10, 10); });
      each(p.c, [&] { return random_exp(r, -1074, -1022); });
      break;
    case kind::count: break;
  }
}

// alpha and beta choices: the common values, then the ones that move the
// result across the double range (alpha * S may be representable where S is
// not, and the other way round), and the special values.
double pick_alpha(rng_t& r) {
  const double v[] = {1.0, 1.0, -1.0, 0.5, 3.0, 0.0, 0x1p-600, 0x1p600, 0x1p-1074, -0x1.8p-1000,
                      0x1.fffffffffffffp+1000, inf, qnan};
  const std::size_t i = r() % (std::size(v) + 4);
  return i < std::size(v) ? v[i] : uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 21) - 10);
}
double pick_beta(rng_t& r) {
  const double v[] = {0.0, 0.0, 1.0, -1.0, 2.0, -0.0, 0x1p-600, 0x1p700, -0x1p-1074, inf, qnan};
  const std::size_t i = r() % (std::size(v) + 3);
  return i < std::size(v) ? v[i] : uniform(r);
}

const layout layouts[] = {layout::col_major, layout::row_major};
const transpose transposes[] = {transpose::none, transpose::trans};

gemm_problem make_gemm(layout lay, transpose ta, transpose tb, std::int64_t m, std::int64_t n,
                       std::int64_t k, kind kd, rng_t& r) {
  gemm_problem p;
  p.lay = lay, p.ta = ta, p.tb = tb, p.m = m, p.n = n, p.k = k;
  p.alpha = pick_alpha(r);
  p.beta = pick_beta(r);
  p.pad_a = static_cast<std::int64_t>(r() % 3);
  p.pad_b = static_cast<std::int64_t>(r() % 3);
  p.pad_c = static_cast<std::int64_t>(r() % 3);
  fill(p, kd, r);
  p.what = name(kd);
  return p;
}

}  // namespace

// ================================================================== gemm

BOOST_AUTO_TEST_CASE(gemm_kernel_sets_available) {
  restore_kernel_set restore;
  std::ostringstream os;
  for (kernel_set k : kernel_sets()) os << exala::to_string(k) << " ";
  BOOST_TEST_MESSAGE("kernel sets under test: " << os.str());
  BOOST_TEST(!kernel_sets().empty());
}

// Every layout x transpose pair x data kind, small sizes (including empty
// ones and sizes across the 24 x 8, 8 x 6 and 8 x 4 micro-tiles), all four
// directions, against MPFR and across every configuration.
BOOST_AUTO_TEST_CASE(gemm_variants_kinds_modes) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3001);
  const std::int64_t sizes[][3] = {{0, 3, 2}, {3, 0, 2}, {2, 3, 0}, {1, 1, 1}, {1, 7, 3}, {5, 1, 4},
                                   {7, 9, 5}, {9, 6, 13}, {25, 9, 7}, {8, 17, 3}, {24, 8, 16}, {13, 11, 40}};
  int problems = 0;
  for (layout lay : layouts)
    for (transpose ta : transposes)
      for (transpose tb : transposes)
        for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
          const auto& s = sizes[static_cast<std::size_t>(ki + 3 * static_cast<int>(ta) +
                                                         5 * static_cast<int>(tb) + 7 * static_cast<int>(lay)) %
                                std::size(sizes)];
          const gemm_problem p = make_gemm(lay, ta, tb, s[0], s[1], s[2], static_cast<kind>(ki), r);
          check_gemm(p, f, all_modes);
          ++problems;
        }
  BOOST_TEST_MESSAGE("gemm layouts x transposes x kinds: " << problems << " problems x 4 modes");
}

// The conventions: alpha == 0 and k == 0 give round(beta * C) and read
// neither A nor B (here null or NaN-filled), beta == 0 does not read C (NaN
// there does not propagate), and the exact path keeps the one rounding of
// alpha * S + beta * C (S overflowing or underflowing while the result does
// not).
BOOST_AUTO_TEST_CASE(gemm_blas_conventions) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3002);
  for (const config& cf : all_configs())
    for (rounding md : all_modes) {
      const exala::exec ex{cf.b, cf.threads, md};
      // alpha == 0: A and B are null pointers; C = round(beta * C) entrywise.
      {
        std::vector<double> c = {1.5, -0x1.8p1023, 0x1p-1074, -0.0, inf, qnan, 3.0, 0x1.0000000000001p0};
        const std::vector<double> c0 = c;
        for (double beta : {0.0, 1.0, 3.0, 0.5, -0x1p-60, inf}) {
          c = c0;
          exala::gemm(layout::col_major, transpose::none, transpose::none, 4, 2, 5, 0.0, nullptr, 4,
                      nullptr, 5, beta, c.data(), 4, ex);
          for (std::size_t t = 0; t < c.size(); ++t) {
            if (beta == 0.0) {  // C not read: +0
              if (bits(c[t]) != bits(0.0)) f.report("alpha == beta == 0: got " + hex(c[t]));
              continue;
            }
#ifdef EXALA_TEST_HAVE_MPFR
            mpfr_exact_sum s(md);
            s.add_product(beta, c0[t]);
            const double want = s.round();
            if (!same_bits(c[t], want))
              f.report("alpha == 0 beta=" + hex(beta) + " " + name(md) + ": got " + hex(c[t]) +
                       ", want " + hex(want));
#endif
          }
        }
      }
      // k == 0 with NaN-filled A and B pointers of any shape: same rule.
      {
        const std::vector<double> nanbuf(16, qnan);
        std::vector<double> c = {0x1.fffffffffffffp1023, -1.0, 0x1.8p-1074, 2.0};
        const std::vector<double> c0 = c;
        exala::gemm(layout::row_major, transpose::trans, transpose::none, 2, 2, 0, 1.0, nanbuf.data(), 2,
                    nanbuf.data(), 2, 1.5, c.data(), 2, ex);
        for (std::size_t t = 0; t < c.size(); ++t) {
#ifdef EXALA_TEST_HAVE_MPFR
          mpfr_exact_sum s(md);
          s.add_product(1.5, c0[t]);
          const double want = s.round();
          if (!same_bits(c[t], want))
            f.report(std::string("k == 0 ") + name(md) + ": got " + hex(c[t]) + ", want " + hex(want));
#endif
          if (std::isnan(c[t])) f.report("k == 0 read A or B");
        }
      }
      // beta == 0: C full of NaN is not read.
      {
        const std::vector<double> a = {1.0, 2.0, 3.0, 4.0}, b = {0.5, -1.0, 0.25, 2.0};
        std::vector<double> c(4, qnan);
        exala::gemm(layout::col_major, transpose::none, transpose::none, 2, 2, 2, 1.0, a.data(), 2,
                    b.data(), 2, 0.0, c.data(), 2, ex);
        for (double v : c)
          if (std::isnan(v)) f.report(std::string("beta == 0 read C, ") + describe(cf, exala::active_kernel_set()));
      }
    }
  // One rounding of alpha * S + beta * C: S beyond DBL_MAX scaled back by a
  // tiny alpha, S below the subnormal range scaled up, and beta * C beyond
  // the range cancelling alpha * S.
  gemm_problem p;
  p.m = 3, p.n = 2, p.k = 3;
  p.a = mat(3, 3), p.b = mat(3, 2), p.c = mat(3, 2);
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t l = 0; l < 3; ++l) p.a(i, l) = random_exp(r, 1000, 1023);
  for (std::int64_t l = 0; l < 3; ++l)
    for (std::int64_t j = 0; j < 2; ++j) p.b(l, j) = random_exp(r, 100, 200);
  for (double& v : p.c.v) v = random_exp(r, 1000, 1023);
  p.what = "overflowing S";
  for (double alpha : {0x1p-300, 0x1.5p-290, 0x1p-1074})
    for (double beta : {0.0, -0x1p-200, 0x1p300}) {
      p.alpha = alpha, p.beta = beta;
      check_gemm(p, f, all_modes);
    }
  for (double& v : p.a.v) v = random_exp(r, -1074, -1000);
  for (double& v : p.b.v) v = random_exp(r, -200, -100);
  for (double& v : p.c.v) v = random_exp(r, -1074, -1040);
  p.what = "underflowing S";
  for (double alpha : {0x1p300, 0x1.3p290, 1.0})
    for (double beta : {0.0, -1.0, 0x1p-30}) {
      p.alpha = alpha, p.beta = beta;
      check_gemm(p, f, all_modes);
    }
}

// Ties: exact midpoints between doubles, with a far sticky bit above or
// below, at every binade (subnormal and overflow threshold included), in
// every direction, also produced through alpha and through beta * c.
BOOST_AUTO_TEST_CASE(gemm_ties) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3003);
  for (int rep = 0; rep < 6; ++rep)
    for (layout lay : layouts) {
      gemm_problem p;
      p.lay = lay;
      p.ta = rep % 2 ? transpose::trans : transpose::none;
      p.tb = rep % 3 ? transpose::none : transpose::trans;
      p.m = 9, p.n = 6, p.k = 3 + rep;
      fill(p, kind::ties, r);
      p.alpha = 1.0;
      p.beta = rep % 2 ? 0.0 : 1.0;
      p.what = "ties";
      check_gemm(p, f, all_modes);
    }
  // Midpoints made by beta * c: S = x (exact), beta * c = half an ulp of x.
  gemm_problem p;
  p.m = 6, p.n = 1, p.k = 2;
  p.a = mat(6, 2), p.b = mat(2, 1), p.c = mat(6, 1);
  for (std::int64_t i = 0; i < 6; ++i) {
    const double x = i == 0 ? 1.0 : i == 1 ? DBL_MAX : random_exp(r, -1022, 1000);
    p.a(i, 0) = x, p.a(i, 1) = i % 2 ? dmin_sub : 0.0;
    p.c(i, 0) = std::ldexp(1.0, std::ilogb(x) - 53);  // half an ulp of x
  }
  p.b(0, 0) = 1.0, p.b(1, 0) = (r() & 1) ? 1.0 : -1.0;
  p.what = "ties via beta";
  for (double beta : {1.0, -1.0}) {
    p.beta = beta;
    for (double alpha : {1.0, -1.0}) {
      p.alpha = alpha;
      check_gemm(p, f, all_modes);
    }
  }
}

// alpha * S and beta * c at every distance from 120 bits apart one way to
// 120 bits the other, both short (so that the smaller one is replaced by a
// sticky bit only where that cannot change the result), with a far sticky
// product below, every sign combination and direction.
BOOST_AUTO_TEST_CASE(gemm_far_apart_terms) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3009);
  gemm_problem p;
  p.m = 241, p.n = 6, p.k = 2;
  p.a = mat(p.m, 2), p.b = mat(2, p.n), p.c = mat(p.m, p.n);
  const double sig[] = {1.0, 1.5, 0x1.0000000000001p0, 0x1.fffffffffffffp0, 1.25};
  for (std::int64_t i = 0; i < p.m; ++i) {
    const int d = static_cast<int>(i) - 120;  // S ~ 2^-d, c ~ 1
    p.a(i, 0) = sig[i % 5] * std::ldexp(1.0, -d);
    p.a(i, 1) = (i % 3 == 0) ? 0.0 : std::ldexp(1.0, -d - 60 - static_cast<int>(i % 7));
    for (std::int64_t j = 0; j < p.n; ++j) p.c(i, j) = sig[(i + j) % 5] * ((i + j) % 2 ? -1.0 : 1.0);
  }
  const double b0[] = {1.0, -1.0, 1.0, -1.0, 0.75, -3.0}, b1[] = {0.0, 1.0, -1.0, 0.5, -1.0, 0.0};
  for (std::int64_t j = 0; j < p.n; ++j) p.b(0, j) = b0[j], p.b(1, j) = b1[j];
  p.what = "far apart";
  for (double alpha : {1.0, -0.5, 0x1.8p-3})
    for (double beta : {1.0, -1.0, 0x1.0000000000001p0}) {
      p.alpha = alpha, p.beta = beta;
      check_gemm(p, f, all_modes);
    }
  // Subnormal alpha and beta have 1- or 2-bit significands, so alpha * X
  // and beta * c are short integers: the case where the replacement is
  // decided by the top bit (H - 56) rather than by the lowest bit. Data
  // near 2^950 keeps both terms normal (~2^-124).
  for (std::int64_t i = 0; i < p.m; ++i) {
    const int d = static_cast<int>(i % 191) - 70;
    p.a(i, 0) = sig[i % 5] * std::ldexp(1.0, 950 - d);
    p.a(i, 1) = (i % 3 == 0) ? 0.0 : std::ldexp(1.0, 950 - d - 60 - static_cast<int>(i % 7));
    for (std::int64_t j = 0; j < p.n; ++j)
      p.c(i, j) = sig[(i + j) % 5] * ((i + j) % 2 ? -0x1p950 : 0x1p950);
  }
  p.what = "far apart, short terms";
  for (double alpha : {0x1p-1074, -0x1.8p-1073})
    for (double beta : {0x1p-1074, -0x1.8p-1073}) {
      p.alpha = alpha, p.beta = beta;
      check_gemm(p, f, all_modes);
    }
  (void)r;
}

// Cancellation to an exact zero or a tiny remainder, and the zero signs:
// every product -0, every product +0, mixed zeros, nonzero products
// cancelling, combined with beta * c = +-0 and beta == 0, in every direction.
BOOST_AUTO_TEST_CASE(gemm_cancellation_and_zero_signs) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3004);
  for (int rep = 0; rep < 8; ++rep)
    for (kind kd : {kind::cancellation, kind::signed_zeros, kind::sparse}) {
      gemm_problem p = make_gemm(layouts[rep % 2], transposes[(rep / 2) % 2], transposes[rep % 3 == 0],
                                 5 + rep % 3, 4 + rep % 4, 2 * (rep % 4) + (rep % 2) + 1, kd, r);
      p.alpha = rep % 3 == 0 ? -1.0 : (rep % 3 == 1 ? 1.0 : 0x1p-50);
      p.beta = rep % 4 == 0 ? 0.0 : (rep % 4 == 1 ? -1.0 : (rep % 4 == 2 ? 1.0 : -0.0));
      check_gemm(p, f, all_modes);
    }
  // Hand-made signed-zero patterns, one entry each.
  struct zcase {
    std::vector<double> a, b;
  };
  const std::vector<zcase> zs = {
      {{-0.0, 0.0}, {1.0, -1.0}},     // -0 and -0: all products -0
      {{0.0, -0.0}, {1.0, -1.0}},     // +0 and +0
      {{0.0, -0.0}, {1.0, 1.0}},      // +0 and -0
      {{1.0, -1.0}, {2.0, 2.0}},      // nonzero, cancelling
      {{-0.0}, {3.0}},                // one -0 product
      {{1.0, -0.0}, {-0.0, 5.0}},     // -0, -0
      {{0x1p-1074, -0x1p-1074}, {0.5, 0.5}},  // products below the subnormal range, cancelling
  };
  for (const zcase& z : zs)
    for (double alpha : {1.0, -1.0, 0x1p-1074})
      for (double beta : {0.0, 1.0, -1.0})
        for (double c0 : {0.0, -0.0}) {
          gemm_problem p;
          p.m = 1, p.n = 1, p.k = static_cast<std::int64_t>(z.a.size());
          p.a = mat(1, p.k), p.b = mat(p.k, 1), p.c = mat(1, 1, c0);
          for (std::int64_t l = 0; l < p.k; ++l) p.a(0, l) = z.a[l], p.b(l, 0) = z.b[l];
          p.alpha = alpha, p.beta = beta;
          p.what = "zero signs";
          check_gemm(p, f, all_modes);
        }
}

// inf and NaN in A, B, C, alpha and beta: every entry follows IEEE for the
// exact expression (the rows and columns holding them take the exact-dot
// path; the others stay on the fast path).
// Sends every product to the CRT engine while it lives (tests of the
// engine's own tiles, blocks and path statistics; the small-product path
// has its own tests in test_fast_paths).
struct engine_only {
  std::int64_t old = exala::detail::set_small_gemm_limit(0);
  ~engine_only() { exala::detail::set_small_gemm_limit(old); }
};

BOOST_AUTO_TEST_CASE(gemm_special_values) {
  restore_kernel_set restore;
  failures f;
  rng_t r(3005);
  for (int rep = 0; rep < 10; ++rep) {
    gemm_problem p = make_gemm(layouts[rep % 2], transposes[rep % 3 == 1], transposes[rep % 4 == 2],
                               3 + rep % 5, 2 + rep % 4, 1 + rep % 6, kind::specials, r);
    check_gemm(p, f, all_modes);
  }
  // inf * 0 and +inf + -inf inside one entry, and alpha = inf on exact zero sums.
  gemm_problem p;
  p.m = 4, p.n = 3, p.k = 2;
  p.a = mat(4, 2), p.b = mat(2, 3), p.c = mat(4, 3, 1.0);
  const double av[4][2] = {{inf, 1.0}, {inf, -inf}, {0.0, 1.0}, {1.0, -1.0}};
  const double bv[2][3] = {{0.0, 1.0, 1.0}, {1.0, 1.0, 1.0}};
  for (int i = 0; i < 4; ++i)
    for (int l = 0; l < 2; ++l) p.a(i, l) = av[i][l];
  for (int l = 0; l < 2; ++l)
    for (int j = 0; j < 3; ++j) p.b(l, j) = bv[l][j];
  p.what = "inf*0, inf-inf";
  for (double alpha : {1.0, inf, -inf, 0x1p-1074})
    for (double beta : {0.0, 1.0, inf}) {
      p.alpha = alpha, p.beta = beta;
      check_gemm(p, f, all_modes);
    }
  // Path check: rows/columns with specials were recomputed exactly.
  exala::force_kernel_set(kernel_sets().back());
  p.alpha = 1.0, p.beta = 0.0;
  run_gemm(p, exala::exec{backend::simd});
  BOOST_TEST(exala::detail::last_gemm_path().exact_dot_entries > 0);
}

// Sizes across the tiles and the 128-step residue reductions, every block
// size the engine treats differently (1 = one micro-tile per tile and one
// step per reduction), against the reference.
BOOST_AUTO_TEST_CASE(gemm_tiles_and_blocks) {
  const engine_only engine;  // these sizes would take the small-product path
  restore_kernel_set restore;
  failures f;
  rng_t r(3006);
  const std::vector<long long> blocks = {0, 1, 2, 5, 8, 24, 31, 128, 129, 1000};
  const std::int64_t shapes[][3] = {{37, 29, 257}, {50, 3, 129}, {2, 45, 300}};
  int idx = 0;
  for (const auto& s : shapes)
    for (kind kd : {kind::uniform, kind::wide, kind::integers}) {
      gemm_problem p = make_gemm(layouts[idx % 2], transposes[idx % 3 == 0], transposes[idx % 2],
                                 s[0], s[1], s[2], kd, r);
      p.alpha = idx % 2 ? 1.0 : -0.75;
      p.beta = idx % 3 ? 0.0 : 2.0;
      // MPFR on the first shape only (the reference is MPFR-checked elsewhere).
      check_gemm(p, f, {all_modes[static_cast<std::size_t>(idx) % 4]}, idx < 3, blocks);
      ++idx;
    }
  // A bigger problem: several tiles per thread, k beyond one reduction block.
  gemm_problem p = make_gemm(layout::col_major, transpose::none, transpose::trans, 230, 170, 300,
                             kind::uniform, r);
  p.alpha = 1.0, p.beta = 1.0;
  check_gemm(p, f, {RN}, false);
  exala::force_kernel_set(kernel_sets().back());
  const gemm_run two = run_gemm(p, exala::exec{backend::omp, 2});
  const auto path = exala::detail::last_gemm_path();
  BOOST_TEST(path.moduli >= 1);
  BOOST_TEST(!path.truncated);
  BOOST_TEST(path.exact_dot_entries == 0);
  if (exala::is_compiled_in(backend::omp)) {  // threads = 0: OpenMP's default count
    const gemm_run dflt = run_gemm(p, exala::exec{backend::omp, 0});
    for (std::size_t t = 0; t < two.c.v.size(); ++t, ++f.compared)
      if (!same_bits(dflt.c.v[t], two.c.v[t])) f.report("omp threads=0 differs from threads=2");
  }
}

// The engine's vectorized rounding (finish_nearest: alpha and beta powers
// of two, to nearest, at most 5 moduli) and its scalar fallback for the
// lanes it leaves: every data kind (ties, cancellations to zero, subnormal
// and overflowing results, specials in C), alpha and beta that take the
// lanes or not, row counts with partial vectors, against the reference.
BOOST_AUTO_TEST_CASE(gemm_engine_vector_rounding) {
  const engine_only engine;
  restore_kernel_set restore;
  failures f;
  rng_t r(3011);
  const double alphas[] = {1.0, -1.0, 0.5, 0x1p-600, 0x1p600, 0x1p-1074, 3.0};
  const double betas[] = {0.0, 1.0, -1.0, 2.0, 0x1p-600, -0.0, 0.75};
  int idx = 0;
  for (int ki = 0; ki < static_cast<int>(kind::count); ++ki)
    for (int rep = 0; rep < 3; ++rep, ++idx) {
      gemm_problem p = make_gemm(layouts[idx % 2], transposes[idx % 3 == 1], transposes[idx % 4 == 2],
                                 5 + idx % 11, 3 + idx % 5, 2 + idx % 9, static_cast<kind>(ki), r);
      p.alpha = alphas[static_cast<std::size_t>(idx) % std::size(alphas)];
      p.beta = betas[static_cast<std::size_t>(idx / 3) % std::size(betas)];
      if (p.beta == 0.0)  // C must not be read
        for (double& v : p.c.v) v = qnan;
      check_gemm(p, f, {RN, all_modes[static_cast<std::size_t>(idx) % 4]}, false, {0, 3});
    }
  // Exact lines of 60-90 bits: 6-9 moduli, the lanes' longer Horner and the
  // scalar step on limbs (its top 120 bits and a truncation bound), with
  // ties and exact cancellations from the integer columns.
  for (int rep = 0; rep < 8; ++rep) {
    gemm_problem p = make_gemm(layouts[rep % 2], transposes[rep % 3 == 1], transposes[rep % 2],
                               9 + rep, 6 + rep % 3, 4 + 3 * rep, kind::uniform, r);
    for (double& v : p.a.v) v = random_exp(r, -25 - 3 * rep, 0);
    for (double& v : p.b.v) v = rep % 2 ? random_exp(r, -20, 5) : static_cast<double>(static_cast<int>(r() % 9) - 4);
    p.alpha = rep % 3 ? -1.0 : 0x1p-3;
    p.beta = rep % 4 ? 1.0 : 0.0;
    if (rep % 4 == 1)  // C cancels the product exactly where it can
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j) p.c(i, j) = (i + j) % 3 ? p.c(i, j) : 0.0;
    check_gemm(p, f, {RN, rounding::toward_zero}, false, {0});
  }
}

// Wide dynamic range: rows wider than the exact budget take the truncated,
// verified path, with the undecided entries recomputed exactly; the full
// double range forces overflowing and subnormal results through it.
BOOST_AUTO_TEST_CASE(gemm_wide_range_paths) {
  const engine_only engine;  // these sizes would take the small-product path
  restore_kernel_set restore;
  failures f;
  rng_t r(3007);
  for (kind kd : {kind::wide, kind::full_range}) {
    gemm_problem p = make_gemm(layout::row_major, transpose::none, transpose::none, 40, 33, 70, kd, r);
    p.alpha = 1.0, p.beta = kd == kind::wide ? 0.0 : 1.0;
    check_gemm(p, f, all_modes, kd == kind::wide);
    exala::force_kernel_set(kernel_sets().back());
    run_gemm(p, exala::exec{backend::simd});
    BOOST_TEST(exala::detail::last_gemm_path().truncated, name(kd));
  }
  // Truncation that decides the rounding: row i = [x, ulp(x)/2, +-2^-95 x
  // or 0], column j = [1, 1, e_j, 2^-120 or 0]: both spans exceed the
  // budget, so the third entry of each row falls below the truncation point
  // while it alone decides whether the tie x + ulp/2 rounds up or down. The
  // interval test must send exactly those entries to the exact path.
  {
    gemm_problem t;
    t.m = 24, t.n = 4, t.k = 4;
    t.a = mat(t.m, t.k), t.b = mat(t.k, t.n), t.c = mat(t.m, t.n);
    for (std::int64_t i = 0; i < t.m; ++i) {
      const double x = random_exp(r, -500, 500);
      t.a(i, 0) = x;
      t.a(i, 1) = std::copysign(std::ldexp(1.0, std::ilogb(x) - 53), x);
      t.a(i, 2) = (i % 3 == 0) ? 0.0 : std::ldexp(i % 3 == 1 ? x : -x, -95);
      t.a(i, 3) = 0.0;
    }
    for (std::int64_t j = 0; j < t.n; ++j) {
      t.b(0, j) = t.b(1, j) = 1.0;
      t.b(2, j) = j % 2 ? 1.0 : -1.0;
      t.b(3, j) = j < 2 ? 0x1p-120 : 0.0;
    }
    t.alpha = 1.0, t.beta = 0.0;
    t.what = "truncation decides";
    check_gemm(t, f, all_modes);
    exala::force_kernel_set(kernel_sets().back());
    run_gemm(t, exala::exec{backend::simd});
    const auto path = exala::detail::last_gemm_path();
    BOOST_TEST(path.truncated);
    BOOST_TEST(path.exact_dot_entries > 0);
  }
  // A full-range problem small enough for the oracle.
  gemm_problem q = make_gemm(layout::col_major, transpose::trans, transpose::none, 6, 5, 9,
                             kind::full_range, r);
  check_gemm(q, f, all_modes);
  // Large k: the exact budget grows by log2 k.
  gemm_problem big = make_gemm(layout::col_major, transpose::none, transpose::none, 5, 4, 5000,
                               kind::uniform, r);
  big.alpha = 1.0, big.beta = 0.0;
  check_gemm(big, f, {RN, rounding::downward}, true);
}

// Agreement with gemv (n == 1 and m == 1 shapes) bit for bit: both are the
// one rounding of the same exact value.
BOOST_AUTO_TEST_CASE(gemm_matches_gemv) {
  restore_kernel_set restore;
  rng_t r(3008);
  for (rounding md : all_modes)
    for (kind kd : {kind::uniform, kind::full_range, kind::cancellation}) {
      gemm_problem p = make_gemm(layout::col_major, transpose::none, transpose::none, 17, 1, 23, kd, r);
      if (std::isnan(p.alpha) || std::isinf(p.alpha)) p.alpha = 2.0;
      const stored sa = store(p.a, false, layout::col_major, 1);
      std::vector<double> x(23), y(17), c(17);
      for (std::int64_t l = 0; l < 23; ++l) x[l] = p.b(l, 0);
      for (std::int64_t i = 0; i < 17; ++i) y[i] = c[i] = p.c(i, 0);
      const exala::exec ex{backend::simd, 0, md};
      exala::gemv(layout::col_major, transpose::none, 17, 23, p.alpha, sa.ptr(), sa.ld, x.data(), 1,
                  p.beta, y.data(), 1, ex);
      exala::gemm(layout::col_major, transpose::none, transpose::none, 17, 1, 23, p.alpha, sa.ptr(), sa.ld,
                  x.data(), 23, p.beta, c.data(), 17, ex);
      for (std::int64_t i = 0; i < 17; ++i)
        BOOST_TEST(same_bits(c[i], y[i]), name(kd) << " " << name(md) << " entry " << i << ": gemm "
                                                   << hex(c[i]) << ", gemv " << hex(y[i]));
    }
}

BOOST_AUTO_TEST_CASE(gemm_argument_errors) {
  std::vector<double> a(64, 1.0), b(64, 1.0), c(64, 7.0);
  const std::vector<double> c0 = c;
  auto names = [](const char* arg, const std::string& value) {
    return [arg, value](const exala::invalid_argument& e) {
      const std::string msg = e.what();
      return e.argument() == arg && msg.find(arg) != std::string::npos &&
             msg.find(value) != std::string::npos;
    };
  };
  using L = layout;
  using T = transpose;
  const auto N = T::none, Tt = T::trans;
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, -1, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("m", "-1"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, -3, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("n", "-3"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, -4, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("k", "-4"));
  // Leading dimensions, CBLAS rules: m=3, n=4, k=5.
  struct ldcase {
    L lay;
    T ta, tb;
    std::int64_t lda, ldb, ldc;  // minimal values
  };
  const ldcase lds[] = {
      {L::col_major, N, N, 3, 5, 3},  {L::col_major, Tt, N, 5, 5, 3}, {L::col_major, N, Tt, 3, 4, 3},
      {L::col_major, Tt, Tt, 5, 4, 3}, {L::row_major, N, N, 5, 4, 4},  {L::row_major, Tt, N, 3, 4, 4},
      {L::row_major, N, Tt, 5, 5, 4},  {L::row_major, Tt, Tt, 3, 5, 4}};
  for (const ldcase& d : lds) {
    auto call = [&](std::int64_t lda, std::int64_t ldb, std::int64_t ldc) {
      exala::gemm(d.lay, d.ta, d.tb, 3, 4, 5, 1.0, a.data(), lda, b.data(), ldb, 0.0, c.data(), ldc);
    };
    BOOST_CHECK_NO_THROW(call(d.lda, d.ldb, d.ldc));
    BOOST_CHECK_EXCEPTION(call(d.lda - 1, d.ldb, d.ldc), exala::invalid_argument,
                          names("lda", std::to_string(d.lda - 1)));
    BOOST_CHECK_EXCEPTION(call(d.lda, d.ldb - 1, d.ldc), exala::invalid_argument,
                          names("ldb", std::to_string(d.ldb - 1)));
    BOOST_CHECK_EXCEPTION(call(d.lda, d.ldb, d.ldc - 1), exala::invalid_argument,
                          names("ldc", std::to_string(d.ldc - 1)));
  }
  c = c0;
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 0, b.data(), 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("lda", "0"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, nullptr, 2, b.data(), 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("a", "null"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 2, nullptr, 2, 0.0, c.data(), 2),
                        exala::invalid_argument, names("b", "null"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, nullptr, 2),
                        exala::invalid_argument, names("c", "null"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2,
                                    exala::exec{backend::omp, 1025}),
                        exala::invalid_argument, names("threads", "1025"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2,
                                    exala::exec{backend::simd, -1}),
                        exala::invalid_argument, names("threads", "-1"));
  BOOST_CHECK_EXCEPTION(exala::gemm(L::col_major, N, N, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0, c.data(), 2,
                                    exala::exec{backend::simd, 0, RN, -5}),
                        exala::invalid_argument, names("block", "-5"));
  BOOST_TEST((c == c0));  // nothing written on an error
  // Empty products with null pointers are fine; so is alpha == 0 with null A, B.
  BOOST_CHECK_NO_THROW(exala::gemm(L::col_major, N, N, 0, 0, 3, 1.0, nullptr, 1, nullptr, 3, 0.0, nullptr, 1));
  BOOST_CHECK_NO_THROW(exala::gemm(L::row_major, N, N, 2, 2, 0, 1.0, nullptr, 1, nullptr, 2, 2.0, c.data(), 2));
}

// Issue 15, row 10: m = n = ldc = 2^32 with k = 0 is a legitimate-looking call
// whose C has 2^64 entries (m * n wraps to 0): refused naming C, before it
// is touched, as is every leading dimension whose address would pass 2^60 - 1
// elements, on every backend, also when A and B are not read (k == 0 or
// alpha == 0); trsm likewise (also for alpha == 0, where A is not read).
BOOST_AUTO_TEST_CASE(gemm_trsm_address_overflow) {
  std::vector<double> a(4, 1.0), b(4, 2.0), c(4, 7.0);
  const std::vector<double> a0 = a, b0 = b, c0 = c;
  const std::int64_t p62 = std::int64_t{1} << 62, p32 = std::int64_t{1} << 32;
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      const std::string msg = e.what();
      return e.argument() == arg && msg.find("2^60") != std::string::npos;
    };
  };
  using T = exala::transpose;
  const auto N = T::none, Tt = T::trans;
  for (const config& cf : all_configs()) {
    const exala::exec ex{cf.b, cf.threads};
    BOOST_TEST_CONTEXT(describe(cf, exala::active_kernel_set())) {
      for (const layout lay : {layout::col_major, layout::row_major}) {
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, N, p32, p32, 0, 1.0, a.data(), p32, b.data(), p32, 0.0,
                                          c.data(), p32, ex),
                              exala::invalid_argument, names("c"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, N, p32, p32, 0, 0.0, nullptr, p32, nullptr, p32, 2.0,
                                          c.data(), p32, ex),
                              exala::invalid_argument, names("c"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, N, 2, 2, 2, 1.0, a.data(), p62, b.data(), 2, 0.0,
                                          c.data(), 2, ex),
                              exala::invalid_argument, names("lda"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, Tt, Tt, 2, 2, 2, 1.0, a.data(), 2, b.data(), INT64_MAX, 0.0,
                                          c.data(), 2, ex),
                              exala::invalid_argument, names("ldb"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, Tt, 2, 2, 2, 1.0, a.data(), 2, b.data(), 2, 0.0,
                                          c.data(), p62, ex),
                              exala::invalid_argument, names("ldc"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, N, 2, 2, 0, 1.0, a.data(), 2, b.data(), 2, 3.0,
                                          c.data(), p62, ex),
                              exala::invalid_argument, names("ldc"));
        BOOST_CHECK_EXCEPTION(exala::gemm(lay, N, N, p32, 1, p32, 1.0, a.data(), p32, b.data(), p32, 0.0,
                                          c.data(), p32, ex),
                              exala::invalid_argument, names("a"));
        for (const side sd : {side::left, side::right}) {
          BOOST_CHECK_EXCEPTION(exala::trsm(lay, sd, uplo::lower, N, diag::non_unit, 2, 2, 1.0, a.data(), p62,
                                            b.data(), 2, ex),
                                exala::invalid_argument, names("lda"));
          BOOST_CHECK_EXCEPTION(exala::trsm(lay, sd, uplo::upper, Tt, diag::unit, 2, 2, 1.0, a.data(), 2,
                                            b.data(), p62, ex),
                                exala::invalid_argument, names("ldb"));
          BOOST_CHECK_EXCEPTION(exala::trsm(lay, sd, uplo::lower, N, diag::non_unit, 2, 2, 0.0, a.data(), 2,
                                            b.data(), INT64_MAX, ex),
                                exala::invalid_argument, names("ldb"));
          BOOST_CHECK_EXCEPTION(exala::trsm(lay, sd, uplo::lower, N, diag::non_unit, p32, p32, 1.0, a.data(),
                                            p32, b.data(), p32, ex),
                                exala::invalid_argument, names("a"));
        }
        BOOST_CHECK_EXCEPTION(exala::trsm(lay, side::left, uplo::lower, N, diag::non_unit, 1, p62, 0.0,
                                          a.data(), 1, b.data(), p62, ex),
                              exala::invalid_argument, names("b"));
      }
      BOOST_TEST((a == a0 && b == b0 && c == c0));  // nothing read into, nothing written
    }
  }
}

// ================================================================== trsm

namespace {

struct trsm_problem {
  layout lay = layout::col_major;
  side sd = side::left;
  uplo ul = uplo::lower;
  transpose tr = transpose::none;
  diag dg = diag::non_unit;
  std::int64_t m = 0, n = 0;
  double alpha = 1.0;
  mat a;  // na x na, the stored triangle (the other cells are poisoned)
  mat b;  // m x n
  std::int64_t pad_a = 0, pad_b = 0;
  std::string describe() const {
    std::ostringstream os;
    os << name(lay) << (sd == side::left ? " left" : " right") << (ul == uplo::lower ? " lower" : " upper")
       << " " << name(tr) << (dg == diag::unit ? " unit" : " non-unit") << " m=" << m << " n=" << n
       << " alpha=" << hex(alpha) << " pads=" << pad_a << "," << pad_b;
    return os.str();
  }
};

// A triangular matrix: the `ul` triangle random (diagonal dominant enough to
// keep solutions in range, unless `hard`), every other cell NaN (and the
// diagonal NaN for a unit diagonal: it must not be read).
mat make_triangle(std::int64_t na, uplo ul, diag dg, bool hard, rng_t& r) {
  mat a(na, na, qnan);
  for (std::int64_t i = 0; i < na; ++i)
    for (std::int64_t j = 0; j < na; ++j) {
      const bool in = ul == uplo::lower ? j < i : j > i;
      if (in) a(i, j) = hard ? wide(r) : uniform(r) / static_cast<double>(na);
      if (i == j && dg == diag::non_unit)
        a(i, j) = hard ? random_exp(r, -30, 30) : (r() & 1 ? 1.0 : -1.0) * (1.0 + uniform(r) * 0.5);
    }
  return a;
}

struct trsm_result {
  mat x;
  bool others_intact = true;
};

trsm_result run_trsm(const trsm_problem& p, const exala::exec& ex) {
  const stored sa = store(p.a, false, p.lay, p.pad_a);
  stored sb = store(p.b, false, p.lay, p.pad_b);
  const stored before = sb;
  exala::trsm(p.lay, p.sd, p.ul, p.tr, p.dg, p.m, p.n, p.alpha, sa.ptr(), sa.ld, sb.ptr(), sb.ld, ex);
  trsm_result res;
  res.x = load(sb, before, res.others_intact);
  return res;
}

// The expected X: trsv_scaled on each right-hand side (the reference
// backend), for side right with the transpose flag flipped; with alpha == 1
// also exala::trsv, which must agree.
mat expected_trsm(const trsm_problem& p, rounding md, failures& f) {
  const std::int64_t na = p.sd == side::left ? p.m : p.n;
  const stored sa = store(p.a, false, p.lay, p.pad_a);
  mat x = p.b;
  const std::int64_t nrhs = p.sd == side::left ? p.n : p.m;
  const transpose t = p.sd == side::left ? p.tr : (p.tr == transpose::none ? transpose::trans : transpose::none);
  for (std::int64_t q = 0; q < nrhs; ++q) {
    std::vector<double> v(static_cast<std::size_t>(na));
    for (std::int64_t e = 0; e < na; ++e) v[e] = p.sd == side::left ? p.b(e, q) : p.b(q, e);
    std::vector<double> w = v;
    const exala::exec ref{backend::reference, 0, md};
    exala::detail::trsv_scaled("trsm", p.lay, p.ul, t, p.dg, na, p.alpha, sa.ptr(), sa.ld, v.data(), 1, ref);
    if (p.alpha == 1.0) {
      exala::trsv(p.lay, p.ul, t, p.dg, na, sa.ptr(), sa.ld, w.data(), 1, ref);
      for (std::int64_t e = 0; e < na; ++e)
        if (!same_bits(v[e], w[e])) f.report("trsv_scaled(alpha = 1) differs from trsv: " + p.describe());
    }
    for (std::int64_t e = 0; e < na; ++e) (p.sd == side::left ? x(e, q) : x(q, e)) = v[e];
  }
  return x;
}

void check_trsm(const trsm_problem& p, failures& f, const std::vector<rounding>& modes,
                const std::vector<long long>& blocks = {0}) {
  for (rounding md : modes) {
    const mat want = expected_trsm(p, md, f);
    std::vector<config> cfgs = all_configs();
    for (kernel_set ks : kernel_sets()) {
      exala::force_kernel_set(ks);
      for (const config& cf : cfgs)
        for (long long blk : blocks) {
          if (cf.b == backend::reference && ks != kernel_sets().front()) continue;
          if (!runs_with_kernel_set(cf, ks) ||
              ((cf.b == backend::opencl || cf.b == backend::cuda) && blk != blocks.front()))
            continue;
          const trsm_result got = run_trsm(p, exala::exec{cf.b, cf.threads, md, blk});
          if (!got.others_intact) f.report(describe(cf, ks) + " trsm wrote outside B: " + p.describe());
          for (std::int64_t i = 0; i < p.m; ++i)
            for (std::int64_t j = 0; j < p.n; ++j, ++f.compared)
              if (!same_bits(got.x(i, j), want(i, j)))
                f.report(describe(cf, ks) + " block=" + std::to_string(blk) + " trsm vs trsv_scaled: " +
                         p.describe() + " " + name(md) + " entry (" + std::to_string(i) + "," +
                         std::to_string(j) + "): got " + hex(got.x(i, j)) + ", want " + hex(want(i, j)));
        }
    }
    // The blocked path's numerators from the CUDA backend's decomposition
    // (its unrounded output), run by the host engine.
    const host_ozaki8 on;
    for (long long blk : blocks) {
      const trsm_result got = run_trsm(p, exala::exec{backend::simd, 0, md, blk});
      if (!got.others_intact) f.report("ozaki8 host engine: trsm wrote outside B: " + p.describe());
      for (std::int64_t i = 0; i < p.m; ++i)
        for (std::int64_t j = 0; j < p.n; ++j, ++f.compared)
          if (!same_bits(got.x(i, j), want(i, j)))
            f.report("ozaki8 host engine block=" + std::to_string(blk) + " trsm vs trsv_scaled: " + p.describe() +
                     " " + name(md) + " entry (" + std::to_string(i) + "," + std::to_string(j) + "): got " +
                     hex(got.x(i, j)) + ", want " + hex(want(i, j)));
    }
  }
}

trsm_problem make_trsm(layout lay, side sd, uplo ul, transpose tr, diag dg, std::int64_t m,
                       std::int64_t n, double alpha, bool hard, rng_t& r) {
  trsm_problem p;
  p.lay = lay, p.sd = sd, p.ul = ul, p.tr = tr, p.dg = dg, p.m = m, p.n = n, p.alpha = alpha;
  const std::int64_t na = sd == side::left ? m : n;
  p.a = make_triangle(na, ul, dg, hard, r);
  p.b = mat(m, n);
  for (double& v : p.b.v) v = hard ? wide(r) : uniform(r);
  p.pad_a = static_cast<std::int64_t>(r() % 3);
  p.pad_b = static_cast<std::int64_t>(r() % 3);
  return p;
}

}  // namespace

// Every side x uplo x transpose x diag x layout, alpha in {1, -1, 0.5, 3,
// random, 0}, against trsv_scaled per right-hand side.
BOOST_AUTO_TEST_CASE(trsm_all_variants) {
  restore_kernel_set restore;
  failures f;
  rng_t r(4001);
  int problems = 0;
  const double alphas[] = {1.0, -1.0, 0.5, 3.0, 0.0, -0.3};
  int idx = 0;
  for (layout lay : layouts)
    for (side sd : {side::left, side::right})
      for (uplo ul : {uplo::lower, uplo::upper})
        for (transpose tr : transposes)
          for (diag dg : {diag::non_unit, diag::unit}) {
            const double alpha = idx % 7 == 6 ? uniform(r) : alphas[idx % 6];
            const std::int64_t m = 1 + (idx * 7) % 13, n = 1 + (idx * 5) % 11;
            check_trsm(make_trsm(lay, sd, ul, tr, dg, m, n, alpha, idx % 4 == 3, r), f,
                       {all_modes[static_cast<std::size_t>(idx) % 4]});
            ++idx;
            ++problems;
          }
  BOOST_TEST_MESSAGE("trsm variants: " << problems << " problems");
}

// Bigger problems, block sizes, and a right-hand-side count above the
// thread counts; and empty shapes.
BOOST_AUTO_TEST_CASE(trsm_blocks_and_sizes) {
  restore_kernel_set restore;
  failures f;
  rng_t r(4002);
  check_trsm(make_trsm(layout::col_major, side::left, uplo::upper, transpose::none, diag::non_unit, 70, 9,
                       1.0, false, r),
             f, {RN}, {0, 1, 7, 32, 100});
  check_trsm(make_trsm(layout::row_major, side::right, uplo::lower, transpose::trans, diag::unit, 8, 65,
                       -2.0, false, r),
             f, {rounding::upward}, {0, 3, 64});
  check_trsm(make_trsm(layout::row_major, side::left, uplo::lower, transpose::trans, diag::non_unit, 33,
                       40, 0.25, true, r),
             f, {rounding::downward}, {0, 16});
  for (side sd : {side::left, side::right}) {  // empty B: nothing happens
    trsm_problem p = make_trsm(layout::col_major, sd, uplo::lower, transpose::none, diag::non_unit, 0, 3,
                               1.0, false, r);
    check_trsm(p, f, {RN});
    p = make_trsm(layout::col_major, sd, uplo::lower, transpose::none, diag::non_unit, 3, 0, 1.0, false, r);
    check_trsm(p, f, {RN});
  }
}

// The blocked path (simd, omp; >= 4 right-hand sides): numerators' known
// parts from the unrounded gemm engine, the diagonal blocks in SIMD lanes,
// undecided entries exact. Every side x uplo x transpose x diag x layout with
// more rows than a block (blocks that do not divide the order), special
// values in B and in A, exact zero numerators with their signs, wide data
// (the engine truncates), all rounding modes: bits equal to trsv_scaled per
// right-hand side.
BOOST_AUTO_TEST_CASE(trsm_blocked_path) {
  restore_kernel_set restore;
  failures f;
  rng_t r(4005);
  int idx = 0;
  for (layout lay : layouts)
    for (side sd : {side::left, side::right})
      for (uplo ul : {uplo::lower, uplo::upper})
        for (transpose tr : transposes)
          for (diag dg : {diag::non_unit, diag::unit}) {
            const bool hard = idx % 3 == 2;
            const std::int64_t m = sd == side::left ? 29 + idx % 5 : 6 + idx % 7;
            const std::int64_t n = sd == side::left ? 6 + idx % 7 : 29 + idx % 5;
            const double alpha = idx % 4 == 1 ? -0.75 : 1.0;
            check_trsm(make_trsm(lay, sd, ul, tr, dg, m, n, alpha, hard, r), f,
                       {all_modes[static_cast<std::size_t>(idx) % 4]}, {0, 5, 8});
            ++idx;
          }
  // Specials: NaN and inf in B (their columns' later entries exact), inf in
  // an off-diagonal entry of A (its row exact in every right-hand side).
  {
    trsm_problem p = make_trsm(layout::col_major, side::left, uplo::lower, transpose::none, diag::non_unit,
                               23, 9, 1.0, false, r);
    p.b(3, 1) = qnan;
    p.b(0, 4) = inf;
    p.b(12, 6) = -inf;
    p.a(17, 2) = inf;
    check_trsm(p, f, {RN, rounding::upward}, {0, 4});
  }
  // Exact zero numerators: integer data with B = T X0, X0 holding zeros of
  // both signs, so that many x_i are exact zeros whose signs come from the
  // products (the exact fallback's zero-sign rule).
  for (rounding md : {RN, rounding::downward}) {
    trsm_problem p = make_trsm(layout::row_major, side::left, uplo::upper, transpose::none, diag::non_unit,
                               20, 8, 1.0, false, r);
    for (std::int64_t i = 0; i < 20; ++i)
      for (std::int64_t j = 0; j < 20; ++j)
        if (j > i) p.a(i, j) = static_cast<double>(static_cast<int>(r() % 5) - 2);
        else if (i == j) p.a(i, j) = (r() & 1) ? 1.0 : -2.0;
    for (std::int64_t q = 0; q < 8; ++q)
      for (std::int64_t i = 0; i < 20; ++i) {
        double v = r() % 3 == 0 ? static_cast<double>(static_cast<int>(r() % 7) - 3) : 0.0;
        if (v == 0.0 && (r() & 1)) v = -0.0;
        p.b(i, q) = v;  // X0; B = T X0 below (exact: small integers)
      }
    mat x0 = p.b;
    for (std::int64_t q = 0; q < 8; ++q)
      for (std::int64_t i = 0; i < 20; ++i) {
        double acc = 0.0;
        for (std::int64_t j = i; j < 20; ++j) acc += p.a(i, j) * x0(j, q);
        p.b(i, q) = acc;
      }
    check_trsm(p, f, {md}, {0, 3});
  }
  // Right-hand sides in several chunks (each at least one lane group).
  {
    const std::size_t old = exala::detail::set_trsm_chunk_bytes(4096);
    check_trsm(make_trsm(layout::col_major, side::left, uplo::lower, transpose::trans, diag::non_unit, 25,
                         45, 0.5, false, r),
               f, {RN}, {0, 7});
    exala::detail::set_trsm_chunk_bytes(old);
  }
  // Enough work for two threads (omp: above min_products_per_thread per
  // thread), so that the engine and the lane groups run in parallel.
  check_trsm(make_trsm(layout::row_major, side::right, uplo::upper, transpose::none, diag::non_unit, 48, 300,
                       1.0, false, r),
             f, {RN}, {0, 64});
  // A larger system with the default block (several engine calls), and a
  // check that the engine took part.
  {
    trsm_problem p = make_trsm(layout::col_major, side::left, uplo::lower, transpose::none, diag::non_unit,
                               410, 12, 1.0, false, r);
    check_trsm(p, f, {RN});
    restore_kernel_set again;
    const stored sa = store(p.a, false, p.lay, p.pad_a);
    stored sb = store(p.b, false, p.lay, p.pad_b);
    exala::trsm(p.lay, p.sd, p.ul, p.tr, p.dg, p.m, p.n, p.alpha, sa.ptr(), sa.ld, sb.ptr(), sb.ld,
                exala::exec{backend::simd});
    if (exala::detail::rows_bounded_block() > 0) BOOST_TEST(exala::detail::last_gemm_path().moduli > 0);
  }
}

// alpha == 0: X = +0 everywhere, A not read (a null pointer is accepted).
BOOST_AUTO_TEST_CASE(trsm_alpha_zero) {
  for (const config& cf : all_configs()) {
    std::vector<double> b = {1.0, qnan, -inf, -0.0, 5.0, 6.0};
    exala::trsm(layout::col_major, side::left, uplo::lower, transpose::none, diag::non_unit, 3, 2, 0.0,
                nullptr, 3, b.data(), 3, exala::exec{cf.b, cf.threads});
    for (double v : b) BOOST_TEST(bits(v) == bits(0.0));
  }
}

BOOST_AUTO_TEST_CASE(trsm_singular_and_argument_errors) {
  rng_t r(4003);
  for (const config& cf : all_configs())
    for (side sd : {side::left, side::right}) {
      // Zeros on the diagonal at rows 2 and 4: the error names row 2, and B
      // is left as it was.
      mat a = make_triangle(6, uplo::upper, diag::non_unit, false, r);
      a(2, 2) = 0.0;
      a(4, 4) = -0.0;
      const stored sa = store(a, false, layout::row_major, 1);
      std::vector<double> b(36, 1.5);
      const std::vector<double> b0 = b;
      BOOST_CHECK_EXCEPTION(exala::trsm(layout::row_major, sd, uplo::upper, transpose::trans, diag::non_unit,
                                        6, 6, 1.0, sa.ptr(), sa.ld, b.data(), 6, exala::exec{cf.b, cf.threads}),
                            exala::singular_matrix,
                            [](const exala::singular_matrix& e) {
                              return e.row() == 2 && std::string(e.what()).find("trsm") != std::string::npos;
                            });
      BOOST_TEST((b == b0));
      // A unit diagonal is not read: the zeros do not matter.
      BOOST_CHECK_NO_THROW(exala::trsm(layout::row_major, sd, uplo::upper, transpose::trans, diag::unit, 6, 6,
                                       1.0, sa.ptr(), sa.ld, b.data(), 6, exala::exec{cf.b, cf.threads}));
    }
  std::vector<double> a(64, 1.0), b(64, 1.0);
  auto names = [](const char* arg, const std::string& value) {
    return [arg, value](const exala::invalid_argument& e) {
      const std::string msg = e.what();
      return e.argument() == arg && msg.find(value) != std::string::npos;
    };
  };
  const auto L = side::left, R = side::right;
  const auto lo = uplo::lower;
  const auto N = transpose::none;
  const auto nu = diag::non_unit;
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, -1, 2, 1.0, a.data(), 2, b.data(), 2),
                        exala::invalid_argument, names("m", "-1"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 2, -2, 1.0, a.data(), 2, b.data(), 2),
                        exala::invalid_argument, names("n", "-2"));
  // lda >= max(1, m) on the left, max(1, n) on the right; ldb >= max(1, m)
  // column-major, max(1, n) row-major.
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 4, 2, 1.0, a.data(), 3, b.data(), 4),
                        exala::invalid_argument, names("lda", "3"));
  BOOST_CHECK_NO_THROW(exala::trsm(layout::col_major, R, lo, N, nu, 4, 2, 1.0, a.data(), 2, b.data(), 4));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, R, lo, N, nu, 4, 3, 1.0, a.data(), 2, b.data(), 4),
                        exala::invalid_argument, names("lda", "2"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 4, 2, 1.0, a.data(), 4, b.data(), 3),
                        exala::invalid_argument, names("ldb", "3"));
  BOOST_CHECK_NO_THROW(exala::trsm(layout::row_major, L, lo, N, nu, 4, 2, 1.0, a.data(), 4, b.data(), 2));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::row_major, L, lo, N, nu, 4, 3, 1.0, a.data(), 4, b.data(), 2),
                        exala::invalid_argument, names("ldb", "2"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 2, 2, 1.0, nullptr, 2, b.data(), 2),
                        exala::invalid_argument, names("a", "null"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 2, 2, 1.0, a.data(), 2, nullptr, 2),
                        exala::invalid_argument, names("b", "null"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 2, 2, 1.0, a.data(), 2, b.data(), 2,
                                    exala::exec{backend::omp, 2000}),
                        exala::invalid_argument, names("threads", "2000"));
  BOOST_CHECK_EXCEPTION(exala::trsm(layout::col_major, L, lo, N, nu, 2, 2, 1.0, a.data(), 2, b.data(), 2,
                                    exala::exec{backend::simd, 0, RN, -1}),
                        exala::invalid_argument, names("block", "-1"));
}

// ================================================================== long

// Bigger random problems of every kind, every configuration, all modes (the
// reference against MPFR on the smaller ones).
BOOST_AUTO_TEST_CASE(gemm_long_random_sweep, *utf::label("long")) {
  restore_kernel_set restore;
  failures f;
  rng_t r(5001);
  for (int rep = 0; rep < 120; ++rep) {
    const kind kd = static_cast<kind>(rep % static_cast<int>(kind::count));
    const bool big = rep % 4 == 0;
    const std::int64_t m = big ? 60 + static_cast<std::int64_t>(r() % 90) : 1 + static_cast<std::int64_t>(r() % 30);
    const std::int64_t n = big ? 60 + static_cast<std::int64_t>(r() % 90) : 1 + static_cast<std::int64_t>(r() % 30);
    const std::int64_t k = big ? 100 + static_cast<std::int64_t>(r() % 300) : 1 + static_cast<std::int64_t>(r() % 60);
    gemm_problem p = make_gemm(layouts[r() % 2], transposes[r() % 2], transposes[r() % 2], m, n, k, kd, r);
    check_gemm(p, f, big ? std::vector<rounding>{all_modes[r() % 4]} : all_modes, !big,
               {0, static_cast<long long>(1 + r() % 200)});
  }
}

BOOST_AUTO_TEST_CASE(gemm_long_large, *utf::label("long")) {
  restore_kernel_set restore;
  failures f;
  rng_t r(5002);
  for (kind kd : {kind::uniform, kind::wide, kind::full_range, kind::sparse}) {
    gemm_problem p = make_gemm(layout::row_major, transpose::none, transpose::trans, 300, 260, 700, kd, r);
    p.alpha = 1.0, p.beta = kd == kind::uniform ? 1.0 : 0.0;
    check_gemm(p, f, {RN}, false);
  }
}

BOOST_AUTO_TEST_CASE(trsm_long_random_sweep, *utf::label("long")) {
  restore_kernel_set restore;
  failures f;
  rng_t r(5003);
  for (int rep = 0; rep < 48; ++rep) {
    const std::int64_t m = 1 + static_cast<std::int64_t>(r() % 60), n = 1 + static_cast<std::int64_t>(r() % 60);
    check_trsm(make_trsm(layouts[r() % 2], r() % 2 ? side::left : side::right,
                         r() % 2 ? uplo::lower : uplo::upper, transposes[r() % 2],
                         r() % 2 ? diag::unit : diag::non_unit, m, n, r() % 3 ? 1.0 : uniform(r),
                         r() % 3 == 0, r),
               f, {all_modes[r() % 4]}, {0, static_cast<long long>(1 + r() % 40)});
  }
}
