// The OpenCL runtime: device listing and choice, the per-device context,
// queue and program cache, device buffers. See runtime.hpp.
#include "runtime.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string_view>
#include <utility>

#include "embedded_kernels.hpp"
#include "exala/checked.hpp"
#include "exala/error.hpp"

namespace exala::opencl::detail {

std::string error_name(cl_int err) {
  switch (err) {
#define EXALA_CL_ERR_(e) \
  case e:                \
    return #e;
    EXALA_CL_ERR_(CL_DEVICE_NOT_FOUND)
    EXALA_CL_ERR_(CL_DEVICE_NOT_AVAILABLE)
    EXALA_CL_ERR_(CL_COMPILER_NOT_AVAILABLE)
    EXALA_CL_ERR_(CL_MEM_OBJECT_ALLOCATION_FAILURE)
    EXALA_CL_ERR_(CL_OUT_OF_RESOURCES)
    EXALA_CL_ERR_(CL_OUT_OF_HOST_MEMORY)
    EXALA_CL_ERR_(CL_BUILD_PROGRAM_FAILURE)
    EXALA_CL_ERR_(CL_MAP_FAILURE)
    EXALA_CL_ERR_(CL_INVALID_VALUE)
    EXALA_CL_ERR_(CL_INVALID_DEVICE_TYPE)
    EXALA_CL_ERR_(CL_INVALID_PLATFORM)
    EXALA_CL_ERR_(CL_INVALID_DEVICE)
    EXALA_CL_ERR_(CL_INVALID_CONTEXT)
    EXALA_CL_ERR_(CL_INVALID_QUEUE_PROPERTIES)
    EXALA_CL_ERR_(CL_INVALID_COMMAND_QUEUE)
    EXALA_CL_ERR_(CL_INVALID_HOST_PTR)
    EXALA_CL_ERR_(CL_INVALID_MEM_OBJECT)
    EXALA_CL_ERR_(CL_INVALID_BUFFER_SIZE)
    EXALA_CL_ERR_(CL_INVALID_BINARY)
    EXALA_CL_ERR_(CL_INVALID_BUILD_OPTIONS)
    EXALA_CL_ERR_(CL_INVALID_PROGRAM)
    EXALA_CL_ERR_(CL_INVALID_PROGRAM_EXECUTABLE)
    EXALA_CL_ERR_(CL_INVALID_KERNEL_NAME)
    EXALA_CL_ERR_(CL_INVALID_KERNEL_DEFINITION)
    EXALA_CL_ERR_(CL_INVALID_KERNEL)
    EXALA_CL_ERR_(CL_INVALID_ARG_INDEX)
    EXALA_CL_ERR_(CL_INVALID_ARG_VALUE)
    EXALA_CL_ERR_(CL_INVALID_ARG_SIZE)
    EXALA_CL_ERR_(CL_INVALID_KERNEL_ARGS)
    EXALA_CL_ERR_(CL_INVALID_WORK_DIMENSION)
    EXALA_CL_ERR_(CL_INVALID_WORK_GROUP_SIZE)
    EXALA_CL_ERR_(CL_INVALID_WORK_ITEM_SIZE)
    EXALA_CL_ERR_(CL_INVALID_GLOBAL_OFFSET)
    EXALA_CL_ERR_(CL_INVALID_EVENT_WAIT_LIST)
    EXALA_CL_ERR_(CL_INVALID_EVENT)
    EXALA_CL_ERR_(CL_INVALID_OPERATION)
    EXALA_CL_ERR_(CL_INVALID_GLOBAL_WORK_SIZE)
    EXALA_CL_ERR_(CL_MISALIGNED_SUB_BUFFER_OFFSET)
    EXALA_CL_ERR_(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
#undef EXALA_CL_ERR_
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR (no OpenCL platform: is an ICD installed?)";
    default:
      return "OpenCL error " + std::to_string(err);
  }
}

void throw_cl(cl_int err, const std::string& what) {
  throw error("exala: OpenCL: " + what + " failed: " + error_name(err));
}

namespace {

bool has_extension(const std::string& list, std::string_view ext) {
  std::size_t p = 0;
  while ((p = list.find(ext, p)) != std::string::npos) {
    const std::size_t e = p + ext.size();
    if ((p == 0 || list[p - 1] == ' ') && (e == list.size() || list[e] == ' ')) return true;
    p = e;
  }
  return false;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct found_device {
  cl::Platform platform;
  cl::Device device;
  device_info info;
};

// Every device of every platform; empty when there is no platform.
std::vector<found_device> enumerate() {
  std::vector<found_device> out;
  std::vector<cl::Platform> platforms;
  if (cl::Platform::get(&platforms) != CL_SUCCESS) return out;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devs;
    if (platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devs) != CL_SUCCESS) continue;
    std::string pname;
    platforms[p].getInfo(CL_PLATFORM_NAME, &pname);
    for (std::size_t d = 0; d < devs.size(); ++d) {
      device_info i;
      i.platform_index = static_cast<int>(p);
      i.device_index = static_cast<int>(d);
      i.platform = pname.c_str();  // drop a trailing NUL some ICDs include
      std::string s;
      devs[d].getInfo(CL_DEVICE_NAME, &s);
      i.name = s.c_str();
      devs[d].getInfo(CL_DEVICE_VERSION, &s);
      i.version = s.c_str();
      std::string ext;
      devs[d].getInfo(CL_DEVICE_EXTENSIONS, &ext);
      cl_device_fp_config fp = 0;
      devs[d].getInfo(CL_DEVICE_DOUBLE_FP_CONFIG, &fp);
      i.fp64 = has_extension(ext.c_str(), "cl_khr_fp64") || fp != 0;
      i.int64_atomics = has_extension(ext.c_str(), "cl_khr_int64_base_atomics");
      cl_ulong g = 0, l = 0;
      devs[d].getInfo(CL_DEVICE_GLOBAL_MEM_SIZE, &g);
      devs[d].getInfo(CL_DEVICE_LOCAL_MEM_SIZE, &l);
      i.global_mem = static_cast<std::size_t>(g);
      i.local_mem = static_cast<std::size_t>(l);
      cl_uint cu = 0;
      devs[d].getInfo(CL_DEVICE_MAX_COMPUTE_UNITS, &cu);
      i.compute_units = static_cast<int>(cu);
      cl_device_type t = 0;
      devs[d].getInfo(CL_DEVICE_TYPE, &t);
      i.gpu = (t & CL_DEVICE_TYPE_GPU) != 0;
      out.push_back({platforms[p], devs[d], std::move(i)});
    }
  }
  return out;
}

std::string describe(const device_info& i) {
  return std::to_string(i.platform_index) + ":" + std::to_string(i.device_index) + " '" + i.platform +
         " / " + i.name + "'";
}

// Throws exala::error when the kernels cannot run on the device.
void require_usable(const device_info& i) {
  if (!i.fp64)
    throw error("exala: OpenCL device " + describe(i) +
                " has no double precision (cl_khr_fp64), which the exact kernels need");
  if (!i.int64_atomics)
    throw error("exala: OpenCL device " + describe(i) +
                " lacks cl_khr_int64_base_atomics, which the exact kernels need (local "
                "superaccumulator)");
}

bool all_digits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

// The device a spec names (see select_device); `arg` names the spec's source.
found_device find(const std::string& spec, const std::string& arg) {
  const std::vector<found_device> all = enumerate();
  if (all.empty())
    throw error("exala: no OpenCL platform or device found (is an OpenCL ICD installed?); " + arg +
                " = '" + spec + "' cannot be honoured");
  std::string list;
  for (const auto& f : all) list += (list.empty() ? "" : ", ") + describe(f.info);
  const std::size_t colon = spec.find(':');
  const std::string ps = spec.substr(0, colon);
  const std::string ds = colon == std::string::npos ? "0" : spec.substr(colon + 1);
  if (all_digits(ps) && all_digits(ds) && ps.size() < 6 && ds.size() < 6) {
    const int p = std::stoi(ps), d = std::stoi(ds);
    for (const auto& f : all)
      if (f.info.platform_index == p && f.info.device_index == d) return f;
    throw invalid_argument(arg, "'" + spec + "' names no OpenCL device (devices: " + list + ")");
  }
  const std::string needle = lower(spec);
  if (!needle.empty())
    for (const auto& f : all)
      if (lower(f.info.platform + " " + f.info.name).find(needle) != std::string::npos) return f;
  throw invalid_argument(arg, "'" + spec + "' matches no OpenCL device (devices: " + list + ")");
}

// The default: EXALA_OPENCL_DEVICE, else the first usable GPU, else the
// first usable device.
found_device choose_default() {
  const char* env = std::getenv("EXALA_OPENCL_DEVICE");
  if (env != nullptr && *env != '\0') return find(env, "EXALA_OPENCL_DEVICE");
  const std::vector<found_device> all = enumerate();
  if (all.empty()) throw error("exala: no OpenCL platform or device found (is an OpenCL ICD installed?)");
  for (const auto& f : all)
    if (f.info.gpu && f.info.fp64 && f.info.int64_atomics) return f;
  for (const auto& f : all)
    if (f.info.fp64 && f.info.int64_atomics) return f;
  std::string list;
  for (const auto& f : all) list += (list.empty() ? "" : ", ") + describe(f.info);
  throw error("exala: no OpenCL device with cl_khr_fp64 and cl_khr_int64_base_atomics (devices: " +
              list + ")");
}

// The guarded singleton: the current runtime, replaced by select_device.
struct registry {
  std::mutex m;
  std::shared_ptr<runtime> current;
};

registry& reg() {
  static registry r;
  return r;
}

std::shared_ptr<runtime> make_runtime(const found_device& f) {
  require_usable(f.info);
  return std::make_shared<runtime>(f.platform, f.device, f.info);
}

// A positive integer from the environment (at most `max`), or `fallback`.
std::size_t env_size(const char* var, std::size_t fallback, std::size_t max) {
  const char* v = std::getenv(var);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v, &end, 10);
  if (*end != '\0' || x == 0 || x > max || v[0] == '-')
    throw invalid_argument(var, "must be an integer from 1 to " + std::to_string(max) + ", got '" + v + "'");
  return static_cast<std::size_t>(x);
}

}  // namespace

