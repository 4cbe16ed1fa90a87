// SPDX-License-Identifier: Apache-2.0
#include "importers/rocprof_importer.hpp"

#include <perfgate/error.hpp>

#include "importers/amd_counters.hpp"
#include "importers/csv_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace perfgate::detail {

namespace {
using totals_map = std::map<std::string, double, std::less<>>;

struct dispatch_rows {
  std::string kernel;
  std::string first_where;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> timestamps; ///< start, end (ns)
  std::optional<launch_config> launch;
  totals_map whole;     ///< counters reported as a total (base name or "_sum")
  totals_map instances; ///< counters reported per block instance ("[i]"), summed
  std::map<std::string, std::string, std::less<>> where_of; ///< reported name -> line/key
};

struct kernel_totals {
  std::uint64_t dispatches = 0;
  totals_map totals;
  std::map<std::string, std::uint64_t, std::less<>> seen; ///< counter -> dispatches having it
  std::vector<double> durations_s;
  bool all_timed = true;
  std::optional<launch_config> launch;

  [[nodiscard]] totals_map complete() const {
    // A counter some dispatches lack gives no total: it is missing, never a partial sum.
    totals_map out;
    for (const auto& [name, total] : totals) {
      if (seen.at(name) == dispatches) {
        out[name] = total;
      }
    }
    return out;
  }
};

struct counter_table {
  std::string file;
  std::vector<std::string> order; ///< kernel names in order of first dispatch
  std::map<std::string, kernel_totals, std::less<>> kernels;
  std::string agent;
  std::optional<int> wave_size;
  std::set<std::string, std::less<>> reported; ///< base names of every counter in the file
};

const amd_arch& formulas_for(std::string_view arch) {
  if (const amd_arch* a = find_amd_arch(arch)) {
    return *a;
  }
  return amd_any_arch();
}

// What each table should be, for error messages.
constexpr std::string_view counter_csv = "rocprofv3 counter_collection.csv";
constexpr std::string_view trace_csv = "rocprofv3 kernel_trace.csv";

// The rows of a CSV table that must have at least its header; `expected` names the file kind.

std::vector<csv_row> read_table(std::string_view text, const std::string& file,
                                std::string_view expected) {
  auto rows = read_csv(text, file);
  if (rows.empty()) {
    throw input_error(file, "", "the file is empty, expected " + std::string(expected));
  }
  return rows;
}

std::optional<std::uint64_t> parse_count(std::string_view s) {
  while (!s.empty() && s.front() == ' ') {
    s.remove_prefix(1);
  }
  while (!s.empty() && s.back() == ' ') {
    s.remove_suffix(1);
  }
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) {
    return std::nullopt;
  }
  return v;
}

std::uint64_t integer_field(const csv_row& row, std::size_t col, std::string_view column,
                            const std::string& file) {
  const auto v = parse_count(row.fields[col]);
  if (!v) {
    throw input_error(file, std::to_string(row.line),
                      "\"" + std::string(column) + "\" is \"" + row.fields[col] +
                          "\", expected a non-negative integer");
  }
  return *v;
}

// Start and end of a dispatch in ns, when the file has both columns (named as `header` names
// them: Start_Timestamp/End_Timestamp, or rocprof v1's BeginNs/EndNs).
std::optional<std::pair<std::uint64_t, std::uint64_t>>
timestamps_of(const csv_row& row, const csv_row& header, std::optional<std::size_t> start_col,
              std::optional<std::size_t> end_col, const std::string& file) {
  if (!start_col || !end_col) {
    return std::nullopt;
  }
  const std::string& start_name = header.fields[*start_col];
  const std::string& end_name = header.fields[*end_col];
  const auto start = integer_field(row, *start_col, start_name, file);
  const auto end = integer_field(row, *end_col, end_name, file);
  if (end < start) {
    throw input_error(file, std::to_string(row.line),
                      end_name + " " + std::to_string(end) + " is before " + start_name + " " +
                          std::to_string(start));
  }
  return std::make_pair(start, end);
}

