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
  /// Copy the program's stderr to ours as it comes, unchanged (one write per read, not per
  /// line), keeping its last line for the result.
  bool forward_stderr = false;
  std::function<void(std::string_view line)> on_stderr_line; ///< when set, stderr is read here
  /// Kill the process group after this many seconds: finite and > 0 (usage_error otherwise);
  /// beyond about 30 years it never comes.
  std::optional<double> timeout_s;
  std::vector<std::pair<std::string, std::string>> environment; ///< added to ours
};

struct process_result {
  int exit_code = -1;     ///< valid when the process exited normally
  int signal = 0;         ///< the signal that ended it, 0 if none
  bool timed_out = false; ///< killed because the timeout passed
  bool not_found = false; ///< the program could not be started (exit code 127)
  /// SIGINT, SIGTERM or SIGHUP that perfgate received while the program ran and passed on to
  /// its process group (killed after a grace period when that did not end it); 0 if none.
  int interrupted_by = 0;
  std::string stdout_text;
  std::string last_stderr_line;

  [[nodiscard]] std::string describe() const; ///< "exited with 3", "killed by SIGSEGV", ...
};

/// "SIGTERM" for SIGTERM, the number for a signal without a name.
[[nodiscard]] std::string signal_name(int signal);

/// The executable `name` in the first of `dirs` that has it, else on PATH; a name with a slash
/// is returned as it is when executable.
[[nodiscard]] std::optional<std::string> find_executable(const std::string& name,
                                                         const std::vector<std::string>& dirs = {});

/// Starts argv[0] (searched on PATH when it has no slash) in its own process group and waits
/// for it to exit: not for its pipes, which a background child may hold open. Whatever is left
/// of its process group when it exits is killed (it would keep a GPU busy under the next
/// measurement). While it runs, SIGINT, SIGTERM and SIGHUP sent to perfgate are passed on to
/// the group, and a watchdog process kills the group should perfgate itself be killed
/// (SIGKILL included). Not reentrant: one program at a time per perfgate process.
[[nodiscard]] process_result run_process(const std::vector<std::string>& argv,
                                         const process_options& options);

} // namespace perfgate::detail
