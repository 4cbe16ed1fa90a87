# SPDX-License-Identifier: Apache-2.0
# HIP (AMD) detection for perfgate's GPU micro-benchmarks (microbench/gpu).
#
#   PERFGATE_WITH_HIP  AUTO (default): enable HIP when a working HIP compiler is found, else
#                      skip; ON: HIP is required (configure fails without it); OFF: never.
# Result: PERFGATE_HIP_ENABLED (ON/OFF) in the including scope; when ON, the HIP language is
# enabled. Include this from the top-level CMakeLists.txt (enable_language must run there).
#
# Two ways to a HIP toolchain:
#  - A ROCm install (ROCm root with lib/cmake/hip-lang, e.g. /opt/rocm, $ROCM_PATH, or what
#    `hipconfig --rocmpath` names), or a user who set CMAKE_HIP_COMPILER_ROCM_ROOT: CMake's
#    standard HIP support is used as it is.
#  - Debian/Ubuntu's packaged ROCm (hipcc, libamdhip64-dev: clang-15, CMake packages under
#    /usr/lib/<multiarch>/cmake), where `enable_language(HIP)` fails as shipped because CMake
#    3.25 looks for <rocm-root>/lib/cmake/hip-lang. perfgate then builds a ROCm root inside the
#    build tree whose lib/cmake links to /usr/lib/<multiarch>/cmake, puts it on
#    CMAKE_PREFIX_PATH (and in the environment, so that the compiler checks find amd_comgr),
#    uses clang++-15 and passes --rocm-path=/usr and the device-library path to the compiler.
#
# Architectures: CMAKE_HIP_ARCHITECTURES wins when set; otherwise gfx90a;gfx908;gfx1030;gfx940
# (MI200, MI100, RX 6800-class, MI300-class as far as ROCm 5.2 knows it), never `native`.
# PERFGATE_HIP_ARCHITECTURES, when set, gives the micro-benchmarks architectures of their own.
# As a subproject, AUTO builds them only for a project that has enabled HIP before adding
# perfgate, and for its CMAKE_HIP_ARCHITECTURES (as cmake/PerfGateCuda.cmake does for CUDA).
include_guard(DIRECTORY)
include(CheckLanguage)
include("${CMAKE_CURRENT_LIST_DIR}/PerfGateGpuMode.cmake")

set(PERFGATE_WITH_HIP "AUTO" CACHE STRING
    "Build the HIP (AMD) micro-benchmarks: AUTO (if a HIP compiler works), ON (required) or OFF")
set_property(CACHE PERFGATE_WITH_HIP PROPERTY STRINGS AUTO ON OFF)
set(PERFGATE_HIP_DEFAULT_ARCHITECTURES "gfx90a;gfx908;gfx1030;gfx940")
set(PERFGATE_HIP_ARCHITECTURES "" CACHE STRING
    "HIP architectures of perfgate's micro-benchmarks (empty: CMAKE_HIP_ARCHITECTURES)")

set(PERFGATE_HIP_ENABLED OFF)
_perfgate_gpu_mode(PERFGATE_WITH_HIP HIP _pg_hip_mode)
if(_pg_hip_mode STREQUAL "OFF")
  return()
endif()
string(COMPARE EQUAL "${_pg_hip_mode}" "ON" _pg_hip_required)

include("${CMAKE_CURRENT_LIST_DIR}/PerfGateSubproject.cmake")
perfgate_subproject_skips(HIP "${_pg_hip_mode}" "${PERFGATE_HIP_ARCHITECTURES}"
                          _pg_subproject _pg_skip_hip)
if(_pg_skip_hip)
  return()
endif()

macro(_perfgate_hip_unavailable reason)
  if(_pg_hip_required)
    message(FATAL_ERROR
      "perfgate: PERFGATE_WITH_HIP=ON but ${reason}. Install ROCm (or on Debian/Ubuntu: "
      "apt-get install hipcc libamdhip64-dev), or set PERFGATE_WITH_HIP=AUTO/OFF. (A failed "
      "detection is cached: delete CMAKE_HIP_COMPILER from the cache after installing.)")
  endif()
  message(STATUS "perfgate: HIP micro-benchmarks disabled: ${reason}")
  return()
endmacro()

# ---- which toolchain layout --------------------------------------------------------------
set(_pg_hip_layout "")
if(DEFINED CMAKE_HIP_COMPILER_ROCM_ROOT)
  set(_pg_hip_layout "rocm")
