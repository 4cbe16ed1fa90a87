// SPDX-License-Identifier: Apache-2.0
// SVG charts of a report: the roofline of one device and the quadrant-split view of one kernel.
// Every number is formatted with a fixed number of decimals and every text goes through one
// escaping path, so the output is deterministic and well-formed XML for any kernel name.
#include "svg_writer.hpp"

#include <perfgate/error.hpp>

#include "number_format.hpp"
#include "src/strings.hpp"
#include "table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string_view>
#include <vector>

namespace perfgate::detail {

namespace {

// Layout in pixels: the plot on the left, the legend (every kernel or device by number and
// colour) on the right, a key to the symbols under the plot. The height grows with the legend.
constexpr double k_width = 1000;
constexpr double k_plot_left = 86;
constexpr double k_plot_right = 566;
constexpr double k_plot_top = 76;
constexpr double k_plot_bottom = 556;
constexpr double k_legend_left = 598;
constexpr double k_legend_right = 990;
constexpr double k_legend_row = 32;
constexpr double k_min_height = 680;
constexpr double k_marker_r = 6;

// Kelly's colours of maximum contrast, without white and the palest yellow, the light blue and
// the greenish yellow darkened so that hollow markers stay visible: 20 colours distinct on white.
// Kernels past 20 reuse them; their numbers still tell them apart.
constexpr std::array<std::string_view, 20> k_palette = {
    "#0067a5", "#f38400", "#008856", "#be0032", "#875692", "#882d17", "#e68fac",
    "#848482", "#8db600", "#6fa8dc", "#f6a600", "#604e97", "#f99379", "#b3446c",
    "#b5a800", "#2b3d26", "#c2b280", "#654522", "#e25822", "#222222"};

std::string colour(std::size_t i) { return std::string(k_palette[i % k_palette.size()]); }

// ---- text ---------------------------------------------------------------------------------

// Every label goes through the one markup escaper (valid UTF-8, XML 1.0 characters, & < > " ').
std::string escape(std::string_view s) { return html_escape(std::string(s)); }

std::size_t char_count(std::string_view utf8) {
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

// Estimated width of a label; sans-serif fonts average about 0.6 em per character.
double text_width(std::string_view utf8, double size, bool bold = false) {
  return static_cast<double>(char_count(utf8)) * size * (bold ? 0.66 : 0.6);
}

// At most `max_chars` characters, the last one an ellipsis when cut (never inside a character).
std::string ellipsize(std::string_view text, std::size_t max_chars) {
  const std::string s = valid_utf8(text);
  if (char_count(s) <= max_chars) {
    return s;
  }
  std::size_t kept = 0;
  std::size_t end = 0;
  while (end < s.size()) {
    if ((static_cast<unsigned char>(s[end]) & 0xc0) != 0x80) {
      if (kept + 1 == std::max<std::size_t>(max_chars, 1)) {
        break;
      }
      ++kept;
    }
    ++end;
  }
  return s.substr(0, end) + "\u2026";
}

// How many characters fit in `width` pixels at font `size` (`em`: the average character width).
std::size_t chars_in(double width, double size, double em = 0.58) {
  return static_cast<std::size_t>(std::max(1.0, std::floor(width / (size * em))));
}

// A kernel's name for a label: without a leading "void " and, when still too long, with its
// argument list elided ("kernel_00<float, 1>(\u2026)"); the full name is in a tooltip.
std::string short_name(std::string_view name, std::size_t max_chars) {
  std::string s = valid_utf8(name);
  if (s.rfind("void ", 0) == 0 && s.size() > 5) {
    s.erase(0, 5);
  }
  if (char_count(s) <= max_chars) {
    return s;
  }
  int depth = 0; // inside template brackets
  for (std::size_t i = 1; i < s.size(); ++i) {
    depth += s[i] == '<' ? 1 : s[i] == '>' && depth > 0 ? -1 : 0;
    if (s[i] == '(' && depth == 0) {
      std::string elided = s.substr(0, i) + "(\u2026)";
      if (char_count(elided) <= max_chars) {
        return elided;
      }
      break;
    }
  }
  return ellipsize(s, max_chars);
}

// ---- numbers ------------------------------------------------------------------------------

// A pixel coordinate: two decimals, never "nan" or "inf" (what cannot be placed is pinned).
std::string px(double v) {
  if (!std::isfinite(v)) {
    v = 0;
  }
  std::string s = fixed(std::clamp(v, -1e6, 1e6), 2);
  return s == "-0.00" ? "0.00" : s;
}

// A model value for people: about four significant digits ("0.302", "28.92", "3350").
std::string value(double v) {
  if (!std::isfinite(v)) {
    return "-";
  }
  const double a = std::fabs(v);
  if (a == 0) {
    return "0";
  }
  if (a >= 1e6 || a < 1e-3) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", v);
    return buf;
  }
  return fixed(v, a >= 1000 ? 0 : a >= 100 ? 1 : a >= 10 ? 2 : a >= 0.1 ? 3 : 4);
}

// A duration to about four significant digits ("6.187 ms", "849.3 us").
std::string short_duration(double seconds) {
  const double a = std::fabs(seconds);
  if (!std::isfinite(seconds) || a >= 1 || a == 0) {
    return value(seconds) + " s";
  }
  if (a >= 1e-3) {
    return value(seconds * 1e3) + " ms";
  }
  return a >= 1e-6 ? value(seconds * 1e6) + " us" : value(seconds * 1e9) + " ns";
}

bool positive(double v) { return std::isfinite(v) && v > 0; }

// "1.007 Gop", "512 op".
std::string amount(double v, std::string_view unit) {
  const std::string s = si_count(v);
  return s + (std::isdigit(static_cast<unsigned char>(s.back())) ? " " : "") + std::string(unit);
}

bool counts_integer_ops(kernel_type t) {
  return t == kernel_type::integer || t == kernel_type::tensor_int8;
}

std::string unit_of(kernel_type t) { return counts_integer_ops(t) ? "GIOPS" : "GFLOPS"; }

std::string type_name(kernel_type t) {
  if (is_tensor(t)) { // "tensor_bf16" -> "BF16 tensor"
    std::string precision(to_string(t).substr(std::string_view("tensor_").size()));
    for (auto& c : precision) {
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    return precision + " tensor";
  }
  return t == kernel_type::fp32 ? "FP32" : t == kernel_type::fp64 ? "FP64" : "INT";
}

// ---- geometry -----------------------------------------------------------------------------

struct point {
  double x = 0, y = 0;
};

struct box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  [[nodiscard]] bool overlaps(const box& o) const {
    return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1;
  }
  [[nodiscard]] bool within(const box& o) const {
    return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1;
  }
};

const box k_plot{k_plot_left, k_plot_top, k_plot_right, k_plot_bottom};

box around(point p, double r) { return {p.x - r, p.y - r, p.x + r, p.y + r}; }

// A logarithmic axis: log10 of its two ends and their pixels.
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

// An axis over the positive, finite values with a margin, at least 1.2 decades long so that a
// decade tick always falls inside. No value to place gives 0.1 .. 10.
log_axis make_axis(const std::vector<double>& values, double p0, double p1) {
  double lo = HUGE_VAL;
  double hi = -HUGE_VAL;
  for (const double v : values) {
    if (positive(v)) {
      const double l = std::log10(std::clamp(v, 1e-300, 1e300));
      lo = std::min(lo, l);
      hi = std::max(hi, l);
    }
  }
  if (lo > hi) {
    lo = hi = 0;
  }
  const double margin = std::max(0.2, (hi - lo) * 0.06);
  lo -= margin;
  hi += margin;
  if (hi - lo < 1.2) {
    const double mid = (lo + hi) / 2;
    lo = mid - 0.6;
    hi = mid + 0.6;
  }
  return {lo, hi, p0, p1};
}

// "0.01", "1", "5000" near 1; "1e-6", "2e9" far from it. Tests read these back with strtod.
std::string tick_label(int mantissa, int e) {
  if (e >= -4 && e <= 4) {
    return e >= 0 ? std::to_string(mantissa) + std::string(static_cast<std::size_t>(e), '0')
                  : "0." + std::string(static_cast<std::size_t>(-e - 1), '0') +
                        std::to_string(mantissa);
  }
  return std::to_string(mantissa) + "e" + std::to_string(e);
}

// ---- SVG elements -------------------------------------------------------------------------

std::string line(point a, point b, std::string_view attrs) {
  return "<line x1=\"" + px(a.x) + "\" y1=\"" + px(a.y) + "\" x2=\"" + px(b.x) + "\" y2=\"" +
         px(b.y) + "\" " + std::string(attrs) + "/>\n";
}

// `content` is raw text; it is escaped here.
std::string text(point at, int size, std::string_view anchor, std::string_view content,
                 std::string_view attrs = "") {
  return "<text x=\"" + px(at.x) + "\" y=\"" + px(at.y) + "\" font-size=\"" + std::to_string(size) +
         "\" text-anchor=\"" + std::string(anchor) + "\"" +
         (attrs.empty() ? "" : " " + std::string(attrs)) + ">" + escape(content) + "</text>\n";
}

std::string translate(point p) { return "translate(" + px(p.x) + "," + px(p.y) + ")"; }

std::string polygon(const std::vector<point>& pts, std::string_view attrs) {
  std::string s = "<polygon points=\"";
  for (std::size_t i = 0; i < pts.size(); ++i) {
    s += (i ? " " : "") + px(pts[i].x) + "," + px(pts[i].y);
  }
  return s + "\" " + std::string(attrs) + "/>\n";
}

// A marker centred on the origin (the caller translates it): the verdict's shape.
std::string shape(verdict_status s, double r, std::string_view paint) {
  const std::string a(paint);
  switch (s) {
  case verdict_status::pass: return "<circle cx=\"0\" cy=\"0\" r=\"" + px(r) + "\" " + a + "/>";
  case verdict_status::warn:
    return polygon({{0, -1.3 * r}, {1.15 * r, 0.75 * r}, {-1.15 * r, 0.75 * r}}, a);
  case verdict_status::fail:
    return "<rect x=\"" + px(-0.9 * r) + "\" y=\"" + px(-0.9 * r) + "\" width=\"" + px(1.8 * r) +
           "\" height=\"" + px(1.8 * r) + "\" " + a + "/>";
  case verdict_status::skip:
    return polygon({{0, -1.25 * r}, {1.25 * r, 0}, {0, 1.25 * r}, {-1.25 * r, 0}}, a);
  }
  return "";
}

// Filled markers were measured; hollow ones show the predicted bound only.
std::string marker_paint(const std::string& fill_colour, bool filled) {
  return filled ? "fill=\"" + fill_colour + "\" stroke=\"#222222\" stroke-width=\"1\""
                : "fill=\"#ffffff\" stroke=\"" + fill_colour + "\" stroke-width=\"2.2\"";
}

std::string status_word(verdict_status s) {
  return s == verdict_status::skip ? "not gated" : std::string(to_string(s));
}

// The plot frame, decade gridlines (minor ones when a decade is wide), tick labels and titles.
std::string axes(const log_axis& x, const log_axis& y, std::string_view x_title,
                 std::string_view y_title) {
  std::string out = "<g class=\"grid\">\n";
  std::string labels;
  for (const bool is_x : {true, false}) {
    const log_axis& a = is_x ? x : y;
    const double ppd = a.pixels_per_decade();
    // Thin out the labels (and gridlines) of a long axis so that they never touch.
    const int step = std::max(1, static_cast<int>(std::ceil((is_x ? 50.0 : 20.0) / ppd)));
    const bool minor_grid = ppd >= 40;
    const bool minor_labels = a.hi - a.lo < 2.5;
    const int last = static_cast<int>(std::floor(a.hi + 1e-9));
    for (int e = static_cast<int>(std::floor(a.lo)); e <= last; ++e) {
      for (int m = 1; m <= 9; ++m) {
        const double l = e + std::log10(static_cast<double>(m));
        if (l < a.lo - 1e-9 || l > a.hi + 1e-9 || (m > 1 && !minor_grid)) {
          continue;
        }
        const bool labelled =
            m == 1 ? ((e % step) + step) % step == 0 : minor_labels && (m == 2 || m == 5);
        if (m == 1 && !labelled && ppd < 8) {
          continue;
        }
        const double p = a.unclamped(l);
        const std::string cls =
            m == 1 ? (is_x ? "grid-x" : "grid-y") : (is_x ? "grid-x-minor" : "grid-y-minor");
        const std::string paint = m == 1 ? "stroke=\"#c8c8c8\" stroke-width=\"1\""
                                         : "stroke=\"#ececec\" stroke-width=\"1\"";
        out += is_x ? line({p, k_plot_top}, {p, k_plot_bottom}, "class=\"" + cls + "\" " + paint)
                    : line({k_plot_left, p}, {k_plot_right, p}, "class=\"" + cls + "\" " + paint);
        if (labelled) {
          labels += is_x ? text({p, k_plot_bottom + 17}, 12, "middle", tick_label(m, e),
                                "class=\"tick-x\" fill=\"#333333\"")
                         : text({k_plot_left - 6, p + 4}, 12, "end", tick_label(m, e),
                                "class=\"tick-y\" fill=\"#333333\"");
        }
      }
    }
  }
  out += "</g>\n<rect x=\"" + px(k_plot_left) + "\" y=\"" + px(k_plot_top) + "\" width=\"" +
         px(k_plot_right - k_plot_left) + "\" height=\"" + px(k_plot_bottom - k_plot_top) +
         "\" fill=\"none\" stroke=\"#444444\" stroke-width=\"1\"/>\n";
  out += labels;
  out += text({(k_plot_left + k_plot_right) / 2, k_plot_bottom + 40}, 13, "middle", x_title,
              "class=\"axis-title\" fill=\"#222222\"");
  const point yt{k_plot_left - 62, (k_plot_top + k_plot_bottom) / 2};
  out += "<text transform=\"" + translate(yt) +
         " rotate(-90)\" x=\"0\" y=\"0\" font-size=\"13\" text-anchor=\"middle\" "
         "class=\"axis-title\" fill=\"#222222\">" +
         escape(y_title) + "</text>\n";
  return out;
}

// ---- label placement ----------------------------------------------------------------------

struct placed_label {
  box where;
  bool leader = false; // placed away from its point: draw a line to it
};

// Greedy placement: each label takes the first spot around its point that is inside the plot
// and clear of every marker and of the labels placed before it.
class label_layout {
public:
  explicit label_layout(box area) : m_area(area) {}

