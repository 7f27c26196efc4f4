// tests/test_opencl.cpp - the OpenCL runtime and the device-resident exact
// reductions (exala/opencl.hpp), on whatever device is present (PoCL in CI).
//
// Every result is compared BIT for bit with the reference backend of blas1
// (itself checked against MPFR in test_blas1), never with a tolerance:
//  * device listing and selection (index, platform-only and substring specs,
//    a bad spec named in the error, EXALA_OPENCL_DEVICE honoured in a fresh
//    process: ctest entries test_opencl_env_*), buffers bound to their device;
//  * buffer round trips with offsets, range errors; the programs' build
//    options (no relaxed math), a compile error carrying its build log;
//    concurrent calls from several threads;
//  * sum, asum, dot, nrm2 on random data of many kinds (uniform, wide,
//    subnormals and the full range, ties with far sticky bits, cancellation
//    to a tiny remainder, terms near DBL_MAX whose exact sum overflows,
//    products near 2^-2148 and 2^2046, inf/NaN at random places, signed
//    zeros), every stride class (1, 2, 3, -1, -2, 0, mixed for dot), offsets,
//    lengths 0, 1, odd, and around multiples of the work-group size and of
//    the global size, all four rounding directions; gaps and guards are NaN,
//    so a misread element shows;
//  * a spill-heavy case (2^-1000..2^1000) and lengths spanning many groups;
//  * the blas1 `opencl` backend through the hooks (host pointers), its
//    element-wise routines (the simd path), and the "not registered" error.
// Without an OpenCL device every case is reported SKIPPED (Boost.Test
// precondition), never passed.
#define BOOST_TEST_MODULE exala_opencl
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/detail/opencl_hooks.hpp"
#include "exala/error.hpp"
#include "exala/opencl.hpp"
#include "runtime.hpp"  // gpu/opencl/src: the program cache and build options
#include "test_common.hpp"

namespace utf = boost::unit_test;
namespace ocl = exala::opencl;
using namespace exala_test;
using exala::backend;
using exala::rounding;

