// SPDX-License-Identifier: Apache-2.0
// The roofline chart of one device (MODEL.md section 1), and which kernels it draws when a report
// has more than k_max_roofline_kernels.
#include <perfgate/error.hpp>
#include <perfgate/model.hpp>
#include <perfgate/report.hpp>

#include "report/writers/svg_canvas.hpp"
#include "report/writers/svg_writer.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace perfgate::detail {

using namespace svg;

namespace {

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

// A kernel with a point on the chart: judged, and with operations declared (bytes alone have
// no operational intensity to place it at).
bool has_a_point(const kernel_report& k) {
  return k.skip_reason.empty() && k.params.compute_declared;
}
} // namespace

std::vector<std::size_t> kernels_to_draw(const report& r, std::size_t max) {
  std::vector<std::size_t> drawn;
  for (const verdict_status s :
       {verdict_status::fail, verdict_status::warn, verdict_status::pass, verdict_status::skip}) {
    for (std::size_t i = 0; i < r.kernels.size() && drawn.size() < max; ++i) {
      if (r.kernels[i].result.status == s && has_a_point(r.kernels[i])) {
        drawn.push_back(i);
      }
    }
  }
  std::sort(drawn.begin(), drawn.end());
  return drawn;
}

std::vector<std::string> kernels_left_out_lines(const report& r,
                                                const std::vector<std::size_t>& drawn) {
  const std::size_t left = r.kernels.size() - drawn.size();
  if (left == 0) {
    return {};
  }
  std::size_t failed = 0;
  std::size_t warned = 0;
  std::size_t bytes_only = 0;
  std::size_t not_judged = 0;
  std::size_t next = 0; // walks `drawn`, which is in report order
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    if (next < drawn.size() && drawn[next] == i) {
      ++next;
      continue;
    }
    const kernel_report& k = r.kernels[i];
    failed += k.result.status == verdict_status::fail ? 1 : 0;
    warned += k.result.status == verdict_status::warn ? 1 : 0;
    not_judged += k.skip_reason.empty() ? 0 : 1;
    bytes_only += k.skip_reason.empty() && !has_a_point(k) ? 1 : 0;
  }
  // Why, so that the chart of a bytes-only suite does not look broken.
  std::vector<std::string> lines = {std::to_string(left) + " kernel" + (left == 1 ? "" : "s") +
                                    " not drawn (" + std::to_string(failed) + " failed, " +
                                    std::to_string(warned) + " warned):"};
  if (bytes_only > 0) {
    lines.push_back(std::to_string(bytes_only) + (bytes_only == 1 ? " declares" : " declare") +
                    " bytes alone: no intensity to place");
  }
  if (not_judged > 0) {
    lines.push_back(std::to_string(not_judged) + " not judged");
  }
  if (const std::size_t beyond = left - bytes_only - not_judged; beyond > 0) {
    lines.push_back(std::to_string(beyond) + " beyond the " + std::to_string(drawn.size()) +
                    " drawn");
  }
  lines.emplace_back("the report lists them all");
  return lines;
}

std::string kernels_left_out(const report& r, const std::vector<std::size_t>& drawn) {
  const auto lines = kernels_left_out_lines(r, drawn);
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    text += (i == 0 ? "" : i == 1 ? " " : "; ") + lines[i];
  }
  return text;
}