// rocprofv3 writes Grid_Size and Workgroup_Size as work-item counts (the product over x, y, z):
// the launch is recorded as a 1-D grid of workgroups.
std::optional<launch_config> launch_of(const csv_row& row, std::optional<std::size_t> grid_col,
                                       std::optional<std::size_t> wg_col) {
  if (!grid_col || !wg_col) {
    return std::nullopt;
  }
  const auto grid = parse_count(row.fields[*grid_col]);
  const auto wg = parse_count(row.fields[*wg_col]);
  if (!grid || !wg || *wg == 0 || *grid == 0 || *grid % *wg != 0) {
    return std::nullopt;
  }
  launch_config l;
  l.grid = {*grid / *wg, 1, 1};
  l.block = {*wg, 1, 1};
  return l;
}

// The columns that describe a dispatch, in the long (one row per counter) and the wide (one
// column per counter) layouts alike.
struct dispatch_columns {
  std::size_t dispatch = 0;
  std::size_t kernel = 0;
  std::optional<std::size_t> agent, process, wave, grid, workgroup, start, end;
};

// A row's dispatch: everything of a record but its counter.
amd_counter_record dispatch_record(const csv_row& row, const csv_row& header,
                                   const dispatch_columns& c, const std::string& file) {
  check_row_width(row, header, file);
  amd_counter_record r;
  r.where = std::to_string(row.line);
  r.dispatch = integer_field(row, c.dispatch, header.fields[c.dispatch], file);
  r.kernel = row.fields[c.kernel];
  r.agent = c.agent ? row.fields[*c.agent] : std::string();
  r.process = c.process ? row.fields[*c.process] : std::string();
  if (c.wave) {
    r.wave_size = integer_field(row, *c.wave, header.fields[*c.wave], file);
  }
  r.timestamps = timestamps_of(row, header, c.start, c.end, file);
  r.launch = launch_of(row, c.grid, c.workgroup);
  return r;
}

bool first_line_has(std::string_view text, std::initializer_list<std::string_view> names,
                    std::initializer_list<std::string_view> absent) {
  // The header is the first line that is neither blank nor profiler chatter ("==...").
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t eol = text.find('\n', i);
    const std::string_view line =
        text.substr(i, eol == std::string_view::npos ? text.size() - i : eol - i);
    const auto first = line.find_first_not_of(" \t\r");
    if (first != std::string_view::npos && !line.substr(first).starts_with("==")) {
      return std::all_of(names.begin(), names.end(),
                         [&](std::string_view n) { return line.find(n) != line.npos; }) &&
             std::none_of(absent.begin(), absent.end(),
                          [&](std::string_view n) { return line.find(n) != line.npos; });
    }
    if (eol == std::string_view::npos) {
      break;
    }
    i = eol + 1;
  }
  return false;
}

// "line 12" for a line number, the key itself otherwise.
std::string place(const std::string& where) {
  return !where.empty() && std::all_of(where.begin(), where.end(),
                                       [](char c) { return c >= '0' && c <= '9'; })
             ? "line " + where
             : where;
}

// Dispatches gathered record by record, then aggregated per kernel name.
class table_builder {
public:
  table_builder(std::string file, const amd_arch& formulas)
      : m_used(amd_metrics_used(formulas)) {
    m_table.file = std::move(file);
  }