  void block(const box& b) { m_taken.push_back(b); }

  // A line, as small boxes along it, so labels do not sit on it.
  void block_segment(point a, point b, double half_width) {
    const double len = std::hypot(b.x - a.x, b.y - a.y);
    const int n = std::max(1, static_cast<int>(std::ceil(len / (2 * half_width + 2))));
    for (int i = 0; i <= n; ++i) {
      const point c{a.x + (b.x - a.x) * i / n, a.y + (b.y - a.y) * i / n};
      m_taken.push_back(around(c, half_width + 1));
    }
  }

  [[nodiscard]] bool all_free(const std::vector<box>& bs) const {
    return std::all_of(bs.begin(), bs.end(), [&](const box& b) { return is_free(b); });
  }

  [[nodiscard]] bool is_free(const box& b) const {
    return b.within(m_area) && std::none_of(m_taken.begin(), m_taken.end(),
                                            [&](const box& t) { return t.overlaps(b); });
  }

  // A w x h label next to a marker of radius r at p: the eight spots around it, then the same
  // further out.
  std::optional<placed_label> place(point p, double r, double w, double h) {
    for (const double gap : {2.0, 14.0, 28.0}) {
      const double d = r + gap;
      const double q = r * 0.7 + gap;
      const std::array<box, 8> spots = {box{p.x + d, p.y - h / 2, p.x + d + w, p.y + h / 2},
                                        box{p.x - d - w, p.y - h / 2, p.x - d, p.y + h / 2},
                                        box{p.x + q, p.y - q - h, p.x + q + w, p.y - q},
                                        box{p.x + q, p.y + q, p.x + q + w, p.y + q + h},
                                        box{p.x - q - w, p.y - q - h, p.x - q, p.y - q},
                                        box{p.x - q - w, p.y + q, p.x - q, p.y + q + h},
                                        box{p.x - w / 2, p.y - d - h, p.x + w / 2, p.y - d},
                                        box{p.x - w / 2, p.y + d, p.x + w / 2, p.y + d + h}};
      for (const box& b : spots) {
        if (is_free(b)) {
          m_taken.push_back(b);
          return placed_label{b, gap > 2.0};
        }
      }
    }
    return std::nullopt;
  }

private:
  box m_area;
  std::vector<box> m_taken;
};

// A placed label: a white backing so gridlines do not cross it, the text, and a leader line
// from its point when it had to move away.
std::string draw_label(const placed_label& l, point from, std::string_view content, int size,
                       std::string_view css_class, const std::string& leader_colour) {
  std::string out;
  if (l.leader) {
    const point to{std::clamp(from.x, l.where.x0, l.where.x1),
                   std::clamp(from.y, l.where.y0, l.where.y1)};
    out += line(from, to, "stroke=\"" + leader_colour + "\" stroke-width=\"1\"");
  }
  out += "<rect x=\"" + px(l.where.x0) + "\" y=\"" + px(l.where.y0) + "\" width=\"" +
         px(l.where.x1 - l.where.x0) + "\" height=\"" + px(l.where.y1 - l.where.y0) +
         "\" fill=\"#ffffff\" fill-opacity=\"0.85\"/>\n";
  out += text({l.where.x0 + 1.5, l.where.y0 + size * 0.85 + 0.5}, size, "start", content,
              "class=\"" + std::string(css_class) + "\" font-weight=\"bold\" fill=\"#111111\"");
  return out;
}

// A text drawn rotated by `degrees` from its start `at`, as small boxes along its middle (one
// box around a diagonal text would block a whole corner of the plot).
std::vector<box> rotated_boxes(point at, double w, double size, double degrees) {
  const double a = degrees * 3.14159265358979323846 / 180;
  const point dir{std::cos(a), std::sin(a)};
  const point up{dir.y, -dir.x}; // towards the top of the glyphs
  const int n = std::max(1, static_cast<int>(std::ceil(w / (size * 0.8))));
  std::vector<box> out;
  for (int i = 0; i <= n; ++i) {
    const double t = w * i / n;
    out.push_back(
        around({at.x + dir.x * t + up.x * size * 0.35, at.y + dir.y * t + up.y * size * 0.35},
               size * 0.4));
  }
  return out;
}

// Text drawn along the segment a-b, `lift` pixels to the left of its direction (else as far to
// the right), at the first of the fractions `ts` of its length, then anywhere along it, where it
// is clear of everything placed; else nothing.
std::string text_along(point a, point b, std::vector<double> ts, double lift,
                       std::string_view content, int size, std::string_view attrs,
                       label_layout& layout) {
  for (int i = 0; i <= 20; ++i) {
    ts.push_back(i / 20.0);
  }
  const double dx = b.x - a.x;
  const double dy = b.y - a.y;
  const double len = std::hypot(dx, dy);
  const double w = text_width(content, size);
  if (!(len > w + 8)) {
    return "";
  }
  const double degrees = std::atan2(dy, dx) * 180 / 3.14159265358979323846;
  std::vector<std::pair<double, double>> spots; // (fraction of the length, lift)
  for (const double side : {lift, lift == 0 ? 0.0 : -lift - size * 0.7}) {
    for (const double t : ts) {
      spots.emplace_back(t, side);
    }
  }
  for (const auto& [t, side] : spots) {
    const double start = std::clamp(t * len, 4.0, len - w - 4);
    const point at{a.x + dx * start / len + dy / len * side,
                   a.y + dy * start / len - dx / len * side};
    const auto boxes = rotated_boxes(at, w, size, degrees);
    if (layout.all_free(boxes)) {
      for (const box& taken : boxes) {
        layout.block(taken);
      }
      // A white backing keeps lines that cross the text from striking it through.
      return "<g transform=\"" + translate(at) + " rotate(" + fixed(degrees, 2) +
             ")\"><rect x=\"-2.00\" y=\"" + px(-size * 0.85) + "\" width=\"" + px(w + 4) +
             "\" height=\"" + px(size * 1.1) +
             "\" fill=\"#ffffff\" fill-opacity=\"0.75\"/><text x=\"0\" y=\"0\" font-size=\"" +
             std::to_string(size) + "\" " + std::string(attrs) + ">" + escape(content) +
             "</text></g>\n";
    }
  }
  return "";
}

// ---- the document -------------------------------------------------------------------------

std::string document(double height, std::string_view title, const std::string& body) {
  const std::string h = px(height);
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" +
         px(k_width) + "\" height=\"" + h + "\" viewBox=\"0 0 " + px(k_width) + " " + h +
         "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n"
         "<title>" +
         escape(title) + "</title>\n<rect x=\"0\" y=\"0\" width=\"" + px(k_width) + "\" height=\"" +
         h + "\" fill=\"#ffffff\"/>\n" + body + "</svg>\n";
}

// Title (with the full text as a tooltip when it had to be shortened) and a subtitle.
std::string heading(std::string_view title, std::string_view subtitle) {
  return "<g class=\"heading\"><title>" + escape(title) + "</title>\n" +
         text({14, 28}, 17, "start", ellipsize(title, chars_in(k_width - 28, 17, 0.64)),
              "font-weight=\"bold\" fill=\"#111111\"") +
         "</g>\n" +
         text({14, 50}, 12, "start", ellipsize(subtitle, chars_in(k_width - 28, 12)),
              "fill=\"#444444\"");
}

// The verdict as a coloured word ("FAIL"); nothing for a kernel that was not gated.
struct status_tag {
  std::string word;
  std::string colour;
};

status_tag tag_of(verdict_status s) {
  switch (s) {
  case verdict_status::pass: return {"PASS", "#2e7d32"};
  case verdict_status::warn: return {"WARN", "#b35c00"};
  case verdict_status::fail: return {"FAIL", "#c62828"};
  case verdict_status::skip: return {};
  }
  return {};
}

// One legend entry: a swatch, the number, the name (a kernel's shortened like a C++ signature)
// with the verdict at the right, and a detail line, most important first (it may be cut).
struct legend_entry {
  std::string swatch;
  std::size_t number = 0;
  std::string name;
  bool kernel_name = false;
  status_tag tag;
  std::string detail;
  std::string tooltip;
};

std::string legend_row(double y, const legend_entry& e) {
  const double name_x = k_legend_left + 40;
  const double tag_w = e.tag.word.empty() ? 0 : text_width(e.tag.word, 11, true) + 8;
  const std::size_t room = chars_in(k_legend_right - name_x - tag_w, 12);
  std::string out =
      "<g class=\"legend-entry\"><title>" + escape(e.tooltip) + "</title>\n<g transform=\"" +
      translate({k_legend_left + 8, y - 4}) + "\">" + e.swatch + "</g>\n" +
      text({k_legend_left + 19, y}, 12, "start", std::to_string(e.number),
           "font-weight=\"bold\" fill=\"#111111\"") +
      text({name_x, y}, 12, "start",
           e.kernel_name ? short_name(e.name, room) : ellipsize(e.name, room), "fill=\"#111111\"");
  if (!e.tag.word.empty()) {
    out += text({k_legend_right, y}, 11, "end", e.tag.word,
                "font-weight=\"bold\" fill=\"" + e.tag.colour + "\"");
  }
  out += text({name_x, y + 15}, 11, "start",
              ellipsize(e.detail, chars_in(k_legend_right - name_x, 11, 0.56)), "fill=\"#555555\"");
  return out + "</g>\n";
}

// A key to the symbols, laid out left to right from (x, y): each item a symbol and a word.
struct key_item {
  std::string symbol; // drawn centred on the origin
  std::string label;
};

std::string key_line(double x, double y, const std::vector<key_item>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!item.symbol.empty()) {
      out += "<g transform=\"" + translate({x + 6, y - 4}) + "\">" + item.symbol + "</g>\n";
      x += 16;
    }
    out += text({x, y}, 12, "start", item.label, "fill=\"#333333\"");
    x += text_width(item.label, 12) + 14;
  }
  return out;
}

