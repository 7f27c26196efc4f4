// mpi_commands.hpp - the `exala` commands under `--backend mpi`:
//
//   mpirun -np P exala sum|asum FILE --backend mpi [--local-backend B] ...
//   mpirun -np P exala dot X Y --backend mpi ...
//   mpirun -np P exala gemv A X [--trans N|T] [--alpha a] [--beta b] [--y Y] --backend mpi
//   mpirun -np P exala trsv T B [--uplo L|U] [--trans N|T] [--diag N|U] [--block NB] --backend mpi
//   mpirun -np P exala solve A B | --workdir DIR [--rank-workdir PATTERN] ... --backend mpi
//
// Every rank runs the same command line. exala.cpp checks the options as
// for a single process; the functions here read each rank's part of the
// files, call the MPI layer (exala/mpi.hpp) with the local backend
// (--local-backend, default simd) and return the result on every rank;
// rank 0 alone writes it. The bits equal the single-process command's.
//
// Who reads what (the Matrix Market reader has no random access: a rank
// skips the values before its part by splitting lines into tokens, without
// converting them; only its own tokens are parsed):
// - sum, asum, dot: rank r parses its contiguous block of the vector's
//   entries (an even split, the first n mod P ranks one more; a rank may get
//   none); the rank holding the last entry reads on to the end of the file
//   to check that no value follows.
// - gemv --trans N: rank r parses its block of columns of A (contiguous in
//   the column-major file) and the same entries of x; rank 0 reads y and
//   broadcasts it (the column-block gemv needs y on every rank).
//   gemv --trans T: A^T's rows are A's columns, so the same block of A is
//   this rank's row block of A^T (row-major, lda m) for the row-block gemv;
//   rank 0 reads x (replicated) and broadcasts it, rank r parses its block of
//   y, and rank 0 gathers the result.
// - trsv: block-row cyclic (--block NB rows, default 256): rank r parses the
//   entries of its block rows of T (every rank scans the file, the rows of a
//   column being interleaved); rank 0 reads b and broadcasts it.
// - solve --workdir DIR: the distributed stripe LU out of core; each rank
//   reads its stripes from the stored system and keeps its factorization in
//   its own directory (--rank-workdir PATTERN, %r = the rank; default
//   DIR/mpi/rank-%r). solve A B (in core): each rank keeps the rows of its
//   own stripes of A (one pass over the file), rank 0 reads B and
//   broadcasts it.
//
// Agreement: the first collective step of every command (mpi_session::begin)
// makes sure that every rank runs the same thing: the same command, the same
// settings that decide the sequence of collective calls or a bit of the
// result (each command lists them: the operation's options, --rounding, -o,
// the stripe LU's options, --workdir), and the same bytes in each input file
// (its size and a checksum of its contents, read whole on every rank; the
// path may differ, as with per-node copies). A rank that differs from rank 0
// ends the run on every rank with one line naming it, rank 0, the setting
// or file, and what differs - never a hang (ranks that would make different
// collective calls) or a result from mixed inputs. Each rank's own
// resources may differ: --threads, --device, --local-backend (the bits and
// the collective calls never depend on them), and solve's --cache,
// --io-threads, --sync, --drop-page-cache, --rank-workdir, --quiet and
// --progress-interval. A rank that runs no command (--help, --version)
// takes part too, so that the others do not wait for it.
//
// Errors: a problem on any rank ends every rank with exit status 2 and one
// line 'exala: error: ...' printed by rank 0 (naming the failing rank when it
// is another one). File errors are agreed on by position: the one reported
// is the first in the files' order, as a single process would report it.
// Option errors are found before any data moves, on every rank alike.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "exala/backend.hpp"
#include "exala/blas2.hpp"
#include "stripe_commands.hpp"

