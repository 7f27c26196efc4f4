! exala_library.f90 - the module exala: errors, strings and the default exec (selection).
submodule (exala) exala_library
  implicit none

contains

  module procedure exala_last_error
    message = from_c_string(c_last_error())
    if (len(message) == 0) then
      if (allocated(last_message)) then
        message = last_message
      end if
    end if
  end procedure

  module procedure exala_last_error_index
    if (len(from_c_string(c_last_error())) > 0) then
      index = c_last_error_index()
      if (index >= 0) index = index + 1
    else
      index = last_index
    end if
  end procedure

  module procedure exala_status_string
    name = from_c_string(c_status_string(int(status, c_int)))
  end procedure

  module procedure exala_version
    version = from_c_string(c_version())
  end procedure

  module procedure exala_backend_name
    name = from_c_string(c_backend_name(backend))
  end procedure

  module procedure exala_kernel_set
    type(c_ptr) :: p
    name = ''
    if (c_ok(c_kernel_set(p), 'exala_kernel_set', status)) name = from_c_string(p)
  end procedure

  module procedure exala_set_backend_name
    integer(c_int) :: backend
    if (c_ok(c_backend_from_string(to_c_chars(ascii_case(name, .false.)), backend), &
             'exala_set_backend', status)) &
      call c_check(exala_set_backend_id(backend), 'exala_set_backend', status)
  end procedure

  module procedure exala_set_rounding_id
    type(exala_exec) :: ex
    if (.not. c_ok(exala_get_default_exec(ex), 'exala_set_rounding', status)) return
    ex%rounding = mode
    call c_check(exala_set_default_exec(ex), 'exala_set_rounding', status)
  end procedure

  module procedure exala_set_rounding_name
    select case (ascii_case(trim(mode), .true.))
    case ('NEAREST', 'NEAREST_EVEN')
      status = exala_set_rounding_id(EXALA_ROUND_NEAREST_EVEN)
    case ('TOWARD_ZERO')
      status = exala_set_rounding_id(EXALA_ROUND_TOWARD_ZERO)
    case ('UPWARD')
      status = exala_set_rounding_id(EXALA_ROUND_UPWARD)
    case ('DOWNWARD')
      status = exala_set_rounding_id(EXALA_ROUND_DOWNWARD)
    case default
      call bad_argument("exala_set_rounding: mode = '" // mode // "' is not one of 'nearest', " &
                        // "'toward_zero', 'upward', 'downward'", status)
    end select
  end procedure

  module procedure exala_opencl_select_device
    call c_check(c_opencl_select_device(to_c_chars(spec)), 'exala_opencl_select_device', status)
  end procedure

end submodule exala_library
