// progress.cpp - the stripe commands' progress display and number formats
// (see progress.hpp).
#include "progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <string_view>
#include <ostream>

#include <sys/ioctl.h>
#include <unistd.h>

namespace exala::cli {

namespace {

constexpr std::size_t bar_width = 8;
constexpr std::size_t default_width = 80;
constexpr double terminal_redraw_s = 0.2;  // at most 5 redraws a second

// Columns of the terminal on stderr (80 when unknown).
std::size_t terminal_width() {
  winsize ws{};
  if (::ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return default_width;
}

std::string percent(double fraction) {
  return format_fixed(100.0 * std::clamp(fraction, 0.0, 1.0), 1) + "%";
}

// "93.0%" of acquisitions served from the cache, or "-" before the first.
std::string hit_ratio(std::int64_t hits, std::int64_t misses, int digits = 1) {
  const std::int64_t total = hits + misses;
  if (total <= 0) return "-";
  return format_fixed(100.0 * static_cast<double>(hits) / static_cast<double>(total), digits) +
         "%";
}

// The pieces joined (one allocation, and no "literal" + string temporaries).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const std::string_view p : parts) s += p;
  return s;
}

std::string step_text(const exala::stripe_lu_progress& p) {
  return std::to_string(p.step) + "/" + std::to_string(p.steps);
}

std::string eta_text(double eta) { return eta < 0 ? "?" : format_duration(eta); }

}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) == 1; }

std::string format_fixed(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string format_sci(double v, int digits) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v < 0 ? "-inf" : "inf");
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", digits, v);
  return buf;
}

std::string format_duration(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  if (s < 60) return format_fixed(s, s < 10 ? 2 : 1) + " s";
  const auto total = static_cast<std::int64_t>(std::llround(s));
  const std::int64_t h = total / 3600, m = total / 60 % 60, sec = total % 60;
  char buf[64];
  if (h > 0)
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", static_cast<long long>(h),
                  static_cast<long long>(m), static_cast<long long>(sec));
  else
    std::snprintf(buf, sizeof buf, "%lld:%02lld", static_cast<long long>(m),
                  static_cast<long long>(sec));
  return buf;
}

std::string format_bytes(double bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  if (!(bytes >= 0) || !std::isfinite(bytes)) return "?";
  std::size_t u = 0;
  while (bytes >= 1024 && u + 1 < std::size(units)) {
    bytes /= 1024;
    ++u;
  }
  if (u == 0) return std::to_string(static_cast<std::int64_t>(bytes)) + " B";
  return format_fixed(bytes, bytes < 10 ? 2 : 1) + " " + units[u];
}

progress_display::progress_display(std::ostream& os, bool terminal, double interval_s)
    : os_(os),
      terminal_(terminal),
      interval_s_(interval_s),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

progress_display::~progress_display() { clear(); }

double progress_display::library_interval() const {
  return terminal_ ? terminal_redraw_s : std::min(interval_s_, 1.0);
}

std::function<void(const exala::stripe_lu_progress&)> progress_display::callback() {
  return [this](const exala::stripe_lu_progress& p) { update(p); };
}

std::string progress_display::terminal_text(const exala::stripe_lu_progress& p,
                                            std::size_t width) {
  const double f = std::clamp(p.fraction, 0.0, 1.0);
  const auto filled = static_cast<std::size_t>(f * static_cast<double>(bar_width));
  const std::string bar =
      cat({" [", std::string(filled, '#'), std::string(bar_width - filled, '.'), "]"});
  std::string rest = cat({" ", step_text(p), " ", percent(f), " ", format_duration(p.elapsed_s),
                          " ETA ", eta_text(p.eta_s)});
  if (p.phase == "factor") rest += cat({" ", format_fixed(p.gflops, 1), " GFLOP/s"});
  // import reads a text file, export writes one: one rate to show, no cache.
  if (p.phase == "import" || p.phase == "export")
    rest += cat({" read ", format_fixed(p.io_read_mbs, 0), " MB/s"});
  else
    rest += cat({" r/w ", format_fixed(p.io_read_mbs, 0), "/", format_fixed(p.io_write_mbs, 0),
                 " MB/s hits ", hit_ratio(p.cache_hits, p.cache_misses, 0)});
  // A narrow terminal loses the bar first, then the end of the line.
  std::string line = cat({p.phase, bar, rest});
  if (width > 1 && line.size() > width - 1) line = cat({p.phase, rest});
  if (width > 1 && line.size() > width - 1) line.resize(width - 1);
  return line;
}

std::string progress_display::plain_text(const exala::stripe_lu_progress& p) {
  std::string line = cat({"exala: ", p.phase, ": step ", step_text(p), " (", percent(p.fraction),
                          "), ", format_duration(p.elapsed_s), " elapsed, ETA ",
                          eta_text(p.eta_s)});
  if (p.phase == "factor") line += cat({", ", format_fixed(p.gflops, 1), " GFLOP/s"});
  line += cat({", read ", format_fixed(p.io_read_mbs, 1), " MB/s"});
  if (p.phase != "import" && p.phase != "export")
    line += cat({", write ", format_fixed(p.io_write_mbs, 1), " MB/s, cache hits ",
                 hit_ratio(p.cache_hits, p.cache_misses)});
  return line;
}

void progress_display::update(const exala::stripe_lu_progress& p) {
  const std::lock_guard<std::mutex> lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (terminal_) {
    // Redraw at most every terminal_redraw_s, but show a new phase and a
    // finished one at once.
    const bool change = p.phase != last_phase_ || (p.steps > 0 && p.step == p.steps);
    if (drawn_ && !change && since < terminal_redraw_s) return;
    os_ << '\r' << terminal_text(p, terminal_width()) << "\x1b[K" << std::flush;
    drawn_ = true;
  } else {
    if (since < interval_s_) return;
    os_ << plain_text(p) << '\n' << std::flush;
  }
  last_ = now;
  last_phase_ = p.phase;
}

void progress_display::clear() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (terminal_ && drawn_) os_ << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace exala::cli
