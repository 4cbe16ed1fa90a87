# SPDX-License-Identifier: Apache-2.0
# Runs one `perfgate` command line and checks its exit code and output.
#   cmake -DCOMMAND=<;-list> -DEXPECT_CODE=<n>[,<n>...] [-DEXPECT_REGEX=<regex>]
#         [-DEXPECT_FILE=<path>]
#         [-DWORKING_DIRECTORY=<dir>] -P run_cli_case.cmake
# The regex is matched against stdout and stderr together.
#         [-DGPU_EXPECT_CODE=<n> -DGPU_EXPECT_REGEX=<regex> [-DGPU_VENDOR=nvidia|amd]]
# GPU_EXPECT_*: what is right instead where the machine has a GPU of GPU_VENDOR (a case whose
# outcome depends on the machine: skipped without a GPU, a measurement or a clean failure with
# one). NVIDIA (the default): `nvidia-smi -L` lists one; AMD: the ROCm kernel driver's /dev/kfd
# exists.
cmake_minimum_required(VERSION 3.25)
if(DEFINED GPU_EXPECT_CODE AND GPU_VENDOR STREQUAL "amd")
  if(EXISTS "/dev/kfd")
    set(EXPECT_CODE "${GPU_EXPECT_CODE}")
    set(EXPECT_REGEX "${GPU_EXPECT_REGEX}")
  endif()
elseif(DEFINED GPU_EXPECT_CODE)
  find_program(nvidia_smi nvidia-smi)
  if(nvidia_smi)
    execute_process(COMMAND "${nvidia_smi}" -L RESULT_VARIABLE smi_result OUTPUT_VARIABLE gpus
                    ERROR_QUIET)
    if(smi_result EQUAL 0 AND gpus MATCHES "^GPU 0")
      set(EXPECT_CODE "${GPU_EXPECT_CODE}")
      set(EXPECT_REGEX "${GPU_EXPECT_REGEX}")
    endif()
  endif()
endif()
if(DEFINED EXPECT_FILE)
  file(REMOVE "${EXPECT_FILE}")
endif()
execute_process(COMMAND ${COMMAND}
  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err
  WORKING_DIRECTORY "${WORKING_DIRECTORY}")
string(JOIN " " shown ${COMMAND})
string(REPLACE "," ";" expected_codes "${EXPECT_CODE}")
if(NOT "${result}" IN_LIST expected_codes)
  message(FATAL_ERROR "perfgate exited with ${result}, expected ${EXPECT_CODE}\n"
    "  Command: ${shown}\n  Stdout: ${out}\n  Stderr: ${err}")
endif()
if(DEFINED EXPECT_REGEX AND NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match '${EXPECT_REGEX}'\n"
    "  Command: ${shown}\n  Stdout: ${out}\n  Stderr: ${err}")
endif()
if(DEFINED EXPECT_FILE AND NOT EXISTS "${EXPECT_FILE}")
  message(FATAL_ERROR "expected ${EXPECT_FILE} to be written\n  Command: ${shown}")
endif()
