// SPDX-License-Identifier: Apache-2.0
// The SVG charts: well-formed XML for any kernel name, one marker per kernel or device, roofs,
// ridges and predictions where the model puts them (read back through the axes' own tick
// labels), no NaN or infinity, and the same bytes every time. Set PERFGATE_SVG_DUMP_DIR to keep
// the charts the tests draw (to look at them in a browser).
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>

#include "report/writers/svg_writer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

namespace {

using perfgate::detail::quadrant_svg;
using perfgate::detail::roofline_svg;

// ---- a strict well-formedness check -------------------------------------------------------

bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
bool name_char(char c) {
  return name_start(c) || std::isdigit(static_cast<unsigned char>(c)) || c == '-' || c == '.';
}

// Character data or an attribute value: no raw '<' or '>', '&' only as one of the five
// predefined entities. Empty when fine, else what is wrong.
std::string check_chars(const std::string& s, std::size_t at) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' || s[i] == '>') {
      return "raw '" + std::string(1, s[i]) + "' near offset " + std::to_string(at + i);
    }
    if (s[i] == '&') {
      static const char* const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
      if (std::none_of(std::begin(entities), std::end(entities),
                       [&](const char* e) { return s.compare(i, std::strlen(e), e) == 0; })) {
        return "raw '&' near offset " + std::to_string(at + i);
      }
    }
    if (static_cast<unsigned char>(s[i]) < 0x20 && s[i] != '\n' && s[i] != '\t' && s[i] != '\r') {
      return "control character near offset " + std::to_string(at + i);
    }
  }
  return "";
}

// Empty when `xml` is a well-formed document with one root element, else the first problem:
// balanced and matching tags, quoted attributes without duplicates, only the five predefined
// entities, no raw '&', '<' or '>' in text or attribute values.
std::string well_formed(const std::string& xml) {
  std::size_t i = 0;
  const auto skip_space = [&] {
    while (i < xml.size() && std::isspace(static_cast<unsigned char>(xml[i]))) {
      ++i;
    }
  };
  const auto read_name = [&]() -> std::string {
    const std::size_t start = i;
    if (i >= xml.size() || !name_start(xml[i])) {
      return "";
    }
    while (i < xml.size() && name_char(xml[i])) {
      ++i;
    }
    return xml.substr(start, i - start);
  };
  if (xml.rfind("<?xml ", 0) == 0) {
    i = xml.find("?>");
    if (i == std::string::npos) {
      return "unterminated XML declaration";
    }
    i += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (i < xml.size()) {
    if (xml[i] != '<') {
      const std::size_t end = std::min(xml.find('<', i), xml.size());
      const std::string chunk = xml.substr(i, end - i);
      if (open.empty() && chunk.find_first_not_of(" \t\r\n") != std::string::npos) {
        return "text outside the root element near offset " + std::to_string(i);
      }
      if (auto e = check_chars(chunk, i); !e.empty()) {
        return e;
      }
      i = end;
      continue;
    }
    if (xml.compare(i, 4, "<!--") == 0) {
      const std::size_t end = xml.find("-->", i);
      if (end == std::string::npos) {
        return "unterminated comment";
      }
      i = end + 3;
      continue;
    }
    if (xml.compare(i, 2, "</") == 0) {
      i += 2;
      const std::string name = read_name();
      skip_space();
      if (i >= xml.size() || xml[i] != '>') {
        return "bad end tag </" + name + " near offset " + std::to_string(i);
      }
      ++i;
      if (open.empty() || open.back() != name) {
        return "end tag </" + name + "> does not match <" + (open.empty() ? "" : open.back()) +
               "> near offset " + std::to_string(i);
      }
      open.pop_back();
      continue;
    }
    ++i;
    const std::string name = read_name();
    if (name.empty()) {
      return "bad tag name near offset " + std::to_string(i);
    }
    if (open.empty() && ++roots > 1) {
      return "more than one root element";
    }
    std::set<std::string> attrs;
    while (true) {
      const std::size_t before = i;
      skip_space();
      if (i >= xml.size()) {
        return "unterminated tag <" + name;
      }
      if (xml.compare(i, 2, "/>") == 0) {
        i += 2;
        break;
      }
      if (xml[i] == '>') {
        ++i;
        open.push_back(name);
        break;
      }
      if (i == before) {
        return "no space before an attribute in <" + name + " near offset " + std::to_string(i);
      }
      const std::string attr = read_name();
      if (attr.empty() || !attrs.insert(attr).second) {
        return "bad or repeated attribute in <" + name + " near offset " + std::to_string(i);
      }
      if (i + 1 >= xml.size() || xml[i] != '=' || (xml[i + 1] != '"' && xml[i + 1] != '\'')) {
        return "unquoted attribute " + attr + " in <" + name + " near offset " + std::to_string(i);
      }
      const char quote = xml[i + 1];
      const std::size_t end = xml.find(quote, i + 2);
      if (end == std::string::npos) {
        return "unterminated attribute " + attr;
      }
      if (auto e = check_chars(xml.substr(i + 2, end - i - 2), i + 2); !e.empty()) {
        return e + " (attribute " + attr + ")";
      }
      i = end + 1;
    }
  }
  if (!open.empty()) {
    return "unclosed <" + open.back() + ">";
  }
  return roots == 1 ? "" : "no root element";
}

// ---- reading the chart back ---------------------------------------------------------------

struct point {
  double x = 0, y = 0;
};

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) {
    ++n;
  }
  return n;
}

