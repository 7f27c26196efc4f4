// accum.cpp - the error-free transforms (exala/arith.hpp) and the
// superaccumulator (exala/superaccumulator.hpp, exala/exact_ops.hpp) for C.
#include <cstring>
#include <memory>
#include <span>

#include "capi.hpp"
#include "exala/arith.hpp"
#include "exala/exact_ops.hpp"

using namespace exala::capi;

namespace {

// One error-free transform: both outputs checked, written together.
template <class Fn>
exala_status eft(double* hi, const char* hi_name, double* lo, const char* lo_name, Fn&& fn) {
  return guard([&] {
    double& h = output(hi, hi_name);
    double& l = output(lo, lo_name);
    const exala::eft_pair r = fn();
    h = r.hi;
    l = r.lo;
  });
}

// A new handle holding `value` (the handle is stored only on success).
exala_status new_handle(exala_superacc** out, const char* arg,
                        exala::superaccumulator (*make)(const void*, std::size_t),
                        const void* buffer, std::size_t size) {
  return guard([&] {
    exala_superacc*& o = output(out, arg);
    auto h = std::make_unique<exala_superacc>(exala_superacc{make(buffer, size)});
    o = h.release();
  });
}

exala::superaccumulator make_zero(const void*, std::size_t) { return {}; }

exala::superaccumulator make_deserialized(const void* buffer, std::size_t size) {
  if (size > 0) require(buffer, "buffer");
  return exala::superaccumulator::deserialize(
      std::span<const std::byte>(static_cast<const std::byte*>(buffer), size));
}

// The rounded value of an accumulator, in a mode.
template <class Fn>
exala_status rounded(double* result, Fn&& fn) {
  return guard([&] {
    double& out = output(result, "result");
    out = fn();
  });
}

}  // namespace

// Exact: s + e = a + b (Knuth's TwoSum).
exala_status exala_two_sum(double a, double b, double* s, double* e) {
  return eft(s, "s", e, "e", [&] { return exala::two_sum(a, b); });
}
// Exact when |a| >= |b| or a == 0 (Dekker's FastTwoSum).
exala_status exala_fast_two_sum(double a, double b, double* s, double* e) {
  return eft(s, "s", e, "e", [&] { return exala::fast_two_sum(a, b); });
}
// Exact: p + e = a * b barring overflow and underflow of e (FMA TwoProd).
exala_status exala_two_prod(double a, double b, double* p, double* e) {
  return eft(p, "p", e, "e", [&] { return exala::two_prod(a, b); });
}
// Exact: hi + lo = a, 26 + 26 bits, for |a| < 2^996 (Veltkamp split).
exala_status exala_split(double a, double* hi, double* lo) {
  return eft(hi, "hi", lo, "lo", [&] { return exala::split(a); });
}
// Exact like exala_two_prod, without FMA (Dekker's TwoProduct).
exala_status exala_two_product_dekker(double a, double b, double* p, double* e) {
  return eft(p, "p", e, "e", [&] { return exala::two_product_dekker(a, b); });
}
// q = fl(a / b), q + r within 2^-105 relative of a / b (Langlois-Louvet).
exala_status exala_approx_two_div(double a, double b, double* q, double* r) {
  return eft(q, "q", r, "r", [&] { return exala::approx_two_div(a, b); });
}

// ------------------------------------------------------- superaccumulator

exala_status exala_superacc_create(exala_superacc** acc) {
  return new_handle(acc, "acc", make_zero, nullptr, 0);
}

void exala_superacc_destroy(exala_superacc* acc) { delete acc; }

exala_status exala_superacc_clear(exala_superacc* acc) {
  return guard([&] { acc_of(acc, "acc").clear(); });
}

exala_status exala_superacc_copy(const exala_superacc* src, exala_superacc* dst) {
  return guard([&] {
    const exala::superaccumulator& s = acc_of(src, "src");
    acc_of(dst, "dst") = s;
  });
}

// Exact: the held value becomes value + x.
exala_status exala_superacc_add(exala_superacc* acc, double x) {
  return guard([&] { acc_of(acc, "acc").add(x); });
}

// Exact: the held value becomes value + a*b (the product is not rounded).
exala_status exala_superacc_add_product(exala_superacc* acc, double a, double b) {
  return guard([&] { acc_of(acc, "acc").add_product(a, b); });
}

// Exact: acc += other.
exala_status exala_superacc_merge(exala_superacc* acc, const exala_superacc* other) {
  return guard([&] {
    const exala::superaccumulator& o = acc_of(other, "other");
    acc_of(acc, "acc").merge(o);
  });
}

exala_status exala_superacc_negate(exala_superacc* acc) {
  return guard([&] { acc_of(acc, "acc").negate(); });
}

exala_status exala_superacc_sign(const exala_superacc* acc, int* sign) {
  return guard([&] {
    int& out = output(sign, "sign");
    out = acc_of(acc, "acc").sign();
  });
}

// Correctly rounded: the exact value rounded once in `mode`.
exala_status exala_superacc_round(const exala_superacc* acc, exala_rounding mode, double* result) {
  return rounded(result, [&] {
    const exala::rounding m = from_c(mode, "mode", roundings);
    return acc_of(acc, "acc").round(m);
  });
}

// Correctly rounded: the exact square root of the exact value, rounded once.
exala_status exala_superacc_round_sqrt(const exala_superacc* acc, exala_rounding mode,
                                       double* result) {
  return rounded(result, [&] {
    const exala::rounding m = from_c(mode, "mode", roundings);
    return acc_of(acc, "acc").round_sqrt(m);
  });
}

exala_status exala_superacc_equal(const exala_superacc* a, const exala_superacc* b, int* equal) {
  return guard([&] {
    int& out = output(equal, "equal");
    out = acc_of(a, "a") == acc_of(b, "b") ? 1 : 0;
  });
}

size_t exala_superacc_serialized_size(void) { return exala::superaccumulator::serialized_size; }

// Exact: the serialized form holds the exact value and the flags.
exala_status exala_superacc_serialize(const exala_superacc* acc, void* buffer, size_t size) {
  constexpr std::size_t need = exala::superaccumulator::serialized_size;
  return guard([&] {
    const exala::superaccumulator& a = acc_of(acc, "acc");
    require(buffer, "buffer");
    if (size < need)
      throw exala::invalid_argument("size", "is " + std::to_string(size) + " bytes, less than the " +
                                                std::to_string(need) + " of a serialized accumulator");
    a.serialize(std::span<std::byte, need>(static_cast<std::byte*>(buffer), need));
  });
}

exala_status exala_superacc_deserialize(const void* buffer, size_t size, exala_superacc** acc) {
  return new_handle(acc, "acc", make_deserialized, buffer, size);
}

// Correctly rounded: round(alpha * S + beta * c), one rounding of the exact value.
exala_status exala_round_axpby(double alpha, const exala_superacc* s, double beta, double c,
                               exala_rounding mode, double* result) {
  return rounded(result, [&] {
    const exala::rounding m = from_c(mode, "mode", roundings);
    return exala::round_axpby(alpha, acc_of(s, "s"), beta, c, m);
  });
}

// Correctly rounded: round(S / d), one rounding of the exact quotient.
exala_status exala_round_div(const exala_superacc* s, double d, exala_rounding mode,
                             double* result) {
  return rounded(result, [&] {
    const exala::rounding m = from_c(mode, "mode", roundings);
    return exala::round_div(acc_of(s, "s"), d, m);
  });
}
