! example.f90 - the Fortran module `exala` in a few lines: an exact dot
! product where a plain loop gets the wrong answer, a correctly rounded
! matrix-vector product, a triangular solve, and error handling with
! `status`. Every printed result is checked against a value known exactly by
! construction; the program exits with status 1 when one differs.
!
! Build: cmake (target exala::fortran, or ExaLA::fortran installed), or
!   gfortran example.f90 $(pkg-config --cflags --libs exala-fortran)
program exala_example
  use exala
  use, intrinsic :: iso_c_binding, only: c_double
  implicit none
  real(c_double) :: x(4), y(4), a(3, 2), v(2), t(2, 2), b(2), naive, s
  real(c_double), allocatable :: av(:)
  integer :: i, status, failures

  failures = 0
  print '(a, a)', 'ExaLA ', exala_version()

  ! 1. Dot product. The exact value of x.y is 1e16*1 + 1*1 + (-1e16)*1 +
  !    1*1 = 2; a left-to-right loop rounds 1e16 + 1 to 1e16 and returns 1.
  x = [1e16_c_double, 1.0_c_double, -1e16_c_double, 1.0_c_double]
  y = 1
  naive = 0
  do i = 1, size(x)
    naive = naive + x(i) * y(i)
  end do
  s = exala_dot(x, y)
  print '(a, f4.1, a, f4.1)', 'dot: plain loop = ', naive, ', exala_dot = ', s
  if (s /= 2) failures = failures + 1

  ! 2. gemv: a = [1 4; 2 5; 3 6] times v = [1, -1] is [-3, -3, -3] exactly.
  a = reshape([1, 2, 3, 4, 5, 6], [3, 2])
  v = [1, -1]
  av = exala_gemv(a, v)
  print '(a, 3f5.1)', 'gemv: a v = ', av
  if (any(av /= -3)) failures = failures + 1
  deallocate (av)

  ! 3. Triangular solve: [2 0; 1 4] x = [2, 9] has the exact solution [1, 2].
  t = reshape([2, 1, 0, 4], [2, 2])
  b = [2, 9]
  call exala_trsv('L', 'N', 'N', t, b)
  print '(a, 2f4.1)', 'trsv: x = ', b
  if (any(b /= [1, 2])) failures = failures + 1

  ! 4. Errors: a wrong option or a size mismatch gives a status code and a
  !    message naming the argument; nothing stops, outputs stay untouched.
  call exala_trsv('L', 'X', 'N', t, b, status=status)
  print '(a, a, a, a)', 'bad trans: ', exala_status_string(status), ': ', exala_last_error()
  if (status /= EXALA_ERROR_INVALID_ARGUMENT .or. any(b /= [1, 2])) failures = failures + 1
  s = exala_dot(x, v, status)
  print '(a, a)', 'size mismatch: ', exala_last_error()
  if (status /= EXALA_ERROR_INVALID_ARGUMENT .or. index(exala_last_error(), 'size(y)') == 0) &
    failures = failures + 1

  if (failures /= 0) then
    print '(i0, a)', failures, ' check(s) failed'
    error stop 1
  end if
  print '(a)', 'all results exact'
end program exala_example
