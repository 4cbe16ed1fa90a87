// SPDX-License-Identifier: Apache-2.0
#include "importers/trip_counts.hpp"

#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/pipeline.hpp>

#include "importers/csv_reader.hpp"
#include "util/demangle.hpp"
#include "util/kernel_names.hpp"

#include <algorithm>
#include <charconv>
#include <iterator>

namespace perfgate::detail {

std::pair<std::uint32_t, std::uint64_t> parse_trip_count(const std::string& text) {
  const auto eq = text.find('=');
  const auto fail = [&]() -> std::pair<std::uint32_t, std::uint64_t> {
    throw usage_error("--trip-count '" + text +
                      "': expected HEAD=N, the loop's first offset (0x01e0, "
                      "as the error listing the loops gives it) and how "
                      "many times its body runs");
  };
  if (eq == std::string::npos) {
    return fail();
  }
  const std::string head = text.substr(0, eq);
  const std::string n = text.substr(eq + 1);
  std::uint32_t offset = 0;
  std::uint64_t trips = 0;
  const bool hex = head.starts_with("0x") || head.starts_with("0X");
  const char* h = head.data() + (hex ? 2 : 0);
  const auto rh = std::from_chars(h, head.data() + head.size(), offset, 16);
  const auto rn = std::from_chars(n.data(), n.data() + n.size(), trips);
  if (rh.ec != std::errc() || rh.ptr != head.data() + head.size() || rn.ec != std::errc() ||
      rn.ptr != n.data() + n.size() || h == head.data() + head.size() || n.empty()) {
    return fail();
  }
  return {offset, trips};
}

void read_trip_counts(const std::string& file, std::map<std::uint32_t, std::uint64_t>& out) {
  const auto rows = read_csv(read_text_file(file), file);
  if (rows.empty()) {
    throw input_error(file, "", "the file is empty, expected the columns head,trips");
  }
  constexpr std::string_view table = "trip counts (head,trips)";
  const auto head_col = required_column(rows.front(), "head", file, table);
  const auto trips_col = required_column(rows.front(), "trips", file, table);
  for (auto it = std::next(rows.begin()); it != rows.end(); ++it) {
    check_row_width(*it, rows.front(), file);
    try {
      out.insert(parse_trip_count(it->fields[head_col] + "=" + it->fields[trips_col]));
    } catch (const usage_error&) {
      throw input_error(file, std::to_string(it->line),
                        "expected a loop head (0x01e0) and a whole number of trips, found \"" +
                            it->fields[head_col] + "\", \"" + it->fields[trips_col] + "\"");
    }
  }
}

profiled_trip_count trip_count_from_profile(const std::string& file, const sass_function& f,
                                            std::map<std::uint32_t, std::uint64_t>& trips) {
  const profile p = import_profile(file);
  const std::string name = demangle(f.name.c_str());
  const auto k = std::find_if(p.kernels.begin(), p.kernels.end(),
                              [&](const kernel_profile& kp) { return same_kernel(kp.name, name); });
  if (k == p.kernels.end()) {
    throw usage_error("--profile: no kernel " + name + " in " + file);
  }
  const auto executed = k->counters.find(counter::warp_inst_executed);
  if (executed == k->counters.end() || !k->launch) {
    throw usage_error("--profile: " + file + " has no " +
                      (k->launch ? "executed warp instructions (inst_executed)"
                                 : std::string("launch configuration (grid, block)")) +
                      " for " + name + ": declare the trip count with --trip-count");
  }
  const auto& l = *k->launch;
  const double warps =
      static_cast<double>(k->invocations) * static_cast<double>(l.grid[0] * l.grid[1] * l.grid[2]) *
      static_cast<double>(pipeline::warps_of(l.block[0] * l.block[1] * l.block[2]));
  std::uint32_t head = 0;
  const double per_warp = executed->second / warps;
  const std::uint64_t n = trip_count_from_executed(f, trips, per_warp, head);
  trips[head] = n;
  return {head, n, per_warp};
}

} // namespace perfgate::detail
