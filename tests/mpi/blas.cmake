# Distributed gemv (row and column blocks) and block-row cyclic trsv
# (exala/mpi.hpp): bit-for-bit against exala::gemv / exala::trsv under
# mpirun -np 1..4 (label mpi), the bigger sweeps under -np 4 (label long).
exala_mpi_test_executable(test_mpi_blas mpi/test_mpi_blas.cpp)
exala_add_mpi_suite(test_mpi_blas)
