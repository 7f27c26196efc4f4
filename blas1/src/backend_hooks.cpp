// The registration point of exala/detail/backend_hooks.hpp: one atomic
// pointer per (backend, kind); the system BLAS lookup.
#include "exala/detail/backend_hooks.hpp"

#include <dlfcn.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "exala/error.hpp"

namespace exala::detail {

namespace {

constexpr std::size_t backends = 0
#define EXALA_COUNT_(name, desc) +1
    EXALA_BACKENDS(EXALA_COUNT_)
#undef EXALA_COUNT_
    ;
constexpr std::size_t kinds = std::size_t(hook_kind::stripe_engine) + 1;

std::array<std::atomic<const void*>, backends * kinds> tables{};

std::atomic<const void*>& slot(backend b, hook_kind k) {
  return tables[std::size_t(b) * kinds + std::size_t(k)];
}

// The library that holds a backend's code.
const char* library_of(backend b) {
  return b == backend::opencl ? "exala::gpu" : b == backend::cuda ? "exala::gpu_cuda" : "exala";
}

}  // namespace

void register_hooks(backend b, hook_kind k, const void* table) noexcept {
  slot(b, k).store(table, std::memory_order_release);
}

#ifdef EXALA_HAVE_CUDA
namespace {

std::once_flag cuda_plugin_once;
std::string cuda_plugin_error;  // written once, under cuda_plugin_once

std::string directory_of_this_module() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&registered_hooks), &info) == 0 || info.dli_fname == nullptr) return {};
  const std::string path = info.dli_fname;
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// dlopen's message for `path`, or "" when it loaded and registered.
std::string try_cuda_plugin(const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) {
    const char* e = dlerror();
    return e ? e : path + ": cannot be loaded";
  }
  using entry_fn = int (*)(int, const char*, plugin_register_fn);
  auto entry = reinterpret_cast<entry_fn>(dlsym(h, "exala_cuda_plugin_register"));
  if (entry == nullptr) return path + ": no exala_cuda_plugin_register (not an ExaLA CUDA plugin)";
  const int rc = entry(plugin_abi, EXALA_PLUGIN_VERSION, &register_hooks);
  if (rc == 1) return path + ": built from another ExaLA version or build (this is " EXALA_PLUGIN_VERSION ")";
  if (rc != 0) return path + ": its registration failed";
  return {};  // (never closed: the tables and engines live in it)
}

void load_cuda_plugin() {
  std::vector<std::string> tried;
  if (const char* env = std::getenv("EXALA_CUDA_PLUGIN"); env != nullptr && *env != '\0') {
    tried.emplace_back(env);
  } else {
    const std::string dir = directory_of_this_module();
    if (!dir.empty()) {
      tried.push_back(dir + "/" EXALA_CUDA_PLUGIN_FILE);
      tried.push_back(dir + "/../lib/" EXALA_CUDA_PLUGIN_FILE);
      tried.push_back(dir + "/" EXALA_BIN_TO_LIB "/" EXALA_CUDA_PLUGIN_FILE);
    }
    tried.push_back(EXALA_INSTALL_LIBDIR "/" EXALA_CUDA_PLUGIN_FILE);
    tried.emplace_back(EXALA_CUDA_PLUGIN_FILE);  // the loader's search path
  }
  std::string errors;
  for (const std::string& path : tried) {
    const std::string e = try_cuda_plugin(path);
    if (e.empty()) return;
    errors += (errors.empty() ? "" : "; ") + e;
  }
  cuda_plugin_error = "the cuda backend's plugin " EXALA_CUDA_PLUGIN_FILE " could not be loaded (" + errors +
                      "); set EXALA_CUDA_PLUGIN to its path";
}

}  // namespace
#endif

const void* registered_hooks(backend b, hook_kind k) noexcept {
  const void* t = slot(b, k).load(std::memory_order_acquire);
#ifdef EXALA_HAVE_CUDA
  if (t == nullptr && b == backend::cuda) {
    try {
      std::call_once(cuda_plugin_once, load_cuda_plugin);
    } catch (...) {  // (bad_alloc while building the message: reported as not registered)
    }
    t = slot(b, k).load(std::memory_order_acquire);
  }
#endif
  return t;
}

std::string plugin_load_error(backend b) {
#ifdef EXALA_HAVE_CUDA
  if (b == backend::cuda) {
    // Safe to read: written inside the once call, which every caller that
    // got here has completed (registered_hooks ran it first).
    return cuda_plugin_error;
  }
#endif
  (void)b;
  return {};
}

void throw_not_registered(backend b, const char* routine) {
  const std::string name(to_string(b));
  if (const std::string why = plugin_load_error(b); !why.empty())
    throw error(std::string("exala: ") + (routine ? std::string(routine) + ": " : std::string()) + "backend '" +
                name + "': " + why);
  throw error(std::string("exala: ") + (routine ? std::string(routine) + ": " : std::string()) +
              "backend '" + name + "' is compiled in but not registered in this program: link " +
              library_of(b) + " and include <exala/" + name + ".hpp> (or call exala::" + name +
              "::register_backend())");
}

symbol_lookup system_blas_lookup() noexcept {
  return reinterpret_cast<symbol_lookup>(dlsym(RTLD_DEFAULT, "exala_blas_abi_next"));
}

}  // namespace exala::detail
