// tests/bindings/c/test_c_api_cpp.cpp - every routine of the C API (exala.h,
// libexala.so) against the C++ function of the same name, bit for bit.
//
// The oracle is the C++ library on the reference backend, linked statically
// into this program (the copy inside libexala.so is hidden, so the two never
// share state): for random data of several sizes (0, 1, odd, > 1000), both
// layouts, every transpose / uplo / diag / side, strides including negative
// ones and every rounding direction, the C routine must give the same bits on
// every backend compiled into the library (reference, simd, omp with 1..3
// threads, and opencl when a device is present). The reference results are
// themselves checked against MPFR and exact tables in the C++ suites; here
// the point is that the C layer passes every argument through unchanged and
// adds nothing of its own.
//
// The `environment` case checks the process-wide default under
// EXALA_BACKEND / EXALA_NUM_THREADS; it is disabled by default and run by the
// test_c_api_env_* ctest entries, which set the variables (the default is
// read once per process).
#define BOOST_TEST_MODULE exala_c_api
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "exala.h"
#include "exala/arith.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"
#include "exala/exact_ops.hpp"
#include "exala/solvers.hpp"
#include "exala/stripe_lu.hpp"
#include "test_common.hpp"

using exala_test::hex;
using exala_test::random_exp;
using exala_test::rng_t;
using exala_test::same_bits;
using i64 = std::int64_t;

namespace {

// Field by field (the struct has padding bytes, which a byte compare would read).
bool same_exec(const exala_exec& a, const exala_exec& b) {
  return a.backend == b.backend && a.threads == b.threads && a.rounding == b.rounding &&
         a.block == b.block;
}

// ------------------------------------------------------------ configurations

struct c_config {
  int backend;
  int threads;
  std::string name;
};

bool opencl_device_present() {
  if (!exala_backend_compiled_in(EXALA_BACKEND_OPENCL)) return false;
  static const bool present = [] {
    int count = 0;
    const bool ok = exala_opencl_device_count(&count) == EXALA_SUCCESS && count > 0;
    if (!ok)
      BOOST_WARN_MESSAGE(false, "SKIPPED: opencl is compiled into libexala but no device is "
                                "present: its configurations are not run");
    return ok;
  }();
  return present;
}

// Every backend compiled into libexala (opencl only with a device).
const std::vector<c_config>& configs() {
  static const std::vector<c_config> c = [] {
    std::vector<c_config> v = {{EXALA_BACKEND_REFERENCE, 0, "reference"},
                               {EXALA_BACKEND_SIMD, 0, "simd"}};
    if (exala_backend_compiled_in(EXALA_BACKEND_OMP))
      for (int t = 1; t <= 3; ++t) v.push_back({EXALA_BACKEND_OMP, t, "omp" + std::to_string(t)});
    if (opencl_device_present()) v.push_back({EXALA_BACKEND_OPENCL, 0, "opencl"});
    std::string list;
    for (const c_config& c : v) list += " " + c.name;
    BOOST_TEST_MESSAGE("libexala configurations:" << list);
    return v;
  }();
  return c;
}

exala_exec c_exec(const c_config& c, int rounding = EXALA_ROUND_NEAREST_EVEN, i64 block = 0) {
  exala_exec e;
  BOOST_REQUIRE(exala_exec_init(&e) == EXALA_SUCCESS);
  e.backend = c.backend;
  e.threads = c.threads;
  e.rounding = rounding;
  e.block = block;
  return e;
}

const exala::rounding cpp_modes[4] = {exala::rounding::to_nearest_even,
                                      exala::rounding::toward_zero, exala::rounding::upward,
                                      exala::rounding::downward};

// The oracle's exec: reference backend, the same rounding direction.
exala::exec reference(int rounding = EXALA_ROUND_NEAREST_EVEN) {
  exala::exec e;
  e.backend = exala::backend::reference;
  e.mode = cpp_modes[rounding];
  return e;
}

// -------------------------------------------------------------- comparisons

// A C call that must succeed; its message otherwise.
#define C_OK(call)                                                                      \
  do {                                                                                  \
    const exala_status st_ = (call);                                                    \
    BOOST_REQUIRE_MESSAGE(st_ == EXALA_SUCCESS, #call << " -> " << exala_status_string(st_) \
                                                      << ": " << exala_last_error());   \
  } while (0)

bool same_vectors(const std::vector<double>& got, const std::vector<double>& want,
                  const std::string& what) {
  if (got.size() != want.size()) {
    BOOST_ERROR(what << ": sizes " << got.size() << " vs " << want.size());
    return false;
  }
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_bits(got[i], want[i])) {
      BOOST_ERROR(what << ": element " << i << " is " << hex(got[i]) << ", the C++ reference "
                       << hex(want[i]));
      return false;
    }
  return true;
}

void same_value(double got, double want, const std::string& what) {
  BOOST_CHECK_MESSAGE(same_bits(got, want),
                      what << ": " << hex(got) << ", the C++ reference " << hex(want));
}

// ------------------------------------------------------------------- data

// A strided vector of n logical elements (at least one stored element).
std::vector<double> random_vector(rng_t& r, i64 n, i64 inc, int lo = -30, int hi = 30) {
  const i64 len = n == 0 ? 1 : 1 + (n - 1) * std::abs(inc == 0 ? 1 : inc);
  std::vector<double> v(static_cast<std::size_t>(len));
  for (double& x : v) x = random_exp(r, lo, hi);
  return v;
}

std::vector<double> random_matrix(rng_t& r, i64 rows, i64 cols, i64 ld, exala::layout lay) {
  const i64 outer = lay == exala::layout::row_major ? rows : cols;
  std::vector<double> a(static_cast<std::size_t>(std::max<i64>(1, outer * ld)));
  for (double& x : a) x = random_exp(r, -20, 20);
  return a;
}