// The start tags (up to '>') that begin with `prefix`, in document order.
std::vector<std::string> tags(const std::string& svg, const std::string& prefix) {
  std::vector<std::string> out;
  for (std::size_t at = svg.find(prefix); at != std::string::npos; at = svg.find(prefix, at + 1)) {
    out.push_back(svg.substr(at, svg.find('>', at) - at + 1));
  }
  return out;
}

// An attribute's value in a start tag ("" when absent).
std::string attr(const std::string& tag, const std::string& name) {
  const std::size_t at = tag.find(" " + name + "=\"");
  if (at == std::string::npos) {
    return "";
  }
  const std::size_t start = at + name.size() + 3;
  return tag.substr(start, tag.find('"', start) - start);
}

double number(const std::string& tag, const std::string& name) {
  const std::string v = attr(tag, name);
  EXPECT_FALSE(v.empty()) << name << " missing in " << tag;
  return v.empty() ? 0.0 : std::stod(v);
}

// The translate() of every <g> whose class starts with `cls`, in document order.
std::vector<point> groups(const std::string& svg, const std::string& cls) {
  std::vector<point> out;
  for (const auto& tag : tags(svg, "<g class=\"" + cls)) {
    point p;
    EXPECT_EQ(std::sscanf(attr(tag, "transform").c_str(), "translate(%lf,%lf)", &p.x, &p.y), 2)
        << tag;
    out.push_back(p);
  }
  return out;
}

struct segment {
  point a, b;
};

std::vector<segment> lines(const std::string& svg, const std::string& cls) {
  std::vector<segment> out;
  for (const auto& tag : tags(svg, "<line ")) {
    if (attr(tag, "class") == cls) {
      out.push_back(
          {{number(tag, "x1"), number(tag, "y1")}, {number(tag, "x2"), number(tag, "y2")}});
    }
  }
  return out;
}

// A log axis read back from its tick labels: pixel = offset + scale log10(value).
struct axis_map {
  double offset = 0, scale = 0;
  [[nodiscard]] double at(double v) const { return offset + scale * std::log10(v); }
};

