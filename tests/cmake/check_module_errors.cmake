# SPDX-License-Identifier: Apache-2.0
# add_perf_prediction() misuse fails configuration with a message naming the problem, and the
# keywords the function parses are exactly those its documentation's synopsis lists.
#   cmake -DMODULE=<cmake/PerfGate.cmake> -DWORK=<scratch> -P check_module_errors.cmake
cmake_minimum_required(VERSION 3.25)

include("${CMAKE_CURRENT_LIST_DIR}/../support/ctest_outcomes.cmake")

# The documented synopsis versus the parsed keyword lists.
file(READ "${MODULE}" text)
string(REGEX MATCH "add_perf_prediction\\(<target>[^)]*\\)\n" synopsis "${text}")
string(REGEX MATCHALL "\\[([A-Z_]+) " documented "${synopsis}")
string(REGEX REPLACE "[[ ]" "" documented "${documented}")
string(REGEX MATCH "set\\(one_value ([^)]*)\\)" ignored "${text}")
set(one "${CMAKE_MATCH_1}")
string(REGEX MATCH "set\\(multi_value ([^)]*)\\)" ignored "${text}")
string(REGEX MATCHALL "[A-Z_]+" parsed "${one} ${CMAKE_MATCH_1}")
list(SORT documented)
list(SORT parsed)
if(NOT documented STREQUAL parsed)
  message(FATAL_ERROR "synopsis keywords (${documented}) differ from parsed keywords (${parsed})")
endif()
message(STATUS "ok: synopsis and parser agree on ${documented}")

# The helpers are functions that return what they find in variables their caller names: a
# macro would share the caller's variables implicitly (issue 54).
string(REGEX MATCHALL "\n[ \t]*macro[(][A-Za-z_0-9]+" macros "${text}")
if(macros)
  message(FATAL_ERROR "PerfGate.cmake defines macros, which share their caller's variables: "
                      "${macros}")
endif()

set(cases
  "BOGUS 1|unknown keyword or stray value: BOGUS"
  "KERNELS|keyword without a value: KERNELS"
  "EXPECT_BOUND io|EXPECT_BOUND must be memory, compute or latency, got \"io\""
  "TIME_BUDGET 30|TIME_BUDGET needs TARGET_CI"
  "CONFIRM_BUDGET soon|CONFIRM_BUDGET expects a number, got \"soon\""
  "AB_BASE_BINARY /opt/base/bench MIN_EFFICIENCY 0.5|AB_BASE_BINARY compares two builds: MIN_EFFICIENCY is a criterion of one build's gate"
  "AB_BASE_BINARY /opt/base/bench COLLECTOR gbench FLUSH_L2|AB_BASE_BINARY runs both builds: FLUSH_L2 and a recorded PROFILE"
  "REPETITIONS 0|REPETITIONS expects a whole number from 1 to 1000, got \"0\""
  "CONFIDENCE 0.3|CONFIDENCE must be at least 0.5, got 0.3"
  "RUN_SPREAD 2|RUN_SPREAD must be at most 1, got 2"
  "MIN_EFFICIENCY 1.5|MIN_EFFICIENCY must be at most 1, got 1.5"
  "MIN_EFFICIENCY fast|MIN_EFFICIENCY expects a number, got \"fast\""
  "COLLECTOR opencl|COLLECTOR must be one of auto, cupti, ncu, rocprof, gbench, nvbench, profile"
  "COLLECTOR profile|COLLECTOR profile needs PROFILE <file>"
  "PROFILE p.csv|PROFILE is only used with COLLECTOR profile"
  "LOCAL_DEVICE tpu|LOCAL_DEVICE must be cpu or gpu, got \"tpu\""
  "PIPELINE_IDG k.idg.json|PIPELINE_IDG needs PIPELINE_LATENCIES"
  "PIPELINE_LATENCIES l.json|PIPELINE_LATENCIES needs PIPELINE_IDG"
  "COLLECTOR cupti LOCAL_DEVICE cpu|LOCAL_DEVICE is for Google Benchmark binaries (COLLECTOR gbench)"
  "TIMEOUT 0|TIMEOUT must be at least 1"
  "HULL_SPECIES 8-element-classes|HULL_SPECIES needs HULL_F"
  "HULL_F 2|HULL_F needs HULL_SPECIES"
  "HULL_F two HULL_SPECIES x|HULL_F expects a number, got \"two\""
  "LABELS nightly MIN_EFFICENCY 0.99|LABELS value \"MIN_EFFICENCY\" looks like a misspelt keyword (did you mean MIN_EFFICIENCY?)"
  "DEVICES h100-sxm EXPECT_BOUNDS memory|DEVICES value \"EXPECT_BOUNDS\" looks like a misspelt keyword (did you mean EXPECT_BOUND?)"
  "ARGS --size 10 TIMOUT 5|ARGS value \"TIMOUT\" looks like a misspelt keyword (did you mean TIMEOUT?)")
