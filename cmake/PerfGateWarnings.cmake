# SPDX-License-Identifier: Apache-2.0
# Warnings for perfgate's own targets only, and only when perfgate is the top-level project: a
# project that takes perfgate by FetchContent or add_subdirectory sees no warning from its
# sources (they are perfgate's developers' business, checked in perfgate's own CI).
add_library(perfgate.warnings INTERFACE)
if(_perfgate_top_level)
  target_compile_options(perfgate.warnings INTERFACE
    $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
endif()
