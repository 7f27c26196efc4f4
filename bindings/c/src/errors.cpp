// errors.cpp - the error model of the C API: the one mapping from C++
// exceptions to exala_status, the per-thread last-error record, the status
// names, and the version queries.
#include <exception>
#include <new>
#include <string>

#include "capi.hpp"

static_assert(EXALA_VERSION_MAJOR == EXALA_C_VERSION_MAJOR &&
                  EXALA_VERSION_MINOR == EXALA_C_VERSION_MINOR &&
                  EXALA_VERSION_PATCH == EXALA_C_VERSION_PATCH,
              "exala.h's EXALA_VERSION_* macros must match the project version in CMakeLists.txt");

namespace exala::capi {
namespace {

// This thread's last failure. `message` points into `text` or at a static
// string (when copying the message itself ran out of memory).
struct last_error_record {
  std::string text;
  const char* message = "";
  std::int64_t index = -1;
};
thread_local last_error_record last;

void record(const char* what, std::int64_t index) noexcept {
  last.index = index;
  try {
    last.text.assign(what);
    last.message = last.text.c_str();
  } catch (...) {
    last.message = "exala: out of memory while recording the error message";
  }
}

}  // namespace

void clear_error() noexcept {
  last.text.clear();
  last.message = "";
  last.index = -1;
}

exala_status status_from_exception() noexcept {
  try {
    throw;
  } catch (const invalid_argument& e) {
    record(e.what(), -1);
    return EXALA_ERROR_INVALID_ARGUMENT;
  } catch (const not_compiled_in& e) {
    record(e.what(), -1);
    return EXALA_ERROR_NOT_COMPILED_IN;
  } catch (const singular_matrix& e) {
    record(e.what(), e.row());
    return EXALA_ERROR_SINGULAR;
  } catch (const singular_pivot& e) {
    record(e.what(), e.column());
    return EXALA_ERROR_SINGULAR_PIVOT;
  } catch (const storage_error& e) {
    record(e.what(), e.stripe());
    return EXALA_ERROR_STORAGE;
  } catch (const solution_overflow& e) {
    record(e.what(), e.row());
    return EXALA_ERROR_OVERFLOW;
  } catch (const format_error& e) {
    record(e.what(), -1);
    return EXALA_ERROR_FORMAT;
  } catch (const std::bad_alloc&) {
    record("exala: out of memory", -1);
    return EXALA_ERROR_OUT_OF_MEMORY;
  } catch (const std::exception& e) {  // exala::error and everything else
    record(e.what(), -1);
    return EXALA_ERROR_RUNTIME;
  } catch (...) {
    record("exala: internal error: an exception of unknown type (please report this)", -1);
    return EXALA_ERROR_INTERNAL;
  }
}

std::vector<std::string> dirs_of(const char* const* dirs, int ndirs) {
  if (ndirs < 1) throw invalid_argument("ndirs", "must be >= 1, got " + std::to_string(ndirs));
  require(dirs, "dirs");
  std::vector<std::string> v;
  for (int i = 0; i < ndirs; ++i) {
    const std::string name = "dirs[" + std::to_string(i) + "]";
    v.emplace_back(require(dirs[i], name.c_str()));
  }
  return v;
}

}  // namespace exala::capi

const char* exala_status_string(exala_status status) {
  switch (status) {
#define EXALA_C_STATUS_(s) \
  case s:                  \
    return #s;
    EXALA_C_STATUS_(EXALA_SUCCESS)
    EXALA_C_STATUS_(EXALA_ERROR_INVALID_ARGUMENT)
    EXALA_C_STATUS_(EXALA_ERROR_NOT_COMPILED_IN)
    EXALA_C_STATUS_(EXALA_ERROR_SINGULAR)
    EXALA_C_STATUS_(EXALA_ERROR_SINGULAR_PIVOT)
    EXALA_C_STATUS_(EXALA_ERROR_STORAGE)
    EXALA_C_STATUS_(EXALA_ERROR_FORMAT)
    EXALA_C_STATUS_(EXALA_ERROR_OUT_OF_MEMORY)
    EXALA_C_STATUS_(EXALA_ERROR_RUNTIME)
    EXALA_C_STATUS_(EXALA_ERROR_INTERNAL)
    EXALA_C_STATUS_(EXALA_ERROR_OVERFLOW)
#undef EXALA_C_STATUS_
  }
  return "EXALA_STATUS_UNKNOWN";
}

const char* exala_last_error(void) { return exala::capi::last.message; }

int64_t exala_last_error_index(void) { return exala::capi::last.index; }

const char* exala_version(void) { return EXALA_C_VERSION; }

void exala_version_numbers(int* major, int* minor, int* patch) {
  if (major != nullptr) *major = EXALA_C_VERSION_MAJOR;
  if (minor != nullptr) *minor = EXALA_C_VERSION_MINOR;
  if (patch != nullptr) *patch = EXALA_C_VERSION_PATCH;
}
