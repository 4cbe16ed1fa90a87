# SPDX-License-Identifier: Apache-2.0
# perfgate_subproject_language(<lang> <subproject> <without>): <subproject> is TRUE when perfgate
# is another project's subproject (FetchContent, add_subdirectory), <without> when moreover that
# project has not enabled <lang>: perfgate's AUTO toolchains then build no <lang> code
# (cmake/PerfGateCuda.cmake, PerfGateHip.cmake, PerfGateCupti.cmake). PROJECT_NAME is the project
# that includes the module: the examples include PerfGateCuda from a project of their own.
include_guard(GLOBAL)
function(perfgate_subproject_language lang subproject without)
  set(${subproject} FALSE PARENT_SCOPE)
  set(${without} FALSE PARENT_SCOPE)
  if(PROJECT_NAME STREQUAL "perfgate" AND NOT PROJECT_IS_TOP_LEVEL)
    set(${subproject} TRUE PARENT_SCOPE)
    get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
    if(NOT lang IN_LIST languages)
      set(${without} TRUE PARENT_SCOPE)
    endif()
  endif()
endfunction()

# perfgate_subproject_skips(<lang> <mode> <own architectures> <subproject> <skip>): <subproject> as
# above; <skip> TRUE, said in a status line, where an AUTO <lang> meets a project that has not
# enabled <lang> and perfgate was given no architectures of its own for it.
function(perfgate_subproject_skips lang mode own_architectures subproject skip)
  perfgate_subproject_language(${lang} is_subproject without)
  set(${subproject} ${is_subproject} PARENT_SCOPE)
  set(${skip} FALSE PARENT_SCOPE)
  if(mode STREQUAL "AUTO" AND without AND NOT own_architectures)
    message(STATUS "perfgate: ${lang} micro-benchmarks not built: the project has not enabled "
                   "${lang} (enable it before adding perfgate, or set PERFGATE_WITH_${lang}=ON)")
    set(${skip} TRUE PARENT_SCOPE)
  endif()
endfunction()
