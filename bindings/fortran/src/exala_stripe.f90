! exala_stripe.f90 - the module exala: type(exala_stripe_lu) and stripe files (out of core).
submodule (exala) exala_stripe
  implicit none

contains

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

  module procedure slu_factor
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
  end procedure

  module procedure slu_open
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
  end procedure

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

  module procedure slu_release
    call c_stripe_lu_destroy(this%handle)
    this%handle = c_null_ptr
  end procedure

  module procedure slu_factored
    slu_factored = c_associated(this%handle)
  end procedure

  ! The object must hold a factorization.
  logical function slu_ready(this, routine, status)
    class(exala_stripe_lu), intent(in) :: this
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    slu_ready = c_associated(this%handle)
    if (.not. slu_ready) call bad_argument(routine // ': the exala_stripe_lu object holds no ' &
        // 'factorization (call factor or open first)', status)
  end function

  module procedure slu_n
    integer(c_int64_t) :: res
    n = -1
    if (.not. slu_ready(this, 'exala_stripe_lu%n', status)) return
    if (c_ok(c_stripe_lu_n(this%handle, res), 'exala_stripe_lu%n', status)) n = res
  end procedure

  module procedure slu_report
    if (.not. slu_ready(this, 'exala_stripe_lu%report', status)) return
    call c_check(c_stripe_lu_get_report(this%handle, report), 'exala_stripe_lu%report', status)
  end procedure

  module procedure slu_solve_vec
    character(*), parameter :: routine = 'exala_stripe_lu%solve'
    type(vec_arg), target :: vb
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'b', size(b, kind=c_int64_t), 'n', slu_n(this), status)) return
    call view_unit_vector(b, vb)
    if (c_ok(c_stripe_lu_solve(this%handle, 1_c_int64_t, vb%p, max(1_c_int64_t, vb%n)), &
             routine, status)) call unview_vector(vb, b)
  end procedure

  module procedure slu_solve_mat
    character(*), parameter :: routine = 'exala_stripe_lu%solve'
    type(mat_arg), target :: vb
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'n', slu_n(this), status)) &
      return
    call view_matrix(b, vb)
    if (c_ok(c_stripe_lu_solve(this%handle, vb%n, vb%p, vb%ld), routine, status)) &
      call unview_matrix(vb, b)
  end procedure

  module procedure slu_solve_refined_vec
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
  end procedure

  module procedure slu_solve_refined_mat
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
  end procedure

  module procedure slu_solve_stored
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
  end procedure

  module procedure slu_backward_error_vec
    real(c_double) :: res
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
  end procedure

  module procedure slu_backward_error_mat
    real(c_double) :: res
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
  end procedure

  module procedure slu_assign
    if (c_associated(lhs%handle, rhs%handle)) return
    call bad_argument('exala_stripe_lu assignment: a factorization cannot be copied ' // &
                      '(the left-hand side is left unchanged)')
  end procedure

  module procedure slu_final
    call c_stripe_lu_destroy(this%handle)
    this%handle = c_null_ptr
  end procedure

  module procedure exala_generate_dense_system
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
  end procedure

end submodule exala_stripe
