# SPDX-License-Identifier: Apache-2.0
# The Debian packages of the install tree: `cpack --config build/CPackConfig.cmake` in a built
# tree, no second build (docs/ci.md, "The Debian package"). One package a component
# (cmake/PerfGateInstallRules.cmake), so that installing perfgate pulls no GPU runtime:
#   perfgate       the command, the CMake package, schemas, docs. Links only the C and C++
#                  runtimes and SQLite; CUPTI, NVML and ROCm SMI are loaded when a command needs
#                  them (perfgate/util/*_library.hpp), so they are Suggests, not Depends.
#   perfgate-cuda  the CUPTI injection library and perfgate-microbench-cuda, where this tree built
#                  them. The CUDA runtime is linked statically; the driver (libcuda.so.1) is
#                  Recommended. libcupti.so.<major> comes with NVIDIA's toolkit, not with Debian:
#                  dpkg-shlibdeps finds no package for it, so it is named in the description and
#                  Suggested as NVIDIA's package (cuda-cupti-<major>-<minor>).
#   perfgate-hip   perfgate-microbench-hip, where built: dpkg-shlibdeps declares libamdhip64.
# Every package's Depends come from dpkg-shlibdeps; each has its copyright file and changelog.
include_guard(GLOBAL)

set(PERFGATE_PACKAGE_MAINTAINER
    "perfgate maintainers <maintainers@users.noreply.a-seed-ffb9d4f3.example>"
    CACHE STRING "The Maintainer field of perfgate's Debian packages: Name <address>")
if(NOT PERFGATE_PACKAGE_MAINTAINER MATCHES "^[^<>]+ <[^<>@ ]+@[^<>@ ]+>$")
  message(FATAL_ERROR "perfgate: PERFGATE_PACKAGE_MAINTAINER must read 'Name <address>', not "
                      "'${PERFGATE_PACKAGE_MAINTAINER}'")
endif()

# Which packages this tree makes: the GPU ones only where their pieces were built.
set(_pg_components perfgate)
if(PERFGATE_CUPTI_ENABLED OR PERFGATE_CUDA_ENABLED)
  list(APPEND _pg_components cuda)
endif()
if(PERFGATE_HIP_ENABLED)
  list(APPEND _pg_components hip)
endif()

# Each package's copyright file and changelog (Debian's format, gzip -9n: lintian wants it at
# the highest compression and without a time stamp, so that rebuilds are byte-identical).
find_program(PERFGATE_GZIP gzip)
set(PERFGATE_PACKAGE_VERSION "${PROJECT_VERSION}")
configure_file("${PROJECT_SOURCE_DIR}/packaging/changelog.in"
               "${PROJECT_BINARY_DIR}/packaging/changelog" @ONLY)
if(PERFGATE_GZIP)
  execute_process(COMMAND "${PERFGATE_GZIP}" -9nf "${PROJECT_BINARY_DIR}/packaging/changelog"
                  RESULT_VARIABLE _pg_gzip_rc)
endif()
if(NOT PERFGATE_GZIP OR NOT _pg_gzip_rc EQUAL 0)
  message(FATAL_ERROR "perfgate: the Debian changelog needs gzip (set PERFGATE_ENABLE_INSTALL=OFF "
                      "to configure without install rules)")
endif()
foreach(component IN LISTS _pg_components)
  set(package perfgate)
  if(NOT component STREQUAL "perfgate")
    set(package "perfgate-${component}")
  endif()
  install(FILES "${PROJECT_SOURCE_DIR}/packaging/copyright"
                "${PROJECT_BINARY_DIR}/packaging/changelog.gz"
          DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/${package}" COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfgate)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Equal to CPack's default, so that CPack's DEB generator does not put one summary before
# every package's own description (each package's first line below is its summary).
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${CMAKE_PROJECT_NAME} built using CMake")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Stripped, as Debian ships binaries: perfgate's debug information is 100 MB of its 116.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${_pg_components})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${PERFGATE_PACKAGE_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
# Depends of every package from the libraries its files link (dpkg-shlibdeps).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
if(PERFGATE_CUPTI_ENABLED)
  # Where dpkg-shlibdeps finds libcupti (it then says no package has it, and goes on).
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS "${PERFGATE_CUPTI_LIBRARY_DIR}")
endif()
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)

