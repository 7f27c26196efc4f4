// capi.hpp - the translation layer between the C API (exala.h) and the C++
// library, shared by the sources of libexala.so (internal; not installed).
//
// Every exported function is one call of guard(): the C++ work runs in a
// lambda, an exception becomes a status (status_from_exception, the one place
// that maps exception types to exala_status), and the thread's last-error
// record is set or cleared. Arguments that only the C layer has (enum values,
// output pointers, exec structs, handles) are checked here, with messages that
// name the argument as the C++ exceptions do. Nothing throws across the C
// boundary, prints or aborts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exala.h"
#include "exala/backend.hpp"
#include "exala/blas3.hpp"
#include "exala/error.hpp"
#include "exala/rounding.hpp"
#include "exala/stripe_lu.hpp"
#include "exala/superaccumulator.hpp"

// The opaque handles of exala.h.
struct exala_superacc {
  exala::superaccumulator acc;
};

namespace exala::capi {

// --------------------------------------------------------------- errors

// Clears this thread's last error (a successful call).
void clear_error() noexcept;
// Must be called inside a catch block: maps the exception in flight to a
// status, records its message and index for exala_last_error(), returns it.
exala_status status_from_exception() noexcept;

// Runs fn; EXALA_SUCCESS when it returns, the mapped status when it throws.
template <class Fn>
exala_status guard(Fn&& fn) noexcept {
  try {
    fn();
  } catch (...) {
    return status_from_exception();
  }
  clear_error();
  return EXALA_SUCCESS;
}

// -------------------------------------------------- argument checks

// A pointer argument that must not be null (inputs and handles).
template <class T>
T* require(T* p, const char* arg) {
  if (p == nullptr) throw invalid_argument(arg, "must not be NULL");
  return p;
}
// An output pointer: must not be null; the caller writes it last, on success.
template <class T>
T& output(T* p, const char* arg) {
  if (p == nullptr) throw invalid_argument(arg, "must not be NULL (it receives the result)");
  return *p;
}

// ------------------------------------------------ enum conversion tables

// One C enumerator: its value, its name in exala.h, the C++ value.
template <class E>
struct enum_entry {
  int value;
  const char* name;
  E cpp;
};

// The C++ value of the C enum value v, or invalid_argument naming `arg` and
// listing the accepted values ("must be EXALA_ROW_MAJOR (101) or
// EXALA_COL_MAJOR (102), got 7").
template <class E, std::size_t N>
E from_c(int v, const char* arg, const enum_entry<E> (&table)[N]) {
  for (const auto& e : table)
    if (e.value == v) return e.cpp;
  std::string expected;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) expected += (i + 1 == N) ? " or " : ", ";
    expected += std::string(table[i].name) + " (" + std::to_string(table[i].value) + ")";
  }
  throw invalid_argument(arg, "must be " + expected + ", got " + std::to_string(v));
}

// The C enum value of the C++ value e (every C++ value has one).
template <class E, std::size_t N>
int to_c(E e, const enum_entry<E> (&table)[N]) noexcept {
  for (const auto& x : table)
    if (x.cpp == e) return x.value;
  return table[0].value;
}

inline constexpr enum_entry<layout> layouts[] = {
    {EXALA_ROW_MAJOR, "EXALA_ROW_MAJOR", layout::row_major},
    {EXALA_COL_MAJOR, "EXALA_COL_MAJOR", layout::col_major}};
inline constexpr enum_entry<transpose> transposes[] = {
    {EXALA_NO_TRANS, "EXALA_NO_TRANS", transpose::none},
    {EXALA_TRANS, "EXALA_TRANS", transpose::trans}};
inline constexpr enum_entry<uplo> uplos[] = {{EXALA_UPPER, "EXALA_UPPER", uplo::upper},
                                             {EXALA_LOWER, "EXALA_LOWER", uplo::lower}};
inline constexpr enum_entry<diag> diags[] = {{EXALA_NON_UNIT, "EXALA_NON_UNIT", diag::non_unit},
                                             {EXALA_UNIT, "EXALA_UNIT", diag::unit}};
inline constexpr enum_entry<side> sides[] = {{EXALA_LEFT, "EXALA_LEFT", side::left},
                                             {EXALA_RIGHT, "EXALA_RIGHT", side::right}};
inline constexpr enum_entry<rounding> roundings[] = {
    {EXALA_ROUND_NEAREST_EVEN, "EXALA_ROUND_NEAREST_EVEN", rounding::to_nearest_even},
    {EXALA_ROUND_TOWARD_ZERO, "EXALA_ROUND_TOWARD_ZERO", rounding::toward_zero},
    {EXALA_ROUND_UPWARD, "EXALA_ROUND_UPWARD", rounding::upward},
    {EXALA_ROUND_DOWNWARD, "EXALA_ROUND_DOWNWARD", rounding::downward}};
inline constexpr enum_entry<backend> backends[] = {
    {EXALA_BACKEND_REFERENCE, "EXALA_BACKEND_REFERENCE", backend::reference},
    {EXALA_BACKEND_SIMD, "EXALA_BACKEND_SIMD", backend::simd},
    {EXALA_BACKEND_OMP, "EXALA_BACKEND_OMP", backend::omp},
    {EXALA_BACKEND_OPENCL, "EXALA_BACKEND_OPENCL", backend::opencl},
    {EXALA_BACKEND_CUDA, "EXALA_BACKEND_CUDA", backend::cuda}};
inline constexpr enum_entry<stripe_order> stripe_orders[] = {
    {EXALA_ORDER_BASIC, "EXALA_ORDER_BASIC", stripe_order::basic},
    {EXALA_ORDER_ZIGZAG, "EXALA_ORDER_ZIGZAG", stripe_order::zigzag},
    {EXALA_ORDER_META_ZIGZAG, "EXALA_ORDER_META_ZIGZAG", stripe_order::meta_zigzag}};
inline constexpr enum_entry<pivoting> pivotings[] = {
    {EXALA_PIVOT_LOCAL, "EXALA_PIVOT_LOCAL", pivoting::local},
    {EXALA_PIVOT_PARTIAL, "EXALA_PIVOT_PARTIAL", pivoting::partial}};

// The four enums of a triangular operand, converted in argument order.
struct triangle {
  layout lay;
  uplo ul;
  transpose tr;
  diag dg;
};
inline triangle triangle_of(int lay, int ul, int tr, int dg) {
  const layout l = from_c(lay, "layout", layouts);
  const uplo u = from_c(ul, "uplo", uplos);
  const transpose t = from_c(tr, "trans", transposes);
  return {l, u, t, from_c(dg, "diag", diags)};
}

// ------------------------------------------------------------ execution

// The C++ exec of one call: *ex checked field by field (arguments named
// "ex->backend", ...), or the process-wide default when ex is NULL (which
// fails, naming the variable, if EXALA_BACKEND or EXALA_NUM_THREADS is bad).
exec exec_of(const exala_exec* ex);

// -------------------------------------------------------------- helpers

// The accumulator inside a handle (invalid_argument naming `arg` if NULL).
inline superaccumulator& acc_of(exala_superacc* a, const char* arg) {
  return require(a, arg)->acc;
}
inline const superaccumulator& acc_of(const exala_superacc* a, const char* arg) {
  return require(a, arg)->acc;
}

// The directory list of exala.h's (dirs, ndirs) pairs.
std::vector<std::string> dirs_of(const char* const* dirs, int ndirs);

}  // namespace exala::capi