namespace exala::cli {

// Whether --backend mpi is compiled in: this file's functions are
// mpi_commands.cpp's (over exala::mpi), else mpi_absent.cpp's, which fail
// with exala::not_compiled_in. The one place the tool asks.
bool mpi_compiled_in() noexcept;

// MPI for one run of the tool: MPI_Init in the constructor, MPI_Finalize in
// the destructor, MPI_COMM_WORLD as the communicator. It also keeps the
// bookkeeping that turns an exception on some ranks into one error line.
// What a rank is about to run, as the ranks compare it (mpi_session::begin):
// named items in order, each a setting or an input file.
class run_identity {
 public:
  // A setting every rank must give alike, compared as text (`what` names
  // it in messages: "command", "option '--trans'", ...; `shown`: the value
  // in messages, by default the value quoted).
  void add(std::string what, std::string value, std::string shown = {});
  // An input file (`what`: its operand, "A", "X", ... or an option "--y"):
  // every rank must read the same bytes. Never throws for an unreadable
  // file: that is part of its identity (the command reports it later as a
  // single process does, when every rank fails alike).
  void add_file(std::string what, const std::string& path);
  // An optional input file that this rank was not given.
  void add_no_file(std::string what);

  // Serialized form (for the broadcast of rank 0's identity) and back.
  std::string text() const;
  static run_identity parse(const std::string& text);
  // "" when this identity is rank 0's `root`, else the message (from this
  // rank's side: "... here but ... on rank 0") naming what differs first.
  std::string difference(const run_identity& root) const;

 private:
  struct item {
    std::string what;   // the name of the setting or file
    std::string value;  // compared
    std::string shown;  // for messages only (a file's path)
    std::string note;   // for messages only (a file's shape)
  };
  std::vector<item> items_;
};

class mpi_session {
 public:
  mpi_session(int* argc, char*** argv);
  // A rank that ran no command joins the first agreement here (and ends the
  // process with status 2 if the others ran one).
  ~mpi_session();
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  bool root() const noexcept { return rank_ == 0; }

  // Called on every rank with the exception that ended its run: makes sure
  // every rank knows the run failed, and returns the text of the error line
  // this rank prints (empty: it prints none; rank 0 prints the line).
  // May end the whole job (MPI_Abort) for an error that the other ranks
  // cannot learn of.
  std::string settle(std::exception_ptr failure);

  // -o FILE of the command line (empty: standard output), set by exala.cpp:
  // part of every command's identity.
  void set_output(std::string output) { output_ = std::move(output); }
  const std::string& output() const noexcept { return output_; }

  // The first collective step of every command: `describe` fills this
  // rank's identity (on every rank; errors are agreed on as in agree), and
  // the ranks compare theirs with rank 0's. A difference throws
  // mpi_agreed_error on every rank, with one line naming the lowest rank
  // that differs, rank 0 and what differs.
  void begin(const std::function<void(run_identity&)>& describe);
  // Used by mpi_commands.cpp: runs `phase` on every rank and agrees on
  // errors (exala::mpi::detail::agree); a failure on any rank throws
  // mpi_agreed_error on every rank.
  void agree(const std::function<void()>& phase);
  // Runs a collective library call that throws on every rank or on none.
  void collective(const std::function<void()>& call);
  // No collective call follows (rank 0 writes the result).
  void finish() noexcept { finished_ = true; }

 private:
  int rank_ = 0;
  int size_ = 1;
  long agreements_ = 0;
  bool finished_ = false;
  std::string output_;
};

// The scalar of sum, asum (one file) or dot (two files), on every rank.
double mpi_reduce(mpi_session& s, std::string_view command, const std::vector<std::string>& files,
                  const exala::exec& local);

// y = alpha op(A) x + beta y (y: the file --y, or none); the result on rank
// 0 (and maybe others).
struct mpi_gemv_args {
  exala::transpose trans = exala::transpose::none;
  double alpha = 1.0;
  double beta = 0.0;
  std::string a, x;
  std::optional<std::string> y;
};
solution mpi_gemv(mpi_session& s, const mpi_gemv_args& args, const exala::exec& local);

// op(T) x = b by the exact method, block-row cyclic with nb rows a block.
struct mpi_trsv_args {
  exala::uplo ul = exala::uplo::lower;
  exala::transpose trans = exala::transpose::none;
  exala::diag dg = exala::diag::non_unit;
  std::int64_t nb = 256;
  std::string t, b;
};
solution mpi_trsv(mpi_session& s, const mpi_trsv_args& args, const exala::exec& local);

// exala solve (in core: operands A B; out of core: --workdir) by the
// distributed stripe LU; the solution on every rank, progress and summary on
// rank 0.
solution mpi_solve(mpi_session& s, const stripe_request& r);

}  // namespace exala::cli
