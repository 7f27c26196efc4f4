/* xerbla_module_host.c - loads xerbla_module (argv[1]) with
 * dlopen(RTLD_NOW | RTLD_LOCAL), as Python loads an extension module, and
 * runs its illegal calls. The host itself links no BLAS and has no handler.
 * Prints "returned" when the module's calls came back. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s <xerbla_module.so>\n", argv[0]);
    return 2;
  }
  void* module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (module == NULL) {
    fprintf(stderr, "dlopen(%s): %s\n", argv[1], dlerror());
    return 2;
  }
  void (*run)(void) = (void (*)(void))dlsym(module, "xerbla_module_run");
  if (run == NULL) {
    fprintf(stderr, "xerbla_module_run: %s\n", dlerror());
    return 2;
  }
  run();
  printf("returned\n");
  return 0;
}
