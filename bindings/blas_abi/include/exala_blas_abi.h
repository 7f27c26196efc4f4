/* exala_blas_abi.h - the two ExaLA-specific symbols of libexala_blas.so, the
 * drop-in BLAS/CBLAS library.
 *
 * libexala_blas.so exports the Fortran BLAS symbols (ddot_, dgemm_, ...) and
 * the CBLAS symbols (cblas_ddot, cblas_dgemm, ...) with their standard
 * signatures: declare them with your usual cblas.h / f77blas.h, or link
 * with -lexala_blas instead of (or before) -lblas, or preload the library
 * (LD_PRELOAD=libexala_blas.so). BLAS integers are 32-bit `int` (LP64, the
 * gfortran default); hidden Fortran character lengths are size_t. See
 * bindings/blas_abi/README.md for the routine table and the environment
 * variables (EXALA_BACKEND, EXALA_NUM_THREADS).
 */
#ifndef EXALA_BLAS_ABI_H
#define EXALA_BLAS_ABI_H

#ifdef __cplusplus
extern "C" {
#endif

/* "ExaLA drop-in BLAS <version>" (a static string). */
const char* exala_blas_abi_version(void);

/* dlsym(RTLD_NEXT, name) evaluated inside libexala_blas.so: the next loaded
 * library's definition of `name` (under LD_PRELOAD, the system BLAS's
 * dgemm_ for name "dgemm_"), or NULL when there is none or name is NULL.
 * Code that wants the system BLAS while ExaLA's is preloaded looks this
 * function up with dlsym(RTLD_DEFAULT, "exala_blas_abi_next"). */
void* exala_blas_abi_next(const char* name);

#ifdef __cplusplus
}
#endif

#endif /* EXALA_BLAS_ABI_H */
