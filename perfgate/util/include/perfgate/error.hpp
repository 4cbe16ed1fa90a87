// SPDX-License-Identifier: Apache-2.0
/// \file
/// The errors perfgate's library throws, each tied to one exit code of the `perfgate` command
/// (DESIGN.md): 2 for bad usage or bad input, 3 when the target program fails, 77 when the run
/// cannot be done here (no suitable device, no counter permission). A gate failure (exit 1) is
/// a verdict, never an exception. The library never calls exit().
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace perfgate {

/// Exit codes of the `perfgate` command, which are also the CTest test's exit codes.
enum class exit_status : int {
  pass = 0,          ///< every gated kernel passed (or the command did its job)
  gate_failure = 1,  ///< at least one kernel failed the gate
  input_error = 2,   ///< bad usage, bad option value, malformed or incomplete input
  target_failed = 3, ///< the profiled program failed, crashed or timed out
  internal_error = 4, ///< a bug in perfgate (a broken invariant, not the user's input)
  skipped = 77,      ///< nothing could be measured here; the reason is printed
};

/// Base of every error perfgate throws on purpose; carries the exit code the CLI returns.
class error : public std::runtime_error {
public:
  error(exit_status status, const std::string& message)
      : std::runtime_error(message), m_status(status) {}
  [[nodiscard]] exit_status status() const noexcept { return m_status; }

private:
  exit_status m_status;
};

/// Bad command-line usage or option value (exit 2). The library speaks of its own arguments,
/// never of a command's options: `argument`, when given, names the function argument at fault
/// ("kernel_regex", "devices"), and the `perfgate` command names its option for it.
class usage_error : public error {
public:
  explicit usage_error(const std::string& message) : error(exit_status::input_error, message) {}
  usage_error(std::string argument, const std::string& message)
      : error(exit_status::input_error, message), m_argument(std::move(argument)) {}
  /// The argument at fault; empty when the error is not about one argument.
  [[nodiscard]] const std::string& argument() const noexcept { return m_argument; }

private:
  std::string m_argument;
};

/// A file perfgate reads is missing, unreadable, malformed or incomplete (exit 2). The message
/// always starts with the file, then the line (`file:12:`) or the key (`file: key 'a.b':`).
class input_error : public error {
public:
  /// `where` is a line number as text ("12"), a key ("key 'peaks.dram_gbs'"), or empty.
  input_error(std::string file, std::string where, const std::string& what);
  [[nodiscard]] const std::string& file() const noexcept { return m_file; }
  [[nodiscard]] const std::string& where() const noexcept { return m_where; }
  /// What is wrong, without the file and the line or key.
  [[nodiscard]] const std::string& detail() const noexcept { return m_detail; }

private:
  std::string m_file;
  std::string m_where;
  std::string m_detail;
};

/// The run cannot be done on this machine (no GPU, no driver, no counter permission): exit 77.
class skip_error : public error {
public:
  explicit skip_error(const std::string& reason) : error(exit_status::skipped, reason) {}
};

/// The profiled program failed, crashed or timed out (exit 3).
class target_error : public error {
public:
  explicit target_error(const std::string& what) : error(exit_status::target_failed, what) {}
};

} // namespace perfgate