axis_map read_axis(const std::string& svg, bool x_axis) {
  std::vector<std::pair<double, double>> ticks; // (log10 value, pixel)
  const std::string cls = x_axis ? "tick-x" : "tick-y";
  for (std::size_t at = svg.find("<text "); at != std::string::npos;
       at = svg.find("<text ", at + 1)) {
    const std::size_t close = svg.find('>', at);
    const std::string tag = svg.substr(at, close - at + 1);
    if (attr(tag, "class") != cls) {
      continue;
    }
    const std::string label = svg.substr(close + 1, svg.find('<', close) - close - 1);
    const double pixel = x_axis ? number(tag, "x") : number(tag, "y") - 4; // the baseline
    ticks.emplace_back(std::log10(std::stod(label)), pixel);
  }
  EXPECT_GE(ticks.size(), 2u) << "an axis needs two labelled ticks";
  if (ticks.size() < 2) {
    return {};
  }
  std::sort(ticks.begin(), ticks.end());
  const auto& [l0, p0] = ticks.front();
  const auto& [l1, p1] = ticks.back();
  axis_map m{0, (p1 - p0) / (l1 - l0)};
  m.offset = p0 - m.scale * l0;
  for (const auto& [l, p] : ticks) {
    EXPECT_NEAR(m.at(std::pow(10.0, l)), p, 0.05) << "ticks are not evenly spaced in log10";
  }
  return m;
}

double distance_to_line(point p, const segment& s) {
  const double dx = s.b.x - s.a.x;
  const double dy = s.b.y - s.a.y;
  return std::fabs(dy * (p.x - s.a.x) - dx * (p.y - s.a.y)) / std::hypot(dx, dy);
}

// Everything every chart must satisfy.
void expect_sound(const std::string& svg) {
  EXPECT_EQ(well_formed(svg), "");
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_NE(svg.find("viewBox=\"0 0 "), std::string::npos);
  EXPECT_NE(svg.find("version=\"1.1\""), std::string::npos);
  std::string lower = svg;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  EXPECT_EQ(lower.find("nan"), std::string::npos) << "NaN in the chart";
  EXPECT_EQ(lower.find("inf"), std::string::npos) << "infinity in the chart";
  for (const auto& tag : tags(svg, "<text ")) {
    EXPECT_GE(number(tag, "font-size"), 11.0) << "text too small to read: " << tag;
  }
}

void dump(const std::string& name, const std::string& svg) {
  if (const char* dir = std::getenv("PERFGATE_SVG_DUMP_DIR")) {
    std::filesystem::create_directories(dir);
    std::ofstream(std::filesystem::path(dir) / (name + ".svg"), std::ios::binary) << svg;
  }
}

// ---- reports ------------------------------------------------------------------------------

std::vector<perfgate::device> thesis_and_modern_devices() {
  std::vector<perfgate::device> ds;
  for (const char* id : {"gtx-480", "gtx-660", "gtx-960", "gtx-1060", "tesla-m2050", "tesla-k20c",
                         "h100-sxm", "mi300x"}) {
    ds.push_back(perfgate::resolve_device(id));
  }
  return ds;
}

// Red/black SOR (fp64) and SGEMM (fp32), both profiled on a GTX-480.
perfgate::report sor_and_sgemm() {
  const std::string dir = std::string(PERFGATE_SOURCE_DIR) + "/examples/profiles/";
  perfgate::profile p = perfgate::import_profile(dir + "red_black_sor.gtx-480.nvprof.csv");
  const perfgate::profile sgemm = perfgate::import_profile(dir + "sgemm_32x32.gtx-480.nvprof.csv");
  p.kernels.insert(p.kernels.end(), sgemm.kernels.begin(), sgemm.kernels.end());
  return perfgate::predict_report(p, thesis_and_modern_devices());
}

const std::string k_awkward_name = "void scale<a&b, 'c'>(\"d\" < e > f)";

