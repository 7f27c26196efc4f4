// What the distributed cases of the stripe LU suite (test_stripe_lu.cpp built
// with EXALA_TEST_MPI: its suite `distributed`, engine and CPU-only cases)
// share: the systems on disk (one copy of the generator), the test matrices,
// the results compared and their comparison, the outcome of a collective
// call, and temporary directories shared by the ranks.
#pragma once

#include <boost/test/unit_test.hpp>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <functional>
#include <filesystem>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "exala/mpi.hpp"
#include "exala/stripe_lu.hpp"
#include "mpi_test_main.hpp"

namespace exala_mpi_test {

// 2^k v, entry by entry.
inline std::vector<double> scaled(std::vector<double> v, int k) {
  for (double& x : v) x = std::ldexp(x, k);
  return v;
}

inline bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// generate_dense_system on rank 0, scaled by 2^scale (A and B: a system near
// the ends of the double range); true on every rank when it worked.
inline bool generate(const std::string& dir, std::int64_t n, std::int64_t nrhs, std::uint64_t seed,
                     std::int64_t file_stripe, double cond, int scale = 0) {
  bool ok = true;
  if (rank() == 0) {
    try {
      const std::string gen = scale == 0 ? dir : dir + "_unscaled";
      exala::generate_dense_system({gen}, n, nrhs, seed, file_stripe, cond, true);
      if (scale != 0) {
        exala::stripe_system_reader r({gen});
        std::vector<double> a(std::size_t(n * n)), b(std::size_t(n * nrhs));
        r.read_rows(0, n, a.data(), n);
        r.read_rhs(b.data(), n);
        a = scaled(a, scale);
        b = scaled(b, scale);
        exala::stripe_system_writer w({dir}, n, nrhs, file_stripe, true);
        for (std::int64_t I = 0; I < w.stripes(); ++I) w.write_stripe(I, a.data() + I * file_stripe, n);
        w.write_rhs(b.data(), n);
        w.finish("generated, scaled by 2^" + std::to_string(scale));
      }
    } catch (const std::exception& e) {
      BOOST_TEST_MESSAGE("generate failed: " << e.what());
      ok = false;
    }
  }
  return all_ranks(ok);
}

// ---- what both suites compare, and how ----

using i64 = std::int64_t;
namespace fs = std::filesystem;

// A matrix the same on every rank: entries uniform in [-0.5, 0.5]; graded:
// column j scaled by 2^(-40 j / n) (condition number ~ 1e12).
inline std::vector<double> test_matrix(i64 n, std::uint64_t seed, bool graded = false) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  std::vector<double> a(std::size_t(n * n));
  for (i64 j = 0; j < n; ++j)
    for (i64 i = 0; i < n; ++i)
      a[std::size_t(i + j * n)] = u(g) * (graded ? std::ldexp(1.0, -int(40 * j / std::max<i64>(n, 1))) : 1.0);
  return a;
}

inline std::vector<double> test_rhs(i64 n, i64 nrhs, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> b(std::size_t(std::max<i64>(1, n) * nrhs), 0.0);
  for (auto& v : b) v = u(g);
  return b;
}

inline exala::mpi::row_source rows_of(const std::vector<double>& a, i64 n) {
  return [&a, n](i64 r0, i64 rows, double* dst, i64 ld) {
    for (i64 j = 0; j < n; ++j)
      for (i64 i = 0; i < rows; ++i) dst[i + j * ld] = a[std::size_t(r0 + i + j * n)];
  };
}

inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * 8) == 0);
}
inline bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct results {
  std::vector<double> x1;   // each column solved alone
  std::vector<double> xm;   // all columns in one call
  std::vector<double> xr;   // refined, one column per call
  std::vector<double> xrm;  // refined, all columns in one call
  std::vector<double> rr;   // the refine reports: steps, converged, before, after
  double be = 0;            // backward error of xm
};

template <class LU>
results solve_all(const LU& lu, i64 n, const std::vector<double>& B, i64 nrhs) {
  const i64 ld = std::max<i64>(1, n);
  results r;
  r.x1 = B;
  for (i64 c = 0; c < nrhs; ++c) lu.solve(1, r.x1.data() + c * ld, ld);
  r.xm = B;
  lu.solve(nrhs, r.xm.data(), ld);
  r.xr.assign(B.size(), 0.0);
  auto note = [&](const exala::refine_report& q) {
    r.rr.insert(r.rr.end(), {double(q.steps), double(q.converged), q.backward_error_before,
                             q.backward_error_after});
  };
  for (i64 c = 0; c < nrhs; ++c)
    note(lu.solve_refined(1, B.data() + c * ld, ld, r.xr.data() + c * ld, ld, 10));
  r.xrm.assign(B.size(), 0.0);
  note(lu.solve_refined(nrhs, B.data(), ld, r.xrm.data(), ld, 10));
  r.be = lu.backward_error(nrhs, B.data(), ld, r.xm.data(), ld);
  return r;
}

