// SPDX-License-Identifier: Apache-2.0
#include "history/history.hpp"

#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "gate/efficiency_change.hpp"
#include "util/json_fields.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>

namespace perfgate::history {

namespace {

constexpr std::string_view schema_id = history_schema;

// The keys of a history line (to_lines, to_line write them): a key in no list is refused with
// the nearest known one, never ignored.
constexpr std::string_view entry_keys[] = {"schema", "commit", "date",   "kernel", "device",
                                           "efficiency", "runs", "W_comp", "W_traf"};

entry entry_from(const detail::json_fields& f) {
  f.known_keys(entry_keys);
  entry e;
  e.commit = f.string("commit");
  e.date = f.string_or("date", "");
  e.kernel = f.string("kernel");
  e.device = f.string("device");
  e.efficiency = f.positive("efficiency");
  e.runs = f.positive_arrays("runs");
  for (std::size_t i = 0; i < e.runs.size(); ++i) {
    if (e.runs[i].empty()) {
      f.fail("runs", "run " + std::to_string(i) + " has no sample");
    }
  }
  e.W_comp = f.has("W_comp") ? f.non_negative("W_comp") : 0;
  e.W_traf = f.has("W_traf") ? f.non_negative("W_traf") : 0;
  return e;
}

// A point of the series: the fastest run median of the runs' 1 / efficiency (larger is slower).
double floor_of(const stats::runs& runs) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& times : stats::relative_times(runs)) {
    best = std::min(best, stats::median(times));
  }
  return best;
}

} // namespace

store read_history(std::string_view text, const std::string& file) {
  store s;
  std::size_t line_no = 0;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    at = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) {
      continue;
    }
    const std::string where = file + ":" + std::to_string(line_no);
    const nlohmann::json j = detail::json_fields::parse(line, where);
    const detail::json_fields f(j, where, "");
    (void)f.schema({schema_id});
    if (f.has("mute")) {
      f.known_keys({"schema", "mute"});
      const auto m = f.object("mute");
      m.known_keys({"kernel", "muted", "reason", "date"});
      s.mutes.push_back({m.string("kernel"), m.boolean("muted"), m.string_or("reason", ""),
                         m.string_or("date", "")});
    } else {
      s.entries.push_back(entry_from(f));
    }
  }
  return s;
}

std::vector<entry> entries_of(const report& r, const std::string& commit,
                              const std::string& date) {
  std::vector<entry> out;
  for (const auto& k : r.kernels) {
    if (!k.result.efficiency) {
      continue; // nothing measured against a roof: no point of a series
    }
    entry e;
    e.commit = commit;
    e.date = date;
    e.kernel = k.name;
    e.device = !k.result.device.empty() ? k.result.device
               : !r.devices.empty()     ? r.devices.front().id
                                        : std::string();
    e.efficiency = *k.result.efficiency;
    auto first = detail::efficiency_samples(k, *k.result.efficiency);
    e.runs.push_back(first.empty() ? std::vector<double>{*k.result.efficiency} : first);
    e.runs.insert(e.runs.end(), k.result.confirmation_runs.begin(),
                  k.result.confirmation_runs.end());
    e.W_comp = k.params.W_comp;
    e.W_traf = k.params.W_traf;
    out.push_back(std::move(e));
  }
  return out;
}

std::string to_lines(const std::vector<entry>& entries) {
  std::string out;
  for (const auto& e : entries) {
    nlohmann::json j = {{"schema", schema_id}, {"commit", e.commit}, {"date", e.date},
                        {"kernel", e.kernel},  {"device", e.device}, {"efficiency", e.efficiency},
                        {"runs", e.runs},      {"W_comp", e.W_comp}, {"W_traf", e.W_traf}};
    if (!(e.W_comp > 0)) { // no operations declared (bytes alone): absent, never 0
      j.erase("W_comp");
    }
    out += j.dump() + "\n";
  }
  return out;
}

std::string to_line(const mute& m) {
  const nlohmann::json j = {
      {"schema", schema_id},
      {"mute", {{"kernel", m.kernel}, {"muted", m.muted}, {"reason", m.reason}, {"date", m.date}}}};
  return j.dump() + "\n";
}

std::vector<series> trends(const store& s, const stats::change_point_options& options) {
  // Series keyed by (kernel, device) in order of first appearance; commits likewise, an entry
  // of a commit already seen adding its runs to that commit's point.
  std::vector<series> out;
  std::vector<std::vector<stats::runs>> runs_by_commit;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& e : s.entries) {
    const auto key = std::pair{e.kernel, e.device};
    auto [it, added] = index.emplace(key, out.size());
    if (added) {
      out.push_back({e.kernel, e.device, {}, {}, {}, {}, {}, false, {}});
      runs_by_commit.emplace_back();
    }
    series& t = out[it->second];
    auto& commits = runs_by_commit[it->second];
    const auto c = std::find(t.commits.begin(), t.commits.end(), e.commit);
    if (c == t.commits.end()) {
      t.commits.push_back(e.commit);
      t.dates.push_back(e.date);
      commits.push_back(e.runs);
    } else {
      auto& runs = commits[static_cast<std::size_t>(c - t.commits.begin())];
      runs.insert(runs.end(), e.runs.begin(), e.runs.end());
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    series& t = out[i];
    for (const auto& runs : runs_by_commit[i]) {
      t.points.push_back(floor_of(runs));
      t.runs.push_back(runs.size());
    }
    t.changes = stats::find_change_points(t.points, options);
    for (const auto& m : s.mutes) {
      if (m.kernel == t.kernel) {
        t.muted = m.muted;
        t.mute_reason = m.reason;
      }
    }
  }
  return out;
}

} // namespace perfgate::history
