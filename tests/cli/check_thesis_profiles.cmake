# SPDX-License-Identifier: Apache-2.0
# Regenerates the thesis profiles into SCRATCH and fails when they differ from the committed ones.
cmake_minimum_required(VERSION 3.25)
file(REMOVE_RECURSE "${SCRATCH}")
execute_process(COMMAND "${PYTHON}" "${SCRIPT}" "${DATA}" "${SCRATCH}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${SCRIPT} failed: ${rc}")
endif()
file(GLOB generated "${SCRATCH}/*.csv")
if(NOT generated)
  message(FATAL_ERROR "${SCRIPT} wrote nothing into ${SCRATCH}")
endif()
foreach(f IN LISTS generated)
  get_filename_component(name "${f}" NAME)
  execute_process(COMMAND "${CMAKE_COMMAND}" -E compare_files "${f}" "${COMMITTED}/${name}"
                  RESULT_VARIABLE differs)
  if(differs)
    message(FATAL_ERROR "examples/profiles/${name} is out of date: run "
                        "scripts/make_thesis_profiles.py tests/data/thesis examples/profiles")
  endif()
endforeach()
