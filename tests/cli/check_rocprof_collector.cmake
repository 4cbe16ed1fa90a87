# SPDX-License-Identifier: Apache-2.0
# `perfgate run --collector rocprof` against a stand-in rocprofv3 (tests/cli/fake_rocprof): the
# passes it asks for, the output format it picks by the ROCm version's --help, the second run for
# the MFMA operations counters only where matrix instructions ran, and the work that run counts.
#   cmake -DPERFGATE=<perfgate> -DFAKE_DIR=<tests/cli/fake_rocprof> -DDATA=<tests/data>
#         -DWORK=<scratch> -P check_rocprof_collector.cmake
cmake_minimum_required(VERSION 3.25)

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# collect(NAME ROCM ARCH TRUTH EXPECT_CODE): runs perfgate; sets out_NAME, log_NAME (the fake's
# log: one line per rocprofv3 run) and report NAME.json.
function(collect name rocm arch truth code)
  set(log "${WORK}/${name}.log")
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env --modify "PATH=path_list_prepend:${FAKE_DIR}"
            "FAKE_ROCPROF_ROCM=${rocm}" "FAKE_ROCPROF_TRUTH=${truth}"
            "FAKE_ROCPROF_DB=${DATA}/rocprof/rocpd_gfx942.db" "FAKE_ROCPROF_LOG=${log}"
            "PERFGATE_AMD_ARCH=${arch}"
            "${PERFGATE}" run --collector rocprof --device mi300x --report "${WORK}/${name}.json"
            -- true
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL "${code}")
    message(FATAL_ERROR "${name}: perfgate exited ${rc}, expected ${code}\n${out}${err}")
  endif()
  set(text "")
  if(EXISTS "${log}")
    file(STRINGS "${log}" text)
  endif()
  set(out_${name} "${out}${err}" PARENT_SCOPE)
  set(log_${name} "${text}" PARENT_SCOPE)
endfunction()

function(expect what text regex)
  if(NOT "${text}" MATCHES "${regex}")
    message(FATAL_ERROR "${what}: no match for '${regex}' in:\n${text}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()
function(expect_not what text regex)
  if("${text}" MATCHES "${regex}")
    message(FATAL_ERROR "${what}: '${regex}' found in:\n${text}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

set(mops F16 BF16 F32 F64 I8 F8 XF32)
list(TRANSFORM mops PREPEND "SQ_INSTS_VALU_MFMA_MOPS_")
string(JOIN " " mops_gfx942 ${mops})

# ROCm 6.x, gfx942, a BF16 GEMM on MFMA: CSV (no rocpd offered), the model's two passes with the
# kernel trace on the first, then one pass of exactly gfx942's seven MOPS counters.
collect(mfma 6 gfx942 "${DATA}/rocprof/fake_run_gfx942.json" 0)
list(LENGTH log_mfma runs)
if(NOT runs EQUAL 3)
  message(FATAL_ERROR "mfma: ${runs} rocprofv3 runs, expected 3 (2 model passes, 1 MOPS pass):\n"
                      "${log_mfma}")
endif()
list(GET log_mfma 0 first)
list(GET log_mfma 2 third)
expect("mfma: CSV where rocprofv3 offers no rocpd, kernel trace on the first pass" "${first}"
       "format=csv trace=1$")
expect_not("mfma: the model's passes ask for no MOPS counter" "${log_mfma}" "MOPS.*;")
expect("mfma: the second run asks for gfx942's MOPS counters" "${third}"
       "^pmc=${mops_gfx942} format=csv trace=0$")
expect("mfma: the second run is announced" "${out_mfma}"
       "MFMA instructions executed: a second rocprofv3 run for the matrix operations counters \\(1 pass\\)")
# 512 x 4,194,304 MOPS = 2 x 1024^3 per dispatch, against MI300X's BF16 roof (1,307,443.2 GFLOPS).
file(READ "${WORK}/mfma.json" report)
string(JSON gemm GET "${report}" kernels 0)
string(JSON kname GET "${gemm}" name)
string(JSON ops GET "${gemm}" params tensor_ops tensor_bf16)
string(JSON type GET "${gemm}" params K_type)
string(JSON limiter GET "${gemm}" predictions 0 roof limiter)
if(NOT kname STREQUAL "gemm_bf16_mfma(int)" OR NOT ops EQUAL 2147483648 OR
   NOT type STREQUAL "tensor_bf16" OR NOT limiter STREQUAL "tensor_bf16")
  message(FATAL_ERROR "mfma: ${kname}: tensor_bf16 ops ${ops}, K_type ${type}, limiter "
                      "${limiter}; expected 2147483648, tensor_bf16, tensor_bf16")
endif()
message(STATUS "ok: mfma: the GEMM's work is 2 x 1024^3 BF16 operations, judged on the BF16 roof")
expect("mfma: roof 2147483648 / 1307443.2e9 s" "${out_mfma}" "roof 1\\.643 us, compute-bound")

# No matrix instruction: no second run.
collect(plain 6 gfx942 "${DATA}/rocprof/fake_run_gfx942_no_mfma.json" 0)
list(LENGTH log_plain runs)
if(NOT runs EQUAL 2)
  message(FATAL_ERROR "plain: ${runs} rocprofv3 runs, expected 2:\n${log_plain}")
endif()
expect_not("plain: no MOPS pass without MFMA instructions" "${log_plain}" "MOPS")

# gfx950 adds its FP6/FP4 operations counter (gfx942's truth lacks it: asking there fails).
file(READ "${DATA}/rocprof/fake_run_gfx942.json" truth)
string(REPLACE "\"SQ_INSTS_VALU_MFMA_MOPS_F6F4\"" "" truth "${truth}")
file(WRITE "${WORK}/truth_gfx950.json" "${truth}")
collect(gfx950 6 gfx950 "${WORK}/truth_gfx950.json" 0)
list(GET log_gfx950 2 third)
expect("gfx950: the second run asks for the F6F4 counter too" "${third}"
       "^pmc=${mops_gfx942} SQ_INSTS_VALU_MFMA_MOPS_F6F4 format=csv trace=0$")

# A counter the GPU lacks fails the run, naming rocprofv3's reason.
string(REPLACE "\"missing\": [" "\"missing\": [\"SQ_INSTS_MFMA\"" truth "${truth}") # empty before
file(WRITE "${WORK}/truth_no_mfma_counter.json" "${truth}")
collect(refused 6 gfx942 "${WORK}/truth_no_mfma_counter.json" 3)
expect("refused: rocprofv3's failure is reported" "${out_refused}"
       "rocprofv3 true exited with 1: rocprofv3: counter 'SQ_INSTS_MFMA' is not supported")

# ROCm 7: rocpd, the default format there, asked for on every pass (timestamps are in it) when
# perfgate has SQLite (ROCPD=1); CSV with the kernel trace otherwise.
collect(rocm7 7 gfx942 "${DATA}/rocprof/fake_run_gfx942.json" 0)
if(ROCPD)
  foreach(line IN LISTS log_rocm7)
    expect("rocm7: ${line}" "${line}" "format=rocpd trace=0$")
  endforeach()
  expect("rocm7: the database's kernels are gated" "${out_rocm7}" "dgemm_tiled<double, 16>")
else()
  list(GET log_rocm7 0 first)
  expect("rocm7 without SQLite: CSV" "${first}" "format=csv trace=1$")
endif()
