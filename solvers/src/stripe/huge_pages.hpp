// stripe/huge_pages.hpp - memory for whole matrices and stripes, backed by
// transparent huge pages where the kernel offers them.
//
// Why: the in-memory drivers allocate two copies of their stripes (the
// original, kept for the refinement residual, and the factors), fresh on
// every construction, and the out-of-core cache loads every stripe into fresh
// memory (glibc maps blocks over 32 MiB anew each time); the first touch of
// fresh memory is a page fault per 4 KiB. In the 2-core VM that costs 0.7-1.1
// ms per MiB, against 0.15-0.35 ms per MiB on 2 MiB pages (an occasional
// allocation is slower while the kernel compacts memory). Measured effect in
// bench/README.md ("Huge pages"). Linux's default THP mode, "madvise", gives
// huge pages only to ranges that ask for them. Bits: only where the numbers
// live changes.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace exala::detail::stripe {

// An allocator whose blocks of 4 MiB or more are 2 MiB-aligned, rounded up to
// whole 2 MiB pages and marked MADV_HUGEPAGE (a hint: where THP is off, or the
// kernel has no huge page to give, they are ordinary pages). Smaller blocks
// come from malloc. Stateless: any two instances are equal.
template <class T>
struct huge_page_allocator {
  using value_type = T;
  static constexpr std::size_t page = std::size_t(2) << 20;
  static constexpr std::size_t threshold = 2 * page;

  huge_page_allocator() noexcept = default;
  template <class U>
  huge_page_allocator(const huge_page_allocator<U>&) noexcept {}

  T* allocate(std::size_t count) {
    if (count > std::size_t(-1) / sizeof(T)) throw std::bad_array_new_length();
    const std::size_t bytes = count * sizeof(T);
    void* p = nullptr;
    if (bytes >= threshold) {
      const std::size_t rounded = (bytes + page - 1) / page * page;
      p = std::aligned_alloc(page, rounded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      if (p) (void)::madvise(p, rounded, MADV_HUGEPAGE);  // a hint; failure is harmless
#endif
    } else {
      p = std::malloc(bytes == 0 ? 1 : bytes);
    }
    if (!p) throw std::bad_alloc();
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t) noexcept { std::free(p); }

  template <class U>
  bool operator==(const huge_page_allocator<U>&) const noexcept {
    return true;
  }
};

// A matrix or a stripe of doubles in huge-page-backed memory.
using big_vector = std::vector<double, huge_page_allocator<double>>;

// The deleter of a block from huge_page_allocator<double> (unique_ptr).
struct huge_page_delete {
  void operator()(double* p) const noexcept { huge_page_allocator<double>().deallocate(p, 0); }
};

}  // namespace exala::detail::stripe