// A well-conditioned triangular matrix (n x n, ld n): diagonal in [1, 2),
// off-diagonal entries small, so the solves stay finite for large n.
std::vector<double> triangular(rng_t& r, i64 n) {
  std::vector<double> a(static_cast<std::size_t>(std::max<i64>(1, n * n)));
  for (double& x : a) x = exala_test::uniform(r) / static_cast<double>(n + 1);
  for (i64 i = 0; i < n; ++i) a[static_cast<std::size_t>(i * n + i)] = 1.5 + exala_test::uniform(r) / 2;
  return a;
}

int c_layout(exala::layout l) { return l == exala::layout::row_major ? EXALA_ROW_MAJOR : EXALA_COL_MAJOR; }
int c_trans(exala::transpose t) { return t == exala::transpose::none ? EXALA_NO_TRANS : EXALA_TRANS; }
int c_uplo(exala::uplo u) { return u == exala::uplo::upper ? EXALA_UPPER : EXALA_LOWER; }
int c_diag(exala::diag d) { return d == exala::diag::non_unit ? EXALA_NON_UNIT : EXALA_UNIT; }
int c_side(exala::side s) { return s == exala::side::left ? EXALA_LEFT : EXALA_RIGHT; }

const exala::layout layouts[] = {exala::layout::row_major, exala::layout::col_major};
const exala::transpose transposes[] = {exala::transpose::none, exala::transpose::trans};
const exala::uplo uplos[] = {exala::uplo::upper, exala::uplo::lower};
const exala::diag diags[] = {exala::diag::non_unit, exala::diag::unit};
const exala::side sides[] = {exala::side::left, exala::side::right};

std::vector<std::byte> serialized(const exala_superacc* acc) {
  std::vector<std::byte> b(exala_superacc_serialized_size());
  BOOST_REQUIRE(exala_superacc_serialize(acc, b.data(), b.size()) == EXALA_SUCCESS);
  return b;
}
std::vector<std::byte> serialized(const exala::superaccumulator& acc) { return acc.serialize(); }

// A scratch directory removed at the end of the scope.
struct scratch {
  std::filesystem::path path;
  scratch() {
    char t[] = "/tmp/exala_c_api_cpp_XXXXXX";
    BOOST_REQUIRE(mkdtemp(t) != nullptr);
    path = t;
  }
  ~scratch() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string sub(const std::string& name) const { return (path / name).string(); }
};

}  // namespace

// ===================================================================== blas1

BOOST_AUTO_TEST_CASE(blas1_reductions) {
  rng_t r(1);
  const i64 sizes[] = {0, 1, 2, 7, 33, 1001, 4099};
  const i64 incs[][2] = {{1, 1}, {3, -2}, {-1, 2}, {0, 1}};
  for (const i64 n : sizes)
    for (const auto& inc : incs) {
      const i64 incx = inc[0], incy = inc[1];
      // wide exponents (cancellation, subnormal products) for the larger sizes
      const std::vector<double> x = random_vector(r, n, incx, n > 100 ? -600 : -30, n > 100 ? 500 : 30);
      const std::vector<double> y = random_vector(r, n, incy, -400, 400);
      for (int mode = 0; mode < 4; ++mode) {
        const exala::exec ref = reference(mode);
        const double want_sum = exala::sum(n, x.data(), incx, ref);
        const double want_asum = exala::asum(n, x.data(), incx, ref);
        const double want_dot = exala::dot(n, x.data(), incx, y.data(), incy, ref);
        const double want_nrm2 = exala::nrm2(n, x.data(), incx, ref);
        for (const c_config& c : configs()) {
          const exala_exec e = c_exec(c, mode);
          std::ostringstream what;
          what << c.name << " n=" << n << " incx=" << incx << " incy=" << incy << " mode=" << mode;
          double got = -1;
          C_OK(exala_sum(n, x.data(), incx, &e, &got));
          same_value(got, want_sum, "sum " + what.str());
          C_OK(exala_asum(n, x.data(), incx, &e, &got));
          same_value(got, want_asum, "asum " + what.str());
          C_OK(exala_dot(n, x.data(), incx, y.data(), incy, &e, &got));
          same_value(got, want_dot, "dot " + what.str());
          C_OK(exala_nrm2(n, x.data(), incx, &e, &got));
          same_value(got, want_nrm2, "nrm2 " + what.str());
        }
      }
      // the exact forms: the same accumulated value and flags, byte for byte
      exala::superaccumulator want;
      exala::sum_into(want, n, x.data(), incx, reference());
      exala::asum_into(want, n, y.data(), incy, reference());
      exala::dot_into(want, n, x.data(), incx, y.data(), incy, reference());
      for (const c_config& c : configs()) {
        const exala_exec e = c_exec(c);
        exala_superacc* acc = nullptr;
        C_OK(exala_superacc_create(&acc));
        C_OK(exala_sum_into(acc, n, x.data(), incx, &e));
        C_OK(exala_asum_into(acc, n, y.data(), incy, &e));
        C_OK(exala_dot_into(acc, n, x.data(), incx, y.data(), incy, &e));
        BOOST_CHECK_MESSAGE(serialized(acc) == serialized(want),
                            "*_into " << c.name << " n=" << n << " incx=" << incx);
        exala_superacc_destroy(acc);
      }
    }
}