namespace {

constexpr rounding all_modes[] = {rounding::to_nearest_even, rounding::toward_zero, rounding::upward,
                                  rounding::downward};

// Precondition of every device case: a usable device is present.
boost::test_tools::assertion_result device_present(utf::test_unit_id) {
  static const std::string why = [] {
    try {
      ocl::current_device();
      return std::string();
    } catch (const exala::error& e) {
      const std::string w = std::string("SKIPPED: no usable OpenCL device (") + e.what() +
                            "): the device cases of test_opencl are not run";
      std::cerr << w << "\n";  // visible in the ctest log, not only at --log_level=all
      return w;
    }
  }();
  boost::test_tools::assertion_result r(why.empty());
  if (!why.empty()) r.message() << why;
  return r;
}

boost::test_tools::assertion_result env_device_set(utf::test_unit_id) {
  const char* e = std::getenv("EXALA_OPENCL_DEVICE");
  boost::test_tools::assertion_result r(e != nullptr && *e != '\0' && !ocl::devices().empty());
  if (!r) r.message() << "EXALA_OPENCL_DEVICE is not set (or no device): run by ctest test_opencl_env_*";
  return r;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

enum class op { sum, asum, dot, nrm2 };
const char* name(op o) {
  switch (o) {
    case op::sum: return "sum";
    case op::asum: return "asum";
    case op::dot: return "dot";
    case op::nrm2: return "nrm2";
  }
  return "?";
}

enum class kind { uniform, wide, full_range, ties, cancellation, near_max, tiny_products, huge_products,
                  specials, zeros, spill_heavy, count };
const char* name(kind k) {
  const char* n[] = {"uniform", "wide", "full_range", "ties", "cancellation", "near_max",
                     "tiny_products", "huge_products", "specials", "zeros", "spill_heavy"};
  return n[static_cast<int>(k)];
}

// Logical data of kind k (x, and y for dot).
void generate(kind k, std::int64_t n, rng_t& r, std::vector<double>& x, std::vector<double>& y) {
  x.assign(static_cast<std::size_t>(n), 0.0);
  y.assign(static_cast<std::size_t>(n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) {
    double& a = x[static_cast<std::size_t>(i)];
    double& b = y[static_cast<std::size_t>(i)];
    switch (k) {
      case kind::uniform: a = uniform(r), b = uniform(r); break;
      case kind::wide: a = random_exp(r, -60, 60), b = random_exp(r, -60, 60); break;
      case kind::full_range: a = random_any_finite(r), b = random_any_finite(r); break;
      case kind::ties:  // 1 + 2^-53 ties, a far sticky bit, in every binade incl. subnormal
        a = (i % 3 == 0) ? pow2(static_cast<int>(r() % 2000) - 1000)
                         : (i % 3 == 1 ? pow2(-1074) * static_cast<double>(1 + r() % 3) : -0.0);
        b = (i % 2 == 0) ? 1.0 : pow2(-53);
        break;
      case kind::cancellation:  // pairs x, -x around a tiny remainder
        a = (i % 2 == 0) ? random_exp(r, -100, 300) : -x[static_cast<std::size_t>(i - 1)];
        b = (i % 2 == 0) ? random_exp(r, -100, 100) : y[static_cast<std::size_t>(i - 1)];
        if (i == n / 2) a = pow2(-1074), b = pow2(-1);
        break;
      case kind::near_max: a = dmax * (1.0 - 0x1p-20 * static_cast<double>(r() % 8)), b = 1.0;
        if (r() % 4 == 0) a = -a;
        break;
      case kind::tiny_products:  // down to 2^-2148 (x = y = 2^-1074)
        a = random_exp(r, -1074, -500), b = random_exp(r, -1074, -500);
        break;
      case kind::huge_products:  // up to 2^2046 and the overflow of fl(x*y)
        a = random_exp(r, 900, 1023), b = random_exp(r, 900, 1023);
        break;
      case kind::specials: {
        a = uniform(r), b = uniform(r);
        const auto s = r() % 64;
        if (s == 0) a = inf;
        if (s == 1) a = -inf;
        if (s == 2) a = qnan;
        if (s == 3) b = 0.0, a = (r() & 1) ? inf : -inf;  // inf * 0 = NaN in a dot
        if (s == 4) b = -inf;
        break;
      }
      case kind::zeros: a = (r() & 1) ? -0.0 : 0.0, b = (r() & 1) ? -0.0 : 1.0; break;
      case kind::spill_heavy: a = random_exp(r, -1000, 1000), b = random_exp(r, -500, 500); break;
      case kind::count: break;
    }
  }
}

// A BLAS vector in memory: logical element i at mem[off + i*inc] (inc >= 0)
// or mem[off + (n-1-i)*|inc|]; the gaps and a guard after are NaN.
struct placed {
  std::vector<double> mem;
  std::int64_t off = 0, inc = 1;
};

placed place(const std::vector<double>& logical, std::int64_t inc, std::int64_t off) {
  placed p;
  p.off = off, p.inc = inc;
  const auto n = static_cast<std::int64_t>(logical.size());
  const std::int64_t a = inc < 0 ? -inc : inc;
  const std::int64_t span = n == 0 ? 0 : (n - 1) * a + 1;
  p.mem.assign(static_cast<std::size_t>(off + span + 3), qnan);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = off + (inc >= 0 ? i * a : (n - 1 - i) * a);
    p.mem[static_cast<std::size_t>(at)] = logical[static_cast<std::size_t>(inc == 0 ? 0 : i)];
  }
  return p;
}

struct failures {
  int count = 0;
  void report(const std::string& msg) {
    if (++count <= 20) BOOST_ERROR(msg);
  }
  ~failures() {
    if (count > 20) BOOST_ERROR(count << " mismatches in all (first 20 shown)");
    BOOST_TEST(count == 0);  // counted as an assertion even when all passed
  }
};

std::string describe(op o, kind k, std::int64_t n, std::int64_t incx, std::int64_t offx, std::int64_t incy,
                     std::int64_t offy, rounding m) {
  std::string s = std::string(name(o)) + " kind=" + name(k) + " n=" + std::to_string(n) +
                  " incx=" + std::to_string(incx) + " offx=" + std::to_string(offx);
  if (o == op::dot) s += " incy=" + std::to_string(incy) + " offy=" + std::to_string(offy);
  return s + " mode=" + std::to_string(static_cast<int>(m));
}

double reference(op o, std::int64_t n, const placed& x, const placed& y, rounding m) {
  const exala::exec ex{backend::reference, 0, m};
  const double* px = x.mem.data() + x.off;
  switch (o) {
    case op::sum: return exala::sum(n, px, x.inc, ex);
    case op::asum: return exala::asum(n, px, x.inc, ex);
    case op::dot: return exala::dot(n, px, x.inc, y.mem.data() + y.off, y.inc, ex);
    case op::nrm2: return exala::nrm2(n, px, x.inc, ex);
  }
  return 0;
}

double on_device(op o, std::int64_t n, const ocl::buffer& bx, const placed& x, const ocl::buffer& by,
                 const placed& y, rounding m) {
  switch (o) {
    case op::sum: return ocl::sum(n, bx, x.off, x.inc, m);
    case op::asum: return ocl::asum(n, bx, x.off, x.inc, m);
    case op::dot: return ocl::dot(n, bx, x.off, x.inc, by, y.off, y.inc, m);
    case op::nrm2: return ocl::nrm2(n, bx, x.off, x.inc, m);
  }
  return 0;
}

// One problem: device-resident and (for offset 0) the blas1 opencl backend
// against the reference, in the given rounding directions.
void check(op o, kind k, std::int64_t n, std::int64_t incx, std::int64_t offx, std::int64_t incy,
           std::int64_t offy, rng_t& r, failures& f, bool all_directions = false) {
  std::vector<double> lx, ly;
  generate(k, n, r, lx, ly);
  const placed x = place(lx, incx, offx);
  const placed y = place(ly, incy, offy);
  const ocl::buffer bx(x.mem), by(y.mem);
  for (rounding m : all_modes) {
    if (!all_directions && m != rounding::to_nearest_even) continue;
    const double want = reference(o, n, x, y, m);
    const double got = on_device(o, n, bx, x, by, y, m);
    if (!same_bits(got, want))
      f.report("device " + describe(o, k, n, incx, offx, incy, offy, m) + ": got " + hex(got) +
               ", reference " + hex(want));
    const exala::exec ex{backend::opencl, 0, m};
    const double* px = x.mem.data() + x.off;
    double host = 0;
    switch (o) {
      case op::sum: host = exala::sum(n, px, x.inc, ex); break;
      case op::asum: host = exala::asum(n, px, x.inc, ex); break;
      case op::dot: host = exala::dot(n, px, x.inc, y.mem.data() + y.off, y.inc, ex); break;
      case op::nrm2: host = exala::nrm2(n, px, x.inc, ex); break;
    }
    if (!same_bits(host, want))
      f.report("backend::opencl " + describe(o, k, n, incx, offx, incy, offy, m) + ": got " + hex(host) +
               ", reference " + hex(want));
  }
}

// Lengths around the work-group size and the global size of this device's
// launches (the library uses work-groups of at most 256 items).
std::vector<std::int64_t> edge_lengths() {
  std::vector<std::int64_t> v = {0, 1, 2, 3, 5, 7, 8, 9, 31, 33};
  for (std::int64_t m : {64, 256, 512, 1024, 4096, 8192})
    for (std::int64_t d : {-1, 0, 1}) v.push_back(m + d);
  return v;
}

const std::int64_t strides[] = {1, 2, 3, -1, -2, 0};
const std::pair<std::int64_t, std::int64_t> dot_strides[] = {{1, 1}, {2, 2}, {-1, -1}, {-2, -2}, {0, 0},
                                                             {1, -1}, {-1, 1}, {2, -3}, {0, 1}, {3, 0}};

}  // namespace

// First: looks at the default choice before anything else makes one.
BOOST_AUTO_TEST_CASE(environment_device, *utf::precondition(env_device_set)) {
  const std::string spec = std::getenv("EXALA_OPENCL_DEVICE");
  const auto all = ocl::devices();
  // The device the spec names, found independently of the library.
  const ocl::device_info* want = nullptr;
  const auto colon = spec.find(':');
  const bool numeric = !spec.empty() && std::all_of(spec.begin(), spec.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || c == ':';
  });
  for (const auto& d : all) {
    const bool hit = numeric ? (std::to_string(d.platform_index) == spec.substr(0, colon) &&
                                (colon == std::string::npos ? d.device_index == 0
                                                            : std::to_string(d.device_index) == spec.substr(colon + 1)))
                             : lower(d.platform + " " + d.name).find(lower(spec)) != std::string::npos;
    if (hit) {
      want = &d;
      break;
    }
  }
  if (want != nullptr) {
    const auto cur = ocl::current_device();
    BOOST_TEST(cur.platform_index == want->platform_index);
    BOOST_TEST(cur.device_index == want->device_index);
    BOOST_TEST(cur.name == want->name);
  } else {
    BOOST_CHECK_EXCEPTION(ocl::current_device(), exala::invalid_argument, [&](const exala::invalid_argument& e) {
      return e.argument() == "EXALA_OPENCL_DEVICE" && std::string(e.what()).find(spec) != std::string::npos;
    });
  }
}

