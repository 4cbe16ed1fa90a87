// SPDX-License-Identifier: Apache-2.0
// GitHub-flavoured Markdown for a pull-request comment or a job summary: a verdict line, one
// table per device (failures first), and the model's intermediate values collapsed.
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "report/writers/prediction_table.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <algorithm>
#include <map>

namespace perfgate {

namespace {
using namespace detail;

int rank(verdict_status s) {
  switch (s) {
  case verdict_status::fail: return 0;
  case verdict_status::warn: return 1;
  case verdict_status::pass: return 2;
  case verdict_status::skip: return 3;
  }
  return 4;
}

std::string icon(verdict_status s) {
  switch (s) {
  case verdict_status::fail: return "❌ fail";
  case verdict_status::warn: return "⚠️ warn";
  case verdict_status::pass: return "✅ pass";
  case verdict_status::skip: return "➖ skip";
  }
  return "";
}

const prediction* prediction_on(const kernel_report& k, const std::string& device) {
  for (const auto& p : k.predictions) {
    if (p.device == device) {
      return &p;
    }
  }
  return nullptr;
}

std::string first_reason(const kernel_report& k) {
  return k.result.reasons.empty() ? "" : k.result.reasons.front();
}

std::string baseline_change(const verdict& v) {
  if (!v.baseline_efficiency || !v.efficiency) {
    return "-";
  }
  const double change = (*v.efficiency - *v.baseline_efficiency) / *v.baseline_efficiency;
  const auto [base, head] = told_apart(*v.baseline_efficiency, *v.efficiency, 2);
  return base + " → " + head + " (" +
         (change >= 0 ? "+" : "") + fixed(change * 100, 1) + "%" +
         (v.change ? ", " + std::string(stats::to_string(v.change->kind)) : "") + ")";
}

std::optional<double> measured_clock(const kernel_report& k) {
  return k.measured ? k.measured->sm_clock_mhz : std::nullopt;
}

// "1410 MHz, roof ×0.712": the clock the kernel ran at and the scale its bound was held to.
std::string clock_cell(const kernel_report& k, const prediction* p) {
  std::string cell = measured_clock(k) ? fixed(*measured_clock(k), 0) + " MHz" : "";
  if (p != nullptr && p->clock_scale) {
    cell += (cell.empty() ? "" : ", ") + std::string("roof ×") + fixed(*p->clock_scale, 3);
  }
  return cell.empty() ? "-" : cell;
}

std::string clock_limits_list(const measurement& m) {
  std::string s;
  for (const auto& why : m.clock_limits) {
    s += (s.empty() ? "" : ", ") + why;
  }
  return s;
}

// The local device's table: measured against bound, efficiency and the verdict. The SM clock
// column appears only when a kernel's clock was measured, so reports without clocks keep their
// shape.
// Tables name kernels by their short names (kernel_short_names), the full names being in the
// collapsed details: a library kernel's demangled name runs to 1,500 characters.
using short_names = std::map<const kernel_report*, std::string>;

std::string local_table(const device& d, const std::vector<const kernel_report*>& ks,
                        const short_names& names) {
  bool clocks = false;
  for (const auto* k : ks) {
    const prediction* p = prediction_on(*k, d.id);
    clocks = clocks || measured_clock(*k) || (p != nullptr && p->clock_scale);
  }
  table t;
  t.header = {"",      "kernel", "measured",    "roof", "efficiency",
              "class", "predicted", "vs baseline", "why"};
  t.right_aligned = {false, false, true, true, true, false, true, true, false};
  if (clocks) {
    t.header.insert(t.header.begin() + 3, "SM clock");
    t.right_aligned.insert(t.right_aligned.begin() + 3, true);
  }
  for (const auto* k : ks) {
    const prediction* p = prediction_on(*k, d.id);
    std::vector<std::string> row = {icon(k->result.status),
                                    "`" + markdown_cell(names.at(k)) + "`",
                                    k->measured ? duration(k->measured->time_s) : "-",
                                    p ? duration(gated_time_s(*p)) : "-",
                                    k->result.efficiency ? with_digits(*k->result.efficiency, 2) : "-",
                                    p ? std::string(to_string(gated_bound(*p))) : "-",
                                    p ? duration(p->predicted_time_s) : "-",
                                    baseline_change(k->result),
                                    first_reason(*k)};
    if (clocks) {
      row.insert(row.begin() + 3, clock_cell(*k, p));
    }
    t.rows.push_back(std::move(row));
  }
  return render_markdown(t);
}

// Another device: the roof, its class and limiter, and the model's prediction.
std::string predicted_table(const device& d, const std::vector<const kernel_report*>& ks,
                            const short_names& names) {
  table t;
  t.header = {"kernel", "roof", "class", "limited by", "predicted", "T'_op", "O_krn", "O_dev"};
  t.right_aligned = {false, true, false, false, true, true, true, true};
  for (const auto* k : ks) {
    if (const prediction* p = prediction_on(*k, d.id)) {
      const bool compute = k->params.compute_declared; // else no compute side to show
      t.rows.push_back({"`" + markdown_cell(names.at(k)) + "`", duration(gated_time_s(*p)),
                        std::string(to_string(gated_bound(*p))),
                        p->roof ? limiter_text(*p->roof) : "-", duration(p->predicted_time_s),
                        compute ? fixed(p->T_op_adj, 2) : "n/a",
                        compute ? fixed(k->params.O_krn, 3) : "bytes only",
                        compute ? fixed(p->O_dev, 3) : "n/a"});
    }
  }
  return render_markdown(t);
}
} // namespace

std::string report_to_markdown(const report& r) {
  std::vector<const kernel_report*> ks;
  std::size_t counts[4] = {0, 0, 0, 0};
  short_names names;
  const auto shorts = kernel_short_names(r);
  for (const std::size_t i : kernels_by_time(r)) { // the most measured time first
    ks.push_back(&r.kernels[i]);
    ++counts[rank(r.kernels[i].result.status)];
    names[&r.kernels[i]] = shorts[i];
  }
  std::stable_sort(ks.begin(), ks.end(), [](const auto* a, const auto* b) {
    return rank(a->result.status) < rank(b->result.status);
  });
  std::string out = "## perfgate: " + std::to_string(r.kernels.size()) + " kernel" +
                    (r.kernels.size() == 1 ? "" : "s") + ": " + std::to_string(counts[0]) +
                    " failed, " + std::to_string(counts[1]) + " warned, " +
                    std::to_string(counts[2]) + " passed, " + std::to_string(counts[3]) +
                    " not gated\n\n";
  if (r.suite) { // the suite in one figure opens a comparison
    out += "**" + suite_line(*r.suite) + "**\n\n";
  }
  if (r.profile_format == "merged") {
    std::size_t parts = 1;
    for (char c : r.profile_file) {
      parts += c == ',' ? 1 : 0;
    }
    out += "Merged from " + std::to_string(parts) +
           " reports (each kernel's origin is in the "
           "details).";
  } else {
    out += "Profile `" + markdown_cell(r.profile_file) + "` (" + r.profile_format;
    if (!r.profile_device.empty()) {
      out += ", taken on " + markdown_cell(r.profile_device);
    }
    out += ").";
  }
  out += " Roof = the speed-of-light time on that device (no correct run is faster); efficiency "
         "= roof / measured; predicted = the predicted time. Rates in 1e9/s. Kernels by measured "
         "time, the largest first (failures before all).\n";
  for (const auto& d : r.devices) {
    std::vector<const kernel_report*> gated, predicted;
    for (const auto* k : ks) {
      if (k->result.device == d.id) {
        gated.push_back(k);
      } else if (prediction_on(*k, d.id) != nullptr) {
        predicted.push_back(k);
      }
    }
    out += "\n### " + markdown_cell(d.id) + ": " + markdown_cell(d.name) + " (" + d.source +
           " peaks" + (gated.empty() ? "" : ", the device measured") + ")\n\n";
    if (!gated.empty()) {
      out += local_table(d, gated, names);
    }
    if (!predicted.empty()) {
      out += (gated.empty() ? "" : "\nPredicted only:\n\n") +
             predicted_table(d, predicted, names);
    }
  }
  table not_judged;
  not_judged.header = {"kernel", "why it cannot be judged"};
  for (const auto* k : ks) {
    if (!k->skip_reason.empty()) {
      not_judged.rows.push_back(
          {"`" + markdown_cell(names.at(k)) + "`", markdown_cell(k->skip_reason)});
    }
  }
  if (!not_judged.rows.empty()) {
    out += "\n### Not judged\n\n" + render_markdown(not_judged);
  }
  out += "\n<details><summary>Model details: parameters and per-device intermediate values"
         "</summary>\n";
  for (const auto* k : ks) {
    out += "\n#### `" + markdown_cell(names.at(k)) + "`\n\n";
    if (names.at(k) != k->name) {
      out += "<details><summary>full name</summary>\n\n`" + markdown_cell(k->name) +
             "`\n\n</details>\n\n";
    }
    out += kernel_summary(*k) + "\n\n";
    if (!k->origin.empty()) {
      out += "From " + markdown_cell(k->origin) + ".\n\n";
    }
    if (measured_clock(*k)) {
      out += "Measured at SM clock " + fixed(*measured_clock(*k), 0) + " MHz";
      if (!k->measured->clock_limits.empty()) {
        out += "; clocks held down by: " + markdown_cell(clock_limits_list(*k->measured));
      }
      out += ".\n\n";
    }
    for (const auto& p : k->predictions) {
      if (p.clock_scale) {
        out += markdown_cell(p.device) + "'s compute peaks scaled by " + fixed(*p.clock_scale, 3) +
               " to the SM clock the kernel ran at.\n\n";
      }
    }
    if (k->predictions.empty()) {
      continue; // not predicted: its summary says why
    }
    out += render_markdown(prediction_table(*k, r.devices));
    for (const auto& note : scaling_notes(*k)) {
      out += "\n" + markdown_cell(note) + "\n";
    }
    if (k->params.model == model_kind::quantitative) {
      table costs;
      costs.header = {"device", "W_op", "W_ldst", "W_other", "C_op", "C_ldst", "C_other"};
      costs.right_aligned = {false, true, true, true, true, true, true};
      for (const auto& p : k->predictions) {
        costs.rows.push_back({p.device, fixed_or_dash(p.W_op, 2), fixed_or_dash(p.W_ldst, 2),
                              fixed_or_dash(p.W_other, 2), fixed_or_dash(p.C_op, 3),
                              fixed_or_dash(p.C_ldst, 3), fixed_or_dash(p.C_other, 3)});
      }
      out += "\n" + render_markdown(costs);
    }
    for (const auto& reason : k->result.reasons) {
      out += "\n- " + std::string(to_string(k->result.status)) + ": " + markdown_cell(reason);
    }
    out += "\n";
  }
  out += "\n</details>\n";
  return out;
}

} // namespace perfgate
