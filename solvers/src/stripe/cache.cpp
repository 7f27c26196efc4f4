// stripe/cache.cpp - the stripe LU's host tier (see cache.hpp).
//
// One mutex guards the map of entries, the plan and the counters; a buffer's
// contents are only touched by one party at a time, guaranteed by its state:
// loading and flushing buffers belong to the thread doing the I/O (with the
// mutex released), in_use buffers to the compute thread.
#include "cache.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "exala/error.hpp"

namespace exala::detail::stripe {

namespace {
std::string mib(std::uint64_t b) {
  char t[48];
  std::snprintf(t, sizeof t, "%.4g MiB", double(b) / 1048576.0);
  return t;
}
}  // namespace

stripe_cache::stripe_cache(cache_callbacks cb, std::uint64_t budget, int io_threads)
    : cb_(std::move(cb)), budget_(budget), depth_(std::max(0, io_threads)) {
  for (int t = 0; t < io_threads; ++t) io_.emplace_back([this] { io_loop(); });
}

stripe_cache::~stripe_cache() {
  {
    lock_t lk(mu_);
    stop_ = true;
    wake();
  }
  for (auto& t : io_) t.join();
}

bool stripe_cache::evictable(const entry& e) const {
  return e.st == stripe_state::cached && e.users == 0 && !e.pinned && !e.error;
}

bool stripe_cache::in_window(std::int64_t index, std::size_t upto) const {
  for (std::size_t i = 0; i < upto && i < plan_.size(); ++i)
    if (plan_[i] == index) return true;
  return false;
}

void stripe_cache::check_error(std::int64_t index, entry& e) {
  if (!e.error) return;
  std::exception_ptr ex = e.error;
  resident_ -= e.reserved;
  entries_.erase(index);
  wake();
  std::rethrow_exception(ex);
}

void stripe_cache::flush_entry(lock_t& lk, std::int64_t index, entry& e) {
  e.st = stripe_state::flushing;
  const std::int64_t version = e.buf.version;
  lk.unlock();
  std::exception_ptr err;
  try {
    cb_.flush(index, e.buf);
  } catch (...) {
    err = std::current_exception();
  }
  lk.lock();
  e.st = stripe_state::cached;
  if (err) {
    if (!io_error_) io_error_ = err;
    e.evict_after_flush = false;
  } else {
    e.buf.disk_version = version;
    ++stats_.flushes;
    if (e.evict_after_flush) {
      resident_ -= e.buf.bytes();
      ++stats_.evictions;
      entries_.erase(index);
    }
  }
  wake();
}

bool stripe_cache::make_room(lock_t& lk, std::uint64_t bytes, std::size_t upto, bool wait) {
  while (budget_ != 0 && resident_ + bytes > budget_) {
    if (io_error_) return false;
    // Least recently used evictable stripe outside the window.
    std::int64_t victim = -1;
    std::uint64_t best = ~std::uint64_t(0);
    bool busy = false;
    for (auto& [idx, e] : entries_) {
      if (e.st == stripe_state::loading || e.st == stripe_state::flushing) busy = true;
      if (!evictable(e) || in_window(idx, upto)) continue;
      if (e.tick < best) best = e.tick, victim = idx;
    }
    if (victim < 0) {
      if (!busy || !wait) return false;
      cv_.wait(lk);
      continue;
    }
    entry& e = entries_.at(victim);
    if (e.buf.version > e.buf.disk_version) {
      e.evict_after_flush = true;
      flush_entry(lk, victim, e);
    } else {
      resident_ -= e.buf.bytes();
      ++stats_.evictions;
      entries_.erase(victim);
    }
  }
  return true;
}

void stripe_cache::load_entry(lock_t& lk, std::int64_t index) {
  lk.unlock();
  cache_buffer b;
  std::exception_ptr err;
  try {
    cb_.load(index, b);
  } catch (...) {
    err = std::current_exception();
  }
  lk.lock();
  entry& e = entries_.at(index);
  if (err) {
    // A stripe that cannot be read stops the run: every later request sees
    // this error (not a misleading "cache too small" from its held bytes).
    e.error = err;
    e.st = stripe_state::cached;
    if (!io_error_) io_error_ = err;
  } else {
    resident_ = resident_ - e.reserved + b.bytes();
    e.reserved = 0;
    e.buf = std::move(b);
    e.st = stripe_state::cached;
    stats_.peak_bytes = std::max(stats_.peak_bytes, resident_);
  }
  wake();
}

cache_buffer& stripe_cache::acquire(std::int64_t index) {
  lock_t lk(mu_);
  if (!plan_.empty() && plan_.front() == index) plan_.pop_front();
  bool counted = false;
  for (;;) {
    if (io_error_) std::rethrow_exception(io_error_);
    auto it = entries_.find(index);
    if (it != entries_.end()) {
      entry& e = it->second;
      if (e.st == stripe_state::loading || e.st == stripe_state::flushing) {
        cv_.wait(lk);
        continue;
      }
      check_error(index, e);
      // A hit is a stripe found resident that no load brought in for this
      // request: a prefetched stripe counts once as a load (stats_.prefetched).
      if (!counted && !e.prefetched) ++stats_.hits;
      e.prefetched = false;
      ++e.users;
      e.tick = ++tick_;
      wake();
      return e.buf;
    }
    if (!counted) ++stats_.misses, counted = true;
    const std::uint64_t bytes = cb_.size(index);
    if (budget_ != 0 && bytes > budget_)
      throw invalid_argument("cache", "budget of " + mib(budget_) + " cannot hold one stripe (" +
                                          mib(bytes) + ")");
    if (!make_room(lk, bytes, plan_.size(), true) && !make_room(lk, bytes, 0, true)) {
      if (io_error_) std::rethrow_exception(io_error_);
      throw invalid_argument("cache", "budget of " + mib(budget_) +
                                          " is too small: the stripes in use and pinned take " +
                                          mib(resident_) + " and the next one needs " + mib(bytes));
    }
    if (entries_.count(index)) continue;  // an I/O thread started it while we flushed
    entry& e = entries_[index];
    e.st = stripe_state::loading;
    e.reserved = bytes;
    resident_ += bytes;
    stats_.peak_bytes = std::max(stats_.peak_bytes, resident_);
    load_entry(lk, index);
  }
}

void stripe_cache::release(std::int64_t index) {
  lock_t lk(mu_);
  auto it = entries_.find(index);
  if (it == entries_.end() || it->second.users == 0)
    throw error("exala: stripe cache: release of stripe " + std::to_string(index) +
                " that is not in use");
  --it->second.users;
  it->second.tick = ++tick_;
  wake();
}

void stripe_cache::pin(std::int64_t index) {
  lock_t lk(mu_);
  auto it = entries_.find(index);
  if (it == entries_.end())
    throw error("exala: stripe cache: pin of stripe " + std::to_string(index) + " not resident");
  it->second.pinned = true;
}

void stripe_cache::unpin(std::int64_t index) {
  lock_t lk(mu_);
  auto it = entries_.find(index);
  if (it != entries_.end()) it->second.pinned = false;
  wake();
}

void stripe_cache::discard(std::int64_t index) {
  lock_t lk(mu_);
  for (;;) {
    auto it = entries_.find(index);
    if (it == entries_.end()) return;
    entry& e = it->second;
    if (e.st == stripe_state::loading || e.st == stripe_state::flushing) {
      cv_.wait(lk);
      continue;
    }
    resident_ -= e.error ? e.reserved : e.buf.bytes();
    entries_.erase(it);
    wake();
    return;
  }
}

void stripe_cache::plan(std::vector<std::int64_t> upcoming) {
  {
    lock_t lk(mu_);
    plan_.assign(upcoming.begin(), upcoming.end());
    wake();
  }
}

void stripe_cache::flush_async() {
  {
    lock_t lk(mu_);
    for (std::int64_t idx : plan_)
      if (entries_.count(idx)) flush_queue_.push_back(idx);
    for (auto& [idx, e] : entries_) flush_queue_.push_back(idx);
    wake();
  }
}

void stripe_cache::flush_all() {
  lock_t lk(mu_);
  for (;;) {
    if (io_error_) std::rethrow_exception(io_error_);
    bool busy = false;
    std::int64_t next = -1;
    for (auto& [idx, e] : entries_) {
      if (e.st == stripe_state::loading || e.st == stripe_state::flushing) busy = true;
      else if (e.users == 0 && !e.error && e.buf.version > e.buf.disk_version && next < 0) next = idx;
    }
    if (next >= 0) {
      flush_entry(lk, next, entries_.at(next));
      continue;
    }
    if (!busy) break;
    cv_.wait(lk);
  }
  flush_queue_.clear();
  if (io_error_) std::rethrow_exception(io_error_);
}

void stripe_cache::io_loop() {
  lock_t lk(mu_);
  while (!stop_) {
    // Whatever changed while this thread had the mutex released (a flush, a
    // load) is seen through events_: it only sleeps when nothing happened.
    const std::uint64_t seen = events_;
    bool did = false;
    // Write-behind (checkpoints) first: they bound what a kill can lose.
    while (!flush_queue_.empty() && !did) {
      const std::int64_t idx = flush_queue_.front();
      flush_queue_.erase(flush_queue_.begin());
      auto it = entries_.find(idx);
      if (it == entries_.end()) continue;
      entry& e = it->second;
      if (!evictable(e) || e.buf.version <= e.buf.disk_version) continue;
      flush_entry(lk, idx, e);
      did = true;
    }
    if (!did && !io_error_) {
      const std::size_t window = std::min<std::size_t>(std::size_t(depth_), plan_.size());
      for (std::size_t i = 0; i < window; ++i) {
        const std::int64_t idx = plan_[i];
        if (entries_.count(idx)) continue;
        const std::uint64_t bytes = cb_.size(idx);
        // Room only from stripes outside the whole plan.
        if (!make_room(lk, bytes, plan_.size(), false)) break;
        if (entries_.count(idx) || stop_) break;  // the mutex was released while flushing
        entry& e = entries_[idx];
        e.st = stripe_state::loading;
        e.reserved = bytes;
        resident_ += bytes;
        stats_.peak_bytes = std::max(stats_.peak_bytes, resident_);
        ++stats_.prefetched;
        e.prefetched = true;
        load_entry(lk, idx);
        did = true;
        break;
      }
    }
    if (!did && !stop_ && events_ == seen) cv_.wait(lk);
  }
}

stripe_state stripe_cache::state(std::int64_t index) const {
  lock_t lk(mu_);
  auto it = entries_.find(index);
  if (it == entries_.end()) return stripe_state::on_disk;
  const entry& e = it->second;
  if (e.st != stripe_state::cached) return e.st;
  if (e.pinned) return stripe_state::stuck;
  return e.users > 0 ? stripe_state::in_use : stripe_state::cached;
}

cache_stats stripe_cache::stats() const {
  lock_t lk(mu_);
  cache_stats s = stats_;
  s.resident_bytes = resident_;
  return s;
}

}  // namespace exala::detail::stripe
