// Internal: the OpenCL runtime of exala::gpu, shared by the level-1 code
// (blas1.cpp) and the level-2/3 code.
//
// One `runtime` per selected device: its context, one in-order queue, and
// the program cache. A program named P is the text of kernels/common.cl
// followed by kernels/P.cl (both embedded at build time), built once per
// runtime with "-cl-std=CL1.2" and nothing else (no relaxed-math or mad
// flags: they would break TwoSum/TwoProd).
//
// Usage from kernel code (e.g. gemv.cpp):
//   auto rt = detail::current_runtime();          // throws exala::error if no device
//   std::lock_guard lock(rt->launch_mutex());     // while you set args / use scratch
//   cl::Kernel& k = rt->shared_kernel("gemv", "exala_gemv_rows");  // or rt->kernel(...)
//   detail::check(k.setArg(0, ...), "gemv: setArg");
//   detail::check(rt->queue().enqueueNDRangeKernel(k, cl::NullRange, global, local),
//                 "gemv: launch");
//   const cl::Buffer& a = detail::mem(A, *rt, "A");  // a public buffer's cl::Buffer
// Error codes are turned into exala::error by check() (the message names
// the step and the OpenCL error).
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#endif
#include <CL/opencl.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "exala/opencl.hpp"

namespace exala::opencl::detail {

// The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or its number.
std::string error_name(cl_int err);
// Throws exala::error("exala: OpenCL: <what> failed: <error name>").
[[noreturn]] void throw_cl(cl_int err, const std::string& what);
inline void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw_cl(err, what);
}
inline void check(cl_int err, const std::string& what) {
  if (err != CL_SUCCESS) throw_cl(err, what);
}

class runtime {
 public:
  runtime(const cl::Platform& platform, const cl::Device& device, const device_info& info);
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  const device_info& info() const noexcept { return info_; }
  const cl::Context& context() const noexcept { return context_; }
  const cl::Device& device() const noexcept { return device_; }
  cl::CommandQueue& queue() noexcept { return queue_; }

  // The options every program is built with: OpenCL C 1.2 and nothing else
  // (never -cl-fast-relaxed-math, -cl-mad-enable,
  // -cl-unsafe-math-optimizations: they would break TwoSum/TwoProd).
  static constexpr const char* build_options = "-cl-std=CL1.2";

  // The program `name` (common.cl + <name>.cl), built at its first use in
  // this runtime. A build failure throws exala::error with the build log.
  cl::Program program(const std::string& name);
  // Builds common.cl + `text` now, uncached (tests; program() uses it).
  cl::Program build(const std::string& name, const std::string& text);
  // A new kernel object of that program (kernel objects hold their
  // arguments, so each launch site makes its own or keeps it under a lock).
  cl::Kernel kernel(const std::string& program_name, const std::string& kernel_name);

  // Held while enqueuing work that uses scratch buffers or shared kernels.
  std::mutex& launch_mutex() noexcept { return launch_mutex_; }
  // A kernel object kept in this runtime for reuse (no clCreateKernel per
  // launch). Its arguments are shared state: use it under launch_mutex().
  cl::Kernel& shared_kernel(const std::string& program_name, const std::string& kernel_name);
  // A device buffer of at least `bytes` bytes kept for reuse (slot 0..7):
  // grown on demand, contents undefined. Use it under launch_mutex().
  cl::Buffer scratch(int slot, std::size_t bytes);

  // Work-group size used by the reduction kernels on this device and the
  // number of work-groups that fills it.
  // True for a CPU device sharing host memory (PoCL): host data can be
  // wrapped in a buffer (CL_MEM_USE_HOST_PTR) instead of copied.
  bool zero_copy() const noexcept { return zero_copy_; }

  std::size_t reduction_local_size() const noexcept { return local_size_; }
  std::size_t reduction_groups() const noexcept { return groups_; }

 private:
  device_info info_;
  cl::Platform platform_;
  cl::Device device_;
  cl::Context context_;
  cl::CommandQueue queue_;
  std::mutex programs_mutex_;
  std::map<std::string, cl::Program> programs_;
  std::mutex launch_mutex_;
  std::map<std::string, cl::Kernel> kernels_;  // by "program/kernel", under launch_mutex_
  cl::Buffer scratch_[8];
  std::size_t scratch_bytes_[8] = {};
  std::size_t local_size_ = 64;
  bool zero_copy_ = false;
  std::size_t groups_ = 1;
};

// The runtime of the current device, created at first use by the default
// rule (see exala/opencl.hpp). Throws exala::error when there is no usable
// device. The shared_ptr keeps it alive across a concurrent select_device.
std::shared_ptr<runtime> current_runtime();

}  // namespace exala::opencl::detail

namespace exala::opencl {
// The device memory behind a public buffer.
struct buffer::impl {
  std::shared_ptr<detail::runtime> rt;
  cl::Buffer mem;
};
}  // namespace exala::opencl

namespace exala::opencl::detail {
// The cl::Buffer of `b`, checked to belong to `rt` (else invalid_argument
// naming `arg`). An empty buffer (size 0) has a null cl::Buffer.
const cl::Buffer& mem(const buffer& b, const runtime& rt, const char* arg);
}  // namespace exala::opencl::detail