BOOST_AUTO_TEST_CASE(blas1_elementwise) {
  rng_t r(2);
  const i64 sizes[] = {0, 1, 5, 1001};
  const i64 incs[][2] = {{1, 1}, {2, -3}, {-1, 1}, {0, 2}};
  for (const i64 n : sizes)
    for (const auto& inc : incs) {
      const i64 incx = inc[0], incy = inc[1];
      const std::vector<double> x0 = random_vector(r, n, incx);
      const std::vector<double> y0 = random_vector(r, n, incy);
      const double alpha = random_exp(r, -10, 10);
      // the C++ results on copies
      std::vector<double> ax = x0, ay = y0;
      exala::axpy(n, alpha, ax.data(), incx, ay.data(), incy, reference());
      std::vector<double> cx = x0, cy = y0;
      exala::copy(n, cx.data(), incx, cy.data(), incy, reference());
      std::vector<double> sx = x0, sy = y0;
      if (incx != 0 || n <= 1) exala::swap(n, sx.data(), incx, sy.data(), incy, reference());
      std::vector<double> kx = x0;
      if (incx != 0 || n <= 1) exala::scal(n, alpha, kx.data(), incx, reference());
      const i64 want_index = exala::iamax(n, x0.data(), incx, reference());
      for (const c_config& c : configs()) {
        const exala_exec e = c_exec(c);
        const std::string what = c.name + " n=" + std::to_string(n) + " incx=" + std::to_string(incx) +
                                 " incy=" + std::to_string(incy);
        std::vector<double> x = x0, y = y0;
        C_OK(exala_axpy(n, alpha, x.data(), incx, y.data(), incy, &e));
        same_vectors(y, ay, "axpy " + what);
        x = x0, y = y0;
        C_OK(exala_copy(n, x.data(), incx, y.data(), incy, &e));
        same_vectors(y, cy, "copy " + what);
        i64 index = -7;
        C_OK(exala_iamax(n, x0.data(), incx, &e, &index));
        BOOST_CHECK_MESSAGE(index == want_index, "iamax " << what << ": " << index << " vs " << want_index);
        if (incx != 0 || n <= 1) {
          x = x0, y = y0;
          C_OK(exala_swap(n, x.data(), incx, y.data(), incy, &e));
          same_vectors(x, sx, "swap x " + what);
          same_vectors(y, sy, "swap y " + what);
          x = x0;
          C_OK(exala_scal(n, alpha, x.data(), incx, &e));
          same_vectors(x, kx, "scal " + what);
        } else {
          // a written vector with increment 0: refused, nothing written
          x = x0;
          BOOST_CHECK(exala_scal(n, alpha, x.data(), incx, &e) == EXALA_ERROR_INVALID_ARGUMENT);
          BOOST_CHECK(std::string(exala_last_error()).find("'incx'") != std::string::npos);
          same_vectors(x, x0, "scal refused " + what);
        }
      }
    }
}

// ===================================================================== blas2

BOOST_AUTO_TEST_CASE(gemv_every_layout_and_transpose) {
  rng_t r(3);
  const i64 shapes[][2] = {{0, 3}, {3, 0}, {1, 1}, {5, 7}, {1100, 3}, {3, 1100}};
  const i64 incs[][2] = {{1, 1}, {-2, 3}};
  for (const exala::layout lay : layouts)
    for (const exala::transpose tr : transposes)
      for (const auto& shape : shapes)
        for (const auto& inc : incs) {
          const i64 m = shape[0], n = shape[1], incx = inc[0], incy = inc[1];
          const i64 lda = (lay == exala::layout::row_major ? std::max<i64>(1, n) : std::max<i64>(1, m)) + 2;
          const std::vector<double> a = random_matrix(r, m, n, lda, lay);
          const i64 lenx = tr == exala::transpose::none ? n : m;
          const i64 leny = tr == exala::transpose::none ? m : n;
          const std::vector<double> x = random_vector(r, lenx, incx);
          const std::vector<double> y0 = random_vector(r, leny, incy);
          const double alpha = random_exp(r, -5, 5), beta = random_exp(r, -5, 5);
          for (int mode = 0; mode < 4; ++mode) {
            std::vector<double> want = y0;
            exala::gemv(lay, tr, m, n, alpha, a.data(), lda, x.data(), incx, beta, want.data(), incy,
                        reference(mode));
            for (const c_config& c : configs()) {
              const exala_exec e = c_exec(c, mode, mode == 1 ? 3 : 0);
              std::vector<double> y = y0;
              C_OK(exala_gemv(static_cast<exala_layout>(c_layout(lay)),
                              static_cast<exala_transpose>(c_trans(tr)), m, n, alpha, a.data(), lda,
                              x.data(), incx, beta, y.data(), incy, &e));
              std::ostringstream what;
              what << "gemv " << c.name << " lay=" << c_layout(lay) << " trans=" << c_trans(tr)
                   << " m=" << m << " n=" << n << " incx=" << incx << " incy=" << incy
                   << " mode=" << mode;
              same_vectors(y, want, what.str());
            }
          }
        }
}

// trsv of a random well-conditioned triangle with right-hand side on stride
// inc, in rounding direction `mode`, on every configuration against C++.
void check_trsv(rng_t& r, i64 n, exala::layout lay, exala::uplo ul, exala::transpose tr,
                exala::diag dg, i64 inc, int mode) {
  const std::vector<double> a = triangular(r, n);
  const std::vector<double> b = random_vector(r, n, inc, -3, 3);
  std::vector<double> want = b;
  exala::trsv(lay, ul, tr, dg, n, a.data(), std::max<i64>(1, n), want.data(), inc, reference(mode));
  for (const c_config& c : configs()) {
    const exala_exec e = c_exec(c, mode, c.threads == 2 ? 5 : 0);
    std::vector<double> x = b;
    C_OK(exala_trsv(static_cast<exala_layout>(c_layout(lay)), static_cast<exala_uplo>(c_uplo(ul)),
                    static_cast<exala_transpose>(c_trans(tr)), static_cast<exala_diag>(c_diag(dg)), n,
                    a.data(), std::max<i64>(1, n), x.data(), inc, &e));
    std::ostringstream what;
    what << "trsv " << c.name << " n=" << n << " lay=" << c_layout(lay) << " uplo=" << c_uplo(ul)
         << " trans=" << c_trans(tr) << " diag=" << c_diag(dg) << " inc=" << inc << " mode=" << mode;
    same_vectors(x, want, what.str());
  }
}

