// SPDX-License-Identifier: Apache-2.0
/// \file
/// A report's output formats, in one registry: the CLI's `--format` choices and help, the docs'
/// table of formats and the writers' golden-file tests all come from report_writers(). A new
/// format is one more entry there (docs/architecture.md). The hull's documents
/// (<perfgate/hull_report.hpp>) and the history's trends have registries of the same
/// format_writer, and their functions the same names: DOCUMENT_to_FORMAT.
#pragma once

#include <perfgate/error.hpp>
#include <perfgate/report.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// What a chart draws; the writers of a whole report ignore it.
struct writer_options {
  enum class chart_kind { roofline, quadrant };
  chart_kind chart = chart_kind::roofline;
  std::size_t device_index = 0; ///< roofline: the device drawn (every kernel on it)
  std::size_t kernel_index = 0; ///< quadrant: the kernel drawn (on every device)
};

/// One output format of a `Document`: an entry of its registry.
template <class Document, class... Options> struct format_writer {
  std::string_view name;        ///< what `--format` takes ("md")
  std::string_view alias;       ///< another name it takes ("markdown"), or empty
  std::string_view extension;   ///< of the file it is usually written to (".md")
  std::string_view description; ///< one line for `--help` and docs/formats.md
  std::string (*render)(const Document&, const Options&...);
};

/// The writer called `name` (its name or alias) in `writers`; throws usage_error listing every
/// name.
template <class Writer>
[[nodiscard]] const Writer& find_writer(const std::vector<Writer>& writers, std::string_view name) {
  std::string expected;
  for (std::size_t i = 0; i < writers.size(); ++i) {
    if (writers[i].name == name || (!writers[i].alias.empty() && writers[i].alias == name)) {
      return writers[i];
    }
    expected += std::string(i == 0                    ? ""
                            : i + 1 == writers.size() ? " or "
                                                      : ", ") +
                std::string(writers[i].name);
  }
  throw usage_error("unknown format '" + std::string(name) + "': expected " + expected);
}

/// Every name (and alias) of `writers`, in their order: `--format`'s choices.
template <class Writer>
[[nodiscard]] std::vector<std::string> writer_names(const std::vector<Writer>& writers) {
  std::vector<std::string> names;
  for (const auto& w : writers) {
    names.emplace_back(w.name);
    if (!w.alias.empty()) {
      names.emplace_back(w.alias);
    }
  }
  return names;
}

using report_writer = format_writer<report, writer_options>;

/// Every writer, in the order help lists them.
[[nodiscard]] const std::vector<report_writer>& report_writers();
/// The writer called `name` (its name or alias); throws usage_error listing every name.
[[nodiscard]] const report_writer& find_report_writer(std::string_view name);
/// "text: tables for a terminal; json: ...": every writer for `--format`'s help.
[[nodiscard]] std::string report_writer_help();
/// `r` in the format called `name`.
[[nodiscard]] std::string render_report(const report& r, std::string_view name,
                                        const writer_options& options = {});

[[nodiscard]] std::string report_to_json(const report& r);     ///< `perfgate-report/2`
[[nodiscard]] std::string report_to_text(const report& r);     ///< tables for a terminal
[[nodiscard]] std::string report_to_markdown(const report& r); ///< GitHub-flavoured Markdown
/// OpenMetrics text: gauges of efficiency, measured, roof and predicted time per kernel and
/// device (GitLab's metrics report); a number the report lacks is no sample.
[[nodiscard]] std::string report_to_openmetrics(const report& r);
/// JUnit XML: a test case per kernel, failed, skipped or passed with the verdict's reasons.
[[nodiscard]] std::string report_to_junit(const report& r);
/// One self-contained HTML page: verdicts, model values, a roofline per device and a
/// quadrant-split chart per kernel (inline SVG).
[[nodiscard]] std::string report_to_html(const report& r);
/// SVG charts: the roofline of devices[device_index], or the quadrant-split view of
/// kernels[kernel_index]. Throw usage_error for an index out of range, and for a kernel that
/// was not predicted.
[[nodiscard]] std::string report_roofline_svg(const report& r, std::size_t device_index);
[[nodiscard]] std::string report_quadrant_svg(const report& r, std::size_t kernel_index);

} // namespace perfgate
