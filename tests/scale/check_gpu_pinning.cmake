# SPDX-License-Identifier: Apache-2.0
# Four GPU perf tests on a machine with four (fake) GPUs: `perfgate resources` writes the
# resource specification from recorded NVML answers; with it `ctest -j4` runs the four tests at
# once, each pinned to a different GPU (CUDA_VISIBLE_DEVICES) and gated against that GPU's own
# calibration; without it they run one at a time on the default GPU. A GPU whose calibration is
# missing or older than perfgate is calibrated by its first test (here: skipped, no such GPU).
#   cmake -DPERFGATE=<perfgate> -DMODULE=<cmake/PerfGate.cmake> -DSOURCE=<tests/scale>
#         -DDATA=<tests/data> -DWORK=<scratch> -P check_gpu_pinning.cmake
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/run_step.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../support/ctest_outcomes.cmake")

# ctest over the four perf tests (the calibration fixture left out: the device files below
# stand for it), FAKE_GPU_SECONDS per run; `ctest_out` gets the output, `run_passed`,
# `run_failed` and `run_skipped` the outcomes from CTest's JUnit report.
function(run_perf_tests seconds)
  file(MAKE_DIRECTORY "${WORK}/log")
  file(REMOVE "${WORK}/junit.xml")
  execute_process(COMMAND "${CMAKE_COMMAND}" -E env FAKE_GPU_SECONDS=${seconds}
                          "${CMAKE_CTEST_COMMAND}" -j4 -R "^perf\\.fake_gpu_" -FS ".*"
                          --output-on-failure --output-junit "${WORK}/junit.xml" ${ARGN}
                  WORKING_DIRECTORY "${WORK}/build" RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  ctest_outcomes("${WORK}/junit.xml" run)
  foreach(kind passed failed skipped)
    list(LENGTH run_${kind} n)
    set(run_${kind} "${n}" PARENT_SCOPE)
  endforeach()
  set(ctest_out "${out}${err}" PARENT_SCOPE)
  set(ctest_rc "${rc}" PARENT_SCOPE)
endfunction()

# Each test's one run from its log: start_<i>, end_<i>, gpu_<i> (CUDA_VISIBLE_DEVICES).
function(read_runs)
  foreach(i RANGE 3)
    file(STRINGS "${WORK}/log/run.${i}" lines)
    list(LENGTH lines n)
    if(NOT n EQUAL 1)
      message(FATAL_ERROR "perf.fake_gpu_${i} ran ${n} times, expected once: ${lines}")
    endif()
    string(REPLACE " " ";" fields "${lines}")
    list(GET fields 0 start)
    list(GET fields 1 end)
    list(GET fields 2 gpu)
    set(start_${i} ${start} PARENT_SCOPE)
    set(end_${i} ${end} PARENT_SCOPE)
    set(gpu_${i} ${gpu} PARENT_SCOPE)
  endforeach()
endfunction()

function(local_device_of i out_var)
  file(READ "${WORK}/build/perfgate-reports/perf.fake_gpu_${i}.json" report)
  string(JSON id GET "${report}" devices 0 id)
  set(${out_var} "${id}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
run("configure the project" "${CMAKE_COMMAND}" -S "${SOURCE}/project" -B "${WORK}/build"
    "-DPERFGATE=${PERFGATE}" "-DPERFGATE_MODULE=${MODULE}"
    "-DFAKE_BENCHMARK=${SOURCE}/fake_gpu_benchmark.sh" "-DLOG=${WORK}/log/run")
run("perfgate resources" "${PERFGATE}" resources --replay "${DATA}/resources/nvml_4x_h100.json"
    -o "${WORK}/resources.json")

# Each GPU's calibration, told apart by its id (fake-<n>), and the default GPU's.
file(READ "${DATA}/devices/valid_device.json" template)
file(READ "${WORK}/resources.json" spec)
foreach(n RANGE 3)
  string(JSON id_${n} GET "${spec}" local 0 gpus ${n} id)
  string(JSON device SET "${template}" id "\"fake-${n}\"")
  file(WRITE "${WORK}/build/perfgate/gpu-${id_${n}}.json" "${device}")
  # What the GPU's tests must be pinned to: the UUID NVML gave.
  string(REGEX REPLACE "^nvidia_" "GPU-" uuid_${n} "${id_${n}}")
  string(REPLACE "_" "-" uuid_${n} "${uuid_${n}}")
endforeach()
string(JSON device SET "${template}" id "\"fake-default\"")
file(WRITE "${WORK}/build/perfgate/local-gpu.json" "${device}")

# 1. With the specification: four at once, four GPUs, each gated on its own calibration.
run_perf_tests(3 --resource-spec-file "${WORK}/resources.json")
if(NOT ctest_rc EQUAL 0 OR NOT run_passed EQUAL 4)
  message(FATAL_ERROR "ctest -j4 with four GPUs did not pass all four tests:\n${ctest_out}")
endif()
read_runs()
set(latest_start 0)
set(earliest_end 99999999999999999999)
set(gpus_seen "")
foreach(i RANGE 3)
  if(start_${i} GREATER latest_start)
    set(latest_start ${start_${i}})
  endif()
  if(end_${i} LESS earliest_end)
    set(earliest_end ${end_${i}})
  endif()
  list(FIND gpus_seen "${gpu_${i}}" twice)
  if(NOT twice EQUAL -1)
    message(FATAL_ERROR "two tests ran on ${gpu_${i}}")
  endif()
  list(APPEND gpus_seen "${gpu_${i}}")
  set(n -1)
  foreach(m RANGE 3)
    if(gpu_${i} STREQUAL uuid_${m})
      set(n ${m})
    endif()
  endforeach()
  if(n EQUAL -1)
    message(FATAL_ERROR "perf.fake_gpu_${i} ran with CUDA_VISIBLE_DEVICES=${gpu_${i}}, none of "
                        "the GPUs of the specification")
  endif()
  local_device_of(${i} local)
  if(NOT local STREQUAL "fake-${n}")
    message(FATAL_ERROR "perf.fake_gpu_${i} ran on ${gpu_${i}} but was gated on '${local}', "
                        "expected that GPU's calibration fake-${n}")
  endif()
  message(STATUS "ok: perf.fake_gpu_${i} on ${gpu_${i}}, gated on fake-${n}")
endforeach()
if(NOT latest_start LESS earliest_end)
  message(FATAL_ERROR "the four tests did not all run at once: the last started at "
                      "${latest_start} ns, after the first ended at ${earliest_end} ns")
endif()
message(STATUS "ok: four perf tests in parallel, each pinned to its own GPU and calibration")

# 2. Without one: CTest uses the module's one-GPU specification, one test at a time, unpinned.
file(REMOVE_RECURSE "${WORK}/log" "${WORK}/build/perfgate-reports")
run_perf_tests(1)
if(NOT ctest_rc EQUAL 0 OR NOT run_passed EQUAL 4)
  message(FATAL_ERROR "ctest -j4 without a specification did not pass all four:\n${ctest_out}")
endif()
read_runs()
set(intervals "")
foreach(i RANGE 3)
  if(NOT gpu_${i} STREQUAL "unset")
    message(FATAL_ERROR "perf.fake_gpu_${i} was pinned (${gpu_${i}}) without a specification")
  endif()
  local_device_of(${i} local)
  if(NOT local STREQUAL "fake-default")
    message(FATAL_ERROR "perf.fake_gpu_${i} was gated on '${local}', expected fake-default")
  endif()
  foreach(j RANGE 3)
    if(NOT i EQUAL j AND start_${i} LESS end_${j} AND start_${j} LESS end_${i})
      message(FATAL_ERROR "perf.fake_gpu_${i} and perf.fake_gpu_${j} overlapped on one GPU")
    endif()
  endforeach()
endforeach()
message(STATUS "ok: without a specification, one at a time on the default GPU")

# 3. A GPU without its calibration, and one whose calibration is older than perfgate: their
# tests calibrate them first, which here (no such GPU) skips the test with the reason.
file(REMOVE "${WORK}/build/perfgate/gpu-${id_0}.json")
execute_process(COMMAND touch -d "2000-01-01" "${WORK}/build/perfgate/gpu-${id_1}.json")
file(REMOVE_RECURSE "${WORK}/log")
run_perf_tests(0 --resource-spec-file "${WORK}/resources.json")
# A skipped test's output is in CTest's log only.
file(READ "${WORK}/build/Testing/Temporary/LastTest.log" test_log)
foreach(n 0 1)
  if(NOT test_log MATCHES "calibrating GPU ${id_${n}} \\(CUDA_VISIBLE_DEVICES=${uuid_${n}}\\)")
    message(FATAL_ERROR "GPU ${n}'s test did not calibrate it:\n${test_log}")
  endif()
endforeach()
set(n_skipped ${run_skipped})
string(REGEX MATCHALL "\nperfgate: calibrating GPU " calibrated "${test_log}")
list(LENGTH calibrated n_calibrated)
string(REGEX MATCHALL "\nperfgate: skipped: " skip_reasons "${test_log}")
list(LENGTH skip_reasons n_reasons)
if(NOT ctest_rc EQUAL 0 OR NOT n_skipped EQUAL 2 OR NOT n_calibrated EQUAL 2
   OR NOT n_reasons EQUAL 2)
  message(FATAL_ERROR "expected the two GPUs without a usable calibration calibrated and "
                      "skipped, the two others gated on theirs:\n${ctest_out}")
endif()
message(STATUS "ok: a missing or stale calibration is measured by the GPU's first test")

# 4. The calibration fixture given a GPU of such a specification leaves it to the tests.
execute_process(COMMAND "${CMAKE_COMMAND}" -E env "CTEST_RESOURCE_GROUP_0_GPUS=id:${id_0},slots:1"
                        "${CMAKE_COMMAND}" "-DPERFGATE=${PERFGATE}" -DBACKEND=auto-gpu
                        "-DOUTPUT=${WORK}/fixture/local-gpu.json" -P "${MODULE}/../PerfGateCalibrate.cmake"
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT "${out}${err}" MATCHES "each perf test calibrates its own GPU"
   OR EXISTS "${WORK}/fixture")
  message(FATAL_ERROR "the calibration fixture did not leave pinned GPUs to the tests (${rc}):\n"
                      "${out}${err}")
endif()
message(STATUS "ok: the calibration fixture leaves GPUs CTest assigns to their tests")