BOOST_AUTO_TEST_CASE(trsv_every_triangle) {
  rng_t r(4);
  const i64 sizes[] = {0, 1, 7, 1001};
  const i64 incs[] = {1, -2};
  for (const i64 n : sizes)
    for (const exala::layout lay : layouts)
      for (const exala::uplo ul : uplos)
        for (const exala::transpose tr : transposes)
          for (const exala::diag dg : diags)
            for (const i64 inc : incs) {
              if (n > 100 && inc != 1 && dg == exala::diag::unit) continue;  // keep it fast
              check_trsv(r, n, lay, ul, tr, dg, inc, static_cast<int>(r() % 4));
            }
}

// ===================================================================== blas3

// C = alpha op(A) op(B) + beta C for random operands stored in `lay` with
// padded leading dimensions (pad), on every configuration against C++.
void check_gemm(rng_t& r, exala::layout lay, exala::transpose ta, exala::transpose tb, i64 m, i64 n,
                i64 k, i64 pad) {
  const bool row = lay == exala::layout::row_major;
  // stored dimensions of A (m x k or k x m) and B (k x n or n x k)
  const i64 ar = ta == exala::transpose::none ? m : k, ac = ta == exala::transpose::none ? k : m;
  const i64 br = tb == exala::transpose::none ? k : n, bc = tb == exala::transpose::none ? n : k;
  const i64 lda = std::max<i64>(1, row ? ac : ar) + pad;
  const i64 ldb = std::max<i64>(1, row ? bc : br) + 2 * pad;
  const i64 ldc = std::max<i64>(1, row ? n : m) + pad;
  const std::vector<double> a = random_matrix(r, ar, ac, lda, lay);
  const std::vector<double> b = random_matrix(r, br, bc, ldb, lay);
  const std::vector<double> c0 = random_matrix(r, m, n, ldc, lay);
  const double alpha = random_exp(r, -3, 3), beta = (r() % 3 == 0) ? 0.0 : random_exp(r, -3, 3);
  const int mode = static_cast<int>(r() % 4);
  std::vector<double> want = c0;
  exala::gemm(lay, ta, tb, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, want.data(), ldc,
              reference(mode));
  for (const c_config& cf : configs()) {
    const exala_exec e = c_exec(cf, mode, cf.threads == 3 ? 16 : 0);
    std::vector<double> c = c0;
    C_OK(exala_gemm(static_cast<exala_layout>(c_layout(lay)), static_cast<exala_transpose>(c_trans(ta)),
                    static_cast<exala_transpose>(c_trans(tb)), m, n, k, alpha, a.data(), lda, b.data(),
                    ldb, beta, c.data(), ldc, &e));
    std::ostringstream what;
    what << "gemm " << cf.name << " lay=" << c_layout(lay) << " ta=" << c_trans(ta)
         << " tb=" << c_trans(tb) << " m=" << m << " n=" << n << " k=" << k << " mode=" << mode;
    same_vectors(c, want, what.str());
  }
}

BOOST_AUTO_TEST_CASE(gemm_every_layout_and_transpose) {
  rng_t r(5);
  const i64 shapes[][3] = {{0, 2, 3}, {2, 3, 0}, {1, 1, 1}, {5, 7, 3}, {1001, 2, 3}, {2, 3, 1001}, {3, 1001, 2}};
  for (const exala::layout lay : layouts)
    for (const exala::transpose ta : transposes)
      for (const exala::transpose tb : transposes)
        for (const auto& s : shapes) check_gemm(r, lay, ta, tb, s[0], s[1], s[2], 1 + s[0] % 2);
}

BOOST_AUTO_TEST_CASE(trsm_every_side_and_triangle) {
  rng_t r(6);
  const i64 shapes[][2] = {{0, 3}, {1, 1}, {5, 4}, {4, 5}, {1001, 2}, {2, 1001}};
  for (const auto& s : shapes)
    for (const exala::layout lay : layouts)
      for (const exala::side sd : sides)
        for (const exala::uplo ul : uplos)
          for (const exala::transpose tr : transposes)
            for (const exala::diag dg : diags) {
              const i64 m = s[0], n = s[1];
              const i64 order = sd == exala::side::left ? m : n;
              // the big shapes: only where A is small, or one triangle
              if (order > 100 && (ul == exala::uplo::upper || dg == exala::diag::unit)) continue;
              const std::vector<double> a = triangular(r, order);
              const i64 ldb = std::max<i64>(1, lay == exala::layout::row_major ? n : m) + 1;
              std::vector<double> b0 = random_matrix(r, m, n, ldb, lay);
              const double alpha = (r() % 4 == 0) ? 1.0 : random_exp(r, -3, 3);
              const int mode = static_cast<int>(r() % 4);
              std::vector<double> want = b0;
              exala::trsm(lay, sd, ul, tr, dg, m, n, alpha, a.data(), std::max<i64>(1, order),
                          want.data(), ldb, reference(mode));
              for (const c_config& c : configs()) {
                const exala_exec e = c_exec(c, mode, c.threads == 1 ? 2 : 0);
                std::vector<double> b = b0;
                C_OK(exala_trsm(static_cast<exala_layout>(c_layout(lay)),
                                static_cast<exala_side>(c_side(sd)), static_cast<exala_uplo>(c_uplo(ul)),
                                static_cast<exala_transpose>(c_trans(tr)),
                                static_cast<exala_diag>(c_diag(dg)), m, n, alpha, a.data(),
                                std::max<i64>(1, order), b.data(), ldb, &e));
                std::ostringstream what;
                what << "trsm " << c.name << " m=" << m << " n=" << n << " lay=" << c_layout(lay)
                     << " side=" << c_side(sd) << " uplo=" << c_uplo(ul) << " trans=" << c_trans(tr)
                     << " diag=" << c_diag(dg) << " mode=" << mode;
                same_vectors(b, want, what.str());
              }
            }
}

