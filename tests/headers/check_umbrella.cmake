# SPDX-License-Identifier: Apache-2.0
# Fails naming every public header <perfgate/perfgate.hpp> does not include.
# LIBRARY_DIR: perfgate/, whose layers keep their public headers in LAYER/include/perfgate/.
file(GLOB _headers "${LIBRARY_DIR}/*/include/perfgate/*.hpp")
file(READ "${LIBRARY_DIR}/include/perfgate/perfgate.hpp" _umbrella)
set(_missing "")
foreach(_header IN LISTS _headers)
  get_filename_component(_name "${_header}" NAME)
  if(NOT _name STREQUAL "perfgate.hpp" AND NOT _umbrella MATCHES "#include <perfgate/${_name}>")
    list(APPEND _missing "${_name}")
  endif()
endforeach()
if(_missing)
  list(JOIN _missing ", " _missing)
  message(FATAL_ERROR "perfgate/perfgate.hpp does not include: ${_missing}")
endif()
message(STATUS "perfgate/perfgate.hpp includes every public header")
