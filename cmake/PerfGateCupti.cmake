# SPDX-License-Identifier: Apache-2.0
# CUPTI detection for perfgate's NVIDIA collectors (perfgate/collectors/cupti): the CUPTI
# injection library, `perfgate metrics` and the per-chip metric table. Independent of nvcc:
# CUPTI's host API and the injection library are plain C++ against the toolkit's headers.
#
#   PERFGATE_WITH_CUPTI  AUTO (default): build them when the CUDA toolkit has CUPTI;
#                        ON: required (configure fails without it); OFF: never.
# Result: PERFGATE_CUPTI_ENABLED (ON/OFF); when ON, the imported target CUDA::cupti,
# PERFGATE_CUPTI_LIBRARY_DIR (where libcupti lives: the build tree's run-time search path, and
# where the command looks after the loader's own search) and PERFGATE_CUPTI_SONAME (the file
# name the command loads: "libcupti.so.13").
# As a subproject (FetchContent, add_subdirectory), AUTO builds them only for a project that has
# enabled CUDA before adding perfgate: a CPU-only project's gate needs no CUPTI.
include_guard(DIRECTORY)

set(PERFGATE_WITH_CUPTI "AUTO" CACHE STRING
    "Build the CUPTI injection collector and perfgate metrics: AUTO, ON (required) or OFF")
set_property(CACHE PERFGATE_WITH_CUPTI PROPERTY STRINGS AUTO ON OFF)

set(PERFGATE_CUPTI_ENABLED OFF)
string(TOUPPER "${PERFGATE_WITH_CUPTI}" _pg_cupti_mode)
if(NOT _pg_cupti_mode MATCHES "^(AUTO|ON|OFF|TRUE|FALSE|YES|NO|Y|N|1|0)$")
  message(FATAL_ERROR
    "perfgate: PERFGATE_WITH_CUPTI must be AUTO, ON or OFF, not '${PERFGATE_WITH_CUPTI}'")
endif()
if(NOT _pg_cupti_mode STREQUAL "AUTO" AND NOT PERFGATE_WITH_CUPTI)
  message(STATUS "perfgate: CUPTI collector disabled (PERFGATE_WITH_CUPTI=${PERFGATE_WITH_CUPTI})")
  return()
endif()

include("${CMAKE_CURRENT_LIST_DIR}/PerfGateSubproject.cmake")
perfgate_subproject_language(CUDA _pg_subproject _pg_without_cuda)
if(_pg_cupti_mode STREQUAL "AUTO" AND _pg_without_cuda)
  message(STATUS "perfgate: CUPTI collector not built: the project has not enabled CUDA "
                 "(enable it before adding perfgate, or set PERFGATE_WITH_CUPTI=ON)")
  return()
endif()

# FindCUDAToolkit looks at CUDAToolkit_ROOT, CUDA_PATH, nvcc on PATH and /usr/local/cuda.
# CUDAToolkit_INCLUDE_DIRS is a list: CMake 4 adds the CCCL folder
# (.../targets/x86_64-linux/include;.../include/cccl), so every folder of it is searched.
find_package(CUDAToolkit QUIET)
set(_pg_cupti_header "")
if(CUDAToolkit_FOUND)
  find_file(_pg_cupti_header_path cupti_profiler_host.h
    PATHS ${CUDAToolkit_INCLUDE_DIRS} NO_DEFAULT_PATH NO_CACHE)
  if(_pg_cupti_header_path)
    set(_pg_cupti_header "${_pg_cupti_header_path}")
  endif()
endif()
if(NOT TARGET CUDA::cupti OR NOT _pg_cupti_header)
  if(NOT CUDAToolkit_FOUND)
    set(_pg_cupti_why "no CUDA toolkit was found")
  elseif(NOT TARGET CUDA::cupti)
    set(_pg_cupti_why "the CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}/.. "
                      "has no CUPTI library (CUDA::cupti)")
  else()
    set(_pg_cupti_why "the CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}/.. has "
                      "no cupti_profiler_host.h (CUPTI 12.6 or later) in its include folders "
                      "${CUDAToolkit_INCLUDE_DIRS}")
  endif()
  string(CONCAT _pg_cupti_why ${_pg_cupti_why})
  if(_pg_cupti_mode STREQUAL "AUTO")
    if(CUDAToolkit_FOUND)
      # A toolkit is here but its CUPTI is not used: say so loudly, the collector is missing.
      message(WARNING "perfgate: CUPTI collector disabled: ${_pg_cupti_why}. perfgate will have "
                      "no CUPTI collector (`--collector cupti`, `perfgate metrics`); set "
                      "CUDAToolkit_ROOT to a toolkit with CUPTI, or PERFGATE_WITH_CUPTI=OFF to "
                      "silence this.")
    else()
      message(STATUS "perfgate: CUPTI collector disabled: ${_pg_cupti_why} (set CUDAToolkit_ROOT)")
    endif()
    return()
  endif()
  message(FATAL_ERROR "perfgate: PERFGATE_WITH_CUPTI=ON but ${_pg_cupti_why}. Set "
                      "CUDAToolkit_ROOT to the toolkit, or PERFGATE_WITH_CUPTI=AUTO/OFF.")
endif()

get_target_property(_pg_cupti_location CUDA::cupti IMPORTED_LOCATION)
get_filename_component(PERFGATE_CUPTI_LIBRARY_DIR "${_pg_cupti_location}" DIRECTORY)
get_filename_component(PERFGATE_CUPTI_LIBRARY_DIR "${PERFGATE_CUPTI_LIBRARY_DIR}" REALPATH)
# The soname, read from the library (objdump -p); else the toolkit's major version, which
# CUPTI's soname has followed since CUDA 12.
set(PERFGATE_CUPTI_SONAME "libcupti.so.${CUDAToolkit_VERSION_MAJOR}")
if(CMAKE_OBJDUMP)
  execute_process(COMMAND "${CMAKE_OBJDUMP}" -p "${_pg_cupti_location}"
                  OUTPUT_VARIABLE _pg_cupti_headers ERROR_QUIET RESULT_VARIABLE _pg_objdump_rc)
  if(_pg_objdump_rc EQUAL 0 AND _pg_cupti_headers MATCHES "SONAME +(libcupti[^\n ]*)")
    set(PERFGATE_CUPTI_SONAME "${CMAKE_MATCH_1}")
  endif()
endif()
set(PERFGATE_CUPTI_ENABLED ON)
message(STATUS "perfgate: CUPTI collector enabled: ${_pg_cupti_location} "
               "(CUDA ${CUDAToolkit_VERSION}; loaded at run time as ${PERFGATE_CUPTI_SONAME})")
