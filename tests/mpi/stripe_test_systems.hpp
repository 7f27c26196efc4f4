// Systems on disk for the distributed stripe LU suites (test_mpi_stripe_lu,
// test_mpi_stripe_cuda/fakedev): one copy of the generator that both use.
#pragma once

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

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

}  // namespace exala_mpi_test
