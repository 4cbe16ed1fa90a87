// SPDX-License-Identifier: Apache-2.0
// A project's performance history: each accepted run of main, per kernel and local device, as
// JSON lines (`perfgate-history/1`, one object a line, appended in commit order), and the
// change points of each kernel's series (docs/statistics.md, "History"). Kept as a CI artifact
// or committed; a line is never rewritten, so two jobs' histories merge by concatenation.
#pragma once

#include <perfgate/change_points.hpp>
#include <perfgate/report.hpp>
#include <perfgate/statistics.hpp>
#include <perfgate/writers.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace perfgate::history {

/// One kernel of one run of one commit.
struct entry {
  std::string commit;
  std::string date; ///< ISO 8601, as given (the commit's or the run's)
  std::string kernel;
  std::string device; ///< the local device the kernel was gated on
  double efficiency = 0;
  /// Per-sample efficiencies by run: the measurement's, then any confirmation runs'.
  stats::runs runs;
  double W_comp = 0;
  double W_traf = 0;
};

/// A kernel taken out of alerts (or back in, `muted` false), with the reason.
struct mute {
  std::string kernel;
  bool muted = true;
  std::string reason;
  std::string date;
};

struct store {
  std::vector<entry> entries; ///< in file order
  std::vector<mute> mutes;    ///< in file order: the last line about a kernel holds
};

/// Reads `perfgate-history/1` JSON lines; a bad line is an input_error naming the file, the
/// line number and the key. Blank lines are skipped.
[[nodiscard]] store read_history(std::string_view text, const std::string& file);

/// The entries of a gated report (kernels with an efficiency on their local device), for
/// `commit` at `date`.
[[nodiscard]] std::vector<entry> entries_of(const report& r, const std::string& commit,
                                            const std::string& date);

/// One JSON line each (with the newline).
[[nodiscard]] std::string to_lines(const std::vector<entry>& entries);
[[nodiscard]] std::string to_line(const mute& m);

/// One kernel's series on one device: a point per commit, in order of first appearance.
struct series {
  std::string kernel;
  std::string device;
  std::vector<std::string> commits;
  std::vector<std::string> dates;
  /// Per commit, the floor of its runs: the fastest run median of 1 / efficiency (the time
  /// over the roof's), pooled over every entry of that commit. Larger is slower.
  std::vector<double> points;
  std::vector<std::size_t> runs; ///< per commit, how many runs its point is the floor of
  std::vector<stats::change_point> changes;
  bool muted = false;
  std::string mute_reason;
};

/// Every kernel's series with its change points (muted ones too, marked).
[[nodiscard]] std::vector<series> trends(const store& s,
                                         const stats::change_point_options& options = {});

/// The change points as a Markdown section for a pull-request comment: a table of shifts (the
/// first commit of each, its size and the test's confidence), muted kernels apart, and a
/// sparkline of every series.
[[nodiscard]] std::string trends_to_markdown(const std::vector<series>& all);
/// A standalone HTML page: per kernel its trend (inline SVG, change points marked).
[[nodiscard]] std::string trends_to_html(const std::vector<series>& all);
/// `perfgate-history-changes/1` JSON.
[[nodiscard]] std::string trends_to_json(const std::vector<series>& all);

using trend_writer = format_writer<std::vector<series>>;
/// Every format of `perfgate history changes` (md, html, json, text: the Markdown, read in a
/// terminal), as report_writers() for a report.
[[nodiscard]] const std::vector<trend_writer>& trend_writers();

} // namespace perfgate::history
