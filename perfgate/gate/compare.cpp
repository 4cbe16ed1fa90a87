// SPDX-License-Identifier: Apache-2.0
#include <perfgate/compare.hpp>
#include <perfgate/version.hpp>

#include "gate/efficiency_change.hpp"
#include "report/finding_text.hpp"
#include "report/writers/suite_summary.hpp"
#include "util/number_format.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace perfgate {

namespace {
using detail::fixed;

// The kernel of `r` that `like` is compared with: the one of its name judged on the same device.
// A merged report holds a kernel once per runner, so a name alone would pair one runner's
// kernel with another's; a report with the name once pairs it whatever the device (one
// runner's run against another's baseline, as before).
const kernel_report* find_kernel(const report& r, const kernel_report& like) {
  const kernel_report* by_name = nullptr;
  std::size_t named = 0;
  for (const auto& k : r.kernels) {
    if (k.name != like.name) {
      continue;
    }
    if (k.result.device == like.result.device) {
      return &k;
    }
    by_name = &k;
    ++named;
  }
  return named == 1 ? by_name : nullptr;
}

std::optional<double> delta(const std::optional<double>& a, const std::optional<double>& b) {
  if (a && b) {
    return *b - *a;
  }
  return std::nullopt;
}

double relative(double base, double head) { return base > 0 ? (head - base) / base : 0.0; }

std::string percent_change(double v) { return detail::signed_percent(v, 1); }

int rank(const kernel_comparison& k) { return k.failed() ? 0 : !k.warnings.empty() ? 1 : 2; }

void compare_kernel(const kernel_report& b, const kernel_report& h, const compare_policy& policy,
                    kernel_comparison& out, std::vector<stats::kernel_ratio>& suite) {
  if (b.params.compute_declared && h.params.compute_declared) {
    out.W_comp_change = relative(b.params.W_comp, h.params.W_comp);
  }
  out.W_traf_change = relative(b.params.W_traf, h.params.W_traf);
  out.D_ops_change = delta(b.params.D_ops, h.params.D_ops);
  out.D_ldst_change = delta(b.params.D_ldst, h.params.D_ldst);
  out.E_mix_change = delta(b.params.E_mix, h.params.E_mix);
  for (const auto& [what, change] :
       {std::pair{"W_comp (operations)", out.W_comp_change.value_or(0.0)},
        std::pair{"W_traf (DRAM bytes)", out.W_traf_change}}) {
    if (change > policy.max_work_increase) {
      out.failures.push_back(std::string(what) + " grew " + percent_change(change) +
                             ", more than the allowed " + percent_change(policy.max_work_increase));
    }
  }
  for (const auto& hp : h.predictions) {
    for (const auto& bp : b.predictions) {
      if (bp.device != hp.device || gated_bound(bp) == gated_bound(hp)) {
        continue;
      }
      class_change c{hp.device, gated_bound(bp), gated_bound(hp),
                     std::fabs(h.params.O_krn / gated_ridge(hp) - 1.0) <= policy.ridge_margin};
      const std::string what =
          "class changed on " + hp.device + ": " + std::string(to_string(c.before)) + "-bound -> " +
          std::string(to_string(c.after)) + "-bound (O_krn " + fixed(b.params.O_krn, 3) + " -> " +
          fixed(h.params.O_krn, 3) + (hp.roof ? ", O_ridge " : ", O_dev ") +
          fixed(gated_ridge(hp), 3) + " op/B)";
      (c.near_ridge ? out.warnings : out.failures)
          .push_back(what + (c.near_ridge ? "; on the ridge, so a warning" : ""));
      out.class_changes.push_back(c);
    }
  }
  // Efficiencies against the roof (format 2) and against the model (format 1) do not compare.
  const bool comparable =
      !b.predictions.empty() && !h.predictions.empty() &&
      b.predictions.front().roof.has_value() == h.predictions.front().roof.has_value();
  if (b.result.efficiency && h.result.efficiency && b.result.device == h.result.device &&
      !comparable) {
    out.warnings.push_back("efficiencies not compared: one report judges against the roof "
                           "(format 2), the other against the model's predicted time (format 1)");
  }
  if (b.result.efficiency && h.result.efficiency && b.result.device == h.result.device &&
      comparable) {
    out.base_efficiency = b.result.efficiency;
    out.head_efficiency = h.result.efficiency;
    out.device = h.result.device;
    const detail::efficiency_sides base{
        *b.result.efficiency, {detail::efficiency_samples(b, *b.result.efficiency)}, std::nullopt};
    const detail::efficiency_sides head{
        *h.result.efficiency, {detail::efficiency_samples(h, *h.result.efficiency)}, std::nullopt};
    finding_context said;
    said.words = {{"device", out.device}, {"base", "base"}};
    auto judged = detail::judge_efficiency(base, head, policy.max_efficiency_drop,
                                           policy.confidence, policy.run_spread, said);
    out.change = judged.change;
    if (judged.suite_part) {
      suite.push_back(std::move(*judged.suite_part));
    }
    for (auto [from, to] :
         {std::pair{&judged.failures, &out.failures}, std::pair{&judged.warnings, &out.warnings},
          std::pair{&judged.notes, &out.notes}}) {
      for (const auto& found : *from) {
        to->push_back(detail::finding_text(found));
      }
    }
  }
}
} // namespace

bool comparison::failed() const {
  return std::any_of(kernels.begin(), kernels.end(), [](const auto& k) { return k.failed(); });
}