BOOST_AUTO_TEST_CASE(device_listing, *utf::precondition(device_present)) {
  const auto all = ocl::devices();
  BOOST_TEST_REQUIRE(!all.empty());
  for (const auto& d : all) {
    BOOST_TEST(!d.platform.empty());
    BOOST_TEST(!d.name.empty());
    BOOST_TEST(d.version.rfind("OpenCL", 0) == 0, d.version);
    BOOST_TEST(d.compute_units > 0);
    BOOST_TEST(d.global_mem > 0u);
    BOOST_TEST(d.local_mem >= 16384u);
  }
  const auto cur = ocl::current_device();
  BOOST_TEST(cur.fp64);
  BOOST_TEST(cur.int64_atomics);
  bool listed = false;
  for (const auto& d : all) listed = listed || (d.platform_index == cur.platform_index &&
                                                d.device_index == cur.device_index && d.name == cur.name);
  BOOST_TEST(listed);
  BOOST_TEST_MESSAGE("device " << cur.platform_index << ":" << cur.device_index << " " << cur.platform << " / "
                               << cur.name << " (" << cur.version << ")");
}

BOOST_AUTO_TEST_CASE(device_selection, *utf::precondition(device_present)) {
  const auto cur = ocl::current_device();
  const std::string idx = std::to_string(cur.platform_index) + ":" + std::to_string(cur.device_index);
  ocl::select_device(idx);
  BOOST_TEST(ocl::current_device().name == cur.name);
  // A case-insensitive substring of "platform device".
  std::string up = cur.name.substr(0, std::min<std::size_t>(cur.name.size(), 7));
  for (char& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  ocl::select_device(up);
  BOOST_TEST(lower(ocl::current_device().platform + " " + ocl::current_device().name).find(lower(up)) !=
             std::string::npos);
  if (cur.device_index == 0) {
    ocl::select_device(std::to_string(cur.platform_index));
    BOOST_TEST(ocl::current_device().name == cur.name);
  }
  for (const std::string bad : {"no-such-device-xyz", "97:0", "0:97", "97"}) {
    BOOST_CHECK_EXCEPTION(ocl::select_device(bad), exala::invalid_argument, [&](const exala::invalid_argument& e) {
      return e.argument() == "spec" && std::string(e.what()).find("'" + bad + "'") != std::string::npos;
    });
  }
  // A failed selection keeps the current device.
  BOOST_TEST(lower(ocl::current_device().platform + " " + ocl::current_device().name).find(lower(up)) !=
             std::string::npos);
  // Selecting the current device again keeps its context: buffers stay valid.
  const std::vector<double> v = {1.0, 2.0, 4.0};
  const ocl::buffer old(v);
  BOOST_TEST(ocl::sum(3, old, 1) == 7.0);
  ocl::select_device(idx);
  BOOST_TEST(ocl::sum(3, old, 1) == 7.0);
  BOOST_TEST(ocl::dot(3, old, 1, old, 1) == 21.0);
  ocl::finish();
  // A buffer belongs to the runtime (context) it was made on: another one
  // (here a second context on the same device) rejects it, naming the argument.
  namespace d = exala::opencl::detail;
  auto rt = d::current_runtime();
  d::runtime other(cl::Platform(), rt->device(), rt->info());
  BOOST_CHECK_EXCEPTION(d::mem(old, other, "y"), exala::invalid_argument,
                        [](const exala::invalid_argument& e) { return e.argument() == "y"; });
  BOOST_TEST(d::mem(old, *rt, "x")() != nullptr);
}

BOOST_AUTO_TEST_CASE(buffer_round_trips, *utf::precondition(device_present)) {
  rng_t r(7001);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{1000}, std::size_t{65537}}) {
    std::vector<double> v(n);
    for (auto& e : v) e = random_any_finite(r);
    if (n > 2) v[1] = -0.0, v[2] = qnan;
    const ocl::buffer b(v);
    BOOST_TEST(b.size() == n);
    std::vector<double> back(n, 1.0);
    b.read(back.data(), n);
    bool same = true;
    for (std::size_t i = 0; i < n; ++i) same = same && bits(back[i]) == bits(v[i]);
    BOOST_TEST(same, "round trip of " << n << " doubles");
    ocl::buffer z(n);  // zero-filled
    std::vector<double> zb(n, 1.0);
    z.read(zb.data(), n);
    BOOST_TEST(std::all_of(zb.begin(), zb.end(), [](double d) { return bits(d) == 0; }));
    if (n >= 5) {
      const double part[2] = {3.5, -7.25};
      z.write(part, 2, n - 3);
      double out[3];
      z.read(out, 3, n - 4);
      BOOST_TEST(bits(out[0]) == 0u);
      BOOST_TEST(out[1] == 3.5);
      BOOST_TEST(out[2] == -7.25);
      BOOST_CHECK_EXCEPTION(z.read(out, 3, n - 2), exala::invalid_argument,
                            [](const exala::invalid_argument& e) { return e.argument() == "count"; });
      BOOST_CHECK_EXCEPTION(z.write(part, 1, n), exala::invalid_argument,
                            [](const exala::invalid_argument& e) { return e.argument() == "count"; });
      BOOST_CHECK_EXCEPTION(z.write(nullptr, 1, 0), exala::invalid_argument,
                            [](const exala::invalid_argument& e) { return e.argument() == "src"; });
    }
    ocl::buffer moved = std::move(z);
    BOOST_TEST(moved.size() == n);
  }
  const ocl::buffer empty;
  BOOST_TEST(empty.size() == 0u);
  BOOST_TEST(bits(ocl::sum(0, empty, 1)) == 0u);
  BOOST_CHECK_EXCEPTION(ocl::buffer(nullptr, 3), exala::invalid_argument,
                        [](const exala::invalid_argument& e) { return e.argument() == "data"; });
}

