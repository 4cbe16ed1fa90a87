# SPDX-License-Identifier: Apache-2.0
# cmake -DEXE=<perfgate-microbench-*> -DRUNTIME=CUDA|HIP -DMODE=quick|bad_argument
#       -P run_microbench.cmake
cmake_minimum_required(VERSION 3.25)
foreach(_var IN ITEMS EXE RUNTIME MODE)
  if(NOT DEFINED ${_var})
    message(FATAL_ERROR "run_microbench.cmake: ${_var} is not set")
  endif()
endforeach()

if(MODE STREQUAL "bad_argument")
  execute_process(COMMAND "${EXE}" --no-such-option RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 50)
  if(NOT rc STREQUAL "2" OR NOT err MATCHES "unknown argument '--no-such-option'")
    message(FATAL_ERROR "expected exit 2 and \"unknown argument\", got exit ${rc}\nstderr:\n${err}")
  endif()
  return()
endif()

# One right outcome per machine: a measurement where it has a GPU of this runtime (NVIDIA:
# `nvidia-smi -L` lists one; AMD: the ROCm kernel driver's /dev/kfd exists), else a skip.
set(_gpu FALSE)
if(RUNTIME STREQUAL "CUDA")
  find_program(_smi nvidia-smi)
  if(_smi)
    execute_process(COMMAND "${_smi}" -L RESULT_VARIABLE _smi_rc OUTPUT_VARIABLE _gpus ERROR_QUIET)
    if(_smi_rc EQUAL 0 AND _gpus MATCHES "^GPU 0")
      set(_gpu TRUE)
    endif()
  endif()
elseif(EXISTS "/dev/kfd")
  set(_gpu TRUE)
endif()

execute_process(COMMAND "${EXE}" --quick RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 580)
if(NOT _gpu)
  if(NOT rc STREQUAL "77" OR NOT err MATCHES "no ${RUNTIME} device: ")
    message(FATAL_ERROR "no ${RUNTIME} GPU here: expected exit 77 and \"no ${RUNTIME} device: "
                        "<reason>\", got exit ${rc}\nstderr:\n${err}")
  endif()
  string(STRIP "${err}" err)
  message(STATUS "no ${RUNTIME} GPU here, skipped as expected: ${err}")
  return()
endif()
if(NOT rc STREQUAL "0")
  message(FATAL_ERROR "${EXE} --quick failed with exit ${rc}\nstderr:\n${err}")
endif()
if(NOT out MATCHES "\"schema\": \"perfgate-microbench/1\"")
  message(FATAL_ERROR "exit 0 but stdout holds no perfgate-microbench/1 JSON:\n${out}")
endif()

# A GPU was there: check the document's shape.
string(JSON _schema ERROR_VARIABLE _jerr GET "${out}" schema)
if(_jerr)
  message(FATAL_ERROR "stdout is not valid JSON (${_jerr}):\n${out}")
endif()
string(TOLOWER "${RUNTIME}" _backend)
string(JSON _got_backend GET "${out}" backend)
if(NOT _got_backend STREQUAL _backend)
  message(FATAL_ERROR "backend is '${_got_backend}', expected '${_backend}'")
endif()
# The tensor keys are tensor_* where warp-level MMA / MFMA is the fastest matrix path, mma_sync_*
# on Hopper and datacenter Blackwell but for FP64, whose DMMA is the fastest path everywhere
# (microbench/gpu/gpu_tensor.hpp). Hopper and datacenter Blackwell then run the wgmma / tcgen05
# precisions last, as tensor_*.
string(JSON _arch GET "${out}" device arch)
if(RUNTIME STREQUAL "CUDA" AND out MATCHES "\"mma_sync_fp16_gflops\"")
  set(_tensor mma_sync_)
else()
  set(_tensor tensor_)
endif()
set(_expected fp32_gflops fp64_gflops fp16_gflops int_mad_gops int_add_gops ldst_ginst
              dram_read_gbs dram_write_gbs dram_copy_gbs l2_gbs ${_tensor}fp16_gflops
              ${_tensor}bf16_gflops ${_tensor}tf32_gflops tensor_fp64_gflops
              ${_tensor}fp8_gflops ${_tensor}int8_gops uncoalesced_gather_gbs
              uncoalesced_scatter_gbs uncoalesced_gbs bus_h2d_gbs bus_d2h_gbs bus_gbs)
