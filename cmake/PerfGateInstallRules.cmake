# SPDX-License-Identifier: Apache-2.0
# Install tree: bin/perfgate (+ GPU micro-benchmarks when built) and lib/cmake/PerfGate with
# the package config, its version file, the exported perfgate::cli, the CMake module and the
# CUDA/HIP detection modules (projects with GPU code use them too).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(PERFGATE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/PerfGate")
install(TARGETS perfgate.cli EXPORT PerfGateTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(PERFGATE_CUPTI_ENABLED)
  install(TARGETS perfgate.cupti_injection LIBRARY DESTINATION "${CMAKE_INSTALL_LIBDIR}")
endif()
install(EXPORT PerfGateTargets NAMESPACE perfgate:: DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}")
configure_package_config_file(
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateConfig.cmake.in"
  "${PROJECT_BINARY_DIR}/PerfGateConfig.cmake"
  INSTALL_DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}")
write_basic_package_version_file("${PROJECT_BINARY_DIR}/PerfGateConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES
  "${PROJECT_BINARY_DIR}/PerfGateConfig.cmake"
  "${PROJECT_BINARY_DIR}/PerfGateConfigVersion.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGate.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateCalibrate.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateCuda.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateGpuMode.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateHip.cmake"
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateNvbench.cmake"
  DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}")