// Tokens of a device name: lower-case runs of letters and digits ("gtx", "480").
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  for (const char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!cur.empty()) {
      out.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) {
    out.push_back(cur);
  }
  return out;
}

bool contains_run(const std::vector<std::string>& hay, const std::vector<std::string>& needle) {
  return !needle.empty() &&
         std::search(hay.begin(), hay.end(), needle.begin(), needle.end()) != hay.end();
}

// Whether the kernel's measured time was taken on `d`. A gated kernel names its device; else a
// profile names the GPU it was taken on ("GeForce GTX 480 (0)" is gtx-480); a report that says
// neither is taken at its word for every device. A zero or absent time is no measurement.
bool measured_on(const report& r, const kernel_report& k, const device& d) {
  if (!k.measured || !positive(k.measured->time_s)) {
    return false;
  }
  if (!k.result.device.empty()) {
    return k.result.device == d.id;
  }
  if (r.profile_device.empty()) {
    return true;
  }
  // nvprof appends the device number: "GeForce GTX 480 (0)".
  std::string_view named = r.profile_device;
  if (const auto open = named.rfind(" (");
      open != std::string_view::npos && named.back() == ')' && named.size() > open + 3 &&
      std::all_of(named.begin() + static_cast<std::ptrdiff_t>(open) + 2, named.end() - 1,
                  [](char c) { return c >= '0' && c <= '9'; })) {
    named = named.substr(0, open);
  }
  const auto where = tokens(named);
  return contains_run(where, tokens(d.id)) || contains_run(tokens(d.name), where);
}