// Programs are built with "-cl-std=CL1.2" only, once per context; a kernel
// that does not compile gives an exala::error with the build log.
BOOST_AUTO_TEST_CASE(programs, *utf::precondition(device_present)) {
  namespace d = exala::opencl::detail;
  auto rt = d::current_runtime();
  const cl::Program p = rt->program("blas1");
  std::string opts;
  BOOST_TEST(p.getBuildInfo(rt->device(), CL_PROGRAM_BUILD_OPTIONS, &opts) == CL_SUCCESS);
  opts = opts.c_str();
  BOOST_TEST(opts == "-cl-std=CL1.2");
  for (const char* bad : {"relaxed", "mad", "unsafe", "fast", "finite", "denorms"})
    BOOST_TEST(opts.find(bad) == std::string::npos, opts);
  BOOST_TEST(rt->program("blas1")() == p());  // cached: the same program object
  BOOST_CHECK_EXCEPTION(rt->program("no_such_program"), exala::error, [](const exala::error& e) {
    return std::string(e.what()).find("'no_such_program' is not embedded") != std::string::npos;
  });
  BOOST_CHECK_EXCEPTION(rt->build("broken", "__kernel void f(__global double* x) { x[0] = undeclared_name; }"),
                        exala::error, [](const exala::error& e) {
                          const std::string w = e.what();
                          return w.find("'broken'") != std::string::npos &&
                                 w.find("build log") != std::string::npos &&
                                 w.find("undeclared_name") != std::string::npos;
                        });
  BOOST_CHECK_EXCEPTION(rt->kernel("blas1", "exala_no_such_kernel"), exala::error, [](const exala::error& e) {
    return std::string(e.what()).find("exala_no_such_kernel") != std::string::npos;
  });
}