// An object factored in place (exala::mpi::local_stripes), seen by
// solve_all: its refinement and backward error take A's rows from `a`.
struct given_rows {
  const exala::mpi::stripe_lu& lu;
  exala::mpi::row_source a;
  void solve(i64 nrhs, double* b, i64 ldb) const { lu.solve(nrhs, b, ldb); }
  exala::refine_report solve_refined(i64 nrhs, const double* b, i64 ldb, double* x, i64 ldx,
                                     int max_refine) const {
    return lu.solve_refined(nrhs, b, ldb, x, ldx, a, max_refine);
  }
  double backward_error(i64 nrhs, const double* b, i64 ldb, const double* x, i64 ldx) const {
    return lu.backward_error(nrhs, b, ldb, x, ldx, a);
  }
};
// The stripes of this rank for (n, opt), filled from the column-major A.
inline exala::mpi::local_stripes local_copy(const std::vector<double>& a, i64 n,
                                            const exala::stripe_lu_options& opt) {
  exala::mpi::local_stripes s(MPI_COMM_WORLD, n, opt);
  s.fill(rows_of(a, n));
  return s;
}
// factors_only: the unrefined solutions only (in core the single process
// computes ||A||_inf itself, out of core it reads the stored one: the
// refinement's stopping may differ).
inline void check_same(const results& got, const results& want, const std::string& what,
                bool factors_only = false) {
  BOOST_TEST_CONTEXT(what << " on rank " << rank() << " of " << size()) {
    BOOST_TEST(same_bits(got.x1, want.x1));
    BOOST_TEST(same_bits(got.xm, want.xm));
    if (factors_only) return;
    BOOST_TEST(same_bits(got.xr, want.xr));
    BOOST_TEST(same_bits(got.xrm, want.xrm));
    BOOST_TEST(same_bits(got.rr, want.rr));
    BOOST_TEST(same_bits(got.be, want.be));
  }
}

// A system scaled by 2^k (near the ends of the range): finite solutions, a
// refinement that reaches 2^-52, and the report's scale exponent set.
inline void check_scaled(const results& got, int matrix_scale, const std::string& what) {
  BOOST_TEST_CONTEXT(what << " on rank " << rank()) {
    BOOST_TEST(all_finite(got.xm));
    BOOST_TEST(all_finite(got.xrm));
    BOOST_TEST(got.rr.back() <= 0x1p-52);
    BOOST_TEST(matrix_scale != 0);
  }
}

// Where this rank's out-of-core run is cut by a write fault: after the copy
// of its own stripes (files: a 4096-byte header block + payload; before them
// the manifest and the first progress record) and about half of what its
// factorization wrote in an uninterrupted run.
inline std::int64_t write_fault_offset(i64 n, i64 S, std::int64_t written) {
  std::int64_t copy = 4096 + 4096;
  for (i64 J = rank(); J * S < n; J += size()) copy += 4096 + std::min(S, n - J * S) * n * 8;
  return copy + written / 2;
}

inline void bcast(std::vector<double>& v) {
  std::uint64_t len = v.size();
  MPI_Bcast(&len, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  v.resize(len);
  if (len > 0) MPI_Bcast(v.data(), int(len), MPI_DOUBLE, 0, MPI_COMM_WORLD);
}
inline void bcast(results& r) {
  for (auto* v : {&r.x1, &r.xm, &r.xr, &r.xrm, &r.rr}) bcast(*v);
  MPI_Bcast(&r.be, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

// What a call did on this rank: "ok", "remote:<rank>", "arg:<name>",
// "singular:<message>", "storage", or "other:<message>".
inline std::string outcome(const std::function<void()>& f) {
  try {
    f();
    return "ok";
  } catch (const exala::mpi::remote_error& e) {
    return "remote:" + std::to_string(e.rank());
  } catch (const exala::invalid_argument& e) {
    return "arg:" + e.argument();
  } catch (const exala::singular_pivot& e) {
    return std::string("singular:") + e.what();
  } catch (const exala::storage_error&) {
    return "storage";
  } catch (const std::exception& e) {
    return std::string("other:") + e.what();
  }
}

// A fresh directory under /tmp, the same name on every rank, removed (by
// rank 0, after a barrier) at the end of the scope.
struct temp_dir {
  fs::path path;
  explicit temp_dir(const std::string& tag) {
    static int counter = 0;  // (one per test program)
    long long pid = rank() == 0 ? (long long)getpid() : 0;
    MPI_Bcast(&pid, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    path = fs::temp_directory_path() /
           ("exala_mpi_stripe_" + std::to_string(pid) + "_" + std::to_string(counter++) + "_" + tag);
    if (rank() == 0) {
      fs::remove_all(path);
      fs::create_directories(path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  ~temp_dir() {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank() == 0) {
      std::error_code ec;
      fs::remove_all(path, ec);
    }
  }
  std::string sub(const std::string& name) const { return (path / name).string(); }
  std::string rank_dir(const std::string& name) const {
    return (path / (name + "_rank" + std::to_string(rank()))).string();
  }
};

}  // namespace exala_mpi_test
