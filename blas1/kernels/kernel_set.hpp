// Internal: the kernel-set table, BLIS's context (cntx_t) for ExaLA. One
// table per instruction set (generic, avx2, avx512) holds every kernel entry
// point of the library: the blas1 reductions and element-wise kernels, the
// residue kernels of the exact gemm (blas3) and the substitution kernels of
// the compensated and double-double trsv (solvers). One function chooses
// the table, once, from cpuid (EXALA_SIMD or exala::force_kernel_set
// override it); every layer reads its kernels from the chosen table.
//
// Where it lives, and why here. The table and all the kernels it points to
// are compiled into exala::blas1, the lowest layer with kernels and the one
// that owns the run-time choice (exala::active_kernel_set). That inverts no
// layer: the gemm kernels use only the standard library and the trsv kernels
// only exala::arith, both below blas1; blas3 and solvers merely include the
// kernel headers of this folder (a private include path) and call the
// kernels through the table. A table filled at run time by registrations
// from the higher layers was the alternative; it would need mutable global
// state and an order of initialisation, which a table of constants avoids.
//
// Files, by instruction set (BLIS style: each set is one object library with
// its own -m flags, so no code built for a wider ISA can reach the rest of
// the program): generic/, avx2/, avx512/, each with blas1.cpp, gemm.cpp and
// trsv.cpp; the per-layer slot types and the code shared by several sets
// beside this file (blas1_kernels.hpp, gemm_kernels.hpp, trsv_kernels.hpp,
// *_impl.hpp). Every set computes the same bits: the tests compare every set
// with the reference, bit for bit.
#pragma once

#include "exala/backend.hpp"

namespace exala::detail {

struct blas1_kernels;  // blas1_kernels.hpp
namespace gemm3 {
struct gemm_kernels;  // gemm_kernels.hpp
}
}  // namespace exala::detail

namespace exala::solvers_detail {
struct trsv_kernels;  // trsv_kernels.hpp
}

namespace exala::detail {

struct kernel_set_table {
  kernel_set id;
  const blas1_kernels* blas1;
  const gemm3::gemm_kernels* gemm;
  const solvers_detail::trsv_kernels* trsv;
};

// The table of set k, or nullptr when k is not compiled into this build.
const kernel_set_table* kernel_set_table_of(kernel_set k) noexcept;

// The table chosen at run time: the best set the CPU supports, or the one
// EXALA_SIMD / force_kernel_set names. Throws like active_kernel_set().
const kernel_set_table& active_kernels();

}  // namespace exala::detail
