// tests/test_blas1.cpp - sum, asum and dot on every backend.
//
// One source runs every backend (reference, simd, omp, and opencl when built
// with OpenCL and a device is present: PoCL in CI) x every thread count
// 1..4 x every kernel set this CPU supports (forced with
// exala::force_kernel_set; opencl runs with one set, as its results cannot
// depend on it) against the reference backend with BIT equality,
// and the reference against the MPFR oracle (when the build found MPFR), on:
//  * every length 0..70 and 1000, 4099, 100003 (SIMD tails, block edges, the
//    wide-data fallback);
//  * every stride in {1, 2, 3, -1, -2, 0} (BLAS semantics: a negative
//    increment walks backwards, which for dot decides the pairs), with the
//    gaps and guard cells poisoned with NaN, so an ignored stride or a read
//    out of bounds shows;
//  * misaligned starting pointers (all 8 offsets modulo 64 bytes);
//  * data kinds: uniform, wide, full range with subnormals, heavy
//    cancellation with a tiny remainder, ties, values near DBL_MAX whose sum
//    overflows only in the middle, inf/NaN at every position of a block,
//    negative zeros only, underflowing and overflowing products;
//  * all four rounding directions via exec.mode;
//  * argument errors.
// Kernel sets are forced through force_kernel_set; the EXALA_SIMD override
// (read once, at first use) is checked by the kernel_set_environment case,
// which ctest runs in fresh processes with EXALA_SIMD set.
#define BOOST_TEST_MODULE exala_blas1
#include <boost/test/unit_test.hpp>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas1.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"
#include "exala/superaccumulator.hpp"
#include "mpfr_oracle.hpp"
#include "backend_matrix.hpp"
#include "test_common.hpp"

namespace utf = boost::unit_test;
using namespace exala_test;
using exala::backend;
using exala::kernel_set;
using exala::rounding;

namespace {

constexpr rounding RN = rounding::to_nearest_even;
constexpr std::array<rounding, 4> all_modes = {rounding::to_nearest_even, rounding::toward_zero,
                                               rounding::upward, rounding::downward};
const char* name(rounding m) {
  switch (m) {
    case rounding::to_nearest_even: return "to_nearest_even";
    case rounding::toward_zero: return "toward_zero";
    case rounding::upward: return "upward";
    case rounding::downward: return "downward";
  }
  return "?";
}

// ---------------------------------------------------------------- kernel sets

// The best set the CPU supports, by cpuid (independently of the library).
kernel_set best_by_cpuid() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq"))
    return kernel_set::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return kernel_set::avx2;
#endif
  return kernel_set::generic;
}

bool cpu_supports(kernel_set k) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  switch (k) {
    case kernel_set::generic: return true;
    case kernel_set::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case kernel_set::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq");
  }
  return false;
#else
  return k == kernel_set::generic;
#endif
}


// ---------------------------------------------------------------- data

enum class op { sum, asum, dot };
const char* name(op o) { return o == op::sum ? "sum" : o == op::asum ? "asum" : "dot"; }

enum class kind {
  uniform,
  wide,
  full_range,
  cancellation,
  ties,
  near_max,
  negzero,
  mixed_zero,
  subnormal,
  tiny_products,
  huge_products,
  count
};
const char* name(kind k) {
  static const char* n[] = {"uniform", "wide", "full_range", "cancellation", "ties", "near_max",
                            "negzero", "mixed_zero", "subnormal", "tiny_products", "huge_products"};
  return n[static_cast<int>(k)];
}

double wide(rng_t& r) { return uniform(r) * std::ldexp(1.0, static_cast<int>(r() % 1001) - 500); }

// Shuffles x and y with the same permutation (dot keeps its pairs).
void shuffle_together(std::vector<double>& x, std::vector<double>& y, rng_t& r) {
  std::vector<std::size_t> p(x.size());
  for (std::size_t j = 0; j < p.size(); ++j) p[j] = j;
  shuffle(p, r);
  std::vector<double> x2(x.size()), y2(y.size());
  for (std::size_t j = 0; j < p.size(); ++j) x2[j] = x[p[j]], y2[j] = y[p[j]];
  x.swap(x2);
  y.swap(y2);
}

// Logical vectors x (and y for dot) of length n, of the given kind.
void generate(kind k, std::int64_t n, rng_t& r, std::vector<double>& x, std::vector<double>& y) {
  const auto N = static_cast<std::size_t>(n);
  x.assign(N, 0.0);
  y.assign(N, 1.0);
  switch (k) {
    case kind::uniform:
      for (std::size_t i = 0; i < N; ++i) x[i] = uniform(r), y[i] = uniform(r);
      break;
    case kind::wide:
      for (std::size_t i = 0; i < N; ++i) x[i] = wide(r), y[i] = wide(r);
      break;
    case kind::full_range:
      for (std::size_t i = 0; i < N; ++i) x[i] = random_any_finite(r), y[i] = random_any_finite(r);
      break;
    case kind::cancellation: {
      // pairs (v, w) and (-v, w), shuffled, plus one or two tiny remainder terms
      const std::size_t pairs = N > 0 ? (N - 1) / 2 : 0;
      for (std::size_t i = 0; i < pairs; ++i) {
        const double v = random_exp(r, -300, 1000), w = random_exp(r, -300, 20);
        x[2 * i] = v, y[2 * i] = w;
        x[2 * i + 1] = -v, y[2 * i + 1] = w;
      }
      for (std::size_t i = 2 * pairs; i < N; ++i) {  // 2^-1074, or tiny products for dot
        x[i] = (r() & 1) ? dmin_sub : random_exp(r, -1074, -1000);
        y[i] = (r() & 1) ? 1.0 : 0x1p-60;
      }
      shuffle_together(x, y, r);
      break;
    }
    case kind::ties: {
      // B + half an ulp of B (+ maybe a far sticky bit), in cancelling noise
      if (N == 0) break;
      const double b = random_exp(r, -900, 900);
      x[0] = b;
      y[0] = (r() % 4 == 0) ? -1.0 : 1.0;
      if (N > 1) x[1] = std::copysign(std::ldexp(1.0, std::ilogb(b) - 53), b), y[1] = y[0];
      if (N > 2) {
        x[2] = (r() % 3 == 0) ? 0.0 : ((r() & 1) ? dmin_sub : -dmin_sub);
        y[2] = (r() & 1) ? 1.0 : dmin_sub;  // dot: a sticky bit 2^-2148
      }
      std::size_t i = 3;
      for (; i + 2 <= N; i += 2) {
        const double v = random_exp(r, -1000, 1000), w = (r() & 1) ? 1.0 : -1.0;
        x[i] = v, x[i + 1] = -v, y[i] = y[i + 1] = w;
      }
      shuffle_together(x, y, r);
      break;
    }
    case kind::near_max: {
      // +-DBL_MAX and large powers: partial sums overflow in most orders;
      // the exact total is in range (or, for some vectors, beyond it).
      const bool in_range = r() % 4 != 0;
      const double h[] = {DBL_MAX, 0x1p1023, 0x1.8p1022, 0x1p1020};
      for (std::size_t i = 0; i < N; ++i) {
        x[i] = h[r() % 4];
        y[i] = (r() % 8 == 0) ? 0x1p-30 : 1.0;
      }
      if (in_range)
        for (std::size_t i = 0; i + 1 < N; i += 2) x[i + 1] = -x[i], y[i + 1] = y[i];
      if (N > 0) x[N - 1] = (r() & 1) ? 3.0 : -dmin_sub;
      shuffle_together(x, y, r);
      break;
    }
    case kind::negzero:
      for (std::size_t i = 0; i < N; ++i) x[i] = -0.0, y[i] = (r() & 1) ? 2.0 : dmin_sub;
      break;
    case kind::mixed_zero:
      for (std::size_t i = 0; i < N; ++i) x[i] = (r() & 1) ? -0.0 : 0.0, y[i] = (r() & 1) ? -1.0 : 1.0;
      break;
    case kind::subnormal:
      for (std::size_t i = 0; i < N; ++i) {
        x[i] = random_exp(r, -1074, -1023);
        y[i] = (r() & 1) ? random_exp(r, -2, 2) : random_exp(r, -1074, -1000);
      }
      break;
    case kind::tiny_products:  // products ~2^-1200 (underflowing) mixed with normal ones
      for (std::size_t i = 0; i < N; ++i) {
        if (r() & 1)
          x[i] = random_exp(r, -620, -580), y[i] = random_exp(r, -620, -580);
        else
          x[i] = uniform(r) * 0x1p-100, y[i] = uniform(r);
      }
      break;
    case kind::huge_products: {  // products near and beyond 2^1024, mostly cancelling
      std::size_t i = 0;
      for (; i + 2 <= N; i += 2) {
        const double a = random_exp(r, 500, 540), b = random_exp(r, 480, 540);
        x[i] = a, y[i] = b;
        x[i + 1] = (r() % 5 == 0) ? a : -a, y[i + 1] = b;
      }
      if (i < N) x[i] = uniform(r), y[i] = uniform(r);
      shuffle_together(x, y, r);
      break;
    }
    case kind::count: break;
  }
}

