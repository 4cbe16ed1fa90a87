# SPDX-License-Identifier: Apache-2.0
# The ways check_consumer.cmake gives tests/consumer its perfgate, and what each must show.
# Uses run() (tests/support/run_step.cmake).

# consumer_from_deb(<perfgate build> <work> <cupti ON|OFF> <out var>): packages the built tree
# with CPack's DEB generator (one package a component: perfgate, perfgate-cuda, perfgate-hip;
# cmake/PerfGatePackaging.cmake), checks the perfgate package's control data and files (no GPU
# runtime among its Depends, the CUPTI injection library in perfgate-cuda alone), extracts every
# package with `dpkg -x` into <work>/root and sets <out var> to the consumer's configure
# arguments: that tree on CMAKE_PREFIX_PATH, and a GIT_REPOSITORY that does not exist, so that
# only FetchContent's FIND_PACKAGE_ARGS can give the consumer its perfgate.
function(consumer_from_deb build work cupti out_var)
  get_filename_component(bin "${CMAKE_COMMAND}" DIRECTORY)
  set(cpack "${bin}/cpack") # the CPack of the CMake running this
  find_program(dpkg_deb dpkg-deb REQUIRED)
  run("cpack -G DEB" "${cpack}" -G DEB --config "${build}/CPackConfig.cmake" -B "${work}/package")
  file(GLOB debs "${work}/package/*.deb")
  file(GLOB main_deb "${work}/package/perfgate_*.deb")
  file(GLOB cuda_deb "${work}/package/perfgate-cuda_*.deb")
  list(LENGTH main_deb n)
  if(NOT n EQUAL 1)
    message(FATAL_ERROR "consumer: cpack made ${n} perfgate_*.deb in ${work}/package: ${debs}")
  endif()
  run("dpkg-deb --info" "${dpkg_deb}" --info "${main_deb}")
  run("dpkg-deb --field" "${dpkg_deb}" --field "${main_deb}" Package Version Architecture Depends)
  if(NOT out MATCHES "Package: perfgate\n" OR NOT out MATCHES "Version: [0-9]+\\.[0-9]+\\.[0-9]+\n"
     OR NOT out MATCHES "Architecture: [a-z0-9]+" OR NOT out MATCHES "Depends: [^\n]*libc6")
    message(FATAL_ERROR "consumer: the package's control fields are not perfgate's:\n${out}")
  endif()
  if(out MATCHES "Depends: [^\n]*(cuda|cupti|nvidia|amdhip|rocm)")
    message(FATAL_ERROR "consumer: the perfgate package depends on a GPU runtime:\n${out}")
  endif()
  message(STATUS "ok: the .deb's control data names perfgate, its version and no GPU runtime")

  run("dpkg-deb --contents" "${dpkg_deb}" --contents "${main_deb}")
  string(REGEX MATCHALL "\\./[^\n]*" paths "${out}")
  set(contents "${out}")
  set(wanted usr/bin/perfgate usr/lib/cmake/PerfGate/PerfGateConfig.cmake
      usr/lib/cmake/PerfGate/PerfGateConfigVersion.cmake usr/lib/cmake/PerfGate/PerfGateTargets.cmake
      usr/lib/cmake/PerfGate/PerfGate.cmake usr/lib/cmake/PerfGate/PerfGateCalibrate.cmake
      usr/share/perfgate/schema/report-2.schema.json usr/share/perfgate/schema/device-1.schema.json
      usr/share/doc/perfgate/README.md usr/share/doc/perfgate/ci.md
      usr/share/doc/perfgate/copyright usr/share/doc/perfgate/changelog.gz)
  set(unwanted usr/lib/perfgate/libperfgate_cupti.so usr/lib/libperfgate_cupti.so)
  if(cupti)
    list(LENGTH cuda_deb n)
    if(NOT n EQUAL 1)
      message(FATAL_ERROR "consumer: with CUPTI, cpack made ${n} perfgate-cuda_*.deb: ${debs}")
    endif()
    run("dpkg-deb --contents" "${dpkg_deb}" --contents "${cuda_deb}")
    if(NOT out MATCHES "\\./usr/lib/perfgate/libperfgate_cupti\\.so\n")
      message(FATAL_ERROR "consumer: perfgate-cuda lacks /usr/lib/perfgate/libperfgate_cupti.so:\n${out}")
    endif()
  elseif(cuda_deb)
    run("dpkg-deb --contents" "${dpkg_deb}" --contents "${cuda_deb}")
    if(out MATCHES "libperfgate_cupti")
      message(FATAL_ERROR "consumer: perfgate-cuda holds the CUPTI library this build does not make")
    endif()
  endif()
  foreach(path IN LISTS wanted)
    list(FIND paths "./${path}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "consumer: the .deb lacks /${path}; it holds:\n${contents}")
    endif()
  endforeach()
  foreach(path IN LISTS unwanted)
    if("./${path}" IN_LIST paths)
      message(FATAL_ERROR "consumer: the perfgate package holds /${path}, which is perfgate-cuda's")
    endif()
  endforeach()
  foreach(path IN LISTS paths)
    if(NOT path MATCHES "^\\./(usr/.*)?$")
      message(FATAL_ERROR "consumer: the .deb installs ${path} outside /usr")
    endif()
  endforeach()
  list(LENGTH wanted n)
  message(STATUS "ok: the .deb holds the ${n} files checked, all under /usr")

  foreach(deb IN LISTS debs)
    run("dpkg -x" "${dpkg_deb}" -x "${deb}" "${work}/root")
  endforeach()
  set(${out_var} "-DCMAKE_PREFIX_PATH=${work}/root/usr"
      "-DPERFGATE_GIT_REPOSITORY=file://${work}/no-such-repository" PARENT_SCOPE)
endfunction()

# consumer_found_installed(<consumer build> <root>): FetchContent took the installed PerfGate
# under <root> (find_package through FIND_PACKAGE_ARGS) and cloned nothing.
function(consumer_found_installed build root)
  file(STRINGS "${build}/CMakeCache.txt" line REGEX "^perfgate_DIR:")
  string(REGEX REPLACE "^[^=]*=" "" perfgate_dir "${line}")
  file(REAL_PATH "${root}" real_root)
  file(REAL_PATH "${perfgate_dir}" real_dir)
  string(FIND "${real_dir}/" "${real_root}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "consumer: perfgate_DIR is '${perfgate_dir}', not under ${root}")
  endif()
  if(EXISTS "${build}/_deps/perfgate-src")
    message(FATAL_ERROR "consumer: FetchContent cloned perfgate although an install was found")
  endif()
  message(STATUS "ok: FetchContent's FIND_PACKAGE_ARGS found the package (${perfgate_dir})")
endfunction()

# consumer_fetchcontent_args(<perfgate checkout> <out var>): FetchContent from a local clone
# (file://, the checkout's HEAD commit: what is committed there), a CPU-only consumer, compile
# commands exported, warnings as errors, and CMake's unity build (CMAKE_UNITY_BUILD, a setting
# users choose for their whole tree: perfgate's sources must compile batched together, and the
# consumer's unoptimised build of them takes 156 s instead of 366 s on the 2-core VM).
function(consumer_fetchcontent_args repo out_var)
  find_program(git git REQUIRED)
  run("git rev-parse HEAD" "${git}" -C "${repo}" rev-parse HEAD)
  string(STRIP "${out}" commit)
  set(${out_var} "-DPERFGATE_GIT_REPOSITORY=file://${repo}" "-DPERFGATE_GIT_TAG=${commit}"
      -DCONSUMER_WITH_GPU=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCMAKE_CXX_FLAGS=-Werror
      -DCMAKE_FIND_PACKAGE_NO_PACKAGE_REGISTRY=ON -DCMAKE_UNITY_BUILD=ON PARENT_SCOPE)
endfunction()

# compile_commands(<build> <files> <commands>): compile_commands.json of the build as two lists,
# each entry's source file and its command line; a unity source (CMAKE_UNITY_BUILD) stands for
# the sources it includes, each with the unity source's command.
function(compile_commands build files_var commands_var)
  file(READ "${build}/compile_commands.json" json)
  string(JSON n LENGTH "${json}")
  math(EXPR last "${n} - 1")
  set(files "")
  set(commands "")
  foreach(i RANGE ${last})
    string(JSON file GET "${json}" ${i} file)
    string(JSON command GET "${json}" ${i} command)
    set(sources "${file}")
    if(file MATCHES "/Unity/unity_[0-9]+_[a-z]+\\.[a-z]+$")
      file(STRINGS "${file}" lines REGEX "^#include \"")
      list(TRANSFORM lines REPLACE "^#include \"([^\"]*)\".*" "\\1" OUTPUT_VARIABLE sources)
    endif()
    foreach(source IN LISTS sources)
      list(APPEND files "${source}")
      list(APPEND commands "${command}")
    endforeach()
  endforeach()
  set(${files_var} "${files}" PARENT_SCOPE)
  set(${commands_var} "${commands}" PARENT_SCOPE)
endfunction()

# consumer_compiles_no_gpu_code(<consumer build>): perfgate was cloned, and what the build will
# compile (compile_commands.json) is C++ alone: no nvcc or HIP compiler, no .cu or .hip source,
# no GPU micro-benchmark, none of the CUPTI targets (perfgate.cupti_host, _injection);
# perfgate's core is there, without its warning flags; the project's build type (none) is kept.
function(consumer_compiles_no_gpu_code build)
  if(NOT EXISTS "${build}/_deps/perfgate-src/CMakeLists.txt")
    message(FATAL_ERROR "consumer: FetchContent did not clone perfgate into ${build}/_deps")
  endif()
  compile_commands("${build}" files commands)
  list(LENGTH files n)
  set(perfgate_sources 0)
  foreach(file command IN ZIP_LISTS files commands)
    if(command MATCHES "(^|[/ ])(nvcc|hipcc|clang\\+\\+-[0-9]+ .*-x hip)( |$)"
       OR file MATCHES "\\.(cu|hip)$" OR file MATCHES "/microbench/gpu/"
       OR command MATCHES "CMakeFiles/perfgate[.-](cupti_|microbench-(cuda|hip))|-DPERFGATE_HAVE_CUPTI")
      message(FATAL_ERROR "consumer: the CPU-only consumer compiles GPU code: ${file}\n  ${command}")
    endif()
    if(file MATCHES "/_deps/perfgate-src/")
      math(EXPR perfgate_sources "${perfgate_sources} + 1")
      if(command MATCHES " -W(all|extra|conversion|shadow|pedantic)( |$)")
        message(FATAL_ERROR "consumer: perfgate's warning flags reach the consumer: ${command}")
      endif()
    endif()
  endforeach()
  if(perfgate_sources LESS 50)
    message(FATAL_ERROR "consumer: only ${perfgate_sources} of perfgate's sources are compiled")
  endif()
  file(STRINGS "${build}/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
  if(NOT build_type MATCHES "=$")
    message(FATAL_ERROR "consumer: perfgate changed the project's build type: ${build_type}")
  endif()
  message(STATUS "ok: ${n} compile commands, ${perfgate_sources} of them perfgate's: no GPU "
                 "code, no CUPTI, no warning flags of perfgate's")
endfunction()

# consumer_gpu_architectures(<perfgate source> <work>): the same consumer with its CUDA saxpy
# (CMAKE_CUDA_ARCHITECTURES 80), configured only, from the clone already made
# (FETCHCONTENT_SOURCE_DIR_PERFGATE): perfgate's CUDA micro-benchmarks are compiled, for sm_80
# alone, and no HIP code. Skipped, saying so, where there is no nvcc.
function(consumer_gpu_architectures source work)
  find_program(nvcc nvcc HINTS /usr/local/cuda/bin "$ENV{CUDA_PATH}/bin")
  if(NOT nvcc)
    message(STATUS "skipped: no nvcc here: the GPU consumer's architectures are not checked")
    return()
  endif()
  run("configure the GPU consumer" "${CMAKE_COMMAND}" -S "${source}" -B "${work}"
      -DCMAKE_BUILD_TYPE=Release -DPERFGATE_GIT_REPOSITORY=file:///unused
      "-DFETCHCONTENT_SOURCE_DIR_PERFGATE=${work}/../build/_deps/perfgate-src"
      "-DCMAKE_CUDA_COMPILER=${nvcc}" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)
  compile_commands("${work}" files commands)
  set(microbench 0)
  foreach(file command IN ZIP_LISTS files commands)
    if(file MATCHES "\\.hip$" OR command MATCHES "-x hip|--offload-arch")
      message(FATAL_ERROR "consumer: a CUDA-only project compiles HIP code: ${command}")
    endif()
    if(file MATCHES "/_deps/perfgate-src/microbench/gpu/")
      math(EXPR microbench "${microbench} + 1")
      string(REGEX MATCHALL "(arch|code)=[^, ]+" archs "${command}")
      string(REGEX REPLACE "(arch|code)=|[][]|compute_|sm_" "" archs "${archs}")
      list(REMOVE_DUPLICATES archs)
      if(NOT archs STREQUAL "80")
        message(FATAL_ERROR "consumer: ${file} is compiled for ${archs}, not the project's 80:\n"
                            "${command}")
      endif()
    endif()
  endforeach()
  if(microbench EQUAL 0)
    message(FATAL_ERROR "consumer: the CUDA project's perfgate compiles no CUDA micro-benchmark")
  endif()
  message(STATUS "ok: the CUDA consumer's perfgate compiles ${microbench} micro-benchmark "
                 "sources for sm_80 alone, and no HIP code")
endfunction()
