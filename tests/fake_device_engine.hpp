// tests/fake_device_engine.hpp - a stripe LU device engine registered under
// the name "cuda" that keeps its "device memory" in host memory (NaN-filled
// when allocated), performs downloads only when the driver synchronizes, and
// counts dense calls whose operands are not device memory. Its arithmetic is
// the CPU engine's: the suites that use it (test_stripe_fakedev, built from
// test_stripe_lu.cpp, and test_mpi_stripe_fakedev) run the device driver
// path - slots, pivot groups, uploads, sweeps, resume - in CI, and the bits
// they check are the driver's, not cuBLAS's. Include it in one source of a
// test binary (it registers the engine when the binary starts, before any
// lookup, so a build with CUDA never loads the real plugin in its place).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "exala/detail/backend_hooks.hpp"
#include "stripe/engine.hpp"

namespace {

namespace st = exala::detail::stripe;
using i64 = std::int64_t;

// What the fake devices of this process did.
std::atomic<long> fake_dense_calls{0};    // dense_engine calls
std::atomic<long> fake_foreign_calls{0};  // ... with an operand outside device memory
std::atomic<long> fake_uploads{0};

class fake_device final : public st::device_engine {
 public:
  explicit fake_device(int threads) : cpu_(st::make_cpu_engine(threads)) {}
  ~fake_device() override {
    for (auto& a : mem_) delete[] a.first;
  }
  std::string name() const override { return "cuda"; }
  int threads() const override { return cpu_->threads(); }
  std::string device_name() const override { return "fake device (host memory)"; }

  void gemm_sub(i64 m, i64 n, i64 k, const double* a, i64 lda, const double* b, i64 ldb, double* c,
                i64 ldc) override {
    note(m > 0 && n > 0 && k > 0, {a, b, c});
    cpu_->gemm_sub(m, n, k, a, lda, b, ldb, c, ldc);
  }
  void trsm_right_upper(i64 m, i64 k, const double* u, i64 ldu, double* b, i64 ldb) override {
    note(m > 0 && k > 0, {u, b});
    cpu_->trsm_right_upper(m, k, u, ldu, b, ldb);
  }
  void trsm_left_lower_unit(i64 k, i64 n, const double* l, i64 ldl, double* b, i64 ldb) override {
    note(k > 0 && n > 0, {l, b});
    cpu_->trsm_left_lower_unit(k, n, l, ldl, b, ldb);
  }
  void trsm_left_upper(i64 k, i64 n, const double* u, i64 ldu, double* b, i64 ldb) override {
    note(k > 0 && n > 0, {u, b});
    cpu_->trsm_left_upper(k, n, u, ldu, b, ldb);
  }
  i64 getrf(i64 m, i64 n, double* a, i64 lda, i64* ipiv) override {
    note(m > 0 && n > 0, {a});
    return cpu_->getrf(m, n, a, lda, ipiv);
  }
  void laswp(i64 ncols, double* a, i64 lda, i64 k1, i64 k2, const i64* ipiv) override {
    note(ncols > 0 && k2 > k1, {a});
    cpu_->laswp(ncols, a, lda, k1, k2, ipiv);
  }
  void read_diagonal(const double* a, i64 lda, i64 k, double* out) override {
    note(k > 0, {a});
    for (i64 j = 0; j < k; ++j) out[j] = a[j + j * lda];
  }

  std::size_t free_bytes() override { return std::size_t{4} << 30; }
  double* alloc(std::size_t count, const char*) override {
    double* p = new double[count];
    std::fill(p, p + count, std::numeric_limits<double>::quiet_NaN());
    mem_[p] = count;
    return p;
  }
  void release(double* p) noexcept override {
    const auto it = mem_.find(p);
    if (it == mem_.end()) return;
    delete[] it->first;
    mem_.erase(it);
  }
  bool pin(void*, std::size_t) override { return true; }
  void unpin(void*) noexcept override {}
  void upload(const double* host, i64 ldh, double* dev, i64 ldd, i64 rows, i64 cols) override {
    ++fake_uploads;
    if (rows > 0 && cols > 0 && !inside(dev)) ++fake_foreign_calls;
    copy(host, ldh, dev, ldd, rows, cols);
  }
  // Deferred until the driver synchronizes: a driver that reads host data
  // before then reads the old values.
  void download(const double* dev, i64 ldd, double* host, i64 ldh, i64 rows, i64 cols) override {
    if (rows > 0 && cols > 0 && !inside(dev)) ++fake_foreign_calls;
    std::vector<double> snap(std::size_t(rows * cols));
    copy(dev, ldd, snap.data(), rows, rows, cols);
    pending_.push_back({std::move(snap), host, ldh, rows, cols});
  }
  event record(queue) override { return next_event_ = (next_event_ + 1) % 4096; }
  void wait(queue, event) override {}
  void sync(event) override { flush(); }
  void sync_all() override { flush(); }

 private:
  struct download_op {
    std::vector<double> data;
    double* host;
    i64 ldh, rows, cols;
  };
  static void copy(const double* src, i64 lds, double* dst, i64 ldd, i64 rows, i64 cols) {
    for (i64 c = 0; c < cols; ++c)
      for (i64 r = 0; r < rows; ++r) dst[r + c * ldd] = src[r + c * lds];
  }
  void flush() {
    for (auto& d : pending_) copy(d.data.data(), d.rows, d.host, d.ldh, d.rows, d.cols);
    pending_.clear();
  }
  bool inside(const double* p) const {
    auto it = mem_.upper_bound(const_cast<double*>(p));
    if (it == mem_.begin()) return false;
    --it;
    return p >= it->first && p < it->first + it->second;
  }
  // A call that touches data (not an empty one, whose pointers may be one
  // past a slot) must have device operands.
  void note(bool touches, std::initializer_list<const double*> ops) {
    ++fake_dense_calls;
    if (!touches) return;
    for (const double* p : ops)
      if (!inside(p)) {
        ++fake_foreign_calls;
        return;
      }
  }

  std::unique_ptr<st::dense_engine> cpu_;
  std::map<double*, std::size_t> mem_;
  std::vector<download_op> pending_;
  event next_event_ = 0;
};

const bool fake_registered = [] {
  static const st::stripe_engine_hooks hooks{[](int threads) -> std::unique_ptr<st::device_engine> {
    return std::make_unique<fake_device>(threads);
  }};
  exala::detail::register_hooks(exala::backend::cuda, exala::detail::hook_kind::stripe_engine, &hooks);
  return true;
}();

}  // namespace
