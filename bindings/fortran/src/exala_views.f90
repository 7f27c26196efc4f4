! exala_views.f90 - what every wrapper of the module `exala` shares: how an
! array reaches C (views: address and increment, or column-major with a
! leading dimension, or a packed copy), the per-thread error record and the
! status/message rules (c_ok, fail), BLAS character options, size checks
! and C strings. Internal: nothing here is public in `exala`.
module exala_views
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use exala_c_api
  implicit none
  public

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
  ! wrapper of the module exala ("" / -1 after a success).
  character(:), allocatable, save :: last_message
  integer(c_int64_t), save :: last_index = -1
  !$omp threadprivate(last_message, last_index)

contains

  ! ================================================================ errors


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

  ! s with its ASCII letters in upper case (to_upper) or in lower case.
  function ascii_case(s, to_upper) result(t)
    character(*), intent(in) :: s
    logical, intent(in) :: to_upper
    character(len(s)) :: t
    integer :: i, c, first, shift
    first = iachar(merge('a', 'A', to_upper))
    shift = merge(-32, 32, to_upper)
    t = s
    do i = 1, len(s)
      c = iachar(s(i:i))
      if (c >= first .and. c < first + 26) t(i:i) = achar(c + shift)
    end do
  end function

  ! ===================================================== character options

  ! A BLAS character option, known by its argument's name: uplo 'U' or 'L',
  ! diag 'N' or 'U', side 'L' or 'R', any other (trans, transa, transb) 'N'
  ! or 'T' ('C' is accepted as 'T' for real data, as in BLAS; absent means
  ! 'N'). Its first character counts, case-insensitive; v gets the matching
  ! EXALA_* value. Otherwise a failure naming `routine` and `arg`.
  logical function blas_option(s, routine, arg, v, status)
    character(*), intent(in), optional :: s
    character(*), intent(in) :: routine, arg
    integer(c_int), intent(out) :: v
    integer, intent(out), optional :: status
    select case (arg)
    case ('uplo')
      blas_option = one_of('UL', [EXALA_UPPER, EXALA_LOWER])
    case ('diag')
      blas_option = one_of('NU', [EXALA_NON_UNIT, EXALA_UNIT])
    case ('side')
      blas_option = one_of('LR', [EXALA_LEFT, EXALA_RIGHT])
    case default
      blas_option = one_of('NTC', [EXALA_NO_TRANS, EXALA_TRANS, EXALA_TRANS])
    end select
  contains
    logical function one_of(letters, values)
      character(*), intent(in) :: letters
      integer(c_int), intent(in) :: values(:)
      integer :: k
      character(:), allocatable :: choices
      one_of = .true.
      v = values(1)
      if (.not. present(s)) return
      if (len(s) > 0) then
        k = index(letters, ascii_case(s(1:1), .true.))
        if (k > 0) then
          v = values(k)
          return
        end if
      end if
      one_of = .false.
      choices = ''
      do k = 1, len(letters)
        if (k > 1) choices = choices // ', '
        choices = choices // "'" // letters(k:k) // "'"
      end do
      call bad_argument(routine // ': ' // arg // " = '" // s // "' is not one of " // &
                        choices // ' (case-insensitive)', status)
    end function
  end function

  ! uplo, trans and diag of a triangular matrix a, which must be square.
  logical function triangle_options(routine, uplo, trans, diag, a, ul, t, dg, status)
    character(*), intent(in) :: routine, uplo, trans, diag
    real(c_double), intent(in) :: a(:,:)
    integer(c_int), intent(out) :: ul, t, dg
    integer, intent(out), optional :: status
    triangle_options = .false.
    if (.not. blas_option(uplo, routine, 'uplo', ul, status)) return
    if (.not. blas_option(trans, routine, 'trans', t, status)) return
    if (.not. blas_option(diag, routine, 'diag', dg, status)) return
    triangle_options = square(routine, a, status)
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


  ! size(name) (n elements) must equal size(a, 1).
  logical function fits_a(routine, name, n, a, status)
    character(*), intent(in) :: routine, name
    integer(c_int64_t), intent(in) :: n
    real(c_double), intent(in) :: a(:,:)
    integer, intent(out), optional :: status
    fits_a = same_size(routine, name, n, 'size(a, 1)', size(a, 1, kind=c_int64_t), status)
  end function

  ! Two vectors of one size (size(y) must equal size(x); xname, yname: their
  ! names in the message), described for C as view_vector does.
  logical function view_pair(routine, xname, x, yname, y, vx, vy, status)
    character(*), intent(in) :: routine, xname, yname
    real(c_double), intent(in), target :: x(:), y(:)
    type(vec_arg), intent(inout), target :: vx, vy
    integer, intent(out), optional :: status
    view_pair = same_size(routine, yname, size(y, kind=c_int64_t), 'size(' // xname // ')', &
                          size(x, kind=c_int64_t), status)
    if (.not. view_pair) return
    call view_vector(x, vx)
    call view_vector(y, vy)
  end function

  ! A generator's seed must not be negative.
  logical function seed_ok(routine, seed, status)
    character(*), intent(in) :: routine
    integer, intent(in) :: seed
    integer, intent(out), optional :: status
    seed_ok = seed >= 0
    if (.not. seed_ok) call bad_argument(routine // ': seed = ' // &
        int_str(int(seed, c_int64_t)) // ' is negative', status)
  end function

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

end module exala_views
