# SPDX-License-Identifier: Apache-2.0
# perfgate_find_nvbench(<reason-var>): finds nvbench's CMake package (nvbench::main, e.g. from
# `pip install cuda-bench`, with nvbench_DIR) only after checking what that package needs, so that
# a missing piece is a reason to skip and never a configure error.
#
# Why a probe: nvbench's package config (cuda-bench 0.3) does
#   add_library(nvbench::nvml ALIAS CUDA::nvml)
# unconditionally, and CUDA::nvml exists only where the CUDA toolkit has NVML (nvml.h and the
# libnvidia-ml.so stub; some toolkits, e.g. CUDA 13.0 installed without the NVML component, have
# neither). A failed add_library stops the configuration, and find_package(... QUIET) cannot catch
# it. The package also needs CMake 3.30.
#
# On return <reason-var> is empty when nvbench::main can be linked, else one sentence saying what
# is missing (for a skip message). Configure as if the toolkit had no NVML with
# -DCUDA_nvml_LIBRARY=OFF (FindCUDAToolkit then creates no CUDA::nvml; scripts/test.sh's nonvml
# check does this).
include_guard(GLOBAL)

function(perfgate_find_nvbench reason_var)
  set(${reason_var} "" PARENT_SCOPE)
  if(CMAKE_VERSION VERSION_LESS 3.30)
    set(${reason_var} "nvbench's CMake package needs CMake 3.30 or newer, this is ${CMAKE_VERSION}"
        PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET CUDA::toolkit)
    find_package(CUDAToolkit QUIET)
  endif()
  if(NOT CUDAToolkit_FOUND AND NOT TARGET CUDA::toolkit)
    set(${reason_var} "no CUDA toolkit was found (nvbench's CMake package needs one)" PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET CUDA::nvml)
    string(CONCAT _pg_why
      "the CUDA toolkit ${CUDAToolkit_VERSION} at ${CUDAToolkit_BIN_DIR}/.. has no NVML (no "
      "libnvidia-ml.so stub, so no CUDA::nvml), which nvbench's CMake package links; install the "
      "toolkit's NVML component (cuda-nvml-dev) or set CUDA_nvml_LIBRARY to a libnvidia-ml.so")
    set(${reason_var} "${_pg_why}" PARENT_SCOPE)
    return()
  endif()
  find_package(nvbench CONFIG QUIET)
  if(NOT nvbench_FOUND OR NOT TARGET nvbench::main)
    set(${reason_var}
        "no nvbench CMake package (pip install cuda-bench, then -Dnvbench_DIR=<site-packages>/cuda/bench/cu13/nvbench/lib/cmake/nvbench)"
        PARENT_SCOPE)
    return()
  endif()
  # Imported targets belong to the directory, not to this function: the caller links
  # nvbench::main as it is.
endfunction()
