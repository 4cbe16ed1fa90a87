# SPDX-License-Identifier: Apache-2.0
# cmake -DLIBRARY=<libperfgate_cupti.so> -P check_exports.cmake: InitializeInjection is exported
# (nm -D), and the library exports nothing else of its own.
find_program(NM nm REQUIRED)
execute_process(COMMAND "${NM}" -D --defined-only "${LIBRARY}" OUTPUT_VARIABLE symbols
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${LIBRARY} failed (${rc})")
endif()
if(NOT symbols MATCHES "[0-9a-f]+ T InitializeInjection\n")
  message(FATAL_ERROR "InitializeInjection is not exported by ${LIBRARY}:\n${symbols}")
endif()
string(REGEX MATCHALL "[^\n]* T [^\n]*perfgate[^\n]*" ours "${symbols}")
if(ours)
  message(FATAL_ERROR "perfgate symbols leak from ${LIBRARY} (visibility): ${ours}")
endif()
message(STATUS "exported: InitializeInjection")
