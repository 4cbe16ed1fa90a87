// SPDX-License-Identifier: Apache-2.0
// GitHub-flavoured Markdown: a section per kernel, a table row per device, details collapsed.
#include <perfgate/report.hpp>

#include "number_format.hpp"
#include "prediction_table.hpp"
#include "table.hpp"

namespace perfgate {

std::string report_to_markdown(const report& r) {
  using namespace detail;
  std::string out = "## perfgate predictions\n\n";
  out += "Profile `" + markdown_cell(r.profile_file) + "` (" + r.profile_format;
  if (!r.profile_device.empty()) {
    out += ", taken on " + markdown_cell(r.profile_device);
  }
  out += "). Rates in 1e9/s (GFLOPS, GIOPS, GB/s); predicted times are lower bounds.\n";
  for (const auto& k : r.kernels) {
    out += "\n### `" + markdown_cell(k.name) + "`\n\n";
    out += kernel_summary(k) + "\n\n";
    out += render_markdown(prediction_table(k, r.devices));
    if (k.params.model == model_kind::quantitative) {
      table costs;
      costs.header = {"device", "W_op", "W_ldst", "W_other", "C_op", "C_ldst", "C_other"};
      costs.right_aligned = {false, true, true, true, true, true, true};
      for (const auto& p : k.predictions) {
        costs.rows.push_back({p.device, fixed_or_dash(p.W_op, 2), fixed_or_dash(p.W_ldst, 2),
                              fixed_or_dash(p.W_other, 2), fixed_or_dash(p.C_op, 3),
                              fixed_or_dash(p.C_ldst, 3), fixed_or_dash(p.C_other, 3)});
      }
      out += "\n<details><summary>Instruction costs per device</summary>\n\n" +
             render_markdown(costs) + "\n</details>\n";
    }
    for (const auto& reason : k.result.reasons) {
      out += "\n*" + std::string(to_string(k.result.status)) + "*: " + markdown_cell(reason) + "\n";
    }
  }
  return out;
}

} // namespace perfgate
