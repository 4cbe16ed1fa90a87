// SPDX-License-Identifier: Apache-2.0
#include "report/identity_json.hpp"

#include <string_view>
#include <vector>

namespace perfgate::detail {

namespace {
constexpr std::pair<const char*, std::string device_identity::*> text_fields[] = {
    {"kind", &device_identity::kind},
    {"device", &device_identity::device},
    {"name", &device_identity::name},
    {"uuid", &device_identity::uuid},
    {"driver", &device_identity::driver},
    {"calibration_fnv1a64", &device_identity::calibration_fnv1a64},
};
} // namespace

nlohmann::json identity_json(const device_identity& id) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, member] : text_fields) {
    if (!(id.*member).empty()) {
      j[key] = id.*member;
    }
  }
  if (id.clock_mhz) {
    j["clock_mhz"] = *id.clock_mhz;
  }
  return j;
}

void check_identity_keys(const json_fields& f) {
  std::vector<std::string_view> keys{"clock_mhz"};
  for (const auto& field : text_fields) {
    keys.emplace_back(field.first);
  }
  f.known_keys(keys);
}

device_identity read_identity(const json_fields& f) {
  device_identity id;
  for (const auto& [key, member] : text_fields) {
    id.*member = f.string_or(key, "");
  }
  if (f.has("clock_mhz")) {
    id.clock_mhz = f.positive("clock_mhz");
  }
  return id;
}

nlohmann::json hardware_json(const hardware_change& h) {
  nlohmann::json differences = nlohmann::json::array();
  for (const auto& d : h.differences) {
    differences.push_back(
        {{"field", d.field}, {"stored", d.stored}, {"now", d.now}, {"matters", d.matters}});
  }
  return {{"stored", identity_json(h.stored)},
          {"now", identity_json(h.now)},
          {"differences", differences},
          {"action", h.action}};
}

hardware_change read_hardware(const json_fields& f) {
  hardware_change h;
  h.stored = read_identity(f.object("stored"));
  h.now = read_identity(f.object("now"));
  const auto& differences = f.array("differences");
  for (std::size_t i = 0; i < differences.size(); ++i) {
    const auto d = f.element(differences[i], i, "differences");
    h.differences.push_back(
        {d.string("field"), d.string("stored"), d.string("now"), d.boolean("matters")});
  }
  h.action = f.string("action");
  if (h.action != "ab" && h.action != "warn") {
    f.fail("action", "expected \"ab\" or \"warn\", found \"" + h.action + "\"");
  }
  return h;
}

} // namespace perfgate::detail
