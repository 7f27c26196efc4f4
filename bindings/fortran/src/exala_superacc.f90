! exala_superacc.f90 - the module exala: type(exala_superaccumulator).
submodule (exala) exala_superacc
  implicit none

contains

  ! The handle, made on first use.
  logical function sa_ready(this, routine, status)
    class(exala_superaccumulator), intent(inout) :: this
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    sa_ready = .true.
    if (.not. c_associated(this%handle)) &
      sa_ready = c_ok(c_superacc_create(this%handle), routine, status)
  end function

  module procedure sa_add_scalar
    if (.not. sa_ready(this, 'exala_superaccumulator%add', status)) return
    call c_check(c_superacc_add(this%handle, x), 'exala_superaccumulator%add', status)
  end procedure

  module procedure sa_add_array
    call sa_add_vector(this, .false., x, status)
  end procedure

  module procedure sa_add_abs
    call sa_add_vector(this, .true., x, status)
  end procedure

  ! Exact: acc += sum(x), or sum(|x_i|) when absolute.
  subroutine sa_add_vector(this, absolute, x, status)
    class(exala_superaccumulator), intent(inout) :: this
    logical, intent(in) :: absolute
    real(c_double), intent(in), target :: x(:)
    integer, intent(out), optional :: status
    character(:), allocatable :: routine
    integer(c_int) :: code
    type(vec_arg), target :: vx
    routine = 'exala_superaccumulator%add'
    if (absolute) routine = routine // '_abs'
    if (.not. sa_ready(this, routine, status)) return
    call view_vector(x, vx)
    if (absolute) then
      code = c_asum_into(this%handle, vx%n, vx%p, vx%inc, c_null_ptr)
    else
      code = c_sum_into(this%handle, vx%n, vx%p, vx%inc, c_null_ptr)
    end if
    call c_check(code, routine, status)
  end subroutine

  module procedure sa_add_product_scalar
    if (.not. sa_ready(this, 'exala_superaccumulator%add_product', status)) return
    call c_check(c_superacc_add_product(this%handle, a, b), 'exala_superaccumulator%add_product', &
             status)
  end procedure

  module procedure sa_add_product_array
    character(*), parameter :: routine = 'exala_superaccumulator%add_product'
    type(vec_arg), target :: va, vb
    if (.not. view_pair(routine, 'a', a, 'b', b, va, vb, status)) return
    if (.not. sa_ready(this, routine, status)) return
    call c_check(c_dot_into(this%handle, va%n, va%p, va%inc, vb%p, vb%inc, c_null_ptr), routine, &
             status)
  end procedure

  module procedure sa_merge
    if (.not. c_associated(other%handle)) then  ! other holds exact zero
      call succeed(status)
      return
    end if
    if (.not. sa_ready(this, 'exala_superaccumulator%merge', status)) return
    call c_check(c_superacc_merge(this%handle, other%handle), 'exala_superaccumulator%merge', &
             status)
  end procedure

  module procedure sa_round
    r = sa_round_any(this, .false., rounding, status)
  end procedure

  module procedure sa_round_sqrt
    r = sa_round_any(this, .true., rounding, status)
  end procedure

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

  module procedure sa_clear
    if (.not. c_associated(this%handle)) then
      call succeed(status)
      return
    end if
    call c_check(c_superacc_clear(this%handle), 'exala_superaccumulator%clear', status)
  end procedure

  module procedure sa_negate
    if (.not. sa_ready(this, 'exala_superaccumulator%negate', status)) return
    call c_check(c_superacc_negate(this%handle), 'exala_superaccumulator%negate', status)
  end procedure

  module procedure sa_sign
    integer(c_int) :: cs
    s = 0
    if (.not. c_associated(this%handle)) then
      call succeed(status)
      return
    end if
    s = -2
    if (c_ok(c_superacc_sign(this%handle, cs), 'exala_superaccumulator%sign', status)) s = int(cs)
  end procedure

  module procedure sa_assign
    if (c_associated(lhs%handle, rhs%handle)) return
    if (.not. c_associated(rhs%handle)) then
      if (c_associated(lhs%handle)) then
        call c_check(c_superacc_clear(lhs%handle), 'exala_superaccumulator assignment')
      end if
      return
    end if
    if (.not. sa_ready(lhs, 'exala_superaccumulator assignment')) return
    call c_check(c_superacc_copy(rhs%handle, lhs%handle), 'exala_superaccumulator assignment')
  end procedure

  module procedure sa_final
    if (c_associated(this%handle)) call c_superacc_destroy(this%handle)
    this%handle = c_null_ptr
  end procedure

end submodule exala_superacc
