// exala-bench-blas-abi: the drop-in library libexala_blas.so against the
// system BLAS (OpenBLAS) in the same process and the same run: what an
// unmodified program pays for reproducible BLAS calls.
//
// The system BLAS is linked as usual; libexala_blas.so is opened with
// dlopen(RTLD_LOCAL) and its Fortran symbols called through dlsym, so both
// implementations of ddot_, dgemm_ ... live side by side. Timing as in
// exala-bench (interleaved, rotated repetitions, medians; bench_common.cpp).
// Before timing, every result of the drop-in library is compared bit for bit
// with the exala C++ routine it stands for (same data).
//
// Usage: exala-bench-blas-abi LIB [--threads T] [--reps R] [--n-vec N] [--n-mat N] [--n-gemm N]
//   LIB: path of libexala_blas.so. T (default 2) is OpenBLAS's thread count
//   and, unless EXALA_BACKEND is set, the drop-in library runs EXALA_BACKEND=omp with
//   EXALA_NUM_THREADS=T.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "exala/blas1.hpp"
#include "exala/blas3.hpp"

extern "C" {
double ddot_(const int*, const double*, const int*, const double*, const int*);
double dasum_(const int*, const double*, const int*);
double dnrm2_(const int*, const double*, const int*);
void daxpy_(const int*, const double*, const double*, const int*, double*, const int*);
int idamax_(const int*, const double*, const int*);
void dgemv_(const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*, std::size_t);
void dtrsv_(const char*, const char*, const char*, const int*, const double*, const int*, double*,
            const int*, std::size_t, std::size_t, std::size_t);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
            const double*, const int*, const double*, const int*, const double*, double*,
            const int*, std::size_t, std::size_t);
}

using namespace exala_bench;

namespace {

template <class F>
F symbol(void* lib, F, const char* name) {
  void* p = dlsym(lib, name);
  if (p == nullptr) throw usage_error(std::string("the library has no symbol ") + name);
  return reinterpret_cast<F>(p);
}

std::vector<double> random_vector(std::size_t n, std::mt19937_64& gen) {
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(gen);
  return v;
}

void print_row(const char* routine, int n, int threads, std::vector<contender>& cs) {
  print_rows(routine, "blas_abi", n, threads, cs);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc < 2) throw usage_error("usage: exala-bench-blas-abi LIB [--threads T] [--reps R] ...");
  int threads = 2, reps = 0, n_vec = 10000000, n_mat = 4000, n_gemm = 1000;
  for (int i = 2; i < argc; i += 2) {
    if (i + 1 >= argc) throw usage_error(std::string("option ") + argv[i] + " needs a value");
    const int v = std::atoi(argv[i + 1]);
    if (v < 1) throw usage_error(std::string("option ") + argv[i] + " needs a positive integer");
    if (!std::strcmp(argv[i], "--threads")) threads = v;
    else if (!std::strcmp(argv[i], "--reps")) reps = v;
    else if (!std::strcmp(argv[i], "--n-vec")) n_vec = v;
    else if (!std::strcmp(argv[i], "--n-mat")) n_mat = v;
    else if (!std::strcmp(argv[i], "--n-gemm")) n_gemm = v;
    else throw usage_error(std::string("unknown option ") + argv[i]);
  }
  if (std::getenv("EXALA_BACKEND") == nullptr) {
    setenv("EXALA_BACKEND", "omp", 1);
    setenv("EXALA_NUM_THREADS", std::to_string(threads).c_str(), 1);
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) throw usage_error(std::string("cannot open ") + argv[1] + ": " + dlerror());
  const auto x_ddot = symbol(lib, &ddot_, "ddot_");
  const auto x_dasum = symbol(lib, &dasum_, "dasum_");
  const auto x_dnrm2 = symbol(lib, &dnrm2_, "dnrm2_");
  const auto x_daxpy = symbol(lib, &daxpy_, "daxpy_");
  const auto x_idamax = symbol(lib, &idamax_, "idamax_");
  const auto x_dgemv = symbol(lib, &dgemv_, "dgemv_");
  const auto x_dtrsv = symbol(lib, &dtrsv_, "dtrsv_");
  const auto x_dgemm = symbol(lib, &dgemm_, "dgemm_");
  set_openblas_threads(threads);
  std::fprintf(stderr, "drop-in: EXALA_BACKEND=%s EXALA_NUM_THREADS=%s; OpenBLAS threads %d\n",
               std::getenv("EXALA_BACKEND"),
               std::getenv("EXALA_NUM_THREADS") ? std::getenv("EXALA_NUM_THREADS") : "(unset)",
               threads);
  std::mt19937_64 gen(42);
  const int one = 1;
  const double d_one = 1.0, d_zero = 0.0;
  print_header();