// =================================================================== solvers

BOOST_AUTO_TEST_CASE(triangular_solvers) {
  rng_t r(7);
  for (const i64 n : {i64{1}, i64{9}, i64{60}})
    for (const exala::layout lay : layouts)
      for (const exala::uplo ul : uplos)
        for (const exala::transpose tr : transposes) {
          const exala::diag dg = (n % 2 == 0) ? exala::diag::unit : exala::diag::non_unit;
          const i64 inc = ul == exala::uplo::upper ? -2 : 1;
          const std::vector<double> a = triangular(r, n);
          const std::vector<double> b = random_vector(r, n, inc, -3, 3);
          const auto cl = static_cast<exala_layout>(c_layout(lay));
          const auto cu = static_cast<exala_uplo>(c_uplo(ul));
          const auto ct = static_cast<exala_transpose>(c_trans(tr));
          const auto cd = static_cast<exala_diag>(c_diag(dg));
          const std::string what = "n=" + std::to_string(n) + " lay=" + std::to_string(cl) +
                                   " uplo=" + std::to_string(cu) + " trans=" + std::to_string(ct);

          std::vector<double> want = b, x = b;
          exala::trsv_compensated(lay, ul, tr, dg, n, a.data(), n, want.data(), inc);
          C_OK(exala_trsv_compensated(cl, cu, ct, cd, n, a.data(), n, x.data(), inc));
          same_vectors(x, want, "trsv_compensated " + what);

          want = b, x = b;
          exala::trsv_double_double(lay, ul, tr, dg, n, a.data(), n, want.data(), inc);
          C_OK(exala_trsv_double_double(cl, cu, ct, cd, n, a.data(), n, x.data(), inc));
          same_vectors(x, want, "trsv_double_double " + what);

          want = b;
          const exala::refinement_report rep =
              exala::trsv_exact_refined(lay, ul, tr, dg, n, a.data(), n, want.data(), inc, 5, reference());
          for (const c_config& c : configs()) {
            const exala_exec e = c_exec(c);
            x = b;
            int steps = -1, converged = -1;
            C_OK(exala_trsv_exact_refined(cl, cu, ct, cd, n, a.data(), n, x.data(), inc, 5, &e, &steps,
                                          &converged));
            same_vectors(x, want, "trsv_exact_refined " + c.name + " " + what);
            BOOST_CHECK(steps == rep.steps);
            BOOST_CHECK(converged == (rep.converged ? 1 : 0));
          }

          double cond = 0;
          C_OK(exala_skeel_condition(cl, cu, ct, cd, n, a.data(), n, want.data(), inc, &cond));
          same_value(cond, exala::skeel_condition(lay, ul, tr, dg, n, a.data(), n, want.data(), inc),
                     "skeel_condition " + what);

          std::vector<double> truth(static_cast<std::size_t>(n), -1.0);
          const exala_status st =
              exala_trsv_mpfr_solution(cl, cu, ct, cd, n, a.data(), n, b.data(), inc, 0, truth.data());
          try {
            const std::vector<double> w =
                exala::trsv_mpfr_solution(lay, ul, tr, dg, n, a.data(), n, b.data(), inc, 0);
            BOOST_REQUIRE(st == EXALA_SUCCESS);
            same_vectors(truth, w, "trsv_mpfr_solution " + what);
          } catch (const exala::not_compiled_in&) {
            BOOST_CHECK(st == EXALA_ERROR_NOT_COMPILED_IN);
            BOOST_CHECK(std::all_of(truth.begin(), truth.end(), [](double v) { return v == -1.0; }));
          }
        }

  // the generator: the same exact data as the C++ function
  for (const double cond : {1.0, 1e10, 1e40}) {
    const i64 n = 24;
    std::vector<double> t(n * n), b(n);
    C_OK(exala_generate_ill_conditioned_trsv(n, cond, 5, t.data(), b.data()));
    const exala::trsv_problem p = exala::generate_ill_conditioned_trsv(n, cond, 5);
    same_vectors(t, p.t, "generate t");
    same_vectors(b, p.b, "generate b");
  }
}

// ============================================== arith and superaccumulator

