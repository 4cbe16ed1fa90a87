# SPDX-License-Identifier: Apache-2.0
# Installs perfgate, builds tests/consumer against the install tree with find_package(PerfGate),
# runs `ctest -L perf` there and asserts each test's outcome and message.
#   cmake -DPERFGATE_BUILD=<dir> -DSOURCE=<tests/consumer> -DWORK=<scratch> -P check_consumer.cmake
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/run_step.cmake")

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
                WORKING_DIRECTORY "${WORK}/build" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
set(out "${out}${err}")
message("${out}")
if(rc EQUAL 0)
  message(FATAL_ERROR "consumer: ctest -L perf passed, but two tests must fail")
endif()

string(REGEX MATCHALL "perfgate\\.calibrate\\.cpu \\.+ +Passed" calibrations "${out}")
list(LENGTH calibrations n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "consumer: the CPU calibration fixture ran ${n} times, expected once")
endif()
message(STATUS "ok: the calibration fixture ran once for 3 CPU perf tests")
expect("${out}" "perf\\.triad \\.+ +Passed" "the STREAM triad passes MIN_EFFICIENCY 0.25")
expect("${out}" "perf\\.triad_strided \\.+\\*\\*\\*Failed" "the strided triad fails")
expect("${out}" "FAIL  BM_triad_strided[^\n]*\n +efficiency 0\\.[0-2][0-9] below MIN_EFFICIENCY 0\\.25 on local-cpu: measured [0-9.]+ m?s, roof [0-9.]+ m?s"
       "... with an efficiency message")
expect("${out}" "perf\\.dot_expect_compute \\.+\\*\\*\\*Failed" "the dot product fails")
expect("${out}" "expected compute-bound on local-cpu, found memory-bound \\(O_krn 0\\.125 <= O_ridge"
       "... with a class message")
# The GPU test: skipped (77) without an NVIDIA GPU, measured and passed with one.
find_program(nvidia_smi nvidia-smi)
set(gpus "")
if(nvidia_smi)
  execute_process(COMMAND "${nvidia_smi}" -L OUTPUT_VARIABLE gpus ERROR_QUIET)
endif()
if(gpus MATCHES "^GPU 0")
  expect("${out}" "perf\\.gpu_saxpy \\.+ +Passed" "the GPU test passes on this GPU")
else()
  expect("${out}" "perf\\.gpu_saxpy \\.+\\*\\*\\*Skipped" "the GPU-only test is skipped (77)")
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
