// SPDX-License-Identifier: Apache-2.0
#include "collectors/sass_listing.hpp"

#include <perfgate/error.hpp>

#include "util/subprocess.hpp"

#include <cstdlib>
#include <vector>

namespace perfgate::detail {

namespace {
std::string run_cuobjdump(const std::string& flag, const std::string& binary) {
  std::optional<std::string> tool;
  if (const char* given = std::getenv("PERFGATE_CUOBJDUMP"); given != nullptr && *given != 0) {
    tool = find_executable(given);
    if (!tool) {
      throw usage_error("PERFGATE_CUOBJDUMP=" + std::string(given) + " is not an executable");
    }
  } else {
    std::vector<std::string> dirs;
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
      if (const char* home = std::getenv(var); home != nullptr && *home != 0) {
        dirs.push_back(std::string(home) + "/bin");
      }
    }
    dirs.emplace_back("/usr/local/cuda/bin");
    // PATH first: find_executable looks in `dirs` before PATH.
    tool = find_executable("cuobjdump");
    if (!tool) {
      tool = find_executable("cuobjdump", dirs);
    }
  }
  if (!tool) {
    throw skip_error("no cuobjdump to list the SASS of " + binary +
                     ": install the CUDA toolkit or `pip install nvidia-cuda-cuobjdump` (no GPU "
                     "needed) and put its bin/ on PATH, or set PERFGATE_CUOBJDUMP");
  }
  process_options options;
  options.capture_stdout = true;
  std::string last;
  options.on_stderr_line = [&last](std::string_view line) { last = line; };
  options.timeout_s = 120;
  const auto result = run_process({*tool, flag, binary}, options);
  if (result.exit_code != 0) {
    throw input_error(binary, "",
                      "cuobjdump " + flag + " " + result.describe() +
                          (last.empty() ? "" : ": " + last));
  }
  return result.stdout_text;
}
} // namespace

std::string cuobjdump_sass(const std::string& binary) { return run_cuobjdump("-sass", binary); }

std::string cuobjdump_resource_usage(const std::string& binary) {
  return run_cuobjdump("-res-usage", binary);
}

} // namespace perfgate::detail
