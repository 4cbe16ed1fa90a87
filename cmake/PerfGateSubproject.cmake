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