// Several threads at once (device-resident and host hooks): the same bits.
BOOST_AUTO_TEST_CASE(concurrent_calls, *utf::precondition(device_present)) {
  rng_t r(7007);
  std::vector<double> x(30011), y(30011);
  for (auto& v : x) v = random_exp(r, -300, 300);
  for (auto& v : y) v = random_exp(r, -300, 300);
  const double want_dot = exala::dot(x, y, exala::exec{backend::reference});
  const double want_sum = exala::sum(x, exala::exec{backend::reference});
  const ocl::buffer bx(x), by(y);
  std::vector<int> bad(4, 0);
  std::vector<std::thread> ts;
  for (int t = 0; t < 4; ++t)
    ts.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) {
        const auto n = static_cast<std::int64_t>(x.size());
        if (!same_bits(ocl::dot(n, bx, 1, by, 1), want_dot)) ++bad[t];
        if (!same_bits(exala::sum(x, exala::exec{backend::opencl}), want_sum)) ++bad[t];
        if (!same_bits(exala::dot(x, y, exala::exec{backend::opencl}), want_dot)) ++bad[t];
      }
    });
  for (auto& th : ts) th.join();
  for (int t = 0; t < 4; ++t) BOOST_TEST(bad[t] == 0, "thread " << t);
}

