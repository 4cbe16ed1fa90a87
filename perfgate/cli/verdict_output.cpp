// SPDX-License-Identifier: Apache-2.0
#include <perfgate/file_io.hpp>
#include <perfgate/writers.hpp>

#include "cli/shared.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

namespace perfgate::cli {

void print_kernel_verdicts(const report& r, bool tags) {
  for (const auto& k : r.kernels) {
    std::string status(to_string(k.result.status));
    std::transform(status.begin(), status.end(), status.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    std::cout << "  " << status << "  " << k.name;
    if (tags) {
      std::cout << (!k.predictions.empty() && k.predictions.front().one_core
                        ? " [1 thread: one-core peaks]"
                        : "")
                << (!k.skip_reason.empty() || k.params.model != model_kind::roofline ? ""
                    : k.params.compute_declared ? " [declared work: roofline]"
                                                : " [declared bytes alone: the memory roof]");
    }
    std::cout << "\n";
    for (const auto& reason : k.result.reasons) {
      std::cout << "        " << reason << "\n";
    }
  }
}

void write_report_files(const report& r, const std::string& file, bool with_chart) {
  const std::filesystem::path path(file);
  create_parent_directories(path);
  if (!with_chart) {
    write_files_atomically({{path, report_to_json(r)}});
    std::cout << "perfgate: report " << file << "\n";
    return;
  }
  // The two are written as one unit, so a report never sits beside another run's chart.
  std::filesystem::path chart = path;
  chart.replace_extension(".roofline.svg");
  const std::string json = report_to_json(r);
  const std::string svg = report_roofline_svg(r, 0);
  write_files_atomically({{path, json}, {chart, svg}});
  std::cout << "perfgate: report " << file << "\n"
            << "<CTestMeasurementFile type=\"image/svg+xml\" name=\"roofline\">"
            << detail::html_escape(std::filesystem::absolute(chart).string())
            << "</CTestMeasurementFile>\n";
}

} // namespace perfgate::cli
