// SPDX-License-Identifier: Apache-2.0
#include "report/writers/prediction_table.hpp"

#include "util/number_format.hpp"

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

std::vector<std::string> scaling_notes(const kernel_report& k) {
  std::vector<std::string> notes;
  for (const auto& p : k.predictions) {
    if (!p.scaling) {
      continue;
    }
    const auto& s = *p.scaling;
    notes.push_back(p.device + ": predicted from " + duration(s.measured_time_s) +
                    " measured on " + s.measured_on + ": " + percent(s.utilisation) +
                    " of it explained by " + s.limiter + " (x" + fixed(s.resource_scale, 3) +
                    " here), the rest by the SM clock (x" + fixed(s.clock_scale, 3) + ")" +
                    (s.at_roof ? "; raised to this device's roof" : ""));
  }
  return notes;
}

table prediction_table(const kernel_report& k, const std::vector<device>& devices) {
  table t;
  t.header = {"device", "T_op",   "E_instr",   "T'_op", "B_mem",      "O_dev",
              "bound",  "T_pred", "predicted", "roof",  "limited by", "peaks"};
  t.right_aligned = {false, true, true, true, true, true, false, true, true, true, false, false};
  for (std::size_t i = 0; i < k.predictions.size(); ++i) {
    const auto& p = k.predictions[i];
    std::string source;
    for (const auto& d : devices) { // by id: a merged report's kernels cover different devices
      if (d.id == p.device) {
        source = d.source;
      }
    }
    // Bytes alone: the compute columns describe work nobody declared, so they stay empty.
    const bool compute = k.params.compute_declared;
    auto if_compute = [&](std::string text) { return compute ? text : std::string("-"); };
    t.rows.push_back({p.device, if_compute(fixed(p.T_op, 2)), if_compute(percent(p.E_instr)),
                      if_compute(fixed(p.T_op_adj, 2)), fixed(p.B_mem, 2),
                      if_compute(fixed(p.O_dev, 3)), std::string(to_string(p.bound)),
                      if_compute(fixed(p.T_pred, 2)), duration(p.predicted_time_s),
                      p.roof ? duration(p.roof->time_s) : "-", p.roof ? limiter_text(*p.roof) : "-",
                      source});
  }
  return t;
}

} // namespace perfgate::detail