# _async_measured: those that must hold a rate (perfgate builds sm_90a, sm_100a and sm_103a;
# tcgen05's INT8 is sm_100a's alone, so it may be null on Blackwell).
set(_async_measured "")
if(RUNTIME STREQUAL "CUDA" AND _arch MATCHES "^sm_(90|10[0-9])$")
  set(_async_measured tensor_fp16_gflops tensor_bf16_gflops tensor_tf32_gflops tensor_fp8_gflops)
  list(APPEND _expected ${_async_measured} tensor_int8_gops)
  if(_arch STREQUAL "sm_90")
    list(APPEND _async_measured tensor_int8_gops)
  endif()
endif()
string(JSON _n LENGTH "${out}" results)
set(_keys "")
math(EXPR _last "${_n} - 1")
foreach(_i RANGE ${_last})
  string(JSON _key GET "${out}" results ${_i} key)
  string(JSON _best GET "${out}" results ${_i} best)
  list(APPEND _keys "${_key}")
  # fp16 and the tensor precisions are null where the device lacks them; not the asynchronous
  # ones listed above: null there is a failed result check or a fault.
  math(EXPR _from_end "${_n} - ${_i}")
  set(_async_required FALSE)
  if(_from_end LESS_EQUAL 5 AND _key IN_LIST _async_measured)
    set(_async_required TRUE)
  endif()
  if((NOT _key MATCHES "^(fp16_gflops|tensor_|mma_sync_)" OR _async_required) AND
     NOT _best GREATER 0)
    string(JSON _note ERROR_VARIABLE _no_note GET "${out}" results ${_i} note)
    message(FATAL_ERROR "${_key}: best rate is '${_best}', expected a positive number (${_note})")
  endif()
endforeach()
# The boat hull inputs: the mix of gather and scatter lies between them (their harmonic mean),
# and bus_gbs is the slower copy direction.
foreach(_key IN ITEMS uncoalesced_gather_gbs uncoalesced_scatter_gbs uncoalesced_gbs bus_h2d_gbs
                      bus_d2h_gbs bus_gbs)
  list(FIND _keys ${_key} _i)
  if(_i GREATER_EQUAL 0)
    string(JSON _best_${_key} GET "${out}" results ${_i} best)
  endif()
endforeach()
if(DEFINED _best_uncoalesced_gbs)
  if(_best_uncoalesced_gbs GREATER _best_uncoalesced_gather_gbs AND
     _best_uncoalesced_gbs GREATER _best_uncoalesced_scatter_gbs)
    message(FATAL_ERROR "uncoalesced_gbs ${_best_uncoalesced_gbs} exceeds both gather "
                        "${_best_uncoalesced_gather_gbs} and scatter ${_best_uncoalesced_scatter_gbs}")
  endif()
endif()
if(DEFINED _best_bus_gbs)
  if(_best_bus_gbs GREATER _best_bus_h2d_gbs OR _best_bus_gbs GREATER _best_bus_d2h_gbs)
    message(FATAL_ERROR "bus_gbs ${_best_bus_gbs} is not the slower of host-to-device "
                        "${_best_bus_h2d_gbs} and device-to-host ${_best_bus_d2h_gbs}")
  endif()
endif()
if(NOT _keys STREQUAL _expected)
  message(FATAL_ERROR "result keys are '${_keys}', expected '${_expected}'")
endif()
string(JSON _sweep LENGTH "${out}" sweep)
if(NOT _sweep EQUAL 9)
  message(FATAL_ERROR "the roofline sweep has ${_sweep} points, expected 9")
endif()
# Which card: CUDA's UUID as nvidia-smi lists it (one of `nvidia-smi -L`'s, which lists every
# GPU in its own order), and a driver version; HIP's as rocminfo prints it.
string(JSON _uuid ERROR_VARIABLE _no_uuid GET "${out}" device uuid)
string(JSON _driver ERROR_VARIABLE _no_driver GET "${out}" device driver)
if(_no_uuid OR _no_driver)
  message(FATAL_ERROR "device.uuid or device.driver missing on a GPU: ${_no_uuid} ${_no_driver}")
endif()
if(RUNTIME STREQUAL "CUDA")
  string(FIND "${_gpus}" "(UUID: ${_uuid})" _listed)
  if(_listed LESS 0)
    message(FATAL_ERROR "device.uuid '${_uuid}' is not one nvidia-smi -L lists:\n${_gpus}")
  endif()
elseif(NOT _uuid MATCHES "^GPU-[0-9a-fA-F]+$")
  message(FATAL_ERROR "device.uuid '${_uuid}' is not GPU-<hex digits> as rocminfo prints it")
endif()
string(JSON _name GET "${out}" device name)
message(STATUS "measured ${_name} (${_uuid}, driver ${_driver})")
