// SPDX-License-Identifier: Apache-2.0
// `perfgate hull` output: text, perfgate-hull/1 JSON, Markdown and an SVG of the bands.
#include <perfgate/hull_report.hpp>
#include <perfgate/version.hpp>

#include "report/writers/svg_canvas.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace perfgate::hull {

namespace {

using nlohmann::ordered_json;

std::string g(double v) { return detail::significant(v, 4); }

std::string range(band b) {
  return b.lo == b.hi ? detail::duration(b.lo)
                      : detail::duration(b.lo) + " .. " + detail::duration(b.hi);
}

ordered_json part_json(const data_part& p) {
  ordered_json j{{"dims", p.dims}, {"pattern", to_string(p.pattern)}};
  j["shape"] = p.shape.empty() ? ordered_json(nullptr) : ordered_json(p.shape);
  return j;
}

ordered_json row_json(const class_row& r) {
  ordered_json floors = ordered_json::array();
  for (const auto f : r.floors) {
    floors.push_back(f);
  }
  return {{"id", r.id},
          {"pattern", r.pattern},
          {"example", r.example},
          {"source", r.source},
          {"formulas", {{"w", r.w}, {"m", r.m}, {"o", r.o}, {"d", r.d}, {"c", r.c}, {"u", r.u}}},
          {"floors", floors},
          {"erratum", r.erratum.empty() ? ordered_json(nullptr) : ordered_json(r.erratum)}};
}

ordered_json prediction_json(const prediction& p) {
  ordered_json times = ordered_json::object();
  for (const auto& [k, v] : p.times_s) {
    times[k] = v;
  }
  ordered_json cross = ordered_json::object();
  for (const auto& [k, v] : p.crossover_f) {
    cross[k] = v;
  }
  return {{"device", p.device}, {"times_s", times},     {"band_s", {p.band_s.lo, p.band_s.hi}},
          {"bound", p.bound},   {"crossover_f", cross}, {"notes", p.notes}};
}

ordered_json assumptions_json(const assumptions& a) {
  return {{"fma", to_string(a.fma)},       {"coalescing", to_string(a.coalesced)},
          {"vector", to_string(a.vector)}, {"element_bytes", a.element_bytes},
          {"transfers", a.transfers},      {"one_core", a.one_core}};
}

std::string floors_of(const class_row& r) {
  std::string s;
  for (const auto f : r.floors) {
    s += (s.empty() ? "" : ", ") + std::string(f);
  }
  return s;
}

// The class line every human-readable format starts with.
std::string class_line(const document& doc) {
  const auto& k = doc.params;
  return std::string(k.row->example) + " (" + std::string(k.row->source) + "): w " + g(k.w) +
         ", m " + g(k.m) + ", o " + g(k.o) + ", d " + g(k.d) + ", c " + g(k.c) + ", u " + g(k.u) +
         "; floors " + floors_of(*k.row);
}

std::string assumptions_line(const assumptions& a) {
  return "FMA " + std::string(to_string(a.fma)) + ", coalescing " +
         std::string(to_string(a.coalesced)) + ", vectorised (CPUs) " +
         std::string(to_string(a.vector)) + ", " + g(a.element_bytes) + " B per element" +
         (a.transfers ? ", with host transfers" : "");
}

detail::table class_table(const document& doc) {
  detail::table t{{"device", "band", "bound", "c0", "c1", "m0", "m1", "t0", "f* (c0)", "f* (c1)"},
                  {false, true, false, true, true, true, true, true, true, true},
                  {}};
  for (const auto& p : doc.predictions) {
    const auto time = [&](const char* k) {
      const auto it = p.times_s.find(k);
      return it == p.times_s.end() ? std::string("-") : detail::duration(it->second);
    };
    const auto cross = [&](const char* k) {
      const auto it = p.crossover_f.find(k);
      return it == p.crossover_f.end() ? std::string("-") : g(it->second);
    };
    t.rows.push_back({p.device, range(p.band_s), p.bound, time("c0"), time("c1"), time("m0"),
                      time("m1"), time("t0"), cross("c0"), cross("c1")});
  }
  return t;
}

detail::table app_table(const document& doc) {
  detail::table t{
      {"device", "primitive", "class", "band", "bound"}, {false, false, false, true, false}, {}};
  for (const auto& ap : doc.app_predictions) {
    for (std::size_t i = 0; i < ap.primitives.size(); ++i) {
      const auto& prim = doc.app->primitives[i];
      t.rows.push_back({ap.device, prim.name, prim.kind.to_string(), range(ap.primitives[i].band_s),
                        ap.primitives[i].bound});
    }
    t.rows.push_back({ap.device, "kernels", "", range(ap.kernels_s), ""});
    if (ap.transfers_s) {
      t.rows.push_back({ap.device, "transfers", "", detail::duration(*ap.transfers_s), ""});
    }
    t.rows.push_back({ap.device, "total", "", range(ap.total_s), ""});
  }
  return t;
}

} // namespace