# Configures a project in WORK/<id> that calls `calls` (CMake code) after including the module
# with stand-ins for perfgate::cli and an executable `bench`.
function(configure_calls id calls)
  set(dir "${WORK}/${id}")
  file(REMOVE_RECURSE "${dir}")
  file(WRITE "${dir}/CMakeLists.txt" "cmake_minimum_required(VERSION 3.25)
project(module_case LANGUAGES NONE)
enable_testing()
add_executable(perfgate::cli IMPORTED GLOBAL)
set_target_properties(perfgate::cli PROPERTIES IMPORTED_LOCATION /bin/true)
add_executable(bench IMPORTED GLOBAL)
set_target_properties(bench PROPERTIES IMPORTED_LOCATION /bin/true)
include(\"${MODULE}\")
${calls}
")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${dir}" -B "${dir}/build"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

foreach(case IN LISTS cases)
  string(REPLACE "|" ";" parts "${case}")
  list(GET parts 0 arguments)
  list(GET parts 1 expected)
  string(MAKE_C_IDENTIFIER "${arguments}" id)
  configure_calls("${id}" "add_perf_prediction(bench ${arguments})")
  if(rc EQUAL 0)
    message(FATAL_ERROR "add_perf_prediction(bench ${arguments}) configured, expected an error")
  endif()
  string(REGEX REPLACE "[ \n]+" " " flat "${err}") # CMake wraps long messages
  string(FIND "${flat}" "add_perf_prediction(bench): ${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "add_perf_prediction(bench ${arguments}): expected the message\n"
                        "  add_perf_prediction(bench): ${expected}\nin:\n${err}")
  endif()
  message(STATUS "ok: ${arguments} -> ${expected}")
endforeach()

# What must configure: values in capitals far from every keyword, and the timeouts: perfgate's
# --timeout is TIMEOUT, CTest's is 30 s longer so that perfgate can say what hung.
configure_calls(accepted "add_perf_prediction(bench COLLECTOR profile PROFILE p.csv DEVICES h100-sxm
                    ARGS --mode FAST LABELS NIGHTLY gpu TIMEOUT 5)
add_perf_prediction(bench NAME frac COLLECTOR profile PROFILE p.csv DEVICES h100-sxm
                    TIMEOUT 2.5)")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the accepted calls failed to configure:\n${err}")
endif()
# The generated tests as CTest lists them (`ctest --show-only=json-v1`): CMake 4 writes
# CTestTestfile.cmake in other words than 3.25 does.
ctest_test_entry("${WORK}/accepted/build" perf.bench bench)
ctest_test_entry("${WORK}/accepted/build" frac frac)
foreach(check
    "bench|\"--timeout\" \"5\" \"--\" \"/bin/true\" \"--mode\" \"FAST\""
    "bench|\nLABELS=NIGHTLY;gpu;perf\n" # CTest lists labels sorted
    "bench|\nTIMEOUT=35"
    "frac|\"--timeout\" \"2.5\""
    "frac|\nTIMEOUT=33")
  string(FIND "${check}" "|" bar) # the expected text holds ';': no list
  string(SUBSTRING "${check}" 0 ${bar} test)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${check}" ${bar} -1 expected)
  string(FIND "${${test}}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${expected} in the generated test ${test}:\n${${test}}")
  endif()
endforeach()
message(STATUS "ok: capitals far from keywords are values; CTest's TIMEOUT is perfgate's + 30 s")

# AB_BASE_BINARY: the test is perfgate ab of the base build against the target, the shared
# options forwarded, TIMEOUT bounding each run and the session.
configure_calls(ab "add_perf_prediction(bench NAME ab COLLECTOR gbench AB_BASE_BINARY /opt/base/bench
                    KERNELS BM_triad MAX_EFFICIENCY_DROP 0.02 TIMEOUT 100 ARGS --size 10)")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the AB_BASE_BINARY call failed to configure:\n${err}")