// A BLAS vector in memory: the logical values placed with increment inc at
// a chosen misalignment, every other cell (gaps, guards) poisoned.
struct placed {
  std::vector<double> storage;
  const double* ptr = nullptr;
};

constexpr int guard = 16;

placed place(const std::vector<double>& v, std::int64_t inc, int offset, double poison) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  const std::int64_t a = inc < 0 ? -inc : inc;
  const std::int64_t span = n == 0 ? 1 : (n - 1) * a + 1;
  placed p;
  p.storage.assign(static_cast<std::size_t>(span + 2 * guard + 8 + 8), poison);
  // align the base to 64 bytes, then misalign by `offset` doubles
  auto addr = reinterpret_cast<std::uintptr_t>(p.storage.data());
  const std::size_t shift = ((64 - addr % 64) % 64) / sizeof(double);
  double* base = p.storage.data() + shift + guard + offset;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t idx = inc > 0 ? i * inc : inc < 0 ? (n - 1 - i) * a : 0;
    base[idx] = v[static_cast<std::size_t>(i)];
  }
  p.ptr = base;
  return p;
}

// The logical view of a vector read with increment 0: every element is x[0].
void apply_zero_increment(std::vector<double>& v, std::int64_t inc) {
  if (inc == 0 && !v.empty()) v.assign(v.size(), v[0]);
}

struct problem {
  op o = op::sum;
  kind k = kind::uniform;
  std::int64_t n = 0, incx = 1, incy = 1;
  int offx = 0, offy = 0;
  std::vector<double> x, y;  // logical values
  std::string describe() const {
    std::ostringstream os;
    os << name(o) << " n=" << n << " incx=" << incx;
    if (o == op::dot) os << " incy=" << incy;
    os << " kind=" << name(k) << " offsets=" << offx << "," << offy;
    return os.str();
  }
};

double call(const problem& p, const placed& px, const placed& py, const exala::exec& ex) {
  switch (p.o) {
    case op::sum: return exala::sum(p.n, px.ptr, p.incx, ex);
    case op::asum: return exala::asum(p.n, px.ptr, p.incx, ex);
    case op::dot: return exala::dot(p.n, px.ptr, p.incx, py.ptr, p.incy, ex);
  }
  return 0.0;
}

#ifdef EXALA_TEST_HAVE_MPFR
double oracle(const problem& p, rounding m) {
  mpfr_exact_sum s(m);
  for (std::int64_t i = 0; i < p.n; ++i) {
    const auto k = static_cast<std::size_t>(i);
    switch (p.o) {
      case op::sum: s.add(p.x[k]); break;
      case op::asum: s.add(std::fabs(p.x[k])); break;
      case op::dot: s.add_product(p.x[k], p.y[k]); break;
    }
  }
  return s.round();
}
#endif

// Failure bookkeeping: report the first few mismatches in full, count all.
struct failures {
  int count = 0;
  void report(const std::string& msg) {
    if (++count <= 25) BOOST_ERROR(msg);
  }
  ~failures() {
    if (count > 25) BOOST_ERROR(count << " mismatches in all (first 25 shown)");
  }
};

// Runs one problem: reference vs oracle, and every other backend x thread
// count x kernel set vs reference, in each requested rounding direction.
void run(const problem& p, failures& f, bool with_oracle = true,
         const std::vector<rounding>& modes = {RN}) {
  const placed px = place(p.x, p.incx, p.offx, qnan);
  const placed py = p.o == op::dot ? place(p.y, p.incy, p.offy, qnan) : placed{};
  for (rounding m : modes) {
    exala::exec ref_ex{backend::reference, 0, m};
    const double ref = call(p, px, py, ref_ex);
#ifdef EXALA_TEST_HAVE_MPFR
    if (with_oracle) {
      const double want = oracle(p, m);
      if (!same_bits(ref, want))
        f.report("reference vs MPFR: " + p.describe() + " " + name(m) + ": got " + hex(ref) +
                 ", MPFR " + hex(want));
    }
#else
    (void)with_oracle;
#endif
    for (kernel_set k : kernel_sets()) {
      exala::force_kernel_set(k);
      for (const config& c : non_reference_configs()) {
        if (!runs_with_kernel_set(c, k)) continue;
        const double got = call(p, px, py, exala::exec{c.b, c.threads, m});
        if (!same_bits(got, ref))
          f.report(describe(c, k) + " vs reference: " + p.describe() + " " + name(m) + ": got " +
                   hex(got) + ", reference " + hex(ref));
      }
    }
  }
}

// Makes a problem: logical data of kind k, strides applied.
problem make(op o, kind k, std::int64_t n, std::int64_t incx, std::int64_t incy, int offx, int offy,
             rng_t& r) {
  problem p;
  p.o = o, p.k = k, p.n = n, p.incx = incx, p.incy = incy, p.offx = offx, p.offy = offy;
  generate(k, n, r, p.x, p.y);
  apply_zero_increment(p.x, incx);
  if (o == op::dot) apply_zero_increment(p.y, incy);
  return p;
}

