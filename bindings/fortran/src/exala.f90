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
!
! Files: exala_c_api.f90 (layer 1: exala.h's enums, structs and bind(c)
! interfaces), exala_views.f90 (what the wrappers share: array views, the
! error record, options, size checks), this file (the public names, the
! two derived types and the interface of every wrapper, documented here),
! and one submodule per layer with the wrappers' bodies: exala_library.f90
! (errors, strings, selection), exala_blas1.f90, exala_blas2.f90,
! exala_blas3.f90, exala_solvers.f90, exala_superacc.f90, exala_stripe.f90.
! Users need exala.mod only (gfortran writes what it uses from the other
! modules into it).
module exala
  use, intrinsic :: iso_c_binding
  use exala_c_api
  use exala_views
  implicit none
  private

  ! ------------------------------- exala.h mirrored (exala_c_api.f90)
  public :: EXALA_SUCCESS, EXALA_ERROR_INVALID_ARGUMENT, EXALA_ERROR_NOT_COMPILED_IN, &
            EXALA_ERROR_SINGULAR, EXALA_ERROR_SINGULAR_PIVOT, EXALA_ERROR_STORAGE, &
            EXALA_ERROR_FORMAT, EXALA_ERROR_OUT_OF_MEMORY, EXALA_ERROR_RUNTIME, &
            EXALA_ERROR_INTERNAL, EXALA_ERROR_OVERFLOW
  public :: EXALA_ROW_MAJOR, EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_TRANS, EXALA_UPPER, &
            EXALA_LOWER, EXALA_NON_UNIT, EXALA_UNIT, EXALA_LEFT, EXALA_RIGHT, &
            EXALA_ROUND_NEAREST_EVEN, EXALA_ROUND_TOWARD_ZERO, EXALA_ROUND_UPWARD, &
            EXALA_ROUND_DOWNWARD, EXALA_BACKEND_REFERENCE, EXALA_BACKEND_SIMD, &
            EXALA_BACKEND_OMP, EXALA_BACKEND_OPENCL, EXALA_BACKEND_CUDA, EXALA_ORDER_BASIC, EXALA_ORDER_ZIGZAG, &
            EXALA_ORDER_META_ZIGZAG, EXALA_PIVOT_LOCAL, EXALA_PIVOT_PARTIAL
  public :: EXALA_VERSION_MAJOR, EXALA_VERSION_MINOR, EXALA_VERSION_PATCH
  public :: exala_exec, exala_stripe_lu_options, exala_stripe_lu_report, exala_refine_report

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
  ! exala_set_backend(EXALA_BACKEND_OMP) (bind(c) on the C function) or
  ! exala_set_backend('omp') (by name); both return the status.
  interface exala_set_backend
    procedure :: exala_set_backend_id
    module procedure exala_set_backend_name
  end interface

  ! exala_set_rounding(EXALA_ROUND_UPWARD) or exala_set_rounding('upward').
  interface exala_set_rounding
    module procedure exala_set_rounding_id, exala_set_rounding_name
  end interface

  ! ------------------------- the procedures, implemented in the submodules
  interface
    ! -------------------- errors, strings and the default exec (selection) (exala_library.f90)

    ! This thread's message for the last failing call: the module's wrappers
    ! keep their failure's message (prefixed with the wrapper's name; an index
    ! it names is given in Fortran numbering too) until the next wrapper call;
    ! a failing direct bind(c) call leaves the C library's message, returned
    ! as it is. "" when the last call succeeded.
    module function exala_last_error() result(message)
      character(:), allocatable :: message
    end function

    ! The row, column or stripe the last failure was about, counted from 1 as
    ! Fortran does, or -1.
    module function exala_last_error_index() result(index)
      integer(c_int64_t) :: index
    end function

    ! The name of a status code ("EXALA_ERROR_SINGULAR", ...).
    module function exala_status_string(status) result(name)
      integer, intent(in) :: status
      character(:), allocatable :: name
    end function

    ! The version of the linked library ("0.1.0").
    module function exala_version() result(version)
      character(:), allocatable :: version
    end function

    ! The name of a backend ("omp"), or "" for a value that is not one.
    module function exala_backend_name(backend) result(name)
      integer(c_int), intent(in) :: backend
      character(:), allocatable :: name
    end function

    ! The SIMD kernel set in use ("avx512", "avx2" or "generic").
    module function exala_kernel_set(status) result(name)
      integer, intent(out), optional :: status
      character(:), allocatable :: name
    end function

    ! The default backend by name ("reference", "simd", "omp", "opencl";
    ! case-insensitive); the status is returned (EXALA_ERROR_INVALID_ARGUMENT naming a bad name,
    ! EXALA_ERROR_NOT_COMPILED_IN for a backend missing from this build).
    module function exala_set_backend_name(name) result(status)
      character(*), intent(in) :: name
      integer :: status
    end function

    ! The default rounding direction of every rounded result (an
    ! EXALA_ROUND_* value); returns the status.
    module function exala_set_rounding_id(mode) result(status)
      integer(c_int), intent(in) :: mode
      integer :: status
    end function

    ! The default rounding direction by name: 'nearest' (ties to even),
    ! 'toward_zero', 'upward' or 'downward', case-insensitive.
    module function exala_set_rounding_name(mode) result(status)
      character(*), intent(in) :: mode
      integer :: status
    end function

    ! Chooses the OpenCL device of backend opencl ("P:D", "P", or part of a
    ! platform or device name); returns the status.
    module function exala_opencl_select_device(spec) result(status)
      character(*), intent(in) :: spec
      integer :: status
    end function

    ! -------------------- level 1: reductions, vector updates, rotations (exala_blas1.f90)

    ! Correctly rounded sum of x: the exact sum rounded once (default rounding
    ! direction); the same bits on every backend, thread count and stride.
    module function exala_sum(x, status) result(r)
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Correctly rounded sum of |x_i|: the exact value rounded once.
    module function exala_asum(x, status) result(r)
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Correctly rounded 2-norm: the exact square root of the exact sum of
    ! squares, rounded once.
    module function exala_nrm2(x, status) result(r)
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Correctly rounded dot product: the exact sum of the exact products
    ! rounded once. size(y) must equal size(x).
    module function exala_dot(x, y, status) result(r)
      real(c_double), intent(in), target :: x(:), y(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Exact: the index (from 1) of the first largest |x_i| (the first NaN if
    ! any); 0 for an empty x, -1 on failure.
    module function exala_iamax(x, status) result(i)
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
      integer(c_int64_t) :: i
    end function

    ! y = fl(alpha x + y), each element rounded once from its exact value
    ! (to nearest). size(y) must equal size(x).
    module subroutine exala_axpy(alpha, x, y, status)
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in), target :: x(:)
      real(c_double), intent(inout), target :: y(:)
      integer, intent(out), optional :: status
    end subroutine

    ! x = fl(alpha x), each element correctly rounded.
    module subroutine exala_scal(alpha, x, status)
      real(c_double), intent(in) :: alpha
      real(c_double), intent(inout), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! y = x (exact). size(y) must equal size(x).
    module subroutine exala_copy(x, y, status)
      real(c_double), intent(in), target :: x(:)
      real(c_double), intent(inout), target :: y(:)
      integer, intent(out), optional :: status
    end subroutine

    ! x <-> y (exact). size(y) must equal size(x).
    module subroutine exala_swap(x, y, status)
      real(c_double), intent(inout), target :: x(:), y(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Modified Givens rotation (param(1) the flag -2, -1, 0 or 1, as BLAS
    ! drotm): each x_i, y_i one rounding of its exact two-term sum.
    module subroutine exala_rotm(x, y, param, status)
      real(c_double), intent(inout), target :: x(:), y(:)
      real(c_double), intent(in), target :: param(5)
      integer, intent(out), optional :: status
    end subroutine

    ! Givens rotation (BLAS 3.10 drotg rules): on return a = r (the correctly
    ! rounded norm with the sign of the larger input), b = z, c = a / r and
    ! s = b / r (IEEE quotients by the rounded r).
    module subroutine exala_rotg(a, b, c, s, status)
      real(c_double), intent(inout), target :: a, b
      real(c_double), intent(out), target :: c, s
      integer, intent(out), optional :: status
    end subroutine

    ! -------------------- level 2: gemv, syr, syr2 (exala_blas2.f90)

    ! y = alpha op(A) x + beta y, each y_i rounded once from its exact value.
    ! trans 'N': size(x) = size(a, 2), size(y) = size(a, 1); 'T': the reverse.
    module subroutine exala_gemv_update(trans, alpha, a, x, beta, y, status)
      character(*), intent(in) :: trans
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in), target :: a(:,:), x(:)
      real(c_double), intent(inout), target :: y(:)
      integer, intent(out), optional :: status
    end subroutine

    ! A new vector op(A) x, each entry the exact dot product rounded once;
    ! trans 'N' (default) or 'T'. On failure without status: NaN entries.
    module function exala_gemv(a, x, trans, status) result(y)
      real(c_double), intent(in), target :: a(:,:), x(:)
      character(*), intent(in), optional :: trans
      integer, intent(out), optional :: status
      real(c_double), allocatable :: y(:)
    end function

    ! The uplo triangle of a = a + alpha x x^T, each entry rounded once.
    module subroutine exala_syr(uplo, alpha, x, a, status)
      character(*), intent(in) :: uplo
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in), target :: x(:)
      real(c_double), intent(inout), target :: a(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! The uplo triangle of a = a + alpha (x y^T + y x^T), each entry rounded once.
    module subroutine exala_syr2(uplo, alpha, x, y, a, status)
      character(*), intent(in) :: uplo
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in), target :: x(:), y(:)
      real(c_double), intent(inout), target :: a(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! -------------------- level 3: gemm and its family, trsm, trmm (exala_blas3.f90)

    ! C = alpha op(A) op(B) + beta C, each C_ij rounded once from its exact
    ! value. op(A) is m x k, op(B) k x n, C m x n.
    module subroutine exala_gemm_update(transa, transb, alpha, a, b, beta, c, status)
      character(*), intent(in) :: transa, transb
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in), target :: a(:,:), b(:,:)
      real(c_double), intent(inout), target :: c(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! A new matrix op(A) op(B), each entry the exact dot product rounded once;
    ! transa, transb 'N' (default) or 'T'. On failure without status: NaN.
    module function exala_gemm(a, b, transa, transb, status) result(c)
      real(c_double), intent(in), target :: a(:,:), b(:,:)
      character(*), intent(in), optional :: transa, transb
      integer, intent(out), optional :: status
      real(c_double), allocatable :: c(:,:)
    end function

    ! op(A) X = alpha B (side 'L') or X op(A) = alpha B (side 'R') in place in
    ! b; every column (row) bit-identical to exala_trsv's. a is triangular
    ! (only the uplo triangle read; diag 'U': unit diagonal, not read).
    module subroutine exala_trsm(side, uplo, trans, diag, alpha, a, b, status)
      character(*), intent(in) :: side, uplo, trans, diag
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: b(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! B = alpha op(A) B (side 'L') or alpha B op(A) ('R') in place; a
    ! triangular (only the uplo triangle read; diag 'U': unit, not read).
    module subroutine exala_trmm(side, uplo, trans, diag, alpha, a, b, status)
      character(*), intent(in) :: side, uplo, trans, diag
      real(c_double), intent(in) :: alpha
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: b(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! The uplo triangle of C = alpha op(A) op(A)^T + beta C (the other triangle
    ! is not touched); op(A) is n x k (trans 'N': a is n x k, 'T': k x n).
    module subroutine exala_syrk(uplo, trans, alpha, a, beta, c, status)
      character(*), intent(in) :: uplo, trans
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: c(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! The uplo triangle of C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C,
    ! ONE rounding per entry; b has the shape of a.
    module subroutine exala_syr2k(uplo, trans, alpha, a, b, beta, c, status)
      character(*), intent(in) :: uplo, trans
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in), target :: a(:,:), b(:,:)
      real(c_double), intent(inout), target :: c(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! C = alpha A B + beta C (side 'L') or alpha B A + beta C ('R'); a square
    ! and symmetric (only its uplo triangle read); c has the shape of b.
    module subroutine exala_symm(side, uplo, alpha, a, b, beta, c, status)
      character(*), intent(in) :: side, uplo
      real(c_double), intent(in) :: alpha, beta
      real(c_double), intent(in), target :: a(:,:), b(:,:)
      real(c_double), intent(inout), target :: c(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! -------------------- triangular solvers, condition, test problems (exala_solvers.f90)

    ! Reproducible triangular solve op(A) x = b in place (x holds b): each x_i
    ! the correctly rounded quotient of its exact numerator, so a representable
    ! solution is found exactly. An exact zero on a non-unit diagonal fails
    ! with EXALA_ERROR_SINGULAR (exala_last_error_index(): the row, from 1).
    module subroutine exala_trsv(uplo, trans, diag, a, x, status)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Compensated triangular solve (CENA, Langlois-Louvet): error ~ u + n cond
    ! u^2, the same bits on every kernel set.
    module subroutine exala_trsv_compensated(uplo, trans, diag, a, x, status)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Double-double triangular solve (XBLAS style): error ~ u + n cond u^2,
    ! the same bits on every kernel set.
    module subroutine exala_trsv_double_double(uplo, trans, diag, a, x, status)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! exala_trsv, then refinement with the exact residual: reproducible, <= 1
    ! ulp while cond u < 1/n. max_steps 0..100 (default 8); steps: the
    ! corrections that changed x; converged: a correction left x unchanged.
    module subroutine exala_trsv_exact_refined(uplo, trans, diag, a, x, max_steps, steps, &
                                               converged, status)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:)
      real(c_double), intent(inout), target :: x(:)
      integer, intent(in), optional :: max_steps
      integer, intent(out), optional :: steps
      logical, intent(out), optional :: converged
      integer, intent(out), optional :: status
    end subroutine

    ! Skeel's condition number cond(op(A), x) = || |op(A)^-1| |op(A)| |x| || /
    ! ||x|| (infinity norm), computed as exala/solvers.hpp describes.
    module function exala_skeel_condition(uplo, trans, diag, a, x, status) result(r)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:), x(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! The exact solution of op(A) x = b rounded to nearest, computed in MPFR
    ! (precision 0, the default: adaptive). EXALA_ERROR_NOT_COMPILED_IN
    ! without MPFR. x gets the solution; b is not changed.
    module subroutine exala_trsv_mpfr_solution(uplo, trans, diag, a, b, x, precision, status)
      character(*), intent(in) :: uplo, trans, diag
      real(c_double), intent(in), target :: a(:,:), b(:)
      real(c_double), intent(inout) :: x(:)
      integer, intent(in), optional :: precision
      integer, intent(out), optional :: status
    end subroutine

    ! An ill-conditioned lower-triangular test system with exact data: t (n x
    ! n, strict upper triangle zero) and b (n), for n = size(b), condition
    ! about cond, from the seed (the C generator; the same system for the
    ! same arguments everywhere).
    module subroutine exala_generate_ill_conditioned_trsv(cond, seed, t, b, status)
      real(c_double), intent(in) :: cond
      integer, intent(in) :: seed
      real(c_double), intent(inout) :: t(:,:)
      real(c_double), intent(inout) :: b(:)
      integer, intent(out), optional :: status
    end subroutine

    ! -------------------- type(exala_superaccumulator) (exala_superacc.f90)

    ! Exact: acc += x.
    module subroutine sa_add_scalar(this, x, status)
      class(exala_superaccumulator), intent(inout) :: this
      real(c_double), intent(in) :: x
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc += sum(x) (every element, any stride).
    module subroutine sa_add_array(this, x, status)
      class(exala_superaccumulator), intent(inout) :: this
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc += sum(|x_i|).
    module subroutine sa_add_abs(this, x, status)
      class(exala_superaccumulator), intent(inout) :: this
      real(c_double), intent(in), target :: x(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc += a * b (the product held without error).
    module subroutine sa_add_product_scalar(this, a, b, status)
      class(exala_superaccumulator), intent(inout) :: this
      real(c_double), intent(in) :: a, b
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc += sum(a_i * b_i); size(b) must equal size(a).
    module subroutine sa_add_product_array(this, a, b, status)
      class(exala_superaccumulator), intent(inout) :: this
      real(c_double), intent(in), target :: a(:), b(:)
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc += other (associative and commutative).
    module subroutine sa_merge(this, other, status)
      class(exala_superaccumulator), intent(inout) :: this
      class(exala_superaccumulator), intent(in) :: other
      integer, intent(out), optional :: status
    end subroutine

    ! Correctly rounded: the exact value rounded once in `rounding` (an
    ! EXALA_ROUND_* value; default to nearest even).
    module function sa_round(this, rounding, status) result(r)
      class(exala_superaccumulator), intent(in) :: this
      integer(c_int), intent(in), optional :: rounding
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Correctly rounded: the exact square root of the exact value, rounded
    ! once (NaN for a negative value).
    module function sa_round_sqrt(this, rounding, status) result(r)
      class(exala_superaccumulator), intent(in) :: this
      integer(c_int), intent(in), optional :: rounding
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Exact zero again.
    module subroutine sa_clear(this, status)
      class(exala_superaccumulator), intent(inout) :: this
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: acc = -acc.
    module subroutine sa_negate(this, status)
      class(exala_superaccumulator), intent(inout) :: this
      integer, intent(out), optional :: status
    end subroutine

    ! Exact: -1, 0 or +1, the sign of the exact finite value (special values
    ! ignored); -2 on failure.
    module function sa_sign(this, status) result(s)
      class(exala_superaccumulator), intent(in) :: this
      integer, intent(out), optional :: status
      integer :: s
    end function

    ! lhs = rhs: lhs gets its own copy of the exact value.
    module subroutine sa_assign(lhs, rhs)
      class(exala_superaccumulator), intent(inout) :: lhs
      class(exala_superaccumulator), intent(in) :: rhs
    end subroutine

    module subroutine sa_final(this)
      type(exala_superaccumulator), intent(inout) :: this
    end subroutine

    ! -------------------- type(exala_stripe_lu) and stripe files (out of core) (exala_stripe.f90)

    ! Reproducible in-core stripe LU of the square matrix a (copied; a is not
    ! changed): the bits depend only on A, the stripe heights, the pivoting
    ! and the BLAS. Replaces a previous factorization held by the object.
    ! EXALA_ERROR_SINGULAR_PIVOT for a singular matrix.
    module subroutine slu_factor(this, a, options, engine, status)
      class(exala_stripe_lu), intent(inout) :: this
      real(c_double), intent(in), target :: a(:,:)
      type(exala_stripe_lu_options), intent(in), optional :: options
      character(*), intent(in), optional :: engine
      integer, intent(out), optional :: status
    end subroutine

    ! Out of core: the system stored in the work directories dirs (dirs(1)
    ! holds the manifest; trailing blanks are not part of a name), factored
    ! (or a matching partial run resumed, options%resume).
    module subroutine slu_open(this, dirs, options, engine, status)
      class(exala_stripe_lu), intent(inout) :: this
      character(*), intent(in) :: dirs(:)
      type(exala_stripe_lu_options), intent(in), optional :: options
      character(*), intent(in), optional :: engine
      integer, intent(out), optional :: status
    end subroutine

    ! Frees the factorization (the object can factor or open again).
    module subroutine slu_release(this)
      class(exala_stripe_lu), intent(inout) :: this
    end subroutine

    module logical function slu_factored(this)
      class(exala_stripe_lu), intent(in) :: this
    end function

    ! The order n of the system; -1 on failure.
    module function slu_n(this, status) result(n)
      class(exala_stripe_lu), intent(in) :: this
      integer, intent(out), optional :: status
      integer(c_int64_t) :: n
    end function

    ! What the factorization did (sizes, times, I/O, cache, pivot ratio).
    module function slu_report(this, status) result(report)
      class(exala_stripe_lu), intent(in) :: this
      integer, intent(out), optional :: status
      type(exala_stripe_lu_report) :: report
    end function

    ! b := A^-1 b with the factors, in place (reproducible).
    module subroutine slu_solve_vec(this, b, status)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(inout), target :: b(:)
      integer, intent(out), optional :: status
    end subroutine

    ! B := A^-1 B for the columns of b (size(b, 1) = n), in place.
    module subroutine slu_solve_mat(this, b, status)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(inout), target :: b(:,:)
      integer, intent(out), optional :: status
    end subroutine

    ! x := the solution of A x = b refined against the exact residual (normwise
    ! backward error <= 2u when it converges); max_refine 0..100 (default 10).
    module subroutine slu_solve_refined_vec(this, b, x, max_refine, report, status)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(in), target :: b(:)
      real(c_double), intent(inout), target :: x(:)
      integer, intent(in), optional :: max_refine
      type(exala_refine_report), intent(inout), optional :: report
      integer, intent(out), optional :: status
    end subroutine

    ! As above for the columns of b and x (n x nrhs each).
    module subroutine slu_solve_refined_mat(this, b, x, max_refine, report, status)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(in), target :: b(:,:)
      real(c_double), intent(inout), target :: x(:,:)
      integer, intent(in), optional :: max_refine
      type(exala_refine_report), intent(inout), optional :: report
      integer, intent(out), optional :: status
    end subroutine

    ! Out of core: the stored right-hand sides solved (and refined when
    ! max_refine > 0, default 10) into x (n x nrhs; size(x, 2) must hold them
    ! all); nrhs gets their count.
    module subroutine slu_solve_stored(this, x, max_refine, nrhs, report, status)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(inout), target :: x(:,:)
      integer, intent(in), optional :: max_refine
      integer, intent(out), optional :: nrhs
      type(exala_refine_report), intent(inout), optional :: report
      integer, intent(out), optional :: status
    end subroutine

    ! Normwise backward error ||b - A x|| / (||A|| ||x|| + ||b||) with the
    ! exact residual.
    module function slu_backward_error_vec(this, b, x, status) result(r)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(in), target :: b(:), x(:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    module function slu_backward_error_mat(this, b, x, status) result(r)
      class(exala_stripe_lu), intent(in) :: this
      real(c_double), intent(in), target :: b(:,:), x(:,:)
      integer, intent(out), optional :: status
      real(c_double) :: r
    end function

    ! Copying a factorization is not supported: reports an error, changes
    ! nothing.
    module subroutine slu_assign(lhs, rhs)
      class(exala_stripe_lu), intent(inout) :: lhs
      class(exala_stripe_lu), intent(in) :: rhs
    end subroutine

    module subroutine slu_final(this)
      type(exala_stripe_lu), intent(inout) :: this
    end subroutine

    ! A random dense system of order n written as stripe files (stripe rows
    ! each, 0: chosen) into the work directories: cond == 0: entries uniform
    ! in [-0.5, 0.5]; cond >= 1: 2-norm condition about cond. Also x_true and
    ! B = A x_true (nrhs columns). overwrite: replace existing files.
    module subroutine exala_generate_dense_system(dirs, n, nrhs, seed, stripe, cond, overwrite, &
                                                  status)
      character(*), intent(in) :: dirs(:)
      integer, intent(in) :: n, nrhs, seed
      integer, intent(in), optional :: stripe
      real(c_double), intent(in), optional :: cond
      logical, intent(in), optional :: overwrite
      integer, intent(out), optional :: status
    end subroutine
  end interface

end module exala
