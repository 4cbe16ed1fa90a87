// SPDX-License-Identifier: Apache-2.0
// The quadrant-split chart of one kernel (MODEL.md section 2): every device against the kernel's
// half-line T = O_krn B_mem on log-log axes.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>

#include "report/writers/svg_canvas.hpp"
#include "report/writers/svg_writer.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace perfgate::detail {

using namespace svg;

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

namespace {

// The kernel's chart must have something to draw: a predicted kernel with an intensity.
const kernel_report& kernel_to_draw(const report& r, std::size_t kernel_index) {
  if (kernel_index >= r.kernels.size()) {
    throw usage_error("quadrant chart: kernel index " + std::to_string(kernel_index) +
                      " out of range (the report has " + std::to_string(r.kernels.size()) +
                      " kernels)");
  }
  const kernel_report& k = r.kernels[kernel_index];
  if (!k.skip_reason.empty()) {
    throw usage_error("quadrant chart: kernel '" + k.name +
                      "' was not predicted, nothing to draw: " + k.skip_reason);
  }
  if (!k.params.compute_declared) {
    throw usage_error("quadrant chart: kernel '" + k.name +
                      "' declares bytes and no operations: it has no operational intensity to "
                      "place, only its memory roof (the report's tables give it)");
  }
  return k;
}

struct quadrant_plot {
  log_axis x;
  log_axis y;
  [[nodiscard]] point at(double xv, double yv) const { return point{x.at(xv), y.at(yv)}; }
};

// Every device's point and where its prediction moves it, and the axes over them all (the
// points are placed in pixels, reserved in `layout` once it exists).
quadrant_plot device_points(const report& r, const kernel_report& k,
                            std::vector<device_point>& ds) {
  const double o = k.params.O_krn;
  const bool has_line = positive(o);
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
  return {make_axis(xs, k_plot_left, k_plot_right), make_axis(ys, k_plot_bottom, k_plot_top)};
}

// Region names near the corner of each region, clear of the devices; `above(p)` < 0 above
// the kernel's line.
template <class Above>
std::string region_label(bool memory, const Above& above, label_layout& layout) {
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
      const bool inside = std::all_of(corners.begin(), corners.end(),
                                      [&](point c) { return (memory ? above(c) : -above(c)) < 0; });
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
}

// What the kernel's half-line adds to the chart.
struct kernel_line_parts {
  std::string regions;       // the two shaded sides, drawn under the axes
  std::string line;          // the line and its label
  std::string region_labels; // the sides' names
};

// The kernel's half-line T = O_krn B, straight on log-log axes: clipped to the plot, the two
// sides it splits the plot into shaded and named.
kernel_line_parts kernel_line(double o, const quadrant_plot& plot, label_layout& layout) {
  kernel_line_parts out;
  const log_axis& x = plot.x;
  const log_axis& y = plot.y;
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
    out.regions += polygon(mem, "class=\"region-memory\" fill=\"#e3eefa\"");
  }
  if (comp.size() >= 3) {
    out.regions += polygon(comp, "class=\"region-compute\" fill=\"#fcefe0\"");
  }
  // The visible part of the line: the points of the clipped region that lie on it.
  std::vector<point> on;
  for (const point& q : mem) {
    if (std::fabs(above(q)) < 1e-6) {
      on.push_back(q);
    }
  }
  if (on.size() < 2) {
    out.region_labels = region_label(true, above, layout) + region_label(false, above, layout);
    return out;
  }
  const auto [lo_it, hi_it] = std::minmax_element(
      on.begin(), on.end(), [](const point& p, const point& q) { return p.x < q.x; });
  out.line = line(*lo_it, *hi_it, "class=\"kernel-line\" stroke=\"#222222\" stroke-width=\"2.5\"");
  layout.block_segment(*lo_it, *hi_it, 1.5);
  out.region_labels = region_label(true, above, layout) + region_label(false, above, layout);
  out.line += text_along(*lo_it, *hi_it, {0.6, 0.75, 0.45, 0.3, 0.9, 0.15, 0.02}, 8,
                         "T = O_krn \u00d7 B_mem, O_krn = " + value(o) + " op/B", 12,
                         "fill=\"#222222\" font-weight=\"bold\" class=\"line-label\"", layout);
  return out;
}