namespace {

// What the chart draws: the kernels with a point (in report order) and the roofs they share.
struct roofline_data {
  std::vector<kernel_point> ks;
  std::vector<roof> roofs;        // highest peak first
  std::vector<std::size_t> drawn; // kernels_to_draw
};

roofline_data points_and_roofs(const report& r, const device& d, std::size_t device_index) {
  roofline_data out;
  std::vector<kernel_point>& ks = out.ks;
  std::vector<roof>& roofs = out.roofs;
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const kernel_report& k = r.kernels[i];
    kernel_point kp{i, &k, prediction_on(k, d, device_index), std::nullopt, {}};
    if (kp.p && measured_on(r, k, d)) {
      const double perf = k.params.W_comp / k.measured->time_s / 1e9;
      if (positive(perf)) {
        kp.performance = perf;
      }
    }
    if (kp.p && k.params.compute_declared) { // bytes alone: no type, so no compute roof
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
  out.drawn = kernels_to_draw(r, k_max_roofline_kernels);
  if (out.drawn.size() < ks.size()) {
    std::vector<kernel_point> kept;
    kept.reserve(out.drawn.size());
    for (const std::size_t i : out.drawn) {
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
  return out;
}

// The plot's two log axes and a data point's place on them.
struct roofline_plot {
  log_axis x;
  log_axis y;
  [[nodiscard]] point at(double xv, double yv) const { return point{x.at(xv), y.at(yv)}; }
};

// Axes over everything drawn: intensities and ridges across, roofs and points up.
roofline_plot plot_axes(const roofline_data& data) {
  std::vector<double> xs;
  std::vector<double> ys;
  for (const auto& rf : data.roofs) {
    xs.push_back(rf.peak / rf.bandwidth);
    ys.push_back(rf.peak);
  }
  for (const auto& kp : data.ks) {
    if (kp.p) {
      xs.insert(xs.end(), {kp.k->params.O_krn, kp.p->O_dev});
      ys.insert(ys.end(), {kp.p->T_op_adj, kp.p->T_pred, gated_performance(*kp.k, *kp.p)});
      if (kp.performance) {
        ys.push_back(*kp.performance);
      }
    }
  }
  return {make_axis(xs, k_plot_left, k_plot_right), make_axis(ys, k_plot_bottom, k_plot_top)};
}

// A roof's label, placed after all lines are drawn.
struct roof_label {
  std::string text;
  point left, right; // the roof's visible ends
};

struct memory_roof {
  point a, b;
  double bandwidth;
};

// The distinct memory bandwidths of the roofs, in roof order.
std::vector<double> bandwidths_of(const std::vector<roof>& roofs) {
  std::vector<double> bandwidths;
  for (const auto& rf : roofs) {
    if (std::find(bandwidths.begin(), bandwidths.end(), rf.bandwidth) == bandwidths.end()) {
      bandwidths.push_back(rf.bandwidth);
    }
  }
  return bandwidths;
}

// Memory roofs: B_mem x, from where it enters the plot up to the highest compute roof.
std::vector<memory_roof> draw_memory_roofs(const std::vector<roof>& roofs,
                                           const roofline_plot& plot, std::string& lines,
                                           label_layout& layout) {
  std::vector<memory_roof> memory_roofs;
  for (const double bw : bandwidths_of(roofs)) {
    double top = 0;
    for (const auto& rf : roofs) {
      top = rf.bandwidth == bw ? std::max(top, rf.peak) : top;
    }
    const double x0 = std::max(plot.x.low(), plot.y.low() / bw);
    const double x1 = std::min({plot.x.high(), top / bw, plot.y.high() / bw});
    if (!(x0 < x1)) {
      continue;
    }
    const point a = plot.at(x0, bw * x0);
    const point b = plot.at(x1, bw * x1);
    lines += line(a, b, "class=\"memory-roof\" stroke=\"#222222\" stroke-width=\"2.5\"");
    layout.block_segment(a, b, 1.5);
    memory_roofs.push_back({a, b, bw});
  }
  return memory_roofs;
}

// Compute roofs, each with its ridge (where it meets the memory roof) marked down to the axis.
std::vector<roof_label> draw_compute_roofs(const std::vector<roof>& roofs,
                                           const roofline_plot& plot, std::string& lines,
                                           label_layout& layout) {
  std::vector<roof_label> roof_labels;
  for (const auto& rf : roofs) {
    const point a = plot.at(rf.peak / rf.bandwidth, rf.peak);
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
  return roof_labels;
}

// Each kernel's adjusted roof T'_op, dashed from its ridge O_dev, in the kernel's colour.
void draw_kernel_roofs(const std::vector<kernel_point>& ks, const roofline_plot& plot,
                       std::string& lines, label_layout& layout) {
  for (const auto& kp : ks) {
    if (!kp.p) {
      continue;
    }
    const std::string c = colour(kp.index);
    const point ridge = plot.at(kp.p->O_dev, kp.p->T_op_adj);
    lines += line(ridge, {k_plot_right, ridge.y},
                  "class=\"adjusted-roof\" stroke=\"" + c +
                      "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"");
    lines += "<g class=\"adjusted-ridge\" transform=\"" + translate(ridge) +
             "\"><circle cx=\"0\" cy=\"0\" r=\"3.5\" fill=\"#ffffff\" stroke=\"" + c +
             "\" stroke-width=\"1.5\"/></g>\n";
    layout.block(around(ridge, 4));
  }
}

// A measured kernel: a dotted bar from its point up to the roof the gate judges it against
// (its efficiency is the bar's ratio); the model's prediction, where it differs, a thin tick.
void draw_bound_bars(const std::vector<kernel_point>& ks, const roofline_plot& plot,
                     std::string& lines, label_layout& layout) {
  for (const auto& kp : ks) {
    if (kp.p && kp.performance) {
      const std::string c = colour(kp.index);
      const point bound = plot.at(kp.k->params.O_krn, gated_performance(*kp.k, *kp.p));
      lines += line(kp.at, bound,
                    "class=\"bound-gap\" stroke=\"" + c +
                        "\" stroke-width=\"1.5\" stroke-dasharray=\"1 2\"");
      lines += line({bound.x - 6, bound.y}, {bound.x + 6, bound.y},
                    "class=\"bound-tick\" stroke=\"" + c + "\" stroke-width=\"2\"");
      layout.block_segment(kp.at, bound, 1.5);
      layout.block(around(bound, 6));
      const point model = plot.at(kp.k->params.O_krn, kp.p->T_pred);
      if (kp.p->roof && std::fabs(model.y - bound.y) >= 1.0) {
        lines += line({model.x - 4, model.y}, {model.x + 4, model.y},
                      "class=\"model-tick\" stroke=\"" + c + "\" stroke-width=\"1\"");
        layout.block(around(model, 4));
      }
    }
  }
}

// Numbers next to the points (the legend names every kernel anyway).
std::string kernel_numbers(const std::vector<kernel_point>& ks, label_layout& layout) {
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
  return numbers;
}

// A compute roof's label: above (else below) the roof, at its right end, else next to its
// ridge; empty when no spot is free.
std::string compute_roof_label(const roof_label& rl, const std::vector<roof_label>& roof_labels,
                               label_layout& layout) {
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
      return "<rect x=\"" + px(bb.x0) + "\" y=\"" + px(bb.y0) + "\" width=\"" + px(bb.x1 - bb.x0) +
             "\" height=\"" + px(bb.y1 - bb.y0) + "\" fill=\"#ffffff\" fill-opacity=\"0.75\"/>\n" +
             text({x0, rl.left.y + dy}, 12, "start", rl.text,
                  "class=\"roof-label\" fill=\"#222222\"");
    }
  }
  return {};
}

// Roof labels: along the memory roof; at each compute roof; each ridge's intensity.
std::string roof_labels_text(const std::vector<roof>& roofs,
                             const std::vector<memory_roof>& memory_roofs,
                             const std::vector<roof_label>& roof_labels, const roofline_plot& plot,
                             label_layout& layout) {
  std::string labels;
  for (const auto& m : memory_roofs) {
    labels +=
        text_along(m.a, m.b, {0.1, 0.3, 0.5, 0.7, 0.02}, 8, "DRAM " + value(m.bandwidth) + " GB/s",
                   12, "fill=\"#222222\" class=\"roof-label\"", layout);
  }
  for (const auto& rl : roof_labels) {
    labels += compute_roof_label(rl, roof_labels, layout);
  }
  for (const auto& rf : roofs) {
    const point a = plot.at(rf.peak / rf.bandwidth, rf.peak);
    labels += text_along({a.x - 4, k_plot_bottom - 4}, {a.x - 4, a.y + 6}, {0, 0.3, 0.6}, 0,
                         "ridge " + value(rf.peak / rf.bandwidth) + " op/B", 11,
                         "fill=\"#555555\" class=\"ridge-label\"", layout);
  }
  return labels;
}

// One kernel's marker: filled when measured, else its bound hollow; the verdict is the shape.
std::string kernel_marker(const kernel_point& kp) {
  const kernel_report& k = *kp.k;
  std::string tip =
      std::to_string(kp.index + 1) + ". " + k.name + ": O_krn " + value(k.params.O_krn) + " op/B, ";
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
  return "<g class=\"kernel-marker " + std::string(to_string(k.result.status)) +
         (kp.performance ? " measured" : " predicted") + "\" transform=\"" + translate(kp.at) +
         "\"><title>" + escape(tip) + "</title>" +
         shape(k.result.status, k_marker_r,
               marker_paint(colour(kp.index), kp.performance.has_value())) +
         "</g>\n";
}

// Key to the symbols under the plot, and the roofs' values (also when their labels found no
// room in the plot).
std::string key_and_roof_list(const std::vector<roof>& roofs) {
  const auto sym = [](verdict_status s, bool filled) {
    return shape(s, 5, marker_paint("#777777", filled));
  };
  std::string body =
      key_line(k_plot_left - 60, k_plot_bottom + 66,
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
  std::string roof_list;
  for (const double bw : bandwidths_of(roofs)) {
    roof_list += (roof_list.empty() ? "DRAM " : " \u00b7 DRAM ") + value(bw) + " GB/s";
  }
  for (const auto& rf : roofs) {
    roof_list += " \u00b7 " + rf.name() + " " + value(rf.peak) + " " + rf.unit();
  }
  body += text({k_plot_left - 60, k_plot_bottom + 106}, 12, "start",
               ellipsize(roof_list, chars_in(k_legend_left - 30 - (k_plot_left - 60), 12)),
               "class=\"roof-list\" fill=\"#333333\"");
  return body;
}

// One kernel's legend row: number, colour, verdict and its bound on this device.
legend_entry kernel_legend_entry(const kernel_point& kp) {
  const kernel_report& k = *kp.k;
  legend_entry e;
  e.swatch = shape(k.result.status, 5, marker_paint(colour(kp.index), kp.performance.has_value()));
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
               short_duration(gated_time_s(*kp.p));
    if (kp.performance) {
      e.detail += " \u00b7 measured " + short_duration(k.measured->time_s);
    }
    e.detail += " \u00b7 " + std::string(to_string(k.params.K_type)) + " \u00b7 T'_op " +
                value(kp.p->T_op_adj);
  } else {
    e.detail = "not predicted on this device";
  }
  return e;
}

// Legend: every kernel drawn by number, colour and verdict, then how many were left out;
// `ly` ends below its last row.
std::string kernel_legend(const report& r, const roofline_data& data, double& ly) {
  ly = k_plot_top + 4;
  std::string body =
      text({k_legend_left, ly}, 13, "start", "Kernels (" + std::to_string(r.kernels.size()) + ")",
           "font-weight=\"bold\" fill=\"#111111\"");
  ly += 22;
  for (const auto& kp : data.ks) {
    body += legend_row(ly, kernel_legend_entry(kp));
    ly += k_legend_row;
  }
  for (const std::string& line : kernels_left_out_lines(r, data.drawn)) { // a row each: it fits
    body += text({k_legend_left, ly + 4}, 12, "start", line,
                 "class=\"kernels-left-out\" fill=\"#333333\"");
    ly += k_legend_row;
  }
  return body;
}

std::string roofline_subtitle(const report& r, const device& d) {
  std::string subtitle = d.source + " peaks";
  if (!r.profile_file.empty()) {
    subtitle += " \u00b7 profile " + short_file(r.profile_file);
    if (!r.profile_device.empty()) {
      subtitle += " taken on " + r.profile_device;
    }
  }
  return subtitle + " \u00b7 log-log axes";
}

} // namespace

std::string roofline_svg(const report& r, std::size_t device_index) {
  if (device_index >= r.devices.size()) {
    throw usage_error("roofline chart: device index " + std::to_string(device_index) +
                      " out of range (the report has " + std::to_string(r.devices.size()) +
                      " devices)");
  }
  const device& d = r.devices[device_index];
  roofline_data data = points_and_roofs(r, d, device_index);
  const roofline_plot plot = plot_axes(data);

  std::string body = axes(plot.x, plot.y, "Operational intensity (op/B: operations per DRAM byte)",
                          roofline_y_title(data.ks));
  label_layout layout(k_plot);
  for (auto& kp : data.ks) {
    if (kp.p) {
      kp.at = plot.at(kp.k->params.O_krn, kp.performance.value_or(kp.p->T_pred));
      layout.block(around(kp.at, k_marker_r + 1.5));
    }
  }

  // Lines first (reserved in the layout so that no label sits on them), then their labels,
  // then the markers on top.
  std::string lines;
  const std::vector<memory_roof> memory_roofs = draw_memory_roofs(data.roofs, plot, lines, layout);
  const std::vector<roof_label> roof_labels = draw_compute_roofs(data.roofs, plot, lines, layout);
  draw_kernel_roofs(data.ks, plot, lines, layout);
  draw_bound_bars(data.ks, plot, lines, layout);
  // Numbers next to the points before the roofs' labels (their values are listed under the
  // plot as well).
  const std::string numbers = kernel_numbers(data.ks, layout);
  const std::string labels = roof_labels_text(data.roofs, memory_roofs, roof_labels, plot, layout);
  body += "<g class=\"roofs\">\n" + lines + labels + "</g>\n";

  body += "<g class=\"kernels\">\n";
  for (const auto& kp : data.ks) {
    if (kp.p) {
      body += kernel_marker(kp);
    }
  }
  body += numbers + "</g>\n";
  body += key_and_roof_list(data.roofs);

  double ly = 0;
  body += kernel_legend(r, data, ly);
  body = heading("Roofline: " + d.id + " \u00b7 " + d.name, roofline_subtitle(r, d)) + body;
  return document(std::max(k_min_height, ly), "perfgate roofline: " + d.id, body);
}

} // namespace perfgate::detail
