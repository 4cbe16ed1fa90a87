// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/svg_writer.hpp"

namespace perfgate {
namespace {
std::string svg_chart(const report& r, const writer_options& o) {
  return o.chart == writer_options::chart_kind::roofline ? detail::roofline_svg(r, o.device_index)
                                                         : detail::quadrant_svg(r, o.kernel_index);
}
} // namespace

const std::vector<report_writer>& report_writers() {
  static const std::vector<report_writer> writers = {
      {"text", "", ".txt", "tables for a terminal",
       [](const report& r, const writer_options&) { return report_to_text(r); }},
      {"json", "", ".json", "perfgate-report/2, what compare, merge and baseline read",
       [](const report& r, const writer_options&) { return report_to_json(r); }},
      {"md", "markdown", ".md", "GitHub-flavoured Markdown for a pull request or job summary",
       [](const report& r, const writer_options&) { return report_to_markdown(r); }},
      {"html", "", ".html", "one self-contained page with every chart",
       [](const report& r, const writer_options&) { return report_to_html(r); }},
      {"svg", "", ".svg", "one chart: a device's roofline or a kernel's quadrant-split view",
       svg_chart},
      {"openmetrics", "", ".openmetrics.txt",
       "OpenMetrics gauges per kernel and device (GitLab's metrics report)",
       [](const report& r, const writer_options&) { return report_to_openmetrics(r); }},
      {"junit", "", ".junit.xml", "JUnit XML, a test case per kernel (CI test reports)",
       [](const report& r, const writer_options&) { return report_to_junit(r); }},
  };
  return writers;
}

std::string report_writer_help() {
  std::string help;
  for (const auto& w : report_writers()) {
    help += (help.empty() ? "" : "; ") + std::string(w.name) +
            (w.alias.empty() ? "" : " (or " + std::string(w.alias) + ")") + ": " +
            std::string(w.description);
  }
  return help;
}

const report_writer& find_report_writer(std::string_view name) {
  return find_writer(report_writers(), name);
}

std::string render_report(const report& r, std::string_view name, const writer_options& options) {
  return find_report_writer(name).render(r, options);
}

std::string report_roofline_svg(const report& r, std::size_t device_index) {
  return detail::roofline_svg(r, device_index);
}

std::string report_quadrant_svg(const report& r, std::size_t kernel_index) {
  return detail::quadrant_svg(r, kernel_index);
}

} // namespace perfgate
