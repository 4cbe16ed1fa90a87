# SPDX-License-Identifier: Apache-2.0
# CUDA detection for perfgate's GPU micro-benchmarks (microbench/gpu).
#
#   PERFGATE_WITH_CUDA  AUTO (default): enable CUDA when a working nvcc is found, else skip;
#                       ON: CUDA is required (configure fails without it); OFF: never.
# Result: PERFGATE_CUDA_ENABLED (ON/OFF) in the including scope; when ON, the CUDA language is
# enabled. Include this from the top-level CMakeLists.txt (enable_language must run there).
#
# Architectures: CMAKE_CUDA_ARCHITECTURES (or the CUDAARCHS environment variable) wins when
# set; otherwise perfgate builds 80;90a;100a;103a;120 (A100, H100/H200, B200, B300, RTX 50xx),
# never `native` (there may be no GPU on the build machine). Hopper and datacenter Blackwell are
# built architecture-specific (sm_90a, sm_100a, sm_103a: each cubin runs on its own compute
# capability only): the micro-benchmarks measure their tensor peaks with wgmma and tcgen05, which
# plain sm_90 / sm_100 code cannot carry. (The family-specific sm_100f would cover 10.0 and 10.3
# at once, but CMake 3.25 refuses the suffix.) A device between these (compute capability 11.0)
# JIT-compiles the sm_80 PTX. PERFGATE_CUDA_ARCHITECTURES, when set, gives the micro-benchmarks
# architectures of their own (the project's code keeps CMAKE_CUDA_ARCHITECTURES).
#
# As a subproject (FetchContent, add_subdirectory), AUTO builds them only for a project that has
# enabled CUDA before adding perfgate, and for its CMAKE_CUDA_ARCHITECTURES: a CPU-only project
# compiles no GPU code (docs/ci.md, "Taking perfgate into a CMake project").
include_guard(DIRECTORY)
include(CheckLanguage)
include("${CMAKE_CURRENT_LIST_DIR}/PerfGateGpuMode.cmake")

set(PERFGATE_WITH_CUDA "AUTO" CACHE STRING
    "Build the CUDA micro-benchmarks: AUTO (if nvcc works), ON (required) or OFF")
set_property(CACHE PERFGATE_WITH_CUDA PROPERTY STRINGS AUTO ON OFF)
set(PERFGATE_CUDA_DEFAULT_ARCHITECTURES "80;90a;100a;103a;120")
set(PERFGATE_CUDA_ARCHITECTURES "" CACHE STRING
    "CUDA architectures of perfgate's micro-benchmarks (empty: CMAKE_CUDA_ARCHITECTURES)")

set(PERFGATE_CUDA_ENABLED OFF)
_perfgate_gpu_mode(PERFGATE_WITH_CUDA CUDA _pg_cuda_mode)
if(_pg_cuda_mode STREQUAL "OFF")
  return()
endif()
string(COMPARE EQUAL "${_pg_cuda_mode}" "ON" _pg_cuda_required)

include("${CMAKE_CURRENT_LIST_DIR}/PerfGateSubproject.cmake")
perfgate_subproject_skips(CUDA "${_pg_cuda_mode}" "${PERFGATE_CUDA_ARCHITECTURES}"
                          _pg_subproject _pg_skip_cuda)
if(_pg_skip_cuda)
  return()
endif()

# CMake only searches PATH for nvcc; the toolkit's usual homes are tried too so that a default
# install (/usr/local/cuda) is found without PATH changes. The child configure run by
# check_language() inherits the environment, hence CUDACXX.
if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
  find_program(_pg_nvcc nvcc NO_CACHE)
  if(NOT _pg_nvcc)
    foreach(_pg_root IN ITEMS "$ENV{CUDA_PATH}" "$ENV{CUDA_HOME}" "$ENV{CUDAToolkit_ROOT}"
                              /usr/local/cuda /opt/cuda)
      if(_pg_root AND EXISTS "${_pg_root}/bin/nvcc")
        set(ENV{CUDACXX} "${_pg_root}/bin/nvcc")
        break()
      endif()
    endforeach()
  endif()
  unset(_pg_nvcc)
endif()

check_language(CUDA)
if(NOT CMAKE_CUDA_COMPILER)
  if(_pg_cuda_required)
    message(FATAL_ERROR
      "perfgate: PERFGATE_WITH_CUDA=ON but no working CUDA compiler was found. Install the CUDA "
      "toolkit, or point CMAKE_CUDA_COMPILER (or CUDACXX) at nvcc, or set PERFGATE_WITH_CUDA="
      "AUTO/OFF. (A failed detection is cached: delete CMAKE_CUDA_COMPILER from the cache after "
      "installing.)")
  endif()
  message(STATUS "perfgate: CUDA micro-benchmarks disabled: no working CUDA compiler found "
                 "(set CMAKE_CUDA_COMPILER or CUDACXX to nvcc to enable)")
  return()
endif()

if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES AND NOT DEFINED ENV{CUDAARCHS} AND NOT _pg_subproject)
  set(CMAKE_CUDA_ARCHITECTURES "${PERFGATE_CUDA_DEFAULT_ARCHITECTURES}" CACHE STRING
      "CUDA architectures to build for (perfgate default: ${PERFGATE_CUDA_DEFAULT_ARCHITECTURES})")
endif()
enable_language(CUDA)
set(PERFGATE_CUDA_ENABLED ON)
set(_pg_cuda_architectures "${CMAKE_CUDA_ARCHITECTURES}")
if(PERFGATE_CUDA_ARCHITECTURES)
  set(_pg_cuda_architectures "${PERFGATE_CUDA_ARCHITECTURES}")
endif()
message(STATUS "perfgate: CUDA micro-benchmarks enabled: ${CMAKE_CUDA_COMPILER} "
               "${CMAKE_CUDA_COMPILER_VERSION}, architectures ${_pg_cuda_architectures}")
