// mpi/src/reduce.cpp - distributed exact reductions: local superaccumulators,
// serialized, merged by a commutative MPI_Op (exala/mpi.hpp).
//
// Assumptions: every rank runs the same ExaLA build (the serialized format
// carries a version and the digit count, and the op checks them); MPI moves
// the bytes unchanged (MPI_BYTE elements, no conversion).
#include <algorithm>
#include <array>
#include <climits>
#include <cstddef>
#include <cstring>
#include <vector>

#include "exala/blas1.hpp"
#include "exala/mpi.hpp"

namespace exala::mpi {

namespace {

constexpr std::size_t acc_bytes = superaccumulator::serialized_size;
using packed = std::span<std::byte, acc_bytes>;

// inout[i] := in[i] + inout[i], exactly. Called by MPI with our own
// serializations only; a malformed element (impossible unless memory was
// corrupted) turns the result into NaN rather than throwing through MPI's C
// frames.
void merge_elements(void* in, void* inout, int* len, MPI_Datatype*) {
  auto* a = static_cast<const std::byte*>(in);
  auto* b = static_cast<std::byte*>(inout);
  for (int i = 0; i < *len; ++i, a += acc_bytes, b += acc_bytes) {
    try {
      superaccumulator s = superaccumulator::deserialize({b, acc_bytes});
      s.merge(superaccumulator::deserialize({a, acc_bytes}));
      s.serialize(packed(b, acc_bytes));
    } catch (...) {
      superaccumulator nan;
      nan.add(__builtin_nan(""));
      nan.serialize(packed(b, acc_bytes));
    }
  }
}

struct registry {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int keyval = MPI_KEYVAL_INVALID;
};
registry reg;

// Attributes of MPI_COMM_SELF are deleted at the start of MPI_Finalize: the
// op and the type are freed there, and made again if MPI is ever used anew.
int free_at_finalize(MPI_Comm, int, void*, void*) {
  if (reg.op != MPI_OP_NULL) MPI_Op_free(&reg.op);
  if (reg.type != MPI_DATATYPE_NULL) MPI_Type_free(&reg.type);
  reg.op = MPI_OP_NULL;
  reg.type = MPI_DATATYPE_NULL;
  reg.keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

void ensure_registered() {
  if (reg.op != MPI_OP_NULL) return;
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw error("exala: mpi: MPI is not initialized (call MPI_Init first) or already finalized");
  MPI_Type_contiguous(int(acc_bytes), MPI_BYTE, &reg.type);
  MPI_Type_commit(&reg.type);
  MPI_Op_create(&merge_elements, /*commute=*/1, &reg.op);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &free_at_finalize, &reg.keyval, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, reg.keyval, nullptr);
}

void check_local(std::int64_t n, const double* x, std::int64_t incx, const char* xn) {
  if (n < 0) throw invalid_argument("n_local", "must be >= 0, got " + std::to_string(n));
  if (n > 0 && x == nullptr) throw invalid_argument(xn, "is null");
  (void)incx;  // blas1 checks the increments
}

// The local phase, then one agreement on its errors, on the routine and on
// the rounding mode (a global argument: ranks that rounded the same exact
// sum differently would return different results), then the reduction.
template <class Local>
superaccumulator reduce_with(MPI_Comm comm, detail::operation op, rounding mode, Local local) {
  superaccumulator acc;
  std::vector<std::byte> work;
  detail::agree(comm,
                [&] {
                  local(acc);
                  detail::prepare_allreduce(comm, 1, work);
                },
                {detail::same_operation(op),
                 {"mode", static_cast<std::int64_t>(mode), &detail::show_rounding}});
  detail::allreduce_agreed(comm, std::span(&acc, 1), work);
  return acc;
}

}  // namespace

MPI_Datatype superaccumulator_type() {
  ensure_registered();
  return reg.type;
}

MPI_Op superaccumulator_op() {
  ensure_registered();
  return reg.op;
}

void allreduce(MPI_Comm comm, superaccumulator& acc) { allreduce(comm, std::span(&acc, 1)); }

// The element count is a global argument: ranks that passed different
// counts would pair different numbers of MPI_Allreduce calls (a hang) or
// truncate one another's messages.
void allreduce(MPI_Comm comm, std::span<superaccumulator> accs) {
  std::vector<std::byte> work;
  detail::agree(comm, [&] { detail::prepare_allreduce(comm, accs.size(), work); },
                {detail::same_operation(detail::operation::allreduce),
                 {"count", static_cast<std::int64_t>(accs.size()), nullptr}});
  detail::allreduce_agreed(comm, accs, work);
}

namespace {
// Elements per MPI_Allreduce: bounds the staging buffers (and keeps MPI's
// int counts in range).
constexpr std::size_t allreduce_chunk = 4096;
}  // namespace

void detail::prepare_allreduce(MPI_Comm comm, std::size_t count, std::vector<std::byte>& work) {
  ensure_registered();
  work.resize(detail::size_of(comm) == 1 ? 0 : 2 * std::min(count, allreduce_chunk) * acc_bytes);
}

void detail::allreduce_agreed(MPI_Comm comm, std::span<superaccumulator> accs,
                              std::vector<std::byte>& work) {
  const int size = detail::size_of(comm);
  if (size == 1) return;
  const std::size_t half = std::min(accs.size(), allreduce_chunk) * acc_bytes;
  std::byte* send = work.data();
  std::byte* recv = work.data() + half;
  for (std::size_t i0 = 0; i0 < accs.size(); i0 += allreduce_chunk) {
    const std::size_t c = std::min(allreduce_chunk, accs.size() - i0);
    for (std::size_t i = 0; i < c; ++i) accs[i0 + i].serialize(packed(send + i * acc_bytes, acc_bytes));
    const int rc = MPI_Allreduce(send, recv, int(c), reg.type, reg.op, comm);
    if (rc != MPI_SUCCESS) throw error("exala: mpi: MPI_Allreduce of superaccumulators failed");
    for (std::size_t i = 0; i < c; ++i)
      accs[i0 + i] = superaccumulator::deserialize({recv + i * acc_bytes, acc_bytes});
  }
}

double sum(MPI_Comm comm, std::int64_t n, const double* x, std::int64_t incx, const exec& local) {
  return reduce_with(comm, detail::operation::sum, local.mode, [&](superaccumulator& acc) {
           check_local(n, x, incx, "x");
           sum_into(acc, n, x, incx, local);
         }).round(local.mode);
}

double asum(MPI_Comm comm, std::int64_t n, const double* x, std::int64_t incx, const exec& local) {
  return reduce_with(comm, detail::operation::asum, local.mode, [&](superaccumulator& acc) {
           check_local(n, x, incx, "x");
           asum_into(acc, n, x, incx, local);
         }).round(local.mode);
}

double dot(MPI_Comm comm, std::int64_t n, const double* x, std::int64_t incx, const double* y,
           std::int64_t incy, const exec& local) {
  return reduce_with(comm, detail::operation::dot, local.mode, [&](superaccumulator& acc) {
           check_local(n, x, incx, "x");
           check_local(n, y, incy, "y");
           dot_into(acc, n, x, incx, y, incy, local);
         }).round(local.mode);
}

double nrm2(MPI_Comm comm, std::int64_t n, const double* x, std::int64_t incx, const exec& local) {
  // x_i * x_i exactly (the dot kernels, as exala::nrm2), one rounded sqrt.
  return reduce_with(comm, detail::operation::nrm2, local.mode, [&](superaccumulator& acc) {
           check_local(n, x, incx, "x");
           dot_into(acc, n, x, incx, x, incx, local);
         }).round_sqrt(local.mode);
}

}  // namespace exala::mpi
