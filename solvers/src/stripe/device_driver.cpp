#include "device_driver.hpp"

#include <algorithm>
#include <string>

#include "exala/detail/backend_hooks.hpp"
#include "exala/error.hpp"

namespace exala::detail::stripe {

std::unique_ptr<device_engine> make_device_engine(const std::string& name, int threads) {
  auto make = [threads](backend b) -> std::unique_ptr<device_engine> {
    const auto* h = hooks<stripe_engine_hooks>(b, hook_kind::stripe_engine);
    return h && h->make ? h->make(threads) : nullptr;
  };
#define EXALA_ENGINE_OF_(b, desc) \
  if (name == #b) return make(backend::b);
  EXALA_BACKENDS(EXALA_ENGINE_OF_)
#undef EXALA_ENGINE_OF_
  return nullptr;
}

device_stripes::device_stripes(device_engine& e, std::int64_t n, std::int64_t S, std::int64_t Sp,
                               double threshold, std::int64_t max_pivots)
    : e_(e), n_(n), S_(S), Sp_(Sp), ld_((S + 31) / 32 * 32), threshold_(threshold) {
  const std::size_t slot_doubles = static_cast<std::size_t>(ld_ * std::max<std::int64_t>(n, 1));
  const std::size_t slot_bytes = slot_doubles * sizeof(double);
  try {
    for (slot& t : targets_) t.data = e_.alloc(slot_doubles, "a target stripe slot");
    // Keep 1/16 of the free memory (at least 512 MiB) for the libraries'
    // workspaces; the rest holds pivot slots.
    const std::size_t free_now = e_.free_bytes();
    const std::size_t reserve = std::max<std::size_t>(std::size_t{512} << 20, free_now / 16);
    std::int64_t m = free_now > reserve ? static_cast<std::int64_t>((free_now - reserve) / slot_bytes) : 0;
    const std::int64_t stripes = (n + S - 1) / S;
    // At most 1024 slots: the engine's event ring holds 4096 (engine.hpp).
    m = std::min({m, std::max<std::int64_t>(stripes, 1), std::int64_t{1024}});
    if (max_pivots > 0) m = std::min(m, max_pivots);
    if (m < 1)
      throw error("device " + e_.device_name() + ": not enough memory for one pivot stripe of " +
                  std::to_string(slot_bytes >> 20) + " MiB beside three target stripes (use a "
                  "smaller stripe height)");
    pivots_.resize(static_cast<std::size_t>(m));
    for (slot& p : pivots_) p.data = e_.alloc(slot_doubles, "a pivot stripe slot");
  } catch (...) {
    for (slot& p : pivots_) e_.release(p.data);
    for (slot& t : targets_) e_.release(t.data);
    throw;
  }
}

device_stripes::~device_stripes() {
  try {
    e_.sync_all();
  } catch (...) {
  }
  for (slot& p : pivots_) e_.release(p.data);
  for (slot& t : targets_) e_.release(t.data);
}

block device_stripes::device_block(const slot& s, std::int64_t rows, std::int64_t col0) const {
  return block{s.data + col0 * ld_, rows, col0, n_, ld_};
}

void device_stripes::upload_block(const block& h, double* dev) {
  if (h.rows > 0 && h.col0 < n_) e_.upload(h.data, h.ld, dev + h.col0 * ld_, ld_, h.rows, n_ - h.col0);
}

void device_stripes::download_block(const double* dev, const block& h) {
  if (h.rows > 0 && h.col0 < n_) e_.download(dev + h.col0 * ld_, ld_, h.data, h.ld, h.rows, n_ - h.col0);
}

void device_stripes::upload_pivot(std::int64_t q, const block& h, std::int64_t r0) {
  if (q < 0 || q >= pivot_slots())
    throw invalid_argument("q", "pivot slot " + std::to_string(q) + " of " + std::to_string(pivot_slots()));
  if (h.rows > S_) throw invalid_argument("h", "has more rows than the stripe height");
  slot& p = pivots_[static_cast<std::size_t>(q)];
  // The slot may still be read by updates queued for the previous group.
  e_.wait(device_engine::h2d, e_.record(device_engine::compute));
  upload_block(h, p.data);
  p.uploaded = e_.record(device_engine::h2d);
  p.r0 = r0;
  p.rows = h.rows;
}

void device_stripes::factor(std::int64_t q, const block& h, std::int64_t r0, std::int64_t* ipiv) {
  if (q < 0 || q >= pivot_slots())
    throw invalid_argument("q", "pivot slot " + std::to_string(q) + " of " + std::to_string(pivot_slots()));
  slot& p = pivots_[static_cast<std::size_t>(q)];
  if (p.r0 != r0 || p.rows != h.rows)
    throw invalid_argument("q", "pivot slot " + std::to_string(q) + " holds another stripe (upload_pivot first)");
  // Only this stripe's own upload: the later members' copies go on.
  e_.wait(device_engine::compute, p.uploaded);
  const block d = device_block(p, h.rows, h.col0);
  for (std::int64_t k = 0; k < q; ++k) {
    const slot& o = pivots_[static_cast<std::size_t>(k)];
    apply_pivot_stripe(e_, device_block(o, o.rows, o.r0), o.r0, d);
  }
  factor_stripe_local(e_, d, r0, Sp_, threshold_, ipiv);
  e_.wait(device_engine::d2h, e_.record(device_engine::compute));
  download_block(p.data, h);
  downloads_pending_ = true;
}

void device_stripes::finish_group() {
  if (!downloads_pending_) return;
  e_.sync(e_.record(device_engine::d2h));
  downloads_pending_ = false;
}

std::int64_t device_stripes::submit(const block& h, std::int64_t count) {
  if (count < 0 || count > pivot_slots())
    throw invalid_argument("count", std::to_string(count) + " pivot slots of " + std::to_string(pivot_slots()));
  if (h.rows > S_) throw invalid_argument("h", "has more rows than the stripe height");
  const std::int64_t ticket = next_ticket_++;
  const std::size_t t = static_cast<std::size_t>(ticket % 3);
  if (flights_[t].ticket >= 0) complete(flights_[t].ticket);
  slot& s = targets_[t];
  upload_block(h, s.data);
  e_.wait(device_engine::compute, e_.record(device_engine::h2d));
  const block d = device_block(s, h.rows, h.col0);
  for (std::int64_t k = 0; k < count; ++k) {
    const slot& o = pivots_[static_cast<std::size_t>(k)];
    apply_pivot_stripe(e_, device_block(o, o.rows, o.r0), o.r0, d);
  }
  e_.wait(device_engine::d2h, e_.record(device_engine::compute));
  download_block(s.data, h);
  flights_[t] = flight{ticket, e_.record(device_engine::d2h)};
  return ticket;
}

void device_stripes::complete(std::int64_t ticket) {
  flight& f = flights_[static_cast<std::size_t>(ticket % 3)];
  if (f.ticket != ticket) return;  // already completed
  e_.sync(f.done);
  f = flight{};
}

void device_stripes::complete_all() {
  for (flight& f : flights_)
    if (f.ticket >= 0) complete(f.ticket);
}

}  // namespace exala::detail::stripe
