// SPDX-License-Identifier: Apache-2.0
// Running another program from an argument vector (never a shell string: kernel names and
// arguments carry spaces, quotes and parentheses), with its output read as it comes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail {

struct process_options {
  bool capture_stdout = false; ///< collect stdout in the result; otherwise it is inherited
  std::function<void(std::string_view line)> on_stderr_line;    ///< when set, stderr is read here
  std::optional<double> timeout_s;                              ///< kill the process group after
  std::vector<std::pair<std::string, std::string>> environment; ///< added to ours
};

struct process_result {
  int exit_code = -1;     ///< valid when the process exited normally
  int signal = 0;         ///< the signal that ended it, 0 if none
  bool timed_out = false; ///< killed because the timeout passed
  bool not_found = false; ///< the program could not be started (exit code 127)
  std::string stdout_text;
  std::string last_stderr_line;

  [[nodiscard]] std::string describe() const; ///< "exited with 3", "killed by SIGSEGV", ...
};

/// The executable `name` in the first of `dirs` that has it, else on PATH; a name with a slash
/// is returned as it is when executable.
[[nodiscard]] std::optional<std::string> find_executable(const std::string& name,
                                                         const std::vector<std::string>& dirs = {});

/// Starts argv[0] (searched on PATH when it has no slash) in its own process group and waits.
[[nodiscard]] process_result run_process(const std::vector<std::string>& argv,
                                         const process_options& options);

} // namespace perfgate::detail
