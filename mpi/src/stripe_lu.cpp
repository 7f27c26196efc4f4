// mpi/src/stripe_lu.cpp - the distributed stripe LU (exala/mpi.hpp).
// PLACEHOLDER: being written.
#include "exala/mpi.hpp"