  void add(const amd_counter_record& r) {
    const std::string& file = m_table.file;
    if (r.kernel.empty()) {
      throw input_error(file, r.where, "empty kernel name");
    }
    if (m_table.agent.empty()) {
      m_table.agent = r.agent;
    }
    if (r.wave_size) {
      const auto w = *r.wave_size;
      if (w != 32 && w != 64) {
        throw input_error(file, r.where,
                          "the wavefront size is " + std::to_string(w) + ", expected 32 or 64");
      }
      if (m_table.wave_size && static_cast<std::uint64_t>(*m_table.wave_size) != w) {
        throw input_error(file, r.where,
                          "the wavefront size is " + std::to_string(w) + " here but " +
                              std::to_string(*m_table.wave_size) + " on " + place(m_wave_where) +
                              "; a profile must come from one GPU");
      }
      if (!m_table.wave_size) {
        m_table.wave_size = static_cast<int>(w);
        m_wave_where = r.where;
      }
    }
    const dispatch_key key{r.process, r.agent, r.dispatch};
    auto [pos, inserted] = m_index.try_emplace(key, m_dispatches.size());
    if (inserted) {
      dispatch_rows d;
      d.kernel = r.kernel;
      d.first_where = r.where;
      d.timestamps = r.timestamps;
      d.launch = r.launch;
      m_dispatches.push_back(std::move(d));
    }
    dispatch_rows& d = m_dispatches[pos->second];
    if (d.kernel != r.kernel) {
      throw input_error(file, r.where,
                        "dispatch " + std::to_string(r.dispatch) + " is kernel '" + r.kernel +
                            "' here but '" + d.kernel + "' on " + place(d.first_where));
    }
    if (r.counter.empty()) {
      throw input_error(file, r.where, "empty counter name");
    }
    bool instance = false;
    const std::string base = amd_base_counter_name(r.counter, &instance);
    m_table.reported.insert(base);
    if (std::find(m_used.begin(), m_used.end(), base) == m_used.end()) {
      return; // a counter the model does not use (ratios may legitimately be "nan")
    }
    if (const auto seen = d.where_of.find(r.counter); seen != d.where_of.end()) {
      throw input_error(file, r.where,
                        "counter " + r.counter + " of dispatch " + std::to_string(r.dispatch) +
                            " appears again (first on " + place(seen->second) + ")");
    }
    d.where_of[r.counter] = r.where;
    if (!r.value || *r.value < 0) {
      throw input_error(file, r.where,
                        "counter " + r.counter + ": value \"" + r.value_text +
                            "\" is not a number >= 0: " +
                            (r.value ? std::string("expected a count") :
                                       number_expectation(r.value_text)));
    }
    if (instance) {
      d.instances[base] += *r.value;
    } else if (!d.whole.contains(base)) {
      d.whole[base] = *r.value; // "X" and "X_sum" are the same total: keep the first
    }
  }

  [[nodiscard]] counter_table finish(const std::string& empty_where) && {
    if (m_dispatches.empty()) {
      throw input_error(m_table.file, empty_where, "the table has no dispatches");
    }
    for (auto& d : m_dispatches) {
      auto [kit, inserted] = m_table.kernels.try_emplace(d.kernel);
      if (inserted) {
        m_table.order.push_back(d.kernel);
      }
      kernel_totals& k = kit->second;
      ++k.dispatches;
      if (!k.launch) {
        k.launch = d.launch;
      }
      if (d.timestamps) {
        k.durations_s.push_back(
            static_cast<double>(d.timestamps->second - d.timestamps->first) * 1e-9);
      } else {
        k.all_timed = false;
      }
      // A whole-block total wins over instances of the same counter.
      totals_map values = d.instances;
      for (const auto& [name, v] : d.whole) {
        values[name] = v;
      }
      for (const auto& [name, v] : values) {
        k.totals[name] += v;
        ++k.seen[name];
      }
    }
    return std::move(m_table);
  }

private:
  // Dispatch ids are unique per process; agents and processes keep joined files apart.
  using dispatch_key = std::tuple<std::string, std::string, std::uint64_t>;
  std::vector<std::string_view> m_used;
  counter_table m_table;
  std::string m_wave_where;
  std::map<dispatch_key, std::size_t> m_index;
  std::vector<dispatch_rows> m_dispatches;
};

} // namespace

