! exala_stripe.f90 - the module exala: type(exala_stripe_lu) and stripe files (out of core).
submodule (exala) exala_stripe
  implicit none

contains

  ! The options for C (the address of opt, or NULL for the defaults when
  ! neither is given): `options` or the defaults, with `engine` ("cpu" or
  ! "cuda") set from engine_c when given.
  function slu_options(options, engine, opt, engine_c) result(opt_p)
    type(exala_stripe_lu_options), intent(in), optional :: options
    character(*), intent(in), optional :: engine
    type(exala_stripe_lu_options), intent(inout), target :: opt
    character(kind=c_char), allocatable, intent(inout), target :: engine_c(:)
    type(c_ptr) :: opt_p
    integer(c_int) :: ignored
    opt_p = c_null_ptr
    if (.not. (present(options) .or. present(engine))) return
    if (present(options)) then
      opt = options
    else
      ignored = exala_stripe_lu_options_init(opt)
    end if
    if (present(engine)) then
      engine_c = to_c_chars(engine)
      opt%engine = c_loc(engine_c)
    end if
    opt_p = c_loc(opt)
  end function

  ! After factor or open: on success the object holds the new factorization
  ! h (a previous one is freed).
  subroutine slu_adopt(this, code, h, routine, status)
    class(exala_stripe_lu), intent(inout) :: this
    integer(c_int), intent(in) :: code
    type(c_ptr), intent(in) :: h
    character(*), intent(in) :: routine
    integer, intent(out), optional :: status
    if (.not. c_ok(code, routine, status)) return
    call c_stripe_lu_destroy(this%handle)
    this%handle = h
  end subroutine

  module procedure slu_factor
    character(*), parameter :: routine = 'exala_stripe_lu%factor'
    type(exala_stripe_lu_options), target :: opt
    character(kind=c_char), allocatable, target :: engine_c(:)
    type(mat_arg), target :: va
    type(c_ptr) :: h
    integer(c_int) :: code
    if (.not. square(routine, a, status)) return
    call view_matrix(a, va)
    code = c_stripe_lu_factor(va%m, va%p, va%ld, slu_options(options, engine, opt, engine_c), h)
    call slu_adopt(this, code, h, routine, status)
  end procedure

  module procedure slu_open
    character(*), parameter :: routine = 'exala_stripe_lu%open'
    type(exala_stripe_lu_options), target :: opt
    character(kind=c_char), allocatable, target :: engine_c(:)
    character(kind=c_char), allocatable, target :: names(:,:)
    type(c_ptr), allocatable, target :: ptrs(:)
    type(c_ptr) :: h
    integer(c_int) :: code
    if (.not. c_directories(routine, dirs, names, ptrs, status)) return
    code = c_stripe_lu_open(c_loc(ptrs), int(size(dirs), c_int), &
                            slu_options(options, engine, opt, engine_c), h)
    call slu_adopt(this, code, h, routine, status)
  end procedure

  ! dirs as C strings: names(:, i) null-terminated, ptrs(i) its address.
  ! An empty dirs is a failure (at least one work directory).
  logical function c_directories(routine, dirs, names, ptrs, status)
    character(*), intent(in) :: routine
    character(*), intent(in) :: dirs(:)
    character(kind=c_char), allocatable, intent(inout), target :: names(:,:)
    type(c_ptr), allocatable, intent(inout) :: ptrs(:)
    integer, intent(out), optional :: status
    integer :: i, j, n
    c_directories = size(dirs) > 0
    if (.not. c_directories) then
      call bad_argument(routine // ': dirs is empty (at least one work directory)', status)
      return
    end if
    allocate (names(len(dirs) + 1, size(dirs)), ptrs(size(dirs)))
    do i = 1, size(dirs)
      n = len_trim(dirs(i))
      do j = 1, n
        names(j, i) = dirs(i)(j:j)
      end do
      names(n + 1, i) = c_null_char
      ptrs(i) = c_loc(names(1, i))
    end do
  end function

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

  ! The right-hand sides: a vector b (x) goes to C as the one column of an
  ! n x 1 matrix (the same array, no copy where its elements are
  ! contiguous), so each vector form below is its matrix form.
  module procedure slu_solve_vec
    real(c_double), pointer :: b2(:,:)
    b2(1:size(b), 1:1) => b
    call slu_solve_cols(this, b2, .true., status)
  end procedure

  module procedure slu_solve_mat
    call slu_solve_cols(this, b, .false., status)
  end procedure

  subroutine slu_solve_cols(this, b, vector, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(inout), target :: b(:,:)
    logical, intent(in) :: vector
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve'
    type(mat_arg), target :: vb
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, rows_of('b', vector), size(b, 1, kind=c_int64_t), 'n', &
                        slu_n(this), status)) return
    call view_matrix(b, vb)
    if (c_ok(c_stripe_lu_solve(this%handle, vb%n, vb%p, vb%ld), routine, status)) &
      call unview_matrix(vb, b)
  end subroutine

  module procedure slu_solve_refined_vec
    real(c_double), pointer :: b2(:,:), x2(:,:)
    b2(1:size(b), 1:1) => b
    x2(1:size(x), 1:1) => x
    call slu_solve_refined_cols(this, b2, x2, .true., max_refine, report, status)
  end procedure

  module procedure slu_solve_refined_mat
    call slu_solve_refined_cols(this, b, x, .false., max_refine, report, status)
  end procedure

  subroutine slu_solve_refined_cols(this, b, x, vector, max_refine, report, status)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:,:)
    real(c_double), intent(inout), target :: x(:,:)
    logical, intent(in) :: vector
    integer, intent(in), optional :: max_refine
    type(exala_refine_report), intent(inout), optional :: report
    integer, intent(out), optional :: status
    character(*), parameter :: routine = 'exala_stripe_lu%solve_refined'
    type(mat_arg), target :: vb, vx
    type(exala_refine_report), target :: rep
    if (.not. slu_rhs_ok(this, routine, b, x, vector, status)) return
    call view_matrix(b, vb)
    call view_matrix(x, vx)
    if (c_ok(c_stripe_lu_solve_refined(this%handle, vb%n, vb%p, vb%ld, vx%p, vx%ld, &
                                       refine_steps(max_refine), c_loc(rep)), routine, &
             status)) then
      call unview_matrix(vx, x)
      if (present(report)) report = rep
    end if
  end subroutine

  module procedure slu_solve_stored
    character(*), parameter :: routine = 'exala_stripe_lu%solve_stored'
    type(mat_arg), target :: vx
    type(exala_refine_report), target :: rep
    integer(c_int64_t) :: count
    if (.not. slu_ready(this, routine, status)) return
    if (.not. same_size(routine, 'x, 1', size(x, 1, kind=c_int64_t), 'n', slu_n(this), status)) &
      return
    call view_dense_matrix(x, vx)
    if (c_ok(c_stripe_lu_solve_stored(this%handle, vx%p, size(x, kind=c_int64_t), &
                                      refine_steps(max_refine), count, &
                                      c_loc(rep)), routine, status)) then
      call unview_matrix(vx, x)
      if (present(nrhs)) nrhs = int(count)
      if (present(report)) report = rep
    end if
  end procedure

  module procedure slu_backward_error_vec
    real(c_double), pointer :: b2(:,:), x2(:,:)
    b2(1:size(b), 1:1) => b
    x2(1:size(x), 1:1) => x
    r = slu_backward_error_cols(this, b2, x2, .true., status)
  end procedure

  module procedure slu_backward_error_mat
    r = slu_backward_error_cols(this, b, x, .false., status)
  end procedure

  function slu_backward_error_cols(this, b, x, vector, status) result(r)
    class(exala_stripe_lu), intent(in) :: this
    real(c_double), intent(in), target :: b(:,:), x(:,:)
    logical, intent(in) :: vector
    integer, intent(out), optional :: status
    real(c_double) :: r, res
    character(*), parameter :: routine = 'exala_stripe_lu%backward_error'
    type(mat_arg), target :: vb, vx
    r = nan()
    if (.not. slu_rhs_ok(this, routine, b, x, vector, status)) return
    call view_matrix(b, vb)
    call view_matrix(x, vx)
    if (c_ok(c_stripe_lu_backward_error(this%handle, vb%n, vb%p, vb%ld, vx%p, vx%ld, res), &
             routine, status)) r = res
  end function

  ! The object holds a factorization, b and x have n rows and x as many
  ! columns as b.
  logical function slu_rhs_ok(this, routine, b, x, vector, status)
    class(exala_stripe_lu), intent(in) :: this
    character(*), intent(in) :: routine
    real(c_double), intent(in) :: b(:,:), x(:,:)
    logical, intent(in) :: vector
    integer, intent(out), optional :: status
    integer(c_int64_t) :: n
    slu_rhs_ok = slu_ready(this, routine, status)
    if (.not. slu_rhs_ok) return
    n = slu_n(this)
    slu_rhs_ok = same_size(routine, rows_of('b', vector), size(b, 1, kind=c_int64_t), 'n', n, &
                           status)
    if (slu_rhs_ok) slu_rhs_ok = same_size(routine, rows_of('x', vector), &
                                           size(x, 1, kind=c_int64_t), 'n', n, status)
    if (slu_rhs_ok) slu_rhs_ok = same_size(routine, 'x, 2', size(x, 2, kind=c_int64_t), &
                                           'size(b, 2)', size(b, 2, kind=c_int64_t), status)
  end function

  ! A right-hand side's name in a message: 'b' for a vector, 'b, 1' (its
  ! rows) for a matrix.
  function rows_of(name, vector) result(s)
    character(*), intent(in) :: name
    logical, intent(in) :: vector
    character(:), allocatable :: s
    s = name
    if (.not. vector) s = name // ', 1'
  end function

  ! The refinement steps of a solve: max_refine, default 10.
  integer(c_int) function refine_steps(max_refine)
    integer, intent(in), optional :: max_refine
    refine_steps = 10
    if (present(max_refine)) refine_steps = int(max_refine, c_int)
  end function

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
    if (.not. c_directories(routine, dirs, names, ptrs, status)) return
    if (.not. seed_ok(routine, seed, status)) return
    s = 0
    if (present(stripe)) s = stripe
    k = 0
    if (present(cond)) k = cond
    ow = 0
    if (present(overwrite)) ow = merge(1, 0, overwrite)
    call c_check(c_generate_dense_system(c_loc(ptrs), int(size(dirs), c_int), int(n, c_int64_t), &
                                     int(nrhs, c_int64_t), int(seed, c_int64_t), s, k, ow), &
             routine, status)
  end procedure

end submodule exala_stripe