runtime::runtime(const cl::Platform& platform, const cl::Device& device, const device_info& info)
    : info_(info), platform_(platform), device_(device) {
  cl_int err = CL_SUCCESS;
  context_ = cl::Context(device_, nullptr, nullptr, nullptr, &err);
  check(err, "clCreateContext on " + describe(info_));
  queue_ = cl::CommandQueue(context_, device_, 0, &err);
  check(err, "clCreateCommandQueue");
  std::size_t max_wg = 0;
  device_.getInfo(CL_DEVICE_MAX_WORK_GROUP_SIZE, &max_wg);
  // GPUs: 256 work-items per group and 8 groups per compute unit keep enough
  // loads in flight; CPU devices (PoCL) run a group per core at a time, and
  // large groups measured best there (PoCL vectorizes across work-items).
  // Tuning knobs (results never depend on them): EXALA_OPENCL_LOCAL_SIZE (a
  // power of two), EXALA_OPENCL_GROUPS_PER_CU.
  std::size_t want = env_size("EXALA_OPENCL_LOCAL_SIZE", info_.gpu ? 256 : 1024, 4096);
  if ((want & (want - 1)) != 0)
    throw invalid_argument("EXALA_OPENCL_LOCAL_SIZE", "must be a power of two, got " + std::to_string(want));
  while (want > 1 && want > max_wg) want /= 2;
  local_size_ = want;
  const std::size_t cu = info_.compute_units > 0 ? static_cast<std::size_t>(info_.compute_units) : 1;
  groups_ = env_size("EXALA_OPENCL_GROUPS_PER_CU", info_.gpu ? 8 : 4, 4096) * cu;
  cl_bool unified = CL_FALSE;
  cl_device_type type = 0;
  device_.getInfo(CL_DEVICE_HOST_UNIFIED_MEMORY, &unified);
  device_.getInfo(CL_DEVICE_TYPE, &type);
  zero_copy_ = unified == CL_TRUE && (type & CL_DEVICE_TYPE_CPU) != 0;
}