endif()
ctest_test_entry("${WORK}/ab/build" ab ab)
foreach(expected
    "\"ab\" \"--base\" \"/opt/base/bench\" \"--head\" \"/bin/true\" \"--collector\" \"gbench\""
    "\"--kernels\" \"BM_triad\" \"--max-efficiency-drop\" \"0.02\""
    "\"--timeout\" \"100\" \"--time-budget\" \"100\" \"--\" \"--size\" \"10\"")
  string(FIND "${ab}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${expected} in the generated test ab:\n${ab}")
  endif()
endforeach()
message(STATUS "ok: AB_BASE_BINARY runs perfgate ab of the two builds")

# PERFGATE_AB_BASE_DIR: every test compares with the base tree's binary at the same path, the
# single build's criteria left out; a recorded profile stays a run.
configure_calls(ab_dir "set(PERFGATE_AB_BASE_DIR /base-build)
add_executable(local_bench IMPORTED GLOBAL)
set_target_properties(local_bench PROPERTIES IMPORTED_LOCATION \${CMAKE_BINARY_DIR}/cpu/bench)
add_perf_prediction(local_bench NAME ab_dir COLLECTOR gbench MIN_EFFICIENCY 0.3)
add_perf_prediction(bench NAME recorded COLLECTOR profile PROFILE p.csv DEVICES h100-sxm)")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the PERFGATE_AB_BASE_DIR calls failed to configure:\n${err}")
endif()
ctest_test_entry("${WORK}/ab_dir/build" ab_dir ab_dir)
ctest_test_entry("${WORK}/ab_dir/build" recorded recorded)
foreach(check
    "ab_dir|\"ab\" \"--base\" \"/base-build/cpu/bench\" \"--head\" \"${WORK}/ab_dir/build/cpu/bench\""
    "recorded|\" \"run\" \"--collector\" \"profile\"")
  string(FIND "${check}" "|" bar)
  string(SUBSTRING "${check}" 0 ${bar} test)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${check}" ${bar} -1 expected)
  string(FIND "${${test}}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${expected} in the generated test ${test}:\n${${test}}")
  endif()
endforeach()
string(FIND "${ab_dir}" "--min-efficiency" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "PERFGATE_AB_BASE_DIR kept MIN_EFFICIENCY:\n${ab_dir}")
endif()
message(STATUS "ok: PERFGATE_AB_BASE_DIR compares every test with the base tree's binary")

