# SPDX-License-Identifier: Apache-2.0
# Install tree: bin/perfgate (+ GPU micro-benchmarks when built), lib/cmake/PerfGate with
# the package config, its version file, the exported perfgate::cli, the CMake module and the
# CUDA/HIP detection modules (projects with GPU code use them too); share/perfgate/schema and
# share/doc/perfgate; and the Debian package of all that (CPack, below).
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)

set(PERFGATE_INSTALL_CMAKEDIR "${CMAKE_INSTALL_LIBDIR}/cmake/PerfGate")
install(TARGETS perfgate.cli EXPORT PerfGateTargets RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
if(PERFGATE_CUPTI_ENABLED)
  install(TARGETS perfgate.cupti_injection LIBRARY DESTINATION "${PERFGATE_INSTALL_PRIVATE_LIBDIR}")
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
  "${PROJECT_SOURCE_DIR}/cmake/PerfGateSubproject.cmake"
  DESTINATION "${PERFGATE_INSTALL_CMAKEDIR}")
# The JSON schemas of perfgate's files and the documentation, for the package's users.
install(DIRECTORY "${PROJECT_SOURCE_DIR}/perfgate/schema/"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/perfgate/schema" FILES_MATCHING PATTERN "*.json")
install(FILES "${PROJECT_SOURCE_DIR}/README.md" DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/docs/" DESTINATION "${CMAKE_INSTALL_DOCDIR}"
        FILES_MATCHING PATTERN "*.md")

# A Debian package of this install tree: `cpack -G DEB` in the build tree, no second build
# (docs/ci.md, "A Debian package"). It holds whatever this tree built: the CUPTI injection
# library and the GPU micro-benchmarks where their toolchains were found. The CUPTI pieces keep
# their run-time path to the toolkit's libcupti (PERFGATE_CUPTI_LIBRARY_DIR): a machine that
# installs the package needs the toolkit at the same place for `--collector cupti`.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME perfgate)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Stripped, as Debian ships binaries: perfgate's debug information is 100 MB of its 116.
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "perfgate developers")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# The shared libraries perfgate links (libcupti comes with the CUDA toolkit, not a package).
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1")
if(SQLite3_FOUND)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libsqlite3-0")
endif()
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake (>= 3.25), libbenchmark-dev")
include(CPack)