const std::int64_t strides[] = {1, 2, 3, -1, -2, 0};
// dot: the equal pairs, plus mixed directions and mixed strides
const std::pair<std::int64_t, std::int64_t> dot_strides[] = {
    {1, 1}, {2, 2}, {3, 3}, {-1, -1}, {-2, -2}, {0, 0}, {1, -1},
    {-1, 1}, {2, -3}, {0, 1}, {1, 0}, {-2, 3}, {3, 1}};

}  // namespace

// Must stay the first test case: it looks at the kernel set chosen from the
// environment before anything forces one.
BOOST_AUTO_TEST_CASE(kernel_set_environment) {
  const char* env = std::getenv("EXALA_SIMD");
  const std::string v = env ? env : "";
  std::vector<double> x = {1.0, 0x1p-53, 0x1p-1074};
  const exala::exec simd{backend::simd};
  const exala::exec ref{backend::reference};
  if (v.empty() || v == "auto") {
    BOOST_TEST((exala::active_kernel_set() == best_by_cpuid()));
  } else if (v == "generic" || v == "scalar" || v == "avx2" || v == "avx512") {
    // scalar: the former name of generic, still accepted
    const std::string name = v == "scalar" ? "generic" : v;
    const kernel_set k = name == "generic" ? kernel_set::generic : name == "avx2" ? kernel_set::avx2
                                                                                  : kernel_set::avx512;
    if (cpu_supports(k)) {
      BOOST_TEST(exala::to_string(exala::active_kernel_set()) == name);
      BOOST_TEST(exala::sum(x, simd) == 1 + 0x1p-52);
    } else {  // a forced choice is never silently replaced
      BOOST_CHECK_THROW(exala::active_kernel_set(), exala::error);
      BOOST_CHECK_THROW(exala::sum(x, simd), exala::error);
    }
  } else {  // an unknown value is an error naming EXALA_SIMD, for every call that needs kernels
    BOOST_CHECK_EXCEPTION(exala::active_kernel_set(), exala::invalid_argument,
                          [](const exala::invalid_argument& e) { return e.argument() == "EXALA_SIMD"; });
    BOOST_CHECK_THROW(exala::sum(x, simd), exala::error);
    if (exala::is_compiled_in(backend::omp))
      BOOST_CHECK_THROW(exala::sum(x, exala::exec{backend::omp, 2}), exala::error);
    BOOST_TEST(exala::sum(x, ref) == 1 + 0x1p-52);  // the reference needs no kernels
    exala::force_kernel_set(kernel_set::generic);  // an explicit choice still works
    BOOST_TEST(exala::sum(x, simd) == 1 + 0x1p-52);
  }
  restore_kernel_set restore;
}

BOOST_AUTO_TEST_CASE(kernel_sets_available) {
  restore_kernel_set restore;
  const auto& sets = kernel_sets();
  std::ostringstream os;
  for (kernel_set k : sets) os << exala::to_string(k) << " ";
  BOOST_TEST_MESSAGE("kernel sets under test: " << os.str()
                                                << (exala::is_compiled_in(backend::omp) ? "(omp compiled in)"
                                                                                        : "(no omp)"));
  BOOST_TEST((sets.front() == kernel_set::generic));
  // every set the CPU supports is accepted (the build is x86-64 with both SIMD sets)
#if defined(__x86_64__)
  for (kernel_set k : {kernel_set::avx2, kernel_set::avx512})
    if (cpu_supports(k))
      BOOST_TEST((std::find(sets.begin(), sets.end(), k) != sets.end()), exala::to_string(k));
#endif
  for (kernel_set k : {kernel_set::generic, kernel_set::avx2, kernel_set::avx512}) {
    if (std::find(sets.begin(), sets.end(), k) == sets.end()) {
      BOOST_CHECK_THROW(exala::force_kernel_set(k), exala::error);
    } else {
      exala::force_kernel_set(k);
      BOOST_TEST((exala::active_kernel_set() == k));
    }
  }
}

// Every length 0..70 x every stride (dot: 13 stride pairs) x data kinds.
// The default run takes the four core kinds for every (length, stride) and
// rotates the other seven through them; the `long` case takes them all.
void sweep_lengths_strides_kinds(bool all_kinds, std::uint64_t seed) {
  failures f;
  rng_t r(seed);
  const kind core[] = {kind::uniform, kind::full_range, kind::cancellation, kind::ties};
  const kind others[] = {kind::wide, kind::near_max, kind::negzero, kind::mixed_zero,
                         kind::subnormal, kind::tiny_products, kind::huge_products};
  int cases = 0;
  for (std::int64_t n = 0; n <= 70; ++n) {
    auto kinds_for = [&](int slot) {
      std::vector<kind> ks;
      if (all_kinds) {
        for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) ks.push_back(static_cast<kind>(ki));
      } else {
        ks.assign(std::begin(core), std::end(core));
        ks.push_back(others[static_cast<std::size_t>(n + slot) % std::size(others)]);
      }
      return ks;
    };
    for (int si = 0; si < 6; ++si)
      for (kind k : kinds_for(si)) {
        const int off = static_cast<int>((n + static_cast<int>(k) + si) % 8);
        run(make(op::sum, k, n, strides[si], 1, off, 0, r), f);
        run(make(op::asum, k, n, strides[si], 1, (off + 3) % 8, 0, r), f);
        cases += 2;
      }
    for (std::size_t di = 0; di < std::size(dot_strides); ++di)
      for (kind k : kinds_for(static_cast<int>(di) + 3)) {
        const int off = static_cast<int>((n + static_cast<int>(k) + static_cast<int>(di)) % 8);
        run(make(op::dot, k, n, dot_strides[di].first, dot_strides[di].second, off, (off + 5) % 8, r),
            f);
        ++cases;
      }
  }
  BOOST_TEST_MESSAGE("lengths 0..70 x strides x kinds: " << cases << " problems");
}

BOOST_AUTO_TEST_CASE(every_length_stride_kind) {
  restore_kernel_set restore;
  sweep_lengths_strides_kinds(false, 1001);
}

BOOST_AUTO_TEST_CASE(every_length_stride_all_kinds, *utf::label("long")) {
  restore_kernel_set restore;
  sweep_lengths_strides_kinds(true, 2001);
}

