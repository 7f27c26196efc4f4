! exala.f90 - the Fortran module `exala`: ExaLA's exact, correctly rounded and
! reproducible dense linear algebra from Fortran 2008, over the C API
! (bindings/c/include/exala.h, libexala).
!
! Two layers, in the spirit of spglib's Fortran module:
!  1. bind(c) interfaces directly on the C functions whose signature is
!     already Fortran-friendly (value arguments, scalars by reference):
!     exala_two_sum, exala_set_threads, exala_exec_init, ... They return the
!     C status (an integer(c_int) equal to one of the EXALA_* codes below).
!  2. Fortran wrappers on assumed-shape arrays with BLAS-style character
!     options: s = exala_dot(x, y), y = exala_gemv(a, x, 'T'),
!     call exala_trsv('L', 'N', 'N', a, x), the superaccumulator and stripe LU
!     derived types. Every wrapper takes an optional `integer, intent(out) ::
!     status`.
!
! Assumptions, stated once:
!  - real(c_double) is IEEE binary64 (the C library's double), and the C
!    library is linked (exala::c); results are its results, bit for bit.
!  - Arrays reach C without copies where C can describe them: a rank-1 array
!    (a contiguous vector, a strided section x(1:n:2), a reversed section
!    x(n:1:-1), a matrix row a(i,:)) as (address of its lowest element, real
!    increment), the increment computed from the addresses of its first two
!    elements (c_loc on TARGET dummies); a rank-2 array whose columns are
!    contiguous (a whole array, or a(1:m,:) of a bigger array) as a
!    column-major matrix with the real leading dimension. Anything else
!    (a(1:m:2,:), a component of an array of a derived type whose element
!    distance is not a whole number of doubles, a matrix with reversed
!    columns) is packed into a contiguous copy first, and copied back for
!    outputs. Results never depend on which path was taken: each result is
!    a function of the exact values only (the tests check the bits).
!  - Errors (see also README.md): on failure a wrapper with `status` present
!    sets status to the EXALA_ERROR_* code; without it the message is
!    written to error_unit. Either way the message, naming the argument and
!    its value, stays available from exala_last_error(), real results are
!    NaN, integer results -1, and outputs are left untouched. Nothing here
!    stops the program. The messages are per thread when the module is
!    compiled with OpenMP (threadprivate), else per process.
module exala
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  implicit none
  private

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
  public :: EXALA_SUCCESS, EXALA_ERROR_INVALID_ARGUMENT, EXALA_ERROR_NOT_COMPILED_IN, &
            EXALA_ERROR_SINGULAR, EXALA_ERROR_SINGULAR_PIVOT, EXALA_ERROR_STORAGE, &
            EXALA_ERROR_FORMAT, EXALA_ERROR_OUT_OF_MEMORY, EXALA_ERROR_RUNTIME, &
            EXALA_ERROR_INTERNAL, EXALA_ERROR_OVERFLOW

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
  public :: EXALA_ROW_MAJOR, EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_TRANS, EXALA_UPPER, &
            EXALA_LOWER, EXALA_NON_UNIT, EXALA_UNIT, EXALA_LEFT, EXALA_RIGHT, &
            EXALA_ROUND_NEAREST_EVEN, EXALA_ROUND_TOWARD_ZERO, EXALA_ROUND_UPWARD, &
            EXALA_ROUND_DOWNWARD, EXALA_BACKEND_REFERENCE, EXALA_BACKEND_SIMD, &
            EXALA_BACKEND_OMP, EXALA_BACKEND_OPENCL, EXALA_BACKEND_CUDA, EXALA_ORDER_BASIC, EXALA_ORDER_ZIGZAG, &
            EXALA_ORDER_META_ZIGZAG, EXALA_PIVOT_LOCAL, EXALA_PIVOT_PARTIAL

  integer, parameter, public :: EXALA_VERSION_MAJOR = 0
  integer, parameter, public :: EXALA_VERSION_MINOR = 1
  integer, parameter, public :: EXALA_VERSION_PATCH = 0

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

  ! ------------------------------------------------ derived types over handles

  ! The superaccumulator: exact for every sum of finite doubles and of
  ! products of two doubles; rounded once on request. The C handle is made
  ! on first use and freed by the final procedure; assignment copies the
  ! exact value (b = a gives b its own handle).
  type, public :: exala_superaccumulator
    private
    type(c_ptr) :: handle = c_null_ptr
  contains
    procedure, private :: sa_add_scalar, sa_add_array
    generic :: add => sa_add_scalar, sa_add_array
    procedure, private :: sa_add_product_scalar, sa_add_product_array
    generic :: add_product => sa_add_product_scalar, sa_add_product_array
    procedure :: add_abs => sa_add_abs
    procedure :: merge => sa_merge
    procedure :: round => sa_round
    procedure :: round_sqrt => sa_round_sqrt
    procedure :: clear => sa_clear
    procedure :: negate => sa_negate
    procedure :: sign => sa_sign
    procedure, private :: sa_assign
    generic :: assignment(=) => sa_assign
    final :: sa_final
  end type

  ! The stripe LU (Gauss elimination by stripes of rows): reproducible in core
  ! (factor) and out of core (open). The final procedure frees the C object.
  ! It cannot be copied (an assignment reports an error and changes nothing).
  type, public :: exala_stripe_lu
    private
    type(c_ptr) :: handle = c_null_ptr
  contains
    procedure :: factor => slu_factor
    procedure :: open => slu_open
    procedure :: release => slu_release
    procedure :: factored => slu_factored
    procedure :: n => slu_n
    procedure :: report => slu_report
    procedure, private :: slu_solve_vec, slu_solve_mat
    generic :: solve => slu_solve_vec, slu_solve_mat
    procedure, private :: slu_solve_refined_vec, slu_solve_refined_mat
    generic :: solve_refined => slu_solve_refined_vec, slu_solve_refined_mat
    procedure :: solve_stored => slu_solve_stored
    procedure, private :: slu_backward_error_vec, slu_backward_error_mat
    generic :: backward_error => slu_backward_error_vec, slu_backward_error_mat
    procedure, private :: slu_assign
    generic :: assignment(=) => slu_assign
    final :: slu_final
  end type

  ! ------------------------------------------------- the public procedures
  public :: exala_last_error, exala_last_error_index, exala_status_string, exala_version, &
            exala_backend_name, exala_kernel_set, exala_set_backend, exala_set_rounding, &
            exala_opencl_select_device
  public :: exala_sum, exala_asum, exala_dot, exala_nrm2, exala_iamax, exala_axpy, exala_scal, &
            exala_copy, exala_swap, exala_gemv, exala_gemv_update, exala_gemm, &
            exala_gemm_update, exala_trsv, exala_trsm, exala_syrk, exala_syr2k, exala_symm, &
            exala_trmm, exala_syr, exala_syr2, exala_rotm, exala_rotg, exala_trsv_compensated, &
            exala_trsv_double_double, exala_trsv_exact_refined, exala_skeel_condition, &
            exala_trsv_mpfr_solution, exala_generate_ill_conditioned_trsv, &
            exala_generate_dense_system

  ! ------------------------------- direct bind(c) interfaces (public, layer 1)
  public :: exala_set_threads, exala_exec_init, exala_set_default_exec, &
            exala_get_default_exec, exala_backend_compiled_in, exala_version_numbers, &
            exala_two_sum, exala_fast_two_sum, exala_two_prod, exala_split, &
            exala_two_product_dekker, exala_approx_two_div, exala_stripe_lu_options_init, &
            exala_opencl_device_count

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

  ! exala_set_backend(EXALA_BACKEND_OMP) (bind(c) on the C function) or
  ! exala_set_backend('omp') (by name); both return the status.
  interface exala_set_backend
    function exala_set_backend_id(backend) bind(c, name='exala_set_backend') result(status)
      import :: c_int
      integer(c_int), value :: backend
      integer(c_int) :: status
    end function
    module procedure exala_set_backend_name
  end interface

  ! exala_set_rounding(EXALA_ROUND_UPWARD) or exala_set_rounding('upward').
  interface exala_set_rounding
    module procedure exala_set_rounding_id, exala_set_rounding_name
  end interface

  ! ----------------------------------------- private interfaces on the C API
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
    function c_last_error() bind(c, name='exala_last_error') result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function
    function c_last_error_index() bind(c, name='exala_last_error_index') result(i)
      import :: c_int64_t
      integer(c_int64_t) :: i
    end function
    function c_version() bind(c, name='exala_version') result(p)
      import :: c_ptr
      type(c_ptr) :: p
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
    function c_superacc_clear(acc) bind(c, name='exala_superacc_clear') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc
      integer(c_int) :: status
    end function
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
    function c_superacc_negate(acc) bind(c, name='exala_superacc_negate') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc
      integer(c_int) :: status
    end function
    function c_superacc_sign(acc, sign) bind(c, name='exala_superacc_sign') result(status)
      import :: c_int, c_ptr
      type(c_ptr), value :: acc
      integer(c_int), intent(out) :: sign
      integer(c_int) :: status
    end function
    function c_superacc_round(acc, mode, result) bind(c, name='exala_superacc_round') &
        result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: acc
      integer(c_int), value :: mode
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_superacc_round_sqrt(acc, mode, result) bind(c, name='exala_superacc_round_sqrt') &
        result(status)
      import :: c_int, c_ptr, c_double
      type(c_ptr), value :: acc
      integer(c_int), value :: mode
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function

    ! blas1
    function c_sum(n, x, incx, ex, result) bind(c, name='exala_sum') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_asum(n, x, incx, ex, result) bind(c, name='exala_asum') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_nrm2(n, x, incx, ex, result) bind(c, name='exala_nrm2') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx
      type(c_ptr), value :: x, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_dot(n, x, incx, y, incy, ex, result) bind(c, name='exala_dot') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function c_sum_into(acc, n, x, incx, ex) bind(c, name='exala_sum_into') result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: acc, x, ex
      integer(c_int64_t), value :: n, incx
      integer(c_int) :: status
    end function
    function c_asum_into(acc, n, x, incx, ex) bind(c, name='exala_asum_into') result(status)
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: acc, x, ex
      integer(c_int64_t), value :: n, incx
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
    function c_copy(n, x, incx, y, incy, ex) bind(c, name='exala_copy') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, ex
      integer(c_int) :: status
    end function
    function c_swap(n, x, incx, y, incy, ex) bind(c, name='exala_swap') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      type(c_ptr), value :: x, y, ex
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
    function c_trsm(layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb, ex) &
        bind(c, name='exala_trsm') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, side, uplo, trans, diag
      integer(c_int64_t), value :: m, n, lda, ldb
      real(c_double), value :: alpha
      type(c_ptr), value :: a, b, ex
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
    function c_trmm(layout, side, uplo, trans, diag, m, n, alpha, a, lda, b, ldb, ex) &
        bind(c, name='exala_trmm') result(status)
      import :: c_int, c_int64_t, c_ptr, c_double
      integer(c_int), value :: layout, side, uplo, trans, diag
      integer(c_int64_t), value :: m, n, lda, ldb
      real(c_double), value :: alpha
      type(c_ptr), value :: a, b, ex
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
    function c_trsv_compensated(layout, uplo, trans, diag, n, a, lda, x, incx) &
        bind(c, name='exala_trsv_compensated') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x
      integer(c_int) :: status
    end function
    function c_trsv_double_double(layout, uplo, trans, diag, n, a, lda, x, incx) &
        bind(c, name='exala_trsv_double_double') result(status)
      import :: c_int, c_int64_t, c_ptr
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      type(c_ptr), value :: a, x
      integer(c_int) :: status
    end function
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

  ! ------------------------------------------------------------ internals
  integer(c_intptr_t), parameter :: DOUBLE_BYTES = c_sizeof(0.0_c_double)

  ! How C sees a rank-1 argument: the address of its lowest element and the
  ! real increment, or a packed copy (then inc = 1).
  type :: vec_arg
    type(c_ptr) :: p = c_null_ptr
    integer(c_int64_t) :: n = 0, inc = 1
    real(c_double), allocatable :: copy(:)
  end type

  ! How C sees a rank-2 argument: column-major with leading dimension ld, in
  ! place or as a packed copy.
  type :: mat_arg
    type(c_ptr) :: p = c_null_ptr
    integer(c_int64_t) :: m = 0, n = 0, ld = 1
    real(c_double), allocatable :: copy(:,:)
  end type

  ! The message, code and (1-based) index of this thread's last failure in a
  ! wrapper of this module ("" / -1 after a success).
  character(:), allocatable, save :: last_message
  integer(c_int64_t), save :: last_index = -1
  !$omp threadprivate(last_message, last_index)

  ! Which triangular solver trsv_common runs.
  integer, parameter :: SOLVE_EXACT = 1, SOLVE_COMPENSATED = 2, SOLVE_DOUBLE_DOUBLE = 3, &
                        SOLVE_REFINED = 4

contains

  ! ================================================================ errors

  ! This thread's message for the last failing call: the module's wrappers
  ! keep their failure's message (prefixed with the wrapper's name; an index
  ! it names is given in Fortran numbering too) until the next wrapper call;
  ! a failing direct bind(c) call leaves the C library's message, returned
  ! as it is. "" when the last call succeeded.
  function exala_last_error() result(message)
    character(:), allocatable :: message
    message = from_c_string(c_last_error())
    if (len(message) == 0) then
      if (allocated(last_message)) then
        message = last_message
      end if
    end if
  end function

  ! The row, column or stripe the last failure was about, counted from 1 as
  ! Fortran does, or -1.
  function exala_last_error_index() result(index)
    integer(c_int64_t) :: index
    if (len(from_c_string(c_last_error())) > 0) then
      index = c_last_error_index()
      if (index >= 0) index = index + 1
    else
      index = last_index
    end if
  end function

  ! The name of a status code ("EXALA_ERROR_SINGULAR", ...).
  function exala_status_string(status) result(name)
    integer, intent(in) :: status
    character(:), allocatable :: name
    name = from_c_string(c_status_string(int(status, c_int)))
  end function

  ! The version of the linked library ("0.1.0").
  function exala_version() result(version)
    character(:), allocatable :: version
    version = from_c_string(c_version())
  end function

  ! The name of a backend ("omp"), or "" for a value that is not one.
  function exala_backend_name(backend) result(name)
    integer(c_int), intent(in) :: backend
    character(:), allocatable :: name
    name = from_c_string(c_backend_name(backend))
  end function

  ! The SIMD kernel set in use ("avx512", "avx2" or "generic").
  function exala_kernel_set(status) result(name)
    integer, intent(out), optional :: status
    character(:), allocatable :: name
    type(c_ptr) :: p
    name = ''
    if (c_ok(c_kernel_set(p), 'exala_kernel_set', status)) name = from_c_string(p)
  end function

  ! Success: clears the module's record, status = EXALA_SUCCESS.
  subroutine succeed(status)
    integer, intent(out), optional :: status
    last_message = ''
    last_index = -1
    if (present(status)) status = EXALA_SUCCESS
  end subroutine

  ! Failure: records the message, then puts the code into status, or the
  ! message on error_unit when status is absent. Never stops.
  subroutine fail(code, message, status, index)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: message
    integer, intent(out), optional :: status
    integer(c_int64_t), intent(in), optional :: index
    last_message = message
    last_index = -1
    if (present(index)) last_index = index
    call reset_c_error()
    if (present(status)) then
      status = code
    else
      write (error_unit, '(a)') 'exala: ' // from_c_string(c_status_string(code)) // ': ' // &
                                message
      flush (error_unit)
    end if
  end subroutine

  ! Makes the C library's per-thread message "" (a call that succeeds), so
  ! that exala_last_error() shows the module's record until a later C call
  ! fails.
  subroutine reset_c_error()
    real(c_double) :: s, e
    integer(c_int) :: ignored
    ignored = exala_two_sum(1.0_c_double, 1.0_c_double, s, e)
  end subroutine

  ! True when the C call succeeded (clears the record); otherwise records the
  ! C library's message prefixed with `routine` and reports it (fail).
  logical function c_ok(code, routine, status)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    character(:), allocatable :: message
    integer(c_int64_t) :: index
    c_ok = code == EXALA_SUCCESS
    if (c_ok) then
      call succeed(status)
      return
    end if
    message = from_c_string(c_last_error())
    if (len(message) == 0) message = 'failed without a message'
    ! The C messages start with "exala: "; the routine's name replaces it.
    if (len(message) > 7) then
      if (message(1:7) == 'exala: ') message = message(8:)
    end if
    index = c_last_error_index()
    if (index >= 0) then
      index = index + 1
      select case (code)
      case (EXALA_ERROR_SINGULAR)
        message = message // ' [row ' // int_str(index) // ' counting from 1]'
      case (EXALA_ERROR_SINGULAR_PIVOT)
        message = message // ' [column ' // int_str(index) // ' counting from 1]'
      case (EXALA_ERROR_STORAGE)
        message = message // ' [stripe ' // int_str(index) // ' counting from 1]'
      case default
        message = message // ' [index ' // int_str(index) // ' counting from 1]'
      end select
    end if
    call fail(code, routine // ': ' // message, status, index)
  end function

  ! c_ok for calls whose only follow-up is the report.
  subroutine c_check(code, routine, status)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    if (c_ok(code, routine, status)) return
  end subroutine

  ! The "invalid argument" failure with a message.
  subroutine bad_argument(message, status)
    character(*), intent(in) :: message
    integer, intent(out), optional :: status
    call fail(int(EXALA_ERROR_INVALID_ARGUMENT, c_int), message, status)
  end subroutine

  ! ============================================================ strings

  function from_c_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer(c_size_t) :: n, i
    if (.not. c_associated(p)) then
      s = ''
      return
    end if
    n = c_strlen(p)
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! s without trailing blanks, null-terminated, as a C char array.
  function to_c_chars(s) result(chars)
    character(*), intent(in) :: s
    character(kind=c_char), allocatable :: chars(:)
    integer :: i, n
    n = len_trim(s)
    allocate (chars(n + 1))
    do i = 1, n
      chars(i) = s(i:i)
    end do
    chars(n + 1) = c_null_char
  end function

  function int_str(i) result(s)
    integer(c_int64_t), intent(in) :: i
    character(:), allocatable :: s
    character(32) :: buffer
    write (buffer, '(i0)') i
    s = trim(buffer)
  end function

  function lower(s) result(l)
    character(*), intent(in) :: s
    character(len(s)) :: l
    integer :: i, c
    l = s
    do i = 1, len(s)
      c = iachar(s(i:i))
      if (c >= iachar('A') .and. c <= iachar('Z')) l(i:i) = achar(c + 32)
    end do
  end function

  function upper(s) result(u)
    character(*), intent(in) :: s
    character(len(s)) :: u
    integer :: i, c
    u = s
    do i = 1, len(s)
      c = iachar(s(i:i))
      if (c >= iachar('a') .and. c <= iachar('z')) u(i:i) = achar(c - 32)
    end do
  end function

  ! ===================================================== character options

  ! A BLAS character option: its first character, case-insensitive, must be
  ! one of `letters`; v gets the matching entry of `values`. Otherwise a
  ! failure naming `routine` and the argument `arg`.
  logical function option(s, routine, arg, letters, values, v, status)
    character(*), intent(in) :: s, routine, arg, letters
    integer(c_int), intent(in) :: values(:)
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    integer :: k
    character(:), allocatable :: choices
    option = .false.
    v = values(1)
    if (len(s) > 0) then
      k = index(letters, upper(s(1:1)))
      if (k > 0) then
        v = values(k)
        option = .true.
        return
      end if
    end if
    choices = ''
    do k = 1, len(letters)
      if (k > 1) choices = choices // ', '
      choices = choices // "'" // letters(k:k) // "'"
    end do
    call bad_argument(routine // ': ' // arg // " = '" // s // "' is not one of " // choices // &
                      ' (case-insensitive)', status)
  end function

  ! trans: 'N' or 'T' ('C' is accepted as 'T' for real data, as in BLAS);
  ! absent means 'N'.
  logical function opt_trans(s, routine, arg, v, status)
    character(*), intent(in), optional :: s
    character(*), intent(in) :: routine, arg
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    v = EXALA_NO_TRANS
    opt_trans = .true.
    if (present(s)) opt_trans = option(s, routine, arg, 'NTC', &
                                       [EXALA_NO_TRANS, EXALA_TRANS, EXALA_TRANS], v, status)
  end function

  logical function opt_uplo(s, routine, v, status)
    character(*), intent(in) :: s, routine
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    opt_uplo = option(s, routine, 'uplo', 'UL', [EXALA_UPPER, EXALA_LOWER], v, status)
  end function

  logical function opt_diag(s, routine, v, status)
    character(*), intent(in) :: s, routine
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    opt_diag = option(s, routine, 'diag', 'NU', [EXALA_NON_UNIT, EXALA_UNIT], v, status)
  end function

  logical function opt_side(s, routine, v, status)
    character(*), intent(in) :: s, routine
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    opt_side = option(s, routine, 'side', 'LR', [EXALA_LEFT, EXALA_RIGHT], v, status)
  end function

  ! ========================================================= array views

  integer(c_intptr_t) function address(p)
    type(c_ptr), intent(in) :: p
    address = transfer(p, address)
  end function

  function nan() result(r)
    real(c_double) :: r
    r = ieee_value(r, ieee_quiet_nan)
  end function

  ! v describes x for C: in place with its real increment (negative for a
  ! reversed section: then p is the address of x(n), the lowest, as BLAS
  ! wants), or a packed copy when the element distance is not a whole number
  ! of doubles. An empty x gets a one-element scratch so that p is never NULL.
  subroutine view_vector(x, v)
    real(c_double), intent(in), target :: x(:)
    type(vec_arg), intent(inout), target :: v
    integer(c_intptr_t) :: d
    v%n = size(x, kind=c_int64_t)
    v%inc = 1
    if (v%n == 0) then
      allocate (v%copy(1))
      v%copy = 0
      v%p = c_loc(v%copy)
      return
    end if
    if (v%n == 1) then
      v%p = c_loc(x(1))
      return
    end if
    d = address(c_loc(x(2))) - address(c_loc(x(1)))
    if (d /= 0 .and. mod(d, DOUBLE_BYTES) == 0) then
      v%inc = int(d / DOUBLE_BYTES, c_int64_t)
      if (v%inc > 0) then
        v%p = c_loc(x(1))
      else
        v%p = c_loc(x(v%n))
      end if
    else
      v%copy = x
      v%p = c_loc(v%copy)
    end if
  end subroutine

  ! As view_vector, but always increment 1 (for the stripe LU, whose
  ! right-hand sides are columns): strided x is packed.
  subroutine view_unit_vector(x, v)
    real(c_double), intent(in), target :: x(:)
    type(vec_arg), intent(inout), target :: v
    call view_vector(x, v)
    if (v%inc /= 1) then
      v%copy = x
      v%p = c_loc(v%copy)
      v%inc = 1
    end if
  end subroutine

  ! After a successful call that wrote through v: a packed copy goes back.
  subroutine unview_vector(v, x)
    type(vec_arg), intent(in) :: v
    real(c_double), intent(inout) :: x(:)
    if (allocated(v%copy) .and. size(x) > 0) x = v%copy(1:size(x))
  end subroutine

  ! v describes a for C as a column-major matrix: in place when its columns
  ! are contiguous (element distance one double down a column, column
  ! distance ld >= m doubles), else a packed copy (ld = m). An empty matrix
  ! gets a scratch element.
  subroutine view_matrix(a, v)
    real(c_double), intent(in), target :: a(:,:)
    type(mat_arg), intent(inout), target :: v
    integer(c_intptr_t) :: d1, d2
    v%m = size(a, 1, kind=c_int64_t)
    v%n = size(a, 2, kind=c_int64_t)
    v%ld = max(1_c_int64_t, v%m)
    if (v%m == 0 .or. v%n == 0) then
      allocate (v%copy(1, 1))
      v%copy = 0
      v%p = c_loc(v%copy)
      return
    end if
    d1 = DOUBLE_BYTES
    if (v%m > 1) d1 = address(c_loc(a(2, 1))) - address(c_loc(a(1, 1)))
    d2 = v%ld * DOUBLE_BYTES
    if (v%n > 1) d2 = address(c_loc(a(1, 2))) - address(c_loc(a(1, 1)))
    if (d1 == DOUBLE_BYTES .and. mod(d2, DOUBLE_BYTES) == 0 .and. d2 >= v%m * DOUBLE_BYTES) then
      v%ld = int(d2 / DOUBLE_BYTES, c_int64_t)
      v%p = c_loc(a(1, 1))
    else
      v%copy = a
      v%p = c_loc(v%copy)
    end if
  end subroutine

  ! As view_matrix, but with ld = m exactly (packed otherwise).
  subroutine view_dense_matrix(a, v)
    real(c_double), intent(in), target :: a(:,:)
    type(mat_arg), intent(inout), target :: v
    call view_matrix(a, v)
    if (v%ld /= max(1_c_int64_t, v%m) .and. .not. allocated(v%copy)) then
      v%copy = a
      v%p = c_loc(v%copy)
      v%ld = max(1_c_int64_t, v%m)
    end if
  end subroutine

  subroutine unview_matrix(v, a)
    type(mat_arg), intent(in) :: v
    real(c_double), intent(inout) :: a(:,:)
    if (allocated(v%copy) .and. size(a) > 0) a = v%copy(1:size(a, 1), 1:size(a, 2))
  end subroutine

  ! size(y) must equal n; otherwise a failure naming both arrays.
  logical function same_size(routine, yname, ny, xname, nx, status)
    character(*), intent(in) :: routine, yname, xname
    integer(c_int64_t), intent(in) :: ny, nx
    integer, intent(out), optional :: status
    same_size = ny == nx
    if (.not. same_size) call bad_argument(routine // ': size(' // yname // ') = ' // &
        int_str(ny) // ' differs from ' // xname // ' = ' // int_str(nx), status)
  end function

  ! ================================================ selection (default exec)

  ! The default backend by name ("reference", "simd", "omp", "opencl";
  ! case-insensitive); the status is returned (EXALA_ERROR_INVALID_ARGUMENT naming a bad name,
  ! EXALA_ERROR_NOT_COMPILED_IN for a backend missing from this build).
  function exala_set_backend_name(name) result(status)
    character(*), intent(in) :: name
    integer :: status
    integer(c_int) :: backend
    if (c_ok(c_backend_from_string(to_c_chars(lower(name)), backend), 'exala_set_backend', &
             status)) &
      call c_check(exala_set_backend_id(backend), 'exala_set_backend', status)
  end function

  ! The default rounding direction of every rounded result (an
  ! EXALA_ROUND_* value); returns the status.
  function exala_set_rounding_id(mode) result(status)
    integer(c_int), intent(in) :: mode
    integer :: status
    type(exala_exec) :: ex
    if (.not. c_ok(exala_get_default_exec(ex), 'exala_set_rounding', status)) return
    ex%rounding = mode
    call c_check(exala_set_default_exec(ex), 'exala_set_rounding', status)
  end function

  ! The default rounding direction by name: 'nearest' (ties to even),
  ! 'toward_zero', 'upward' or 'downward', case-insensitive.
  function exala_set_rounding_name(mode) result(status)
    character(*), intent(in) :: mode
    integer :: status
    select case (upper(trim(mode)))
    case ('NEAREST', 'NEAREST_EVEN')
      status = exala_set_rounding_id(EXALA_ROUND_NEAREST_EVEN)
    case ('TOWARD_ZERO')
      status = exala_set_rounding_id(EXALA_ROUND_TOWARD_ZERO)
    case ('UPWARD')
      status = exala_set_rounding_id(EXALA_ROUND_UPWARD)
    case ('DOWNWARD')
      status = exala_set_rounding_id(EXALA_ROUND_DOWNWARD)
    case default
      call bad_argument("exala_set_rounding: mode = '" // mode // "' is not one of 'nearest', " &
                        // "'toward_zero', 'upward', 'downward'", status)
    end select
  end function

  ! Chooses the OpenCL device of backend opencl ("P:D", "P", or part of a
  ! platform or device name); returns the status.
  function exala_opencl_select_device(spec) result(status)
    character(*), intent(in) :: spec
    integer :: status
    call c_check(c_opencl_select_device(to_c_chars(spec)), 'exala_opencl_select_device', status)
  end function

  ! ================================================================= blas1

  ! sum, asum and nrm2 through one path (which selects the C routine).
  function reduce1(which, routine, x, status) result(r)
    integer, intent(in) :: which
    character(*), intent(in) :: routine
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    integer(c_int) :: code
    type(vec_arg), target :: vx
    r = nan()
    call view_vector(x, vx)
    select case (which)
    case (1)
      code = c_sum(vx%n, vx%p, vx%inc, c_null_ptr, res)
    case (2)
      code = c_asum(vx%n, vx%p, vx%inc, c_null_ptr, res)
    case default
      code = c_nrm2(vx%n, vx%p, vx%inc, c_null_ptr, res)
    end select
    if (c_ok(code, routine, status)) r = res
  end function

  ! Correctly rounded sum of x: the exact sum rounded once (default rounding
  ! direction); the same bits on every backend, thread count and stride.
  function exala_sum(x, status) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r
    r = reduce1(1, 'exala_sum', x, status)
  end function

  ! Correctly rounded sum of |x_i|: the exact value rounded once.
  function exala_asum(x, status) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r
    r = reduce1(2, 'exala_asum', x, status)
  end function

  ! Correctly rounded 2-norm: the exact square root of the exact sum of
  ! squares, rounded once.
  function exala_nrm2(x, status) result(r)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r
    r = reduce1(3, 'exala_nrm2', x, status)
  end function

  ! Correctly rounded dot product: the exact sum of the exact products
  ! rounded once. size(y) must equal size(x).
  function exala_dot(x, y, status) result(r)
    real(c_double), intent(in), target :: x(:), y(:)
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    type(vec_arg), target :: vx, vy
    r = nan()
    if (.not. same_size('exala_dot', 'y', size(y, kind=c_int64_t), 'size(x)', &
                        size(x, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    if (c_ok(c_dot(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr, res), 'exala_dot', status)) &
      r = res
  end function

  ! Exact: the index (from 1) of the first largest |x_i| (the first NaN if
  ! any); 0 for an empty x, -1 on failure.
  function exala_iamax(x, status) result(i)
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    integer(c_int64_t) :: i, res
    type(vec_arg), target :: vx
    i = -1
    call view_vector(x, vx)
    if (c_ok(c_iamax(vx%n, vx%p, vx%inc, c_null_ptr, res), 'exala_iamax', status)) i = res + 1
  end function

  ! y = fl(alpha x + y), each element rounded once from its exact value
  ! (to nearest). size(y) must equal size(x).
  subroutine exala_axpy(alpha, x, y, status)
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: x(:)
    real(c_double), intent(inout), target :: y(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx, vy
    if (.not. same_size('exala_axpy', 'y', size(y, kind=c_int64_t), 'size(x)', &
                        size(x, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    if (c_ok(c_axpy(vx%n, alpha, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_axpy', status)) &
      call unview_vector(vy, y)
  end subroutine

  ! x = fl(alpha x), each element correctly rounded.
  subroutine exala_scal(alpha, x, status)
    real(c_double), intent(in) :: alpha
    real(c_double), intent(inout), target :: x(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx
    call view_vector(x, vx)
    if (c_ok(c_scal(vx%n, alpha, vx%p, vx%inc, c_null_ptr), 'exala_scal', status)) &
      call unview_vector(vx, x)
  end subroutine

  ! y = x (exact). size(y) must equal size(x).
  subroutine exala_copy(x, y, status)
    real(c_double), intent(in), target :: x(:)
    real(c_double), intent(inout), target :: y(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx, vy
    if (.not. same_size('exala_copy', 'y', size(y, kind=c_int64_t), 'size(x)', &
                        size(x, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    if (c_ok(c_copy(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_copy', status)) &
      call unview_vector(vy, y)
  end subroutine

  ! x <-> y (exact). size(y) must equal size(x).
  subroutine exala_swap(x, y, status)
    real(c_double), intent(inout), target :: x(:), y(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx, vy
    if (.not. same_size('exala_swap', 'y', size(y, kind=c_int64_t), 'size(x)', &
                        size(x, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    if (c_ok(c_swap(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_swap', status)) then
      call unview_vector(vx, x)
      call unview_vector(vy, y)
    end if
  end subroutine

  ! ================================================================= blas2

  ! The dimensions of op(A) for A of shape (m, n): rows and columns.
  subroutine op_shape(trans, m, n, rows, cols)
    integer(c_int), intent(in) :: trans
    integer(c_int64_t), intent(in) :: m, n
    integer(c_int64_t), intent(out) :: rows, cols
    rows = m
    cols = n
    if (trans == EXALA_TRANS) then
      rows = n
      cols = m
    end if
  end subroutine

  ! y = alpha op(A) x + beta y, each y_i rounded once from its exact value.
  ! trans 'N': size(x) = size(a, 2), size(y) = size(a, 1); 'T': the reverse.
  subroutine exala_gemv_update(trans, alpha, a, x, beta, y, status)
    character(*), intent(in) :: trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), x(:)
    real(c_double), intent(inout), target :: y(:)
    integer, intent(out), optional :: status
    call gemv_core('exala_gemv_update', trans, alpha, a, x, beta, y, status)
  end subroutine

  ! A new vector op(A) x, each entry the exact dot product rounded once;
  ! trans 'N' (default) or 'T'. On failure without status: NaN entries.
  function exala_gemv(a, x, trans, status) result(y)
    real(c_double), intent(in), target :: a(:,:), x(:)
    character(*), intent(in), optional :: trans
    integer, intent(out), optional :: status
    real(c_double), allocatable :: y(:)
    real(c_double), allocatable, target :: work(:)
    integer(c_int) :: t
    integer(c_int64_t) :: rows, cols
    t = EXALA_NO_TRANS
    if (present(trans)) then
      if (.not. opt_trans(trans, 'exala_gemv', 'trans', t, status)) then
        allocate (y(size(a, 1)))
        y = nan()
        return
      end if
    end if
    call op_shape(t, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), rows, cols)
    allocate (work(rows))
    work = 0
    if (t == EXALA_TRANS) then
      call gemv_core('exala_gemv', 'T', 1.0_c_double, a, x, 0.0_c_double, work, status, .true.)
    else
      call gemv_core('exala_gemv', 'N', 1.0_c_double, a, x, 0.0_c_double, work, status, .true.)
    end if
    call move_alloc(work, y)
  end function

  subroutine gemv_core(routine, trans, alpha, a, x, beta, y, status, nan_on_failure)
    character(*), intent(in) :: routine, trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), x(:)
    real(c_double), intent(inout), target :: y(:)
    integer, intent(out), optional :: status
    logical, intent(in), optional :: nan_on_failure
    integer(c_int) :: t
    integer(c_int64_t) :: rows, cols
    type(mat_arg), target :: va
    type(vec_arg), target :: vx, vy
    logical :: ok
    ok = .false.
    if (opt_trans(trans, routine, 'trans', t, status)) then
      call op_shape(t, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), rows, cols)
      if (same_size(routine, 'x', size(x, kind=c_int64_t), 'the columns of op(a)', cols, &
                    status)) then
        if (same_size(routine, 'y', size(y, kind=c_int64_t), 'the rows of op(a)', rows, &
                      status)) then
          call view_matrix(a, va)
          call view_vector(x, vx)
          call view_vector(y, vy)
          ok = c_ok(c_gemv(EXALA_COL_MAJOR, t, va%m, va%n, alpha, va%p, va%ld, vx%p, vx%inc, &
                           beta, vy%p, vy%inc, c_null_ptr), routine, status)
          if (ok) call unview_vector(vy, y)
        end if
      end if
    end if
    if (.not. ok .and. present(nan_on_failure)) y = nan()
  end subroutine

  ! ================================================================= blas3

  ! C = alpha op(A) op(B) + beta C, each C_ij rounded once from its exact
  ! value. op(A) is m x k, op(B) k x n, C m x n.
  subroutine exala_gemm_update(transa, transb, alpha, a, b, beta, c, status)
    character(*), intent(in) :: transa, transb
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    call gemm_core('exala_gemm_update', transa, transb, alpha, a, b, beta, c, status)
  end subroutine

  ! A new matrix op(A) op(B), each entry the exact dot product rounded once;
  ! transa, transb 'N' (default) or 'T'. On failure without status: NaN.
  function exala_gemm(a, b, transa, transb, status) result(c)
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    character(*), intent(in), optional :: transa, transb
    integer, intent(out), optional :: status
    real(c_double), allocatable :: c(:,:)
    real(c_double), allocatable, target :: work(:,:)
    integer(c_int) :: ta, tb
    integer(c_int64_t) :: m, k, kb, n
    character(1) :: sa, sb
    logical :: ok
    ok = opt_trans(transa, 'exala_gemm', 'transa', ta, status)
    if (ok) ok = opt_trans(transb, 'exala_gemm', 'transb', tb, status)
    if (.not. ok) then
      allocate (c(size(a, 1), size(b, 2)))
      c = nan()
      return
    end if
    call op_shape(ta, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), m, k)
    call op_shape(tb, size(b, 1, kind=c_int64_t), size(b, 2, kind=c_int64_t), kb, n)
    allocate (work(m, n))
    work = 0
    sa = merge('T', 'N', ta == EXALA_TRANS)
    sb = merge('T', 'N', tb == EXALA_TRANS)
    call gemm_core('exala_gemm', sa, sb, 1.0_c_double, a, b, 0.0_c_double, work, status, .true.)
    call move_alloc(work, c)
  end function

  subroutine gemm_core(routine, transa, transb, alpha, a, b, beta, c, status, nan_on_failure)
    character(*), intent(in) :: routine, transa, transb
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    logical, intent(in), optional :: nan_on_failure
    integer(c_int) :: ta, tb
    integer(c_int64_t) :: m, k, kb, n
    type(mat_arg), target :: va, vb, vc
    logical :: ok
    ok = .false.
    if (opt_trans(transa, routine, 'transa', ta, status)) then
      if (opt_trans(transb, routine, 'transb', tb, status)) then
        call op_shape(ta, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), m, k)
        call op_shape(tb, size(b, 1, kind=c_int64_t), size(b, 2, kind=c_int64_t), kb, n)
        if (same_size(routine, 'op(b), 1', kb, 'size(op(a), 2)', k, status)) then
          if (same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(op(a), 1)', m, &
                        status)) then
            if (same_size(routine, 'c, 2', size(c, 2, kind=c_int64_t), 'size(op(b), 2)', n, &
                          status)) then
              call view_matrix(a, va)
              call view_matrix(b, vb)
              call view_matrix(c, vc)
              ok = c_ok(c_gemm(EXALA_COL_MAJOR, ta, tb, m, n, k, alpha, va%p, va%ld, vb%p, &
                               vb%ld, beta, vc%p, vc%ld, c_null_ptr), routine, status)
              if (ok) call unview_matrix(vc, c)
            end if
          end if
        end if
      end if
    end if
    if (.not. ok .and. present(nan_on_failure)) c = nan()
  end subroutine

  ! op(A) X = alpha B (side 'L') or X op(A) = alpha B (side 'R') in place in
  ! b; every column (row) bit-identical to exala_trsv's. a is triangular
  ! (only the uplo triangle read; diag 'U': unit diagonal, not read).
  subroutine exala_trsm(side, uplo, trans, diag, alpha, a, b, status)
    character(*), intent(in) :: side, uplo, trans, diag
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: b(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_trsm'
    integer(c_int) :: sd, ul, t, dg
    integer(c_int64_t) :: na
    type(mat_arg), target :: va, vb
    if (.not. opt_side(side, routine, sd, status)) return
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    if (.not. opt_diag(diag, routine, dg, status)) return
    if (.not. square(routine, a, status)) return
    na = size(a, 1, kind=c_int64_t)
    if (sd == EXALA_LEFT) then
      if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), "size(a, 1) (side 'L')", &
                          na, status)) return
    else
      if (.not. same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), "size(a, 1) (side 'R')", &
                          na, status)) return
    end if
    call view_matrix(a, va)
    call view_matrix(b, vb)
    if (c_ok(c_trsm(EXALA_COL_MAJOR, sd, ul, t, dg, vb%m, vb%n, alpha, va%p, va%ld, vb%p, &
                    vb%ld, c_null_ptr), routine, status)) call unview_matrix(vb, b)
  end subroutine

  ! ---------------------------------------- the gemm family (issue 17)
  ! Every result entry is one gemm entry: rounded once from its exact value.

  ! The uplo triangle of C = alpha op(A) op(A)^T + beta C (the other triangle
  ! is not touched); op(A) is n x k (trans 'N': a is n x k, 'T': k x n).
  subroutine exala_syrk(uplo, trans, alpha, a, beta, c, status)
    character(*), intent(in) :: uplo, trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    call rank_k_core('exala_syrk', uplo, trans, alpha, a, a, beta, c, .false., status)
  end subroutine

  ! The uplo triangle of C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C,
  ! ONE rounding per entry; b has the shape of a.
  subroutine exala_syr2k(uplo, trans, alpha, a, b, beta, c, status)
    character(*), intent(in) :: uplo, trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    call rank_k_core('exala_syr2k', uplo, trans, alpha, a, b, beta, c, .true., status)
  end subroutine

  subroutine rank_k_core(routine, uplo, trans, alpha, a, b, beta, c, two, status)
    character(*), intent(in) :: routine, uplo, trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    logical, intent(in) :: two
    integer, intent(out), optional :: status
    integer(c_int) :: ul, t
    integer(c_int64_t) :: n, k
    type(mat_arg), target :: va, vb, vc
    logical :: ok
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    call op_shape(t, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), n, k)
    if (.not. square(routine, c, status)) return
    if (.not. same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(op(a), 1)', n, &
                        status)) return
    if (two) then
      if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'size(a, 1)', &
                          size(a, 1, kind=c_int64_t), status)) return
      if (.not. same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), 'size(a, 2)', &
                          size(a, 2, kind=c_int64_t), status)) return
    end if
    call view_matrix(a, va)
    call view_matrix(c, vc)
    if (two) then
      call view_matrix(b, vb)
      ok = c_ok(c_syr2k(EXALA_COL_MAJOR, ul, t, n, k, alpha, va%p, va%ld, vb%p, vb%ld, beta, &
                        vc%p, vc%ld, c_null_ptr), routine, status)
    else
      ok = c_ok(c_syrk(EXALA_COL_MAJOR, ul, t, n, k, alpha, va%p, va%ld, beta, vc%p, vc%ld, &
                       c_null_ptr), routine, status)
    end if
    if (ok) call unview_matrix(vc, c)
  end subroutine

  ! C = alpha A B + beta C (side 'L') or alpha B A + beta C ('R'); a square
  ! and symmetric (only its uplo triangle read); c has the shape of b.
  subroutine exala_symm(side, uplo, alpha, a, b, beta, c, status)
    character(*), intent(in) :: side, uplo
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_symm'
    integer(c_int) :: sd, ul
    type(mat_arg), target :: va, vb, vc
    if (.not. opt_side(side, routine, sd, status)) return
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. square(routine, a, status)) return
    if (sd == EXALA_LEFT) then
      if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), "size(a, 1) (side 'L')", &
                          size(a, 1, kind=c_int64_t), status)) return
    else
      if (.not. same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), "size(a, 1) (side 'R')", &
                          size(a, 1, kind=c_int64_t), status)) return
    end if
    if (.not. same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(b, 1)', &
                        size(b, 1, kind=c_int64_t), status)) return
    if (.not. same_size(routine, 'c, 2', size(c, 2, kind=c_int64_t), 'size(b, 2)', &
                        size(b, 2, kind=c_int64_t), status)) return
    call view_matrix(a, va)
    call view_matrix(b, vb)
    call view_matrix(c, vc)
    if (c_ok(c_symm(EXALA_COL_MAJOR, sd, ul, vb%m, vb%n, alpha, va%p, va%ld, vb%p, vb%ld, beta, &
                    vc%p, vc%ld, c_null_ptr), routine, status)) call unview_matrix(vc, c)
  end subroutine

  ! B = alpha op(A) B (side 'L') or alpha B op(A) ('R') in place; a
  ! triangular (only the uplo triangle read; diag 'U': unit, not read).
  subroutine exala_trmm(side, uplo, trans, diag, alpha, a, b, status)
    character(*), intent(in) :: side, uplo, trans, diag
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: b(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_trmm'
    integer(c_int) :: sd, ul, t, dg
    integer(c_int64_t) :: na
    type(mat_arg), target :: va, vb
    if (.not. opt_side(side, routine, sd, status)) return
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    if (.not. opt_diag(diag, routine, dg, status)) return
    if (.not. square(routine, a, status)) return
    na = size(a, 1, kind=c_int64_t)
    if (sd == EXALA_LEFT) then
      if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), "size(a, 1) (side 'L')", &
                          na, status)) return
    else
      if (.not. same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), "size(a, 1) (side 'R')", &
                          na, status)) return
    end if
    call view_matrix(a, va)
    call view_matrix(b, vb)
    if (c_ok(c_trmm(EXALA_COL_MAJOR, sd, ul, t, dg, vb%m, vb%n, alpha, va%p, va%ld, vb%p, &
                    vb%ld, c_null_ptr), routine, status)) call unview_matrix(vb, b)
  end subroutine

  ! The uplo triangle of a = a + alpha x x^T, each entry rounded once.
  subroutine exala_syr(uplo, alpha, x, a, status)
    character(*), intent(in) :: uplo
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: x(:)
    real(c_double), intent(inout), target :: a(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_syr'
    integer(c_int) :: ul
    type(vec_arg), target :: vx
    type(mat_arg), target :: va
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_matrix(a, va)
    if (c_ok(c_syr(EXALA_COL_MAJOR, ul, va%m, alpha, vx%p, vx%inc, va%p, va%ld, c_null_ptr), &
             routine, status)) call unview_matrix(va, a)
  end subroutine

  ! The uplo triangle of a = a + alpha (x y^T + y x^T), each entry rounded once.
  subroutine exala_syr2(uplo, alpha, x, y, a, status)
    character(*), intent(in) :: uplo
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: x(:), y(:)
    real(c_double), intent(inout), target :: a(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_syr2'
    integer(c_int) :: ul
    type(vec_arg), target :: vx, vy
    type(mat_arg), target :: va
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    if (.not. same_size(routine, 'y', size(y, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    call view_matrix(a, va)
    if (c_ok(c_syr2(EXALA_COL_MAJOR, ul, va%m, alpha, vx%p, vx%inc, vy%p, vy%inc, va%p, va%ld, &
                    c_null_ptr), routine, status)) call unview_matrix(va, a)
  end subroutine

  ! Modified Givens rotation (param(1) the flag -2, -1, 0 or 1, as BLAS
  ! drotm): each x_i, y_i one rounding of its exact two-term sum.
  subroutine exala_rotm(x, y, param, status)
    real(c_double), intent(inout), target :: x(:), y(:)
    real(c_double), intent(in), target :: param(5)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx, vy
    if (.not. same_size('exala_rotm', 'y', size(y, kind=c_int64_t), 'size(x)', &
                        size(x, kind=c_int64_t), status)) return
    call view_vector(x, vx)
    call view_vector(y, vy)
    if (c_ok(c_rotm(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_loc(param), c_null_ptr), 'exala_rotm', &
             status)) then
      call unview_vector(vx, x)
      call unview_vector(vy, y)
    end if
  end subroutine

  ! Givens rotation (BLAS 3.10 drotg rules): on return a = r (the correctly
  ! rounded norm with the sign of the larger input), b = z, c = a / r and
  ! s = b / r (IEEE quotients by the rounded r).
  subroutine exala_rotg(a, b, c, s, status)
    real(c_double), intent(inout), target :: a, b
    real(c_double), intent(out), target :: c, s
    integer, intent(out), optional :: status
    c = nan()
    s = nan()
    if (.not. c_ok(c_rotg(c_loc(a), c_loc(b), c_loc(c), c_loc(s), c_null_ptr), 'exala_rotg', &
                   status)) return
  end subroutine

  ! a must be square.
  logical function square(routine, a, status)
    character(*), intent(in) :: routine
    real(c_double), intent(in) :: a(:,:)
    integer, intent(out), optional :: status
    square = size(a, 1) == size(a, 2)
    if (.not. square) call bad_argument(routine // ': a is ' // &
        int_str(size(a, 1, kind=c_int64_t)) // ' x ' // int_str(size(a, 2, kind=c_int64_t)) // &
        ', not square', status)
  end function

  ! ====================================================== triangular solves

  ! Reproducible triangular solve op(A) x = b in place (x holds b): each x_i
  ! the correctly rounded quotient of its exact numerator, so a representable
  ! solution is found exactly. An exact zero on a non-unit diagonal fails
  ! with EXALA_ERROR_SINGULAR (exala_last_error_index(): the row, from 1).
  subroutine exala_trsv(uplo, trans, diag, a, x, status)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(out), optional :: status
    call trsv_common(SOLVE_EXACT, 'exala_trsv', uplo, trans, diag, a, x, status)
  end subroutine

  ! Compensated triangular solve (CENA, Langlois-Louvet): error ~ u + n cond
  ! u^2, the same bits on every kernel set.
  subroutine exala_trsv_compensated(uplo, trans, diag, a, x, status)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(out), optional :: status
    call trsv_common(SOLVE_COMPENSATED, 'exala_trsv_compensated', uplo, trans, diag, a, x, status)
  end subroutine

  ! Double-double triangular solve (XBLAS style): error ~ u + n cond u^2,
  ! the same bits on every kernel set.
  subroutine exala_trsv_double_double(uplo, trans, diag, a, x, status)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(out), optional :: status
    call trsv_common(SOLVE_DOUBLE_DOUBLE, 'exala_trsv_double_double', uplo, trans, diag, a, x, &
                     status)
  end subroutine

  ! exala_trsv, then refinement with the exact residual: reproducible, <= 1
  ! ulp while cond u < 1/n. max_steps 0..100 (default 8); steps: the
  ! corrections that changed x; converged: a correction left x unchanged.
  subroutine exala_trsv_exact_refined(uplo, trans, diag, a, x, max_steps, steps, converged, &
                                      status)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(in), optional :: max_steps
    integer, intent(out), optional :: steps
    logical, intent(out), optional :: converged
    integer, intent(out), optional :: status
    call trsv_common(SOLVE_REFINED, 'exala_trsv_exact_refined', uplo, trans, diag, a, x, &
                     status, max_steps, steps, converged)
  end subroutine

  subroutine trsv_common(which, routine, uplo, trans, diag, a, x, status, max_steps, steps, &
                         converged)
    integer, intent(in) :: which
    character(*), intent(in) :: routine, uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(out), optional :: status
    integer, intent(in), optional :: max_steps
    integer, intent(out), optional :: steps
    logical, intent(out), optional :: converged
    integer(c_int) :: ul, t, dg, code, c_steps, c_converged, c_max
    type(mat_arg), target :: va
    type(vec_arg), target :: vx
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    if (.not. opt_diag(diag, routine, dg, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    call view_matrix(a, va)
    call view_vector(x, vx)
    select case (which)
    case (SOLVE_EXACT)
      code = c_trsv(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc, c_null_ptr)
    case (SOLVE_COMPENSATED)
      code = c_trsv_compensated(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc)
    case (SOLVE_DOUBLE_DOUBLE)
      code = c_trsv_double_double(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc)
    case default
      c_max = 8
      if (present(max_steps)) c_max = int(max_steps, c_int)
      code = c_trsv_exact_refined(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc, &
                                  c_max, c_null_ptr, c_steps, c_converged)
    end select
    if (c_ok(code, routine, status)) then
      call unview_vector(vx, x)
      if (which == SOLVE_REFINED) then
        if (present(steps)) steps = int(c_steps)
        if (present(converged)) converged = c_converged /= 0
      end if
    end if
  end subroutine

  ! Skeel's condition number cond(op(A), x) = || |op(A)^-1| |op(A)| |x| || /
  ! ||x|| (infinity norm), computed as exala/solvers.hpp describes.
  function exala_skeel_condition(uplo, trans, diag, a, x, status) result(r)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:), x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    character(*), parameter :: routine = 'exala_skeel_condition'
    integer(c_int) :: ul, t, dg
    type(mat_arg), target :: va
    type(vec_arg), target :: vx
    r = nan()
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    if (.not. opt_diag(diag, routine, dg, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    call view_matrix(a, va)
    call view_vector(x, vx)
    if (c_ok(c_skeel_condition(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc, res), &
             routine, status)) r = res
  end function

  ! The exact solution of op(A) x = b rounded to nearest, computed in MPFR
  ! (precision 0, the default: adaptive). EXALA_ERROR_NOT_COMPILED_IN
  ! without MPFR. x gets the solution; b is not changed.
  subroutine exala_trsv_mpfr_solution(uplo, trans, diag, a, b, x, precision, status)
    character(*), intent(in) :: uplo, trans, diag
    real(c_double), intent(in), target :: a(:,:), b(:)
    real(c_double), intent(inout) :: x(:)
    integer, intent(in), optional :: precision
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_trsv_mpfr_solution'
    integer(c_int) :: ul, t, dg, prec
    type(mat_arg), target :: va
    type(vec_arg), target :: vb
    real(c_double), allocatable, target :: work(:)
    if (.not. opt_uplo(uplo, routine, ul, status)) return
    if (.not. opt_trans(trans, routine, 'trans', t, status)) return
    if (.not. opt_diag(diag, routine, dg, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'size(a, 1)', &
                        size(a, 1, kind=c_int64_t), status)) return
    prec = 0
    if (present(precision)) prec = int(precision, c_int)
    call view_matrix(a, va)
    call view_vector(b, vb)
    allocate (work(max(1, size(x))))
    if (c_ok(c_trsv_mpfr_solution(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vb%p, vb%inc, &
                                  prec, c_loc(work)), routine, status)) x = work(1:size(x))
  end subroutine

  ! An ill-conditioned lower-triangular test system with exact data: t (n x
  ! n, strict upper triangle zero) and b (n), for n = size(b), condition
  ! about cond, from the seed (the C generator; the same system for the
  ! same arguments everywhere).
  subroutine exala_generate_ill_conditioned_trsv(cond, seed, t, b, status)
    real(c_double), intent(in) :: cond
    integer, intent(in) :: seed
    real(c_double), intent(inout) :: t(:,:)
    real(c_double), intent(inout) :: b(:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_generate_ill_conditioned_trsv'
    real(c_double), allocatable, target :: rowmajor(:,:), bw(:)
    integer(c_int64_t) :: n
    n = size(b, kind=c_int64_t)
    if (.not. same_size(routine, 't, 1', size(t, 1, kind=c_int64_t), 'size(b)', n, status)) &
      return
    if (.not. same_size(routine, 't, 2', size(t, 2, kind=c_int64_t), 'size(b)', n, status)) &
      return
    if (seed < 0) then
      call bad_argument(routine // ': seed = ' // int_str(int(seed, c_int64_t)) // &
                        ' is negative', status)
      return
    end if
    ! C writes t row-major: as a Fortran array that is t transposed.
    allocate (rowmajor(max(1_c_int64_t, n), max(1_c_int64_t, n)), bw(max(1_c_int64_t, n)))
    if (c_ok(c_generate_ill_conditioned_trsv(n, cond, int(seed, c_int64_t), c_loc(rowmajor), &
                                             c_loc(bw)), routine, status)) then
      t = transpose(rowmajor(1:n, 1:n))
      b = bw(1:n)
    end if
  end subroutine

  ! ====================================================== superaccumulator

  ! The handle, made on first use.
  logical function sa_ready(this, routine, status)
    class(exala_superaccumulator), intent(inout) :: this
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    sa_ready = .true.
    if (.not. c_associated(this%handle)) &
      sa_ready = c_ok(c_superacc_create(this%handle), routine, status)
  end function

  ! Exact: acc += x.
  subroutine sa_add_scalar(this, x, status)
    class(exala_superaccumulator), intent(inout) :: this
    real(c_double), intent(in) :: x
    integer, intent(out), optional :: status
    if (.not. sa_ready(this, 'exala_superaccumulator%add', status)) return
    call c_check(c_superacc_add(this%handle, x), 'exala_superaccumulator%add', status)
  end subroutine

  ! Exact: acc += sum(x) (every element, any stride).
  subroutine sa_add_array(this, x, status)
    class(exala_superaccumulator), intent(inout) :: this
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx
    if (.not. sa_ready(this, 'exala_superaccumulator%add', status)) return
    call view_vector(x, vx)
    call c_check(c_sum_into(this%handle, vx%n, vx%p, vx%inc, c_null_ptr), &
             'exala_superaccumulator%add', status)
  end subroutine

  ! Exact: acc += sum(|x_i|).
  subroutine sa_add_abs(this, x, status)
    class(exala_superaccumulator), intent(inout) :: this
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    type(vec_arg), target :: vx
    if (.not. sa_ready(this, 'exala_superaccumulator%add_abs', status)) return
    call view_vector(x, vx)
    call c_check(c_asum_into(this%handle, vx%n, vx%p, vx%inc, c_null_ptr), &
             'exala_superaccumulator%add_abs', status)
  end subroutine

  ! Exact: acc += a * b (the product held without error).
  subroutine sa_add_product_scalar(this, a, b, status)
    class(exala_superaccumulator), intent(inout) :: this
    real(c_double), intent(in) :: a, b
    integer, intent(out), optional :: status
    if (.not. sa_ready(this, 'exala_superaccumulator%add_product', status)) return
    call c_check(c_superacc_add_product(this%handle, a, b), 'exala_superaccumulator%add_product', &
             status)
  end subroutine

  ! Exact: acc += sum(a_i * b_i); size(b) must equal size(a).
  subroutine sa_add_product_array(this, a, b, status)
    class(exala_superaccumulator), intent(inout) :: this
    real(c_double), intent(in), target :: a(:), b(:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_superaccumulator%add_product'
    type(vec_arg), target :: va, vb
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'size(a)', &
                        size(a, kind=c_int64_t), status)) return
    if (.not. sa_ready(this, routine, status)) return
    call view_vector(a, va)
    call view_vector(b, vb)
    call c_check(c_dot_into(this%handle, va%n, va%p, va%inc, vb%p, vb%inc, c_null_ptr), routine, &
             status)
  end subroutine

  ! Exact: acc += other (associative and commutative).
  subroutine sa_merge(this, other, status)
    class(exala_superaccumulator), intent(inout) :: this
    class(exala_superaccumulator), intent(in) :: other
    integer, intent(out), optional :: status
    if (.not. c_associated(other%handle)) then  ! other holds exact zero
      call succeed(status)
      return
    end if
    if (.not. sa_ready(this, 'exala_superaccumulator%merge', status)) return
    call c_check(c_superacc_merge(this%handle, other%handle), 'exala_superaccumulator%merge', &
             status)
  end subroutine

  ! Correctly rounded: the exact value rounded once in `rounding` (an
  ! EXALA_ROUND_* value; default to nearest even).
  function sa_round(this, rounding, status) result(r)
    class(exala_superaccumulator), intent(in) :: this
    integer(c_int), intent(in), optional :: rounding
    integer, intent(out), optional :: status
    real(c_double) :: r
    r = sa_round_any(this, .false., rounding, status)
  end function

  ! Correctly rounded: the exact square root of the exact value, rounded
  ! once (NaN for a negative value).
  function sa_round_sqrt(this, rounding, status) result(r)
    class(exala_superaccumulator), intent(in) :: this
    integer(c_int), intent(in), optional :: rounding
    integer, intent(out), optional :: status
    real(c_double) :: r
    r = sa_round_any(this, .true., rounding, status)
  end function

  function sa_round_any(this, root, rounding, status) result(r)
    class(exala_superaccumulator), intent(in) :: this
    logical, intent(in) :: root
    integer(c_int), intent(in), optional :: rounding
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    integer(c_int) :: mode, code
    type(c_ptr) :: h
    logical :: scratch
    r = nan()
    mode = EXALA_ROUND_NEAREST_EVEN
    if (present(rounding)) mode = rounding
    ! An accumulator never used holds exact zero: round a fresh one (so the
    ! mode is validated and the zero's sign is the C library's).
    h = this%handle
    scratch = .not. c_associated(h)
    if (scratch) then
      if (.not. c_ok(c_superacc_create(h), 'exala_superaccumulator%round', status)) return
    end if
    if (root) then
      code = c_superacc_round_sqrt(h, mode, res)
    else
      code = c_superacc_round(h, mode, res)
    end if
    if (scratch) call c_superacc_destroy(h)
    if (root) then
      if (c_ok(code, 'exala_superaccumulator%round_sqrt', status)) r = res
    else
      if (c_ok(code, 'exala_superaccumulator%round', status)) r = res
    end if
  end function

  ! Exact zero again.
  subroutine sa_clear(this, status)
    class(exala_superaccumulator), intent(inout) :: this
    integer, intent(out), optional :: status
    if (.not. c_associated(this%handle)) then
      call succeed(status)
      return
    end if
    call c_check(c_superacc_clear(this%handle), 'exala_superaccumulator%clear', status)
  end subroutine

  ! Exact: acc = -acc.
  subroutine sa_negate(this, status)
    class(exala_superaccumulator), intent(inout) :: this
    integer, intent(out), optional :: status
    if (.not. sa_ready(this, 'exala_superaccumulator%negate', status)) return
    call c_check(c_superacc_negate(this%handle), 'exala_superaccumulator%negate', status)
  end subroutine

  ! Exact: -1, 0 or +1, the sign of the exact finite value (special values
  ! ignored); -2 on failure.
  function sa_sign(this, status) result(s)
    class(exala_superaccumulator), intent(in) :: this
    integer, intent(out), optional :: status
    integer :: s
    integer(c_int) :: cs
    s = 0
    if (.not. c_associated(this%handle)) then
      call succeed(status)
      return
    end if
    s = -2
    if (c_ok(c_superacc_sign(this%handle, cs), 'exala_superaccumulator%sign', status)) s = int(cs)
  end function

  ! lhs = rhs: lhs gets its own copy of the exact value.
  subroutine sa_assign(lhs, rhs)
    class(exala_superaccumulator), intent(inout) :: lhs
    class(exala_superaccumulator), intent(in) :: rhs
    if (c_associated(lhs%handle, rhs%handle)) return
    if (.not. c_associated(rhs%handle)) then
      if (c_associated(lhs%handle)) then
        call c_check(c_superacc_clear(lhs%handle), 'exala_superaccumulator assignment')
      end if
      return
    end if
    if (.not. sa_ready(lhs, 'exala_superaccumulator assignment')) return
    call c_check(c_superacc_copy(rhs%handle, lhs%handle), 'exala_superaccumulator assignment')
  end subroutine

  subroutine sa_final(this)
    type(exala_superaccumulator), intent(inout) :: this
    if (c_associated(this%handle)) call c_superacc_destroy(this%handle)
    this%handle = c_null_ptr
  end subroutine

  ! ============================================================ stripe LU

  ! The options for C: `options` or the defaults, with `engine` ("cpu" or
  ! "cuda") set from engine_c when given. use_options: pass them at all.
  subroutine slu_options(options, engine, opt, engine_c, use_options)
    type(exala_stripe_lu_options), intent(in), optional :: options
    character(*), intent(in), optional :: engine
    type(exala_stripe_lu_options), intent(inout) :: opt
    character(kind=c_char), allocatable, intent(inout), target :: engine_c(:)
    logical, intent(out) :: use_options
    integer(c_int) :: ignored
    use_options = present(options) .or. present(engine)
    if (present(options)) then
      opt = options
    else
      ignored = exala_stripe_lu_options_init(opt)
    end if
    if (present(engine)) then
      engine_c = to_c_chars(engine)
      opt%engine = c_loc(engine_c)
    end if
  end subroutine

  ! Reproducible in-core stripe LU of the square matrix a (copied; a is not
  ! changed): the bits depend only on A, the stripe heights, the pivoting
  ! and the BLAS. Replaces a previous factorization held by the object.
  ! EXALA_ERROR_SINGULAR_PIVOT for a singular matrix.
  subroutine slu_factor(this, a, options, engine, status)
    class(exala_stripe_lu), intent(inout) :: this
    real(c_double), intent(in), target :: a(:,:)
    type(exala_stripe_lu_options), intent(in), optional :: options
    character(*), intent(in), optional :: engine
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%factor'
    type(exala_stripe_lu_options), target :: opt
    character(kind=c_char), allocatable, target :: engine_c(:)
    logical :: use_options
    type(mat_arg), target :: va
    type(c_ptr) :: opt_p, h
    if (.not. square(routine, a, status)) return
    call slu_options(options, engine, opt, engine_c, use_options)
    opt_p = c_null_ptr
    if (use_options) opt_p = c_loc(opt)
    call view_matrix(a, va)
    if (c_ok(c_stripe_lu_factor(va%m, va%p, va%ld, opt_p, h), routine, status)) then
      call c_stripe_lu_destroy(this%handle)
      this%handle = h
    end if
  end subroutine

  ! Out of core: the system stored in the work directories dirs (dirs(1)
  ! holds the manifest; trailing blanks are not part of a name), factored
  ! (or a matching partial run resumed, options%resume).
  subroutine slu_open(this, dirs, options, engine, status)
    class(exala_stripe_lu), intent(inout) :: this
    character(*), intent(in) :: dirs(:)
    type(exala_stripe_lu_options), intent(in), optional :: options
    character(*), intent(in), optional :: engine
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%open'
    type(exala_stripe_lu_options), target :: opt
    character(kind=c_char), allocatable, target :: engine_c(:)
    character(kind=c_char), allocatable, target :: names(:,:)
    type(c_ptr), allocatable, target :: ptrs(:)
    logical :: use_options
    type(c_ptr) :: opt_p, h
    if (size(dirs) == 0) then
      call bad_argument(routine // ': dirs is empty (at least one work directory)', status)
      return
    end if
    call c_directories(dirs, names, ptrs)
    call slu_options(options, engine, opt, engine_c, use_options)
    opt_p = c_null_ptr
    if (use_options) opt_p = c_loc(opt)
    if (c_ok(c_stripe_lu_open(c_loc(ptrs), int(size(dirs), c_int), opt_p, h), routine, &
             status)) then
      call c_stripe_lu_destroy(this%handle)
      this%handle = h
    end if
  end subroutine

  ! dirs as C strings: names(:, i) null-terminated, ptrs(i) its address.
  subroutine c_directories(dirs, names, ptrs)
    character(*), intent(in) :: dirs(:)
    character(kind=c_char), allocatable, intent(inout), target :: names(:,:)
    type(c_ptr), allocatable, intent(inout) :: ptrs(:)
    integer :: i, j, n
    allocate (names(len(dirs) + 1, size(dirs)), ptrs(size(dirs)))
    do i = 1, size(dirs)
      n = len_trim(dirs(i))
      do j = 1, n
        names(j, i) = dirs(i)(j:j)
      end do
      names(n + 1, i) = c_null_char
      ptrs(i) = c_loc(names(1, i))
    end do
  end subroutine

  ! Frees the factorization (the object can factor or open again).
  subroutine slu_release(this)
    class(exala_stripe_lu), intent(inout) :: this
    call c_stripe_lu_destroy(this%handle)
    this%handle = c_null_ptr
  end subroutine

  logical function slu_factored(this)
    class(exala_stripe_lu), intent(in) :: this
    slu_factored = c_associated(this%handle)
  end function

  ! The object must hold a factorization.
  logical function slu_ready(this, routine, status)
    class(exala_stripe_lu), intent(in) :: this
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    slu_ready = c_associated(this%handle)
    if (.not. slu_ready) call bad_argument(routine // ': the exala_stripe_lu object holds no ' &
        // 'factorization (call factor or open first)', status)
  end function

  ! The order n of the system; -1 on failure.
  function slu_n(this, status) result(n)
    class(exala_stripe_lu), intent(in) :: this
    integer, intent(out), optional :: status
    integer(c_int64_t) :: n, res
    n = -1
    if (.not. slu_ready(this, 'exala_stripe_lu%n', status)) return
    if (c_ok(c_stripe_lu_n(this%handle, res), 'exala_stripe_lu%n', status)) n = res
  end function

  ! What the factorization did (sizes, times, I/O, cache, pivot ratio).
  function slu_report(this, status) result(report)
    class(exala_stripe_lu), intent(in) :: this
    integer, intent(out), optional :: status
    type(exala_stripe_lu_report) :: report
    if (.not. slu_ready(this, 'exala_stripe_lu%report', status)) return
    call c_check(c_stripe_lu_get_report(this%handle, report), 'exala_stripe_lu%report', status)
  end function

  ! b := A^-1 b with the factors, in place (reproducible).
  subroutine slu_solve_vec(this, b, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(inout), target :: b(:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve'
    type(vec_arg), target :: vb
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'n', slu_n(this), status)) return
    call view_unit_vector(b, vb)
    if (c_ok(c_stripe_lu_solve(this%handle, 1_c_int64_t, vb%p, max(1_c_int64_t, vb%n)), &
             routine, status)) call unview_vector(vb, b)
  end subroutine

  ! B := A^-1 B for the columns of b (size(b, 1) = n), in place.
  subroutine slu_solve_mat(this, b, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(inout), target :: b(:,:)
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve'
    type(mat_arg), target :: vb
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'n', slu_n(this), status)) &
      return
    call view_matrix(b, vb)
    if (c_ok(c_stripe_lu_solve(this%handle, vb%n, vb%p, vb%ld), routine, status)) &
      call unview_matrix(vb, b)
  end subroutine

  ! x := the solution of A x = b refined against the exact residual (normwise
  ! backward error <= 2u when it converges); max_refine 0..100 (default 10).
  subroutine slu_solve_refined_vec(this, b, x, max_refine, report, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:)
    real(c_double), intent(inout), target :: x(:)
    integer, intent(in), optional :: max_refine
    type(exala_refine_report), intent(inout), optional :: report
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve_refined'
    type(vec_arg), target :: vb, vx
    type(exala_refine_report), target :: rep
    integer(c_int) :: refine
    integer(c_int64_t) :: n
    if (.not. slu_ready(this, routine, status)) return
    n = slu_n(this)
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'n', n, status)) return
    refine = 10
    if (present(max_refine)) refine = int(max_refine, c_int)
    call view_unit_vector(b, vb)
    call view_unit_vector(x, vx)
    if (c_ok(c_stripe_lu_solve_refined(this%handle, 1_c_int64_t, vb%p, max(1_c_int64_t, n), &
                                       vx%p, max(1_c_int64_t, n), refine, c_loc(rep)), &
             routine, status)) then
      call unview_vector(vx, x)
      if (present(report)) report = rep
    end if
  end subroutine

  ! As above for the columns of b and x (n x nrhs each).
  subroutine slu_solve_refined_mat(this, b, x, max_refine, report, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:,:)
    real(c_double), intent(inout), target :: x(:,:)
    integer, intent(in), optional :: max_refine
    type(exala_refine_report), intent(inout), optional :: report
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve_refined'
    type(mat_arg), target :: vb, vx
    type(exala_refine_report), target :: rep
    integer(c_int) :: refine
    integer(c_int64_t) :: n
    if (.not. slu_ready(this, routine, status)) return
    n = slu_n(this)
    if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x, 1', size(x, 1, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x, 2', size(x, 2, kind=c_int64_t), 'size(b, 2)', &
                        size(b, 2, kind=c_int64_t), status)) return
    refine = 10
    if (present(max_refine)) refine = int(max_refine, c_int)
    call view_matrix(b, vb)
    call view_matrix(x, vx)
    if (c_ok(c_stripe_lu_solve_refined(this%handle, vb%n, vb%p, vb%ld, vx%p, vx%ld, refine, &
                                       c_loc(rep)), routine, status)) then
      call unview_matrix(vx, x)
      if (present(report)) report = rep
    end if
  end subroutine

  ! Out of core: the stored right-hand sides solved (and refined when
  ! max_refine > 0, default 10) into x (n x nrhs; size(x, 2) must hold them
  ! all); nrhs gets their count.
  subroutine slu_solve_stored(this, x, max_refine, nrhs, report, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(inout), target :: x(:,:)
    integer, intent(in), optional :: max_refine
    integer, intent(out), optional :: nrhs
    type(exala_refine_report), intent(inout), optional :: report
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve_stored'
    type(mat_arg), target :: vx
    type(exala_refine_report), target :: rep
    integer(c_int) :: refine
    integer(c_int64_t) :: count
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'x, 1', size(x, 1, kind=c_int64_t), 'n', slu_n(this), status)) &
      return
    refine = 10
    if (present(max_refine)) refine = int(max_refine, c_int)
    call view_dense_matrix(x, vx)
    if (c_ok(c_stripe_lu_solve_stored(this%handle, vx%p, size(x, kind=c_int64_t), refine, count, &
                                      c_loc(rep)), routine, status)) then
      call unview_matrix(vx, x)
      if (present(nrhs)) nrhs = int(count)
      if (present(report)) report = rep
    end if
  end subroutine

  ! Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||) with the
  ! exact residual.
  function slu_backward_error_vec(this, b, x, status) result(r)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:), x(:)
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    character(*), parameter :: routine = 'exala_stripe_lu%backward_error'
    type(vec_arg), target :: vb, vx
    integer(c_int64_t) :: n
    r = nan()
    if (.not. slu_ready(this, routine, status)) return
    n = slu_n(this)
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x', size(x, kind=c_int64_t), 'n', n, status)) return
    call view_unit_vector(b, vb)
    call view_unit_vector(x, vx)
    if (c_ok(c_stripe_lu_backward_error(this%handle, 1_c_int64_t, vb%p, max(1_c_int64_t, n), &
                                        vx%p, max(1_c_int64_t, n), res), routine, status)) r = res
  end function

  function slu_backward_error_mat(this, b, x, status) result(r)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:,:), x(:,:)
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    character(*), parameter :: routine = 'exala_stripe_lu%backward_error'
    type(mat_arg), target :: vb, vx
    integer(c_int64_t) :: n
    r = nan()
    if (.not. slu_ready(this, routine, status)) return
    n = slu_n(this)
    if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x, 1', size(x, 1, kind=c_int64_t), 'n', n, status)) return
    if (.not. same_size(routine, 'x, 2', size(x, 2, kind=c_int64_t), 'size(b, 2)', &
                        size(b, 2, kind=c_int64_t), status)) return
    call view_matrix(b, vb)
    call view_matrix(x, vx)
    if (c_ok(c_stripe_lu_backward_error(this%handle, vb%n, vb%p, vb%ld, vx%p, vx%ld, res), &
             routine, status)) r = res
  end function

  ! Copying a factorization is not supported: reports an error, changes
  ! nothing.
  subroutine slu_assign(lhs, rhs)
    class(exala_stripe_lu), intent(inout) :: lhs
    class(exala_stripe_lu), intent(in) :: rhs
    if (c_associated(lhs%handle, rhs%handle)) return
    call bad_argument('exala_stripe_lu assignment: a factorization cannot be copied ' // &
                      '(the left-hand side is left unchanged)')
  end subroutine

  subroutine slu_final(this)
    type(exala_stripe_lu), intent(inout) :: this
    call c_stripe_lu_destroy(this%handle)
    this%handle = c_null_ptr
  end subroutine

  ! A random dense system of order n written as stripe files (stripe rows
  ! each, 0: chosen) into the work directories: cond == 0: entries uniform
  ! in [-0.5, 0.5]; cond >= 1: 2-norm condition about cond. Also x_true and
  ! B = A x_true (nrhs columns). overwrite: replace existing files.
  subroutine exala_generate_dense_system(dirs, n, nrhs, seed, stripe, cond, overwrite, status)
    character(*), intent(in) :: dirs(:)
    integer, intent(in) :: n, nrhs, seed
    integer, intent(in), optional :: stripe
    real(c_double), intent(in), optional :: cond
    logical, intent(in), optional :: overwrite
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_generate_dense_system'
    character(kind=c_char), allocatable, target :: names(:,:)
    type(c_ptr), allocatable, target :: ptrs(:)
    integer(c_int64_t) :: s
    real(c_double) :: k
    integer(c_int) :: ow
    if (size(dirs) == 0) then
      call bad_argument(routine // ': dirs is empty (at least one work directory)', status)
      return
    end if
    if (seed < 0) then
      call bad_argument(routine // ': seed = ' // int_str(int(seed, c_int64_t)) // &
                        ' is negative', status)
      return
    end if
    s = 0
    if (present(stripe)) s = stripe
    k = 0
    if (present(cond)) k = cond
    ow = 0
    if (present(overwrite)) ow = merge(1, 0, overwrite)
    call c_directories(dirs, names, ptrs)
    call c_check(c_generate_dense_system(c_loc(ptrs), int(size(dirs), c_int), int(n, c_int64_t), &
                                     int(nrhs, c_int64_t), int(seed, c_int64_t), s, k, ow), &
             routine, status)
  end subroutine

end module exala
