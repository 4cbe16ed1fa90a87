// SPDX-License-Identifier: Apache-2.0
// What the SVG charts share (svg_canvas.hpp): text and number formatting, log axes, SVG elements,
// label placement, legend rows and the document around a chart.
#include "report/writers/svg_canvas.hpp"

#include "util/number_format.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace perfgate::detail::svg {

std::string colour(std::size_t i) { return std::string(k_palette[i % k_palette.size()]); }

// ---- text ---------------------------------------------------------------------------------

std::string escape(std::string_view s) { return html_escape(std::string(s)); }

std::size_t char_count(std::string_view utf8) {
  return static_cast<std::size_t>(std::count_if(utf8.begin(), utf8.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

double text_width(std::string_view utf8, double size, bool bold) {
  return static_cast<double>(char_count(utf8)) * size * (bold ? 0.66 : 0.6);
}

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

std::size_t chars_in(double width, double size, double em) {
  return static_cast<std::size_t>(std::max(1.0, std::floor(width / (size * em))));
}

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

std::string px(double v) {
  if (!std::isfinite(v)) {
    v = 0;
  }
  std::string s = fixed(std::clamp(v, -1e6, 1e6), 2);
  return s == "-0.00" ? "0.00" : s;
}

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

box around(point p, double r) { return {p.x - r, p.y - r, p.x + r, p.y + r}; }

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

std::string text(point at, int size, std::string_view anchor, std::string_view content,
                 std::string_view attrs) {
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

std::string marker_paint(const std::string& fill_colour, bool filled) {
  return filled ? "fill=\"" + fill_colour + "\" stroke=\"#222222\" stroke-width=\"1\""
                : "fill=\"#ffffff\" stroke=\"" + fill_colour + "\" stroke-width=\"2.2\"";
}

std::string status_word(verdict_status s) {
  return s == verdict_status::skip ? "not gated" : std::string(to_string(s));
}

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

void label_layout::block_segment(point a, point b, double half_width) {
  const double len = std::hypot(b.x - a.x, b.y - a.y);
  const int n = std::max(1, static_cast<int>(std::ceil(len / (2 * half_width + 2))));
  for (int i = 0; i <= n; ++i) {
    const point c{a.x + (b.x - a.x) * i / n, a.y + (b.y - a.y) * i / n};
    m_taken.push_back(around(c, half_width + 1));
  }
}

std::optional<placed_label> label_layout::place(point p, double r, double w, double h) {
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

std::string heading(std::string_view title, std::string_view subtitle) {
  return "<g class=\"heading\"><title>" + escape(title) + "</title>\n" +
         text({14, 28}, 17, "start", ellipsize(title, chars_in(k_width - 28, 17, 0.64)),
              "font-weight=\"bold\" fill=\"#111111\"") +
         "</g>\n" +
         text({14, 50}, 12, "start", ellipsize(subtitle, chars_in(k_width - 28, 12)),
              "fill=\"#444444\"");
}

status_tag tag_of(verdict_status s) {
  switch (s) {
  case verdict_status::pass: return {"PASS", "#2e7d32"};
  case verdict_status::warn: return {"WARN", "#b35c00"};
  case verdict_status::fail: return {"FAIL", "#c62828"};
  case verdict_status::skip: return {};
  }
  return {};
}

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

bool measured_on(const report& r, const kernel_report& k, const device& d) {
  if (!k.measured || !positive(k.measured->time_s)) {
    return false;
  }
  if (!k.result.device.empty()) {
    return k.result.device == d.id;
  }
  if (!r.local_device.empty()) {
    return r.local_device == d.id;
  }
  return r.profile_device.empty();
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

} // namespace perfgate::detail::svg