BOOST_AUTO_TEST_CASE(large_lengths) {
  restore_kernel_set restore;
  failures f;
  rng_t r(1002);
  // 1000 and 4099: every kind and stride; 100003: a subset. The MPFR oracle
  // sees the stride-1 problems of the largest length only for some kinds
  // (the reference is checked against it everywhere else).
  for (std::int64_t n : {1000, 2047, 2048, 2049, 4099}) {
    for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
      const kind k = static_cast<kind>(ki);
      if (n != 1000 && n != 4099 && ki % 3 != 0) continue;
      for (int si = 0; si < 6; ++si) {
        if (n != 4099 && si != 0 && si != 3) continue;
        run(make(op::sum, k, n, strides[si], 1, si, 0, r), f);
        run(make(op::asum, k, n, strides[si], 1, si + 1, 0, r), f);
      }
      for (std::size_t di = 0; di < std::size(dot_strides); di += (n == 4099 ? 1 : 3))
        run(make(op::dot, k, n, dot_strides[di].first, dot_strides[di].second,
                 static_cast<int>(di % 8), 7 - static_cast<int>(di % 8), r),
            f);
    }
  }
  const kind big_kinds[] = {kind::uniform, kind::full_range, kind::cancellation, kind::near_max,
                            kind::tiny_products, kind::huge_products, kind::negzero};
  for (kind k : big_kinds) {
    const bool oracle = k != kind::uniform && k != kind::negzero;
    const std::int64_t n = 100003;
    run(make(op::sum, k, n, 1, 1, 1, 0, r), f, oracle);
    run(make(op::sum, k, n, -1, 1, 0, 0, r), f, false);
    run(make(op::asum, k, n, 3, 1, 2, 0, r), f, false);
    run(make(op::dot, k, n, 1, 1, 3, 1, r), f, oracle);
    run(make(op::dot, k, n, -1, -1, 0, 0, r), f, false);
    run(make(op::dot, k, n, 1, -1, 0, 3, r), f, false);
    run(make(op::dot, k, n, 2, 3, 1, 2, r), f, false);
  }
}

BOOST_AUTO_TEST_CASE(misaligned_pointers) {
  restore_kernel_set restore;
  failures f;
  rng_t r(1003);
  for (std::int64_t n : {0, 1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 32, 33, 40, 64, 65, 200}) {
    for (int ox = 0; ox < 8; ++ox)
      for (kind k : {kind::uniform, kind::full_range}) {
        run(make(op::sum, k, n, 1, 1, ox, 0, r), f);
        run(make(op::asum, k, n, -1, 1, ox, 0, r), f);
        for (int oy = 0; oy < 8; oy += 3) run(make(op::dot, k, n, 1, 1, ox, oy, r), f);
      }
  }
}

