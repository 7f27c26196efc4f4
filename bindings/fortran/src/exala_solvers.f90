! exala_solvers.f90 - the module exala: triangular solvers, condition, test problems.
submodule (exala) exala_solvers
  implicit none

  ! Which triangular solver trsv_common runs.
  integer, parameter :: SOLVE_EXACT = 1, SOLVE_COMPENSATED = 2, SOLVE_DOUBLE_DOUBLE = 3, &
                        SOLVE_REFINED = 4

contains

  module procedure exala_trsv
    call trsv_common(SOLVE_EXACT, 'exala_trsv', uplo, trans, diag, a, x, status)
  end procedure

  module procedure exala_trsv_compensated
    call trsv_common(SOLVE_COMPENSATED, 'exala_trsv_compensated', uplo, trans, diag, a, x, status)
  end procedure

  module procedure exala_trsv_double_double
    call trsv_common(SOLVE_DOUBLE_DOUBLE, 'exala_trsv_double_double', uplo, trans, diag, a, x, &
                     status)
  end procedure

  module procedure exala_trsv_exact_refined
    call trsv_common(SOLVE_REFINED, 'exala_trsv_exact_refined', uplo, trans, diag, a, x, &
                     status, max_steps, steps, converged)
  end procedure

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
    if (.not. trsv_views(routine, uplo, trans, diag, a, 'x', x, ul, t, dg, va, vx, status)) return
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

  ! The options of a triangular solve with a and the vector x (size(a, 1)
  ! elements; xname: its name in a message), and both described for C.
  logical function trsv_views(routine, uplo, trans, diag, a, xname, x, ul, t, dg, va, vx, &
                              status)
    character(*), intent(in) :: routine, uplo, trans, diag, xname
    real(c_double), intent(in), target :: a(:,:), x(:)
    integer(c_int), intent(out) :: ul, t, dg
    type(mat_arg), intent(inout), target :: va
    type(vec_arg), intent(inout), target :: vx
    integer, intent(out), optional :: status
    trsv_views = triangle_options(routine, uplo, trans, diag, a, ul, t, dg, status)
    if (trsv_views) trsv_views = fits_a(routine, xname, size(x, kind=c_int64_t), a, status)
    if (.not. trsv_views) return
    call view_matrix(a, va)
    call view_vector(x, vx)
  end function

  module procedure exala_skeel_condition
    real(c_double) :: res
    character(*), parameter :: routine = 'exala_skeel_condition'
    integer(c_int) :: ul, t, dg
    type(mat_arg), target :: va
    type(vec_arg), target :: vx
    r = nan()
    if (.not. trsv_views(routine, uplo, trans, diag, a, 'x', x, ul, t, dg, va, vx, status)) return
    if (c_ok(c_skeel_condition(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vx%p, vx%inc, res), &
             routine, status)) r = res
  end procedure

  module procedure exala_trsv_mpfr_solution
    character(*), parameter :: routine = 'exala_trsv_mpfr_solution'
    integer(c_int) :: ul, t, dg, prec
    type(mat_arg), target :: va
    type(vec_arg), target :: vb
    real(c_double), allocatable, target :: work(:)
    if (.not. trsv_views(routine, uplo, trans, diag, a, 'b', b, ul, t, dg, va, vb, status)) return
    if (.not. fits_a(routine, 'x', size(x, kind=c_int64_t), a, status)) return
    prec = 0
    if (present(precision)) prec = int(precision, c_int)
    allocate (work(max(1, size(x))))
    if (c_ok(c_trsv_mpfr_solution(EXALA_COL_MAJOR, ul, t, dg, va%m, va%p, va%ld, vb%p, vb%inc, &
                                  prec, c_loc(work)), routine, status)) x = work(1:size(x))
  end procedure

  module procedure exala_generate_ill_conditioned_trsv
    character(*), parameter :: routine = 'exala_generate_ill_conditioned_trsv'
    real(c_double), allocatable, target :: rowmajor(:,:), bw(:)
    integer(c_int64_t) :: n
    n = size(b, kind=c_int64_t)
    if (.not. same_size(routine, 't, 1', size(t, 1, kind=c_int64_t), 'size(b)', n, status)) &
      return
    if (.not. same_size(routine, 't, 2', size(t, 2, kind=c_int64_t), 'size(b)', n, status)) &
      return
    if (.not. seed_ok(routine, seed, status)) return
    ! C writes t row-major: as a Fortran array that is t transposed.
    allocate (rowmajor(max(1_c_int64_t, n), max(1_c_int64_t, n)), bw(max(1_c_int64_t, n)))
    if (c_ok(c_generate_ill_conditioned_trsv(n, cond, int(seed, c_int64_t), c_loc(rowmajor), &
                                             c_loc(bw)), routine, status)) then
      t = transpose(rowmajor(1:n, 1:n))
      b = bw(1:n)
    end if
  end procedure

end submodule exala_solvers