BOOST_AUTO_TEST_CASE(argument_errors, *utf::precondition(device_present)) {
  const std::vector<double> v(10, 1.0);
  const ocl::buffer b(v);
  auto names = [](const char* arg) {
    return [arg](const exala::invalid_argument& e) {
      return e.argument() == arg && std::string(e.what()).find(arg) != std::string::npos;
    };
  };
  BOOST_CHECK_EXCEPTION(ocl::sum(-1, b, 1), exala::invalid_argument, names("n"));
  BOOST_CHECK_EXCEPTION(ocl::nrm2(-3, b, 1), exala::invalid_argument, names("n"));
  BOOST_CHECK_EXCEPTION(ocl::sum(11, b, 1), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::asum(6, b, 2), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::asum(6, b, -2), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::sum(1, b, 10, 1), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::sum(1, b, -1, 1), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::dot(5, b, 2, b, 3), exala::invalid_argument, names("y"));
  BOOST_CHECK_EXCEPTION(ocl::sum(2, b, std::int64_t{1} << 62), exala::invalid_argument, names("x"));
  BOOST_CHECK_EXCEPTION(ocl::sum(2, b, INT64_MIN), exala::invalid_argument, names("x"));
  // the last element exactly at the end is fine; increment 0 needs one element
  BOOST_TEST(ocl::sum(5, b, 1, 2) == 5.0);
  BOOST_TEST(ocl::sum(5, b, 1, -2) == 5.0);  // elements 9, 7, ..., 1
  BOOST_TEST(ocl::sum(1000, b, 9, 0) == 1000.0);
  BOOST_TEST(bits(ocl::dot(0, b, 100, 7, b, -5, 3)) == 0u);
  // n = 1: any increment, even the extreme ones, reads x[off] only
  BOOST_TEST(ocl::sum(1, b, 9, INT64_MAX) == 1.0);
  BOOST_TEST(ocl::dot(1, b, 0, INT64_MIN, b, 9, -(INT64_MAX)) == 1.0);
  BOOST_TEST(exala::sum(1, v.data(), INT64_MAX, exala::exec{backend::opencl}) == 1.0);
}

// The blas1 backend: registered by including exala/opencl.hpp; otherwise a
// clear error, also for n = 0. Element-wise routines run the simd path.
BOOST_AUTO_TEST_CASE(blas1_backend_registration, *utf::precondition(device_present)) {
  BOOST_TEST(exala::is_compiled_in(backend::opencl));
  BOOST_TEST((exala::parse_backend("opencl") == backend::opencl));
  const std::vector<double> v = {1.0, 0x1p-60, -1.0};
  const exala::exec ex{backend::opencl};
  BOOST_TEST(exala::sum(v, ex) == 0x1p-60);
  using exala::detail::hook_kind;
  const void* saved = exala::detail::registered_hooks(backend::opencl, hook_kind::blas1);
  BOOST_TEST_REQUIRE(saved != nullptr);
  exala::detail::register_hooks(backend::opencl, hook_kind::blas1, nullptr);
  auto says_link = [](const exala::error& e) {
    return std::string(e.what()).find("exala::gpu") != std::string::npos &&
           std::string(e.what()).find("opencl") != std::string::npos;
  };
  BOOST_CHECK_EXCEPTION(exala::sum(v, ex), exala::error, says_link);
  BOOST_CHECK_EXCEPTION(exala::sum(0, nullptr, 1, ex), exala::error, says_link);
  BOOST_CHECK_EXCEPTION(exala::nrm2(v, ex), exala::error, says_link);
  ocl::register_backend();
  BOOST_TEST(exala::detail::registered_hooks(backend::opencl, hook_kind::blas1) == saved);
  BOOST_TEST(exala::dot(v, v, ex) == 2.0);
  // argument errors come from the blas1 front end, as on every backend
  BOOST_CHECK_THROW(exala::sum(-1, v.data(), 1, ex), exala::invalid_argument);
  // element-wise routines: the simd path, one rounding per element
  rng_t r(7002);
  std::vector<double> x(1001), y(1001);
  for (auto& e : x) e = random_exp(r, -40, 40);
  for (auto& e : y) e = random_exp(r, -40, 40);
  std::vector<double> y1 = y, y2 = y;
  exala::axpy(1001, 0.1, x.data(), 1, y1.data(), 1, exala::exec{backend::reference});
  exala::axpy(1001, 0.1, x.data(), 1, y2.data(), 1, ex);
  BOOST_TEST((y1 == y2));
  exala::scal(1001, 3.3, y2.data(), -1, ex);
  exala::scal(1001, 3.3, y1.data(), -1, exala::exec{backend::reference});
  BOOST_TEST((y1 == y2));
  BOOST_TEST(exala::iamax(x, ex) == exala::iamax(x, exala::exec{backend::reference}));
}

