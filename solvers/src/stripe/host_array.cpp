// stripe/host_array.cpp - host_array (host_array.hpp).
#include "host_array.hpp"

#include <sys/mman.h>

#include <cstdlib>
#include <limits>
#include <new>
#include <utility>

namespace exala::detail::stripe {

namespace {
constexpr std::size_t populate_bytes = std::size_t(1) << 20;
}

host_array::host_array(std::size_t count) : count_(count) {
  if (count == 0) return;
  if (count > std::numeric_limits<std::size_t>::max() / sizeof(double)) throw std::bad_alloc();
  const std::size_t bytes = count * sizeof(double);
  if (bytes >= populate_bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    p_ = static_cast<double*>(p);
    mapped_ = true;
    return;
  }
  p_ = static_cast<double*>(std::calloc(count, sizeof(double)));
  if (p_ == nullptr) throw std::bad_alloc();
}

host_array::~host_array() { release(); }

host_array::host_array(host_array&& o) noexcept
    : p_(std::exchange(o.p_, nullptr)), count_(std::exchange(o.count_, 0)), mapped_(std::exchange(o.mapped_, false)) {}

host_array& host_array::operator=(host_array&& o) noexcept {
  if (this != &o) {
    release();
    p_ = std::exchange(o.p_, nullptr);
    count_ = std::exchange(o.count_, 0);
    mapped_ = std::exchange(o.mapped_, false);
  }
  return *this;
}

void host_array::release() noexcept {
  if (p_ == nullptr) return;
  if (mapped_)
    ::munmap(p_, count_ * sizeof(double));
  else
    std::free(p_);
  p_ = nullptr;
}

}  // namespace exala::detail::stripe
