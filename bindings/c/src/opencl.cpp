// opencl.cpp - the OpenCL device queries of the C API. In a build with
// exala::gpu, including <exala/opencl_level23.hpp> here registers the opencl
// backend of blas1, blas2 and blas3 inside libexala.so (the registration
// runs during the library's static initialization); without it every
// function says EXALA_ERROR_NOT_COMPILED_IN.
#include "capi.hpp"

#ifdef EXALA_C_HAVE_OPENCL
#include "exala/opencl_level23.hpp"
#endif

using namespace exala::capi;

#ifndef EXALA_C_HAVE_OPENCL
namespace {

[[noreturn]] void opencl_missing() {
  throw exala::not_compiled_in("OpenCL (this libexala was built without exala::gpu)");
}

}  // namespace
#endif

exala_status exala_opencl_device_count(int* count) {
  return guard([&] {
    int& out = output(count, "count");
#ifdef EXALA_C_HAVE_OPENCL
    out = static_cast<int>(exala::opencl::devices().size());
#else
    (void)out;
    opencl_missing();
#endif
  });
}

exala_status exala_opencl_select_device(const char* spec) {
  return guard([&] {
    require(spec, "spec");
#ifdef EXALA_C_HAVE_OPENCL
    exala::opencl::select_device(spec);
#else
    opencl_missing();
#endif
  });
}