// Every op x stride class x length class x kind, against the reference.
BOOST_AUTO_TEST_CASE(strides_lengths_kinds, *utf::precondition(device_present)) {
  failures f;
  rng_t r(7003);
  int problems = 0;
  const auto lengths = edge_lengths();
  for (std::size_t li = 0; li < lengths.size(); ++li) {
    const std::int64_t n = lengths[li];
    for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
      const kind k = static_cast<kind>(ki);
      // all strides for the short lengths, a rotating pair for the others
      for (int si = 0; si < 6; ++si) {
        if (n > 100 && si != static_cast<int>((li + ki) % 6) && si != 0) continue;
        const std::int64_t off = (si + ki) % 3;
        check(op::sum, k, n, strides[si], off, 1, 0, r, f);
        check(ki % 2 ? op::asum : op::nrm2, k, n, strides[si], 2 - off, 1, 0, r, f);
        problems += 2;
      }
      for (std::size_t di = 0; di < std::size(dot_strides); ++di) {
        if (n > 100 && di != (li + ki) % std::size(dot_strides) && di != 0) continue;
        check(op::dot, k, n, dot_strides[di].first, static_cast<std::int64_t>(di % 3),
              dot_strides[di].second, static_cast<std::int64_t>((di + 1) % 4), r, f);
        ++problems;
      }
    }
  }
  BOOST_TEST_MESSAGE(problems << " problems");
}

BOOST_AUTO_TEST_CASE(all_rounding_directions, *utf::precondition(device_present)) {
  failures f;
  rng_t r(7004);
  for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
    const kind k = static_cast<kind>(ki);
    for (std::int64_t n : {1, 3, 100, 1025}) {
      check(op::sum, k, n, 1, 0, 1, 0, r, f, true);
      check(op::asum, k, n, -1, 1, 1, 0, r, f, true);
      check(op::dot, k, n, 1, 0, -2, 1, r, f, true);
      check(op::nrm2, k, n, 2, 1, 1, 0, r, f, true);
    }
  }
}