const prediction* prediction_on(const kernel_report& k, const device& d, std::size_t index) {
  for (const auto& p : k.predictions) {
    if (p.device == d.id) {
      return &p;
    }
  }
  // predictions[i] belongs to devices[i] when the ids were not recorded.
  return index < k.predictions.size() && k.predictions[index].device.empty() ? &k.predictions[index]
                                                                             : nullptr;
}

std::string short_file(const std::string& file) {
  return std::filesystem::path(file).filename().string();
}

// ---- roofline -----------------------------------------------------------------------------

// A compute roof and the memory roof it meets; kernel types with the same peak share one.
struct roof {
  std::vector<kernel_type> types;
  double peak = 0;      // T_op
  double bandwidth = 0; // B_mem

  [[nodiscard]] std::string name() const { // "FP32", "FP32/FP64"
    std::string out;
    for (const auto t : types) {
      out += (out.empty() ? "" : "/") + type_name(t);
    }
    return out;
  }
  [[nodiscard]] std::string unit() const {
    const bool all_int = std::all_of(types.begin(), types.end(),
                                     [](kernel_type t) { return counts_integer_ops(t); });
    const bool any_int = std::any_of(types.begin(), types.end(),
                                     [](kernel_type t) { return counts_integer_ops(t); });
    return all_int ? "GIOPS" : any_int ? "Gop/s" : "GFLOPS";
  }
};

// The performance the gate holds a kernel to: W_comp over its roof time (the model's T_pred
// for a version-1 report without roofs).
double gated_performance(const kernel_report& k, const prediction& p) {
  return p.roof ? k.params.W_comp / p.roof->time_s / 1e9 : p.T_pred;
}

struct kernel_point {
  std::size_t index = 0; // in r.kernels; its number is index + 1
  const kernel_report* k = nullptr;
  const prediction* p = nullptr;
  std::optional<double> performance; // measured here: W_comp / time, 1e9 op/s
  point at;                          // where its marker is drawn
};

std::string roofline_y_title(const std::vector<kernel_point>& ks) {
  bool any_int = false;
  bool any_float = false;
  for (const auto& kp : ks) {
    (counts_integer_ops(kp.k->params.K_type) ? any_int : any_float) = true;
  }
  if (any_int && !any_float) {
    return "Performance (GIOPS = 1e9 integer op/s)";
  }
  return any_int ? "Performance (1e9 op/s: GFLOPS or GIOPS)" : "Performance (GFLOPS = 1e9 flop/s)";
}

} // namespace

std::vector<std::size_t> kernels_to_draw(const report& r, std::size_t max) {
  std::vector<std::size_t> drawn;
  for (const verdict_status s :
       {verdict_status::fail, verdict_status::warn, verdict_status::pass, verdict_status::skip}) {
    for (std::size_t i = 0; i < r.kernels.size() && drawn.size() < max; ++i) {
      if (r.kernels[i].result.status == s) {
        drawn.push_back(i);
      }
    }
  }
  std::sort(drawn.begin(), drawn.end());
  return drawn;
}

