# SPDX-License-Identifier: Apache-2.0
# Installs perfgate, builds tests/consumer against the install tree with find_package(PerfGate),
# runs `ctest -L perf` there and asserts each test's outcome and message.
#   cmake -DPERFGATE_BUILD=<dir> -DSOURCE=<tests/consumer> -DWORK=<scratch> -P check_consumer.cmake
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/run_step.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../support/ctest_outcomes.cmake")

function(expect output regex what)
  if(NOT output MATCHES "${regex}")
    message(FATAL_ERROR "consumer: ${what}: no match for '${regex}' in:\n${output}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

file(REMOVE_RECURSE "${WORK}")
run("install" "${CMAKE_COMMAND}" --install "${PERFGATE_BUILD}" --prefix "${WORK}/install")
run("configure the consumer" "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}/build"
    "-DCMAKE_PREFIX_PATH=${WORK}/install" -DCMAKE_BUILD_TYPE=Release)
run("build the consumer" "${CMAKE_COMMAND}" --build "${WORK}/build" --parallel 2)

execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -L perf --output-on-failure
                        --output-junit "${WORK}/junit.xml"
                WORKING_DIRECTORY "${WORK}/build" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
ctest_outcomes("${WORK}/junit.xml" perf)
# outcome(<test> <passed|failed|skipped> <what>): the test's outcome in CTest's JUnit report.
function(outcome test kind what)
  list(FIND perf_${kind} "${test}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "consumer: ${what}: ${test} is not among the ${kind} tests "
                        "(passed: ${perf_passed}; failed: ${perf_failed}; skipped: ${perf_skipped})")
  endif()
  message(STATUS "ok: ${what}")
endfunction()
set(out "${out}${err}")
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "consumer: ctest -L perf passed, but two tests must fail")
endif()

set(calibrations ${perf_passed})
list(FILTER calibrations INCLUDE REGEX "^perfgate\\.calibrate\\.cpu$")
list(LENGTH calibrations n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "consumer: the CPU calibration fixture ran ${n} times, expected once")
endif()
message(STATUS "ok: the calibration fixture ran once for 4 CPU perf tests")
outcome(perf.triad passed "the STREAM triad passes MIN_EFFICIENCY 0.25")
outcome(perf.triad_strided failed "the strided triad fails")
expect("${out}" "FAIL  BM_triad_strided[^\n]*\n +efficiency 0\\.[0-2][0-9] below MIN_EFFICIENCY 0\\.25 on local-cpu: measured [0-9.]+ m?s, roof [0-9.]+ m?s"
       "... with an efficiency message")
outcome(perf.copy_bytes_only passed "a benchmark with SetBytesProcessed alone is judged")
file(READ "${WORK}/build/perfgate-reports/perf.copy_bytes_only.json" bytes_only)
expect("${bytes_only}" "\"compute_declared\": false" "... against the memory roof alone")
outcome(perf.dot_expect_compute failed "the dot product fails")
expect("${out}" "expected compute-bound on local-cpu, found memory-bound \\(O_krn 0\\.125 <= O_ridge"
       "... with a class message")
# The GPU test: skipped (77) without an NVIDIA GPU, measured and passed with one.
find_program(nvidia_smi nvidia-smi)
set(gpus "")
if(nvidia_smi)
  execute_process(COMMAND "${nvidia_smi}" -L OUTPUT_VARIABLE gpus ERROR_QUIET)
endif()
if(gpus MATCHES "^GPU 0")
  outcome(perf.gpu_saxpy passed "the GPU test passes on this GPU")
else()
  outcome(perf.gpu_saxpy skipped "the GPU-only test is skipped (77)")
endif()
expect("${out}" "<CTestMeasurement type=\"numeric/double\" name=\"BM_triad_strided\\.efficiency\">"
       "CDash measurement lines")
if(NOT EXISTS "${WORK}/build/perfgate-reports/perf.triad.json")
  message(FATAL_ERROR "consumer: no report at ${WORK}/build/perfgate-reports/perf.triad.json")
endif()

# A second run reuses the calibration: same perfgate binary, same machine.
execute_process(COMMAND "${CMAKE_CTEST_COMMAND}" -L perf -R "^perf\\.triad$" -V
                WORKING_DIRECTORY "${WORK}/build" OUTPUT_VARIABLE again ERROR_VARIABLE again_err)
expect("${again}${again_err}" "perfgate calibration: cached" "the calibration is cached")
