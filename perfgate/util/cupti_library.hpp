// SPDX-License-Identifier: Apache-2.0
// CUPTI (libcupti), loaded at run time: it comes with the CUDA toolkit, not with a driver or a
// distribution's base system, so `perfgate` links nothing of it and loads it where a command
// needs it (`perfgate metrics`, `--collector cupti`, the per-chip metric names of the ncu
// collector). Where to look, in order:
//   $PERFGATE_CUPTI_LIBRARY         when set, that file alone;
//   the soname perfgate was built against ("libcupti.so.13") through the loader's own search
//                                   (LD_LIBRARY_PATH, ld.so.cache: NVIDIA's packages register
//                                   the toolkit's folder);
//   the toolkit folder it was built against, then $CUDA_HOME, $CUDA_PATH and /usr/local/cuda
//                                   (lib64, lib, targets/<arch>-linux/lib, extras/CUPTI/lib64).
// The soname is CUPTI's ABI: a toolkit of another major version is not taken.
#pragma once

#include "util/runtime_library.hpp"

#include <cstdlib>
#include <string>
#include <vector>

namespace perfgate::detail {

/// The candidates above for `soname`, built against the toolkit folder `built_dir` (may be
/// empty). `env` reads a variable (std::getenv; a test gives its own).
template <class Env>
[[nodiscard]] std::vector<std::string>
cupti_library_candidates(const std::string& soname, const std::string& built_dir, Env env) {
  if (const char* explicit_path = env("PERFGATE_CUPTI_LIBRARY");
      explicit_path != nullptr && *explicit_path != '\0') {
    return {explicit_path};
  }
  std::vector<std::string> candidates = {soname};
  if (!built_dir.empty()) {
    candidates.push_back(built_dir + "/" + soname);
  }
#if defined(__aarch64__)
  const std::string target_lib = "targets/sbsa-linux/lib";
#else
  const std::string target_lib = "targets/x86_64-linux/lib";
#endif
  std::vector<std::string> roots;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* root = env(var); root != nullptr && *root != '\0') {
      roots.emplace_back(root);
    }
  }
  roots.emplace_back("/usr/local/cuda");
  for (const auto& root : roots) {
    for (const auto& sub : {std::string("lib64"), std::string("lib"), target_lib,
                            std::string("extras/CUPTI/lib64")}) {
      candidates.push_back(root + "/" + sub + "/" + soname);
    }
  }
  return candidates;
}

/// What to say when none loaded: what was tried, and how to get it.
[[nodiscard]] inline std::string cupti_missing_message(const std::string& soname,
                                                       const runtime_library& library) {
  return "CUPTI (" + soname + ") could not be loaded; tried " + library.failures() +
         ". It comes with the CUDA toolkit of the same major version (NVIDIA's package "
         "cuda-cupti-<major>-<minor>, or the toolkit under /usr/local/cuda); set "
         "PERFGATE_CUPTI_LIBRARY to the path of " + soname + " if it lives elsewhere";
}

} // namespace perfgate::detail
