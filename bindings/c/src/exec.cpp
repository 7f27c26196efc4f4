// exec.cpp - execution options of the C API: the checked conversion of an
// exala_exec, the process-wide default (with the environment variables
// EXALA_BACKEND and EXALA_NUM_THREADS, read once on first use), the backend
// names and the SIMD kernel set.
#include <charconv>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>
#include <string_view>

#include "capi.hpp"
#include "exala/detail/exec.hpp"

namespace exala::capi {
namespace {

constexpr exala_exec initial_exec{EXALA_BACKEND_SIMD, 0, EXALA_ROUND_NEAREST_EVEN, 0};

// Checks every field; `prefix` names the struct in messages ("ex").
exec checked(const exala_exec& c, const std::string& prefix) {
  exec e;
  e.backend = from_c(c.backend, (prefix + "->backend").c_str(), backends);
  if (!is_compiled_in(e.backend))
    throw not_compiled_in("backend '" + std::string(to_string(e.backend)) + "'");
  detail::check_threads(c.threads, prefix + "->threads");
  e.threads = c.threads;
  e.mode = from_c(c.rounding, (prefix + "->rounding").c_str(), roundings);
  if (c.block < 0)
    throw invalid_argument(prefix + "->block", "must be >= 0 (0 chooses), got " +
                                                   std::to_string(c.block));
  e.block = c.block;
  return e;
}

// The process-wide default. `env_error` holds the failure of reading the
// environment (a bad EXALA_BACKEND / EXALA_NUM_THREADS): every call that needs
// the default rethrows it until exala_set_default_exec replaces the default.
struct default_state {
  std::mutex mutex;
  bool environment_read = false;
  exala_exec value = initial_exec;
  std::exception_ptr env_error;
};
default_state& state() {
  static default_state s;
  return s;
}

int threads_from_environment(const char* v) {
  const std::string_view s(v);
  int t = -1;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), t);
  if (ec != std::errc() || end != s.data() + s.size() || t < 0 || t > max_threads)
    throw invalid_argument("EXALA_NUM_THREADS", "has value '" + std::string(s) +
                                                    "' (expected an integer in [0, " +
                                                    std::to_string(max_threads) + "])");
  return t;
}

// Reads the environment into the default, once. Called with the mutex held.
void read_environment(default_state& s) {
  if (s.environment_read) return;
  s.environment_read = true;
  try {
    exala_exec v = initial_exec;
    if (const char* b = std::getenv("EXALA_BACKEND"); b != nullptr && *b != '\0') {
      const backend cpp = parse_backend(b, "EXALA_BACKEND");
      if (!is_compiled_in(cpp))
        throw not_compiled_in("backend '" + std::string(b) + "' (named by EXALA_BACKEND)");
      v.backend = to_c(cpp, backends);
    }
    if (const char* t = std::getenv("EXALA_NUM_THREADS"); t != nullptr && *t != '\0')
      v.threads = threads_from_environment(t);
    s.value = v;
  } catch (...) {
    s.env_error = std::current_exception();
  }
}

exala_exec current_default() {
  default_state& s = state();
  const std::lock_guard lock(s.mutex);
  read_environment(s);
  if (s.env_error) std::rethrow_exception(s.env_error);
  return s.value;
}

void replace_default(const exala_exec& v) {
  checked(v, "ex");
  default_state& s = state();
  const std::lock_guard lock(s.mutex);
  s.environment_read = true;  // an explicit default wins over the environment
  s.env_error = nullptr;
  s.value = v;
}

}  // namespace

exec exec_of(const exala_exec* ex) {
  if (ex == nullptr) return checked(current_default(), "default exec");
  return checked(*ex, "ex");
}

}  // namespace exala::capi

using namespace exala::capi;

exala_status exala_exec_init(exala_exec* ex) {
  return guard([&] { output(ex, "ex") = initial_exec; });
}

exala_status exala_set_default_exec(const exala_exec* ex) {
  return guard([&] { replace_default(*require(ex, "ex")); });
}

exala_status exala_get_default_exec(exala_exec* ex) {
  return guard([&] {
    exala_exec& out = output(ex, "ex");
    out = current_default();
  });
}

exala_status exala_set_backend(exala_backend backend) {
  return guard([&] {
    const exala::backend b = from_c(backend, "backend", backends);
    if (!exala::is_compiled_in(b))
      throw exala::not_compiled_in("backend '" + std::string(exala::to_string(b)) + "'");
    exala_exec v = current_default();
    v.backend = backend;
    replace_default(v);
  });
}

exala_status exala_set_threads(int threads) {
  return guard([&] {
    exala::detail::check_threads(threads);
    exala_exec v = current_default();
    v.threads = threads;
    replace_default(v);
  });
}

exala_status exala_backend_from_string(const char* name, exala_backend* backend) {
  return guard([&] {
    exala_backend& out = output(backend, "backend");
    const exala::backend b = exala::parse_backend(require(name, "name"), "name");
    out = static_cast<exala_backend>(to_c(b, backends));
  });
}

// exala::to_string returns the X-macro's string literals (#name), so .data()
// is a static, NUL-terminated string.
const char* exala_backend_name(exala_backend backend) {
  for (const auto& e : backends)
    if (e.value == static_cast<int>(backend)) return exala::to_string(e.cpp).data();
  return nullptr;
}

int exala_backend_compiled_in(exala_backend backend) {
  for (const auto& e : backends)
    if (e.value == static_cast<int>(backend)) return exala::is_compiled_in(e.cpp) ? 1 : 0;
  return 0;
}

exala_status exala_kernel_set(const char** name) {
  return guard([&] {
    const char*& out = output(name, "name");
    switch (exala::active_kernel_set()) {
      case exala::kernel_set::avx512: out = "avx512"; break;
      case exala::kernel_set::avx2: out = "avx2"; break;
      case exala::kernel_set::generic: out = "generic"; break;
    }
  });
}
