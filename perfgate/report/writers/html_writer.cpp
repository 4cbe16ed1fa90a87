// SPDX-License-Identifier: Apache-2.0
// One self-contained HTML page: the verdicts, then the roofline of every device and the
// quadrant-split view of every kernel, inline SVG (no scripts, no external files).
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/prediction_table.hpp"
#include "report/writers/suite_summary.hpp"
#include "report/writers/svg_writer.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

namespace perfgate {

namespace {
// Inline SVG in HTML takes no XML declaration.
std::string inline_svg(std::string svg) {
  if (svg.rfind("<?xml", 0) == 0) {
    svg.erase(0, svg.find('\n') + 1);
  }
  return svg;
}
} // namespace

std::string report_to_html(const report& r) {
  using namespace detail;
  // Library kernels are templates of up to 1,500 characters: tables show the function's name
  // (the full one is in each kernel's section), the kernels that took the most time first.
  const auto order = kernels_by_time(r);
  const auto names = kernel_short_names(r);
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<title>perfgate report</title>\n<style>\n"
      "body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;"
      "margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;"
      "font-size:14px}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
      "th{background:#f3f3f3}h2{margin-top:2em}figure{margin:1em 0}"
      "td,p,code,summary{overflow-wrap:anywhere}details code{font-size:12px}\n"
      "</style>\n</head>\n<body>\n<h1>perfgate report</h1>\n";
  if (r.suite) { // the suite in one figure opens a comparison, as in the text and Markdown
    out += "<p><strong>" + html_escape(suite_line(*r.suite)) + "</strong></p>\n";
  }
  out += "<p>Profile <code>" + html_escape(r.profile_file) + "</code> (" +
         html_escape(r.profile_format) +
         "). Roof = the speed-of-light time on a device (no correct run is faster); "
         "efficiency = roof / measured; predicted = the predicted time; rates in 1e9/s. "
         "Kernels by measured time, the largest first.</p>\n";
  if (anything_gated(r)) {
    table verdicts;
    verdicts.header = {"verdict", "kernel", "device", "measured", "efficiency", "why"};
    verdicts.right_aligned = {false, false, false, true, true, false};
    for (const std::size_t i : order) {
      const auto& k = r.kernels[i];
      verdicts.rows.push_back({std::string(to_string(k.result.status)), names[i], k.result.device,
                               k.measured ? duration(k.measured->time_s) : "-",
                               k.result.efficiency ? with_digits(*k.result.efficiency, 2) : "-",
                               k.result.reasons.empty() ? "" : k.result.reasons.front()});
    }
    out += "<h2>Verdicts</h2>\n" + render_html(verdicts);
  }
  out += "<h2>Kernels on every device</h2>\n" + render_html(overview_table(r, order, names));
  for (const std::size_t i : order) {
    const auto& k = r.kernels[i];
    out += "<h3><code>" + html_escape(names[i]) + "</code></h3>\n";
    if (names[i] != k.name) {
      out += "<details><summary>full name</summary><code>" + html_escape(k.name) +
             "</code></details>\n";
    }
    out += "<p>" + html_escape(kernel_summary(k)) + "</p>\n" +
           (k.predictions.empty() ? "" : render_html(prediction_table(k, r.devices)));
  }
  out += "<h2>Roofline per device</h2>\n";
  for (std::size_t d = 0; d < r.devices.size(); ++d) {
    out += "<figure>\n" + inline_svg(roofline_svg(r, d)) + "</figure>\n";
  }
  out += "<h2>Quadrant-split view per kernel</h2>\n";
  // One chart per kernel, as many as the roofline draws: a page of thousands is unusable.
  const auto drawn = kernels_to_draw(r, k_max_roofline_kernels);
  for (const std::size_t k : drawn) {
    out += "<figure>\n" + inline_svg(quadrant_svg(r, k)) + "</figure>\n";
  }
  if (const std::string more = kernels_left_out(r, drawn); !more.empty()) {
    out += "<p>" + html_escape(more) +
           "; <code>perfgate report --format svg --chart quadrant --kernel REGEX</code> draws "
           "any of them.</p>\n";
  }
  return out + "</body>\n</html>\n";
}

} // namespace perfgate
