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

  module procedure exala_syr
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
  end procedure

  module procedure exala_syr2
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
  end procedure

end submodule exala_blas2