amd_record_file read_rocprof_csv_records(std::string_view text, const std::string& file) {
  const auto rows = read_table(text, file, counter_csv);
  const csv_row& header = rows.front();
  dispatch_columns cols;
  cols.dispatch = required_column(header, "Dispatch_Id", file, counter_csv);
  cols.kernel = required_column(header, "Kernel_Name", file, counter_csv);
  const std::size_t name_col = required_column(header, "Counter_Name", file, counter_csv);
  const std::size_t value_col = required_column(header, "Counter_Value", file, counter_csv);
  cols.agent = find_column(header, "Agent_Id");
  // `rocpd convert` writes the database GUID in a "Pid" column; Process_Id is the process.
  cols.process = find_column(header, "Process_Id");
  cols.start = find_column(header, "Start_Timestamp");
  cols.end = find_column(header, "End_Timestamp");
  cols.wave = find_column(header, "Wave_Front_Size");
  cols.grid = find_column(header, "Grid_Size");
  cols.workgroup = find_column(header, "Workgroup_Size");

  amd_record_file out{file, std::to_string(header.line), {}};
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    const csv_row& row = *it;
    amd_counter_record r = dispatch_record(row, header, cols, file);
    r.counter = row.fields[name_col];
    r.value_text = row.fields[value_col];
    r.value = parse_profiler_number(r.value_text);
    out.records.push_back(std::move(r));
  }
  return out;
}

namespace {
// The first of `names` that `header` has.
std::optional<std::size_t> any_column(const csv_row& header,
                                      std::initializer_list<std::string_view> names) {
  for (auto n : names) {
    if (auto c = find_column(header, n)) {
      return c;
    }
  }
  return std::nullopt;
}

// rocprof v1 `results.csv` / rocprofv2 / Omniperf `pmc_perf.csv`: one row per dispatch, one
// column per counter (per-channel counters as "TCC_EA_RDREQ[n]").
amd_record_file read_wide_records(std::string_view text, const std::string& file) {
  const auto rows = read_table(text, file, "a rocprof results.csv");
  const csv_row& header = rows.front();
  const auto dispatch_col = any_column(header, {"Index", "Dispatch_ID"});
  const auto kernel_col = any_column(header, {"KernelName", "Kernel_Name"});
  if (!dispatch_col || !kernel_col) {
    throw input_error(file, std::to_string(header.line),
                      "the header has no \"Index\"/\"Dispatch_ID\" or no \"KernelName\"/"
                      "\"Kernel_Name\" column (expected a rocprof v1/v2 results.csv)");
  }
  dispatch_columns cols;
  cols.dispatch = *dispatch_col;
  cols.kernel = *kernel_col;
  cols.agent = any_column(header, {"gpu-id", "GPU_ID"});
  cols.process = any_column(header, {"pid", "PID"});
  cols.wave = any_column(header, {"wave_size", "Wave_Size"});
  cols.grid = any_column(header, {"grd", "Grid_Size"});
  cols.workgroup = any_column(header, {"wgr", "Workgroup_Size"});
  cols.start = find_column(header, "BeginNs");
  cols.end = find_column(header, "EndNs");
  if (!cols.start || !cols.end) {
    cols.start = find_column(header, "Start_Timestamp");
    cols.end = find_column(header, "End_Timestamp");
  }
  // Counter columns: those whose base name some architecture's formulas use.
  const auto used = amd_metrics_used(amd_any_arch());
  std::vector<std::size_t> counter_cols;
  for (std::size_t c = 0; c < header.fields.size(); ++c) {
    const std::string base = amd_base_counter_name(header.fields[c]);
    if (std::find(used.begin(), used.end(), base) != used.end()) {
      counter_cols.push_back(c);
    }
  }
  amd_record_file out{file, std::to_string(header.line), {}};
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    const csv_row& row = *it;
    amd_counter_record r = dispatch_record(row, header, cols, file);
    if (counter_cols.empty()) {
      r.counter = "(none)"; // registers the dispatch; its counters are all missing
      r.value = 0;
      out.records.push_back(r);
    }
    for (const std::size_t c : counter_cols) {
      r.counter = header.fields[c];
      r.value_text = row.fields[c];
      r.value = parse_profiler_number(r.value_text);
      out.records.push_back(r);
    }
  }
  return out;
}

