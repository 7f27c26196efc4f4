/* xerbla_handler.c - a program's own XERBLA living in a shared library (not
 * in the executable): run_plain_blas.cmake preloads it after
 * libexala_blas.so, which defines no xerbla_, so this one is the first in the
 * global scope and the library must call it (not the system BLAS's). */
#include <stddef.h>
#include <stdio.h>

void xerbla_(const char* srname, const int* info, size_t len) {
  printf("program handler: %.*s %d\n", (int)(len < 6 ? len : 6), srname, *info);
}
