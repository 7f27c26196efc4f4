// test_lapack_route.cpp - the LAPACK detection of `exala run`
// (bindings/cli/lapack_route.cpp) on the real system files: the reference
// LAPACK routes its BLAS calls through the dynamic linker, OpenBLAS's LAPACK
// and libopenblas itself do not. A case whose file is not installed passes
// with a message naming the file and the Debian package.
#define BOOST_TEST_MODULE test_lapack_route
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "exala/error.hpp"
#include "lapack_route.hpp"

namespace cli = exala::cli;

namespace {

const std::string libdir = "/usr/lib/x86_64-linux-gnu";

bool installed(const std::string& file, const char* package) {
  if (access(file.c_str(), R_OK) == 0) return true;
  BOOST_TEST_MESSAGE("SKIPPED: " << file << " is not installed (Debian: " << package << ")");
  return false;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reference_lapack_routes_through_the_dynamic_linker) {
  const std::string file = libdir + "/lapack/liblapack.so.3";
  if (!installed(file, "liblapack3")) return;
  const cli::elf_dynamic d = cli::read_elf_dynamic(file);
  BOOST_TEST(d.defines("dgetrf_"));
  BOOST_TEST(d.imports("dgemm_"));
  BOOST_TEST(!d.defines("dgemm_"));
  const cli::lapack_verdict v = cli::classify_lapack(file);
  BOOST_TEST(!v.bypasses());
  BOOST_TEST(static_cast<int>(v.route) == static_cast<int>(cli::lapack_route::dynamic_blas));
}

BOOST_AUTO_TEST_CASE(openblas_lapack_bypasses) {
  const std::string file = libdir + "/openblas-pthread/liblapack.so.3";
  if (!installed(file, "libopenblas0-pthread")) return;
  const cli::lapack_verdict v = cli::classify_lapack(file);
  BOOST_TEST(v.bypasses());
  BOOST_TEST(static_cast<int>(v.route) == static_cast<int>(cli::lapack_route::openblas));
  BOOST_TEST(v.reason.find("OpenBLAS") != std::string::npos);
  // (It still imports dgemm_: its routines that are Netlib's code, such as
  // dgeqrf and dsyev, do call the BLAS through the dynamic linker.)
  BOOST_TEST(cli::read_elf_dynamic(file).imports("dgemm_"));
}

BOOST_AUTO_TEST_CASE(libopenblas_bundles_its_blas) {
  const std::string file = libdir + "/openblas-pthread/libopenblas.so.0";
  if (!installed(file, "libopenblas0-pthread")) return;
  const cli::lapack_verdict v = cli::classify_lapack(file);
  BOOST_TEST(v.bypasses());
  BOOST_TEST(static_cast<int>(v.route) == static_cast<int>(cli::lapack_route::bundled_blas));
}

BOOST_AUTO_TEST_CASE(the_default_alternative_is_followed) {
  // /usr/lib/<arch>/liblapack.so.3 -> /etc/alternatives/... -> the chosen one.
  const std::string file = libdir + "/liblapack.so.3";
  if (!installed(file, "liblapack3 or libopenblas0")) return;
  char real[4096] = {};
  BOOST_REQUIRE(realpath(file.c_str(), real) != nullptr);
  const bool openblas = std::string(real).find("openblas") != std::string::npos;
  BOOST_TEST_MESSAGE(file << " is " << real);
  BOOST_TEST(cli::classify_lapack(file).bypasses() == openblas);
}

BOOST_AUTO_TEST_CASE(not_a_library_is_an_error) {
  char name[] = "/tmp/exala_lapack_route_XXXXXX";
  const int fd = mkstemp(name);
  BOOST_REQUIRE(fd >= 0);
  close(fd);
  {
    std::ofstream out(name);
    out << "not an ELF file\n";
  }
  BOOST_CHECK_THROW(cli::read_elf_dynamic(name), exala::error);
  // A truncated ELF file: the header only.
  const std::string real_lib = libdir + "/lapack/liblapack.so.3";
  if (access(real_lib.c_str(), R_OK) == 0) {
    std::ifstream in(real_lib, std::ios::binary);
    char header[64];
    in.read(header, sizeof header);
    std::ofstream out(name, std::ios::binary | std::ios::trunc);
    out.write(header, sizeof header);
  }
  if (access(real_lib.c_str(), R_OK) == 0) BOOST_CHECK_THROW(cli::read_elf_dynamic(name), exala::error);
  std::remove(name);
  BOOST_CHECK_THROW(cli::read_elf_dynamic("/nonexistent/liblapack.so.3"), exala::error);
}

BOOST_AUTO_TEST_CASE(ldd_output) {
  BOOST_TEST(cli::lapack_from_ldd_output(
                 "\tlinux-vdso.so.1 (0x00007ffc)\n"
                 "\tliblapack.so.3 => /lib/x86_64-linux-gnu/liblapack.so.3 (0x00007f12)\n"
                 "\tlibblas.so.3 => /lib/x86_64-linux-gnu/libblas.so.3 (0x00007f34)\n") ==
             "/lib/x86_64-linux-gnu/liblapack.so.3");
  BOOST_TEST(cli::lapack_from_ldd_output("\tliblapack.so.3 => not found\n").empty());
  BOOST_TEST(cli::lapack_from_ldd_output("\tnot a dynamic executable\n").empty());
  BOOST_TEST(cli::lapack_from_ldd_output("").empty());
}

BOOST_AUTO_TEST_CASE(program_search) {
  BOOST_TEST(!cli::find_program("sh", "/nonexistent:/usr/bin:/bin").empty());
  BOOST_TEST(cli::find_program("exala-no-such-program", "/usr/bin:/bin").empty());
  BOOST_TEST(cli::find_program("/bin/sh", "").find("/bin/sh") == 0);
  // A program without liblapack: the search path decides (LD_LIBRARY_PATH first).
  const std::string ref = libdir + "/lapack";
  if (!installed(ref + "/liblapack.so.3", "liblapack3")) return;
  BOOST_TEST(cli::lapack_for("/bin/sh", ref) == ref + "/liblapack.so.3");
}
