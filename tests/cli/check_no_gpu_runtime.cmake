# SPDX-License-Identifier: Apache-2.0
# The `perfgate` binary starts where no GPU toolkit or driver is installed: its dynamic section
# (objdump -p) names no CUDA, CUPTI, NVIDIA or ROCm library among what it needs, and no search
# path at all (a package may carry none into a toolkit).
#   cmake -DBINARY=<perfgate> -DOBJDUMP=<objdump> -P check_no_gpu_runtime.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT OBJDUMP OR NOT EXISTS "${OBJDUMP}")
  message("skipped: no objdump to read ${BINARY}'s dynamic section")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND "${OBJDUMP}" -p "${BINARY}" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "objdump -p ${BINARY} failed (${rc}): ${err}")
endif()
string(REGEX MATCHALL "NEEDED +[^\n]+" needed "${out}")
string(REGEX REPLACE "NEEDED +" "" needed "${needed}")
if(NOT needed MATCHES "libc\\.so")
  message(FATAL_ERROR "no NEEDED entries read from ${BINARY}:\n${out}")
endif()
set(gpu_runtime "cupti|cuda|nvidia|nvrtc|nvperf|nvml|amdhip|hsa-runtime|rocm|rocprof|hiprtc")
foreach(library IN LISTS needed)
  if(library MATCHES "${gpu_runtime}")
    message(FATAL_ERROR "${BINARY} links ${library}: it would not start without that runtime "
                        "(load it with dlopen, perfgate/util/runtime_library.hpp)")
  endif()
endforeach()
if(out MATCHES "(RUNPATH|RPATH) +([^\n]+)")
  message(FATAL_ERROR "${BINARY} carries a library search path ${CMAKE_MATCH_2}")
endif()
message(STATUS "ok: ${BINARY} needs ${needed}: no GPU runtime, no search path")
