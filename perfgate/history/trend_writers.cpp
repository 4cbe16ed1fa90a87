// SPDX-License-Identifier: Apache-2.0
// The history's change points for people: a Markdown section for a pull-request comment, a
// standalone HTML page with each kernel's trend, and JSON for tools.
#include "history/history.hpp"

#include <perfgate/version.hpp>

#include "util/kernel_names.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace perfgate::history {

namespace {

// A commit as people read it: a hash's first 10 characters, anything else as given.
std::string commit_label(const std::string& commit) {
  const bool hash = commit.size() >= 12 &&
                    std::all_of(commit.begin(), commit.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  return hash ? commit.substr(0, 10) : commit;
}

std::vector<std::string> short_names(const std::vector<series>& all) {
  std::vector<std::string> full;
  for (const auto& t : all) {
    full.push_back(t.kernel);
  }
  return detail::short_kernel_names(full);
}

// "+5.1% (slower)" for a time ratio.
std::string shift_text(double ratio) {
  return detail::signed_percent(ratio - 1, 1) + (ratio > 1 ? " (slower)" : " (faster)");
}

// Eight levels of Unicode block, lowest point to highest.
std::string sparkline(const std::vector<double>& points) {
  static const char* const levels[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
  if (points.empty()) {
    return "";
  }
  const auto [lo, hi] = std::minmax_element(points.begin(), points.end());
  std::string out;
  for (double p : points) {
    const double f = *hi > *lo ? (p - *lo) / (*hi - *lo) : 0;
    out += levels[std::min(7, static_cast<int>(f * 8))];
  }
  return out;
}

std::size_t change_count(const std::vector<series>& all, bool muted) {
  std::size_t n = 0;
  for (const auto& t : all) {
    n += t.muted == muted ? t.changes.size() : 0;
  }
  return n;
}

// One kernel's trend: its points as a line over the commits, each change point a dashed
// vertical line labelled with its shift and first commit. Scales with the page's width.
std::string trend_svg(const series& t) {
  constexpr double w = 900, h = 170, left = 60, right = 20, top = 30, bottom = 30;
  const auto [lo_it, hi_it] = std::minmax_element(t.points.begin(), t.points.end());
  double lo = *lo_it, hi = *hi_it;
  // At least 6% of the level high: a flat series' 0.5% jitter must not fill the chart.
  const double mid = (lo + hi) / 2;
  if (hi - lo < 0.06 * mid) {
    lo = std::min(lo, mid * 0.97);
    hi = std::max(hi, mid * 1.03);
  }
  const double n = static_cast<double>(t.points.size());
  auto x = [&](double i) { return left + (n > 1 ? i / (n - 1) : 0.5) * (w - left - right); };
  auto y = [&](double v) { return top + (hi - v) / (hi - lo) * (h - top - bottom); };
  std::ostringstream s;
  s << "<svg viewBox=\"0 0 " << w << " " << h << "\" width=\"100%\" role=\"img\" aria-label=\""
    << detail::html_escape("trend of " + t.kernel) << "\">\n";
  s << "<line x1=\"" << left << "\" y1=\"" << h - bottom << "\" x2=\"" << w - right << "\" y2=\""
    << h - bottom << "\" stroke=\"#888\"/>\n";
  s << "<text x=\"4\" y=\"" << y(hi) + 4 << "\" font-size=\"11\">" << detail::fixed(hi, 3)
    << "</text>\n<text x=\"4\" y=\"" << y(lo) + 4 << "\" font-size=\"11\">"
    << detail::fixed(lo, 3) << "</text>\n";
  s << "<polyline fill=\"none\" stroke=\"" << (t.muted ? "#999" : "#1f6feb")
    << "\" stroke-width=\"2\" points=\"";
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    s << (i ? " " : "") << detail::fixed(x(static_cast<double>(i)), 1) << ","
      << detail::fixed(y(t.points[i]), 1);
  }
  s << "\"/>\n";
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    s << "<circle class=\"point\" cx=\"" << detail::fixed(x(static_cast<double>(i)), 1)
      << "\" cy=\"" << detail::fixed(y(t.points[i]), 1) << "\" r=\"3\" fill=\"#1f6feb\"><title>"
      << detail::html_escape(commit_label(t.commits[i]) + " " + t.dates[i]) << ": "
      << detail::fixed(t.points[i], 4) << " (floor of " << t.runs[i] << " run"
      << (t.runs[i] == 1 ? "" : "s") << ")</title></circle>\n";
  }
  for (const auto& c : t.changes) {
    const double cx = x(static_cast<double>(c.index) - 0.5);
    s << "<line class=\"change\" x1=\"" << detail::fixed(cx, 1) << "\" y1=\"" << top - 12
      << "\" x2=\"" << detail::fixed(cx, 1) << "\" y2=\"" << h - bottom
      << "\" stroke=\"#d1242f\" stroke-dasharray=\"4 3\"/>\n";
    s << "<text x=\"" << detail::fixed(std::min(cx + 4, w - 200), 1) << "\" y=\"" << top - 14
      << "\" font-size=\"12\" fill=\"#d1242f\">"
      << detail::html_escape(shift_text(c.ratio) + " at " + commit_label(t.commits[c.index]))
      << "</text>\n";
  }
  s << "</svg>\n";
  return s.str();
}

} // namespace