// inf / NaN at every position of short vectors (all SIMD lanes, groups and
// tails) and at block edges of long ones; with +inf and -inf together, inf*0
// in dot, and infinities among sums that overflow. The default run takes the
// lengths around the SIMD widths; the `long` case takes every length 1..40.
void sweep_special_values(bool every_length, std::uint64_t seed) {
  failures f;
  rng_t r(seed);
  auto positions = [](std::int64_t n) {
    std::vector<std::int64_t> p;
    if (n <= 40) {
      for (std::int64_t i = 0; i < n; ++i) p.push_back(i);
    } else {
      for (std::int64_t i : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{8},
                             std::int64_t{15}, std::int64_t{16}, std::int64_t{31}, std::int64_t{32},
                             n / 2, n - 33, n - 32, n - 17, n - 16, n - 9, n - 8, n - 2, n - 1,
                             std::int64_t{2047}, std::int64_t{2048}, std::int64_t{4095}})
        if (i >= 0 && i < n) p.push_back(i);
    }
    return p;
  };
  std::vector<std::int64_t> lengths;
  if (every_length)
    for (std::int64_t n = 1; n <= 40; ++n) lengths.push_back(n);
  else
    for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40}) lengths.push_back(n);
  for (std::int64_t n : {63, 64, 65, 127, 128, 129, 1000, 2049, 4099}) lengths.push_back(n);
  for (std::int64_t n : lengths) {
    for (std::int64_t pos : positions(n)) {
      for (int s = 0; s < 9; ++s) {
        const kind bg = (s == 6) ? kind::near_max : kind::uniform;
        for (op o : {op::sum, op::asum, op::dot}) {
          if (o != op::dot && (s == 4 || s == 5 || s > 6)) continue;  // dot-only cases
          const std::int64_t inc = (pos + s) % 3 == 0 ? -1 : (pos + s) % 3 == 1 ? 1 : 2;
          problem p = make(o, bg, n, inc, o == op::dot ? -inc : 1, static_cast<int>(pos % 8), 1, r);
          const auto i = static_cast<std::size_t>(pos);
          const auto j = static_cast<std::size_t>((pos * 7 + 3) % n);
          switch (s) {
            case 0: p.x[i] = inf; break;
            case 1: p.x[i] = -inf; break;
            case 2: p.x[i] = qnan; break;
            case 3: p.x[i] = inf, p.x[j] = (i == j ? inf : -inf); break;  // +inf with -inf
            case 4: p.x[i] = inf, p.y[i] = 0.0; break;                      // dot: inf * 0
            case 5: p.x[i] = -inf, p.y[i] = (r() & 1) ? -2.0 : dmin_sub; break;
            case 6: p.x[i] = (r() & 1) ? inf : -inf; break;  // inf among overflowing sums
            case 7: p.y[i] = qnan; break;                      // dot: NaN in y only
            default: p.y[i] = -inf, p.x[j] = (r() & 1) ? 0.0 : p.x[j]; break;  // -inf in y
          }
          run(p, f);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(special_values_at_every_position) {
  restore_kernel_set restore;
  sweep_special_values(false, 1004);
}

BOOST_AUTO_TEST_CASE(special_values_every_length, *utf::label("long")) {
  restore_kernel_set restore;
  sweep_special_values(true, 2004);
}

BOOST_AUTO_TEST_CASE(all_rounding_directions) {
  restore_kernel_set restore;
  failures f;
  rng_t r(1005);
  const std::vector<rounding> modes(all_modes.begin(), all_modes.end());
  for (std::int64_t n : {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 17, 20, 33, 67, 1000, 4099}) {
    for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
      const kind k = static_cast<kind>(ki);
      run(make(op::sum, k, n, 1, 1, 0, 0, r), f, true, modes);
      run(make(op::asum, k, n, -1, 1, 1, 0, r), f, true, modes);
      run(make(op::dot, k, n, 1, 1, 2, 0, r), f, true, modes);
      run(make(op::dot, k, n, -1, 2, 3, 1, r), f, true, modes);
    }
  }
}

// Exact answers written by hand (no oracle needed), on every backend, with
// the interesting terms spread through longer vectors of cancelling pairs.
BOOST_AUTO_TEST_CASE(exact_tables) {
  restore_kernel_set restore;
  rng_t r(1006);
  struct row {
    std::vector<double> x, y;  // y empty: sum; else dot
    double want;
    rounding mode;
  };
  const double t = dmin_sub, h = 0x1p-53, u = 0x1p-52;
  const std::vector<row> rows = {
      {{1, h}, {}, 1.0, RN},
      {{1, 3 * h}, {}, 1 + 2 * u, RN},
      {{1, h, t}, {}, 1 + u, RN},
      {{1, h, -t}, {}, 1 + u, rounding::upward},
      {{1e300, t, -1e300}, {}, t, RN},
      {{DBL_MAX, DBL_MAX, -DBL_MAX}, {}, DBL_MAX, RN},
      {{DBL_MAX, DBL_MAX}, {}, inf, RN},
      {{DBL_MAX, DBL_MAX}, {}, DBL_MAX, rounding::toward_zero},
      {{-DBL_MAX, -DBL_MAX}, {}, -DBL_MAX, rounding::upward},
      {{inf, 1}, {}, inf, RN},
      {{-inf, 1}, {}, -inf, RN},
      {{1.5, -1.5}, {}, -0.0, rounding::downward},
      {{1.5, -1.5}, {}, 0.0, RN},
      {{0x1p1000, -0x1p1000}, {0x1p1000, 0x1p1000}, 0.0, RN},  // products overflow, cancel
      {{0x1p1000}, {0x1p1000}, inf, RN},
      {{0x1p1000}, {0x1p1000}, DBL_MAX, rounding::downward},
      {{0x1p-537}, {0x1p-537}, t, RN},
      {{t, t}, {0.5, 0.5}, t, RN},
      {{t}, {0.5}, 0.0, RN},
      {{3 * t}, {0.5}, 2 * t, RN},
      {{1, h, t}, {1, 1, t}, 1 + u, RN},  // tie + a sticky bit from a product 2^-2148
      {{1, h, -t}, {1, 1, t}, 1.0, RN},
      {{inf, 1}, {0, 1}, qnan, RN},
      {{inf, 1}, {-1, 1}, -inf, RN},
  };
  for (const row& w : rows) {
    const bool is_dot = !w.y.empty();
    for (std::int64_t len : {std::int64_t{0}, std::int64_t{17}, std::int64_t{64}, std::int64_t{100},
                             std::int64_t{4099}}) {
      // the row's terms plus cancelling pairs, shuffled
      std::vector<double> x = w.x, y = is_dot ? w.y : std::vector<double>(w.x.size(), 1.0);
      while (static_cast<std::int64_t>(x.size()) + 2 <= len + static_cast<std::int64_t>(w.x.size())) {
        const double v = random_exp(r, -200, 200), b = random_exp(r, -200, 200);
        x.push_back(v), y.push_back(b);
        x.push_back(-v), y.push_back(b);
      }
      std::vector<std::size_t> p(x.size());
      for (std::size_t i = 0; i < p.size(); ++i) p[i] = i;
      shuffle(p, r);
      std::vector<double> xs(x.size()), ys(x.size());
      for (std::size_t i = 0; i < p.size(); ++i) xs[i] = x[p[i]], ys[i] = y[p[i]];
      for (kernel_set k : kernel_sets()) {
        exala::force_kernel_set(k);
        std::vector<config> cs = non_reference_configs();
        cs.insert(cs.begin(), config{backend::reference, 0});
        for (const config& c : cs) {
          if (!runs_with_kernel_set(c, k)) continue;
          const exala::exec ex{c.b, c.threads, w.mode};
          const double got = is_dot ? exala::dot(xs, ys, ex) : exala::sum(xs, ex);
          BOOST_TEST(same_bits(got, w.want), describe(c, k) << " " << (is_dot ? "dot" : "sum") << " of "
                                                            << xs.size() << " terms with row "
                                                            << hex(w.x[0]) << ", " << name(w.mode)
                                                            << ": got " << hex(got) << ", want "
                                                            << hex(w.want));
        }
      }
    }
  }
}

// Negative zeros only: the sum is -0 on every backend, asum is +0, and a dot
// of -0 with positive values is -0; the empty sum is +0.
BOOST_AUTO_TEST_CASE(negative_zeros) {
  restore_kernel_set restore;
  for (std::int64_t n : {1, 2, 3, 4, 7, 8, 15, 16, 17, 31, 32, 33, 64, 100, 1000, 2049, 4099}) {
    const std::vector<double> z(static_cast<std::size_t>(n), -0.0), one(static_cast<std::size_t>(n), 1.0);
    for (kernel_set k : kernel_sets()) {
      exala::force_kernel_set(k);
      std::vector<config> cs = non_reference_configs();
      cs.insert(cs.begin(), config{backend::reference, 0});
      for (const config& c : cs) {
        if (!runs_with_kernel_set(c, k)) continue;
        for (rounding m : all_modes) {
          const exala::exec ex{c.b, c.threads, m};
          BOOST_TEST_CONTEXT(describe(c, k) << " n=" << n << " " << name(m)) {
            BOOST_TEST(same_bits(exala::sum(z, ex), -0.0));
            BOOST_TEST(same_bits(exala::sum(n, z.data(), -1, ex), -0.0));
            BOOST_TEST(same_bits(exala::sum(n, z.data(), 0, ex), -0.0));
            BOOST_TEST(same_bits(exala::asum(z, ex), 0.0));
            BOOST_TEST(same_bits(exala::dot(z, one, ex), -0.0));
            BOOST_TEST(same_bits(exala::dot(z, z, ex), 0.0));
            BOOST_TEST(same_bits(exala::sum(0, z.data(), 1, ex), 0.0));
            BOOST_TEST(same_bits(exala::sum(0, nullptr, 1, ex), 0.0));
            BOOST_TEST(same_bits(exala::dot(0, nullptr, 1, nullptr, 1, ex), 0.0));
          }
        }
      }
    }
  }
}

// The exact-accumulation entry points: every backend adds the same exact
// value (and flags) to an accumulator that already holds something.
BOOST_AUTO_TEST_CASE(into_accumulators) {
  restore_kernel_set restore;
  rng_t r(1007);
  for (std::int64_t n : {0, 1, 5, 16, 33, 70, 1000, 4099}) {
    for (kind k : {kind::uniform, kind::full_range, kind::cancellation, kind::negzero, kind::near_max}) {
      std::vector<double> x, y;
      generate(k, n, r, x, y);
      auto fill = [&](exala::superaccumulator& a, const exala::exec& ex, int which) {
        a.clear();
        a.add(-0.0);
        if (which == 0) exala::sum_into(a, n, x.data(), 1, ex);
        if (which == 1) exala::asum_into(a, n, x.data(), -1, ex);
        if (which == 2) exala::dot_into(a, n, x.data(), 1, y.data(), -1, ex);
      };
      for (int which = 0; which < 3; ++which) {
        exala::superaccumulator ref, got;
        fill(ref, exala::exec{backend::reference}, which);
        for (kernel_set ks : kernel_sets()) {
          exala::force_kernel_set(ks);
          for (const config& c : non_reference_configs()) {
            if (!runs_with_kernel_set(c, ks)) continue;
            fill(got, exala::exec{c.b, c.threads}, which);
            BOOST_TEST_CONTEXT(describe(c, ks) << " n=" << n << " kind=" << name(k) << " op " << which) {
              BOOST_TEST((got == ref));
              for (rounding m : all_modes) BOOST_TEST(same_bits(got.round(m), ref.round(m)));
            }
          }
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(argument_errors) {
  restore_kernel_set restore;
  const std::vector<double> v = {1.0, 2.0, 3.0};
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      return e.argument() == arg && std::string(e.what()).find(arg) != std::string::npos;
    };
  };
  std::vector<config> cs = non_reference_configs();
  cs.insert(cs.begin(), config{backend::reference, 0});
  for (const config& c : cs) {
    const exala::exec ex{c.b, c.threads};
    BOOST_TEST_CONTEXT(describe(c, exala::active_kernel_set())) {
      BOOST_CHECK_EXCEPTION(exala::sum(-1, v.data(), 1, ex), exala::invalid_argument, names("n"));
      BOOST_CHECK_EXCEPTION(exala::asum(-5, v.data(), 1, ex), exala::invalid_argument, names("n"));
      BOOST_CHECK_EXCEPTION(exala::dot(-1, v.data(), 1, v.data(), 1, ex), exala::invalid_argument,
                            names("n"));
      BOOST_CHECK_EXCEPTION(exala::sum(3, nullptr, 1, ex), exala::invalid_argument, names("x"));
      BOOST_CHECK_EXCEPTION(exala::asum(1, nullptr, -1, ex), exala::invalid_argument, names("x"));
      BOOST_CHECK_EXCEPTION(exala::dot(3, nullptr, 1, v.data(), 1, ex), exala::invalid_argument,
                            names("x"));
      BOOST_CHECK_EXCEPTION(exala::dot(3, v.data(), 1, nullptr, 1, ex), exala::invalid_argument,
                            names("y"));
      exala::superaccumulator a;
      BOOST_CHECK_EXCEPTION(exala::sum_into(a, -1, v.data(), 1, ex), exala::invalid_argument, names("n"));
      BOOST_CHECK_EXCEPTION(exala::dot_into(a, 2, v.data(), 1, nullptr, 1, ex), exala::invalid_argument,
                            names("y"));
      BOOST_TEST(a.is_zero());
      BOOST_CHECK_EXCEPTION(exala::sum(3, v.data(), 1, exala::exec{c.b, -1}), exala::invalid_argument,
                            names("threads"));
      BOOST_CHECK_EXCEPTION(exala::dot(std::span<const double>(v), std::span<const double>(v.data(), 2), ex),
                            exala::invalid_argument, [](const exala::invalid_argument&) { return true; });
      // the message names the value
      try {
        exala::sum(-7, v.data(), 1, ex);
      } catch (const exala::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("-7") != std::string::npos, e.what());
      }
      // n = 0 with a null pointer is fine
      BOOST_TEST(same_bits(exala::asum(0, nullptr, 1, ex), 0.0));
    }
  }
  // errors are exala::error
  BOOST_CHECK_THROW(exala::sum(-1, v.data(), 1), exala::error);
  // backends: names round-trip, unknown names are argument errors
  for (backend b : {backend::reference, backend::simd, backend::omp, backend::opencl})
    BOOST_TEST((exala::parse_backend(exala::to_string(b)) == b));
  BOOST_CHECK_EXCEPTION(exala::parse_backend("cuda-magic"), exala::invalid_argument,
                        [](const exala::invalid_argument& e) { return e.argument() == "backend"; });
  if (!exala::is_compiled_in(backend::omp))
    BOOST_CHECK_THROW(exala::sum(v, exala::exec{backend::omp, 2}), exala::not_compiled_in);
  if (!exala::is_compiled_in(backend::opencl)) {
    BOOST_CHECK_THROW(exala::sum(v, exala::exec{backend::opencl}), exala::not_compiled_in);
    BOOST_CHECK_THROW(exala::dot(0, nullptr, 1, nullptr, 1, exala::exec{backend::opencl}),
                      exala::not_compiled_in);
  }
}

// Issue 15, row 10: an increment whose address (n-1)*|inc| would pass
// 2^60 - 1 elements (or not be representable at all) is refused naming it,
// before any element is read, on every backend; one element takes any
// increment (it is never used: no address is formed from it, so INT64_MIN
// is fine); a count above 2^60 - 1 is refused even with increment 0.
BOOST_AUTO_TEST_CASE(address_overflow) {
  const std::vector<double> v = {1.0, 2.0, 3.0};
  const std::int64_t bad[] = {INT64_MIN, INT64_MIN + 1, -(std::int64_t{1} << 62),
                              std::int64_t{1} << 62, std::int64_t{1} << 60, INT64_MAX};
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      return e.argument() == arg && std::string(e.what()).find(arg) != std::string::npos;
    };
  };
  for (const config& c : all_configs()) {
    const exala::exec ex{c.b, c.threads};
    BOOST_TEST_CONTEXT(describe(c, exala::active_kernel_set())) {
      exala::superaccumulator a;
      for (const std::int64_t inc : bad) {
        BOOST_TEST_CONTEXT("inc " << inc) {
          BOOST_CHECK_EXCEPTION(exala::sum(2, v.data(), inc, ex), exala::invalid_argument, names("incx"));
          BOOST_CHECK_EXCEPTION(exala::asum(3, v.data(), inc, ex), exala::invalid_argument, names("incx"));
          BOOST_CHECK_EXCEPTION(exala::nrm2(2, v.data(), inc, ex), exala::invalid_argument, names("incx"));
          BOOST_CHECK_EXCEPTION(exala::dot(2, v.data(), inc, v.data(), 1, ex), exala::invalid_argument,
                                names("incx"));
          BOOST_CHECK_EXCEPTION(exala::dot(2, v.data(), -1, v.data(), inc, ex), exala::invalid_argument,
                                names("incy"));
          BOOST_CHECK_EXCEPTION(exala::sum_into(a, 2, v.data(), inc, ex), exala::invalid_argument,
                                names("incx"));
          BOOST_CHECK_EXCEPTION(exala::asum_into(a, 2, v.data(), inc, ex), exala::invalid_argument,
                                names("incx"));
          BOOST_CHECK_EXCEPTION(exala::dot_into(a, 2, v.data(), 1, v.data(), inc, ex),
                                exala::invalid_argument, names("incy"));
          // one element: the increment is not used
          BOOST_TEST(same_bits(exala::sum(1, v.data() + 1, inc, ex), 2.0));
          BOOST_TEST(same_bits(exala::dot(1, v.data() + 2, inc, v.data() + 1, inc, ex), 6.0));
          BOOST_TEST(same_bits(exala::nrm2(1, v.data() + 2, inc, ex), 3.0));
        }
      }
      BOOST_TEST(a.is_zero());
      // the largest accepted offset: (n-1)*|inc| = 2^60 - 2 (only checked, not
      // read: n = 0 would skip the check, so the span is tested directly)
      BOOST_TEST(exala::detail::vector_span(2, (std::int64_t{1} << 60) - 2).value() ==
                 (std::int64_t{1} << 60) - 1);
      BOOST_TEST(!exala::detail::vector_span(2, (std::int64_t{1} << 60) - 1).has_value());
      // counts above 2^60 - 1 with increment 0 (2^63 steps: a hang otherwise)
      BOOST_CHECK_EXCEPTION(exala::sum(INT64_MAX, v.data(), 0, ex), exala::invalid_argument, names("n"));
      BOOST_CHECK_EXCEPTION(exala::dot(std::int64_t{1} << 60, v.data(), 0, v.data(), 0, ex),
                            exala::invalid_argument, names("n"));
      BOOST_CHECK_EXCEPTION(exala::nrm2(INT64_MAX, v.data(), 0, ex), exala::invalid_argument, names("n"));
    }
  }
}

// The omp split of [0, n) into parts never forms n * t (which overflows for
// counts above 2^53 with 1024 threads): the split points are exact.
BOOST_AUTO_TEST_CASE(omp_split_points_exact) {
  const std::int64_t n = (std::int64_t{1} << 60) - 1;
  for (std::int64_t parts : {1, 3, 7, 1000, 1024}) {
    BOOST_TEST(exala::detail::split_point(n, 0, parts) == 0);
    BOOST_TEST(exala::detail::split_point(n, parts, parts) == n);
    for (std::int64_t t = 1; t < parts; t += parts / 7 + 1) {
      const auto exact = static_cast<std::int64_t>(static_cast<__int128>(n) * t / parts);
      BOOST_TEST(exala::detail::split_point(n, t, parts) == exact);
    }
  }
}

#ifndef EXALA_TEST_HAVE_MPFR
BOOST_AUTO_TEST_CASE(mpfr_oracle_compiled_out) {
  BOOST_TEST_MESSAGE("MPFR was not found at configure time: the reference backend is not checked "
                     "against MPFR (the backends are still compared with it, and the exact tables run)");
  BOOST_TEST(true);
}
#endif

// OpenMP's default thread count (threads = 0) gives the same bits.
BOOST_AUTO_TEST_CASE(omp_default_threads) {
  restore_kernel_set restore;
  if (!exala::is_compiled_in(backend::omp)) return;
  rng_t r(1008);
  for (std::int64_t n : {0, 1, 7, 100, 4099}) {
    std::vector<double> x, y;
    generate(kind::full_range, n, r, x, y);
    const exala::exec ref{backend::reference}, omp{backend::omp, 0};
    BOOST_TEST(same_bits(exala::sum(x, omp), exala::sum(x, ref)));
    BOOST_TEST(same_bits(exala::dot(x, y, omp), exala::dot(x, y, ref)));
  }
}

// A bigger randomized sweep (ctest label `long`, not run by CI): random
// lengths up to 300000, strides, offsets, kinds and directions.
BOOST_AUTO_TEST_CASE(long_random_sweep, *utf::label("long")) {
  restore_kernel_set restore;
  failures f;
  rng_t r(77);
  for (int rep = 0; rep < 2000; ++rep) {
    const std::int64_t n = (rep % 10 == 0) ? static_cast<std::int64_t>(r() % 300000)
                                           : static_cast<std::int64_t>(r() % 9000);
    const kind k = static_cast<kind>(r() % static_cast<unsigned>(kind::count));
    const op o = static_cast<op>(r() % 3);
    const std::int64_t incx = static_cast<std::int64_t>(r() % 9) - 4, incy = static_cast<std::int64_t>(r() % 9) - 4;
    const std::vector<rounding> m = {all_modes[r() % 4]};
    run(make(o, k, n, incx, incy, static_cast<int>(r() % 8), static_cast<int>(r() % 8), r), f, true, m);
  }
}

// The SIMD kernels' anchored register levels (blas1/kernels/blas1_simd_impl.hpp)
// have state transitions that random data rarely reaches: re-anchoring when
// terms outgrow the bound X or fall far below it, recentering when a level
// drifts out of its window, entering and leaving the direct-deposit mode for
// wide blocks, and the limits of anchoring (terms near 2^997, subnormals).
// Each pattern spans many 2048-element blocks, so the transitions happen at
// block boundaries and inside blocks.
BOOST_AUTO_TEST_CASE(anchored_level_transitions) {
  restore_kernel_set restore;
  failures f;
  rng_t r(4242);
  auto with = [&](op o, std::int64_t n, auto gen_x, auto gen_y) {
    problem p;
    p.o = o, p.n = n;
    p.x.resize(static_cast<std::size_t>(n));
    p.y.resize(o == op::dot ? static_cast<std::size_t>(n) : 0);
    for (std::int64_t i = 0; i < n; ++i) {
      p.x[static_cast<std::size_t>(i)] = gen_x(i);
      if (o == op::dot) p.y[static_cast<std::size_t>(i)] = gen_y(i);
    }
    run(p, f);
  };
  auto none = [](std::int64_t) { return 0.0; };
  const std::int64_t n = 40000;
  for (op o : {op::sum, op::asum, op::dot}) {
    // Magnitudes that grow, then shrink, by one binade every 700 terms.
    with(o, n, [&](std::int64_t i) { return uniform(r) * pow2(static_cast<int>(i / 700)); },
         [&](std::int64_t) { return uniform(r); });
    with(o, n, [&](std::int64_t i) { return uniform(r) * pow2(-static_cast<int>(i / 700)); },
         [&](std::int64_t) { return uniform(r); });
    // Abrupt jumps between scales every 3000 terms (up, far down, back).
    with(o, n,
         [&](std::int64_t i) {
           const int s[] = {0, 300, -300, 40, -700, 0};
           return uniform(r) * pow2(s[(i / 3000) % 6]);
         },
         [&](std::int64_t i) { return uniform(r) * pow2((i / 5000) % 2 ? 100 : -100); });
    // One wide burst in the middle of uniform data (wide mode, then back).
    with(o, n,
         [&](std::int64_t i) {
           return (i > 15000 && i < 19000) ? uniform(r) * pow2(std::uniform_int_distribution<int>(-500, 500)(r))
                                            : uniform(r);
         },
         [&](std::int64_t) { return uniform(r); });
    // The largest term exactly at the anchoring limit's edges, in the block
    // whose maximum sets the first anchors (2^997 is the first rejected).
    for (int e : {996, 997, 998})
      with(o, 5000, [&, e](std::int64_t i) { return i == 100 ? pow2(e) : uniform(r) * pow2(e - 3); },
           [&](std::int64_t) { return 1.0; });
    // Terms near the anchoring limit 2^997 and just above it.
    with(o, 9000, [&](std::int64_t i) { return uniform(r) * pow2(i % 3 == 0 ? 1000 : 994); },
         [&](std::int64_t) { return uniform(r) * 0.5; });
    // Subnormals only, and subnormals among small normals.
    with(o, 9000, [&](std::int64_t) { return random_exp(r, -1074, -1023); },
         [&](std::int64_t) { return random_exp(r, 500, 520); });
    with(o, 9000, [&](std::int64_t i) { return i % 2 ? random_exp(r, -1074, -1023) : random_exp(r, -1000, -990); },
         [&](std::int64_t) { return random_exp(r, 400, 420); });
  }
  // Level-1 drift: for terms near 1 the bound is X = 32 and level 0 keeps
  // multiples of 2^-25; a term 1 + 0.4921875 * 2^-25 leaves the same residual
  // +0.49 ulp every time, so level 1 crosses its window (64 ulp of level 0)
  // every ~130 terms per lane and the recentering path runs again and again.
  // (The windows carry a wide margin: without recentering these sums would
  // still be exact, so this exercises the path rather than guards it.)
  with(op::sum, 40000, [](std::int64_t) { return 1.0 + 0x1p-26 - 0x1p-32; }, none);
  with(op::asum, 40000, [](std::int64_t i) { return i % 2 ? -(1.0 + 0x1p-26 - 0x1p-32) : 1.0 + 0x1p-26 - 0x1p-32; }, none);
  with(op::dot, 40000, [](std::int64_t) { return 1.0 + 0x1p-26 - 0x1p-32; }, [](std::int64_t) { return 1.0; });
  // dot: a largest product of exactly 2^997 from factors that are not.
  with(op::dot, 5000, [&](std::int64_t i) { return i == 100 ? pow2(500) : uniform(r) * pow2(490); },
       [&](std::int64_t i) { return i == 100 ? pow2(497) : uniform(r) * pow2(490); });
  // dot: products straddling the TwoProd underflow bound 2^-968, with zeros.
  with(op::dot, 20000,
       [&](std::int64_t i) { return i % 7 == 0 ? 0.0 : random_exp(r, -490, -475); },
       [&](std::int64_t i) { return i % 11 == 0 ? -0.0 : random_exp(r, -495, -480); });
}

// A long one-signed sum and dot (2^25 terms; exact results 0.75 * 2^25 and
// 0.5625 * 2^25 checked directly, no MPFR needed). Level 0 drifts by 2^20
// terms per lane; its recentering would be needed only near 2^31 terms,
// beyond what a test can allocate.
BOOST_AUTO_TEST_CASE(long_one_signed_sums, *utf::label("long")) {
  restore_kernel_set restore;
  const std::int64_t n = std::int64_t{1} << 25;
  const std::vector<double> x(static_cast<std::size_t>(n), 0.75);
  const double want = 0.75 * static_cast<double>(n);
  for (kernel_set k : kernel_sets()) {
    exala::force_kernel_set(k);
    for (const config& c : non_reference_configs()) {
      if (!runs_with_kernel_set(c, k)) continue;
      const exala::exec ex{c.b, c.threads};
      BOOST_TEST(same_bits(exala::sum(n, x.data(), 1, ex), want), describe(c, k) << " sum");
      BOOST_TEST(same_bits(exala::dot(n, x.data(), 1, x.data(), 1, ex), 0.5625 * static_cast<double>(n)),
                 describe(c, k) << " dot");
    }
  }
}

#ifdef EXALA_TEST_HAVE_MPFR
// The square root of an exact MPFR value, correctly rounded to binary64:
// sqrt to 53 bits in the wide exponent range, then the IEEE range and
// subnormals applied with the ternary value (no double rounding).
double mpfr_sqrt_to_double(const mpfr_t s, rounding m) {
  const mpfr_rnd_t rnd = to_mpfr(m);
  mpfr_t t;
  mpfr_init2(t, 53);
  int inex = mpfr_sqrt(t, s, rnd);
  const mpfr_exp_t emin = mpfr_get_emin(), emax = mpfr_get_emax();
  mpfr_set_emin(-1073);
  mpfr_set_emax(1024);
  inex = mpfr_check_range(t, inex, rnd);
  inex = mpfr_subnormalize(t, inex, rnd);
  const double d = mpfr_get_d(t, rnd);
  mpfr_set_emin(emin);
  mpfr_set_emax(emax);
  mpfr_clear(t);
  return d;
}
#endif

// nrm2: the exact sum of squares, its square root rounded once. Checked
// against MPFR and across every backend, thread count and kernel set, in all
// four directions, on data whose squares overflow or underflow the double
// range, on exact midpoints (ties) and on special values.
BOOST_AUTO_TEST_CASE(nrm2_correctly_rounded) {
  restore_kernel_set restore;
  failures f;
  rng_t r(777);
  const rounding modes[] = {RN, rounding::toward_zero, rounding::upward, rounding::downward};
  auto check = [&](const std::vector<double>& x, const std::string& what, double expect_rn = qnan) {
    const auto n = static_cast<std::int64_t>(x.size());
    for (rounding m : modes) {
      const double ref = exala::nrm2(n, x.data(), 1, exala::exec{backend::reference, 0, m});
#ifdef EXALA_TEST_HAVE_MPFR
      bool special = false;
      for (double v : x) special = special || !std::isfinite(v);
      if (!special) {
        mpfr_exact_sum s(m);
        for (double v : x) s.add_product(v, v);
        const double want = mpfr_sqrt_to_double(s.value(), m);
        if (!same_bits(ref, want))
          f.report("nrm2 reference vs MPFR: " + what + " " + name(m) + ": got " + hex(ref) + ", MPFR " + hex(want));
      }
#endif
      if (m == RN && !std::isnan(expect_rn) && !same_bits(ref, expect_rn))
        f.report("nrm2 " + what + ": got " + hex(ref) + ", expected " + hex(expect_rn));
      for (kernel_set k : kernel_sets()) {
        exala::force_kernel_set(k);
        for (const config& c : non_reference_configs()) {
          if (!runs_with_kernel_set(c, k)) continue;
          const double got = exala::nrm2(n, x.data(), 1, exala::exec{c.b, c.threads, m});
          if (!same_bits(got, ref))
            f.report(describe(c, k) + " nrm2 vs reference: " + what + " " + name(m) + ": got " + hex(got) +
                     ", reference " + hex(ref));
        }
      }
    }
  };
  // Exact results and exact ties (the norm is a midpoint between doubles).
  check({3.0, 4.0}, "3,4", 5.0);
  check({-5.0, 12.0}, "-5,12", 13.0);
  check({1.0, 0x1p-26, 0x1p-53}, "tie 1+2^-53 (to even: 1)", 1.0);
  check({1.0, 0x1p-26, 0x1p-26, 0x1p-26, 3 * 0x1p-53}, "tie 1+3*2^-53 (to even: 1+2^-51)", 1.0 + 0x1p-51);
  check({0x1p-1074}, "single subnormal", 0x1p-1074);
  check({-0x1.fffffffffffffp+1023}, "single -DBL_MAX", dmax);
  check({0.0, -0.0}, "zeros", 0.0);
  check({}, "empty", 0.0);
  // Squares beyond the double range, both ways, and the overflow threshold.
  check({dmax, dmax}, "DBL_MAX twice");
  check({0x1.fffffffffffffp+1023, 0x1p+970}, "just below the overflow midpoint");
  check({0x1p-1074, 0x1p-1074, 0x1p-1074, 0x1p-1074}, "four 2^-1074 (exactly 2^-1073)", 0x1p-1073);
  for (int trial = 0; trial < 40; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(r() % 300);
    std::vector<double> x(n);
    const int lo = trial % 4 == 0 ? 600 : trial % 4 == 1 ? -1074 : trial % 4 == 2 ? -700 : -30;
    const int hi = trial % 4 == 0 ? 1023 : trial % 4 == 1 ? -1000 : trial % 4 == 2 ? 700 : 30;
    for (auto& v : x) v = random_exp(r, lo, hi);
    check(x, "random n=" + std::to_string(n) + " exponents [" + std::to_string(lo) + "," + std::to_string(hi) + "]");
  }
  {
    std::vector<double> x(5000);
    for (auto& v : x) v = uniform(r);
    check(x, "uniform n=5000");
  }
  // Special values: NaN in gives NaN; otherwise an infinity gives +inf.
  BOOST_TEST(std::isnan(exala::nrm2(std::vector<double>{1.0, qnan, inf})));
  BOOST_TEST(same_bits(exala::nrm2(std::vector<double>{1.0, -inf}), inf));
  BOOST_CHECK_THROW(exala::nrm2(-1, nullptr, 1), exala::invalid_argument);
}
