// SPDX-License-Identifier: Apache-2.0
// What the SVG charts share: the page layout and palette, text and number formatting, log axes,
// SVG elements, label placement, legend rows and the document around a chart.
#pragma once

#include <perfgate/device.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail::svg {

// Layout in pixels: the plot on the left, the legend (every kernel or device by number and
// colour) on the right, a key to the symbols under the plot. The height grows with the legend.
inline constexpr double k_width = 1000;
inline constexpr double k_plot_left = 86;
inline constexpr double k_plot_right = 566;
inline constexpr double k_plot_top = 76;
inline constexpr double k_plot_bottom = 556;
inline constexpr double k_legend_left = 598;
inline constexpr double k_legend_right = 990;
inline constexpr double k_legend_row = 32;
inline constexpr double k_min_height = 680;
inline constexpr double k_marker_r = 6;

// Kelly's colours of maximum contrast, without white and the palest yellow, the light blue and
// the greenish yellow darkened so that hollow markers stay visible: 20 colours distinct on white.
// Kernels past 20 reuse them; their numbers still tell them apart.
inline constexpr std::array<std::string_view, 20> k_palette = {
    "#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#882d17", "#e68fac",
    "#848482", "#8db600", "#6fa8dc", "#f6a600", "#604e97", "#f99379", "#b3446c",
    "#b5a800", "#2b3d26", "#c2b280", "#654522", "#e25822", "#222222"};

/// The colour of kernel or device number `i` (counting from 0) from k_palette.
[[nodiscard]] std::string colour(std::size_t i);

// ---- text ---------------------------------------------------------------------------------

/// Every label goes through the one markup escaper (valid UTF-8, XML 1.0 characters, & < > " ').
[[nodiscard]] std::string escape(std::string_view s);

/// The number of characters in UTF-8 text (its bytes that start a character).
[[nodiscard]] std::size_t char_count(std::string_view utf8);

/// Estimated width of a label; sans-serif fonts average about 0.6 em per character.
[[nodiscard]] double text_width(std::string_view utf8, double size, bool bold = false);

/// At most `max_chars` characters, the last one an ellipsis when cut (never inside a character).
[[nodiscard]] std::string ellipsize(std::string_view text, std::size_t max_chars);

/// How many characters fit in `width` pixels at font `size` (`em`: the average character width).
[[nodiscard]] std::size_t chars_in(double width, double size, double em = 0.58);

/// A kernel's name for a label: without a leading "void " and, when still too long, with its
/// argument list elided ("kernel_00<float, 1>(\u2026)"); the full name is in a tooltip.
[[nodiscard]] std::string short_name(std::string_view name, std::size_t max_chars);

// ---- numbers ------------------------------------------------------------------------------

/// A pixel coordinate: two decimals, never "nan" or "inf" (what cannot be placed is pinned).
[[nodiscard]] std::string px(double v);

/// A model value for people: about four significant digits ("0.302", "28.92", "3350").
[[nodiscard]] std::string value(double v);

/// A duration to about four significant digits ("6.187 ms", "849.3 us").
[[nodiscard]] std::string short_duration(double seconds);

/// Whether `v` is finite and above zero, so that it has a place on a logarithmic axis.
[[nodiscard]] bool positive(double v);

/// "1.007 Gop", "512 op".
[[nodiscard]] std::string amount(double v, std::string_view unit);

/// Whether kernels of type `t` count integer operations rather than floating-point ones.
[[nodiscard]] bool counts_integer_ops(kernel_type t);

/// The unit of a kernel type's throughput: "GIOPS" or "GFLOPS".
[[nodiscard]] std::string unit_of(kernel_type t);

/// A kernel type for people: "FP32", "FP64", "INT", "BF16 tensor".
[[nodiscard]] std::string type_name(kernel_type t);

// ---- geometry -----------------------------------------------------------------------------

/// A position in pixels (y grows downwards).
struct point {
  double x = 0, y = 0;
};

/// A rectangle in pixels, from its top-left (x0, y0) to its bottom-right (x1, y1) corner.
struct box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  [[nodiscard]] bool overlaps(const box& o) const {
    return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
  }
  [[nodiscard]] bool within(const box& o) const {
    return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1;
  }
};

/// The plot's frame: markers and labels stay inside it.
inline constexpr box k_plot{k_plot_left, k_plot_top, k_plot_right, k_plot_bottom};

/// The square of half-side `r` centred on `p`.
[[nodiscard]] box around(point p, double r);

/// A logarithmic axis: log10 of its two ends and their pixels.
struct log_axis {
  double lo = -1, hi = 1;
  double p0 = 0, p1 = 1;

  // The pixel of a value, pinned to the axis (a value <= 0 goes to its low end).
  [[nodiscard]] double at(double v) const {
    const double l = positive(v) ? std::log10(std::clamp(v, 1e-300, 1e300)) : lo;
    return unclamped(std::clamp(l, lo, hi));
  }
  // The pixel of log10(v) = l, wherever it falls (lines are clipped by the caller).
  [[nodiscard]] double unclamped(double l) const { return p0 + (l - lo) / (hi - lo) * (p1 - p0); }
  [[nodiscard]] double low() const { return std::pow(10.0, lo); }
  [[nodiscard]] double high() const { return std::pow(10.0, hi); }
  [[nodiscard]] double pixels_per_decade() const { return std::fabs(p1 - p0) / (hi - lo); }
};

/// An axis over the positive, finite values with a margin, at least 1.2 decades long so that a
/// decade tick always falls inside. No value to place gives 0.1 .. 10.
[[nodiscard]] log_axis make_axis(const std::vector<double>& values, double p0, double p1);

