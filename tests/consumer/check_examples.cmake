# SPDX-License-Identifier: Apache-2.0
# The examples project (examples/) configures and builds against perfgate's install tree with
# every GPU toolchain present: the CUDA and HIP examples compile here, and the GPU perf tests
# are registered (they skip without a GPU when run).
#   cmake -DPERFGATE_BUILD=<dir> -DSOURCE=<examples> -DWORK=<scratch> -P check_examples.cmake
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/ctest_outcomes.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(step install configure build list)
  if(step STREQUAL "install")
    set(command "${CMAKE_COMMAND}" --install "${PERFGATE_BUILD}" --prefix "${WORK}/install")
  elseif(step STREQUAL "configure")
    set(command "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}/build"
        "-DCMAKE_PREFIX_PATH=${WORK}/install" -DCMAKE_BUILD_TYPE=Release)
  elseif(step STREQUAL "build")
    set(command "${CMAKE_COMMAND}" --build "${WORK}/build" --parallel 2)
  else()
    set(command "${CMAKE_CTEST_COMMAND}" -N -L perf)
  endif()
  execute_process(COMMAND ${command} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "examples: ${step} failed (${rc}):\n${out}\n${err}")
  endif()
  if(step STREQUAL "configure")
    set(configure_log "${out}")
  endif()
endforeach()
ctest_test_names("${WORK}/build" tests -L perf)
set(expected perf.cpu.triad perf.cpu.stencil perf.cpu.sgemm_naive perf.profile.red_black_sor)
if(configure_log MATCHES "CUDA micro-benchmarks enabled|CUDA .*enabled")
  list(APPEND expected perf.cuda.saxpy perf.cuda.rbsor perf.cuda.sgemm_tiled perf.cuda.reduction)
endif()
if(configure_log MATCHES "HIP .*enabled")
  list(APPEND expected perf.hip.saxpy perf.hip.sgemm_tiled)
endif()
foreach(test IN LISTS expected)
  if(NOT test IN_LIST tests)
    message(FATAL_ERROR "examples: ${test} is not registered:\n${tests}\n${configure_log}")
  endif()
endforeach()
message(STATUS "ok: the examples build and register ${expected}")
