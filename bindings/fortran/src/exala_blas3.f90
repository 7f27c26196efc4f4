! exala_blas3.f90 - the module exala: level 3: gemm and its family, trsm, trmm.
submodule (exala) exala_blas3
  implicit none

contains

  module procedure exala_gemm_update
    call gemm_core('exala_gemm_update', transa, transb, alpha, a, b, beta, c, status)
  end procedure

  module procedure exala_gemm
    real(c_double), allocatable, target :: work(:,:)
    integer(c_int) :: ta, tb
    integer(c_int64_t) :: m, k, kb, n
    character(1) :: sa, sb
    logical :: ok
    ok = blas_option(transa, 'exala_gemm', 'transa', ta, status)
    if (ok) ok = blas_option(transb, 'exala_gemm', 'transb', tb, status)
    if (.not. ok) then
      allocate (c(size(a, 1), size(b, 2)))
      c = nan()
      return
    end if
    call op_shape(ta, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), m, k)
    call op_shape(tb, size(b, 1, kind=c_int64_t), size(b, 2, kind=c_int64_t), kb, n)
    allocate (work(m, n))
    work = 0
    sa = merge('T', 'N', ta == EXALA_TRANS)
    sb = merge('T', 'N', tb == EXALA_TRANS)
    call gemm_core('exala_gemm', sa, sb, 1.0_c_double, a, b, 0.0_c_double, work, status, .true.)
    call move_alloc(work, c)
  end procedure

  subroutine gemm_core(routine, transa, transb, alpha, a, b, beta, c, status, nan_on_failure)
    character(*), intent(in) :: routine, transa, transb
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    integer, intent(out), optional :: status
    logical, intent(in), optional :: nan_on_failure
    integer(c_int) :: ta, tb
    integer(c_int64_t) :: m, k, kb, n
    type(mat_arg), target :: va, vb, vc
    logical :: ok
    ok = .false.
    if (blas_option(transa, routine, 'transa', ta, status)) then
      if (blas_option(transb, routine, 'transb', tb, status)) then
        call op_shape(ta, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), m, k)
        call op_shape(tb, size(b, 1, kind=c_int64_t), size(b, 2, kind=c_int64_t), kb, n)
        if (same_size(routine, 'op(b), 1', kb, 'size(op(a), 2)', k, status)) then
          if (same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(op(a), 1)', m, &
                        status)) then
            if (same_size(routine, 'c, 2', size(c, 2, kind=c_int64_t), 'size(op(b), 2)', n, &
                          status)) then
              call view_matrix(a, va)
              call view_matrix(b, vb)
              call view_matrix(c, vc)
              ok = c_ok(c_gemm(EXALA_COL_MAJOR, ta, tb, m, n, k, alpha, va%p, va%ld, vb%p, &
                               vb%ld, beta, vc%p, vc%ld, c_null_ptr), routine, status)
              if (ok) call unview_matrix(vc, c)
            end if
          end if
        end if
      end if
    end if
    if (.not. ok .and. present(nan_on_failure)) c = nan()
  end subroutine

  module procedure exala_trsm
    call triangle_core(.true., 'exala_trsm', side, uplo, trans, diag, alpha, a, b, status)
  end procedure

  module procedure exala_trmm
    call triangle_core(.false., 'exala_trmm', side, uplo, trans, diag, alpha, a, b, status)
  end procedure

  ! trsm (solve) and trmm: b overwritten by alpha op(A)^-1 B or alpha op(A) B
  ! (or with op(A) on the right), a triangular.
  subroutine triangle_core(solve, routine, side, uplo, trans, diag, alpha, a, b, status)
    logical, intent(in) :: solve
    character(*), intent(in) :: routine, side, uplo, trans, diag
    real(c_double), intent(in) :: alpha
    real(c_double), intent(in), target :: a(:,:)
    real(c_double), intent(inout), target :: b(:,:)
    integer, intent(out), optional :: status
    integer(c_int) :: sd, ul, t, dg, code
    type(mat_arg), target :: va, vb
    if (.not. blas_option(side, routine, 'side', sd, status)) return
    if (.not. triangle_options(routine, uplo, trans, diag, a, ul, t, dg, status)) return
    if (.not. side_fits(routine, sd, a, b, status)) return
    call view_matrix(a, va)
    call view_matrix(b, vb)
    if (solve) then
      code = c_trsm(EXALA_COL_MAJOR, sd, ul, t, dg, vb%m, vb%n, alpha, va%p, va%ld, vb%p, vb%ld, &
                    c_null_ptr)
    else
      code = c_trmm(EXALA_COL_MAJOR, sd, ul, t, dg, vb%m, vb%n, alpha, va%p, va%ld, vb%p, vb%ld, &
                    c_null_ptr)
    end if
    if (c_ok(code, routine, status)) call unview_matrix(vb, b)
  end subroutine

  ! The square a multiplies b from the side sd: size(b, 1) (side 'L') or
  ! size(b, 2) (side 'R') must equal size(a, 1).
  logical function side_fits(routine, sd, a, b, status)
    character(*), intent(in) :: routine
    integer(c_int), intent(in) :: sd
    real(c_double), intent(in) :: a(:,:), b(:,:)
    integer, intent(out), optional :: status
    if (sd == EXALA_LEFT) then
      side_fits = same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), &
                            "size(a, 1) (side 'L')", size(a, 1, kind=c_int64_t), status)
    else
      side_fits = same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), &
                            "size(a, 1) (side 'R')", size(a, 1, kind=c_int64_t), status)
    end if
  end function

  module procedure exala_syrk
    call rank_k_core('exala_syrk', uplo, trans, alpha, a, a, beta, c, .false., status)
  end procedure

  module procedure exala_syr2k
    call rank_k_core('exala_syr2k', uplo, trans, alpha, a, b, beta, c, .true., status)
  end procedure

  subroutine rank_k_core(routine, uplo, trans, alpha, a, b, beta, c, two, status)
    character(*), intent(in) :: routine, uplo, trans
    real(c_double), intent(in) :: alpha, beta
    real(c_double), intent(in), target :: a(:,:), b(:,:)
    real(c_double), intent(inout), target :: c(:,:)
    logical, intent(in) :: two
    integer, intent(out), optional :: status
    integer(c_int) :: ul, t
    integer(c_int64_t) :: n, k
    type(mat_arg), target :: va, vb, vc
    logical :: ok
    if (.not. blas_option(uplo, routine, 'uplo', ul, status)) return
    if (.not. blas_option(trans, routine, 'trans', t, status)) return
    call op_shape(t, size(a, 1, kind=c_int64_t), size(a, 2, kind=c_int64_t), n, k)
    if (.not. square(routine, c, status)) return
    if (.not. same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(op(a), 1)', n, &
                        status)) return
    if (two) then
      if (.not. same_size(routine, 'b, 1', size(b, 1, kind=c_int64_t), 'size(a, 1)', &
                          size(a, 1, kind=c_int64_t), status)) return
      if (.not. same_size(routine, 'b, 2', size(b, 2, kind=c_int64_t), 'size(a, 2)', &
                          size(a, 2, kind=c_int64_t), status)) return
    end if
    call view_matrix(a, va)
    call view_matrix(c, vc)
    if (two) then
      call view_matrix(b, vb)
      ok = c_ok(c_syr2k(EXALA_COL_MAJOR, ul, t, n, k, alpha, va%p, va%ld, vb%p, vb%ld, beta, &
                        vc%p, vc%ld, c_null_ptr), routine, status)
    else
      ok = c_ok(c_syrk(EXALA_COL_MAJOR, ul, t, n, k, alpha, va%p, va%ld, beta, vc%p, vc%ld, &
                       c_null_ptr), routine, status)
    end if
    if (ok) call unview_matrix(vc, c)
  end subroutine

  module procedure exala_symm
    character(*), parameter :: routine = 'exala_symm'
    integer(c_int) :: sd, ul
    type(mat_arg), target :: va, vb, vc
    if (.not. blas_option(side, routine, 'side', sd, status)) return
    if (.not. blas_option(uplo, routine, 'uplo', ul, status)) return
    if (.not. square(routine, a, status)) return
    if (.not. side_fits(routine, sd, a, b, status)) return
    if (.not. same_size(routine, 'c, 1', size(c, 1, kind=c_int64_t), 'size(b, 1)', &
                        size(b, 1, kind=c_int64_t), status)) return
    if (.not. same_size(routine, 'c, 2', size(c, 2, kind=c_int64_t), 'size(b, 2)', &
                        size(b, 2, kind=c_int64_t), status)) return
    call view_matrix(a, va)
    call view_matrix(b, vb)
    call view_matrix(c, vc)
    if (c_ok(c_symm(EXALA_COL_MAJOR, sd, ul, vb%m, vb%n, alpha, va%p, va%ld, vb%p, vb%ld, beta, &
                    vc%p, vc%ld, c_null_ptr), routine, status)) call unview_matrix(vc, c)
  end procedure

end submodule exala_blas3