// 20 kernels of all three types over four decades of intensity, measured on a GTX 1060 (some
// not measured, one with a zero time), with every verdict, one name needing escapes and a few
// long C++ signatures.
perfgate::report twenty_kernels() {
  perfgate::profile p;
  p.format = perfgate::profile_format::perfgate_json;
  p.source_file = "synthetic/twenty.json";
  p.device_name = "NVIDIA GeForce GTX 1060";
  for (int i = 0; i < 20; ++i) {
    perfgate::kernel_profile k;
    char name[160];
    std::snprintf(name, sizeof name,
                  "void kernel_%02d_stencil<float, %d>(int, float const*, float*, "
                  "cudaTextureObject_t)",
                  i, 1 << (i % 6));
    k.name = i == 7 ? k_awkward_name : i % 4 == 1 ? "copy_" + std::to_string(i) : name;
    const double bytes = 1e9 * (1 + i % 3);
    const double ops = bytes * 0.02 * std::pow(10.0, 4.0 * i / 19.0); // O_krn 0.02 .. 200
    perfgate::declared_work w;
    (i % 5 == 3 ? w.fp64_flops : i % 5 == 4 ? w.int_ops : w.fp32_flops) = ops;
    w.bytes = bytes;
    k.work = w;
    if (i % 6 != 5) {
      k.time_s = i == 10 ? 0.0 : 0.01 * (1 + i % 7); // kernel 10 ran for no time at all
    }
    p.kernels.push_back(k);
  }
  perfgate::report r = perfgate::predict_report(p, thesis_and_modern_devices());
  const perfgate::verdict_status statuses[] = {
      perfgate::verdict_status::pass, perfgate::verdict_status::fail,
      perfgate::verdict_status::warn, perfgate::verdict_status::skip};
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    r.kernels[i].result.status = statuses[i % 4];
    if (statuses[i % 4] != perfgate::verdict_status::skip) {
      r.kernels[i].result.device = "gtx-1060";
      r.kernels[i].result.reasons = {"efficiency below MIN_EFFICIENCY & <threshold>"};
    }
  }
  return r;
}

std::string escaped(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    case '\'': out += "&apos;"; break;
    default: out += c;
    }
  }
  return out;
}

// The roofline of device `i` puts every roof, ridge and kernel where the model does.
void expect_roofline_geometry(const perfgate::report& r, std::size_t i, const std::string& svg) {
  const axis_map x = read_axis(svg, true);
  const axis_map y = read_axis(svg, false);
  const auto memory = lines(svg, "memory-roof");
  ASSERT_FALSE(memory.empty());
  const auto ridges = groups(svg, "adjusted-ridge");
  const auto markers = groups(svg, "kernel-marker");
  ASSERT_EQ(ridges.size(), r.kernels.size());
  ASSERT_EQ(markers.size(), r.kernels.size());
  const auto compute = lines(svg, "compute-roof");
  for (std::size_t k = 0; k < r.kernels.size(); ++k) {
    const perfgate::prediction& p = r.kernels[k].predictions[i];
    ASSERT_EQ(p.device, r.devices[i].id);
    // The ridge marker sits at (O_dev, T'_op), on the memory roof.
    EXPECT_NEAR(ridges[k].x, x.at(p.O_dev), 1.0) << r.kernels[k].name;
    EXPECT_NEAR(ridges[k].y, y.at(p.T_op_adj), 1.0) << r.kernels[k].name;
    EXPECT_LT(distance_to_line(ridges[k], memory.front()), 1.0) << r.kernels[k].name;
    EXPECT_GE(ridges[k].x, memory.front().a.x - 1);
    EXPECT_LE(ridges[k].x, memory.front().b.x + 1);
    // The kernel at its intensity, at its bound when not measured on this device.
    EXPECT_NEAR(markers[k].x, x.at(r.kernels[k].params.O_krn), 1.0) << r.kernels[k].name;
    const bool measured_here =
        r.kernels[k].measured && r.kernels[k].measured->time_s > 0 && r.devices[i].id == "gtx-1060";
    const double perf =
        measured_here ? r.kernels[k].params.W_comp / r.kernels[k].measured->time_s / 1e9 : p.T_pred;
    EXPECT_NEAR(markers[k].y, y.at(perf), 1.0) << r.kernels[k].name;
    // A compute roof at T_op starts at its ridge T_op / B_mem, on the memory roof.
    const bool has_roof = std::any_of(compute.begin(), compute.end(), [&](const segment& s) {
      return std::fabs(s.a.y - y.at(p.T_op)) < 1.0 &&
             std::fabs(s.a.x - x.at(p.T_op / p.B_mem)) < 1.0;
    });
    EXPECT_TRUE(has_roof) << "no compute roof at T_op " << p.T_op << " for " << r.kernels[k].name;
  }
  for (const auto& s : compute) {
    EXPECT_LT(distance_to_line(s.a, memory.front()), 1.0)
        << "a roof's ridge is off the memory roof";
  }
}

