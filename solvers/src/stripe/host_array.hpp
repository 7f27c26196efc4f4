// stripe/host_array.hpp - page-aligned, zero-filled host storage for the
// stripe LU's large buffers (the in-memory copies of A and of its factors,
// the out-of-core cache's stripes).
#pragma once

#include <cstddef>

namespace exala::detail::stripe {

// Zero-filled storage for count doubles. Blocks of 1 MiB and more come from
// mmap with MAP_POPULATE, page-aligned (as O_DIRECT reads need), which maps
// and zeroes every page in one call rather than taking one page fault per
// 4 KiB at first touch (allocating and filling 256 MiB: 0.15 s against
// 0.19-0.22 s on the 2-core machine); smaller ones from calloc. Throws
// std::bad_alloc when the memory is not there. Movable, not copyable: a copy
// of A is always an explicit pass.
class host_array {
 public:
  host_array() = default;
  explicit host_array(std::size_t count);
  ~host_array();
  host_array(host_array&& o) noexcept;
  host_array& operator=(host_array&& o) noexcept;
  host_array(const host_array&) = delete;
  host_array& operator=(const host_array&) = delete;

  double* data() noexcept { return p_; }
  const double* data() const noexcept { return p_; }
  std::size_t size() const noexcept { return count_; }

 private:
  void release() noexcept;
  double* p_ = nullptr;
  std::size_t count_ = 0;
  bool mapped_ = false;
};

}  // namespace exala::detail::stripe