else()
  set(_pg_rocm_candidates "$ENV{ROCM_PATH}" "/opt/rocm")
  find_program(_pg_hipconfig hipconfig HINTS "$ENV{ROCM_PATH}/bin" /opt/rocm/bin NO_CACHE)
  if(_pg_hipconfig)
    execute_process(COMMAND "${_pg_hipconfig}" --rocmpath OUTPUT_VARIABLE _pg_hipconfig_root
                    RESULT_VARIABLE _pg_hipconfig_rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_pg_hipconfig_rc EQUAL 0)
      list(APPEND _pg_rocm_candidates "${_pg_hipconfig_root}")
    endif()
  endif()
  foreach(_pg_root IN LISTS _pg_rocm_candidates)
    if(_pg_root AND EXISTS "${_pg_root}/lib/cmake/hip-lang/hip-lang-config.cmake")
      set(_pg_hip_layout "rocm")
      break()
    endif()
  endforeach()
  set(_pg_debian_cmake "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake")
  set(_pg_debian_bitcode "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode")
  if(NOT _pg_hip_layout AND CMAKE_LIBRARY_ARCHITECTURE
     AND EXISTS "${_pg_debian_cmake}/hip-lang/hip-lang-config.cmake"
     AND EXISTS "${_pg_debian_bitcode}")
    set(_pg_hip_layout "debian")
  endif()
endif()

if(NOT _pg_hip_layout)
  _perfgate_hip_unavailable("no ROCm installation was found (no <rocm>/lib/cmake/hip-lang)")
endif()

# ---- Debian's packaged ROCm: the workaround ----------------------------------------------
if(_pg_hip_layout STREQUAL "debian")
  if(NOT DEFINED CMAKE_HIP_COMPILER AND NOT DEFINED ENV{HIPCXX})
    find_program(_pg_clang15 clang++-15 NO_CACHE)
    if(NOT _pg_clang15)
      _perfgate_hip_unavailable("Debian's HIP packages are present but clang++-15 is not")
    endif()
    set(ENV{HIPCXX} "${_pg_clang15}")  # seen by check_language's child configure
  endif()
  set(_pg_rocm_root "${CMAKE_BINARY_DIR}/perfgate-rocm-root")
  file(MAKE_DIRECTORY "${_pg_rocm_root}/lib")
  if(NOT EXISTS "${_pg_rocm_root}/lib/cmake/hip-lang/hip-lang-config.cmake")
    file(REMOVE "${_pg_rocm_root}/lib/cmake")
    file(CREATE_LINK "${_pg_debian_cmake}" "${_pg_rocm_root}/lib/cmake" SYMBOLIC)
  endif()
  set(_pg_hip_rocm_flags "--rocm-path=/usr --rocm-device-lib-path=${_pg_debian_bitcode}")
  if(NOT "${CMAKE_HIP_FLAGS}" MATCHES "--rocm-path")
    string(STRIP "${CMAKE_HIP_FLAGS} ${_pg_hip_rocm_flags}" _pg_hip_flags)
    set(CMAKE_HIP_FLAGS "${_pg_hip_flags}" CACHE STRING "Flags used by the HIP compiler" FORCE)
  endif()
  # CMake derives the ROCm root from `hipconfig --rocmpath`, which honours ROCM_PATH; the
  # compiler checks (try_compile, and check_language's child configure) see the environment.
  set(CMAKE_HIP_COMPILER_ROCM_ROOT "${_pg_rocm_root}")
  set(ENV{ROCM_PATH} "${_pg_rocm_root}")
  set(ENV{HIPFLAGS} "${CMAKE_HIP_FLAGS}")
  list(PREPEND CMAKE_PREFIX_PATH "${_pg_rocm_root}")
  if(DEFINED ENV{CMAKE_PREFIX_PATH} AND NOT "$ENV{CMAKE_PREFIX_PATH}" STREQUAL "")
    set(ENV{CMAKE_PREFIX_PATH} "${_pg_rocm_root}:$ENV{CMAKE_PREFIX_PATH}")
  else()
    set(ENV{CMAKE_PREFIX_PATH} "${_pg_rocm_root}")
  endif()
endif()

# ---- enable (both layouts) --------------------------------------------------------------
check_language(HIP)
if(NOT CMAKE_HIP_COMPILER)
  _perfgate_hip_unavailable("no working HIP compiler was found (see CMakeFiles/CMakeError.log)")
endif()
if(NOT DEFINED CMAKE_HIP_ARCHITECTURES AND NOT _pg_subproject)
  set(CMAKE_HIP_ARCHITECTURES "${PERFGATE_HIP_DEFAULT_ARCHITECTURES}" CACHE STRING
      "HIP architectures to build for (perfgate default: ${PERFGATE_HIP_DEFAULT_ARCHITECTURES})")
endif()
enable_language(HIP)
set(PERFGATE_HIP_ENABLED ON)
set(_pg_hip_architectures "${CMAKE_HIP_ARCHITECTURES}")
if(PERFGATE_HIP_ARCHITECTURES)
  set(_pg_hip_architectures "${PERFGATE_HIP_ARCHITECTURES}")
endif()
message(STATUS "perfgate: HIP micro-benchmarks enabled: ${CMAKE_HIP_COMPILER} "
               "${CMAKE_HIP_COMPILER_VERSION} (${_pg_hip_layout} ROCm layout), architectures "
               "${_pg_hip_architectures}")