cl::Program runtime::program(const std::string& name) {
  std::lock_guard<std::mutex> lock(programs_mutex_);
  if (auto it = programs_.find(name); it != programs_.end()) return it->second;
  std::size_t count = 0;
  const embedded_source* table = embedded_sources(count);
  const char* own = nullptr;
  for (std::size_t i = 0; i < count; ++i)
    if (name == table[i].name) own = table[i].text;
  if (own == nullptr || name == "common")
    throw error("exala: OpenCL program '" + name + "' is not embedded in this library");
  cl::Program prog = build(name, own);
  programs_.emplace(name, prog);
  return prog;
}

cl::Program runtime::build(const std::string& name, const std::string& text) {
  std::size_t count = 0;
  const embedded_source* table = embedded_sources(count);
  const char* common = nullptr;
  for (std::size_t i = 0; i < count; ++i)
    if (std::string_view(table[i].name) == "common") common = table[i].text;
  if (common == nullptr) throw error("exala: OpenCL program 'common' is not embedded in this library");
  const std::string source = std::string(common) + "\n" + text;
  cl_int err = CL_SUCCESS;
  cl::Program prog(context_, source, false, &err);
  check(err, "clCreateProgramWithSource(" + name + ")");
  err = prog.build(std::vector<cl::Device>{device_}, build_options);
  if (err != CL_SUCCESS) {
    std::string log;
    prog.getBuildInfo(device_, CL_PROGRAM_BUILD_LOG, &log);
    throw error("exala: OpenCL program '" + name + "' (common.cl + " + name + ".cl) failed to build on " +
                describe(info_) + ": " + error_name(err) + "\nbuild log:\n" + log);
  }
  return prog;
}