BOOST_AUTO_TEST_CASE(eft_and_superaccumulator) {
  rng_t r(8);
  for (int i = 0; i < 2000; ++i) {
    const double a = random_exp(r, -400, 400), b = random_exp(r, -400, 400);
    const std::vector<std::pair<std::function<exala_status(double*, double*)>, exala::eft_pair>> cases = {
        {[&](double* h, double* l) { return exala_two_sum(a, b, h, l); }, exala::two_sum(a, b)},
        {[&](double* h, double* l) { return exala_fast_two_sum(a, b, h, l); }, exala::fast_two_sum(a, b)},
        {[&](double* h, double* l) { return exala_two_prod(a, b, h, l); }, exala::two_prod(a, b)},
        {[&](double* h, double* l) { return exala_split(a, h, l); }, exala::split(a)},
        {[&](double* h, double* l) { return exala_two_product_dekker(a, b, h, l); },
         exala::two_product_dekker(a, b)},
        {[&](double* h, double* l) { return exala_approx_two_div(a, b, h, l); },
         exala::approx_two_div(a, b)}};
    for (std::size_t k = 0; k < cases.size(); ++k) {
      double h = 0, l = 0;
      C_OK(cases[k].first(&h, &l));
      BOOST_CHECK_MESSAGE(same_bits(h, cases[k].second.hi) && same_bits(l, cases[k].second.lo),
                          "eft " << k << " a=" << hex(a) << " b=" << hex(b));
    }
  }

  // an accumulator built through the C handle and through C++: same bytes
  // after every operation, same roundings in every direction
  exala_superacc *acc = nullptr, *other = nullptr;
  C_OK(exala_superacc_create(&acc));
  C_OK(exala_superacc_create(&other));
  exala::superaccumulator want, want_other;
  for (int step = 0; step < 300; ++step) {
    const double a = random_exp(r, -1074, 1000), b = random_exp(r, -1000, 1000);
    switch (step % 5) {
      case 0: C_OK(exala_superacc_add(acc, a)); want.add(a); break;
      case 1: C_OK(exala_superacc_add_product(acc, a, b)); want.add_product(a, b); break;
      case 2:
        C_OK(exala_superacc_add(other, b));
        want_other.add(b);
        C_OK(exala_superacc_merge(acc, other));
        want.merge(want_other);
        break;
      case 3: C_OK(exala_superacc_negate(acc)); want.negate(); break;
      case 4: C_OK(exala_superacc_add_product(other, a, a)); want_other.add_product(a, a); break;
    }
    BOOST_REQUIRE(serialized(acc) == serialized(want));
    int sign = 5;
    C_OK(exala_superacc_sign(acc, &sign));
    BOOST_CHECK(sign == want.sign());
    const double alpha = random_exp(r, -50, 50), beta = random_exp(r, -50, 50), c = random_exp(r, -900, 900);
    const double d = random_exp(r, -900, 900);
    for (int mode = 0; mode < 4; ++mode) {
      const exala_rounding cm = static_cast<exala_rounding>(mode);
      double got = 0;
      C_OK(exala_superacc_round(acc, cm, &got));
      same_value(got, want.round(cpp_modes[mode]), "round");
      C_OK(exala_superacc_round_sqrt(acc, cm, &got));
      same_value(got, want.round_sqrt(cpp_modes[mode]), "round_sqrt");
      C_OK(exala_round_axpby(alpha, acc, beta, c, cm, &got));
      same_value(got, exala::round_axpby(alpha, want, beta, c, cpp_modes[mode]), "round_axpby");
      C_OK(exala_round_div(acc, d, cm, &got));
      same_value(got, exala::round_div(want, d, cpp_modes[mode]), "round_div");
    }
  }
  // special values live in the flags: +inf and -inf give NaN, as in C++
  C_OK(exala_superacc_add(acc, exala_test::inf));
  C_OK(exala_superacc_add(acc, -exala_test::inf));
  want.add(exala_test::inf);
  want.add(-exala_test::inf);
  BOOST_CHECK(serialized(acc) == serialized(want));
  // deserialize what C++ serialized, and copy / equal / clear
  const std::vector<std::byte> bytes = want.serialize();
  exala_superacc* back = nullptr;
  C_OK(exala_superacc_deserialize(bytes.data(), bytes.size(), &back));
  int equal = 0;
  C_OK(exala_superacc_equal(acc, back, &equal));
  BOOST_CHECK(equal == 1);
  C_OK(exala_superacc_copy(back, other));
  C_OK(exala_superacc_equal(other, back, &equal));
  BOOST_CHECK(equal == 1);
  C_OK(exala_superacc_clear(other));
  BOOST_CHECK(serialized(other) == serialized(exala::superaccumulator{}));
  exala_superacc_destroy(acc);
  exala_superacc_destroy(other);
  exala_superacc_destroy(back);
}

// ================================================================ stripe LU

BOOST_AUTO_TEST_CASE(stripe_lu_in_core_matches_cpp) {
  rng_t r(9);
  const i64 n = 97, nrhs = 3, lda = n + 2;
  std::vector<double> a(lda * n), b(n * nrhs);
  for (double& v : a) v = exala_test::uniform(r) / 2;
  for (double& v : b) v = exala_test::uniform(r);
  for (const int pivot : {EXALA_PIVOT_LOCAL, EXALA_PIVOT_PARTIAL}) {
    exala_stripe_lu_options opt;
    C_OK(exala_stripe_lu_options_init(&opt));
    opt.stripe = 32;
    opt.substripe = 8;
    opt.pivot = pivot;
    opt.threads = 1;
    exala::stripe_lu_options o;
    o.stripe = 32;
    o.substripe = 8;
    o.pivot = pivot == EXALA_PIVOT_LOCAL ? exala::pivoting::local : exala::pivoting::partial;
    o.threads = 2;  // the bits do not depend on the thread count
    const exala::stripe_lu want(n, a.data(), lda, o);
    exala_stripe_lu* lu = nullptr;
    C_OK(exala_stripe_lu_factor(n, a.data(), lda, &opt, &lu));

    std::vector<double> x = b, wx = b;
    C_OK(exala_stripe_lu_solve(lu, nrhs, x.data(), n));
    want.solve(nrhs, wx.data(), n);
    same_vectors(x, wx, "stripe_lu_solve pivot=" + std::to_string(pivot));

    exala_refine_report rep;
    C_OK(exala_stripe_lu_solve_refined(lu, nrhs, b.data(), n, x.data(), n, 10, &rep));
    const exala::refine_report wrep = want.solve_refined(nrhs, b.data(), n, wx.data(), n, 10);
    same_vectors(x, wx, "stripe_lu_solve_refined pivot=" + std::to_string(pivot));
    BOOST_CHECK(rep.steps == wrep.steps && rep.converged == (wrep.converged ? 1 : 0));
    same_value(rep.backward_error_after, wrep.backward_error_after, "backward_error_after");
    double be = -1;
    C_OK(exala_stripe_lu_backward_error(lu, nrhs, b.data(), n, x.data(), n, &be));
    same_value(be, want.backward_error(nrhs, b.data(), n, wx.data(), n), "backward_error");
    exala_stripe_lu_report cr;
    C_OK(exala_stripe_lu_get_report(lu, &cr));
    BOOST_CHECK(cr.n == n && cr.in_core == 1 && cr.stripe == want.report().stripe &&
                cr.substripe == want.report().substripe);
    same_value(cr.min_pivot_ratio, want.report().min_pivot_ratio, "min_pivot_ratio");
    exala_stripe_lu_destroy(lu);
  }
}

