// kernels.cpp - (being written)