// One device's markers: where it is, a cross where its prediction is, the move between.
std::string device_markers(const kernel_report& k, const device_point& dp) {
  const std::string unit = unit_of(k.params.K_type);
  const std::string c = colour(dp.index);
  const bool local = k.result.device == dp.d->id;
  std::string body =
      line(dp.at, dp.predicted,
           "class=\"move\" stroke=\"" + c + "\" stroke-width=\"1.5\" stroke-dasharray=\"3 2\"");
  const std::string tip =
      dp.d->id + " (" + dp.d->name + "): B_mem " + value(dp.p->B_mem) + " GB/s, T'_op " +
      value(dp.p->T_op_adj) + " " + unit + ", " + std::string(to_string(dp.p->bound)) +
      "-bound, predicted " + value(dp.p->T_pred) + " " + unit + ", " +
      short_duration(k.params.W_comp / (dp.p->T_pred * 1e9)) +
      (dp.p->scaling ? "; from the measurement on " + dp.p->scaling->measured_on + ": " +
                           short_duration(dp.p->predicted_time_s)
                     : std::string());
  body += "<g class=\"predicted-marker " + std::string(to_string(dp.p->bound)) + "\" transform=\"" +
          translate(dp.predicted) + "\"><title>" + escape(tip) +
          "</title><path d=\"M -4.5 -4.5 L 4.5 4.5 M -4.5 4.5 L 4.5 -4.5\" stroke=\"" + c +
          "\" stroke-width=\"2.5\"/></g>\n";
  const verdict_status s = local ? k.result.status : verdict_status::pass;
  body += "<g class=\"device-marker" + std::string(local ? " local" : "") + "\" transform=\"" +
          translate(dp.at) + "\"><title>" + escape(tip) + "</title>" +
          shape(s, k_marker_r, marker_paint(c, true)) + "</g>\n";
  return body;
}

// Devices, each moved to the line where its prediction is, then their labels.
std::string device_group(const kernel_report& k, const std::vector<device_point>& ds,
                         label_layout& layout) {
  std::string body = "<g class=\"devices\">\n";
  for (const auto& dp : ds) {
    if (dp.p) {
      body += device_markers(k, dp);
    }
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
  return body + "</g>\n";
}

// Legend: every device by number and colour, with its class and bound for this kernel; `ly`
// ends below its last row.
std::string device_legend(const report& r, const kernel_report& k,
                          const std::vector<device_point>& ds, double& ly) {
  ly = k_plot_top + 4;
  std::string body =
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
                 short_duration(gated_time_s(*dp.p));
      if (measured_on(r, k, *dp.d)) {
        e.detail += " \u00b7 measured " + short_duration(k.measured->time_s);
      }
      e.detail += " \u00b7 B_mem " + value(dp.p->B_mem) + " \u00b7 T'_op " + value(dp.p->T_op_adj);
    }
    body += legend_row(ly, e);
    ly += k_legend_row;
  }
  return body;
}

std::string quadrant_subtitle(const kernel_report& k) {
  std::string subtitle = std::string(to_string(k.params.K_type)) + " \u00b7 O_krn " +
                         value(k.params.O_krn) + " op/B \u00b7 W_comp " +
                         amount(k.params.W_comp, "op") + " \u00b7 W_traf " +
                         amount(k.params.W_traf, "B");
  if (k.result.status != verdict_status::skip) {
    subtitle += " \u00b7 " + status_word(k.result.status) + " on " + k.result.device;
  }
  return subtitle + " \u00b7 log-log: the half-line from the origin is the diagonal";
}

} // namespace

std::string quadrant_svg(const report& r, std::size_t kernel_index) {
  const kernel_report& k = kernel_to_draw(r, kernel_index);
  std::vector<device_point> ds;
  const quadrant_plot plot = device_points(r, k, ds);

  label_layout layout(k_plot);
  for (auto& dp : ds) {
    if (dp.p) {
      dp.at = plot.at(dp.p->B_mem, dp.p->T_op_adj);
      dp.predicted = plot.at(dp.predicted.x, dp.predicted.y);
      layout.block(around(dp.at, k_marker_r + 1.5));
      layout.block(around(dp.predicted, 5));
      layout.block_segment(dp.at, dp.predicted, 1.5);
    }
  }
  const kernel_line_parts kl =
      positive(k.params.O_krn) ? kernel_line(k.params.O_krn, plot, layout) : kernel_line_parts{};

  std::string body = kl.regions;
  body += axes(plot.x, plot.y, "Memory bandwidth B_mem (GB/s)",
               "Compute throughput T'_op for this kernel (" + unit_of(k.params.K_type) + ")");
  body += "<g class=\"regions\">\n" + kl.region_labels + "</g>\n" + kl.line;
  body += device_group(k, ds, layout);

  body += key_line(
      k_plot_left - 60, k_plot_bottom + 66,
      {{shape(verdict_status::pass, 5, marker_paint("#777777", true)), "device at (B_mem, T'_op)"},
       {"<path d=\"M -4.5 -4.5 L 4.5 4.5 M -4.5 4.5 L 4.5 -4.5\" "
        "stroke=\"#777777\" stroke-width=\"2.5\"/>",
        "its predicted performance on the line"}});
  body += key_line(k_plot_left - 60, k_plot_bottom + 86,
                   {{"", "memory-bound: moved down to the line; compute-bound: moved left"}});

  double ly = 0;
  body += device_legend(r, k, ds, ly);
  body = heading("Quadrant split: " + k.name, quadrant_subtitle(k)) + body;
  return document(std::max(k_min_height, ly), "perfgate quadrant split: " + k.name, body);
}

} // namespace perfgate::detail