/// "0.01", "1", "5000" near 1; "1e-6", "2e9" far from it. Tests read these back with strtod.
[[nodiscard]] std::string tick_label(int mantissa, int e);

// ---- SVG elements -------------------------------------------------------------------------

/// A <line> from `a` to `b`; `attrs` are its other attributes, written as they are.
[[nodiscard]] std::string line(point a, point b, std::string_view attrs);

/// `content` is raw text; it is escaped here.
[[nodiscard]] std::string text(point at, int size, std::string_view anchor,
                               std::string_view content, std::string_view attrs = "");

/// The value of a transform attribute that moves the origin to `p`.
[[nodiscard]] std::string translate(point p);

/// A <polygon> through `pts`; `attrs` are its other attributes, written as they are.
[[nodiscard]] std::string polygon(const std::vector<point>& pts, std::string_view attrs);

/// A marker centred on the origin (the caller translates it): the verdict's shape.
[[nodiscard]] std::string shape(verdict_status s, double r, std::string_view paint);

/// Filled markers were measured; hollow ones show the predicted bound only.
[[nodiscard]] std::string marker_paint(const std::string& fill_colour, bool filled);

/// The verdict for a tooltip: "pass", "warn", "fail" or "not gated".
[[nodiscard]] std::string status_word(verdict_status s);

/// The plot frame, decade gridlines (minor ones when a decade is wide), tick labels and titles.
[[nodiscard]] std::string axes(const log_axis& x, const log_axis& y, std::string_view x_title,
                               std::string_view y_title);

// ---- label placement ----------------------------------------------------------------------

/// Where a label went.
struct placed_label {
  box where;
  bool leader = false; // placed away from its point: draw a line to it
};

/// Greedy placement: each label takes the first spot around its point that is inside the plot
/// and clear of every marker and of the labels placed before it.
class label_layout {
public:
  explicit label_layout(box area) : m_area(area) {}

  void block(const box& b) { m_taken.push_back(b); }

  // A line, as small boxes along it, so labels do not sit on it.
  void block_segment(point a, point b, double half_width);

  [[nodiscard]] bool all_free(const std::vector<box>& bs) const {
    return std::all_of(bs.begin(), bs.end(), [&](const box& b) { return is_free(b); });
  }

  [[nodiscard]] bool is_free(const box& b) const {
    return b.within(m_area) && std::none_of(m_taken.begin(), m_taken.end(),
                                            [&](const box& t) { return t.overlaps(b); });
  }

  // A w x h label next to a marker of radius r at p: the eight spots around it, then the same
  // further out.
  std::optional<placed_label> place(point p, double r, double w, double h);

private:
  box m_area;
  std::vector<box> m_taken;
};

/// A placed label: a white backing so gridlines do not cross it, the text, and a leader line
/// from its point when it had to move away.
[[nodiscard]] std::string draw_label(const placed_label& l, point from, std::string_view content,
                                     int size, std::string_view css_class,
                                     const std::string& leader_colour);

/// A text drawn rotated by `degrees` from its start `at`, as small boxes along its middle (one
/// box around a diagonal text would block a whole corner of the plot).
[[nodiscard]] std::vector<box> rotated_boxes(point at, double w, double size, double degrees);

/// Text drawn along the segment a-b, `lift` pixels to the left of its direction (else as far to
/// the right), at the first of the fractions `ts` of its length, then anywhere along it, where it
/// is clear of everything placed; else nothing.
[[nodiscard]] std::string text_along(point a, point b, std::vector<double> ts, double lift,
                                     std::string_view content, int size, std::string_view attrs,
                                     label_layout& layout);

// ---- the document -------------------------------------------------------------------------

/// The whole SVG document: `height` pixels tall, `title` its <title>, `body` on a white page.
[[nodiscard]] std::string document(double height, std::string_view title, const std::string& body);

/// Title (with the full text as a tooltip when it had to be shortened) and a subtitle.
[[nodiscard]] std::string heading(std::string_view title, std::string_view subtitle);

/// The verdict as a coloured word ("FAIL"); nothing for a kernel that was not gated.
struct status_tag {
  std::string word;
  std::string colour;
};

/// The tag of verdict `s`; empty for skip.
[[nodiscard]] status_tag tag_of(verdict_status s);

/// One legend entry: a swatch, the number, the name (a kernel's shortened like a C++ signature)
/// with the verdict at the right, and a detail line, most important first (it may be cut).
struct legend_entry {
  std::string swatch;
  std::size_t number = 0;
  std::string name;
  bool kernel_name = false;
  status_tag tag;
  std::string detail;
  std::string tooltip;
};

/// A legend entry in the legend column, its first line's baseline at `y` (k_legend_row tall).
[[nodiscard]] std::string legend_row(double y, const legend_entry& e);

/// A key to the symbols, laid out left to right from (x, y): each item a symbol and a word.
struct key_item {
  std::string symbol; // drawn centred on the origin
  std::string label;
};

/// The key's items on one line starting at (x, y).
[[nodiscard]] std::string key_line(double x, double y, const std::vector<key_item>& items);

/// Whether the kernel's measured time was taken on `d`: a gated kernel names its device, else
/// the report its local device; a report that names neither and no profile device is taken at
/// its word for every device. A zero or absent time is no measurement.
[[nodiscard]] bool measured_on(const report& r, const kernel_report& k, const device& d);

/// The kernel's prediction for `d`, device number `index` of the report; null when it has none.
[[nodiscard]] const prediction* prediction_on(const kernel_report& k, const device& d,
                                              std::size_t index);

/// A file's name without its directories, for a subtitle.
[[nodiscard]] std::string short_file(const std::string& file);

} // namespace perfgate::detail::svg