// Issue 15, row 10: the C++ entry points of the stripe LU check the extent
// of A, B and X themselves (the C wrapper checks first, so the C tests do
// not reach these): n = lda = 2^32 gave n * n = 2^64 entries, which wrapped
// to an empty copy of A, then a read far outside a.
BOOST_AUTO_TEST_CASE(stripe_lu_cpp_address_overflow) {
  const double a[4] = {2.0, 1.0, 0.0, 4.0};
  const std::int64_t p32 = std::int64_t{1} << 32, p62 = std::int64_t{1} << 62;
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      return e.argument() == arg && std::string(e.what()).find("2^60") != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(exala::stripe_lu(p32, a, p32), exala::invalid_argument, names("a"));
  BOOST_CHECK_EXCEPTION(exala::stripe_lu(2, a, p62), exala::invalid_argument, names("lda"));
  const exala::stripe_lu lu(2, a, 2);
  double b[2] = {2.0, 5.0}, x[2] = {0.0, 0.0};
  BOOST_CHECK_EXCEPTION(lu.solve(2, b, p62), exala::invalid_argument, names("ldb"));
  BOOST_CHECK_EXCEPTION(lu.solve(p62, b, 2), exala::invalid_argument, names("b"));
  BOOST_CHECK_EXCEPTION(lu.solve_refined(2, b, 2, x, p62), exala::invalid_argument, names("ldx"));
  BOOST_CHECK_EXCEPTION(lu.backward_error(p62, b, 2, x, 2), exala::invalid_argument, names("b"));
  BOOST_TEST((b[0] == 2.0 && b[1] == 5.0 && x[0] == 0.0));
}

BOOST_AUTO_TEST_CASE(stripe_lu_out_of_core_matches_cpp) {
  const scratch s;
  const i64 n = 130, nrhs = 2, stripe = 24;
  const std::string c_dir = s.sub("c"), cpp_dir = s.sub("cpp");
  const char* dirs[] = {c_dir.c_str()};
  C_OK(exala_generate_dense_system(dirs, 1, n, nrhs, 77, stripe, 1e6, 0));
  exala::generate_dense_system({cpp_dir}, n, nrhs, 77, stripe, 1e6);
  {
    // the same stored system
    const exala::stripe_system_reader rc({c_dir}), rp({cpp_dir});
    std::vector<double> ac(n * n), ap(n * n), bc(n * nrhs), bp(n * nrhs);
    rc.read_rows(0, n, ac.data(), n);
    rp.read_rows(0, n, ap.data(), n);
    rc.read_rhs(bc.data(), n);
    rp.read_rhs(bp.data(), n);
    same_vectors(ac, ap, "generated A");
    same_vectors(bc, bp, "generated B");
  }
  exala_stripe_lu_options opt;
  C_OK(exala_stripe_lu_options_init(&opt));
  opt.stripe = stripe;
  opt.cache_bytes = 4 * stripe * n * sizeof(double);
  // counts the calls with a known phase (no Boost.Test macro in the callback)
  std::atomic<int> calls{0};
  opt.on_progress = [](const exala_stripe_lu_progress* p, void* user) {
    const std::string phase = p->phase != nullptr ? p->phase : "";
    if (phase == "factor" || phase == "solve" || phase == "refine")
      static_cast<std::atomic<int>*>(user)->fetch_add(1);
  };
  opt.user = &calls;
  opt.progress_interval_s = 0;
  exala_stripe_lu* lu = nullptr;
  C_OK(exala_stripe_lu_open(dirs, 1, &opt, &lu));
  std::vector<double> x(n * nrhs);
  i64 got_nrhs = 0;
  exala_refine_report rep;
  C_OK(exala_stripe_lu_solve_stored(lu, x.data(), static_cast<i64>(x.size()), 4, &got_nrhs, &rep));
  BOOST_CHECK(got_nrhs == nrhs);
  BOOST_CHECK(calls.load() > 0);
  i64 got_n = 0;
  C_OK(exala_stripe_lu_n(lu, &got_n));
  BOOST_CHECK(got_n == n);
  exala_stripe_lu_destroy(lu);

  exala::stripe_lu_options o;
  o.stripe = stripe;
  const exala::stripe_lu want({cpp_dir}, o);  // in a cache that holds everything
  std::vector<double> wx;
  const exala::refine_report wrep = want.solve_stored(wx, 4);
  same_vectors(x, wx, "solve_stored");
  same_value(rep.backward_error_after, wrep.backward_error_after, "backward_error_after");
}

// ===================================================== long: bigger shapes

BOOST_AUTO_TEST_CASE(long_bigger_shapes, *boost::unit_test::label("long")) {
  rng_t r(11);
  for (const exala::layout lay : layouts)
    for (const exala::transpose ta : transposes) {
      for (const exala::transpose tb : transposes) check_gemm(r, lay, ta, tb, 257, 263, 300, 0);
      check_trsv(r, 3000, lay, exala::uplo::upper, ta, exala::diag::non_unit, -1, 0);
      check_trsv(r, 2001, lay, exala::uplo::lower, ta, exala::diag::unit, 3, 2);
    }
}

// ======================================================== errors, threads