std::string kernels_left_out(const report& r, const std::vector<std::size_t>& drawn) {
  const std::size_t left = r.kernels.size() - drawn.size();
  if (left == 0) {
    return {};
  }
  std::size_t failed = 0;
  std::size_t warned = 0;
  std::size_t next = 0; // walks `drawn`, which is in report order
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    if (next < drawn.size() && drawn[next] == i) {
      ++next;
      continue;
    }
    failed += r.kernels[i].result.status == verdict_status::fail ? 1 : 0;
    warned += r.kernels[i].result.status == verdict_status::warn ? 1 : 0;
  }
  return std::to_string(left) + " more kernel" + (left == 1 ? "" : "s") + " not drawn (" +
         std::to_string(failed) + " failed, " + std::to_string(warned) +
         " warned): the report lists them all";
}

std::string roofline_svg(const report& r, std::size_t device_index) {
  if (device_index >= r.devices.size()) {
    throw usage_error("roofline chart: device index " + std::to_string(device_index) +
                      " out of range (the report has " + std::to_string(r.devices.size()) +
                      " devices)");
  }
  const device& d = r.devices[device_index];

  std::vector<kernel_point> ks;
  std::vector<roof> roofs;
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const kernel_report& k = r.kernels[i];
    kernel_point kp{i, &k, prediction_on(k, d, device_index), std::nullopt, {}};
    if (kp.p && measured_on(r, k, d)) {
      const double perf = k.params.W_comp / k.measured->time_s / 1e9;
      if (positive(perf)) {
        kp.performance = perf;
      }
    }
    if (kp.p) {
      const auto same = std::find_if(roofs.begin(), roofs.end(), [&](const roof& rf) {
        return rf.peak == kp.p->T_op && rf.bandwidth == kp.p->B_mem;
      });
      if (same == roofs.end()) {
        if (positive(kp.p->T_op) && positive(kp.p->B_mem)) {
          roofs.push_back({{k.params.K_type}, kp.p->T_op, kp.p->B_mem});
        }
      } else if (std::find(same->types.begin(), same->types.end(), k.params.K_type) ==
                 same->types.end()) {
        same->types.push_back(k.params.K_type);
        std::sort(same->types.begin(), same->types.end());
      }
    }
    ks.push_back(kp);
  }
  // Thousands of kernels: the roofs above hold for all of them; only some are drawn.
  const std::vector<std::size_t> drawn = kernels_to_draw(r, k_max_roofline_kernels);
  if (drawn.size() < ks.size()) {
    std::vector<kernel_point> kept;
    kept.reserve(drawn.size());
    for (const std::size_t i : drawn) {
      kept.push_back(ks[i]);
    }
    ks = std::move(kept);
  }
  if (roofs.empty()) { // no kernel predicted here: the device's own roofs
    roofs.push_back({{kernel_type::fp32}, d.peaks.fp32_gflops, d.peaks.dram_gbs});
  }
  std::stable_sort(roofs.begin(), roofs.end(), [](const roof& a, const roof& b) {
    return a.peak != b.peak ? a.peak > b.peak : a.bandwidth > b.bandwidth;
  });

  // Axes over everything drawn: intensities and ridges across, roofs and points up.
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& rf : roofs) {
    xs.push_back(rf.peak / rf.bandwidth);
    ys.push_back(rf.peak);
  }
  for (const auto& kp : ks) {
    if (kp.p) {
      xs.insert(xs.end(), {kp.k->params.O_krn, kp.p->O_dev});
      ys.insert(ys.end(), {kp.p->T_op_adj, kp.p->T_pred, gated_performance(*kp.k, *kp.p)});
      if (kp.performance) {
        ys.push_back(*kp.performance);
      }
    }
  }
  const log_axis x = make_axis(xs, k_plot_left, k_plot_right);
  const log_axis y = make_axis(ys, k_plot_bottom, k_plot_top);
  const auto at = [&](double xv, double yv) { return point{x.at(xv), y.at(yv)}; };

  std::string body =
      axes(x, y, "Operational intensity (op/B: operations per DRAM byte)", roofline_y_title(ks));
  label_layout layout(k_plot);
  for (auto& kp : ks) {
    if (kp.p) {
      kp.at = at(kp.k->params.O_krn, kp.performance.value_or(kp.p->T_pred));
      layout.block(around(kp.at, k_marker_r + 1.5));
    }
  }

  // Lines first (reserved in the layout so that no label sits on them), then their labels,
  // then the markers on top.
  std::string lines;
  std::string labels;
  struct roof_label {
    std::string text;
    point left, right; // the roof's visible ends
  };
  std::vector<roof_label> roof_labels;

  // Memory roofs: B_mem x, from where it enters the plot up to the highest compute roof.
  std::vector<double> bandwidths;
  for (const auto& rf : roofs) {
    if (std::find(bandwidths.begin(), bandwidths.end(), rf.bandwidth) == bandwidths.end()) {
      bandwidths.push_back(rf.bandwidth);
    }
  }
  struct memory_roof {
    point a, b;
    double bandwidth;
  };
  std::vector<memory_roof> memory_roofs;
  for (const double bw : bandwidths) {
    double top = 0;
    for (const auto& rf : roofs) {
      top = rf.bandwidth == bw ? std::max(top, rf.peak) : top;
    }
    const double x0 = std::max(x.low(), y.low() / bw);
    const double x1 = std::min({x.high(), top / bw, y.high() / bw});
    if (!(x0 < x1)) {
      continue;
    }
    const point a = at(x0, bw * x0);
    const point b = at(x1, bw * x1);
    lines += line(a, b, "class=\"memory-roof\" stroke=\"#222222\" stroke-width=\"2.5\"");
    layout.block_segment(a, b, 1.5);
    memory_roofs.push_back({a, b, bw});
  }
  // Compute roofs, each with its ridge (where it meets the memory roof) marked down to the axis.
  for (const auto& rf : roofs) {
    const point a = at(rf.peak / rf.bandwidth, rf.peak);
    const point b{k_plot_right, a.y};
    lines += line(a, b, "class=\"compute-roof\" stroke=\"#222222\" stroke-width=\"2.5\"");
    lines += line(a, {a.x, k_plot_bottom},
                  "class=\"ridge\" stroke=\"#666666\" stroke-width=\"1\" stroke-dasharray=\"2 3\"");
    lines += "<g class=\"ridge-marker\" transform=\"" + translate(a) +
             "\"><circle cx=\"0\" cy=\"0\" r=\"3\" fill=\"#222222\"/></g>\n";
    layout.block_segment(a, b, 1.5);
    layout.block(around(a, 4));
    roof_labels.push_back({rf.name() + " " + value(rf.peak) + " " + rf.unit(), a, b});
  }
  // Each kernel's adjusted roof T'_op, dashed from its ridge O_dev, in the kernel's colour.
  for (const auto& kp : ks) {
    if (!kp.p) {
      continue;
    }
    const std::string c = colour(kp.index);
    const point ridge = at(kp.p->O_dev, kp.p->T_op_adj);
    lines += line(ridge, {k_plot_right, ridge.y},
                  "class=\"adjusted-roof\" stroke=\"" + c +
                      "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
    lines += "<g class=\"adjusted-ridge\" transform=\"" + translate(ridge) +
             "\"><circle cx=\"0\" cy=\"0\" r=\"3.5\" fill=\"#ffffff\" stroke=\"" + c +
             "\" stroke-width=\"1.5\"/></g>\n";
    layout.block(around(ridge, 4));
  }
  // A measured kernel: a dotted bar from its point up to the roof the gate judges it against
  // (its efficiency is the bar's ratio); the model's prediction, where it differs, a thin tick.
  for (const auto& kp : ks) {
    if (kp.p && kp.performance) {
      const std::string c = colour(kp.index);
      const point bound = at(kp.k->params.O_krn, gated_performance(*kp.k, *kp.p));
      lines += line(kp.at, bound,
                    "class=\"bound-gap\" stroke=\"" + c +
                        "\" stroke-width=\"1.5\" stroke-dasharray=\"1 2\"");
      lines += line({bound.x - 6, bound.y}, {bound.x + 6, bound.y},
                    "class=\"bound-tick\" stroke=\"" + c + "\" stroke-width=\"2\"");
      layout.block_segment(kp.at, bound, 1.5);
      layout.block(around(bound, 6));
      const point model = at(kp.k->params.O_krn, kp.p->T_pred);
      if (kp.p->roof && std::fabs(model.y - bound.y) >= 1.0) {
        lines += line({model.x - 4, model.y}, {model.x + 4, model.y},
                      "class=\"model-tick\" stroke=\"" + c + "\" stroke-width=\"1\"");
        layout.block(around(model, 4));
      }
    }
  }

  // Numbers next to the points first (the roofs' values are listed under the plot as well);
  // the legend names every kernel anyway.
  std::string numbers;
  for (const auto& kp : ks) {
    if (!kp.p) {
      continue;
    }
    const std::string n = std::to_string(kp.index + 1);
    if (const auto l = layout.place(kp.at, k_marker_r, text_width(n, 11, true) + 3, 13)) {
      numbers += draw_label(*l, kp.at, n, 11, "kernel-label", colour(kp.index));
    }
  }

  // Roof labels: along the memory roof; above (else below) a compute roof, at its right end,
  // else next to its ridge.
  for (const auto& m : memory_roofs) {
    labels +=
        text_along(m.a, m.b, {0.1, 0.3, 0.5, 0.7, 0.02}, 8, "DRAM " + value(m.bandwidth) + " GB/s",
                   12, "fill=\"#222222\" class=\"roof-label\"", layout);
  }
  for (const auto& rl : roof_labels) {
    const double w = text_width(rl.text, 12);
    std::vector<std::pair<double, double>> spots; // (text start, baseline offset)
    // Along the roof, right to left, just above or below it; at worst reaching left of the
    // ridge, still over the roof; then a line further away, clear of the kernels sitting on it.
    for (const auto& [above, below] : {std::pair{-7.0, 16.0}, std::pair{-19.0, 28.0}}) {
      for (double x0 = rl.right.x - 6 - w; x0 >= k_plot_left + 4 && x0 + w >= rl.left.x + 30;
           x0 -= 16) {
        spots.emplace_back(x0, above);
        spots.emplace_back(x0, below);
      }
    }
    // A label must be nearer its own roof than any other roof it lies over.
    const auto own_roof_nearest = [&](const box& bb) {
      const double mid = (bb.y0 + bb.y1) / 2;
      return std::none_of(roof_labels.begin(), roof_labels.end(), [&](const roof_label& other) {
        return &other != &rl && other.right.x > bb.x0 && other.left.x < bb.x1 &&
               std::fabs(other.left.y - mid) <= std::fabs(rl.left.y - mid);
      });
    };
    for (const auto& [x0, dy] : spots) {
      const box bb{x0 - 2, rl.left.y + dy - 11, x0 + w + 2, rl.left.y + dy + 2.5};
      if (layout.is_free(bb) && own_roof_nearest(bb)) {
        layout.block(bb);
        labels += "<rect x=\"" + px(bb.x0) + "\" y=\"" + px(bb.y0) + "\" width=\"" +
                  px(bb.x1 - bb.x0) + "\" height=\"" + px(bb.y1 - bb.y0) +
                  "\" fill=\"#ffffff\" fill-opacity=\"0.75\"/>\n" +
                  text({x0, rl.left.y + dy}, 12, "start", rl.text,
                       "class=\"roof-label\" fill=\"#222222\"");
        break;
      }
    }
  }
  for (const auto& rf : roofs) {
    const point a = at(rf.peak / rf.bandwidth, rf.peak);
    labels += text_along({a.x - 4, k_plot_bottom - 4}, {a.x - 4, a.y + 6}, {0, 0.3, 0.6}, 0,
                         "ridge " + value(rf.peak / rf.bandwidth) + " op/B", 11,
                         "fill=\"#555555\" class=\"ridge-label\"", layout);
  }
  body += "<g class=\"roofs\">\n" + lines + labels + "</g>\n";

  // Kernels: measured points filled, else their bound hollow; the verdict is the shape.
  body += "<g class=\"kernels\">\n";
  for (const auto& kp : ks) {
    if (!kp.p) {
      continue;
    }
    const kernel_report& k = *kp.k;
    std::string tip = std::to_string(kp.index + 1) + ". " + k.name + ": O_krn " +
                      value(k.params.O_krn) + " op/B, ";
    if (kp.p->roof) {
      tip += "roof " + value(gated_performance(k, *kp.p)) + " " + unit_of(k.params.K_type) + " (" +
             std::string(to_string(kp.p->roof->bound)) + "-bound, limited by " +
             limiter_text(*kp.p->roof) + "), model " + value(kp.p->T_pred);
    } else {
      tip += "bound " + value(kp.p->T_pred);
    }
    tip += " " + unit_of(k.params.K_type) + " (model: " + std::string(to_string(kp.p->bound)) +
           "-bound)";
    if (kp.performance) {
      tip += ", measured " + value(*kp.performance) + " " + unit_of(k.params.K_type);
    }
    tip += ", " + status_word(k.result.status);
    body += "<g class=\"kernel-marker " + std::string(to_string(k.result.status)) +
            (kp.performance ? " measured" : " predicted") + "\" transform=\"" + translate(kp.at) +
            "\"><title>" + escape(tip) + "</title>" +
            shape(k.result.status, k_marker_r,
                  marker_paint(colour(kp.index), kp.performance.has_value())) +
            "</g>\n";
  }
  body += numbers + "</g>\n";

  // Key to the symbols, under the plot.
  const auto sym = [](verdict_status s, bool filled) {
    return shape(s, 5, marker_paint("#777777", filled));
  };
  body += key_line(k_plot_left - 60, k_plot_bottom + 66,
                   {{sym(verdict_status::pass, true), "pass"},
                    {sym(verdict_status::warn, true), "warn"},
                    {sym(verdict_status::fail, true), "fail"},
                    {sym(verdict_status::skip, true), "not gated"},
                    {"", "filled: measured here, bar to its roof (thin tick: the model)"}});
  body += key_line(
      k_plot_left - 60, k_plot_bottom + 86,
      {{sym(verdict_status::skip, false), "bound only (not measured here)"},
       {line({-7, 0}, {7, 0}, "stroke=\"#777777\" stroke-width=\"1.5\" stroke-dasharray=\"4 2\""),
        "T'_op"},
       {"<circle cx=\"0\" cy=\"0\" r=\"3.5\" fill=\"#ffffff\" stroke=\"#777777\" "
        "stroke-width=\"1.5\"/>",
        "its ridge O_dev"}});
  // The roofs' values, also when their labels found no room in the plot.
  std::string roof_list;
  for (const double bw : bandwidths) {
    roof_list += (roof_list.empty() ? "DRAM " : " \u00b7 DRAM ") + value(bw) + " GB/s";
  }
  for (const auto& rf : roofs) {
    roof_list += " \u00b7 " + rf.name() + " " + value(rf.peak) + " " + rf.unit();
  }
  body += text({k_plot_left - 60, k_plot_bottom + 106}, 12, "start",
               ellipsize(roof_list, chars_in(k_legend_left - 30 - (k_plot_left - 60), 12)),
               "class=\"roof-list\" fill=\"#333333\"");

  // Legend: every kernel by number, colour and verdict.
  double ly = k_plot_top + 4;
  body +=
      text({k_legend_left, ly}, 13, "start", "Kernels (" + std::to_string(r.kernels.size()) + ")",
           "font-weight=\"bold\" fill=\"#111111\"");
  ly += 22;
  for (const auto& kp : ks) {
    const kernel_report& k = *kp.k;
    legend_entry e;
    e.swatch =
        shape(k.result.status, 5, marker_paint(colour(kp.index), kp.performance.has_value()));
    e.number = kp.index + 1;
    e.name = k.name;
    e.kernel_name = true;
    e.tag = tag_of(k.result.status);
    e.tooltip = k.name;
    for (const auto& reason : k.result.reasons) {
      e.tooltip += "; " + reason;
    }
    if (kp.p) {
      e.detail = std::string(to_string(kp.p->bound)) + "-bound \u00b7 bound " +
                 short_duration(kp.p->predicted_time_s);
      if (kp.performance) {
        e.detail += " \u00b7 measured " + short_duration(k.measured->time_s);
      }
      e.detail += " \u00b7 " + std::string(to_string(k.params.K_type)) + " \u00b7 T'_op " +
                  value(kp.p->T_op_adj);
    } else {
      e.detail = "not predicted on this device";
    }
    body += legend_row(ly, e);
    ly += k_legend_row;
  }
  if (const std::string more = kernels_left_out(r, drawn); !more.empty()) {
    body += text({k_legend_left, ly + 4}, 12, "start", more,
                 "class=\"kernels-left-out\" fill=\"#333333\"");
    ly += k_legend_row;
  }

  std::string subtitle = d.source + " peaks";
  if (!r.profile_file.empty()) {
    subtitle += " \u00b7 profile " + short_file(r.profile_file);
    if (!r.profile_device.empty()) {
      subtitle += " taken on " + r.profile_device;
    }
  }
  subtitle += " \u00b7 log-log axes";
  body = heading("Roofline: " + d.id + " \u00b7 " + d.name, subtitle) + body;
  return document(std::max(k_min_height, ly), "perfgate roofline: " + d.id, body);
}

