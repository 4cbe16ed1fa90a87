// SPDX-License-Identifier: Apache-2.0
// Names and numbers in the reports other tools read (JUnit for Jenkins and GitLab, OpenMetrics
// for GitLab's metrics report and Prometheus' parsers), made in this one place so that every
// such writer names a kernel the same way:
//   - unique: a merged report holds one kernel from several tests and runners; GitLab keeps one
//     test case per (suite, classname, name) and one metric per key, Jenkins one per
//     (classname, name), Prometheus' parsers refuse a repeated series;
//   - bounded: demangled template names reach 1,500 characters; a key that long is unreadable
//     in a merge request and differs from run to run only in its tail;
//   - stable: the same report gives the same names in every run (no counters, no addresses),
//     so that GitLab and Jenkins follow a test or a metric from run to run;
//   - numbers at the digits a comparison can use: GitLab compares metric values as strings.
// docs/ci.md ("What GitLab and Jenkins read") says what each tool does with them.
#pragma once

#include <perfgate/report.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// The most bytes of UTF-8 a name keeps in another tool's report, before that format escapes
/// it (a kernel numbered for uniqueness gets " (n)" more): as long as a table's short kernel
/// name (kernel_names.hpp), which a demangled signature of a few parameters fits.
inline constexpr std::size_t k_tool_name_max = 120;

/// `name` as other tools' reports hold it: valid UTF-8 (a bad byte becomes U+FFFD), control
/// characters (line feeds included) as spaces, and at most k_tool_name_max bytes: a longer name
/// keeps its head, cut between characters, and ends with "~" and the first 8 hex digits of the
/// FNV-1a hash of the whole name, so that names differing past the head stay apart and a name
/// reads the same in every run.
[[nodiscard]] std::string tool_name(std::string_view name);

/// A kernel of a report as other tools' reports name it.
struct tool_kernel {
  /// The CTest test a merged report's kernel came from (its origin's report file, which
  /// add_perf_prediction names after the test); "<test>@<host>" for the later of two runners'
  /// reports that hold the same kernel of the same test. Empty in a report not merged.
  std::string test;
  /// Its name; " (2)", " (3)", ... appended where the same test holds the same name again.
  std::string kernel;
  /// The local device its verdict is about; empty when there is none.
  std::string device;
  /// JUnit's classname: "perfgate.<test>.<device>" ("perfgate.<device>" without a test,
  /// "predicted" for the device where there is none).
  std::string classname;
  /// The JUnit testsuite it goes in: the test its origin names (one suite per merged report),
  /// else "perfgate".
  std::string suite;
};

/// One per kernel of `r`, in order, with no two sharing (test, kernel) (hence no OpenMetrics
/// series twice) nor (classname, kernel) (no JUnit test case twice). A clash with another
/// runner's kernel is resolved by naming this one's host in the test; what still clashes (the
/// same name twice in one report) by numbering the kernel, in report order.
[[nodiscard]] std::vector<tool_kernel> tool_kernels(const report& r);

/// An OpenMetrics label value: backslash, double quote and line feed escaped as the text
/// format says, and `#` and `%` percent-encoded (%23, %25): GitLab's metrics parser cuts every
/// line at its first `#`, so a `#` in a label value loses the line or fails the whole report
/// ("Unmatched quote"); `%` too so that the encoding stays one to one.
[[nodiscard]] std::string openmetrics_label_value(std::string_view value);

/// Significant digits of a measured or modelled number (an efficiency, a time, a ratio) in
/// other tools' reports.
inline constexpr int k_tool_digits = 4;

/// `v` at k_tool_digits significant digits, the shortest text that reads back as that rounded
/// value ("0.7499", "0.003983", "1.2e-05"); counts are written by the caller as integers.
[[nodiscard]] std::string tool_number(double v);

} // namespace perfgate::detail