counter_table build_table(const amd_record_file& f, const amd_arch& formulas) {
  table_builder b(f.file, formulas);
  for (const auto& r : f.records) {
    b.add(r);
  }
  return std::move(b).finish(f.empty_where);
}

void merge_pass(counter_table& into, const counter_table& pass) {
  for (const auto& name : pass.order) {
    const kernel_totals& k = pass.kernels.at(name);
    auto [it, inserted] = into.kernels.try_emplace(name, k);
    if (inserted) {
      into.order.push_back(name);
      continue;
    }
    kernel_totals& m = it->second;
    if (m.dispatches != k.dispatches) {
      throw input_error(pass.file, "",
                        "kernel '" + name + "' has " + std::to_string(k.dispatches) +
                            " dispatches here but " + std::to_string(m.dispatches) + " in " +
                            into.file + "; the passes must profile identical runs");
    }
    for (const auto& [counter, total] : k.complete()) {
      if (!m.seen.contains(counter) || m.seen.at(counter) != m.dispatches) {
        m.totals[counter] = total;
        m.seen[counter] = k.dispatches;
      }
    }
    if (!m.all_timed && k.all_timed) {
      m.durations_s = k.durations_s;
      m.all_timed = true;
    }
    if (!m.launch) {
      m.launch = k.launch;
    }
  }
  if (into.agent.empty()) {
    into.agent = pass.agent;
  }
  into.reported.insert(pass.reported.begin(), pass.reported.end());
  if (pass.wave_size && into.wave_size && *pass.wave_size != *into.wave_size) {
    throw input_error(pass.file, "",
                      "\"Wave_Front_Size\" is " + std::to_string(*pass.wave_size) + " here but " +
                          std::to_string(*into.wave_size) + " in " + into.file);
  }
  if (!into.wave_size) {
    into.wave_size = pass.wave_size;
  }
}

std::string device_name_of(std::string_view arch, const std::string& agent) {
  if (!normalize_amd_arch(arch).empty()) {
    return normalize_amd_arch(arch);
  }
  if (agent.empty()) {
    return {};
  }
  // Older rocprofv3 writes "Agent 1", newer ones the bare number.
  return parse_count(agent) ? "Agent " + agent : agent;
}

// Without a known architecture, the family whose counters the file names most (the first on a
// tie; none when the file names none) speaks for the profile: its counter names in messages,
// its wavefront size when the file has no Wave_Front_Size.
const amd_arch& family_for_messages(const counter_table& t, std::string_view arch) {
  if (const amd_arch* a = find_amd_arch(arch)) {
    return *a;
  }
  const amd_arch* best = &amd_any_arch();
  std::size_t best_score = 0;
  for (const auto& f : amd_arch_families()) {
    const auto used = amd_metrics_used(f);
    const auto score = static_cast<std::size_t>(std::count_if(
        used.begin(), used.end(), [&](std::string_view n) { return t.reported.contains(n); }));
    if (score > best_score) {
      best = &f;
      best_score = score;
    }
  }
  return *best;
}

profile finish(const counter_table& t, std::string_view arch, const amd_arch& formulas,
               profile_format format) {
  const amd_arch& family = family_for_messages(t, arch);
  profile p;
  p.format = format;
  p.source_file = t.file;
  p.device_name = device_name_of(arch, t.agent);
  p.warp_size = t.wave_size.value_or(family.default_wave_size);
  p.native_counter_names = amd_native_names(family);
  for (const auto& name : t.order) {
    const kernel_totals& k = t.kernels.at(name);
    kernel_profile kp;
    kp.name = name;
    kp.invocations = k.dispatches;
    kp.counters =
        resolve_amd_counters(formulas, k.complete(), p.warp_size, t.file, "kernel '" + name + "'");
    kp.launch = k.launch;
    if (k.all_timed && k.durations_s.size() == k.dispatches && !k.durations_s.empty()) {
      kp.duration = duration_stats::from_samples(k.durations_s);
      kp.time_s = kp.duration->total_s;
    }
    p.kernels.push_back(std::move(kp));
  }
  return p;
}
} // namespace