// ---- quadrant split -----------------------------------------------------------------------

namespace {

struct device_point {
  std::size_t index = 0; // in r.devices; its number is index + 1
  const device* d = nullptr;
  const prediction* p = nullptr;
  point at;        // (B_mem, T'_op)
  point predicted; // where it meets the kernel's line
};

// The part of `poly` where side(p) <= 0 (Sutherland-Hodgman against one half-plane).
template <class Side> std::vector<point> clip(const std::vector<point>& poly, Side side) {
  std::vector<point> out;
  for (std::size_t i = 0; i < poly.size(); ++i) {
    const point a = poly[i];
    const point b = poly[(i + 1) % poly.size()];
    const double sa = side(a);
    const double sb = side(b);
    if (sa <= 0) {
      out.push_back(a);
    }
    if ((sa < 0 && sb > 0) || (sa > 0 && sb < 0)) {
      const double t = sa / (sa - sb);
      out.push_back({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)});
    }
  }
  return out;
}

} // namespace

std::string quadrant_svg(const report& r, std::size_t kernel_index) {
  if (kernel_index >= r.kernels.size()) {
    throw usage_error("quadrant chart: kernel index " + std::to_string(kernel_index) +
                      " out of range (the report has " + std::to_string(r.kernels.size()) +
                      " kernels)");
  }
  const kernel_report& k = r.kernels[kernel_index];
  const double o = k.params.O_krn;
  const bool has_line = positive(o);
  const std::string unit = unit_of(k.params.K_type);

  std::vector<device_point> ds;
  std::vector<double> xs;
  std::vector<double> ys;
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    device_point dp{i, &r.devices[i], prediction_on(k, r.devices[i], i), {}, {}};
    if (dp.p) {
      // Compute-bound: moved left to the line, at T'_op / O_krn; memory-bound: moved down.
      const double pred_x =
          dp.p->bound == bound_class::compute && has_line ? dp.p->T_pred / o : dp.p->B_mem;
      xs.insert(xs.end(), {dp.p->B_mem, pred_x});
      ys.insert(ys.end(), {dp.p->T_op_adj, dp.p->T_pred});
      dp.predicted = {pred_x, dp.p->T_pred}; // data space until the axes exist
    }
    ds.push_back(dp);
  }
  const log_axis x = make_axis(xs, k_plot_left, k_plot_right);
  const log_axis y = make_axis(ys, k_plot_bottom, k_plot_top);
  const auto at = [&](double xv, double yv) { return point{x.at(xv), y.at(yv)}; };

  std::string body;
  label_layout layout(k_plot);
  for (auto& dp : ds) {
    if (dp.p) {
      dp.at = at(dp.p->B_mem, dp.p->T_op_adj);
      dp.predicted = at(dp.predicted.x, dp.predicted.y);
      layout.block(around(dp.at, k_marker_r + 1.5));
      layout.block(around(dp.predicted, 5));
      layout.block_segment(dp.at, dp.predicted, 1.5);
    }
  }

  // The kernel's half-line T = O_krn B, straight on log-log axes: clipped to the plot, the two
  // sides it splits the plot into shaded and named.
  std::string kernel_line;
  std::string region_labels;
  if (has_line) {
    const double lo = std::log10(o);
    const point a{x.p0, y.unclamped(lo + x.lo)};
    const point b{x.p1, y.unclamped(lo + x.hi)};
    const auto line_y = [&](double px_x) { return a.y + (px_x - a.x) * (b.y - a.y) / (b.x - a.x); };
    const auto above = [&](point p) { return p.y - line_y(p.x); }; // < 0: above the line
    const std::vector<point> frame = {{k_plot_left, k_plot_top},
                                      {k_plot_right, k_plot_top},
                                      {k_plot_right, k_plot_bottom},
                                      {k_plot_left, k_plot_bottom}};
    const auto mem = clip(frame, above);
    const auto comp = clip(frame, [&](point p) { return -above(p); });
    if (mem.size() >= 3) {
      body += polygon(mem, "class=\"region-memory\" fill=\"#e3eefa\"");
    }
    if (comp.size() >= 3) {
      body += polygon(comp, "class=\"region-compute\" fill=\"#fcefe0\"");
    }
    // Region names near the corner of each region, clear of the devices.
    const auto region_label = [&](bool memory) {
      const std::string name = memory ? "memory-bound" : "compute-bound";
      const std::string sub = memory ? "devices above the line" : "devices below the line";
      const double w = std::max(text_width(name, 13, true), text_width(sub, 11)) + 4;
      for (const double shift_x : {0.0, 0.3, 0.6}) {
        for (const double shift_y : {0.0, 44.0, 88.0}) {
          const double dx = shift_x * (k_plot_right - k_plot_left - w - 16);
          const box bb = memory ? box{k_plot_left + 8 + dx, k_plot_top + 8 + shift_y,
                                      k_plot_left + 8 + dx + w, k_plot_top + 42 + shift_y}
                                : box{k_plot_right - 8 - w - dx, k_plot_bottom - 42 - shift_y,
                                      k_plot_right - 8 - dx, k_plot_bottom - 8 - shift_y};
          const std::array<point, 4> corners = {point{bb.x0, bb.y0}, point{bb.x1, bb.y0},
                                                point{bb.x0, bb.y1}, point{bb.x1, bb.y1}};
          const bool inside = std::all_of(corners.begin(), corners.end(), [&](point c) {
            return (memory ? above(c) : -above(c)) < 0;
          });
          if (!inside || !layout.is_free(bb)) {
            continue;
          }
          layout.block(bb);
          const std::string fill = memory ? "#2f5f9e" : "#a35200";
          const double tx = memory ? bb.x0 + 2 : bb.x1 - 2;
          const std::string anchor = memory ? "start" : "end";
          return text({tx, bb.y0 + 14}, 13, anchor, name,
                      "class=\"region-label\" font-weight=\"bold\" fill=\"" + fill + "\"") +
                 text({tx, bb.y0 + 29}, 11, anchor, sub, "fill=\"" + fill + "\"");
        }
      }
      return std::string();
    };
    // The visible part of the line: the points of the clipped region that lie on it.
    std::vector<point> on;
    for (const point& q : mem) {
      if (std::fabs(above(q)) < 1e-6) {
        on.push_back(q);
      }
    }
    if (on.size() >= 2) {
      const auto [lo_it, hi_it] = std::minmax_element(
          on.begin(), on.end(), [](const point& p, const point& q) { return p.x < q.x; });
      kernel_line =
          line(*lo_it, *hi_it, "class=\"kernel-line\" stroke=\"#222222\" stroke-width=\"2.5\"");
      layout.block_segment(*lo_it, *hi_it, 1.5);
      region_labels = region_label(true) + region_label(false);
      kernel_line +=
          text_along(*lo_it, *hi_it, {0.6, 0.75, 0.45, 0.3, 0.9, 0.15, 0.02}, 8,
                     "T = O_krn \u00d7 B_mem, O_krn = " + value(o) + " op/B", 12,
                     "fill=\"#222222\" font-weight=\"bold\" class=\"line-label\"", layout);
    } else {
      region_labels = region_label(true) + region_label(false);
    }
  }

  body += axes(x, y, "Memory bandwidth B_mem (GB/s)",
               "Compute throughput T'_op for this kernel (" + unit_of(k.params.K_type) + ")");
  body += "<g class=\"regions\">\n" + region_labels + "</g>\n" + kernel_line;

  // Devices, each moved to the line where its prediction is.
  body += "<g class=\"devices\">\n";
  for (const auto& dp : ds) {
    if (!dp.p) {
      continue;
    }
    const std::string c = colour(dp.index);
    const bool local = k.result.device == dp.d->id;
    body +=
        line(dp.at, dp.predicted,
             "class=\"move\" stroke=\"" + c + "\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"");
    const std::string tip = dp.d->id + " (" + dp.d->name + "): B_mem " + value(dp.p->B_mem) +
                            " GB/s, T'_op " + value(dp.p->T_op_adj) + " " + unit + ", " +
                            std::string(to_string(dp.p->bound)) + "-bound, predicted " +
                            value(dp.p->T_pred) + " " + unit + ", " +
                            short_duration(dp.p->predicted_time_s);
    body += "<g class=\"predicted-marker " + std::string(to_string(dp.p->bound)) +
            "\" transform=\"" + translate(dp.predicted) + "\"><title>" + escape(tip) +
            "</title><path d=\"M -4.5 -4.5 L 4.5 4.5 M -4.5 4.5 L 4.5 -4.5\" stroke=\"" + c +
            "\" stroke-width=\"2.5\"/></g>\n";
    const verdict_status s = local ? k.result.status : verdict_status::pass;
    body += "<g class=\"device-marker" + std::string(local ? " local" : "") + "\" transform=\"" +
            translate(dp.at) + "\"><title>" + escape(tip) + "</title>" +
            shape(s, k_marker_r, marker_paint(c, true)) + "</g>\n";
  }
  for (const auto& dp : ds) {
    if (!dp.p) {
      continue;
    }
    // The device's id where it fits, else its number.
    for (const std::string& label : {dp.d->id, std::to_string(dp.index + 1)}) {
      if (const auto l = layout.place(dp.at, k_marker_r, text_width(label, 11, true) + 3, 13)) {
        body += draw_label(*l, dp.at, label, 11, "device-label", colour(dp.index));
        break;
      }
    }
  }
  body += "</g>\n";

  body += key_line(
      k_plot_left - 60, k_plot_bottom + 66,
      {{shape(verdict_status::pass, 5, marker_paint("#777777", true)), "device at (B_mem, T'_op)"},
       {"<path d=\"M -4.5 -4.5 L 4.5 4.5 M -4.5 4.5 L 4.5 -4.5\" "
        "stroke=\"#777777\" stroke-width=\"2.5\"/>",
        "its predicted performance on the line"}});
  body += key_line(k_plot_left - 60, k_plot_bottom + 86,
                   {{"", "memory-bound: moved down to the line; compute-bound: moved left"}});

  // Legend: every device by number and colour, with its class and bound for this kernel.
  double ly = k_plot_top + 4;
  body +=
      text({k_legend_left, ly}, 13, "start", "Devices (" + std::to_string(r.devices.size()) + ")",
           "font-weight=\"bold\" fill=\"#111111\"");
  ly += 22;
  for (const auto& dp : ds) {
    const bool local = k.result.device == dp.d->id;
    legend_entry e;
    e.swatch = shape(local ? k.result.status : verdict_status::pass, 5,
                     marker_paint(colour(dp.index), true));
    e.number = dp.index + 1;
    e.name = dp.d->id + " \u00b7 " + dp.d->name;
    e.tag = local ? tag_of(k.result.status) : status_tag{};
    e.tooltip = dp.d->name + " (" + dp.d->source + " peaks)";
    e.detail = "not predicted for this kernel";
    if (dp.p) {
      e.detail = std::string(to_string(dp.p->bound)) + "-bound \u00b7 bound " +
                 short_duration(dp.p->predicted_time_s);
      if (measured_on(r, k, *dp.d)) {
        e.detail += " \u00b7 measured " + short_duration(k.measured->time_s);
      }
      e.detail += " \u00b7 B_mem " + value(dp.p->B_mem) + " \u00b7 T'_op " + value(dp.p->T_op_adj);
    }
    body += legend_row(ly, e);
    ly += k_legend_row;
  }

  std::string subtitle = std::string(to_string(k.params.K_type)) + " \u00b7 O_krn " + value(o) +
                         " op/B \u00b7 W_comp " + amount(k.params.W_comp, "op") +
                         " \u00b7 W_traf " + amount(k.params.W_traf, "B");
  if (k.result.status != verdict_status::skip) {
    subtitle += " \u00b7 " + status_word(k.result.status) + " on " + k.result.device;
  }
  subtitle += " \u00b7 log-log: the half-line from the origin is the diagonal";
  body = heading("Quadrant split: " + k.name, subtitle) + body;
  return document(std::max(k_min_height, ly), "perfgate quadrant split: " + k.name, body);
}

} // namespace perfgate::detail
