// tests/stripe_test_engine.hpp - the engine of a stripe-LU suite that is built
// once per engine and rank count (test_stripe_lu.cpp):
// EXALA_TEST_FAKE_DEVICE: the fake device of fake_device_engine.hpp,
// registered as "cuda"; EXALA_TEST_ENGINE_CUDA: the CUDA engine; neither: the
// CPU engine. The engine cases set test_engine() in their options.
#pragma once

#include <boost/test/unit_test.hpp>

#if defined(EXALA_TEST_FAKE_DEVICE)
#include "fake_device_engine.hpp"  // registers the fake "cuda" engine
#elif defined(EXALA_TEST_ENGINE_CUDA)
#include "exala/cuda.hpp"  // registers the "cuda" engine
#endif

namespace exala_stripe_test {

#if defined(EXALA_TEST_FAKE_DEVICE) || defined(EXALA_TEST_ENGINE_CUDA)
inline constexpr bool on_device = true;
#else
inline constexpr bool on_device = false;
#endif

// The engine of this build.
inline const char* test_engine() { return on_device ? "cuda" : "cpu"; }

// A case for some builds only: skipped, saying why, in the others. (The
// condition is the build's: under MPI the same on every rank.)
struct only_if {
  bool ok;
  const char* why;
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result r(ok);
    if (!ok) r.message() << why;
    return r;
  }
};

}  // namespace exala_stripe_test
