! test_fortran.f90 - the Fortran module `exala` (bindings/fortran): exact
! values known by construction, bit equality of strided sections and
! contiguous copies, gemv/gemm/trsv/trsm on small-integer data whose exact
! answer is computed in integer arithmetic, every error path with its code
! and a message naming the argument, the status-absent path (NaN, outputs
! untouched), the superaccumulator type, the stripe LU in core and out of
! core, the backends agreeing bit for bit, and a cross-check against the C
! API called directly (bind(c) interfaces declared here).
!
! Usage: test_fortran [scratch-directory]   (the out-of-core stripe LU
! writes its files there; default ./fortran_stripe_scratch). Counts the
! failed checks and ends with `error stop 1` when there is one.
module fortran_test_support
  use exala
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64, output_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_is_nan, ieee_value, ieee_quiet_nan
  implicit none
  integer :: failures = 0, checks = 0
  integer(int64) :: rng_state = 12345

  ! The C API itself, for the cross-check (what the module must reproduce).
  interface
    function capi_dot(n, x, incx, y, incy, ex, result) bind(c, name='exala_dot') result(status)
      import :: c_int, c_int64_t, c_double, c_ptr
      integer(c_int64_t), value :: n, incx, incy
      real(c_double), intent(in) :: x(*), y(*)
      type(c_ptr), value :: ex
      real(c_double), intent(out) :: result
      integer(c_int) :: status
    end function
    function capi_gemv(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy, ex) &
        bind(c, name='exala_gemv') result(status)
      import :: c_int, c_int64_t, c_double, c_ptr
      integer(c_int), value :: layout, trans
      integer(c_int64_t), value :: m, n, lda, incx, incy
      real(c_double), value :: alpha, beta
      real(c_double), intent(in) :: a(*), x(*)
      real(c_double), intent(inout) :: y(*)
      type(c_ptr), value :: ex
      integer(c_int) :: status
    end function
    function capi_gemm(layout, transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, ex) &
        bind(c, name='exala_gemm') result(status)
      import :: c_int, c_int64_t, c_double, c_ptr
      integer(c_int), value :: layout, transa, transb
      integer(c_int64_t), value :: m, n, k, lda, ldb, ldc
      real(c_double), value :: alpha, beta
      real(c_double), intent(in) :: a(*), b(*)
      real(c_double), intent(inout) :: c(*)
      type(c_ptr), value :: ex
      integer(c_int) :: status
    end function
    function capi_trsv_compensated(layout, uplo, trans, diag, n, a, lda, x, incx) &
        bind(c, name='exala_trsv_compensated') result(status)
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int) :: status
    end function
    function capi_trsv_double_double(layout, uplo, trans, diag, n, a, lda, x, incx) &
        bind(c, name='exala_trsv_double_double') result(status)
      import :: c_int, c_int64_t, c_double
      integer(c_int), value :: layout, uplo, trans, diag
      integer(c_int64_t), value :: n, lda, incx
      real(c_double), intent(in) :: a(*)
      real(c_double), intent(inout) :: x(*)
      integer(c_int) :: status
    end function
  end interface

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(*), intent(in) :: what
    checks = checks + 1
    if (.not. ok) then
      failures = failures + 1
      write (output_unit, '(a, a)') 'FAILED: ', what
    end if
  end subroutine

  ! Bit equality of two doubles / two arrays (via their integer images, so
  ! that -0 /= +0 and NaN payloads count).
  logical function same(a, b)
    real(c_double), intent(in) :: a, b
    same = transfer(a, 0_int64) == transfer(b, 0_int64)
  end function

  logical function same_vec(a, b)
    real(c_double), intent(in) :: a(:), b(:)
    integer :: i
    same_vec = size(a) == size(b)
    if (.not. same_vec) return
    do i = 1, size(a)
      if (.not. same(a(i), b(i))) then
        same_vec = .false.
        return
      end if
    end do
  end function

  logical function same_mat(a, b)
    real(c_double), intent(in) :: a(:,:), b(:,:)
    integer :: j
    same_mat = size(a, 1) == size(b, 1) .and. size(a, 2) == size(b, 2)
    if (.not. same_mat) return
    do j = 1, size(a, 2)
      if (.not. same_vec(a(:, j), b(:, j))) then
        same_mat = .false.
        return
      end if
    end do
  end function

  ! The message of the last failure contains `word`.
  logical function names(word)
    character(*), intent(in) :: word
    names = index(exala_last_error(), word) > 0
    if (.not. names) write (output_unit, '(a, a, a, a, a)') '  message "', exala_last_error(), &
                                                          '" does not name "', word, '"'
  end function

  ! Park-Miller: a reproducible integer in [0, 2^31 - 2].
  integer(int64) function next_int()
    rng_state = mod(rng_state * 48271_int64, 2147483647_int64)
    next_int = rng_state
  end function

  ! A small integer in [-k, k].
  integer(int64) function small_int(k)
    integer, intent(in) :: k
    small_int = mod(next_int(), int(2 * k + 1, int64)) - k
  end function

  ! A double with 31 random bits and a random binary exponent in [-e, e]:
  ! data where cancellation and rounding matter.
  real(c_double) function wide_double(e)
    integer, intent(in) :: e
    real(c_double) :: m
    m = real(next_int(), c_double) / 2147483647.0_c_double - 0.5_c_double
    wide_double = scale(m, int(small_int(e)))
  end function

  real(c_double) function pow2(e)
    integer, intent(in) :: e
    pow2 = scale(1.0_c_double, e)
  end function

end module fortran_test_support

program test_fortran
  use fortran_test_support
  implicit none
  character(4096) :: scratch
  integer :: status

  scratch = 'fortran_stripe_scratch'
  if (command_argument_count() >= 1) call get_command_argument(1, scratch)

  call test_constants()
  call test_exact_values()
  call test_elementwise()
  call test_empty()
  call test_strided_sections()
  call test_gemv_gemm()
  call test_triangular()
  call test_gemm_family()
  call test_errors()
  call test_status_absent()
  call test_superaccumulator()
  call test_stripe_lu_in_core()
  call test_stripe_lu_out_of_core(trim(scratch))
  call test_backends()
  call test_c_cross_check()
  call test_threads()
  status = exala_set_rounding('nearest')

  write (output_unit, '(i0, a, i0, a)') checks, ' checks, ', failures, ' failed'
  if (failures /= 0) error stop 1

