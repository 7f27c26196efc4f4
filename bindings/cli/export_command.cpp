// export_command.cpp - `exala export`: a part of a stored stripe system back
// to Matrix Market (see stripe_commands.hpp).
//
//   exala export matrix|rhs|solution|reference --workdir DIR [-o FILE] [--buffer SIZE]
//                [--progress-interval SEC] [--quiet]
//
//   matrix     A (n x n), read by panels of whole columns, at most --buffer
//              bytes at a time (default 1GiB), so that a matrix larger than
//              memory is exported too (one read of the stripe files in all);
//              its progress shows on stderr as solve's does (phase "export")
//   rhs        B (n x nrhs)
//   solution   the solution (n x nrhs) that the last successful `exala solve
//              --workdir` of this system stored (the bits it wrote to -o or
//              standard output); none before the first solve, and none
//              after a new system replaced the set
//   reference  the reference solution (n x nrhs) that `exala generate dense`
//              stores (the x it made B from); `exala import` stores none
//
// Format: '%%MatrixMarket matrix array real general', values column-major,
// each with 17 significant digits (exala::io::format_real; -0.0 is "-0"),
// which the reader rounds back to the same double: `exala import` of the
// exported matrix and right-hand sides stores the same bits, and exporting
// that copy gives the same file byte for byte. (The store holds finite values
// only; inf and nan would be written "inf", "-inf", "nan" and read back, NaN
// payloads aside.)
//
// Output: -o FILE is written as a temporary beside FILE and renamed over it
// once complete and synced (exala::io::write_array_file): a full disk, an I/O
// error, a damaged stripe file met halfway or a killed process leaves the
// previous FILE (or none), never a partial one (a SIGKILL, which nothing can
// clean up after, leaves the temporary FILE.tmp.PID.N beside it). Without -o
// (or with -o -) the file goes to standard output. A line on stderr says
// what was written (not with --quiet). The work directory set is locked (workdir_lock) while
// it is read, so that no import or solve changes it underneath.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "exala/stripe_lu.hpp"
#include "matrix_market.hpp"
#include "progress.hpp"
#include "stripe_commands.hpp"

namespace exala::cli {

namespace {

constexpr std::uint64_t default_export_buffer = 1ULL << 30;

enum class part { matrix, rhs, solution, reference };

std::string quoted(std::string_view v) { return "'" + exala::io::printable(v) + "'"; }

part parse_part(std::string_view v) {
  if (v == "matrix") return part::matrix;
  if (v == "rhs") return part::rhs;
  if (v == "solution") return part::solution;
  if (v == "reference") return part::reference;
  throw usage_error("export: unknown part " + quoted(v) +
                    " (expected matrix|rhs|solution|reference)");
}

}  // namespace

void export_system(const stripe_request& r) {
  if (r.threads != 0) throw usage_error("option '--threads' does not apply to 'export'");
  const part what = parse_part(r.operands.at(0));
  std::uint64_t buffer = default_export_buffer;
  if (const auto v = r.options.get("--buffer")) buffer = parse_size("--buffer", *v);
  const double interval = progress_interval(r);
  const std::vector<std::string> dirs = workdirs_of(r);
  if (dirs.empty()) throw usage_error("export needs '--workdir DIR'");
  const std::string out = r.output.empty() ? std::string("-") : r.output;
  check_output(r.output);
  check_workdirs_exist(dirs);
  const auto t0 = std::chrono::steady_clock::now();
  const workdir_lock lock(dirs, false);
  const exala::stripe_system_reader rd(dirs);
  const std::int64_t n = rd.n();
  const std::int64_t nrhs = rd.nrhs();

  exala::io::array_file f;
  f.path = out;
  f.rows = n;
  std::vector<double> values;
  std::string name;
  std::unique_ptr<progress_display> display;  // export matrix, not --quiet
  if (what == part::matrix) {
    name = "the matrix";
    f.cols = n;
    const auto column_bytes = 8 * static_cast<std::uint64_t>(n);
    const auto panel = static_cast<std::int64_t>(
        std::min<std::uint64_t>(buffer / column_bytes, static_cast<std::uint64_t>(n)));
    if (panel == 0)
      throw usage_error("export: --buffer " + format_bytes(static_cast<double>(buffer)) +
                        " holds less than one column of the matrix (" +
                        std::to_string(column_bytes) + " bytes): give a larger --buffer");
    f.panel = panel;
    const std::int64_t panels = (n + panel - 1) / panel;
    if (!r.options.has("--quiet"))
      display = std::make_unique<progress_display>(std::cerr, stderr_is_terminal(), interval);
    f.source = [&, n, panel, panels](std::int64_t c0, std::int64_t c1, double* dst) {
      rd.read_block(0, n, c0, c1 - c0, dst, n);
      if (!display) return;
      exala::stripe_lu_progress p;
      p.phase = "export";
      p.step = (c1 + panel - 1) / panel;
      p.steps = panels;
      p.fraction = static_cast<double>(c1) / static_cast<double>(n);
      p.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (p.fraction > 0) p.eta_s = p.elapsed_s * (1 - p.fraction) / p.fraction;
      if (p.elapsed_s > 0)
        p.io_read_mbs = 8.0 * static_cast<double>(n) * static_cast<double>(c1) / p.elapsed_s / 1e6;
      display->update(p);
    };
  } else {
    f.cols = nrhs;
    values = exala::io::zero_values("export: " + std::string(r.operands[0]), n, nrhs);
    if (what == part::rhs) {
      name = "the right-hand sides";
      rd.read_rhs(values.data(), std::max<std::int64_t>(n, 1));
    } else if (what == part::solution) {
      name = "the solution";
      if (!rd.read_solution(values.data(), std::max<std::int64_t>(n, 1)))
        throw exala::error("export: no solution is stored in the work directory set " +
                           dirs_text(dirs) + " yet ('exala solve --workdir " + dirs_text(dirs) +
                           "' stores the solution it computes)");
    } else {
      name = "the reference solution";
      if (!rd.read_xtrue(values.data(), std::max<std::int64_t>(n, 1)))
        throw exala::error("export: the work directory set " + dirs_text(dirs) +
                           " holds no reference solution (only 'exala generate dense' stores "
                           "one; 'exala import' does not)");
    }
    f.data = values;
  }
  exala::io::write_array_file(f);
  if (display) display->clear();
  if (!r.options.has("--quiet")) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string dest = "standard output";
    if (out != "-") {
      dest = "'";
      dest += exala::io::printable(out, 4096);
      dest += "'";
    }
    std::cerr << "exala: exported " << name << " (" << f.rows << " x " << f.cols << ") of "
              << dirs_text(dirs) << " to " << dest << ", " << format_duration(s) << '\n';
  }
}

}  // namespace exala::cli
