// Non-x86 builds: the SIMD kernel sets are absent (their tables are null), so
// the run-time choice falls back to the portable scalar set.
#include "kernels.hpp"

namespace exala::detail {
const kernel_table* kernels_avx2() noexcept { return nullptr; }
const kernel_table* kernels_avx512() noexcept { return nullptr; }
}  // namespace exala::detail