  {  // level 1
    const auto x = random_vector(n_vec, gen), y = random_vector(n_vec, gen);
    const double got = x_ddot(&n_vec, x.data(), &one, y.data(), &one);
    const double want = exala::dot(n_vec, x.data(), 1, y.data(), 1);
    check_same_bits("ddot_", &got, &want, 1);
    std::vector<contender> cs;
    cs.emplace_back("exala_blas", [&] { return x_ddot(&n_vec, x.data(), &one, y.data(), &one); });
    cs.emplace_back("system", [&] { return ddot_(&n_vec, x.data(), &one, y.data(), &one); });
    run_interleaved(cs, reps);
    print_row("ddot", n_vec, threads, cs);
    cs.clear();
    cs.emplace_back("exala_blas", [&] { return x_dasum(&n_vec, x.data(), &one); });
    cs.emplace_back("system", [&] { return dasum_(&n_vec, x.data(), &one); });
    run_interleaved(cs, reps);
    print_row("dasum", n_vec, threads, cs);
    const double gn = x_dnrm2(&n_vec, x.data(), &one), wn = exala::nrm2(n_vec, x.data(), 1);
    check_same_bits("dnrm2_", &gn, &wn, 1);
    cs.clear();
    cs.emplace_back("exala_blas", [&] { return x_dnrm2(&n_vec, x.data(), &one); });
    cs.emplace_back("system", [&] { return dnrm2_(&n_vec, x.data(), &one); });
    run_interleaved(cs, reps);
    print_row("dnrm2", n_vec, threads, cs);
    const int gi = x_idamax(&n_vec, x.data(), &one), wi = idamax_(&n_vec, x.data(), &one);
    if (gi != wi) throw std::runtime_error("idamax_: the drop-in library gives " + std::to_string(gi) +
                                           ", the system BLAS " + std::to_string(wi));
    cs.clear();
    cs.emplace_back("exala_blas", [&] { return static_cast<double>(x_idamax(&n_vec, x.data(), &one)); });
    cs.emplace_back("system", [&] { return static_cast<double>(idamax_(&n_vec, x.data(), &one)); });
    run_interleaved(cs, reps);
    print_row("idamax", n_vec, threads, cs);
    // daxpy with a tiny alpha, so that y stays bounded over the repetitions;
    // the drop-in's fma(alpha, x_i, y_i) is checked against exala::axpy.
    const double alpha = 0x1p-40;
    std::vector<double> yy = y, yw = y;
    x_daxpy(&n_vec, &alpha, x.data(), &one, yy.data(), &one);
    exala::axpy(n_vec, alpha, x.data(), 1, yw.data(), 1);
    check_same_bits("daxpy_", yy.data(), yw.data(), n_vec);
    cs.clear();
    cs.emplace_back("exala_blas", [&] {
      x_daxpy(&n_vec, &alpha, x.data(), &one, yy.data(), &one);
      return yy[0];
    });
    cs.emplace_back("system", [&] {
      daxpy_(&n_vec, &alpha, x.data(), &one, yy.data(), &one);
      return yy[0];
    });
    run_interleaved(cs, reps);
    print_row("daxpy", n_vec, threads, cs);
  }
  {  // level 2, column-major n x n
    const int n = n_mat;
    auto a = random_vector(static_cast<std::size_t>(n) * n, gen);
    for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(i) * n + i] += 2.0 * n;  // well-conditioned
    const auto x = random_vector(n, gen);
    std::vector<double> y(n), want(n), b(n);
    x_dgemv("N", &n, &n, &d_one, a.data(), &n, x.data(), &one, &d_zero, y.data(), &one, 1);
    exala::gemv(exala::layout::col_major, exala::transpose::none, n, n, 1.0, a.data(), n,
                x.data(), 1, 0.0, want.data(), 1);
    check_same_bits("dgemv_", y.data(), want.data(), n);
    std::vector<contender> cs;
    cs.emplace_back("exala_blas", [&] {
      x_dgemv("N", &n, &n, &d_one, a.data(), &n, x.data(), &one, &d_zero, y.data(), &one, 1);
      return y[0];
    });
    cs.emplace_back("system", [&] {
      dgemv_("N", &n, &n, &d_one, a.data(), &n, x.data(), &one, &d_zero, y.data(), &one, 1);
      return y[0];
    });
    run_interleaved(cs, reps);
    print_row("dgemv", n, threads, cs);
    // dtrsv on the lower triangle, in place on a copy of x each call.
    b = x;
    x_dtrsv("L", "N", "N", &n, a.data(), &n, b.data(), &one, 1, 1, 1);
    want = x;
    exala::trsv(exala::layout::col_major, exala::uplo::lower, exala::transpose::none,
                exala::diag::non_unit, n, a.data(), n, want.data(), 1);
    check_same_bits("dtrsv_", b.data(), want.data(), n);
    cs.clear();
    cs.emplace_back("exala_blas", [&] {
      b = x;
      x_dtrsv("L", "N", "N", &n, a.data(), &n, b.data(), &one, 1, 1, 1);
      return b[n - 1];
    });
    cs.emplace_back("system", [&] {
      b = x;
      dtrsv_("L", "N", "N", &n, a.data(), &n, b.data(), &one, 1, 1, 1);
      return b[n - 1];
    });
    run_interleaved(cs, reps);
    print_row("dtrsv", n, threads, cs);
  }
  {  // level 3, column-major n x n
    const int n = n_gemm;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    const auto a = random_vector(nn, gen), b = random_vector(nn, gen);
    std::vector<double> c(nn), want(nn);
    x_dgemm("N", "N", &n, &n, &n, &d_one, a.data(), &n, b.data(), &n, &d_zero, c.data(), &n, 1, 1);
    exala::gemm(exala::layout::col_major, exala::transpose::none, exala::transpose::none, n, n, n,
                1.0, a.data(), n, b.data(), n, 0.0, want.data(), n);
    check_same_bits("dgemm_", c.data(), want.data(), static_cast<std::int64_t>(nn));
    std::vector<contender> cs;
    cs.emplace_back("exala_blas", [&] {
      x_dgemm("N", "N", &n, &n, &n, &d_one, a.data(), &n, b.data(), &n, &d_zero, c.data(), &n, 1, 1);
      return c[0];
    });
    cs.emplace_back("system", [&] {
      dgemm_("N", "N", &n, &n, &n, &d_one, a.data(), &n, b.data(), &n, &d_zero, c.data(), &n, 1, 1);
      return c[0];
    });
    run_interleaved(cs, reps);
    print_row("dgemm", n, threads, cs);
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "exala-bench-blas-abi: %s\n", e.what());
  return 2;
}
