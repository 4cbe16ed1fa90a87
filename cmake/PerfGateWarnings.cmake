# SPDX-License-Identifier: Apache-2.0
# Warnings for perfgate's own targets only (never imposed on consumers).
add_library(perfgate.warnings INTERFACE)
target_compile_options(perfgate.warnings INTERFACE
  $<$<CXX_COMPILER_ID:GNU,Clang>:-Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion>)
