// SPDX-License-Identifier: Apache-2.0
// The sentences of a verdict: each finding's code, numbers and context written as the English
// reason a person reads. The judges (gate/) decide and fill findings; this is the one place their
// wording lives, so a tool reads codes and numbers and a person reads these.
#pragma once

#include <perfgate/report.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// The sentence of `f`, from the finding alone. Throws std::logic_error (an internal error) for
/// a code that has no sentence, or when the finding lacks a number or word its sentence needs.
[[nodiscard]] std::string finding_text(const finding& f);

/// Every code finding_text writes a sentence for, in alphabetical order.
[[nodiscard]] std::vector<std::string_view> finding_codes();

/// Appends `f` to `v`: its sentence to the reasons, the finding to the findings.
void add_finding(verdict& v, finding f);

/// Whether a work term (W_comp or W_traf) moved by more than 1%, the counters' run-to-run spread.
[[nodiscard]] bool work_term_changed(double base, double head);

/// "same work (W_comp and W_traf within 1%)" or "W_traf +38.0% (3.100 GB -> 4.278 GB)": what
/// changed in the work between two runs of a kernel.
[[nodiscard]] std::string work_change_text(double base_W_comp, double base_W_traf, double W_comp,
                                           double W_traf);

/// "name A -> B, driver 550 -> 560 (noted only)": what differs between two identities.
[[nodiscard]] std::string differences_text(const hardware_change& h);

/// "the baseline was measured on X, this run is on Y (name A -> B): ..." for stderr: why the run
/// switches to the kept build (gate/hardware_check.hpp's action "ab"), or what its verdicts will
/// warn about ("warn").
[[nodiscard]] std::string hardware_notice(const hardware_change& h);

} // namespace perfgate::detail
