// stripe/cache.hpp - the host tier of the stripe LU: a byte-budgeted cache of
// stripes with a per-stripe state machine and I/O threads.
//
// States (stripe_state): on_disk (not resident) -> loading (an I/O thread or
// the acquiring thread reads it) -> cached (resident, evictable; clean or
// dirty) -> in_use (acquired by the compute thread) -> cached ... ; stuck: a
// pinned stripe (a pivot group member) that may not be evicted; flushing: a
// dirty stripe being written back (then cached clean, or dropped when it was
// evicted). Transitions happen under one mutex; waits use one condition
// variable. Eviction takes the least recently used evictable stripe, writing
// it back first when dirty.
//
// Budget: the bytes of all resident buffers (every state) never exceed the
// budget; an acquire that cannot make room because everything resident is
// in use or stuck throws exala::invalid_argument("cache") saying how much is
// needed. Prefetch: the compute thread announces its next acquisitions
// (plan); I/O threads load the first `depth` of them that are not resident,
// evicting only stripes that the plan no longer holds (a prefetch never
// evicts a stripe still to be used: with a deep window and a small cache
// the prefetchers would otherwise evict each other's loads); only the
// compute thread's own acquire, when nothing else is left, evicts a planned
// stripe.
//
// What a stripe's buffer holds and how it is read and written is the
// owner's business (callbacks): the cache never interprets the data.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "host_array.hpp"

namespace exala::detail::stripe {

enum class stripe_state { on_disk, loading, cached, in_use, stuck, flushing };

struct cache_buffer {
  host_array data;  // page-aligned where large (the store's O_DIRECT reads)
  std::int64_t rows = 0;
  std::int64_t col0 = 0;  // columns [col0, n) held, column-major, ld = rows
  std::int64_t version = 0;       // owner's counter of what the data holds (groups applied)
  std::int64_t disk_version = 0;  // what the disk copy holds
  std::uint64_t bytes() const { return std::uint64_t(rows) * std::uint64_t(ncols) * 8u; }
  std::int64_t ncols = 0;
};

struct cache_callbacks {
  // Fills a buffer for stripe `index` (allocates data, sets rows/col0/ncols/versions).
  std::function<void(std::int64_t index, cache_buffer& b)> load;
  // Writes a dirty buffer back (b.version > b.disk_version); the cache sets
  // disk_version = version afterwards.
  std::function<void(std::int64_t index, const cache_buffer& b)> flush;
  // Bytes a load of `index` will allocate (for the budget).
  std::function<std::uint64_t(std::int64_t index)> size;
};

// hits: acquisitions served by a stripe already resident; misses: loads on
// demand; prefetched: loads by the I/O threads (disk reads = misses + prefetched).
struct cache_stats {
  std::int64_t hits = 0, misses = 0, prefetched = 0, evictions = 0, flushes = 0;
  std::uint64_t resident_bytes = 0, peak_bytes = 0;
};

class stripe_cache {
 public:
  // budget 0: unlimited. io_threads 0: no prefetch, no write-behind.
  stripe_cache(cache_callbacks cb, std::uint64_t budget, int io_threads);
  ~stripe_cache();  // stops the I/O threads; does NOT flush (call flush_all)
  stripe_cache(const stripe_cache&) = delete;
  stripe_cache& operator=(const stripe_cache&) = delete;

  // Makes `index` resident and in use; returns its buffer (stable until release).
  cache_buffer& acquire(std::int64_t index);
  // Ends a use; the owner sets buf.version before releasing a modified stripe.
  void release(std::int64_t index);
  void pin(std::int64_t index);    // stuck: never evicted until unpin
  void unpin(std::int64_t index);
  // Removes a resident stripe without writing it back (its data is obsolete).
  void discard(std::int64_t index);
  // The next acquisitions, in order (replaces the previous plan).
  void plan(std::vector<std::int64_t> upcoming);
  // Writes back every dirty resident stripe (in plan order first) and waits.
  void flush_all();
  // Starts writing back every dirty resident stripe without waiting (checkpoint).
  void flush_async();

  stripe_state state(std::int64_t index) const;
  cache_stats stats() const;
  std::uint64_t budget() const noexcept { return budget_; }

 private:
  struct entry {
    cache_buffer buf;
    stripe_state st = stripe_state::loading;
    int users = 0;
    bool pinned = false;
    bool evict_after_flush = false;
    bool prefetched = false;  // loaded ahead and not acquired since
    std::uint64_t tick = 0;
    std::uint64_t reserved = 0;  // bytes counted while loading
    std::exception_ptr error;
  };
  using lock_t = std::unique_lock<std::mutex>;

  bool evictable(const entry& e) const;
  bool in_window(std::int64_t index, std::size_t upto) const;
  // Frees room for `bytes`; may start flushes and wait. Returns false if
  // impossible without touching stripes in the window [0, upto).
  bool make_room(lock_t& lk, std::uint64_t bytes, std::size_t upto, bool wait);
  void flush_entry(lock_t& lk, std::int64_t index, entry& e);
  void load_entry(lock_t& lk, std::int64_t index);
  void io_loop();
  void check_error(std::int64_t index, entry& e);
  // Records a state change and wakes every waiter (the mutex is held).
  void wake() {
    ++events_;
    cv_.notify_all();
  }

  cache_callbacks cb_;
  std::uint64_t budget_;
  std::uint64_t resident_ = 0;
  std::uint64_t tick_ = 0;
  std::map<std::int64_t, entry> entries_;
  std::deque<std::int64_t> plan_;
  std::vector<std::int64_t> flush_queue_;
  cache_stats stats_;
  std::exception_ptr io_error_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::uint64_t events_ = 0;
  int depth_ = 0;
  std::vector<std::thread> io_;
};

}  // namespace exala::detail::stripe