cl::Kernel runtime::kernel(const std::string& program_name, const std::string& kernel_name) {
  cl::Program prog = program(program_name);
  cl_int err = CL_SUCCESS;
  cl::Kernel k(prog, kernel_name.c_str(), &err);
  if (err != CL_SUCCESS)
    throw_cl(err, "clCreateKernel(" + program_name + ", " + kernel_name + ")");
  return k;
}

cl::Kernel& runtime::shared_kernel(const std::string& program_name, const std::string& kernel_name) {
  const std::string key = program_name + "/" + kernel_name;
  if (auto it = kernels_.find(key); it != kernels_.end()) return it->second;
  return kernels_.emplace(key, kernel(program_name, kernel_name)).first->second;
}

cl::Buffer runtime::scratch(int slot, std::size_t bytes) {
  if (slot < 0 || slot >= 8) throw invalid_argument("slot", "must be in [0, 8), got " + std::to_string(slot));
  if (bytes == 0) bytes = 8;
  if (scratch_bytes_[slot] < bytes) {
    scratch_[slot] = cl::Buffer();  // release first: device memory may be tight
    scratch_bytes_[slot] = 0;
    cl_int err = CL_SUCCESS;
    scratch_[slot] = cl::Buffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &err);
    check(err, "clCreateBuffer (scratch)");
    scratch_bytes_[slot] = bytes;
  }
  return scratch_[slot];
}

std::shared_ptr<runtime> current_runtime() {
  registry& r = reg();
  std::lock_guard<std::mutex> lock(r.m);
  if (!r.current) r.current = make_runtime(choose_default());
  return r.current;
}

const cl::Buffer& mem(const buffer& b, const runtime& rt, const char* arg) {
  static const cl::Buffer none;
  const buffer::impl* p = b.get();
  if (p == nullptr || b.size() == 0) return none;
  if (p->rt.get() != &rt)
    throw invalid_argument(arg, "is a buffer on another OpenCL device or context (" +
                                    describe(p->rt->info()) + "; the current device is " +
                                    describe(rt.info()) + ")");
  return p->mem;
}

}  // namespace exala::opencl::detail

