// SPDX-License-Identifier: Apache-2.0
#include "collectors/device_identity_probe.hpp"

#include <perfgate/file_io.hpp>

#include "util/cpuinfo.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfgate::detail {

namespace {
std::string read_small_file(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
} // namespace

device_identity identify_local_device(const device& local, const std::string& device_arg) {
  device_identity id;
  id.kind = local.kind;
  id.device = local.id;
  id.name = local.name;
  id.uuid = local.uuid; // the card its calibration measured (a CTest GPU has its own file)
  id.driver = local.driver;
  std::error_code unreadable; // a built-in id, not a file: no calibration to hash
  if (std::filesystem::is_regular_file(device_arg, unreadable)) {
    id.calibration_fnv1a64 = file_fnv1a64(device_arg);
  }
  if (local.kind == "cpu") {
    const cpuinfo_fields cpu = parse_cpuinfo(read_small_file("/proc/cpuinfo"));
    id.name = cpu.model.empty() ? local.name : cpu.model;
    // cpufreq's maximum (kHz) is steady; cpuinfo's MHz is the frequency of the moment.
    const std::string max_khz =
        std::string(trim(read_small_file("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")));
    double khz = 0;
    const auto [end, ec] = std::from_chars(max_khz.data(), max_khz.data() + max_khz.size(), khz);
    id.clock_mhz = ec == std::errc() && khz > 0 ? std::optional(khz / 1000) : cpu.mhz;
  }
  return id;
}

} // namespace perfgate::detail
