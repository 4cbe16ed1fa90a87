// SPDX-License-Identifier: Apache-2.0
// perfgate devices [--format text|json]: the built-in device database, grouped by vendor and
// generation.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"
#include "util/number_format.hpp"
#include "util/strings.hpp"
#include "util/table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

namespace perfgate::cli {

namespace {

// A generation: where it sorts (vendor, then age) and its name in the text output's headings.
struct generation {
  int vendor_rank = 0;
  double age = 0;
  std::string name;
};

// NVIDIA's architecture names by compute capability (the CUDA C++ Programming Guide's list of
// compute capabilities); AMD's by gfx target (the ROCm documentation's GPU specifications).
generation generation_of(const device& d) {
  constexpr std::array<std::string_view, 4> vendors = {"nvidia", "amd", "intel", "arm"};
  const int rank =
      static_cast<int>(std::find(vendors.begin(), vendors.end(), d.vendor) - vendors.begin());
  if (d.kind == "cpu") {
    return {rank + 10, 0, "CPUs"}; // after every GPU
  }
  if (d.vendor == "nvidia" && !d.arch.empty() && !d.arch.starts_with("gfx")) {
    const double cc = std::stod(d.arch);
    // Lower bounds of each architecture's compute capabilities.
    constexpr std::array<std::pair<double, std::string_view>, 11> names = {{{1.0, "Tesla"},
                                                                            {2.0, "Fermi"},
                                                                            {3.0, "Kepler"},
                                                                            {5.0, "Maxwell"},
                                                                            {6.0, "Pascal"},
                                                                            {7.0, "Volta"},
                                                                            {7.5, "Turing"},
                                                                            {8.0, "Ampere"},
                                                                            {8.9, "Ada Lovelace"},
                                                                            {9.0, "Hopper"},
                                                                            {10.0, "Blackwell"}}};
    generation g{rank, 0, "NVIDIA"};
    for (const auto& [from, n] : names) {
      if (cc >= from) {
        g = {rank, from, "NVIDIA " + std::string(n)};
      }
    }
    return g;
  }
  if (d.vendor == "amd" && d.arch.starts_with("gfx")) {
    constexpr std::array<std::pair<std::string_view, std::string_view>, 4> cdna = {
        {{"gfx908", "CDNA"}, {"gfx90a", "CDNA 2"}, {"gfx94", "CDNA 3"}, {"gfx95", "CDNA 4"}}};
    for (std::size_t i = 0; i < cdna.size(); ++i) {
      if (d.arch.starts_with(cdna[i].first)) {
        return {rank, static_cast<double>(i), "AMD " + std::string(cdna[i].second)};
      }
    }
    return {rank, 100, "AMD " + d.arch};
  }
  return {rank, 1000, d.vendor + " GPUs"};
}

std::string peak_or_dash(const device& d, std::string_view key) {
  const auto v = peak_value(d, key);
  return v ? detail::fixed(*v, 1) : "-";
}

// One table per generation, oldest first within each vendor; the heading names the compute
// capabilities or gfx targets of its devices ("NVIDIA Ampere (8.0, 8.6)").
std::string devices_text(const std::vector<device>& all) {
  struct group {
    std::vector<const device*> members;
    std::set<std::string> archs;
  };
  std::map<std::tuple<int, double, std::string>, group> groups;
  for (const auto& d : all) {
    const generation g = generation_of(d);
    auto& entry = groups[{g.vendor_rank, g.age, g.name}];
    entry.members.push_back(&d);
    if (!d.arch.empty() && d.kind == "gpu") {
      entry.archs.insert(d.arch);
    }
  }
  std::string out;
  for (const auto& [key, entry] : groups) {
    detail::table t;
    t.header = {"id",          "name",        "source",      "clock MHz",
                "FP32 GFLOPS", "FP64 GFLOPS", "BF16 tensor", "DRAM GB/s"};
    t.right_aligned = {false, false, false, true, true, true, true, true};
    for (const device* d : entry.members) {
      t.rows.push_back(
          {d->id, d->name, d->source, d->sm_clock_mhz ? detail::fixed(*d->sm_clock_mhz, 0) : "-",
           detail::fixed(d->peaks.fp32_gflops, 1),
           d->peaks.fp64_gflops > 0 ? detail::fixed(d->peaks.fp64_gflops, 1) : "-",
           peak_or_dash(*d, "tensor_bf16_gflops"), detail::fixed(d->peaks.dram_gbs, 1)});
    }
    std::string heading = std::get<2>(key);
    if (!entry.archs.empty()) {
      const std::vector<std::string> archs(entry.archs.begin(), entry.archs.end());
      heading += " (" + detail::join(archs, ", ") + ")";
    }
    out += (out.empty() ? "" : "\n") + heading + "\n" + detail::render_text(t, "  ");
  }
  return out;
}

} // namespace

action add_devices_command(CLI::App& app) {
  auto format = std::make_shared<std::string>("text");
  auto* cmd = app.add_subcommand("devices", "List the built-in device database");
  cmd->add_option("--format", *format, "Output format: text or json")->capture_default_str();
  return [format]() {
    const auto& all = builtin_devices();
    if (*format == "json") {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& d : all) {
        list.push_back(nlohmann::json::parse(device_to_json(d)));
      }
      emit(list.dump(2) + "\n", "");
      return 0;
    }
    if (*format != "text") {
      throw usage_error("unknown format '" + *format + "': expected text or json");
    }
    emit(devices_text(all), "");
    return 0;
  };
}

} // namespace perfgate::cli
