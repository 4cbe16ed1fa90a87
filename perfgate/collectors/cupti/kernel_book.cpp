// SPDX-License-Identifier: Apache-2.0
#include "collectors/cupti/kernel_book.hpp"

#include <perfgate/version.hpp>

#include "util/demangle.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>

#include <unistd.h>

namespace perfgate::cupti {

std::string demangle(const char* symbol) { return detail::demangle(symbol); }

std::vector<std::string> clock_limit_names(std::uint64_t mask) {
  // nvml.h: nvmlClocksEventReason* (formerly nvmlClocksThrottleReason*), same bit values.
  static const std::vector<std::pair<std::uint64_t, const char*>> bits = {
      {0x2, "applications_clocks_setting"},
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"}};
  std::vector<std::string> names;
  for (const auto& [bit, name] : bits) {
    if ((mask & bit) != 0) {
      names.emplace_back(name);
    }
  }
  return names;
}

bool is_rate_metric(std::string_view metric) {
  return metric.find(".per_second") != std::string_view::npos ||
         metric.find(".pct") != std::string_view::npos ||
         metric.find(".ratio") != std::string_view::npos;
}

kernel_record& kernel_book::kernel(const char* mangled_or_plain_name) {
  // Keyed by the demangled name: the Activity API and the launch callbacks need not spell a
  // kernel the same way, and one kernel must not become two records.
  std::string name = demangle(mangled_or_plain_name);
  const auto it = m_index.find(name);
  if (it != m_index.end()) {
    return m_kernels[it->second];
  }
  m_index.emplace(name, m_kernels.size());
  kernel_record& k = m_kernels.emplace_back();
  k.mangled = mangled_or_plain_name != nullptr ? mangled_or_plain_name : "";
  k.name = std::move(name);
  return k;
}

void kernel_book::add_launch(kernel_record& k, const launch_entry& launch) {
  ++k.launches;
  k.launch_log.push_back(launch);
  if (k.block[0] == 0) {
    k.grid = launch.grid;
    k.block = launch.block;
  }
}

void kernel_book::add_range(kernel_record& k, const std::vector<std::string>& metrics,
                            const std::vector<double>& values, double weight) {
  ++k.profiled_launches;
  k.range_values.push_back(values);
  for (std::size_t i = 0; i < metrics.size() && i < values.size(); ++i) {
    if (is_rate_metric(metrics[i])) {
      k.rate_weighted[metrics[i]] += values[i] * weight;
      k.rate_weight[metrics[i]] += weight;
    } else {
      k.metric_sums[metrics[i]] += values[i];
    }
  }
}

std::string kernel_book::to_json(const run_info& run) const {
  nlohmann::ordered_json j;
  j["schema"] = cupti_run_schema;
  j["mode"] = run.mode;
  j["status"] = run.status;
  j["reason"] = run.reason;
  j["device"] = {{"name", run.device_name}, {"chip", run.chip}};
  if (run.mode == "counters") {
    j["metrics"] = run.metrics;
    j["passes"] = run.passes;
    j["ranges_dropped"] = run.ranges_dropped;
  }
  j["warnings"] = m_warnings;
  auto kernels = nlohmann::ordered_json::array();
  for (const auto& k : m_kernels) {
    nlohmann::ordered_json e;
    e["name"] = k.name;
    e["mangled"] = k.mangled;
    e["launches"] = k.launches;
    if (k.block[0] != 0) {
      e["grid"] = k.grid;
      e["block"] = k.block;
    }
    if (run.mode == "timing") {
      if (k.launch_log.empty()) {
        e["durations_ns"] = k.durations_ns;
      } else {
        // Activity records arrive as buffers complete, streams interleaved: the correlation
        // id is the order the launches were made in, which the counter run's ranges follow.
        auto log = k.launch_log;
        std::stable_sort(log.begin(), log.end(), [](const auto& a, const auto& b) {
          return a.correlation < b.correlation;
        });
        auto durations = nlohmann::ordered_json::array();
        auto configs = nlohmann::ordered_json::array();
        for (const auto& l : log) {
          durations.push_back(l.duration_ns);
          configs.push_back({l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2],
                             l.shared_bytes});
        }
        e["durations_ns"] = std::move(durations);
        e["launch_configs"] = std::move(configs); // grid x y z, block x y z, dynamic shared bytes
      }
      if (k.clock_samples > 0) {
        e["sm_clock_mhz"] = {{"mean", k.clock_mhz_sum / static_cast<double>(k.clock_samples)},
                             {"min", k.clock_mhz_min},
                             {"max", k.clock_mhz_max},
                             {"samples", k.clock_samples}};
        e["clock_limits"] = clock_limit_names(k.clock_limit_mask);
      }
    } else {
      e["profiled_launches"] = k.profiled_launches;
      nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
      for (const auto& [name, sum] : k.metric_sums) {
        metrics[name] = sum;
      }
      for (const auto& [name, weighted] : k.rate_weighted) {
        const double w = k.rate_weight.at(name);
        metrics[name] = w > 0 ? weighted / w : 0.0;
      }
      e["metrics"] = std::move(metrics);
      e["range_values"] = k.range_values; // one per range, in the run's metric order
    }
    kernels.push_back(std::move(e));
  }
  j["kernels"] = std::move(kernels);
  return j.dump(1) + "\n";
}

bool write_atomically(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(text.data(), static_cast<std::streamsize>(text.size())) ||
        !out.flush()) {
      std::remove(temporary.c_str());
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    return false;
  }
  return true;
}

} // namespace perfgate::cupti
