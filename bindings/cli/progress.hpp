// progress.hpp - the progress display of the `exala` stripe commands, fed by
// exala::stripe_lu_options::on_progress, and the number formats of their
// summaries.
//
// On a terminal (stderr is a tty) the display is one line redrawn in place
// ('\r', then the line, then "erase to the end of the line"), cut to the
// terminal's width: phase, a bar, step i/N, percent, elapsed time, ETA,
// GFLOP/s, I/O read and write rates, cache hit ratio. Anywhere else (a log
// file, a pipe) it prints whole lines 'exala: PHASE: ...' with the same
// fields, at most one every `interval_s` seconds, so that logs stay short.
// Standard output is never touched: it is for results only. `exala import`
// shows its passes over A through the same display (phase "import": the
// read rate only), and `exala export matrix` its panels of columns (phase
// "export": the rate at which A is read).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>

#include "exala/stripe_lu.hpp"

namespace exala::cli {

class progress_display {
 public:
  // terminal: redraw one line; otherwise plain lines at most every interval_s.
  progress_display(std::ostream& os, bool terminal, double interval_s);
  // Clears the terminal line (the error message or summary comes next).
  ~progress_display();
  progress_display(const progress_display&) = delete;
  progress_display& operator=(const progress_display&) = delete;

  // Shows one snapshot (thread-safe; called from the library's computing thread).
  void update(const exala::stripe_lu_progress& p);
  // Erases the redrawn line, if any; later updates draw again.
  void clear();
  // A callable for stripe_lu_options::on_progress that forwards to update().
  std::function<void(const exala::stripe_lu_progress&)> callback();
  // How often the library should call (seconds): often enough for this display.
  double library_interval() const;

  // The texts, without any terminal control (for tests and logs).
  static std::string terminal_text(const exala::stripe_lu_progress& p, std::size_t width);
  static std::string plain_text(const exala::stripe_lu_progress& p);

 private:
  std::ostream& os_;
  bool terminal_;
  double interval_s_;
  std::mutex mutex_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_;
  std::string last_phase_;
  bool drawn_ = false;  // a terminal line is showing
};

// Whether standard error is a terminal.
bool stderr_is_terminal();

// "0.42 s", "12.3 s", "2:05", "1:02:03" (h:mm:ss).
std::string format_duration(double seconds);
// "512 B", "12.0 KiB", "3.4 MiB", "1.50 GiB" (binary units, like the size options).
std::string format_bytes(double bytes);
// "%.*e"-style short scientific text: "1.2e-16".
std::string format_sci(double v, int digits = 2);
// "%.*f": fixed with `digits` decimals.
std::string format_fixed(double v, int digits);

}  // namespace exala::cli
