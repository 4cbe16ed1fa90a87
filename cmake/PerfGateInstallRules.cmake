# SPDX-License-Identifier: Apache-2.0
# Install tree, in three components (one Debian package each, cmake/PerfGatePackaging.cmake):
#   perfgate  bin/perfgate, lib/cmake/PerfGate with the package config, its version file, the
#             exported perfgate::cli, the CMake module and the CUDA/HIP detection modules
#             (projects with GPU code use them too); share/perfgate/schema and share/doc/perfgate
#   cuda      the CUPTI injection library (lib/perfgate/, a private folder) and
#             bin/perfgate-microbench-cuda, where built (microbench/gpu/CMakeLists.txt)
#   hip       bin/perfgate-microbench-hip, where built
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(PERFGATE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/PerfGate")
install(TARGETS perfgate.cli EXPORT PerfGateTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}"
        COMPONENT perfgate)
if(PERFGATE_CUPTI_ENABLED)
  install(TARGETS perfgate.cupti_injection LIBRARY DESTINATION "${PERFGATE_INSTALL_PRIVATE_LIBDIR}"
          COMPONENT cuda)
endif()
install(EXPORT PerfGateTargets NAMESPACE perfgate:: DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}"
        COMPONENT perfgate)
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
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateSubproject.cmake"
  DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}" COMPONENT perfgate)
# The JSON schemas of perfgate's files and the documentation, for the package's users.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/perfgate/schema/"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/perfgate/schema" COMPONENT perfgate
        FILES_MATCHING PATTERN "*.json")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        COMPONENT perfgate)
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        COMPONENT perfgate FILES_MATCHING PATTERN "*.md")

include(PerfGatePackaging)

