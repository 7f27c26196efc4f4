! exala_c_api.f90 - layer 1 of the Fortran binding: exala.h as Fortran sees it.
! The enums (same names and values), the interoperable structs and the
! bind(c) interfaces on the C functions (bindings/c/include/exala.h). The
! names without a c_ prefix are public in `exala` as they are (spglib
! style); the c_ ones are called only by the module's wrappers. Internal:
! users `use exala`, which re-exports what is public.
module exala_c_api
  use, intrinsic :: iso_c_binding
  implicit none
  public


  ! ------------------------------------------------------------ status codes
  ! exala_status of exala.h: the same names and values.
  enum, bind(c)
    enumerator :: EXALA_SUCCESS = 0
    enumerator :: EXALA_ERROR_INVALID_ARGUMENT = 1
    enumerator :: EXALA_ERROR_NOT_COMPILED_IN = 2
    enumerator :: EXALA_ERROR_SINGULAR = 3
    enumerator :: EXALA_ERROR_SINGULAR_PIVOT = 4
    enumerator :: EXALA_ERROR_STORAGE = 5
    enumerator :: EXALA_ERROR_FORMAT = 6
    enumerator :: EXALA_ERROR_OUT_OF_MEMORY = 7
    enumerator :: EXALA_ERROR_RUNTIME = 8
    enumerator :: EXALA_ERROR_INTERNAL = 9
    enumerator :: EXALA_ERROR_OVERFLOW = 10
  end enum

  ! ------------------------------------------- enums of exala.h (CBLAS values)
  enum, bind(c)
    enumerator :: EXALA_ROW_MAJOR = 101, EXALA_COL_MAJOR = 102
  end enum
  enum, bind(c)
    enumerator :: EXALA_NO_TRANS = 111, EXALA_TRANS = 112
  end enum
  enum, bind(c)
    enumerator :: EXALA_UPPER = 121, EXALA_LOWER = 122
  end enum
  enum, bind(c)
    enumerator :: EXALA_NON_UNIT = 131, EXALA_UNIT = 132
  end enum
  enum, bind(c)
    enumerator :: EXALA_LEFT = 141, EXALA_RIGHT = 142
  end enum
  enum, bind(c)
    enumerator :: EXALA_ROUND_NEAREST_EVEN = 0
    enumerator :: EXALA_ROUND_TOWARD_ZERO = 1
    enumerator :: EXALA_ROUND_UPWARD = 2
    enumerator :: EXALA_ROUND_DOWNWARD = 3
  end enum
  enum, bind(c)
    enumerator :: EXALA_BACKEND_REFERENCE = 0
    enumerator :: EXALA_BACKEND_SIMD = 1
    enumerator :: EXALA_BACKEND_OMP = 2
    enumerator :: EXALA_BACKEND_OPENCL = 3
    enumerator :: EXALA_BACKEND_CUDA = 4
  end enum
  enum, bind(c)
    enumerator :: EXALA_ORDER_BASIC = 0, EXALA_ORDER_ZIGZAG = 1, EXALA_ORDER_META_ZIGZAG = 2
  end enum
  enum, bind(c)
    enumerator :: EXALA_PIVOT_LOCAL = 0, EXALA_PIVOT_PARTIAL = 1
  end enum

  integer, parameter :: EXALA_VERSION_MAJOR = 0
  integer, parameter :: EXALA_VERSION_MINOR = 1
  integer, parameter :: EXALA_VERSION_PATCH = 0

  ! -------------------------------------------- interoperable structs of exala.h
  ! exala_exec: backend, threads, rounding and block size of a call.
  type, bind(c), public :: exala_exec
    integer(c_int) :: backend = EXALA_BACKEND_SIMD
    integer(c_int) :: threads = 0
    integer(c_int) :: rounding = EXALA_ROUND_NEAREST_EVEN
    integer(c_int64_t) :: block = 0
  end type

  ! exala_stripe_lu_options (fill with exala_stripe_lu_options_init).
  type, bind(c), public :: exala_stripe_lu_options
    integer(c_int64_t) :: stripe = 0, substripe = 0, meta = 0
    integer(c_int) :: order = EXALA_ORDER_ZIGZAG
    integer(c_int) :: pivot = EXALA_PIVOT_LOCAL
    integer(c_int64_t) :: cache_bytes = 0   ! uint64_t
    integer(c_int) :: threads = 0, io_threads = 2, sync = 0, drop_page_cache = 0, resume = 1
    real(c_double) :: pivot_threshold = -1, checkpoint_interval_s = 30
    type(c_ptr) :: engine = c_null_ptr       ! const char*; the wrappers' `engine` sets it
    type(c_funptr) :: on_progress = c_null_funptr
    type(c_ptr) :: user = c_null_ptr
    real(c_double) :: progress_interval_s = 0.5_c_double
  end type

  ! exala_stripe_lu_report.
  type, bind(c), public :: exala_stripe_lu_report
    integer(c_int64_t) :: n = 0, stripe = 0, substripe = 0, meta = 0
    integer(c_int) :: in_core = 0, resumed = 0
    integer(c_int64_t) :: groups_resumed = 0
    real(c_double) :: factor_seconds = 0, factor_gflops = 0
    integer(c_int64_t) :: bytes_read = 0, bytes_written = 0, cache_hits = 0, cache_misses = 0
    integer(c_int64_t) :: peak_cache_bytes = 0 ! uint64_t
    real(c_double) :: min_pivot_ratio = 0, io_wait_seconds = 0
  end type

  ! exala_refine_report.
  type, bind(c), public :: exala_refine_report
    integer(c_int) :: steps = 0, converged = 0
    real(c_double) :: backward_error_before = 0, backward_error_after = 0, seconds = 0
  end type

  ! ---------------------------------- bind(c) on the C API (public in exala)
  interface
    ! The process-wide default exec (see exala.h).
    function exala_exec_init(ex) bind(c, name='exala_exec_init') result(status)
      import :: c_int, exala_exec
      type(exala_exec), intent(out) :: ex
      integer(c_int) :: status
    end function
    function exala_set_default_exec(ex) bind(c, name='exala_set_default_exec') result(status)
      import :: c_int, exala_exec
      type(exala_exec), intent(in) :: ex
      integer(c_int) :: status
    end function
    function exala_get_default_exec(ex) bind(c, name='exala_get_default_exec') result(status)
      import :: c_int, exala_exec
      type(exala_exec), intent(out) :: ex
      integer(c_int) :: status
    end function
    function exala_set_threads(threads) bind(c, name='exala_set_threads') result(status)
      import :: c_int
      integer(c_int), value :: threads
      integer(c_int) :: status
    end function
    ! 1 when the backend is compiled into this library, 0 otherwise.
    function exala_backend_compiled_in(backend) bind(c, name='exala_backend_compiled_in') &
        result(yes)
      import :: c_int
      integer(c_int), value :: backend
      integer(c_int) :: yes
    end function
    subroutine exala_version_numbers(major, minor, patch) bind(c, name='exala_version_numbers')
      import :: c_int
      integer(c_int), intent(out) :: major, minor, patch
    end subroutine
    ! Error-free transforms: hi + lo is exactly the operation's exact result
    ! (finite inputs without overflow; exala/arith.hpp).
    function exala_two_sum(a, b, s, e) bind(c, name='exala_two_sum') result(status)
      import :: c_int, c_double
      real(c_double), value :: a, b
      real(c_double), intent(out) :: s, e
      integer(c_int) :: status
    end function
    function exala_fast_two_sum(a, b, s, e) bind(c, name='exala_fast_two_sum') result(status)
      import :: c_int, c_double
      real(c_double), value :: a, b
      real(c_double), intent(out) :: s, e
      integer(c_int) :: status
    end function
    function exala_two_prod(a, b, p, e) bind(c, name='exala_two_prod') result(status)
      import :: c_int, c_double
      real(c_double), value :: a, b
      real(c_double), intent(out) :: p, e
      integer(c_int) :: status
    end function
    function exala_split(a, hi, lo) bind(c, name='exala_split') result(status)
      import :: c_int, c_double
      real(c_double), value :: a
      real(c_double), intent(out) :: hi, lo
      integer(c_int) :: status
    end function
    function exala_two_product_dekker(a, b, p, e) bind(c, name='exala_two_product_dekker') &
        result(status)
      import :: c_int, c_double
      real(c_double), value :: a, b
      real(c_double), intent(out) :: p, e
      integer(c_int) :: status
    end function
    function exala_approx_two_div(a, b, q, r) bind(c, name='exala_approx_two_div') &
        result(status)
      import :: c_int, c_double
      real(c_double), value :: a, b
      real(c_double), intent(out) :: q, r
      integer(c_int) :: status
    end function
    function exala_stripe_lu_options_init(opt) bind(c, name='exala_stripe_lu_options_init') &
        result(status)
      import :: c_int, exala_stripe_lu_options
      type(exala_stripe_lu_options), intent(out) :: opt
      integer(c_int) :: status
    end function
    function exala_opencl_device_count(count) bind(c, name='exala_opencl_device_count') &
        result(status)
      import :: c_int
      integer(c_int), intent(out) :: count
      integer(c_int) :: status
    end function
  end interface

  ! exala_set_backend's integer form (the generic is in exala).
  interface
    function exala_set_backend_id(backend) bind(c, name='exala_set_backend') result(status)
      import :: c_int
      integer(c_int), value :: backend
      integer(c_int) :: status
    end function
  end interface

  ! ------------------------------- the C functions behind the wrappers
  interface
    function c_strlen(s) bind(c, name='strlen') result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
    function c_status_string(status) bind(c, name='exala_status_string') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: status
      type(c_ptr) :: p
    end function
    function c_last_error_index() bind(c, name='exala_last_error_index') result(i)
      import :: c_int64_t
      integer(c_int64_t) :: i
    end function
    function c_backend_from_string(name, backend) bind(c, name='exala_backend_from_string') &
        result(status)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: backend
      integer(c_int) :: status
    end function
    function c_backend_name(backend) bind(c, name='exala_backend_name') result(p)
      import :: c_int, c_ptr
      integer(c_int), value :: backend
      type(c_ptr) :: p
    end function
    function c_kernel_set(name) bind(c, name='exala_kernel_set') result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: name
      integer(c_int) :: status
    end function
    function c_opencl_select_device(spec) bind(c, name='exala_opencl_select_device') &
        result(status)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: spec(*)
      integer(c_int) :: status
    end function

    ! superaccumulator
    function c_superacc_create(acc) bind(c, name='exala_superacc_create') result(status)
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: acc
      integer(c_int) :: status
    end function
    subroutine c_superacc_destroy(acc) bind(c, name='exala_superacc_destroy')
      import :: c_ptr
      type(c_ptr), value :: acc
    end subroutine
    function c_superacc_copy(src, dst) bind(c, name='exala_superacc_copy') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: src, dst
      integer(c_int) :: status
    end function
    function c_superacc_add(acc, x) bind(c, name='exala_superacc_add') result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: acc
      real(c_double), value :: x
      integer(c_int) :: status
    end function
    function c_superacc_add_product(acc, a, b) bind(c, name='exala_superacc_add_product') &
        result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: acc
      real(c_double), value :: a, b
      integer(c_int) :: status
    end function
    function c_superacc_merge(acc, other) bind(c, name='exala_superacc_merge') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc, other
      integer(c_int) :: status
    end function
    function c_superacc_sign(acc, sign) bind(c, name='exala_superacc_sign') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc
      integer(c_int), intent(out) :: sign
      integer(c_int) :: status
    end function

    ! blas1
    function c_dot(n, x, incx, y, incy, ex, result) bind(c, name='exala_dot') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_dot_into(acc, n, x, incx, y, incy, ex) bind(c, name='exala_dot_into') &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: acc, x, y, ex
      integer(c_int64_t), value :: n, incx, incy
      integer(c_int) :: status
    end function
    function c_axpy(n, alpha, x, incx, y, incy, ex) bind(c, name='exala_axpy') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx, incy
      real(c_double), value :: alpha
      type(c_ptr), value :: x, y, ex
      integer(c_int) :: status
    end function
    function c_scal(n, alpha, x, incx, ex) bind(c, name='exala_scal') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx
      real(c_double), value :: alpha
      type(c_ptr), value :: x, ex
      integer(c_int) :: status
    end function
    function c_iamax(n, x, incx, ex, index) bind(c, name='exala_iamax') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, ex
      integer(c_int64_t), intent(out) :: index
      integer(c_int) :: status
    end function

    ! blas2, blas3
    function c_gemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy, ex) &
        bind(c, name='exala_gemv') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, trans
      integer(c_int64_t), value :: m, n, lda, incx, incy
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, x, y, ex
      integer(c_int) :: status
    end function
    function c_trsv(layout, uplo, trans, diag, n, a, lda, x, incx, ex) &
        bind(c, name='exala_trsv') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x, ex
      integer(c_int) :: status
    end function
    function c_gemm(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ex) &
        bind(c, name='exala_gemm') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, transa, transb
      integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c, ex
      integer(c_int) :: status
    end function

    function c_syrk(layout, uplo, trans, n, k, alpha, a, lda, beta, c, ldc, ex) &
        bind(c, name='exala_syrk') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, uplo, trans
      integer(c_int64_t), value :: n, k, lda, ldc
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, c, ex
      integer(c_int) :: status
    end function
    function c_syr2k(layout, uplo, trans, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ex) &
        bind(c, name='exala_syr2k') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, uplo, trans
      integer(c_int64_t), value :: n, k, lda, ldb, ldc
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c, ex
      integer(c_int) :: status
    end function
    function c_symm(layout, side, uplo, m, n, alpha, a, lda, b, ldb, beta, c, ldc, ex) &
        bind(c, name='exala_symm') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, side, uplo
      integer(c_int64_t), value :: m, n, lda, ldb, ldc
      real(c_double), value :: alpha, beta
      type(c_ptr), value :: a, b, c, ex
      integer(c_int) :: status
    end function
    function c_syr(layout, uplo, n, alpha, x, incx, a, lda, ex) &
        bind(c, name='exala_syr') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, uplo
      integer(c_int64_t), value :: n, incx, lda
      real(c_double), value :: alpha
      type(c_ptr), value :: x, a, ex
      integer(c_int) :: status
    end function
    function c_syr2(layout, uplo, n, alpha, x, incx, y, incy, a, lda, ex) &
        bind(c, name='exala_syr2') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, uplo
      integer(c_int64_t), value :: n, incx, incy, lda
      real(c_double), value :: alpha
      type(c_ptr), value :: x, y, a, ex
      integer(c_int) :: status
    end function
    function c_rotm(n, x, incx, y, incy, param, ex) bind(c, name='exala_rotm') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, param, ex
      integer(c_int) :: status
    end function
    function c_rotg(a, b, c, s, ex) bind(c, name='exala_rotg') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: a, b, c, s, ex
      integer(c_int) :: status
    end function

    ! solvers
    function c_trsv_exact_refined(layout, uplo, trans, diag, n, a, lda, x, incx, max_steps, &
                                  ex, steps, converged) &
        bind(c, name='exala_trsv_exact_refined') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag, max_steps
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x, ex
      integer(c_int), intent(out) :: steps, converged
      integer(c_int) :: status
    end function
    function c_skeel_condition(layout, uplo, trans, diag, n, a, lda, x, incx, result) &
        bind(c, name='exala_skeel_condition') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_generate_ill_conditioned_trsv(n, cond, seed, t, b) &
        bind(c, name='exala_generate_ill_conditioned_trsv') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, seed
      real(c_double), value :: cond
      type(c_ptr), value :: t, b
      integer(c_int) :: status
    end function
    function c_trsv_mpfr_solution(layout, uplo, trans, diag, n, a, lda, b, incb, precision, x) &
        bind(c, name='exala_trsv_mpfr_solution') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag, precision
      integer(c_int64_t), value :: n, lda, incb
      type(c_ptr), value :: a, b, x
      integer(c_int) :: status
    end function

    ! stripe LU
    function c_stripe_lu_factor(n, a, lda, opt, lu) bind(c, name='exala_stripe_lu_factor') &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, lda
      type(c_ptr), value :: a, opt
      type(c_ptr), intent(out) :: lu
      integer(c_int) :: status
    end function
    function c_stripe_lu_open(dirs, ndirs, opt, lu) bind(c, name='exala_stripe_lu_open') &
        result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: dirs, opt
      integer(c_int), value :: ndirs
      type(c_ptr), intent(out) :: lu
      integer(c_int) :: status
    end function
    subroutine c_stripe_lu_destroy(lu) bind(c, name='exala_stripe_lu_destroy')
      import :: c_ptr
      type(c_ptr), value :: lu
    end subroutine
    function c_stripe_lu_n(lu, n) bind(c, name='exala_stripe_lu_n') result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: lu
      integer(c_int64_t), intent(out) :: n
      integer(c_int) :: status
    end function
    function c_stripe_lu_get_report(lu, report) bind(c, name='exala_stripe_lu_get_report') &
        result(status)
      import :: c_int, c_ptr, exala_stripe_lu_report
      type(c_ptr), value :: lu
      type(exala_stripe_lu_report), intent(out) :: report
      integer(c_int) :: status
    end function
    function c_stripe_lu_solve(lu, nrhs, b, ldb) bind(c, name='exala_stripe_lu_solve') &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: lu, b
      integer(c_int64_t), value :: nrhs, ldb
      integer(c_int) :: status
    end function
    function c_stripe_lu_solve_refined(lu, nrhs, b, ldb, x, ldx, max_refine, report) &
        bind(c, name='exala_stripe_lu_solve_refined') result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: lu, b, x, report
      integer(c_int64_t), value :: nrhs, ldb, ldx
      integer(c_int), value :: max_refine
      integer(c_int) :: status
    end function
    function c_stripe_lu_solve_stored(lu, x, size, max_refine, nrhs, report) &
        bind(c, name='exala_stripe_lu_solve_stored') result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: lu, x, report
      integer(c_int64_t), value :: size
      integer(c_int), value :: max_refine
      integer(c_int64_t), intent(out) :: nrhs
      integer(c_int) :: status
    end function
    function c_stripe_lu_backward_error(lu, nrhs, b, ldb, x, ldx, result) &
        bind(c, name='exala_stripe_lu_backward_error') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      type(c_ptr), value :: lu, b, x
      integer(c_int64_t), value :: nrhs, ldb, ldx
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_generate_dense_system(dirs, ndirs, n, nrhs, seed, stripe, cond, overwrite) &
        bind(c, name='exala_generate_dense_system') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      type(c_ptr), value :: dirs
      integer(c_int), value :: ndirs, overwrite
      integer(c_int64_t), value :: n, nrhs, seed, stripe
      real(c_double), value :: cond
      integer(c_int) :: status
    end function
  end interface

  ! Functions of one signature, declared once. Only names private to the
  ! binding are declared this way: gfortran 12 writes no dummy arguments for
  ! a procedure(...) declaration into the .mod of a module that re-exports
  ! it (a caller of the re-exported name would pass `value` arguments by
  ! reference), so every bind(c) name public in exala has its own interface
  ! body above.
  abstract interface
    ! a string of the library (last error, version)
    function c_string_getter() bind(c) result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    ! an operation on one accumulator (clear, negate)
    function c_superacc_op(acc) bind(c) result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc
      integer(c_int) :: status
    end function
    ! the accumulator rounded (round, round_sqrt)
    function c_superacc_rounding(acc, mode, result) bind(c) result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: acc
      integer(c_int), value :: mode
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    ! a reduction of x to one double (sum, asum, nrm2)
    function c_reduction(n, x, incx, ex, result) bind(c) result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    ! x added into an accumulator (sum_into, asum_into)
    function c_reduction_into(acc, n, x, incx, ex) bind(c) result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: acc, x, ex
      integer(c_int64_t), value :: n, incx
      integer(c_int) :: status
    end function
    ! x and y, y written (copy) or both (swap)
    function c_vector_pair(n, x, incx, y, incy, ex) bind(c) result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, ex
      integer(c_int) :: status
    end function
    ! B = alpha op(A)^-1 B (trsm) or alpha op(A) B (trmm), or from the right
    function c_triangle_product(layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb, &
                                ex) bind(c) result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, side, uplo, trans, diag
      integer(c_int64_t), value :: m, n, lda, ldb
      real(c_double), value :: alpha
      type(c_ptr), value :: a, b, ex
      integer(c_int) :: status
    end function
    ! a triangular solve without exec (compensated, double-double)
    function c_trsv_kernel(layout, uplo, trans, diag, n, a, lda, x, incx) bind(c) &
        result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x
      integer(c_int) :: status
    end function
  end interface
  ! The functions of those signatures.
  procedure(c_string_getter), bind(c, name='exala_last_error') :: c_last_error
  procedure(c_string_getter), bind(c, name='exala_version') :: c_version
  procedure(c_superacc_op), bind(c, name='exala_superacc_clear') :: c_superacc_clear
  procedure(c_superacc_op), bind(c, name='exala_superacc_negate') :: c_superacc_negate
  procedure(c_superacc_rounding), bind(c, name='exala_superacc_round') :: c_superacc_round
  procedure(c_superacc_rounding), bind(c, name='exala_superacc_round_sqrt') :: &
    c_superacc_round_sqrt
  procedure(c_reduction), bind(c, name='exala_sum') :: c_sum
  procedure(c_reduction), bind(c, name='exala_asum') :: c_asum
  procedure(c_reduction), bind(c, name='exala_nrm2') :: c_nrm2
  procedure(c_reduction_into), bind(c, name='exala_sum_into') :: c_sum_into
  procedure(c_reduction_into), bind(c, name='exala_asum_into') :: c_asum_into
  procedure(c_vector_pair), bind(c, name='exala_copy') :: c_copy
  procedure(c_vector_pair), bind(c, name='exala_swap') :: c_swap
  procedure(c_triangle_product), bind(c, name='exala_trsm') :: c_trsm
  procedure(c_triangle_product), bind(c, name='exala_trmm') :: c_trmm
  procedure(c_trsv_kernel), bind(c, name='exala_trsv_compensated') :: c_trsv_compensated
  procedure(c_trsv_kernel), bind(c, name='exala_trsv_double_double') :: &
    c_trsv_double_double

end module exala_c_api