contains

  ! ------------------------------------------------------------ constants
  subroutine test_constants()
    integer(c_int) :: major, minor, patch
    character(32) :: expected
    integer :: code
    ! The status enum mirrors exala.h by name and value: the C library names
    ! each Fortran value with the Fortran enumerator's own name.
    character(30), parameter :: status_names(0:10) = [character(30) :: 'EXALA_SUCCESS', &
        'EXALA_ERROR_INVALID_ARGUMENT', 'EXALA_ERROR_NOT_COMPILED_IN', 'EXALA_ERROR_SINGULAR', &
        'EXALA_ERROR_SINGULAR_PIVOT', 'EXALA_ERROR_STORAGE', 'EXALA_ERROR_FORMAT', &
        'EXALA_ERROR_OUT_OF_MEMORY', 'EXALA_ERROR_RUNTIME', 'EXALA_ERROR_INTERNAL', &
        'EXALA_ERROR_OVERFLOW']
    integer, parameter :: status_values(0:10) = [EXALA_SUCCESS, EXALA_ERROR_INVALID_ARGUMENT, &
        EXALA_ERROR_NOT_COMPILED_IN, EXALA_ERROR_SINGULAR, EXALA_ERROR_SINGULAR_PIVOT, &
        EXALA_ERROR_STORAGE, EXALA_ERROR_FORMAT, EXALA_ERROR_OUT_OF_MEMORY, &
        EXALA_ERROR_RUNTIME, EXALA_ERROR_INTERNAL, EXALA_ERROR_OVERFLOW]
    do code = 0, 10
      call check(exala_status_string(status_values(code)) == trim(status_names(code)), &
                 'status enumerator ' // trim(status_names(code)))
    end do
    call check(exala_backend_name(EXALA_BACKEND_REFERENCE) == 'reference', 'backend reference')
    call check(exala_backend_name(EXALA_BACKEND_SIMD) == 'simd', 'backend simd')
    call check(exala_backend_name(EXALA_BACKEND_OMP) == 'omp', 'backend omp')
    call check(exala_backend_name(EXALA_BACKEND_OPENCL) == 'opencl', 'backend opencl')
    call check(exala_backend_name(EXALA_BACKEND_CUDA) == 'cuda', 'backend cuda')
    call check(exala_backend_name(99_c_int) == '', 'backend 99 has no name')
    call exala_version_numbers(major, minor, patch)
    call check(major == EXALA_VERSION_MAJOR .and. minor == EXALA_VERSION_MINOR .and. &
               patch == EXALA_VERSION_PATCH, 'version numbers match the module')
    write (expected, '(i0, ".", i0, ".", i0)') major, minor, patch
    call check(exala_version() == trim(expected), 'exala_version() = ' // exala_version())
    call check(len(exala_kernel_set()) > 0, 'kernel set has a name')
  end subroutine

  ! ----------------------------------------------------- exact by construction
  subroutine test_exact_values()
    real(c_double) :: x(3), y(3), naive, s, e, u
    integer :: i, status
    u = pow2(-53)   ! the unit roundoff
    ! 1e300 + 1 - 1e300 = 1 exactly (the loop loses the 1).
    x = [1e300_c_double, 1.0_c_double, -1e300_c_double]
    naive = 0
    do i = 1, 3
      naive = naive + x(i)
    end do
    call check(naive == 0, 'the naive sum of [1e300, 1, -1e300] is 0 (the check means something)')
    call check(same(exala_sum(x), 1.0_c_double), 'sum [1e300, 1, -1e300] == 1')
    call check(same(exala_sum(x(3:1:-1)), 1.0_c_double), 'sum reversed == 1')
    ! dot: 1e16*1 + 1*1 + (-1e16)*1 = 1; the naive loop gives 0.
    x = [1e16_c_double, 1.0_c_double, -1e16_c_double]
    y = 1
    naive = 0
    do i = 1, 3
      naive = naive + x(i) * y(i)
    end do
    call check(naive == 0, 'naive dot is 0')
    call check(same(exala_dot(x, y), 1.0_c_double), 'dot == 1 exactly')
    ! Products that are not representable: (1 + 2^-30)^2 - 1 = 2^-29 + 2^-60.
    x = [1 + pow2(-30), -1.0_c_double, 0.0_c_double]
    y = [1 + pow2(-30), 1.0_c_double, 5.0_c_double]
    call check(same(exala_dot(x, y), pow2(-29) + pow2(-60)), 'dot with an inexact product')
    ! Ties to even and a far sticky bit: 1 + u is a tie (-> 1), 1 + u + u^2
    ! is above it (-> 1 + 2u).
    call check(same(exala_sum([1.0_c_double, u]), 1.0_c_double), 'sum tie to even')
    call check(same(exala_sum([1.0_c_double, u, u * u]), 1 + 2 * u), 'sum tie + sticky')
    call check(same(exala_sum([1.0_c_double, 3 * u]), 1 + 4 * u), 'sum tie to even, up')
    ! asum, nrm2 (IEEE sqrt is correctly rounded: sqrt(2) is the oracle).
    call check(same(exala_asum([-1.0_c_double, 2.0_c_double, -3.0_c_double]), 6.0_c_double), &
               'asum == 6')
    call check(same(exala_nrm2([3.0_c_double, -4.0_c_double]), 5.0_c_double), 'nrm2 [3,-4] == 5')
    call check(same(exala_nrm2([1.0_c_double, 1.0_c_double]), sqrt(2.0_c_double)), &
               'nrm2 [1,1] == sqrt(2) correctly rounded')
    ! nrm2 where the squares overflow: sqrt((3 2^900)^2 + (4 2^900)^2) is
    ! 5 2^900 exactly.
    call check(same(exala_nrm2([scale(3.0_c_double, 900), scale(4.0_c_double, 900)]), &
                    scale(5.0_c_double, 900)), 'nrm2 without overflow')
    ! Directed rounding through the default exec: 1 + 2^-60.
    status = exala_set_rounding(EXALA_ROUND_UPWARD)
    call check(status == EXALA_SUCCESS, 'set rounding upward')
    call check(same(exala_sum([1.0_c_double, pow2(-60)]), 1 + 2 * u), 'upward')
    status = exala_set_rounding('DownWard')
    call check(same(exala_sum([1.0_c_double, pow2(-60)]), 1.0_c_double), 'downward')
    call check(same(exala_sum([-1.0_c_double, -pow2(-60)]), -1 - 2 * u), 'downward, negative')
    status = exala_set_rounding('toward_zero')
    call check(same(exala_sum([-1.0_c_double, -pow2(-60)]), -1.0_c_double), 'toward zero')
    status = exala_set_rounding(EXALA_ROUND_NEAREST_EVEN)
    call check(same(exala_sum([1.0_c_double, pow2(-60)]), 1.0_c_double), 'nearest again')
    ! Error-free transforms, bind(c) directly: s + e == a + b exactly. (The
    ! call comes first: the outputs are read only after it returned.)
    status = exala_two_sum(1.0_c_double, u, s, e)
    call check(status == EXALA_SUCCESS .and. same(s, 1.0_c_double) .and. same(e, u), &
               'two_sum(1, u) = (1, u)')
    status = exala_two_prod(1 + pow2(-30), 1 + pow2(-30), s, e)
    call check(status == EXALA_SUCCESS .and. same(s, 1 + pow2(-29)) .and. same(e, pow2(-60)), &
               'two_prod')
    status = exala_two_product_dekker(1 + pow2(-30), 1 + pow2(-30), s, e)
    call check(status == EXALA_SUCCESS .and. same(s, 1 + pow2(-29)) .and. same(e, pow2(-60)), &
               'two_product_dekker')
    status = exala_split(1 + pow2(-52), s, e)
    call check(status == EXALA_SUCCESS .and. same(s + e, 1 + pow2(-52)) .and. &
               abs(e) <= pow2(-26), 'split')
  end subroutine

  ! -------------------------------------------------------- blas1 elementwise
  subroutine test_elementwise()
    real(c_double) :: x(4), y(4), y0(4)
    ! iamax counts from 1; the first of equal magnitudes; the first NaN.
    call check(exala_iamax([1.0_c_double, -5.0_c_double, 5.0_c_double, 2.0_c_double]) == 2, &
               'iamax first largest')
    call check(exala_iamax([real(c_double) ::]) == 0, 'iamax of an empty vector is 0')
    call check(exala_iamax([1.0_c_double, ieee_value(1.0_c_double, ieee_quiet_nan), &
                            3.0_c_double]) == 2, 'iamax finds the NaN')
    ! axpy rounds alpha x + y once: (1 + 2^-30)(1 + 2^-30) - 1 = 2^-29 + 2^-60
    ! (two roundings would give 2^-29).
    x = 1 + pow2(-30)
    y = -1
    call exala_axpy(1 + pow2(-30), x, y)
    call check(all(y == pow2(-29) + pow2(-60)), 'axpy rounds once')
    x = [1, 2, 3, 4]
    y = [10, 20, 30, 40]
    call exala_axpy(-2.0_c_double, x, y)
    call check(all(y == [8, 16, 24, 32]), 'axpy integers')
    call exala_scal(0.5_c_double, y)
    call check(all(y == [4, 8, 12, 16]), 'scal')
    y0 = y
    call exala_copy(x, y)
    call check(all(y == x), 'copy')
    y = y0
    call exala_swap(x, y)
    call check(all(x == y0) .and. all(y == [1, 2, 3, 4]), 'swap')
  end subroutine

  ! ------------------------------------------------ empty arrays (n = 0)
  ! Empty sums are exact zeros (+0); an empty inner dimension gives zero
  ! matrices; an empty solve succeeds and changes nothing.
  subroutine test_empty()
    real(c_double) :: e(0), a30(3, 0), a03(0, 3), e00(0, 0)
    real(c_double), allocatable :: v(:), c(:,:)
    integer :: status
    call check(same(exala_sum(e), 0.0_c_double), 'sum of nothing is +0')
    call check(same(exala_dot(e, e), 0.0_c_double), 'dot of nothing is +0')
    call check(same(exala_nrm2(e), 0.0_c_double), 'nrm2 of nothing is +0')
    v = exala_gemv(a30, e)
    call check(size(v) == 3 .and. same_vec(v, [0.0_c_double, 0.0_c_double, 0.0_c_double]), &
               'gemv with no columns')
    v = exala_gemv(a30, [1.0_c_double, 2.0_c_double, 3.0_c_double], 'T')
    call check(size(v) == 0, 'gemv T with no columns: empty result')
    c = exala_gemm(a30, a03)
    call check(size(c, 1) == 3 .and. size(c, 2) == 3, 'gemm k = 0 shape')
    call check(all(transfer(c, 0_int64, 9) == 0_int64), 'gemm k = 0: +0 entries')
    call exala_trsv('L', 'N', 'N', e00, e, status)
    call check(status == EXALA_SUCCESS, 'trsv n = 0')
  end subroutine

  ! --------------------------------------------- strided sections vs copies
  subroutine test_strided_sections()
    integer, parameter :: n = 37
    real(c_double), target :: big(2 * n), other(3 * n), mat(9, n)
    real(c_double), allocatable :: xs(:), ys(:), yc(:), ref(:)
    type :: point
      real(c_double) :: x, y
    end type
    type :: tagged
      sequence
      real(c_double) :: v
      character :: tag
    end type
    type(point) :: pts(n)
    type(tagged) :: tags(n)
    integer :: i, k
    do i = 1, 2 * n
      big(i) = wide_double(60)
    end do
    do i = 1, 3 * n
      other(i) = wide_double(60)
    end do
    do i = 1, n
      mat(:, i) = [(wide_double(40), k = 1, 9)]
      pts(i) = point(wide_double(30), wide_double(30))
      tags(i) = tagged(pts(i)%y, 'a')
    end do
    ! Reductions: stride 2, stride 3, reversed, a matrix row, a component.
    xs = big(1:2 * n:2)
    call check(same(exala_sum(big(1:2 * n:2)), exala_sum(xs)), 'sum stride 2')
    call check(same(exala_asum(big(1:2 * n:2)), exala_asum(xs)), 'asum stride 2')
    call check(same(exala_nrm2(big(1:2 * n:2)), exala_nrm2(xs)), 'nrm2 stride 2')
    call check(exala_iamax(big(1:2 * n:2)) == exala_iamax(xs), 'iamax stride 2')
    ys = other(3 * n:1:-3)
    call check(same(exala_dot(big(1:2 * n:2), other(3 * n:1:-3)), exala_dot(xs, ys)), &
               'dot stride 2 with stride -3')
    xs = big(2 * n:1:-1)
    call check(same(exala_sum(big(2 * n:1:-1)), exala_sum(xs)), 'sum reversed')
    call check(exala_iamax(big(2 * n:1:-1)) == exala_iamax(xs), 'iamax reversed')
    xs = mat(4, :)
    call check(same(exala_sum(mat(4, :)), exala_sum(xs)), 'sum of a matrix row')
    call check(same(exala_dot(mat(4, :), mat(7, :)), exala_dot(xs, [mat(7, :)])), 'dot of rows')
    xs = pts%y
    call check(same(exala_sum(pts%y), exala_sum(xs)), 'sum of a component (stride 2)')
    call check(same(exala_dot(pts%x, pts%y), exala_dot([pts%x], xs)), 'dot of components')
    call check(same(exala_sum(tags%v), exala_sum(xs)), 'sum of a sequence-type component')
    ! Outputs through strides: axpy, scal, copy, swap into other(1:3n:3)
    ! leave the elements between untouched and equal the contiguous result.
    ref = other
    yc = other(1:3 * n:3)
    call exala_axpy(1.5_c_double, big(2 * n:1:-2), other(1:3 * n:3))
    call exala_axpy(1.5_c_double, [big(2 * n:1:-2)], yc)
    call check(same_vec(other(1:3 * n:3), yc), 'axpy into stride 3 from stride -2')
    call check(same_vec(other(2:3 * n:3), ref(2:3 * n:3)) .and. &
               same_vec(other(3:3 * n:3), ref(3:3 * n:3)), 'axpy leaves the gaps alone')
    call exala_scal(pow2(-3) * 3, other(3 * n - 2:1:-3))
    call exala_scal(pow2(-3) * 3, yc)
    call check(same_vec(other(1:3 * n:3), yc), 'scal reversed stride')
    ref = other
    xs = mat(2, :)
    call exala_swap(mat(2, :), other(2:3 * n:3))
    call check(same_vec(mat(2, :), ref(2:3 * n:3)) .and. same_vec(other(2:3 * n:3), xs), &
               'swap a row with a stride-3 section')
    call exala_copy(tags%v, other(3:3 * n:3))
    call check(same_vec(other(3:3 * n:3), pts%y), 'copy from a component')
  end subroutine

  ! ------------------------------------------------- gemv and gemm, exactly
  subroutine test_gemv_gemm()
    integer, parameter :: m = 7, n = 5, k = 6
    integer(int64) :: ia(m, k), ib(k, n), ic(m, n), ix(k), iy(m)
    real(c_double), target :: big(2 * m + 3, 3 * k)
    real(c_double) :: a(m, k), b(k, n), c(m, n), x(k), y(m), row(3), ones(3)
    real(c_double), allocatable :: r(:), rc(:,:), at(:,:), bt(:,:), ref(:,:)
    integer :: i, j
    do j = 1, k
      do i = 1, m
        ia(i, j) = small_int(9)
      end do
      ix(j) = small_int(9)
      do i = 1, n
        ib(j, i) = small_int(9)
      end do
    end do
    do i = 1, m
      iy(i) = small_int(9)
    end do
    a = real(ia, c_double)
    b = real(ib, c_double)
    x = real(ix, c_double)
    ! The exact answers in integer arithmetic (all exact in double).
    r = exala_gemv(a, x)
    call check(same_vec(r, real(matmul(ia, ix), c_double)), 'gemv N exact')
    r = exala_gemv(a, real(iy, c_double), 't')
    call check(same_vec(r, real(matmul(iy, ia), c_double)), 'gemv T exact')
    y = real(iy, c_double)
    call exala_gemv_update('N', 2.0_c_double, a, x, -3.0_c_double, y)
    call check(same_vec(y, real(2 * matmul(ia, ix) - 3 * iy, c_double)), 'gemv update')
    rc = exala_gemm(a, b)
    call check(same_mat(rc, real(matmul(ia, ib), c_double)), 'gemm NN exact')
    at = transpose(a)
    bt = transpose(b)
    call check(same_mat(exala_gemm(at, b, 'T'), rc), 'gemm TN')
    call check(same_mat(exala_gemm(a, bt, transb='t'), rc), 'gemm NT')
    call check(same_mat(exala_gemm(at, bt, 'T', 'T'), rc), 'gemm TT')
    ic = matmul(ia, ib)
    c = real(ic, c_double)
    call exala_gemm_update('N', 'N', -1.0_c_double, a, b, 2.0_c_double, c)
    call check(same_mat(c, real(ic, c_double)), 'gemm update: 2C - AB = AB')
    ! Correct rounding where the naive product fails: [1e16, 1, -1e16].1 = 1.
    row = [1e16_c_double, 1.0_c_double, -1e16_c_double]
    ones = 1
    r = exala_gemv(reshape(row, [1, 3]), ones)
    call check(same_vec(r, [1.0_c_double]), 'gemv one rounding of the exact value')
    rc = exala_gemm(reshape(row, [1, 3]), reshape(ones, [3, 1]))
    call check(same(rc(1, 1), 1.0_c_double), 'gemm one rounding of the exact value')
    ! Sections of a bigger array: a(1:m, :) in place (lda = 2m + 3) and
    ! a(1:2m:2, :) packed give the contiguous results' bits.
    do j = 1, 3 * k
      do i = 1, 2 * m + 3
        big(i, j) = wide_double(50)
      end do
    end do
    a = big(1:m, 1:k)
    call check(same_vec(exala_gemv(big(1:m, 1:k), x), exala_gemv(a, x)), 'gemv lda > m')
    call check(same_vec(exala_gemv(big(2:m + 1, 1:k), big(3, 1:k)), &
                        exala_gemv(big(2:m + 1, 1:k), [big(3, 1:k)])), 'gemv x = a row')
    a = big(1:2 * m:2, 1:3 * k:3)
    call check(same_vec(exala_gemv(big(1:2 * m:2, 1:3 * k:3), x), exala_gemv(a, x)), &
               'gemv strided rows and columns')
    call check(same_mat(exala_gemm(big(1:2 * m:2, 1:3 * k:3), big(1:k, 2:n + 1)), &
                        exala_gemm(a, big(1:k, 2:n + 1))), 'gemm strided sections')
    ! gemm_update writes a section in place (ldc = 2m + 3) or through a
    ! packed copy (every other row); the rest of big stays as it was.
    ref = big
    rc = big(m + 1:2 * m, 1:n)
    call exala_gemm_update('N', 'N', 0.75_c_double, a, b, -1.25_c_double, big(m + 1:2 * m, 1:n))
    call exala_gemm_update('N', 'N', 0.75_c_double, a, b, -1.25_c_double, rc)
    call check(same_mat(big(m + 1:2 * m, 1:n), rc), 'gemm update of a section in place')
    call check(same_mat(big(1:m, :), ref(1:m, :)) .and. &
               same_mat(big(2 * m + 1:, :), ref(2 * m + 1:, :)) .and. &
               same_mat(big(:, n + 1:), ref(:, n + 1:)), 'gemm update: the rest untouched')
    ref = big
    rc = big(1:2 * m:2, 1:n)
    call exala_gemm_update('N', 'N', 0.75_c_double, a, b, -1.25_c_double, big(1:2 * m:2, 1:n))
    call exala_gemm_update('N', 'N', 0.75_c_double, a, b, -1.25_c_double, rc)
    call check(same_mat(big(1:2 * m:2, 1:n), rc), 'gemm update of a packed section')
    call check(same_mat(big(2:2 * m:2, :), ref(2:2 * m:2, :)) .and. &
               same_mat(big(:, n + 1:), ref(:, n + 1:)), 'packed update: rows between untouched')
  end subroutine

  ! ---------------------------------------------- triangular solves, exactly
  subroutine test_triangular()
    integer, parameter :: n = 9, nrhs = 4
    integer(int64) :: it(n, n), ix(n), ixs(n, nrhs)
    real(c_double) :: t(n, n), b(n), x(n), bm(n, nrhs), xm(n, nrhs), bigx(3 * n)
    real(c_double) :: cond, tg(n, n), bg(n), xmpfr(n), xc(n), d(n), xe(n)
    character(1) :: ul, tr, dg
    integer :: i, j, iu, itr, idg, steps, status
    logical :: converged
    ! Every uplo/trans/diag: an integer triangle with diagonal +-1 and an
    ! integer solution; b = op(T) x in integer arithmetic; each solver must
    ! return x exactly (a representable solution is found exactly).
    do iu = 1, 2
      do itr = 1, 2
        do idg = 1, 2
          ul = 'UL'(iu:iu)
          tr = 'NT'(itr:itr)
          dg = 'NU'(idg:idg)
          it = 0
          do j = 1, n
            do i = 1, n
              if ((ul == 'L' .and. i > j) .or. (ul == 'U' .and. i < j)) it(i, j) = small_int(3)
            end do
            it(j, j) = merge(1_int64, -1_int64, mod(next_int(), 2_int64) == 0)
            ix(j) = small_int(50)
          end do
          t = real(it, c_double)
          if (dg == 'U') then
            do j = 1, n
              it(j, j) = 1
              t(j, j) = 1e300_c_double   ! must not be read
            end do
          end if
          if (tr == 'N') then
            b = real(matmul(it, ix), c_double)
          else
            b = real(matmul(ix, it), c_double)
          end if
          ! The expected bits: x_i = (exact numerator) / T_ii rounded once,
          ! the numerator being the integer ix_i * T_ii: ix_i itself, and for
          ! ix_i = 0 the exact zero (+0) over T_ii, which is -0 for T_ii = -1
          ! (IEEE division; a unit diagonal is not divided by).
          do i = 1, n
            d(i) = real(it(i, i), c_double)
          end do
          xe = merge(real(ix, c_double), 0.0_c_double / d, ix /= 0)
          x = b
          call exala_trsv(ul, tr, dg, t, x)
          call check(same_vec(x, xe), 'trsv exact ' // ul // tr // dg)
          ! Refinement: the same values (the sign of a zero entry after a
          ! correction step is not part of its contract, so == here).
          x = b
          call exala_trsv_exact_refined(ul, tr, dg, t, x, steps=steps, converged=converged)
          call check(all(x == xe) .and. converged, 'trsv_exact_refined ' // ul // tr // dg)
          ! Strided right-hand side: every third element of a bigger array.
          bigx = -7
          bigx(3 * n:1:-3) = b
          call exala_trsv(ul, tr, dg, t, bigx(3 * n:1:-3))
          call check(same_vec(bigx(3 * n:1:-3), xe) .and. &
                     all(bigx(1:3 * n:3) == -7), 'trsv reversed stride ' // ul // tr // dg)
          ! trsm, left: every column is an exact trsv.
          do j = 1, nrhs
            ixs(:, j) = [(small_int(20), i = 1, n)]
          end do
          if (tr == 'N') then
            bm = real(matmul(it, ixs), c_double)
          else
            bm = real(matmul(transpose(it), ixs), c_double)
          end if
          xm = 2 * bm
          call exala_trsm('L', ul, tr, dg, 0.5_c_double, t, xm)
          call check(same_mat(xm, merge(real(ixs, c_double), 0.0_c_double / spread(d, 2, nrhs), &
                                        ixs /= 0)), &
                     'trsm left ' // ul // tr // dg)
          ! trsm, right: X op(T) = B with X = ixs^T, B = (op(T)^T ixs)^T.
          block
            real(c_double) :: xr(nrhs, n)
            xr = transpose(real(matmul(merge(transpose(it), it, tr == 'N'), ixs), c_double))
            call exala_trsm('R', ul, tr, dg, 1.0_c_double, t, xr)
            call check(same_mat(xr, transpose(merge(real(ixs, c_double), &
                                                    0.0_c_double / spread(d, 2, nrhs), ixs /= 0))), &
                       'trsm right ' // ul // tr // dg)
          end block
          ! Compensated and double-double: the same bits as the C API's,
          ! with a strided x against a contiguous copy.
          x = b
          call exala_trsv_compensated(ul, tr, dg, t, x)
          xc = b
          call check(capi_trsv_compensated(EXALA_COL_MAJOR, merge(EXALA_UPPER, EXALA_LOWER, &
              ul == 'U'), merge(EXALA_NO_TRANS, EXALA_TRANS, tr == 'N'), merge(EXALA_NON_UNIT, &
              EXALA_UNIT, dg == 'N'), int(n, c_int64_t), t, int(n, c_int64_t), xc, 1_c_int64_t) &
              == EXALA_SUCCESS, 'C trsv_compensated')
          call check(same_vec(x, xc), 'trsv_compensated == C ' // ul // tr // dg)
          x = b
          call exala_trsv_double_double(ul, tr, dg, t, x)
          xc = b
          call check(capi_trsv_double_double(EXALA_COL_MAJOR, merge(EXALA_UPPER, EXALA_LOWER, &
              ul == 'U'), merge(EXALA_NO_TRANS, EXALA_TRANS, tr == 'N'), merge(EXALA_NON_UNIT, &
              EXALA_UNIT, dg == 'N'), int(n, c_int64_t), t, int(n, c_int64_t), xc, 1_c_int64_t) &
              == EXALA_SUCCESS, 'C trsv_double_double')
          call check(same_vec(x, xc), 'trsv_double_double == C ' // ul // tr // dg)
        end do
      end do
    end do
    ! An ill-conditioned system (cond 1e8, exact data from the generator):
    ! exala_trsv's result is reproducible; the MPFR solution rounded to
    ! nearest is the oracle that refinement reaches (cond u < 1/n).
    call exala_generate_ill_conditioned_trsv(1e8_c_double, 7, tg, bg, status=status)
    call check(status == EXALA_SUCCESS, 'generate ill-conditioned trsv')
    call check(all([((tg(i, j) == 0, i = 1, j - 1), j = 2, n)]), &
               'the generated matrix is lower triangular')
    call exala_trsv_mpfr_solution('L', 'N', 'N', tg, bg, xmpfr, status=status)
    if (status == EXALA_ERROR_NOT_COMPILED_IN) then
      write (output_unit, '(a)') 'note: MPFR not compiled in; the MPFR oracle check is skipped'
    else
      call check(status == EXALA_SUCCESS, 'mpfr solution')
      x = bg
      call exala_trsv_exact_refined('L', 'N', 'N', tg, x, max_steps=20, steps=steps, &
                                    converged=converged)
      call check(converged, 'refinement converged')
      cond = exala_skeel_condition('L', 'N', 'N', tg, x)
      call check(cond >= 1 .and. cond < 1 / (n * pow2(-53)), 'skeel condition in range')
      ! <= 1 ulp from the correctly rounded solution (solvers.hpp's bound).
      do i = 1, n
        call check(abs(x(i) - xmpfr(i)) <= spacing(xmpfr(i)), 'refined within 1 ulp')
      end do
    end if
  end subroutine

  ! ----------------------------------------------------------- error paths
  ! ------------------------------------------ the gemm family (issue 17)
  ! syrk, syr2k, symm, trmm, syr, syr2 on integer data (every result exact,
  ! so matmul on integers gives the bits), the other triangle untouched;
  ! rotm, rotg; argument errors named.
  subroutine test_gemm_family()
    integer(int64) :: ia(5, 3), ib(3, 5), is(4, 4), ibm(3, 4), ix(4), iy(4)
    real(c_double) :: a(5, 3), b(3, 5), at(3, 5), c(5, 5), s4(4, 4), bm(3, 4), cm(3, 4)
    real(c_double) :: t4(4, 4), b4(4, 3), xs(8), y(4), a4(4, 4), want4(4, 4)
    real(c_double) :: x2(3), y2(3), param(5), r, z, cc, ss
    integer :: i, j, status
    logical :: ok
    do j = 1, 3
      do i = 1, 5
        ia(i, j) = small_int(4)
        ib(j, i) = small_int(4)
      end do
    end do
    a = real(ia, c_double)
    b = real(ib, c_double)
    ! syrk 'U', 'N': C = 2 A A^T + 0 C on the upper triangle
    c = 7.0_c_double
    call exala_syrk('U', 'N', 2.0_c_double, a, 0.0_c_double, c, status)
    ok = status == EXALA_SUCCESS
    do j = 1, 5
      do i = 1, 5
        if (i <= j) then
          ok = ok .and. c(i, j) == real(2 * sum(ia(i, :) * ia(j, :)), c_double)
        else
          ok = ok .and. c(i, j) == 7.0_c_double
        end if
      end do
    end do
    call check(ok, 'exala_syrk upper triangle exact, lower untouched')
    ! syr2k 'L', 'T': op(A) = a^T with a 3 x 5: C = A^T B + B^T A, beta 1
    at = transpose(a)
    c = 1.0_c_double
    call exala_syr2k('l', 'T', 1.0_c_double, at, b, 1.0_c_double, c, status)
    ok = status == EXALA_SUCCESS
    do j = 1, 5
      do i = 1, 5
        if (i >= j) then
          ok = ok .and. c(i, j) == real(sum(ia(i, :) * ib(:, j)) + sum(ib(:, i) * ia(j, :)) + 1, &
                                       c_double)
        else
          ok = ok .and. c(i, j) == 1.0_c_double
        end if
      end do
    end do
    call check(ok, 'exala_syr2k lower triangle exact, upper untouched')
    ! symm 'R', 'L': C = B S with S symmetric from its lower triangle
    do j = 1, 4
      do i = 1, 4
        is(i, j) = small_int(5)
      end do
    end do
    do j = 1, 4
      do i = 1, j - 1
        is(i, j) = is(j, i)
      end do
    end do
    s4 = real(is, c_double)
    do j = 1, 4
      do i = 1, j - 1
        s4(i, j) = 1e300_c_double   ! not read
      end do
    end do
    do j = 1, 4
      do i = 1, 3
        ibm(i, j) = small_int(3)
      end do
    end do
    bm = real(ibm, c_double)
    cm = 0
    call exala_symm('R', 'L', 1.0_c_double, s4, bm, 0.0_c_double, cm, status)
    call check(status == EXALA_SUCCESS .and. same_mat(cm, real(matmul(ibm, is), c_double)), &
               'exala_symm right lower exact')
    ! trmm 'L', 'U', 'T', 'N': B = op(T) B with T the upper triangle
    t4 = s4
    do j = 1, 4
      do i = j + 1, 4
        t4(i, j) = 1e300_c_double   ! not read
      end do
    end do
    do j = 1, 4
      do i = 1, 4
        if (i > j) is(i, j) = 0
      end do
    end do
    do j = 1, 3
      do i = 1, 4
        b4(i, j) = real(small_int(3), c_double)
      end do
    end do
    want4(:, 1:3) = real(matmul(transpose(is), nint(b4, int64)), c_double)
    do j = 1, 4
      do i = 1, j
        t4(i, j) = real(is(i, j), c_double)
      end do
    end do
    call exala_trmm('L', 'U', 'T', 'N', 1.0_c_double, t4, b4, status)
    call check(status == EXALA_SUCCESS .and. same_mat(b4, want4(:, 1:3)), &
               'exala_trmm left upper transposed exact')
    ! syr on a strided section, syr2: the upper triangle only
    do i = 1, 4
      ix(i) = small_int(4)
      iy(i) = small_int(4)
    end do
    xs = 99
    xs(1:8:2) = real(ix, c_double)
    y = real(iy, c_double)
    a4 = 5.0_c_double
    call exala_syr('U', 2.0_c_double, xs(1:8:2), a4, status)
    call exala_syr2('U', -1.0_c_double, xs(1:8:2), y, a4, status)
    ok = status == EXALA_SUCCESS
    do j = 1, 4
      do i = 1, 4
        if (i <= j) then
          ok = ok .and. a4(i, j) == real(5 + 2 * ix(i) * ix(j) - (ix(i) * iy(j) + iy(i) * ix(j)), &
                                         c_double)
        else
          ok = ok .and. a4(i, j) == 5.0_c_double
        end if
      end do
    end do
    call check(ok, 'exala_syr / exala_syr2 upper triangle exact, lower untouched')
    ! rotm (flag 0: H = [1 h12; h21 1]) and rotg (3, 4)
    x2 = [1.0_c_double, 2.0_c_double, 3.0_c_double]
    y2 = [4.0_c_double, -1.0_c_double, 0.5_c_double]
    param = [0.0_c_double, 9.0_c_double, 2.0_c_double, -3.0_c_double, 9.0_c_double]
    call exala_rotm(x2, y2, param, status)
    call check(status == EXALA_SUCCESS .and. &
               same_vec(x2, [1.0_c_double - 12.0_c_double, 2.0_c_double + 3.0_c_double, &
                             3.0_c_double - 1.5_c_double]) .and. &
               same_vec(y2, [2.0_c_double + 4.0_c_double, 4.0_c_double - 1.0_c_double, &
                             6.0_c_double + 0.5_c_double]), 'exala_rotm flag 0')
    r = 3
    z = 4
    call exala_rotg(r, z, cc, ss, status)
    call check(status == EXALA_SUCCESS .and. r == 5.0_c_double .and. cc == 0.6_c_double .and. &
               ss == 0.8_c_double .and. same(z, 1.0_c_double / 0.6_c_double), 'exala_rotg (3, 4)')
    ! errors: a bad option, a wrong shape
    call exala_syrk('X', 'N', 1.0_c_double, a, 0.0_c_double, c, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('uplo'), 'exala_syrk bad uplo')
    call exala_syrk('U', 'T', 1.0_c_double, a, 0.0_c_double, c, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('c, 1'), 'exala_syrk shape')
    param(1) = 5
    call exala_rotm(x2, y2, param, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('param'), 'exala_rotm flag')
  end subroutine

  subroutine test_errors()
    real(c_double) :: a(3, 3), a23(2, 3), x(3), x0(3), y(2), r, b(3, 2)
    real(c_double), allocatable :: v(:), c(:,:)
    integer :: status
    a = reshape([2, 1, 1, 0, 3, 1, 0, 0, 4], [3, 3])
    x = [1, 2, 3]
    x0 = x
    ! Bad character options name their argument; outputs untouched.
    call exala_trsv('Q', 'N', 'N', a, x, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('uplo') .and. names("'Q'"), &
               'bad uplo')
    call check(same_vec(x, x0), 'bad uplo leaves x untouched')
    call exala_trsv('L', 'x', 'N', a, x, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('trans'), 'bad trans')
    call exala_trsv('L', 'N', 'Z', a, x, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('diag'), 'bad diag')
    call exala_trsv('L', '', 'N', a, x, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('trans'), 'empty trans')
    b = 1
    call exala_trsm('M', 'L', 'N', 'N', 1.0_c_double, a, b, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('side'), 'bad side')
    v = exala_gemv(a, x, 'Y', status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('trans'), 'gemv bad trans')
    c = exala_gemm(a, a, 'N', 'P', status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('transb'), 'gemm bad transb')
    ! Lower case is accepted (as in BLAS).
    call exala_trsv('l', 'n', 'n', a, x, status)
    call check(status == EXALA_SUCCESS .and. exala_last_error() == '', 'lower-case options')
    ! Size mismatches name the array.
    r = exala_dot(x, y, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(y)') .and. &
               ieee_is_nan(r), 'dot size mismatch')
    call exala_axpy(1.0_c_double, x, y, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(y)'), 'axpy size')
    v = exala_gemv(a, y, status=status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(x)'), 'gemv size(x)')
    a23 = 1
    c = exala_gemm(a23, a23, status=status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('op(b)'), 'gemm inner size')
    call exala_trsv('L', 'N', 'N', a23, x, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('not square'), 'trsv a not square')
    call exala_trsv('L', 'N', 'N', a, y, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(x)'), 'trsv size(x)')
    call exala_trsm('R', 'L', 'N', 'N', 1.0_c_double, a, b, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(b, 2)'), 'trsm right size')
    ! A zero on the diagonal: singular, index of the row counting from 1.
    a(3, 3) = 0
    x = x0
    call exala_trsv('L', 'N', 'N', a, x, status)
    call check(status == EXALA_ERROR_SINGULAR, 'singular trsv status')
    call check(exala_last_error_index() == 3, 'singular trsv row 3 (from 1)')
    call check(names('exala_trsv'), 'singular message names the routine')
    call check(same_vec(x, x0), 'singular trsv leaves x untouched')
    a(3, 3) = 4
    ! Backend and rounding selection.
    status = exala_set_backend('bogus')
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('bogus'), 'invalid backend name')
    status = exala_set_backend(99_c_int)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('99'), 'invalid backend value')
    status = exala_set_rounding('sideways')
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('mode') .and. &
               names('sideways'), 'invalid rounding name')
    status = exala_set_rounding(17_c_int)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('17'), 'invalid rounding value')
    ! A direct bind(c) call's failure after a wrapper's: the newer message.
    call exala_trsv('Q', 'N', 'N', a, x, status)
    status = exala_set_threads(-1_c_int)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('threads') .and. &
               index(exala_last_error(), 'uplo') == 0, 'direct call message wins')
    ! A success clears the message.
    r = exala_sum(x, status)
    call check(status == EXALA_SUCCESS .and. exala_last_error() == '' .and. &
               exala_last_error_index() == -1, 'success clears the message')
    ! exala_status_string of every code the tests saw.
    call check(exala_status_string(EXALA_ERROR_SINGULAR) == 'EXALA_ERROR_SINGULAR', 'status name')
  end subroutine

  ! -------------------------------------------- status absent: NaN, untouched
  subroutine test_status_absent()
    real(c_double) :: a(2, 2), x(2), y(3), x0(2), r
    real(c_double), allocatable :: v(:), c(:,:)
    write (output_unit, '(a)') 'note: the next lines on stderr are expected error messages'
    a = reshape([1, 1, 0, 0], [2, 2])
    x = [1, 2]
    x0 = x
    y = 1
    r = exala_dot(x, y)
    call check(ieee_is_nan(r), 'dot without status returns NaN')
    call check(names('size(y)'), 'and keeps the message')
    r = exala_sum(x)
    call check(.not. ieee_is_nan(r) .and. exala_last_error() == '', 'success after a failure')
    v = exala_gemv(a, y)
    call check(size(v) == 2, 'gemv failure result has the size of op(a) rows')
    call check(all(ieee_is_nan(v)), 'gemv without status: NaN')
    c = exala_gemm(a, reshape(y, [3, 1]))
    call check(size(c, 1) == 2 .and. size(c, 2) == 1, 'gemm failure result shape')
    call check(all(ieee_is_nan(c)), 'gemm without status: NaN')
    call exala_trsv('L', 'N', 'N', a, x)     ! a(2, 2) == 0: singular
    call check(same_vec(x, x0), 'singular trsv without status: x untouched')
    call check(exala_last_error_index() == 2, 'singular row 2')
    call exala_axpy(2.0_c_double, y, x)
    call check(same_vec(x, x0), 'axpy size mismatch: y untouched')
    call check(exala_iamax(x) == 2, 'iamax')
  end subroutine

  ! -------------------------------------------------------- superaccumulator
  subroutine test_superaccumulator()
    type(exala_superaccumulator) :: acc, part1, part2, copy_of
    real(c_double) :: x(100), y(100), u
    integer :: i, status
    u = pow2(-53)
    call check(same(acc%round(), 0.0_c_double), 'a fresh accumulator holds 0')
    call check(acc%sign() == 0, 'sign of zero')
    call acc%add(1e300_c_double)
    call acc%add(1.0_c_double)
    call acc%add(-1e300_c_double)
    call check(same(acc%round(), 1.0_c_double), 'superacc 1e300 + 1 - 1e300 == 1')
    call acc%clear()
    call acc%add(1.0_c_double)
    call acc%add(pow2(-60))
    call check(same(acc%round(), 1.0_c_double), 'round nearest')
    call check(same(acc%round(EXALA_ROUND_UPWARD), 1 + 2 * u), 'round upward')
    call check(same(acc%round(EXALA_ROUND_DOWNWARD), 1.0_c_double), 'round downward')
    call check(same(acc%round(EXALA_ROUND_TOWARD_ZERO), 1.0_c_double), 'round toward zero')
    call acc%negate()
    call check(acc%sign() == -1 .and. same(acc%round(EXALA_ROUND_DOWNWARD), -1 - 2 * u), 'negate')
    r_bad: block
      real(c_double) :: r
      r = acc%round(42_c_int, status)
      call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. ieee_is_nan(r) .and. names('42'), &
                 'round with a bad mode')
    end block r_bad
    ! Arrays, products, merge: the same exact value as exala_dot / exala_sum.
    do i = 1, 100
      x(i) = wide_double(200)
      y(i) = wide_double(200)
    end do
    call acc%clear()
    call acc%add_product(x, y)
    call check(same(acc%round(), exala_dot(x, y)), 'add_product(array) == dot')
    call part1%add_product(x(1:50), y(1:50))
    do i = 51, 100
      call part2%add_product(x(i), y(i))
    end do
    call part1%merge(part2)
    call check(same(part1%round(), exala_dot(x, y)), 'merge of two halves == dot')
    call part2%clear()
    call part2%add(x(100:1:-1))
    call check(same(part2%round(), exala_sum(x)), 'add(array) == sum')
    call part2%clear()
    call part2%add_abs(x(1:100:3))
    call check(same(part2%round(), exala_asum(x(1:100:3))), 'add_abs == asum')
    ! round_sqrt: sqrt of the exact sum 1 + 1 = sqrt(2) correctly rounded.
    call part2%clear()
    call part2%add([1.0_c_double, 1.0_c_double])
    call check(same(part2%round_sqrt(), sqrt(2.0_c_double)), 'round_sqrt')
    ! Assignment copies the exact value; the copies are independent.
    copy_of = acc
    call copy_of%add(1.0_c_double)
    call check(same(acc%round(), exala_dot(x, y)), 'assignment: source unchanged')
    call acc%add(1.0_c_double)
    call check(same(copy_of%round(), acc%round()), 'assignment copied the exact value')
    ! Sizes must agree.
    call acc%add_product(x, y(1:3), status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(b)'), 'add_product sizes')
    ! Many short-lived accumulators (the final procedure frees each handle).
    do i = 1, 2000
      call scoped_accumulator(x(1 + mod(i, 100)))
    end do
  end subroutine

  subroutine scoped_accumulator(v)
    real(c_double), intent(in) :: v
    type(exala_superaccumulator) :: local
    call local%add(v)
    if (.not. same(local%round(), v)) call check(.false., 'scoped accumulator')
  end subroutine

  ! --------------------------------------------------------- stripe LU, in core
  subroutine test_stripe_lu_in_core()
    integer, parameter :: n = 60, nrhs = 3
    type(exala_stripe_lu) :: lu, lu2, empty
    type(exala_stripe_lu_options) :: opt
    type(exala_stripe_lu_report) :: rep
    type(exala_refine_report) :: rr
    real(c_double) :: a(n, n), xt(n), b(n), x(n), x1(n), bm(n, nrhs), xm(n, nrhs), berr
    real(c_double) :: big(2 * n, nrhs), zero(4, 4), nonsq(3, 4)
    integer :: i, j, status
    do j = 1, n
      do i = 1, n
        a(i, j) = real(next_int(), c_double) / 2147483647.0_c_double - 0.5_c_double
      end do
      xt(j) = real(small_int(100), c_double)
    end do
    b = exala_gemv(a, xt)
    call lu%factor(a, status=status)
    call check(status == EXALA_SUCCESS .and. lu%factored(), 'stripe LU factor in core')
    call check(lu%n() == n, 'lu%n')
    rep = lu%report()
    call check(rep%n == n .and. rep%in_core == 1, 'report in core')
    ! Refined: normwise backward error <= 2^-52.
    x = 0
    call lu%solve_refined(b, x, report=rr, status=status)
    call check(status == EXALA_SUCCESS, 'solve_refined')
    berr = lu%backward_error(b, x)
    call check(berr <= pow2(-52), 'backward error after refinement <= 2^-52')
    call check(rr%backward_error_after <= pow2(-52), 'refine report')
    ! Plain solve in place. (The unrefined bits may depend on the number of
    ! right-hand sides and on the column: the BLAS's kernels differ; so
    ! strided sections are compared with contiguous copies of the same
    ! shape.)
    x1 = b
    call lu%solve(x1)
    do j = 1, nrhs
      bm(:, j) = b
    end do
    call lu%solve(bm)
    big = 0
    big(1:2 * n:2, :) = spread(b, 2, nrhs)
    call lu%solve(big(1:2 * n:2, :))
    call check(same_mat(big(1:2 * n:2, :), bm) .and. all(big(2:2 * n:2, :) == 0), &
               'solve of a strided matrix section')
    big = 0
    big(2 * n:1:-2, 2) = b
    call lu%solve(big(2 * n:1:-2, 2))
    call check(same_vec(big(2 * n:1:-2, 2), x1) .and. all(big(2 * n - 1:1:-2, 2) == 0), &
               'solve of a reversed strided vector')
    ! The refined solution against a contiguous copy, through a strided x.
    big = 0
    call lu%solve_refined(b, big(1:2 * n:2, 1))
    call check(same_vec(big(1:2 * n:2, 1), x), 'solve_refined into a strided x')
    call exala_stripe_lu_options_init_checked(opt)
    opt%stripe = 16
    opt%substripe = 8
    call lu2%factor(a, options=opt, status=status)
    rep = lu2%report()
    call check(status == EXALA_SUCCESS .and. rep%stripe == 16, 'factor with options')
    xm = 0
    call lu2%solve_refined(bm, xm, status=status)
    call check(status == EXALA_SUCCESS .and. lu2%backward_error(bm, xm) <= pow2(-52), &
               'matrix solve_refined')
    call lu2%factor(a, engine='no-such-engine', status=status)
    call check(status /= EXALA_SUCCESS .and. names('no-such-engine') .and. lu2%factored(), &
               'bad engine: error naming it; the old factorization stays')
    ! Errors: nothing factored, not square, singular.
    call empty%solve(x1, status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('factor'), 'solve unfactored')
    call check(empty%n(status) == -1, 'n unfactored')
    nonsq = 1
    call empty%factor(nonsq, status=status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('not square'), 'factor 3 x 4')
    zero = 0
    call empty%factor(zero, status=status)
    call check(status == EXALA_ERROR_SINGULAR_PIVOT .and. .not. empty%factored(), &
               'singular matrix: singular pivot')
    call lu%solve(x1(1:n - 1), status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT .and. names('size(b)'), 'solve size')
    call lu%release()
    call check(.not. lu%factored(), 'release')
  end subroutine

  subroutine exala_stripe_lu_options_init_checked(opt)
    type(exala_stripe_lu_options), intent(out) :: opt
    call check(exala_stripe_lu_options_init(opt) == EXALA_SUCCESS, 'options_init')
    call check(opt%order == EXALA_ORDER_ZIGZAG .and. opt%io_threads == 2 .and. opt%resume == 1 &
               .and. opt%pivot_threshold < 0 .and. opt%checkpoint_interval_s == 30 .and. &
               opt%progress_interval_s == 0.5_c_double, 'options defaults match exala.h')
  end subroutine

  ! ----------------------------------------------------- stripe LU, out of core
  subroutine test_stripe_lu_out_of_core(root)
    character(*), intent(in) :: root
    integer, parameter :: n = 96, nrhs = 2
    type(exala_stripe_lu) :: lu
    type(exala_stripe_lu_options) :: opt
    type(exala_refine_report) :: rr
    type(exala_stripe_lu_report) :: rep
    real(c_double) :: x(n, nrhs), small(n, 1)
    integer :: status, got
    character(len=len(root) + 5) :: dirs(1)
    dirs(1) = root // '/work'
    call exala_generate_dense_system(dirs, n, nrhs, 42, stripe=32, overwrite=.true., &
                                     status=status)
    call check(status == EXALA_SUCCESS, 'generate dense system')
    call exala_stripe_lu_options_init_checked(opt)
    opt%stripe = 32
    opt%substripe = 16
    opt%cache_bytes = 3 * 32 * n * 8   ! three stripes: really out of core
    call lu%open(dirs, options=opt, status=status)
    call check(status == EXALA_SUCCESS, 'open out of core')
    rep = lu%report()
    call check(rep%in_core == 0 .and. rep%n == n .and. lu%n() == n, 'out-of-core report')
    call lu%solve_stored(small, status=status)
    call check(status == EXALA_ERROR_INVALID_ARGUMENT, 'solve_stored: x too small')
    x = 0
    call lu%solve_stored(x, max_refine=5, nrhs=got, report=rr, status=status)
    call check(status == EXALA_SUCCESS .and. got == nrhs, 'solve_stored')
    call check(rr%backward_error_after <= pow2(-52), 'stored backward error <= 2^-52')
    dirs(1) = root // '/none'
    call lu%open(dirs, status=status)
    call check(status == EXALA_ERROR_STORAGE .and. names('none'), 'open a missing directory')
    call check(lu%factored(), 'failed open keeps the previous factorization')
  end subroutine

  ! ------------------------------------ every backend gives the same bits
  subroutine test_backends()
    integer, parameter :: n = 300, m = 23
    real(c_double) :: x(n), y(n), a(m, n), t(m, m), b(m)
    real(c_double) :: s_ref, d_ref, s, d
    real(c_double), allocatable :: g_ref(:), g(:), c_ref(:,:), c(:,:), x_ref(:), xs(:)
    integer(c_int) :: backends(3) = [EXALA_BACKEND_REFERENCE, EXALA_BACKEND_SIMD, &
                                     EXALA_BACKEND_OMP]
    integer :: i, j, k, status
    do i = 1, n
      x(i) = wide_double(300)
      y(i) = wide_double(300)
      a(:, i) = [(wide_double(20), j = 1, m)]
    end do
    t = 0
    do j = 1, m
      t(j:, j) = [(wide_double(3), i = j, m)]
      t(j, j) = 1 + abs(t(j, j))
    end do
    b = [(wide_double(3), i = 1, m)]
    status = exala_set_backend('reference')
    call check(status == EXALA_SUCCESS, 'set backend reference')
    s_ref = exala_sum(x)
    d_ref = exala_dot(x(n:1:-1), y)
    g_ref = exala_gemv(a, x)
    c_ref = exala_gemm(a, transpose(a))
    x_ref = b
    call exala_trsv('L', 'N', 'N', t, x_ref)
    do k = 2, 3
      if (exala_backend_compiled_in(backends(k)) == 0) cycle
      status = exala_set_backend(backends(k))
      call check(status == EXALA_SUCCESS, 'set backend ' // exala_backend_name(backends(k)))
      if (backends(k) == EXALA_BACKEND_OMP) then
        call check(exala_set_threads(2_c_int) == EXALA_SUCCESS, 'set threads 2')
      end if
      s = exala_sum(x)
      d = exala_dot(x(n:1:-1), y)
      g = exala_gemv(a, x)
      c = exala_gemm(a, transpose(a))
      xs = b
      call exala_trsv('L', 'N', 'N', t, xs)
      call check(same(s, s_ref) .and. same(d, d_ref) .and. same_vec(g, g_ref) .and. &
                 same_mat(c, c_ref) .and. same_vec(xs, x_ref), &
                 'backend ' // exala_backend_name(backends(k)) // ' == reference, bit for bit')
    end do
    ! backend cuda, where the build has it (libexala loads it from the plugin
    ! libexala_cuda.so): a 256^3 product, past the size that runs on the CPU,
    ! gives the reference's bits on a GPU, else a runtime error naming CUDA.
    if (exala_backend_compiled_in(EXALA_BACKEND_CUDA) /= 0) then
      block
        real(c_double), allocatable :: big(:,:), cb(:,:), cb_ref(:,:)
        allocate (big(256, 256))
        do j = 1, 256
          big(:, j) = [(wide_double(20), i = 1, 256)]
        end do
        status = exala_set_backend('reference')
        cb_ref = exala_gemm(big, transpose(big))
        status = exala_set_backend(EXALA_BACKEND_CUDA)
        call check(status == EXALA_SUCCESS, 'set backend cuda')
        cb = exala_gemm(big, transpose(big), status=status)
        if (status == EXALA_SUCCESS) then
          call check(same_mat(cb, cb_ref), 'backend cuda (plugin) == reference, bit for bit')
        else
          call check(status == EXALA_ERROR_RUNTIME .and. names('CUDA'), &
                     'backend cuda without a device: a runtime error naming CUDA')
        end if
      end block
    end if
    status = exala_set_backend('OMP')
    call check(status == EXALA_SUCCESS .or. status == EXALA_ERROR_NOT_COMPILED_IN, &
               'backend names are case-insensitive')
    status = exala_set_backend('simd')
    call check(status == EXALA_SUCCESS, 'back to simd')
  end subroutine

  ! ------------------------------ the module's bits == the C API's bits
  subroutine test_c_cross_check()
    integer, parameter :: m = 11, n = 13, k = 5
    real(c_double) :: a(m, n), x(2 * n), y(m), b(n, k), c(m, k), r
    real(c_double), allocatable :: g(:), cc(:,:)
    integer :: i, j
    do j = 1, n
      a(:, j) = [(wide_double(80), i = 1, m)]
      b(j, :) = [(wide_double(80), i = 1, k)]
    end do
    x = [(wide_double(80), i = 1, 2 * n)]
    ! dot of a strided section: C with incx = 2, incy = -1.
    call check(capi_dot(int(n, c_int64_t), x, 2_c_int64_t, x(n + 1:), -1_c_int64_t, &
                        c_null_ptr, r) == EXALA_SUCCESS, 'C dot')
    call check(same(exala_dot(x(1:2 * n:2), x(2 * n:n + 1:-1)), r), 'dot == C dot')
    ! gemv: the Fortran array seen row-major by C is its transpose.
    y = 0
    call check(capi_gemv(EXALA_ROW_MAJOR, EXALA_TRANS, int(n, c_int64_t), int(m, c_int64_t), &
                         1.0_c_double, a, int(m, c_int64_t), x, 2_c_int64_t, 0.0_c_double, y, &
                         1_c_int64_t, c_null_ptr) == EXALA_SUCCESS, 'C gemv')
    g = exala_gemv(a, x(1:2 * n:2))
    call check(same_vec(g, y), 'gemv == C gemv (row-major, transposed)')
    c = 0
    call check(capi_gemm(EXALA_COL_MAJOR, EXALA_NO_TRANS, EXALA_NO_TRANS, int(m, c_int64_t), &
                         int(k, c_int64_t), int(n, c_int64_t), 1.0_c_double, a, int(m, c_int64_t), &
                         b, int(n, c_int64_t), 0.0_c_double, c, int(m, c_int64_t), c_null_ptr) &
               == EXALA_SUCCESS, 'C gemm')
    cc = exala_gemm(a, b)
    call check(same_mat(cc, c), 'gemm == C gemm')
  end subroutine

  ! ------------------------- per-thread error records (with OpenMP)
  ! Two threads fail differently at the same time, then each reads its own
  ! message. Built without OpenMP, one thread runs both branches' checks in
  ! turn (the directives are comments) and the case says so.
  subroutine test_threads()
    !$ use omp_lib, only: omp_get_thread_num, omp_get_num_threads
    real(c_double) :: a(2, 2), xx(2)
    integer :: tid, st, bad, nthreads
    character(:), allocatable :: mine
    a = reshape([1, 1, 0, 1], [2, 2])
    bad = 0
    nthreads = 1
    tid = 0
    !$omp parallel num_threads(2) private(tid, st, mine, xx) reduction(+:bad) shared(nthreads)
    tid = 0
    !$ tid = omp_get_thread_num()
    !$ if (tid == 0) nthreads = omp_get_num_threads()
    xx = 1
    if (tid == 0) then
      call exala_trsv('Q', 'N', 'N', a, xx, st)
    else
      call exala_trsv('L', 'N', 'Z', a, xx, st)
    end if
    !$omp barrier
    mine = exala_last_error()
    if (st /= EXALA_ERROR_INVALID_ARGUMENT) bad = bad + 1
    if (tid == 0 .and. index(mine, 'uplo') == 0) bad = bad + 1
    if (tid == 1 .and. index(mine, 'diag') == 0) bad = bad + 1
    !$omp end parallel
    if (nthreads < 2) write (output_unit, '(a)') 'note: test_threads ran on one thread ' // &
                                                 '(no OpenMP): per-thread records not exercised'
    call check(bad == 0, 'each thread reads its own error message')
  end subroutine

end program test_fortran