# The nvbench collector's counter cache: in the build tree by default, none with
# NO_COUNTER_CACHE, and none for a collector that does not use it.
configure_calls(counters "add_perf_prediction(bench NAME cached COLLECTOR nvbench)
add_perf_prediction(bench NAME uncached COLLECTOR nvbench NO_COUNTER_CACHE)
add_perf_prediction(bench NAME gbench COLLECTOR gbench)")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the counter cache calls failed to configure:\n${err}")
endif()
ctest_test_entry("${WORK}/counters/build" cached cached)
ctest_test_entry("${WORK}/counters/build" uncached uncached)
ctest_test_entry("${WORK}/counters/build" gbench gbench)
string(FIND "${cached}" "\"--counter-cache\" \"${WORK}/counters/build/perfgate-counter-cache\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "an nvbench test without its build tree's counter cache:\n${cached}")
endif()
foreach(test uncached gbench)
  string(FIND "${${test}}" "--counter-cache" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${test} got a counter cache:\n${${test}}")
  endif()
endforeach()
message(STATUS "ok: nvbench tests keep their counters in the build tree unless NO_COUNTER_CACHE")

# Devices kept apart: CPU perf tests share a lock; GPU perf tests (and the GPU calibration)
# request one CTest "gpus" resource each, with 600 s more for calibrating the GPU they are given,
# and CTest uses the one-GPU specification unless PERFGATE_RESOURCE_SPEC_FILE names another.
configure_calls(resources "add_perf_prediction(bench NAME on_gpu COLLECTOR gbench LOCAL_DEVICE gpu
                    PIPELINE_IDG a.idg.json b.idg.json PIPELINE_LATENCIES lat.json)
add_perf_prediction(bench NAME on_cpu COLLECTOR gbench LOCAL_DEVICE cpu)")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the LOCAL_DEVICE calls failed to configure:\n${err}")
endif()
ctest_test_entry("${WORK}/resources/build" on_gpu on_gpu)
ctest_test_entry("${WORK}/resources/build" on_cpu on_cpu)
ctest_test_entry("${WORK}/resources/build" perfgate.calibrate.gpu calibrate)
# The resource specification is a variable of the generated file, not a test property.
file(READ "${WORK}/resources/build/CTestTestfile.cmake" tests)
foreach(check
    "on_gpu|\"--gpu-calibrations\" \"${WORK}/resources/build/perfgate\""
    "on_gpu|\nRESOURCE_GROUPS=gpus:1"
    "on_gpu|\"--idg\" \"a.idg.json\" \"--idg\" \"b.idg.json\" \"--latencies\" \"lat.json\""
    "on_gpu|\nTIMEOUT=1230"
    "on_cpu|\nRESOURCE_LOCK=perfgate_cpu"
    "on_cpu|\nTIMEOUT=630"
    "calibrate|\nRESOURCE_GROUPS=gpus:1"
    "tests|set(CTEST_RESOURCE_SPEC_FILE \"${WORK}/resources/build/CMakeFiles/perfgate/one-gpu.json\")")
  string(FIND "${check}" "|" bar)
  string(SUBSTRING "${check}" 0 ${bar} test)
  math(EXPR bar "${bar} + 1")
  string(SUBSTRING "${check}" ${bar} -1 expected)
  string(FIND "${${test}}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "expected ${expected} in the generated ${test}:\n${${test}}")
  endif()
endforeach()
string(FIND "${on_cpu}" "--gpu-calibrations" at)
if(NOT at EQUAL -1)
  message(FATAL_ERROR "a CPU perf test got --gpu-calibrations:\n${on_cpu}")
endif()
file(READ "${WORK}/resources/build/CMakeFiles/perfgate/one-gpu.json" one_gpu)
string(JSON id GET "${one_gpu}" local 0 gpus 0 id)
if(NOT id STREQUAL "default")
  message(FATAL_ERROR "one-gpu.json lists '${id}', expected the GPU 'default':\n${one_gpu}")
endif()
execute_process(COMMAND "${CMAKE_COMMAND}" -DPERFGATE_RESOURCE_SPEC_FILE=/gpus/resources.json
                        "${WORK}/resources/build" RESULT_VARIABLE rc ERROR_VARIABLE err)
file(READ "${WORK}/resources/build/CTestTestfile.cmake" tests)
string(FIND "${tests}" "set(CTEST_RESOURCE_SPEC_FILE \"/gpus/resources.json\")" at)
if(NOT rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "PERFGATE_RESOURCE_SPEC_FILE was not CTest's specification:\n${err}${tests}")
endif()
message(STATUS "ok: GPU perf tests request gpus:1 and the calibration time; CPU ones the lock")
