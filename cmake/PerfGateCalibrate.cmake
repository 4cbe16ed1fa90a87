# SPDX-License-Identifier: Apache-2.0
# The calibration fixture of add_perf_prediction(), run by CTest as
#   cmake -DPERFGATE=<perfgate> -DBACKEND=cpu|auto-gpu -DOUTPUT=<device.json> -P PerfGateCalibrate.cmake
# It measures the local device once per build tree and reuses the result until the perfgate
# binary or the machine changes (a stamp file beside OUTPUT records both). Where there is no
# GPU, the GPU calibration leaves OUTPUT absent and passes: the perf tests then skip (77) with
# the reason themselves, rather than failing as tests whose fixture failed.
cmake_minimum_required(VERSION 3.25)
foreach(var PERFGATE BACKEND OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "PerfGateCalibrate.cmake: -D${var}=... is required")
  endif()
endforeach()

# CTest gave this fixture one GPU of a resource specification that lists them: each perf test
# calibrates the GPU it is given (`perfgate run --gpu-calibrations`), so nothing is done here.
if(BACKEND STREQUAL "auto-gpu" AND DEFINED ENV{CTEST_RESOURCE_GROUP_0_GPUS}
   AND NOT "$ENV{CTEST_RESOURCE_GROUP_0_GPUS}" MATCHES "^id:default,")
  message(STATUS "perfgate calibration: CTest assigns GPUs ($ENV{CTEST_RESOURCE_GROUP_0_GPUS} "
                 "here): each perf test calibrates its own GPU")
  return()
endif()

file(TIMESTAMP "${PERFGATE}" binary_time UTC)
cmake_host_system_information(RESULT host QUERY HOSTNAME)
cmake_host_system_information(RESULT processor QUERY PROCESSOR_DESCRIPTION)
set(stamp_text "perfgate=${PERFGATE} built=${binary_time}\nhost=${host}\nprocessor=${processor}\nbackend=${BACKEND}\n")
set(stamp "${OUTPUT}.stamp")
if(EXISTS "${stamp}")
  file(READ "${stamp}" previous)
  if(previous STREQUAL stamp_text AND (EXISTS "${OUTPUT}" OR EXISTS "${OUTPUT}.skipped"))
    message(STATUS "perfgate calibration: cached ${OUTPUT} (same perfgate binary and machine)")
    return()
  endif()
endif()
file(REMOVE "${OUTPUT}" "${OUTPUT}.skipped" "${stamp}")
get_filename_component(dir "${OUTPUT}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")

if(BACKEND STREQUAL "cpu")
  set(backends cpu)
else()
  set(backends cuda hip)
endif()
set(reasons "")
foreach(backend IN LISTS backends)
  message(STATUS "perfgate calibration: perfgate calibrate --backend ${backend} -o ${OUTPUT}")
  execute_process(COMMAND "${PERFGATE}" calibrate --backend ${backend} -o "${OUTPUT}"
                  RESULT_VARIABLE result ERROR_VARIABLE err)
  message("${err}")
  if(result EQUAL 0)
    file(WRITE "${stamp}" "${stamp_text}")
    return()
  endif()
  if(NOT result EQUAL 77)
    message(FATAL_ERROR "perfgate calibration failed\n"
      "  Command: ${PERFGATE} calibrate --backend ${backend} -o ${OUTPUT}\n"
      "  Result: ${result}\n  Output: ${err}")
  endif()
  string(REGEX MATCH "skipped: [^\n]*" reason "${err}")
  list(APPEND reasons "${backend}: ${reason}")
endforeach()
string(JOIN "\n" reason_text ${reasons})
file(WRITE "${OUTPUT}.skipped" "${reason_text}\n")
file(WRITE "${stamp}" "${stamp_text}")
message(STATUS "perfgate calibration: no local GPU, perf tests on it will skip:\n${reason_text}")