comparison compare_reports(const report& base, const report& head, const compare_policy& policy) {
  comparison c;
  c.base_file = base.profile_file;
  c.head_file = head.profile_file;
  std::vector<stats::kernel_ratio> suite;
  for (const auto& h : head.kernels) {
    kernel_comparison k;
    k.name = h.name;
    const kernel_report* b = find_kernel(base, h);
    if (b != nullptr && (!b->skip_reason.empty() || !h.skip_reason.empty())) {
      const bool in_head = !h.skip_reason.empty();
      k.warnings.push_back(std::string("not compared: cannot be judged in the ") +
                           (in_head ? "head" : "base") + " report (" +
                           (in_head ? h.skip_reason : b->skip_reason) + ")");
    } else if (b != nullptr) {
      compare_kernel(*b, h, policy, k, suite);
    } else {
      k.in_base = false;
      k.warnings.push_back("new kernel: not in the base report");
    }
    c.kernels.push_back(std::move(k));
  }
  for (const auto& b : base.kernels) {
    if (find_kernel(head, b) == nullptr) {
      kernel_comparison k;
      k.name = b.name;
      k.in_head = false;
      k.warnings.push_back("kernel gone: in the base report only");
      c.kernels.push_back(std::move(k));
    }
  }
  std::stable_sort(c.kernels.begin(), c.kernels.end(),
                   [](const auto& a, const auto& b) { return rank(a) < rank(b); });
  if (!suite.empty()) {
    c.suite = stats::summarize_suite(suite, policy.confidence);
  }
  return c;
}

std::string comparison_to_markdown(const comparison& c) {
  detail::table t;
  t.header = {"", "kernel", "efficiency", "W_comp", "W_traf", "D_ops", "D_ldst", "class changes"};
  t.right_aligned = {false, false, true, true, true, true, true, false};
  std::size_t failed = 0, warned = 0;
  for (const auto& k : c.kernels) {
    failed += k.failed() ? 1 : 0;
    warned += !k.failed() && !k.warnings.empty() ? 1 : 0;
    std::string eff = "-";
    if (k.base_efficiency && k.head_efficiency) {
      const auto [base, head] = detail::told_apart(*k.base_efficiency, *k.head_efficiency, 2);
      eff = base + " → " + head +
            (k.change ? " " + std::string(stats::to_string(k.change->kind)) : "");
    }
    std::string classes;
    for (const auto& cc : k.class_changes) {
      classes += (classes.empty() ? "" : ", ") + cc.device + ": " +
                 std::string(to_string(cc.before)) + " → " + std::string(to_string(cc.after));
    }
    const bool both = k.in_base && k.in_head;
    auto pp = [](const std::optional<double>& d) {
      return d ? (*d >= 0 ? "+" : "") + fixed(*d * 100, 2) + " pp" : std::string("-");
    };
    t.rows.push_back({k.failed()            ? "❌"
                      : !k.warnings.empty() ? "⚠️"
                                            : "✅",
                      "`" + k.name + "`", eff,
                      both && k.W_comp_change ? percent_change(*k.W_comp_change) : "-",
                      both ? percent_change(k.W_traf_change) : "-", pp(k.D_ops_change),
                      pp(k.D_ldst_change), classes.empty() ? "-" : classes});
  }
  std::string out = "## perfgate compare\n\n";
  if (c.suite) { // the suite in one figure first
    out += "**" + detail::suite_line(*c.suite) + "**\n\n";
  }
  out += "`" + detail::markdown_cell(c.base_file) + "` → `" + detail::markdown_cell(c.head_file) +
         "`: " + std::to_string(c.kernels.size()) + " kernels, " + std::to_string(failed) +
         " regressed, " + std::to_string(warned) + " with warnings.\n\n" +
         detail::render_markdown(t);
  for (const auto& k : c.kernels) {
    for (const auto& f : k.failures) {
      out += "\n- ❌ `" + detail::markdown_cell(k.name) + "`: " + f;
    }
    for (const auto& w : k.warnings) {
      out += "\n- ⚠️ `" + detail::markdown_cell(k.name) + "`: " + w;
    }
  }
  return out + "\n";
}

std::string comparison_to_json(const comparison& c) {
  using nlohmann::json;
  auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
  json j = {{"schema", comparison_schema},
            {"base", c.base_file},
            {"head", c.head_file},
            {"failed", c.failed()},
            {"suite", c.suite ? detail::suite_json(*c.suite) : json(nullptr)},
            {"kernels", json::array()}};
  for (const auto& k : c.kernels) {
    json classes = json::array();
    for (const auto& cc : k.class_changes) {
      classes.push_back({{"device", cc.device},
                         {"before", to_string(cc.before)},
                         {"after", to_string(cc.after)},
                         {"near_ridge", cc.near_ridge}});
    }
    j["kernels"].push_back(
        {{"name", k.name},
         {"in_base", k.in_base},
         {"in_head", k.in_head},
         {"device", k.device},
         {"base_efficiency", opt(k.base_efficiency)},
         {"head_efficiency", opt(k.head_efficiency)},
         {"W_comp_change", opt(k.W_comp_change)},
         {"W_traf_change", k.W_traf_change},
         {"D_ops_change", opt(k.D_ops_change)},
         {"D_ldst_change", opt(k.D_ldst_change)},
         {"E_mix_change", opt(k.E_mix_change)},
         {"change", k.change
                        ? json{{"kind", stats::to_string(k.change->kind)},
                               {"beyond_allowed", k.change->beyond_allowed},
                               {"time_ratio",
                                {k.change->ratio.lo, k.change->ratio.estimate, k.change->ratio.hi}},
                               {"p_two_sided", k.change->test.p_two_sided()}}
                        : json(nullptr)},
         {"notes", k.notes},
         {"class_changes", classes},
         {"failures", k.failures},
         {"warnings", k.warnings}});
  }
  return j.dump(2) + "\n";
}

} // namespace perfgate
