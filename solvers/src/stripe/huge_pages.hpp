// stripe/huge_pages.hpp - memory for the stripe cache's buffers, backed by
// transparent huge pages where the kernel offers them.
//
// Why: the out-of-core cache loads every stripe into fresh memory (glibc maps
// a block over 32 MiB anew each time and unmaps it on free), so each load
// pays a page fault per 4 KiB. Linux's default THP mode, "madvise", gives
// huge pages only to ranges that ask for them. Measured (bench/README.md,
// "Huge pages"): out of core n = 12000, 512 MiB cache, 471k -> 65k minor
// faults and 16.8 -> 16.5 s. Not used for the in-memory drivers' matrices:
// allocated once per solve, in the 2-core VM their first touch on huge pages
// took 3.2-3.7 s against 1.0 s (the hypervisor backs a fresh 2 MiB block
// slowly), more than the 3% that the factorization gained from fewer TLB
// misses. Bits: only where the numbers live changes.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace exala::detail::stripe {

// Room for `count` doubles: a block of 4 MiB or more is 2 MiB-aligned,
// rounded up to whole 2 MiB pages and marked MADV_HUGEPAGE (a hint: where THP
// is off, or the kernel has no huge page to give, it gets ordinary pages); a
// smaller one comes from malloc. Freed by huge_page_delete. Throws
// std::bad_alloc.
inline double* huge_page_alloc(std::size_t count) {
  constexpr std::size_t page = std::size_t(2) << 20;
  if (count > std::size_t(-1) / sizeof(double) - page) throw std::bad_alloc();
  const std::size_t bytes = count * sizeof(double);
  void* p = nullptr;
  if (bytes >= 2 * page) {
    const std::size_t rounded = (bytes + page - 1) / page * page;
    p = std::aligned_alloc(page, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p) (void)::madvise(p, rounded, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
  } else {
    p = std::malloc(bytes == 0 ? 1 : bytes);
  }
  if (!p) throw std::bad_alloc();
  return static_cast<double*>(p);
}

struct huge_page_delete {
  void operator()(double* p) const noexcept { std::free(p); }
};

}  // namespace exala::detail::stripe