// Exact answers written by hand: ties with a far sticky bit, the extremes of
// the product range, overflow of the exact sum, specials, signed zeros.
BOOST_AUTO_TEST_CASE(exact_values, *utf::precondition(device_present)) {
  const double t = dmin_sub, h = 0x1p-53, u = 0x1p-52;
  struct row {
    std::vector<double> x, y;  // y empty: sum
    double want;
    rounding mode;
  };
  const rounding RN = rounding::to_nearest_even;
  const std::vector<row> rows = {
      {{1, h}, {}, 1.0, RN},
      {{1, h, t}, {}, 1 + u, RN},
      {{1, 3 * h}, {}, 1 + 2 * u, RN},
      {{1e300, t, -1e300}, {}, t, RN},
      {{DBL_MAX, DBL_MAX, -DBL_MAX}, {}, DBL_MAX, RN},
      {{DBL_MAX, DBL_MAX}, {}, inf, RN},
      {{DBL_MAX, DBL_MAX}, {}, DBL_MAX, rounding::toward_zero},
      {{inf, 1}, {}, inf, RN},
      {{inf, -inf}, {}, qnan, RN},
      {{1.5, -1.5}, {}, -0.0, rounding::downward},
      {{-0.0, -0.0}, {}, -0.0, RN},
      {{0x1p1023, 0x1p1023}, {0x1p1023, -0x1p1023}, 0.0, RN},  // 2^2046 cancelling
      {{0x1p1023}, {0x1p1023}, inf, RN},
      {{0x1p1023}, {0x1p1023}, DBL_MAX, rounding::downward},
      {{t, t}, {t, -t}, 0.0, RN},                   // 2^-2148 cancelling
      {{t}, {t}, t, rounding::upward},              // 2^-2148 rounds up to 2^-1074
      {{t}, {t}, 0.0, RN},
      {{t}, {-t}, -0.0, RN},                        // -2^-2148 to nearest: -0
      {{1, h, t}, {1, 1, t}, 1 + u, RN},            // tie + sticky 2^-2148
      {{1, h, -t}, {1, 1, t}, 1.0, RN},
      {{inf, 1}, {0, 1}, qnan, RN},
      {{-0.0}, {1.0}, -0.0, RN},
      {{-0.0, 0.0}, {1.0, 1.0}, 0.0, RN},
  };
  for (const row& w : rows) {
    const bool is_dot = !w.y.empty();
    const ocl::buffer bx(w.x), by(is_dot ? w.y : w.x);
    const auto n = static_cast<std::int64_t>(w.x.size());
    const double got = is_dot ? ocl::dot(n, bx, 1, by, 1, w.mode) : ocl::sum(n, bx, 1, w.mode);
    BOOST_TEST(same_bits(got, w.want), (is_dot ? "dot" : "sum") << " row " << hex(w.x[0]) << " ("
                                                                << w.x.size() << " terms): got " << hex(got)
                                                                << ", want " << hex(w.want));
  }
  // nrm2 of 2^-1074 (its square is 2^-2148): sqrt rounds back exactly.
  const std::vector<double> tiny = {t, -t, t, t};
  BOOST_TEST(same_bits(ocl::nrm2(4, ocl::buffer(tiny), 1), 2 * t));
  const std::vector<double> big = {0x1p1023, 0x1p1023, 0x1p1023, 0x1p1023};
  BOOST_TEST(same_bits(ocl::nrm2(4, ocl::buffer(big), 1), inf));  // sqrt(2^2048)
  BOOST_TEST(same_bits(ocl::nrm2(1, ocl::buffer(big), 1), 0x1p1023));
}

// Wide dynamic range: most terms spill into the local superaccumulator; and
// lengths spanning many work-groups, in every direction.
BOOST_AUTO_TEST_CASE(spills_and_many_groups, *utf::precondition(device_present)) {
  failures f;
  rng_t r(7005);
  check(op::sum, kind::spill_heavy, 50001, 1, 0, 1, 0, r, f, true);
  check(op::asum, kind::spill_heavy, 50001, -1, 2, 1, 0, r, f);
  check(op::dot, kind::spill_heavy, 50001, 1, 1, 1, 0, r, f, true);
  check(op::nrm2, kind::spill_heavy, 50001, 1, 0, 1, 0, r, f);
  for (kind k : {kind::uniform, kind::full_range, kind::cancellation, kind::tiny_products, kind::specials}) {
    check(op::sum, k, 300007, 1, 1, 1, 0, r, f);
    check(op::dot, k, 300007, -1, 0, 1, 3, r, f);
  }
}

BOOST_AUTO_TEST_CASE(long_sweep, *utf::label("long") * utf::precondition(device_present)) {
  failures f;
  rng_t r(7006);
  for (int rep = 0; rep < 3; ++rep)
    for (int ki = 0; ki < static_cast<int>(kind::count); ++ki) {
      const kind k = static_cast<kind>(ki);
      for (std::int64_t n = 0; n < 600; n += 1 + rep)
        for (int si = 0; si < 6; ++si) {
          check(op::sum, k, n, strides[si], si % 2, 1, 0, r, f);
          check(op::asum, k, n, strides[si], 0, 1, 0, r, f);
          check(op::nrm2, k, n, strides[si], 1, 1, 0, r, f);
        }
      for (std::int64_t n = 0; n < 600; n += 1 + rep)
        for (const auto& [ix, iy] : dot_strides) check(op::dot, k, n, ix, 1, iy, 2, r, f);
      for (std::int64_t n : {1 << 20, (1 << 20) + 12345}) {
        check(op::sum, k, n, 1, 0, 1, 0, r, f, true);
        check(op::dot, k, n, 1, 0, -1, 0, r, f, true);
      }
    }
  // the host hooks upload in chunks of 2^24 elements: cross a chunk boundary
  check(op::dot, kind::full_range, (std::int64_t{1} << 24) + 77, 1, 0, 1, 0, r, f);
  check(op::sum, kind::spill_heavy, (std::int64_t{1} << 24) + 3, -1, 0, 1, 0, r, f);
}
