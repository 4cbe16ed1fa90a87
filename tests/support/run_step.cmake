# SPDX-License-Identifier: Apache-2.0
# run(<what> <command>...): one step of a `cmake -P` test driver; a failure stops the driver
# with the command and its output. The output is left in `out`.
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(JOIN " " shown ${ARGN})
    message(FATAL_ERROR "${what} failed (${rc})\n  Command: ${shown}\n  Output: ${out}\n${err}")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
