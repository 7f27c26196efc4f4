// exala/opencl.hpp - the OpenCL device layer of ExaLA: device choice, device
// buffers, and exact level-1 reductions on device-resident data.
//
// Every reduction here returns the correctly rounded value of the exact
// result, the same bits as the `reference` backend of exala/blas1.hpp for
// every input (subnormals, overflow of the exact sum, products down to
// 2^-2148, inf/NaN, signed zeros), on any device, work-group count or data
// order. Method: the multi-level accumulation of Collange, Defour, Graillat,
// Iakymchuk, "Numerical reproducibility for the parallel reduction on multi-
// and many-core architectures" (ParCo 2015) as in ExBLAS (Iakymchuk et al.
// 2015): per-work-item floating-point expansions (TwoSum, FMA TwoProd)
// spilling into a work-group superaccumulator in local memory, merged by a
// second kernel and rounded once on the host (exala::superaccumulator).
//
// Including this header registers the `opencl` backend of blas1
// (exala::backend::opencl) in the program; link exala::gpu.
//
// Devices: the first use picks a device from EXALA_OPENCL_DEVICE (a spec as
// for select_device), else the first GPU with fp64, else the first device
// with fp64. A usable device needs cl_khr_fp64 and cl_khr_int64_base_atomics.
// Errors are exala::error (no platform, no usable device, a kernel that does
// not build: its build log is in the message); bad arguments throw
// exala::invalid_argument naming the argument.
//
// Launch shape (speed only, never the bits): work-groups of 256 work-items,
// 8 per compute unit, on GPUs (1024 and 4 on CPU devices); the environment
// variables EXALA_OPENCL_LOCAL_SIZE (a power of two) and
// EXALA_OPENCL_GROUPS_PER_CU override them when the device is first used.
//
// Thread safety: every function may be called from several threads; device
// work is serialized per device. A buffer belongs to the device that was
// current when it was made; after select_device() picks another device, using
// it throws exala::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "exala/rounding.hpp"

namespace exala::opencl {

struct device_info {
  int platform_index = -1;  // position in the ICD loader's platform list
  int device_index = -1;    // position in that platform's device list
  std::string platform;     // platform name
  std::string name;         // device name
  std::string version;      // CL_DEVICE_VERSION
  bool fp64 = false;        // cl_khr_fp64
  bool int64_atomics = false;  // cl_khr_int64_base_atomics
  std::size_t global_mem = 0;  // bytes
  std::size_t local_mem = 0;   // bytes
  int compute_units = 0;
  bool gpu = false;            // CL_DEVICE_TYPE_GPU
};

// Every device of every platform, in platform then device order. Empty when
// no ICD or platform is installed (never throws for that).
std::vector<device_info> devices();

// Makes the device named by `spec` current: "P:D" (platform and device
// indices), "P" (device 0 of platform P), or a case-insensitive substring of
// "<platform name> <device name>" (the first match). Throws
// exala::invalid_argument("spec") naming the spec when nothing matches, and
// exala::error when the device lacks fp64 or 64-bit atomics. Selecting the
// current device again changes nothing (its buffers stay valid).
void select_device(const std::string& spec);

// The current device (chosen now by the default rule if none was selected).
device_info current_device();

// Waits until all work queued on the current device is done.
void finish();

// A block of doubles in the current device's global memory (RAII).
class buffer {
 public:
  buffer() noexcept;                           // empty, size 0
  explicit buffer(std::size_t count);          // count doubles, zero-filled
  buffer(const double* data, std::size_t count);  // a copy of data[0, count)
  explicit buffer(std::span<const double> data) : buffer(data.data(), data.size()) {}
  ~buffer();
  buffer(buffer&&) noexcept;
  buffer& operator=(buffer&&) noexcept;
  buffer(const buffer&) = delete;
  buffer& operator=(const buffer&) = delete;

  // Copies src[0, count) to elements [offset, offset + count) (blocking).
  // Throws invalid_argument("count") when the range passes the end.
  void write(const double* src, std::size_t count, std::size_t offset = 0);
  // Copies elements [offset, offset + count) to dst[0, count) (blocking).
  void read(double* dst, std::size_t count, std::size_t offset = 0) const;
  std::size_t size() const noexcept { return size_; }

  struct impl;  // the cl::Buffer and its device (gpu/opencl/src/runtime.hpp)
  const impl* get() const noexcept { return impl_.get(); }

 private:
  std::unique_ptr<impl> impl_;
  std::size_t size_ = 0;
};

// Device-resident exact reductions, with the contracts of exala/blas1.hpp:
// element i of (x, offx, incx) is x[offx + i*incx] for incx >= 0 and
// x[offx + (n-1-i)*|incx|] for incx < 0 (an increment of 0 repeats x[offx]).
// Every element touched must lie in the buffer, else invalid_argument("x")
// (or "y"); n < 0 throws invalid_argument("n"). n == 0 gives +0 (nrm2: +0).

// Correctly rounded sum of x_i (error <= 1/2 ulp to nearest), exact
// accumulation after Collange et al. (ParCo 2015) / ExBLAS.
double sum(std::int64_t n, const buffer& x, std::int64_t incx,
           rounding mode = rounding::to_nearest_even);
double sum(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx,
           rounding mode = rounding::to_nearest_even);
// Correctly rounded sum of |x_i|; same method and bound as sum().
double asum(std::int64_t n, const buffer& x, std::int64_t incx,
            rounding mode = rounding::to_nearest_even);
double asum(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx,
            rounding mode = rounding::to_nearest_even);
// Correctly rounded sum of x_i * y_i, every product exact (FMA TwoProd, or an
// exact integer product where TwoProd's error would underflow or overflow).
double dot(std::int64_t n, const buffer& x, std::int64_t incx, const buffer& y, std::int64_t incy,
           rounding mode = rounding::to_nearest_even);
double dot(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx, const buffer& y,
           std::int64_t offy, std::int64_t incy, rounding mode = rounding::to_nearest_even);
// Correctly rounded sqrt(sum of x_i^2): the sum of squares is exact (no
// scaling), its square root rounded once.
double nrm2(std::int64_t n, const buffer& x, std::int64_t incx,
            rounding mode = rounding::to_nearest_even);
double nrm2(std::int64_t n, const buffer& x, std::int64_t offx, std::int64_t incx,
            rounding mode = rounding::to_nearest_even);

// Registers the OpenCL backend with blas1 (exala::backend::opencl). Idempotent
// and cheap; including this header calls it during static initialization.
void register_backend() noexcept;

namespace detail {
// Forces registration in every program that includes this header (and keeps
// the linker from dropping the library's registration code).
inline const bool backend_registered = (register_backend(), true);
}  // namespace detail

}  // namespace exala::opencl