// Compute roofs on device i: one per distinct peak T_op of the kernels' types.
std::size_t distinct_peaks(const perfgate::report& r, std::size_t i) {
  std::set<double> peaks;
  for (const auto& k : r.kernels) {
    peaks.insert(k.predictions[i].T_op);
  }
  return peaks.size();
}

// ---- tests --------------------------------------------------------------------------------

TEST(svg_writer, roofline_of_the_thesis_kernels_on_every_device) {
  const perfgate::report r = sor_and_sgemm();
  ASSERT_EQ(r.kernels.size(), 2u);
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    SCOPED_TRACE(r.devices[i].id);
    const std::string svg = roofline_svg(r, i);
    dump("roofline-thesis-" + r.devices[i].id, svg);
    expect_sound(svg);
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker "), 2u);
    // Neither profile has timings: every kernel is drawn hollow, at its bound.
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker skip predicted\""), 2u);
    EXPECT_EQ(count(svg, "class=\"compute-roof\""), distinct_peaks(r, i))
        << "an fp32 and an fp64 roof, one where their peaks are equal";
    expect_roofline_geometry(r, i, svg);
    EXPECT_NE(svg.find(escaped(r.kernels[0].name)), std::string::npos) << "full name as a tooltip";
  }
}

TEST(svg_writer, roofline_of_twenty_kernels) {
  const perfgate::report r = twenty_kernels();
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    SCOPED_TRACE(r.devices[i].id);
    const std::string svg = roofline_svg(r, i);
    dump("roofline-twenty-" + r.devices[i].id, svg);
    expect_sound(svg);
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker "), 20u);
    EXPECT_EQ(count(svg, "class=\"compute-roof\""), distinct_peaks(r, i))
        << "fp32, fp64 and int roofs, shared where their peaks are equal";
    expect_roofline_geometry(r, i, svg);
    // Only the GTX 1060 measured them; kernels 5, 11, 17 have no time, kernel 10 a zero one.
    const std::size_t measured = r.devices[i].id == "gtx-1060" ? 16u : 0u;
    EXPECT_EQ(count(svg, " measured\" transform="), measured);
    EXPECT_EQ(lines(svg, "bound-tick").size(), measured);
    // On the GTX 1060 (one issue pipeline, no DRAM pattern peaks) the roof is the model.
    EXPECT_EQ(count(svg, "class=\"model-tick\""), 0u);
    // Each verdict has its own marker.
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker pass "), 5u);
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker fail "), 5u);
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker warn "), 5u);
    // Every kernel is in the legend, its name escaped in full in a tooltip.
    EXPECT_EQ(count(svg, "<g class=\"legend-entry\">"), 20u);
    EXPECT_NE(svg.find("<title>" + escaped(k_awkward_name)), std::string::npos);
    EXPECT_EQ(svg.find("a&b"), std::string::npos);
    EXPECT_EQ(svg.find("<a&"), std::string::npos);
    EXPECT_NE(svg.find("&lt;threshold&gt;"), std::string::npos) << "reasons escaped too";
    // Long signatures are shortened in the legend: no return type, the arguments elided.
    EXPECT_NE(svg.find(">kernel_00_stencil&lt;float, 1&gt;(\u2026)</text>"), std::string::npos);
  }
}

