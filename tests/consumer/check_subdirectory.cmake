# SPDX-License-Identifier: Apache-2.0
# Configures tests/consumer with perfgate added by add_subdirectory, builds the consumer's own
# programs, then checks that its perf tests and the calibration fixture are registered (they run
# in check_consumer.cmake). What a subproject changes is configure (paths, target names, options)
# and the consumer's targets next to perfgate's; perfgate's sources compile the same way as in
# its own tree, which the main build already does (compiling them again here cost 5.7 of CI's
# 30 minutes).
#   cmake -DPERFGATE_SOURCE_DIR=<perfgate> -DSOURCE=<tests/consumer> -DWORK=<scratch> -P ...
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/ctest_outcomes.cmake")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(step configure build)
  if(step STREQUAL "configure")
    # GPU micro-benchmarks are not needed to check the wiring; they build in perfgate's own tree.
    set(command "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}"
        "-DPERFGATE_SOURCE_DIR=${PERFGATE_SOURCE_DIR}" -DPERFGATE_WITH_CUDA=OFF
        -DPERFGATE_WITH_HIP=OFF)
  else()
    set(command "${CMAKE_COMMAND}" --build "${WORK}" --parallel 2 --target stream_benchmarks
        gpu_saxpy)
  endif()
  execute_process(COMMAND ${command} WORKING_DIRECTORY "${WORK}" RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${step} failed (${rc}):\n${out}\n${err}")
  endif()
endforeach()
ctest_test_names("${WORK}" perf_tests -L perf)
foreach(test perfgate.calibrate.cpu perf.triad perf.triad_strided perf.dot_expect_compute
             perf.gpu_saxpy)
  if(NOT test IN_LIST perf_tests)
    message(FATAL_ERROR "add_subdirectory consumer: test ${test} is not registered: ${perf_tests}")
  endif()
endforeach()
ctest_test_names("${WORK}" all_tests)
if(all_tests MATCHES "perfgate\\.test\\.")
  message(FATAL_ERROR "perfgate's own tests leaked into the consumer: ${all_tests}")
endif()
message(STATUS "ok: add_subdirectory(perfgate) registers the consumer's perf tests")
