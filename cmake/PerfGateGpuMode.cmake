# SPDX-License-Identifier: Apache-2.0
# The AUTO / ON / OFF switch of a GPU language's micro-benchmarks (PerfGateCuda.cmake,
# PerfGateHip.cmake), read once for both.
include_guard(GLOBAL)

# `option` (PERFGATE_WITH_CUDA) as AUTO, ON or OFF in `out`; any boolean CMake spells is taken,
# anything else fails configuration. OFF says so, naming `what` (CUDA).
function(_perfgate_gpu_mode option what out)
  string(TOUPPER "${${option}}" mode)
  if(NOT mode MATCHES "^(AUTO|ON|OFF|TRUE|FALSE|YES|NO|Y|N|1|0)$")
    message(FATAL_ERROR "perfgate: ${option} must be AUTO, ON or OFF, not '${${option}}'")
  endif()
  if(mode STREQUAL "AUTO")
    set(${out} AUTO PARENT_SCOPE)
  elseif(mode)
    set(${out} ON PARENT_SCOPE)
  else()
    message(STATUS "perfgate: ${what} micro-benchmarks disabled (${option}=${${option}})")
    set(${out} OFF PARENT_SCOPE)
  endif()
endfunction()
