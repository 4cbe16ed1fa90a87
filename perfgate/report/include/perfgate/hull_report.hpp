// SPDX-License-Identifier: Apache-2.0
/// \file
/// What `perfgate hull` prints: the band of one class, or of an application's primitives, per
/// device, as text, JSON (`perfgate-hull/1`), Markdown or SVG; and Table 1 for --list-classes.
/// The writers only render what <perfgate/hull.hpp> computed.
#pragma once

#include <perfgate/hull.hpp>
#include <perfgate/writers.hpp>

#include <optional>
#include <string>
#include <vector>

namespace perfgate::hull {

/// One `perfgate hull` answer: a class (`species` set) or an application (`app` set).
struct document {
  std::string species_text;    ///< as the user wrote it
  std::optional<species> kind; ///< a class; empty for an application
  class_params params;         ///< the class's Table 1 row and quantities
  double f = 0, alpha = 0, beta = 0;
  assumptions assumed;
  std::vector<prediction> predictions; ///< one per device, in the order given
  std::optional<application> app;
  std::string app_file;
  std::vector<application_prediction> app_predictions;
};

[[nodiscard]] std::string hull_to_text(const document& doc);
[[nodiscard]] std::string hull_to_json(const document& doc); ///< `perfgate-hull/1`
[[nodiscard]] std::string hull_to_markdown(const document& doc);
/// The bands of every device next to each other on one logarithmic time axis, with the floors.
[[nodiscard]] std::string hull_to_svg(const document& doc);

using hull_writer = format_writer<document>;
/// Every format of `perfgate hull` (text, json, md, svg), as report_writers() for a report.
[[nodiscard]] const std::vector<hull_writer>& hull_writers();

/// Table 1 (and the case study's Y-projection): text or JSON.
[[nodiscard]] std::string classes_to_text();
[[nodiscard]] std::string classes_to_json();

} // namespace perfgate::hull