set(CPACK_DEBIAN_PERFGATE_PACKAGE_NAME perfgate)
set(CPACK_DEBIAN_PERFGATE_DESCRIPTION [[performance regression gate for GPU and CPU kernels in CTest
perfgate predicts for each kernel a profiler measured the upper bound on its
performance on every configured GPU or CPU (the roofline and the quantitative
roofline model), says whether it is memory- or compute-bound there, and fails
a CTest test when a kernel runs too far from its bound or slower than its
baseline. add_perf_prediction() in CMake (find_package(PerfGate)) declares the
gates; Google Benchmark, nvbench, Nsight Compute, CUPTI and rocprofv3 supply
the measurements.

This package holds the perfgate command, its CMake package, the JSON schemas
of its files and its documentation. It needs no GPU runtime: CUPTI, NVML and
ROCm SMI are loaded when a command uses them. The GPU micro-benchmarks and the
CUPTI collector are in perfgate-cuda and perfgate-hip.]])
# CUPTI (`perfgate metrics`, `--collector cupti`), NVML and ROCm SMI (clocks and inventories):
# loaded when present; the GPU packages; what the CMake module works with.
set(_pg_suggests "cmake (>= 3.25), libbenchmark-dev, libnvidia-ml1, librocm-smi64-1")
if("cuda" IN_LIST _pg_components)
  string(PREPEND _pg_suggests "perfgate-cuda, ")
endif()
if("hip" IN_LIST _pg_components)
  string(PREPEND _pg_suggests "perfgate-hip, ")
endif()
set(CPACK_DEBIAN_PERFGATE_PACKAGE_SUGGESTS "${_pg_suggests}")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME perfgate-cuda)
set(CPACK_COMPONENT_CUDA_DEPENDS perfgate)
set(CPACK_DEBIAN_CUDA_PACKAGE_RECOMMENDS "libcuda1")
set(CPACK_DEBIAN_CUDA_DESCRIPTION [[perfgate's NVIDIA pieces: CUPTI collector and GPU micro-benchmarks
libperfgate_cupti.so is the library the CUDA driver injects into a profiled
program for `perfgate run --collector cupti`; perfgate-microbench-cuda
measures a GPU's peak rates for `perfgate calibrate`.

The micro-benchmarks link the CUDA runtime statically and need the NVIDIA
driver (libcuda.so.1). The injection library needs CUPTI of the CUDA toolkit
it was built with (libcupti.so.<major>), which Debian does not ship: install
NVIDIA's cuda-cupti package of that version, or the toolkit under
/usr/local/cuda; perfgate finds it there, through ld.so.cache, or at
PERFGATE_CUPTI_LIBRARY.]])
if(PERFGATE_CUPTI_ENABLED)
  string(REGEX MATCH "^[0-9]+\\.[0-9]+" _pg_cuda_major_minor "${CUDAToolkit_VERSION}")
  string(REPLACE "." "-" _pg_cuda_major_minor "${_pg_cuda_major_minor}")
  set(CPACK_DEBIAN_CUDA_PACKAGE_SUGGESTS "cuda-cupti-${_pg_cuda_major_minor}")
endif()

set(CPACK_DEBIAN_HIP_PACKAGE_NAME perfgate-hip)
set(CPACK_COMPONENT_HIP_DEPENDS perfgate)
set(CPACK_DEBIAN_HIP_DESCRIPTION [[perfgate's AMD GPU micro-benchmarks (HIP)
perfgate-microbench-hip measures an AMD GPU's peak rates (memory levels,
arithmetic pipes, matrix cores, clocks) for `perfgate calibrate`. It links the
HIP runtime (libamdhip64), which this package depends on.]])

include(CPack)
