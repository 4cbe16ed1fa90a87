// SPDX-License-Identifier: Apache-2.0
#include "report/writers/prediction_table.hpp"

#include "util/kernel_names.hpp"
#include "util/number_format.hpp"

#include <algorithm>
#include <cmath>

namespace perfgate::detail {

std::string kernel_summary(const kernel_report& k) {
  if (!k.skip_reason.empty()) {
    return "not predicted: " + k.skip_reason;
  }
  const auto& p = k.params;
  const std::string invocations =
      std::to_string(k.invocations) + " invocation" + (k.invocations == 1 ? "" : "s");
  if (!p.compute_declared) {
    return "bytes only, " + invocations + ": W_traf " + si_count(p.W_traf) +
           "B (declared bytes alone: judged against the memory roof; the compute side was not "
           "declared)" +
           (p.items ? ", " + si_count(*p.items) + " items" : std::string());
  }
  std::string s = std::string(to_string(p.K_type)) + ", " + std::string(to_string(p.model)) +
                  " model, " + invocations + ": W_comp " + si_count(p.W_comp) + "op, W_traf " +
                  si_count(p.W_traf) + "B, O_krn " + fixed(p.O_krn, 3) + " op/B";
  for (const auto& [type, ops] : p.tensor_ops) {
    s += ", " + std::string(to_string(type)) + " " + si_count(ops) + "op";
  }
  if (p.simt_type != p.K_type) {
    s += "; its SIMT instructions (" + std::string(to_string(p.simt_type)) + ")";
  }
  if (p.model == model_kind::quantitative) {
    s += std::string(p.simt_type != p.K_type ? ":" : ",") + " E_mix " + percent(p.E_mix) +
         ", D_ops " + percent(p.D_ops) + ", D_ldst " + percent(p.D_ldst) + ", D_other " +
         percent(p.D_other);
  } else {
    s += " (declared work: no instruction-mix terms)";
  }
  if (p.items) {
    s += ", " + si_count(*p.items) + " items";
  }
  return s;
}

std::vector<std::size_t> kernels_by_time(const report& r) {
  std::vector<std::size_t> order(r.kernels.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ma = r.kernels[a].measured;
    const auto& mb = r.kernels[b].measured;
    if (ma.has_value() != mb.has_value()) {
      return ma.has_value();
    }
    return ma && mb && ma->time_s > mb->time_s;
  });
  return order;
}

std::vector<std::string> kernel_short_names(const report& r) {
  std::vector<std::string> full;
  for (const auto& k : r.kernels) {
    full.push_back(k.name);
  }
  return short_kernel_names(full);
}

bool anything_gated(const report& r) {
  return std::any_of(r.kernels.begin(), r.kernels.end(),
                     [](const kernel_report& k) { return !k.result.device.empty(); });
}

table overview_table(const report& r, const std::vector<std::size_t>& order,
                     const std::vector<std::string>& names) {
  double total = 0;
  for (const auto& k : r.kernels) {
    total += k.measured ? k.measured->time_s : 0.0;
  }
  table t;
  t.header = {"kernel", "measured", "share"};
  t.right_aligned = {false, true, true};
  for (const auto& d : r.devices) {
    t.header.push_back(d.id + " roof");
    t.header.push_back(d.id + " predicted");
    t.right_aligned.insert(t.right_aligned.end(), {true, true});
  }
  for (const std::size_t i : order) {
    const auto& k = r.kernels[i];
    std::vector<std::string> row = {
        names[i], k.measured ? duration(k.measured->time_s) : "-",
        k.measured && total > 0 ? percent(k.measured->time_s / total, 1) : "-"};
    for (const auto& d : r.devices) {
      const auto p = std::find_if(k.predictions.begin(), k.predictions.end(),
                                  [&](const prediction& x) { return x.device == d.id; });
      row.push_back(p != k.predictions.end() ? duration(gated_time_s(*p)) : "-");
      row.push_back(p != k.predictions.end() ? duration(p->predicted_time_s) : "-");
    }
    t.rows.push_back(std::move(row));
  }
  return t;
}

std::vector<std::string> scaling_notes(const kernel_report& k) {
  std::vector<std::string> notes;
  for (const auto& p : k.predictions) {
    if (!p.scaling) {
      continue;
    }
    const auto& s = *p.scaling;
    const std::string rest = s.leftover_by == "gemm_efficiency"
                                 ? "the share of the source's GEMM efficiency that carries"
                             : s.leftover_by == "ldst_rate" ? "the SMs' load/store rate"
                                                            : "the SM clock";
    notes.push_back(p.device + ": predicted from " + duration(s.measured_time_s) +
                    " measured on " + s.measured_on + ": " + percent(s.utilisation) +
                    " of it explained by " + s.limiter + " (x" + fixed(s.resource_scale, 3) +
                    " here), the rest by " + rest + " (x" + fixed(s.leftover_scale, 3) + ")" +
                    (s.at_roof ? "; raised to this device's roof" : ""));
  }
  return notes;
}

std::string typical_error(const prediction& p, const kernel_params& k) {
  const auto a = accuracy_of(predictor_of(p, k), gated_bound(p));
  return a ? "±" + fixed(a->median_abs_error_pct, 1) + "%" : "-";
}

table prediction_table(const kernel_report& k, const std::vector<device>& devices) {
  table t;
  t.header = {"device", "T_op",      "E_instr", "T'_op", "B_mem",      "O_dev", "bound",
              "T_pred", "predicted", "error",   "roof",  "limited by", "peaks"};
  t.right_aligned = {false, true, true, true, true, true, false,
                     true,  true, true, true, false, false};
  for (std::size_t i = 0; i < k.predictions.size(); ++i) {
    const auto& p = k.predictions[i];
    std::string source;
    for (const auto& d : devices) { // by id: a merged report's kernels cover different devices
      if (d.id == p.device) {
        source = d.source;
      }
    }
    // Bytes alone: the compute columns describe work nobody declared: n/a, never a number.
    const bool compute = k.params.compute_declared;
    auto if_compute = [&](std::string text) { return compute ? text : std::string("n/a"); };
    t.rows.push_back({p.device, if_compute(fixed(p.T_op, 2)), if_compute(percent(p.E_instr)),
                      if_compute(fixed(p.T_op_adj, 2)), fixed(p.B_mem, 2),
                      if_compute(fixed(p.O_dev, 3)), std::string(to_string(p.bound)),
                      if_compute(fixed(p.T_pred, 2)), duration(p.predicted_time_s),
                      typical_error(p, k.params), p.roof ? duration(p.roof->time_s) : "-",
                      p.roof ? limiter_text(*p.roof) : "-", source});
  }
  return t;
}

} // namespace perfgate::detail
