! exala_blas1.f90 - the module exala: level 1: reductions, vector updates, rotations.
submodule (exala) exala_blas1
  implicit none

contains

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

  module procedure exala_sum
    r = reduce1(1, 'exala_sum', x, status)
  end procedure

  module procedure exala_asum
    r = reduce1(2, 'exala_asum', x, status)
  end procedure

  module procedure exala_nrm2
    r = reduce1(3, 'exala_nrm2', x, status)
  end procedure

  module procedure exala_dot
    real(c_double) :: res
    type(vec_arg), target :: vx, vy
    r = nan()
    if (.not. view_pair('exala_dot', 'x', x, 'y', y, vx, vy, status)) return
    if (c_ok(c_dot(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr, res), 'exala_dot', status)) &
      r = res
  end procedure

  module procedure exala_iamax
    integer(c_int64_t) :: res
    type(vec_arg), target :: vx
    i = -1
    call view_vector(x, vx)
    if (c_ok(c_iamax(vx%n, vx%p, vx%inc, c_null_ptr, res), 'exala_iamax', status)) i = res + 1
  end procedure

  module procedure exala_axpy
    type(vec_arg), target :: vx, vy
    if (.not. view_pair('exala_axpy', 'x', x, 'y', y, vx, vy, status)) return
    if (c_ok(c_axpy(vx%n, alpha, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_axpy', status)) &
      call unview_vector(vy, y)
  end procedure

  module procedure exala_scal
    type(vec_arg), target :: vx
    call view_vector(x, vx)
    if (c_ok(c_scal(vx%n, alpha, vx%p, vx%inc, c_null_ptr), 'exala_scal', status)) &
      call unview_vector(vx, x)
  end procedure

  module procedure exala_copy
    type(vec_arg), target :: vx, vy
    if (.not. view_pair('exala_copy', 'x', x, 'y', y, vx, vy, status)) return
    if (c_ok(c_copy(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_copy', status)) &
      call unview_vector(vy, y)
  end procedure

  ! swap and rotm write both vectors.
  module procedure exala_swap
    type(vec_arg), target :: vx, vy
    if (.not. view_pair('exala_swap', 'x', x, 'y', y, vx, vy, status)) return
    call unview_pair(c_swap(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_null_ptr), 'exala_swap', vx, x, &
                     vy, y, status)
  end procedure

  module procedure exala_rotm
    type(vec_arg), target :: vx, vy
    if (.not. view_pair('exala_rotm', 'x', x, 'y', y, vx, vy, status)) return
    call unview_pair(c_rotm(vx%n, vx%p, vx%inc, vy%p, vy%inc, c_loc(param), c_null_ptr), &
                     'exala_rotm', vx, x, vy, y, status)
  end procedure

  subroutine unview_pair(code, routine, vx, x, vy, y, status)
    integer(c_int), intent(in) :: code
    character(*), intent(in) :: routine
    type(vec_arg), intent(in) :: vx, vy
    real(c_double), intent(inout) :: x(:), y(:)
    integer, intent(out), optional :: status
    if (.not. c_ok(code, routine, status)) return
    call unview_vector(vx, x)
    call unview_vector(vy, y)
  end subroutine

  module procedure exala_rotg
    c = nan()
    s = nan()
    if (.not. c_ok(c_rotg(c_loc(a), c_loc(b), c_loc(c), c_loc(s), c_null_ptr), 'exala_rotg', &
                   status)) return
  end procedure

end submodule exala_blas1
