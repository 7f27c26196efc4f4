/* xerbla_handler.c - a program's own XERBLA living in a shared library (not
 * in the executable): run_plain_blas.cmake preloads it after
 * libexala_blas.so, so libexala_blas.so's weak xerbla_ is found first in the
 * global scope and the library must find this one after itself. */
#include <stddef.h>
#include <stdio.h>

void xerbla_(const char* srname, const int* info, size_t len) {
  printf("program handler: %.*s %d\n", (int)(len < 6 ? len : 6), srname, *info);
}
