! exala_blas2.f90 - the module exala: level 2: gemv, syr, syr2.
submodule (exala) exala_blas2
  implicit none

contains

  module procedure exala_gemv_update
    call gemv_core('exala_gemv_update', trans, alpha, a, x, beta, y, status)
  end procedure

  module procedure exala_gemv
    real(c_double), allocatable, target :: work(:)
    integer(c_int) :: t
    integer(c_int64_t) :: rows, cols
    if (.not. blas_option(trans, 'exala_gemv', 'trans', t, status)) then
      allocate (y(size(a, 1)))
      y = nan()
      return
    end if
    call op_shape(t, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), rows, cols)
    allocate (work(rows))
    work = 0
    call gemv_core('exala_gemv', merge('T', 'N', t == EXALA_TRANS), 1.0_c_double, a, x, &
                   0.0_c_double, work, status, .true.)
    call move_alloc(work, y)
  end procedure

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
    if (blas_option(trans, routine, 'trans', t, status)) then
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

  module procedure exala_syr
    call rank1_core('exala_syr', uplo, alpha, x, x, a, .false., status)
  end procedure

  module procedure exala_syr2
    call rank1_core('exala_syr2', uplo, alpha, x, y, a, .true., status)
  end procedure

  ! syr (y not read) and syr2 (two): the uplo triangle of a updated.
  subroutine rank1_core(routine, uplo, alpha, x, y, a, two, status)
    character(*), intent(in) :: routine, uplo
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: x(:), y(:)
    real(c_double), intent(inout), target :: a(:,:)
    logical, intent(in) :: two
    integer, intent(out), optional :: status
    integer(c_int) :: ul, code
    type(vec_arg), target :: vx, vy
    type(mat_arg), target :: va
    if (.not. blas_option(uplo, routine, 'uplo', ul, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. fits_a(routine, 'x', size(x, kind=c_int64_t), a, status)) return
    if (two) then
      if (.not. fits_a(routine, 'y', size(y, kind=c_int64_t), a, status)) return
    end if
    call view_vector(x, vx)
    call view_vector(y, vy)
    call view_matrix(a, va)
    if (two) then
      code = c_syr2(EXALA_COL_MAJOR, ul, va%m, alpha, vx%p, vx%inc, vy%p, vy%inc, va%p, va%ld, &
                    c_null_ptr)
    else
      code = c_syr(EXALA_COL_MAJOR, ul, va%m, alpha, vx%p, vx%inc, va%p, va%ld, c_null_ptr)
    end if
    if (c_ok(code, routine, status)) call unview_matrix(va, a)
  end subroutine

end submodule exala_blas2
