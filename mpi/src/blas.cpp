// mpi/src/blas.cpp - distributed gemv (row and column blocks) and block-row
// cyclic trsv (exala/mpi.hpp). PLACEHOLDER: being written.
#include "exala/mpi.hpp"
