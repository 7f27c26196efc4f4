# The distributed stripe LU (exala::mpi::stripe_lu): bit equality with the
# single-process exala::stripe_lu in memory and out of core, error agreement
# (singular pivots, bad or mismatched arguments, write faults) and resume,
# under mpirun -np 1..4 (tests/mpi/mpi.cmake). The suite uses the stripe LU
# internals (stripe/store.hpp: the write-fault hook), hence solvers/src.
exala_mpi_test_executable(test_mpi_stripe_lu mpi/test_mpi_stripe_lu.cpp)
target_include_directories(test_mpi_stripe_lu PRIVATE ${PROJECT_SOURCE_DIR}/solvers/src)
exala_add_mpi_suite(test_mpi_stripe_lu)