// A chart that leaves kernels out says why (issue 54: a bytes-only suite's chart drew none of
// its 25 states and did not say why): bytes alone have no intensity, a kernel not judged has no
// verdict, and past k_max_roofline_kernels the rest are left.
TEST(svg_writer, the_kernels_left_out_and_why) {
  perfgate::report r = twenty_kernels();
  // Failed: 1, 5, 9, 13, 17; warned: 2, 6, 10, 14, 18; passed: 0, 4, ...; status skip: 3, 7, ...
  for (const std::size_t i : {2u, 6u, 9u}) { // two warned ones and a failed one
    r.kernels[i].params.compute_declared = false;
  }
  r.kernels[13].skip_reason = "cannot_be_judged";
  const auto drawn = perfgate::detail::kernels_to_draw(r, 10);
  EXPECT_EQ(drawn.size(), 10u);
  EXPECT_EQ(perfgate::detail::kernels_left_out(r, drawn),
            "10 kernels not drawn (2 failed, 2 warned): 3 declare bytes alone: no intensity to "
            "place; 1 not judged; 6 beyond the 10 drawn; the report lists them all");
  // The chart's legend: a row each, every one short enough for its column.
  const std::string svg = roofline_svg(r, 0);
  EXPECT_EQ(count(svg, "class=\"kernels-left-out\""), 4u);
  EXPECT_NE(svg.find(">3 declare bytes alone: no intensity to place</text>"), std::string::npos);
  const auto all = perfgate::detail::kernels_to_draw(r, perfgate::detail::k_max_roofline_kernels);
  EXPECT_EQ(all.size(), 16u);
  EXPECT_EQ(perfgate::detail::kernels_left_out(r, all),
            "4 kernels not drawn (2 failed, 2 warned): 3 declare bytes alone: no intensity to "
            "place; 1 not judged; the report lists them all");
  r.kernels[13].skip_reason.clear();
  r.kernels[6].params.compute_declared = true;
  r.kernels[9].params.compute_declared = true;
  EXPECT_EQ(perfgate::detail::kernels_left_out(
                r, perfgate::detail::kernels_to_draw(r, perfgate::detail::k_max_roofline_kernels)),
            "1 kernel not drawn (0 failed, 1 warned): 1 declares bytes alone: no intensity to "
            "place; the report lists them all");
}

TEST(svg_writer, output_is_deterministic) {
  const perfgate::report r = twenty_kernels();
  EXPECT_EQ(roofline_svg(r, 3), roofline_svg(r, 3));
  EXPECT_EQ(quadrant_svg(r, 7), quadrant_svg(r, 7));
  EXPECT_EQ(roofline_svg(twenty_kernels(), 3), roofline_svg(r, 3));
}

TEST(svg_writer, quadrant_split_of_each_kernel) {
  const perfgate::report r = sor_and_sgemm();
  for (std::size_t k = 0; k < r.kernels.size(); ++k) {
    SCOPED_TRACE(r.kernels[k].name);
    const std::string svg = quadrant_svg(r, k);
    dump("quadrant-thesis-" + std::to_string(k), svg);
    expect_sound(svg);
    const auto devices = groups(svg, "device-marker");
    const auto predicted = groups(svg, "predicted-marker");
    ASSERT_EQ(devices.size(), r.devices.size());
    ASSERT_EQ(predicted.size(), r.devices.size());
    const auto kernel_line = lines(svg, "kernel-line");
    ASSERT_EQ(kernel_line.size(), 1u);
    const axis_map x = read_axis(svg, true);
    const axis_map y = read_axis(svg, false);
    // On log axes the half-line T = O_krn B rises one decade of T per decade of B.
    const double o = r.kernels[k].params.O_krn;
    EXPECT_NEAR(kernel_line[0].a.y,
                y.at(o * std::pow(10.0, (kernel_line[0].a.x - x.offset) / x.scale)), 1.0);
    bool memory_bound_seen = false;
    bool compute_bound_seen = false;
    for (std::size_t i = 0; i < r.devices.size(); ++i) {
      const perfgate::prediction& p = r.kernels[k].predictions[i];
      SCOPED_TRACE(p.device);
      EXPECT_NEAR(devices[i].x, x.at(p.B_mem), 1.0);
      EXPECT_NEAR(devices[i].y, y.at(p.T_op_adj), 1.0);
      EXPECT_NEAR(predicted[i].y, y.at(p.T_pred), 1.0);
      EXPECT_LT(distance_to_line(predicted[i], kernel_line[0]), 1.0) << "prediction off the line";
      if (p.bound == perfgate::bound_class::memory) {
        memory_bound_seen = true;
        EXPECT_NEAR(predicted[i].x, devices[i].x, 0.01) << "memory-bound moves vertically";
        EXPECT_LE(devices[i].y, predicted[i].y + 0.01) << "memory-bound devices are above the line";
      } else {
        compute_bound_seen = true;
        EXPECT_NEAR(predicted[i].y, devices[i].y, 0.01) << "compute-bound moves horizontally";
        EXPECT_GE(devices[i].x, predicted[i].x - 0.01)
            << "compute-bound devices are below the line";
      }
    }
    EXPECT_NE(svg.find(">memory-bound</text>"), std::string::npos);
    EXPECT_NE(svg.find(">compute-bound</text>"), std::string::npos);
    if (k == 0) { // SOR is memory-bound on some of these GPUs and compute-bound on others
      EXPECT_TRUE(memory_bound_seen);
      EXPECT_TRUE(compute_bound_seen);
    }
  }
}