std::string trends_to_markdown(const std::vector<series>& all) {
  const auto names = short_names(all);
  std::ostringstream md;
  const std::size_t alerts = change_count(all, false);
  md << "## perfgate history: " << alerts << " change point" << (alerts == 1 ? "" : "s") << " in "
     << all.size() << " series\n\n";
  detail::table shifts{{"kernel", "device", "first commit of the shift", "shift", "confidence", "trend"},
                       {false, false, false, true, true, false},
                       {}};
  std::vector<std::string> muted;
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& t = all[i];
    if (t.muted) {
      muted.push_back("`" + detail::markdown_cell(names[i]) + "` on " + t.device + " (" +
                      std::to_string(t.changes.size()) + " change point" +
                      (t.changes.size() == 1 ? "" : "s") + "): " +
                      detail::markdown_cell(t.mute_reason));
      continue;
    }
    for (const auto& c : t.changes) {
      shifts.rows.push_back({"`" + detail::markdown_cell(names[i]) + "`", t.device,
                             "`" + commit_label(t.commits[c.index]) + "`" +
                                 (t.dates[c.index].empty() ? "" : " (" + t.dates[c.index] + ")"),
                             shift_text(c.ratio), detail::percent(1 - c.p_value, 1),
                             sparkline(t.points)});
    }
  }
  if (shifts.rows.empty()) {
    md << "No kernel's level shifted in its history.\n";
  } else {
    md << detail::render_markdown(shifts);
  }
  if (!muted.empty()) {
    md << "\nMuted (not alerted):\n";
    for (const auto& m : muted) {
      md << "- " << m << "\n";
    }
  }
  md << "\n<details><summary>Every series (" << all.size() << ")</summary>\n\n";
  detail::table every{{"kernel", "device", "commits", "trend"}, {false, false, true, false}, {}};
  for (std::size_t i = 0; i < all.size(); ++i) {
    every.rows.push_back({"`" + detail::markdown_cell(names[i]) + "`", all[i].device,
                          std::to_string(all[i].points.size()), sparkline(all[i].points)});
  }
  md << detail::render_markdown(every) << "\n</details>\n";
  return md.str();
}

std::string trends_to_html(const std::vector<series>& all) {
  const auto names = short_names(all);
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
       "<title>perfgate history</title>\n<style>\n"
       "body{font-family:system-ui,sans-serif;max-width:1000px;margin:1em auto;padding:0 1em}\n"
       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}\n"
       "h2{font-size:1.05em;margin:1.4em 0 0.2em;overflow-wrap:anywhere}\n"
       ".muted{color:#777}details{margin:0.2em 0}code{overflow-wrap:anywhere}\n"
       "</style>\n</head>\n<body>\n<h1>perfgate history</h1>\n";
  const std::size_t alerts = change_count(all, false);
  h << "<p>" << all.size() << " series, " << alerts << " change point" << (alerts == 1 ? "" : "s")
    << " outside muted kernels. A point is a commit: the fastest run's median time over the "
       "roof's (1 / efficiency; lower is faster), change points by binary segmentation with a "
       "permutation test (docs/statistics.md).</p>\n";
  for (std::size_t i = 0; i < all.size(); ++i) {
    const auto& t = all[i];
    h << "<section" << (t.muted ? " class=\"muted\"" : "") << ">\n<h2 title=\""
      << detail::html_escape(t.kernel) << "\">" << detail::html_escape(names[i]) << "</h2>\n<p>on "
      << detail::html_escape(t.device) << ", " << t.points.size() << " commit"
      << (t.points.size() == 1 ? "" : "s") << "</p>\n";
    if (names[i] != t.kernel) {
      h << "<details><summary>full name</summary><code>" << detail::html_escape(t.kernel)
        << "</code></details>\n";
    }
    if (t.muted) {
      h << "<p>muted: " << detail::html_escape(t.mute_reason) << "</p>\n";
    }
    for (const auto& c : t.changes) {
      h << "<p>" << detail::html_escape(shift_text(c.ratio)) << " from "
        << detail::html_escape(commit_label(t.commits[c.index]))
        << (t.dates[c.index].empty() ? "" : " (" + detail::html_escape(t.dates[c.index]) + ")")
        << ", confidence " << detail::percent(1 - c.p_value, 1) << "</p>\n";
    }
    h << trend_svg(t) << "</section>\n";
  }
  h << "</body>\n</html>\n";
  return h.str();
}

std::string trends_to_json(const std::vector<series>& all) {
  nlohmann::json j = {{"schema", history_changes_schema}, {"series", nlohmann::json::array()}};
  for (const auto& t : all) {
    nlohmann::json changes = nlohmann::json::array();
    for (const auto& c : t.changes) {
      changes.push_back({{"index", c.index},
                         {"commit", t.commits[c.index]},
                         {"ratio", c.ratio},
                         {"p_value", c.p_value}});
    }
    j["series"].push_back({{"kernel", t.kernel},
                           {"device", t.device},
                           {"muted", t.muted},
                           {"mute_reason", t.mute_reason},
                           {"commits", t.commits},
                           {"dates", t.dates},
                           {"points", t.points},
                           {"runs", t.runs},
                           {"changes", changes}});
  }
  return j.dump(2) + "\n";
}

const std::vector<trend_writer>& trend_writers() {
  static const std::vector<trend_writer> writers = {
      {"md", "", ".md", "a pull-request comment", trends_to_markdown},
      {"html", "", ".html", "a standalone page, a trend chart per kernel", trends_to_html},
      {"json", "", ".json", "perfgate-history-changes/1", trends_to_json},
      {"text", "", ".txt", "the Markdown, read in a terminal", trends_to_markdown},
  };
  return writers;
}

} // namespace perfgate::history