bool looks_like_rocprof_csv(std::string_view text) {
  return first_line_has(text, {"Counter_Name", "Counter_Value"}, {});
}

profile import_amd_records(std::span<const amd_record_file> passes, std::string_view arch,
                           profile_format format) {
  if (passes.empty()) {
    throw usage_error("no AMD counter files to import");
  }
  const amd_arch& formulas = formulas_for(arch);
  counter_table merged = build_table(passes.front(), formulas);
  for (const auto& pass : passes.subspan(1)) {
    merge_pass(merged, build_table(pass, formulas));
  }
  return finish(merged, arch, formulas, format);
}

profile import_rocprof_csv(std::string_view text, const std::string& file, std::string_view arch) {
  const amd_record_file f = read_rocprof_csv_records(text, file);
  return import_amd_records(std::span(&f, 1), arch, profile_format::rocprof_csv);
}

profile import_rocprof_csv_passes(std::span<const rocprof_pass_file> passes,
                                  std::string_view arch) {
  std::vector<amd_record_file> files;
  for (const auto& pass : passes) {
    files.push_back(read_rocprof_csv_records(pass.text, pass.file));
  }
  return import_amd_records(files, arch, profile_format::rocprof_csv);
}

bool looks_like_rocprof_wide_csv(std::string_view text) {
  return first_line_has(text, {"KernelName", "Index"}, {"Counter_Name"}) ||
         first_line_has(text, {"Kernel_Name", "Dispatch_ID"}, {"Counter_Name"});
}

profile import_rocprof_wide_csv(std::string_view text, const std::string& file) {
  const amd_record_file f = read_wide_records(text, file);
  return import_amd_records(std::span(&f, 1), "", profile_format::rocprof_wide_csv);
}

bool looks_like_rocprof_kernel_trace(std::string_view text) {
  return first_line_has(text, {"Kernel_Name", "Start_Timestamp", "End_Timestamp"},
                        {"Counter_Name"});
}

void attach_rocprof_kernel_trace(profile& p, std::string_view text, const std::string& file) {
  const auto rows = read_table(text, file, trace_csv);
  const csv_row& header = rows.front();
  const std::size_t kernel_col = required_column(header, "Kernel_Name", file, trace_csv);
  const std::size_t start_col = required_column(header, "Start_Timestamp", file, trace_csv);
  const std::size_t end_col = required_column(header, "End_Timestamp", file, trace_csv);
  std::map<std::string, std::vector<double>, std::less<>> durations;
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    check_row_width(*it, header, file);
    const std::string& kernel = it->fields[kernel_col];
    if (kernel.empty()) {
      throw input_error(file, std::to_string(it->line), "empty \"Kernel_Name\" field");
    }
    const auto ts = timestamps_of(*it, header, start_col, end_col, file);
    durations[kernel].push_back(static_cast<double>(ts->second - ts->first) * 1e-9);
  }
  for (auto& k : p.kernels) {
    const auto it = durations.find(k.name);
    if (it == durations.end()) {
      continue;
    }
    if (it->second.size() != k.invocations) {
      throw input_error(file, "",
                        "kernel '" + k.name + "' has " + std::to_string(it->second.size()) +
                            " dispatches in the trace but " + std::to_string(k.invocations) +
                            " in the counter profile " + p.source_file);
    }
    k.duration = duration_stats::from_samples(it->second);
    k.time_s = k.duration->total_s;
  }
}

} // namespace perfgate::detail