std::string hull_to_json(const document& doc) {
  ordered_json j{{"schema", hull_schema}};
  if (doc.app) {
    j["application"] = {{"file", doc.app_file},
                        {"name", doc.app->name},
                        {"transfer_elements", doc.app->transfer_elements}};
    j["assumptions"] = assumptions_json(doc.assumed);
    ordered_json preds = ordered_json::array();
    for (const auto& ap : doc.app_predictions) {
      ordered_json prims = ordered_json::array();
      for (std::size_t i = 0; i < ap.primitives.size(); ++i) {
        const auto& prim = doc.app->primitives[i];
        ordered_json pj = prediction_json(ap.primitives[i]);
        pj.erase("device");
        ordered_json head{{"name", prim.name},
                          {"species", prim.species_text},
                          {"f", prim.f},
                          {"alpha", prim.alpha},
                          {"beta", prim.beta}};
        head.update(pj);
        prims.push_back(head);
      }
      preds.push_back(
          {{"device", ap.device},
           {"primitives", prims},
           {"kernels_s", {ap.kernels_s.lo, ap.kernels_s.hi}},
           {"transfers_s", ap.transfers_s ? ordered_json(*ap.transfers_s) : ordered_json(nullptr)},
           {"total_s", {ap.total_s.lo, ap.total_s.hi}},
           {"notes", ap.notes}});
    }
    j["predictions"] = preds;
    return j.dump(2) + "\n";
  }
  ordered_json inputs = ordered_json::array();
  for (const auto& p : doc.kind->inputs) {
    inputs.push_back(part_json(p));
  }
  j["species"] = {{"text", doc.species_text},
                  {"canonical", doc.kind->to_string()},
                  {"unordered", doc.kind->unordered},
                  {"inputs", inputs},
                  {"output", part_json(doc.kind->output)}};
  const auto& k = doc.params;
  ordered_json cls = row_json(*k.row);
  for (const auto& [name, v] : {std::pair<const char*, double>{"w", k.w},
                                {"m", k.m},
                                {"o", k.o},
                                {"d", k.d},
                                {"c", k.c},
                                {"u", k.u}}) {
    cls[name] = v;
  }
  j["class"] = cls;
  j["f"] = doc.f;
  j["alpha"] = doc.alpha;
  j["beta"] = doc.beta;
  j["assumptions"] = assumptions_json(doc.assumed);
  ordered_json preds = ordered_json::array();
  for (const auto& p : doc.predictions) {
    preds.push_back(prediction_json(p));
  }
  j["predictions"] = preds;
  return j.dump(2) + "\n";
}

std::string hull_to_text(const document& doc) {
  std::string s;
  if (doc.app) {
    s += "application " + (doc.app->name.empty() ? doc.app_file : doc.app->name) + " (" +
         std::to_string(doc.app->primitives.size()) + " primitives)\n";
    s += "assumptions: " + assumptions_line(doc.assumed) + "\n\n";
    s += detail::render_text(app_table(doc));
    for (const auto& ap : doc.app_predictions) {
      for (const auto& n : ap.notes) {
        s += "  " + ap.device + ": " + n + "\n";
      }
    }
    return s;
  }
  s += "class: " + doc.kind->to_string() + "\n";
  s += "  " + class_line(doc) + "\n";
  if (!doc.params.row->erratum.empty()) {
    s += "  erratum: " + std::string(doc.params.row->erratum) + "\n";
  }
  s += "f = " + g(doc.f) + " operations per operator application";
  if (doc.alpha != 0 || doc.beta != 0) {
    s += ", alpha " + g(doc.alpha) + ", beta " + g(doc.beta);
  }
  s += "\nassumptions: " + assumptions_line(doc.assumed) + "\n\n";
  s += detail::render_text(class_table(doc));
  for (const auto& p : doc.predictions) {
    s += "\n" + p.device + ":\n";
    for (const auto& n : p.notes) {
      s += "  - " + n + "\n";
    }
  }
  return s;
}

std::string hull_to_markdown(const document& doc) {
  std::string s;
  if (doc.app) {
    s += "### Boat hull: " +
         detail::markdown_cell(doc.app->name.empty() ? doc.app_file : doc.app->name) + "\n\n";
    s += "Assumptions: " + assumptions_line(doc.assumed) + ".\n\n";
    return s + detail::render_markdown(app_table(doc));
  }
  s += "### Boat hull: `" + doc.kind->to_string() + "`\n\n";
  s += detail::markdown_cell(class_line(doc)) + ". f = " + g(doc.f) + ".\n\n";
  s += "Assumptions: " + assumptions_line(doc.assumed) + ".\n\n";
  s += detail::render_markdown(class_table(doc));
  for (const auto& p : doc.predictions) {
    s += "\n**" + detail::markdown_cell(p.device) + "**\n";
    for (const auto& n : p.notes) {
      s += "- " + detail::markdown_cell(n) + "\n";
    }
  }
  return s;
}

