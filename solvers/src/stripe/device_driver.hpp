// stripe/device_driver.hpp - the stripe LU's steps on a device engine (GPU):
// stripes move between host blocks and device slots, the arithmetic stays on
// the device.
//
// Device layout: a slot holds one stripe of up to S rows, all n columns,
// column-major with ld = S rounded up to 32 (every column starts on a 256-byte
// boundary), column c at slot + c*ld whatever the host block's col0. So the
// engine calls that factor or update a stripe have the same sizes, leading
// dimensions and alignments in core and out of core, with any number of pivot
// slots: the bits depend on (n, S, S') and the device's libraries only.
//
// Pivot slots: up to m factored pivot stripes of the current group (m from
// the free device memory, capped by the caller). Target slots: three, so
// that the upload of one target, the update of the next and the download of
// a third overlap (three queues, ordered by events; the host memory should be
// pinned for the copies to be asynchronous).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine.hpp"
#include "kernels.hpp"

namespace exala::detail::stripe {

// Host memory pinned for the engine's asynchronous copies (best effort, as
// device_engine::pin), unpinned when this goes, also on an exception.
class pinned_host {
 public:
  explicit pinned_host(device_engine& e) : e_(e) {}
  ~pinned_host() {
    for (void* p : pinned_) e_.unpin(p);
  }
  pinned_host(const pinned_host&) = delete;
  pinned_host& operator=(const pinned_host&) = delete;
  void pin(void* p, std::size_t bytes) {
    if (e_.pin(p, bytes)) pinned_.push_back(p);
  }

 private:
  device_engine& e_;
  std::vector<void*> pinned_;
};

class device_stripes {
 public:
  // n, stripe height S, substripe S', pivot threshold; max_pivots caps the
  // pivot slots (0: as many as the free device memory allows, at least 1).
  // Throws exala::error when not even one pivot slot and the target slots fit.
  device_stripes(device_engine& e, std::int64_t n, std::int64_t S, std::int64_t Sp, double threshold,
                 std::int64_t max_pivots);
  ~device_stripes();
  device_stripes(const device_stripes&) = delete;
  device_stripes& operator=(const device_stripes&) = delete;

  std::int64_t pivot_slots() const { return static_cast<std::int64_t>(pivots_.size()); }
  std::int64_t slot_ld() const { return ld_; }

  // Group phase. upload_pivot queues the copy of stripe h (global first row
  // r0 = its diagonal column) into pivot slot q; factor(q, ...) then
  // eliminates pivot slots 0..q-1 from it (in order), factors it with local
  // pivoting (factor_stripe_local; ipiv is written before it returns) and
  // queues its download back into h; the slot keeps it as a pivot.
  // finish_group() blocks until every such download has reached host memory:
  // h must not be read or written between upload_pivot and finish_group.
  // For a resumed run, upload_pivot alone loads an already factored stripe.
  void upload_pivot(std::int64_t q, const block& h, std::int64_t r0);
  void factor(std::int64_t q, const block& h, std::int64_t r0, std::int64_t* ipiv);
  void finish_group();

  // Sweep: eliminate pivot slots 0..count-1 from target h (upload, update,
  // download into h), asynchronously; returns a ticket. complete(ticket)
  // blocks until h holds the result. At most three targets are in flight:
  // submitting a fourth first completes the oldest.
  std::int64_t submit(const block& h, std::int64_t count);
  void complete(std::int64_t ticket);
  void complete_all();

 private:
  struct slot {
    double* data = nullptr;
    std::int64_t r0 = 0, rows = 0;
    device_engine::event uploaded = -1;  // h2d event after its upload
  };
  struct flight {
    std::int64_t ticket = -1;
    device_engine::event done = -1;
  };
  block device_block(const slot& s, std::int64_t rows, std::int64_t col0) const;
  void upload_block(const block& h, double* dev);
  void download_block(const double* dev, const block& h);

  device_engine& e_;
  std::int64_t n_, S_, Sp_, ld_;
  double threshold_;
  std::vector<slot> pivots_;
  slot targets_[3];
  flight flights_[3];
  std::int64_t next_ticket_ = 0;
  bool downloads_pending_ = false;
};

}  // namespace exala::detail::stripe