TEST(svg_writer, quadrant_split_escapes_the_kernel_name) {
  const perfgate::report r = twenty_kernels();
  for (std::size_t k = 0; k < r.kernels.size(); ++k) {
    const std::string svg = quadrant_svg(r, k);
    dump("quadrant-twenty-" + std::to_string(k), svg);
    expect_sound(svg);
    EXPECT_EQ(count(svg, "<g class=\"device-marker"), r.devices.size());
  }
  const std::string svg = quadrant_svg(r, 7);
  EXPECT_NE(svg.find("<title>perfgate quadrant split: " + escaped(k_awkward_name) + "</title>"),
            std::string::npos);
  EXPECT_EQ(count(svg, "<g class=\"device-marker local\""), 0u) << "kernel 7 is not gated";
  EXPECT_EQ(count(quadrant_svg(r, 1), "<g class=\"device-marker local\""), 1u)
      << "the gated device is marked";
}

TEST(svg_writer, single_kernel_and_no_kernel) {
  perfgate::report r = sor_and_sgemm();
  r.kernels.resize(1);
  const std::string one = roofline_svg(r, 1);
  expect_sound(one);
  EXPECT_EQ(count(one, "<g class=\"kernel-marker "), 1u);
  expect_roofline_geometry(r, 1, one);

  r.kernels.clear(); // still the device's own roofs, and a legend that says so
  const std::string none = roofline_svg(r, 1);
  dump("roofline-empty", none);
  expect_sound(none);
  EXPECT_EQ(count(none, "<g class=\"kernel-marker "), 0u);
  EXPECT_EQ(count(none, "class=\"memory-roof\""), 1u);
  EXPECT_NE(none.find("Kernels (0)"), std::string::npos);
}

TEST(svg_writer, extreme_and_missing_values_give_finite_output) {
  perfgate::profile p;
  p.format = perfgate::profile_format::perfgate_json;
  const double works[][2] = {{1e3, 1e15}, {1e18, 1e2}, {1.0, 1.0}, {5e-300, 1e-300}};
  for (int i = 0; i < 4; ++i) {
    perfgate::kernel_profile k;
    k.name = "k" + std::to_string(i);
    k.work = perfgate::declared_work{works[i][0], 0, 0, works[i][1]};
    k.time_s = i == 0 ? 1e-300 : i == 1 ? 1e300 : i == 2 ? 0.0 : 1e-9;
    p.kernels.push_back(k);
  }
  perfgate::report r = perfgate::predict_report(
      p, {perfgate::resolve_device("h100-sxm"), perfgate::resolve_device("gtx-480")});
  // A hand-edited report with nothing the model could place.
  r.kernels[3].predictions[1].T_op_adj = 0;
  r.kernels[3].predictions[1].T_pred = std::nan("");
  r.kernels[3].predictions[1].O_dev = HUGE_VAL;
  r.kernels[3].params.O_krn = -1;
  for (std::size_t i = 0; i < r.devices.size(); ++i) {
    const std::string svg = roofline_svg(r, i);
    dump("roofline-extreme-" + std::to_string(i), svg);
    expect_sound(svg);
    EXPECT_EQ(count(svg, "<g class=\"kernel-marker "), 4u);
  }
  for (std::size_t k = 0; k < r.kernels.size(); ++k) {
    const std::string svg = quadrant_svg(r, k);
    dump("quadrant-extreme-" + std::to_string(k), svg);
    expect_sound(svg);
  }
}