std::string hull_to_svg(const document& doc) {
  namespace svg = detail::svg;
  // One row per device (class) or per device and primitive (application): a bar lo..hi on a
  // logarithmic time axis, ticks at the floors.
  struct row {
    std::string label;
    band b;
    std::map<std::string, double, std::less<>> ticks;
    std::size_t colour = 0;
  };
  std::vector<row> rows;
  std::string title;
  if (doc.app) {
    title = "Boat hull: " + (doc.app->name.empty() ? doc.app_file : doc.app->name);
    for (std::size_t d = 0; d < doc.app_predictions.size(); ++d) {
      const auto& ap = doc.app_predictions[d];
      rows.push_back({ap.device + ": total", ap.total_s, {}, d});
      for (std::size_t i = 0; i < ap.primitives.size(); ++i) {
        rows.push_back({ap.device + ": " + doc.app->primitives[i].name, ap.primitives[i].band_s,
                        ap.primitives[i].times_s, d});
      }
    }
  } else {
    title = "Boat hull: " + doc.kind->to_string();
    for (std::size_t d = 0; d < doc.predictions.size(); ++d) {
      rows.push_back(
          {doc.predictions[d].device, doc.predictions[d].band_s, doc.predictions[d].times_s, d});
    }
  }
  std::vector<double> values;
  for (const auto& r : rows) {
    values.push_back(r.b.lo);
    values.push_back(r.b.hi);
    for (const auto& [k, v] : r.ticks) {
      values.push_back(v);
    }
  }
  const double left = 260, right = 960, top = 96, row_h = 34;
  const double bottom = top + row_h * static_cast<double>(rows.size());
  const svg::log_axis x = svg::make_axis(values, left, right);
  std::string body = svg::heading(title, "time band per device (log scale); ticks: floors c0, "
                                         "c1, m0, m1, t0");
  for (int e = static_cast<int>(std::ceil(x.lo)); e <= static_cast<int>(std::floor(x.hi)); ++e) {
    const double px = x.unclamped(e);
    body += svg::line({px, top - 6}, {px, bottom}, "stroke=\"#dddddd\"");
    body += svg::text({px, bottom + 18}, 12, "middle", svg::tick_label(1, e) + " s");
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const double y = top + row_h * static_cast<double>(i) + row_h / 2;
    const std::string c = svg::colour(r.colour);
    body += svg::text({left - 10, y + 4}, 13, "end", svg::ellipsize(r.label, 34));
    const double x0 = x.at(r.b.lo), x1 = std::max(x.at(r.b.hi), x0 + 3);
    body += "<rect x=\"" + svg::px(x0) + "\" y=\"" + svg::px(y - 9) + "\" width=\"" +
            svg::px(x1 - x0) + "\" height=\"18\" fill=\"" + c +
            "\" fill-opacity=\"0.35\" stroke=\"" + c + "\"><title>" +
            svg::escape(r.label + ": " + range(r.b)) + "</title></rect>\n";
    for (const auto& [k, v] : r.ticks) {
      const double px = x.at(v);
      body += svg::line({px, y - 13}, {px, y + 13}, "stroke=\"#333333\" stroke-width=\"1\"");
      body += svg::text({px, y - 15}, 10, "middle", k);
    }
    body += svg::text({std::min(x1 + 6, right - 4), y + 4}, 11, "start", range(r.b));
  }
  return svg::document(bottom + 50, title, body);
}

std::string classes_to_text() {
  detail::table t{{"class", "example", "w", "m", "o", "d", "c", "u", "floors"},
                  {false, false, false, false, false, false, false, false, false},
                  {}};
  std::string errata;
  for (const auto& r : classes()) {
    t.rows.push_back({std::string(r.pattern), std::string(r.example), std::string(r.w),
                      std::string(r.m), std::string(r.o), std::string(r.d), std::string(r.c),
                      std::string(r.u), floors_of(r)});
    errata += "  " + std::string(r.example) + " (" + std::string(r.source) + ")" +
              (r.erratum.empty() ? "" : ": " + std::string(r.erratum)) + "\n";
  }
  return "The boat hull's classes (Nugteren & Corporaal, CF'12, Table 1; elements, not bytes)\n" +
         detail::render_text(t) + "\nsources and errata:\n" + errata;
}

std::string classes_to_json() {
  ordered_json rows = ordered_json::array();
  for (const auto& r : classes()) {
    rows.push_back(row_json(r));
  }
  return ordered_json{{"schema", hull_classes_schema}, {"classes", rows}}.dump(2) + "\n";
}

const std::vector<hull_writer>& hull_writers() {
  static const std::vector<hull_writer> writers = {
      {"text", "", ".txt", "tables for a terminal", hull_to_text},
      {"json", "", ".json", "perfgate-hull/1", hull_to_json},
      {"md", "", ".md", "GitHub-flavoured Markdown", hull_to_markdown},
      {"svg", "", ".svg", "every device's band on one time axis", hull_to_svg},
  };
  return writers;
}

} // namespace perfgate::hull