namespace exala::opencl {

using detail::check;

std::vector<device_info> devices() {
  std::vector<device_info> out;
  try {
    for (auto& f : detail::enumerate()) out.push_back(std::move(f.info));
  } catch (...) {  // a broken ICD is "no device" here, never an error
  }
  return out;
}

void select_device(const std::string& spec) {
  const detail::found_device f = detail::find(spec, "spec");
  detail::registry& r = detail::reg();
  {
    std::lock_guard<std::mutex> lock(r.m);
    // The current device again: keep its context (and its buffers valid).
    if (r.current && r.current->info().platform_index == f.info.platform_index &&
        r.current->info().device_index == f.info.device_index)
      return;
  }
  auto rt = detail::make_runtime(f);
  std::lock_guard<std::mutex> lock(r.m);
  r.current = std::move(rt);
}

device_info current_device() { return detail::current_runtime()->info(); }

void finish() {
  auto rt = detail::current_runtime();
  check(rt->queue().finish(), "clFinish");
}

buffer::buffer() noexcept = default;
buffer::~buffer() = default;
buffer::buffer(buffer&&) noexcept = default;
buffer& buffer::operator=(buffer&&) noexcept = default;

namespace {
// count doubles in bytes, within the one element limit of exala/checked.hpp
// (2^60 - 1 elements, so the byte count cannot wrap).
std::size_t checked_bytes(std::size_t count, const char* arg) {
  if (count > static_cast<std::size_t>(exala::detail::max_elements))
    throw invalid_argument(arg, "is too large: " + std::to_string(count) +
                                    " doubles (at most 2^60 - 1)");
  return count * sizeof(double);
}
}  // namespace

buffer::buffer(std::size_t count) : size_(0) {
  auto rt = detail::current_runtime();
  impl_ = std::make_unique<impl>();
  impl_->rt = rt;
  if (count == 0) return;
  const std::size_t bytes = checked_bytes(count, "count");
  cl_int err = CL_SUCCESS;
  impl_->mem = cl::Buffer(rt->context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
  check(err, "clCreateBuffer(" + std::to_string(bytes) + " bytes)");
  const double zero = 0.0;
  check(rt->queue().enqueueFillBuffer(impl_->mem, zero, 0, bytes), "clEnqueueFillBuffer");
  check(rt->queue().finish(), "clFinish");
  size_ = count;
}

buffer::buffer(const double* data, std::size_t count) : size_(0) {
  if (count > 0 && data == nullptr)
    throw invalid_argument("data", "is a null pointer with count = " + std::to_string(count));
  auto rt = detail::current_runtime();
  impl_ = std::make_unique<impl>();
  impl_->rt = rt;
  if (count == 0) return;
  const std::size_t bytes = checked_bytes(count, "count");
  cl_int err = CL_SUCCESS;
  impl_->mem = cl::Buffer(rt->context(), CL_MEM_READ_WRITE, bytes, nullptr, &err);
  check(err, "clCreateBuffer");
  check(rt->queue().enqueueWriteBuffer(impl_->mem, CL_TRUE, 0, bytes, data), "clEnqueueWriteBuffer");
  size_ = count;
}

namespace {
void check_range(std::size_t size, std::size_t count, std::size_t offset) {
  if (offset > size || count > size - offset)
    throw invalid_argument("count", "with offset " + std::to_string(offset) + " reaches element " +
                                        std::to_string(offset) + " + " + std::to_string(count) +
                                        " of a buffer of " + std::to_string(size) + " doubles");
}
}  // namespace

void buffer::write(const double* src, std::size_t count, std::size_t offset) {
  check_range(size_, count, offset);
  if (count == 0) return;
  if (src == nullptr) throw invalid_argument("src", "is a null pointer with count = " + std::to_string(count));
  check(impl_->rt->queue().enqueueWriteBuffer(impl_->mem, CL_TRUE, offset * sizeof(double),
                                              count * sizeof(double), src),
        "clEnqueueWriteBuffer");
}

void buffer::read(double* dst, std::size_t count, std::size_t offset) const {
  check_range(size_, count, offset);
  if (count == 0) return;
  if (dst == nullptr) throw invalid_argument("dst", "is a null pointer with count = " + std::to_string(count));
  check(impl_->rt->queue().enqueueReadBuffer(impl_->mem, CL_TRUE, offset * sizeof(double),
                                             count * sizeof(double), dst),
        "clEnqueueReadBuffer");
}

}  // namespace exala::opencl