TEST(svg_writer, bad_indices_are_usage_errors) {
  const perfgate::report r = sor_and_sgemm();
  EXPECT_THROW((void)roofline_svg(r, r.devices.size()), perfgate::usage_error);
  EXPECT_THROW((void)quadrant_svg(r, r.kernels.size()), perfgate::usage_error);
}

// A second opinion on well-formedness from Python's XML parser (one process for all charts).
TEST(svg_writer, python_xml_parser_reads_the_charts) {
  if (std::system("python3 -c pass > /dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 is not installed";
  }
  const perfgate::report thesis = sor_and_sgemm();
  const perfgate::report twenty = twenty_kernels();
  const std::vector<std::string> charts = {roofline_svg(thesis, 1), roofline_svg(twenty, 3),
                                           quadrant_svg(thesis, 0), quadrant_svg(twenty, 7)};
  const auto dir =
      std::filesystem::temp_directory_path() /
      ("perfgate-svg-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
       "-" + std::to_string(std::hash<std::string>{}(charts[0])));
  std::filesystem::create_directories(dir);
  std::string files;
  for (std::size_t i = 0; i < charts.size(); ++i) {
    const auto file = dir / ("chart" + std::to_string(i) + ".svg");
    std::ofstream(file, std::ios::binary) << charts[i];
    files += " '" + file.string() + "'";
  }
  const std::string cmd = "python3 -c \"import xml.etree.ElementTree as E,sys\n"
                          "for f in sys.argv[1:]: E.parse(f)\"" +
                          files;
  EXPECT_EQ(std::system(cmd.c_str()), 0) << dir;
  std::filesystem::remove_all(dir);
}

TEST(svg_writer, checker_rejects_what_it_should) {
  EXPECT_EQ(well_formed("<svg><g a=\"1\"/></svg>"), "");
  EXPECT_NE(well_formed("<svg><g></svg>"), "");
  EXPECT_NE(well_formed("<svg a=1/>"), "");
  EXPECT_NE(well_formed("<svg>a & b</svg>"), "");
  EXPECT_NE(well_formed("<svg>a &nbsp; b</svg>"), "");
  EXPECT_NE(well_formed("<svg>a < b</svg>"), "");
  EXPECT_NE(well_formed("<svg a=\"x<y\"/>"), "");
  EXPECT_NE(well_formed("<svg a=\"1\" a=\"2\"/>"), "");
  EXPECT_NE(well_formed("<svg/><svg/>"), "");
}

} // namespace

// The bar of a measured kernel ends at its roof, the gate's bound, and the model's prediction
// gets a thin tick of its own where the two differ (here: every roof twice as fast).
TEST(svg_writer, measured_kernels_are_barred_to_their_roof) {
  perfgate::report r = twenty_kernels();
  std::size_t gtx = 0;
  while (r.devices[gtx].id != "gtx-1060") {
    ++gtx;
  }
  std::size_t measured = 0;
  for (auto& k : r.kernels) {
    ASSERT_TRUE(k.predictions[gtx].roof);
    k.predictions[gtx].roof->time_s /= 2;
    measured += k.measured && k.measured->time_s > 0 ? 1 : 0;
  }
  const std::string svg = roofline_svg(r, gtx);
  expect_sound(svg);
  const auto ticks = lines(svg, "bound-tick");
  const auto model = lines(svg, "model-tick");
  ASSERT_EQ(ticks.size(), measured);
  ASSERT_EQ(model.size(), measured);
  const axis_map y = read_axis(svg, false);
  std::size_t t = 0;
  for (const auto& k : r.kernels) {
    if (!k.measured || !(k.measured->time_s > 0)) {
      continue;
    }
    const auto& p = k.predictions[gtx];
    EXPECT_NEAR(ticks[t].a.y, y.at(k.params.W_comp / p.roof->time_s / 1e9), 1.0) << k.name;
    EXPECT_NEAR(model[t].a.y, y.at(p.T_pred), 1.0) << k.name;
    ++t;
  }
  EXPECT_NE(svg.find("roof "), std::string::npos) << "the tooltip names the roof";
}