BOOST_AUTO_TEST_CASE(last_error_is_per_thread) {
  std::atomic<bool> ok{true};
  auto failing = [&] {
    for (int i = 0; i < 200; ++i) {
      double r = 0;
      if (exala_sum(-5, nullptr, 1, nullptr, &r) != EXALA_ERROR_INVALID_ARGUMENT ||
          std::string(exala_last_error()).find("'n'") == std::string::npos)
        ok = false;
    }
  };
  auto succeeding = [&] {
    const double x[2] = {1.0, 2.0};
    for (int i = 0; i < 200; ++i) {
      double r = 0;
      if (exala_sum(2, x, 1, nullptr, &r) != EXALA_SUCCESS || r != 3.0 ||
          std::string(exala_last_error()) != "" || exala_last_error_index() != -1)
        ok = false;
    }
  };
  std::thread t1(failing), t2(succeeding);
  t1.join();
  t2.join();
  BOOST_CHECK(ok.load());
}

BOOST_AUTO_TEST_CASE(default_exec) {
  const bool env_set = std::getenv("EXALA_BACKEND") != nullptr || std::getenv("EXALA_NUM_THREADS") != nullptr;
  if (env_set) return;  // the environment case checks those runs
  exala_exec saved, e;
  C_OK(exala_get_default_exec(&saved));
  C_OK(exala_exec_init(&e));
  BOOST_CHECK(same_exec(saved, e));  // no environment: the initial values
  for (const c_config& c : configs()) {
    C_OK(exala_set_backend(static_cast<exala_backend>(c.backend)));
    C_OK(exala_set_threads(c.threads));
    exala_exec now;
    C_OK(exala_get_default_exec(&now));
    BOOST_CHECK(now.backend == c.backend && now.threads == c.threads);
    rng_t r(10);
    const std::vector<double> x = random_vector(r, 500, 1, -300, 300);
    double got = 0;
    C_OK(exala_dot(500, x.data(), 1, x.data(), 1, nullptr, &got));
    same_value(got, exala::dot(500, x.data(), 1, x.data(), 1, reference()), "default " + c.name);
  }
  e.rounding = EXALA_ROUND_DOWNWARD;
  e.block = 7;
  C_OK(exala_set_default_exec(&e));
  exala_exec now;
  C_OK(exala_get_default_exec(&now));
  BOOST_CHECK(same_exec(now, e));
  // an invalid default is refused and the old one stays
  exala_exec bad = e;
  bad.threads = 5000;
  BOOST_CHECK(exala_set_default_exec(&bad) == EXALA_ERROR_INVALID_ARGUMENT);
  BOOST_CHECK(std::string(exala_last_error()).find("'ex->threads'") != std::string::npos);
  C_OK(exala_get_default_exec(&now));
  BOOST_CHECK(same_exec(now, e));
  C_OK(exala_set_default_exec(&saved));
}

// Run by the test_c_api_env_* entries (EXALA_BACKEND / EXALA_NUM_THREADS set
// in a fresh process): a valid environment becomes the default; a bad value
// makes every call that needs the default fail naming the variable, while
// calls with an explicit exec work, until exala_set_default_exec replaces it.
BOOST_AUTO_TEST_CASE(environment, *boost::unit_test::disabled()) {
  const char* b = std::getenv("EXALA_BACKEND");
  const char* t = std::getenv("EXALA_NUM_THREADS");
  BOOST_REQUIRE_MESSAGE(b != nullptr || t != nullptr,
                        "run with EXALA_BACKEND or EXALA_NUM_THREADS set");
  // the expectation, from the documented syntax
  const std::vector<std::string> names = {"reference", "simd", "omp", "opencl"};
  int want_backend = EXALA_BACKEND_SIMD, want_threads = 0;
  std::string bad;
  exala_status want_status = EXALA_SUCCESS;
  if (b != nullptr && *b != '\0') {
    const auto it = std::find(names.begin(), names.end(), std::string(b));
    if (it == names.end()) {
      bad = "EXALA_BACKEND";
      want_status = EXALA_ERROR_INVALID_ARGUMENT;
    } else {
      want_backend = static_cast<int>(it - names.begin());
      if (!exala_backend_compiled_in(static_cast<exala_backend>(want_backend))) {
        bad = "EXALA_BACKEND";
        want_status = EXALA_ERROR_NOT_COMPILED_IN;
      }
    }
  }
  if (bad.empty() && t != nullptr && *t != '\0') {
    const std::string s(t);
    const bool digits = s.size() <= 4 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(s) > 1024) {
      bad = "EXALA_NUM_THREADS";
      want_status = EXALA_ERROR_INVALID_ARGUMENT;
    } else {
      want_threads = std::stoi(s);
    }
  }

  const double x[3] = {1e300, 1.0, -1e300};
  double r = -1;
  exala_exec e;
  for (int repeat = 0; repeat < 2; ++repeat) {  // the first call and the later ones
    const exala_status st = exala_sum(3, x, 1, nullptr, &r);
    BOOST_CHECK_MESSAGE(st == want_status, exala_status_string(st) << ": " << exala_last_error());
    if (!bad.empty()) {
      BOOST_CHECK_MESSAGE(std::string(exala_last_error()).find(bad) != std::string::npos,
                          exala_last_error());
      BOOST_CHECK(r == -1);
      BOOST_CHECK(exala_get_default_exec(&e) == want_status);
    }
  }
  if (bad.empty()) {
    BOOST_CHECK(r == 1.0);
    C_OK(exala_get_default_exec(&e));
    BOOST_CHECK(e.backend == want_backend && e.threads == want_threads);
    return;
  }
  // an explicit exec does not need the default
  C_OK(exala_exec_init(&e));
  C_OK(exala_sum(3, x, 1, &e, &r));
  BOOST_CHECK(r == 1.0);
  // replacing the default clears the failure
  C_OK(exala_set_default_exec(&e));
  r = -1;
  C_OK(exala_sum(3, x, 1, nullptr, &r));
  BOOST_CHECK(r == 1.0);
}
