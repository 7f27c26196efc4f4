// test_mpi_reduce.cpp - distributed exact sum/asum/dot/nrm2 (being written).
#define BOOST_TEST_MODULE exala_mpi_reduce
#include "mpi_test_main.hpp"
#include "exala/mpi.hpp"
BOOST_AUTO_TEST_CASE(placeholder_size) { BOOST_TEST(exala_mpi_test::size() >= 1); }
