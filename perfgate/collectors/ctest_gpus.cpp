// SPDX-License-Identifier: Apache-2.0
#include "collectors/ctest_gpus.hpp"

#include <perfgate/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace perfgate::detail {

namespace {
bool is_hex_or(std::string_view s, char also) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [also](char c) {
    return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == also;
  });
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string replaced(std::string s, char from, char to) {
  std::replace(s.begin(), s.end(), from, to);
  return s;
}

bool is_index(std::string_view s) {
  return !s.empty() && s.size() <= 4 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
  });
}

// "id:nvidia_8f,slots:1" -> "nvidia_8f"; one allocation of CTEST_RESOURCE_GROUP_<i>_GPUS.
std::string allocation_id(std::string_view allocation, const std::string& variable,
                          std::string_view whole) {
  const auto fail = [&]() {
    throw usage_error(variable + "='" + std::string(whole) +
                      "': expected id:<id>,slots:<n> (separated by ';' when several), as CTest "
                      "writes it");
  };
  if (!allocation.starts_with("id:")) {
    fail();
  }
  const auto comma = allocation.find(",slots:");
  if (comma == std::string_view::npos || comma == 3) {
    fail();
  }
  return std::string(allocation.substr(3, comma - 3));
}
} // namespace

std::string ctest_gpu_id(std::string_view vendor, std::string_view uuid) {
  if (vendor == "nvidia") {
    if (!uuid.starts_with("GPU-") || !is_hex_or(uuid.substr(4), '-')) {
      throw usage_error("NVIDIA GPU UUID '" + std::string(uuid) +
                        "': expected GPU-<hex digits and dashes> (MIG instances are not "
                        "listed)");
    }
    return "nvidia_" + replaced(lower(uuid.substr(4)), '-', '_');
  }
  if (vendor == "amd") {
    std::string_view hex = uuid;
    if (hex.starts_with("GPU-")) {
      hex.remove_prefix(4);
    }
    if (!is_hex_or(hex, '\0') || hex.size() > 16) {
      throw usage_error("AMD GPU unique id '" + std::string(uuid) +
                        "': expected GPU-<up to 16 hex digits>");
    }
    return "amd_" + std::string(16 - hex.size(), '0') + lower(hex);
  }
  throw usage_error("GPU vendor '" + std::string(vendor) + "': expected nvidia or amd");
}

std::string ctest_resource_spec(const std::vector<ctest_gpu>& gpus) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const auto& g : gpus) {
    list.push_back({{"id", g.id}, {"slots", g.slots}});
  }
  nlohmann::ordered_json spec = {{"version", {{"major", 1}, {"minor", 0}}},
                                 {"local", nlohmann::ordered_json::array({{{"gpus", list}}})}};
  return spec.dump(2) + "\n";
}

std::string gpu_pin::describe() const {
  std::string text;
  for (const auto& [name, value] : environment) {
    text += (text.empty() ? "" : " ") + name + "=" + value;
  }
  return text;
}

std::optional<gpu_pin> pin_for_ctest_gpu(std::string_view id) {
  if (id == "default") {
    return std::nullopt;
  }
  gpu_pin pin;
  pin.ctest_id = id;
  if (id.starts_with("nvidia_") && is_hex_or(id.substr(7), '_')) {
    pin.backend = "cuda";
    pin.environment = {
        {"CUDA_VISIBLE_DEVICES", "GPU-" + replaced(std::string(id.substr(7)), '_', '-')}};
  } else if (id.starts_with("amd_") && id.size() == 4 + 16 && is_hex_or(id.substr(4), '\0')) {
    // ROCR_VISIBLE_DEVICES takes the UUID; HIP then numbers the one device it leaves 0.
    pin.backend = "hip";
    pin.environment = {{"ROCR_VISIBLE_DEVICES", "GPU-" + std::string(id.substr(4))},
                       {"HIP_VISIBLE_DEVICES", "0"}};
  } else if (is_index(id)) {
    const std::string n(id);
    pin.environment = {{"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                       {"CUDA_VISIBLE_DEVICES", n},
                       {"HIP_VISIBLE_DEVICES", n}};
  } else {
    throw usage_error("CTest gave this test the GPU '" + std::string(id) +
                      "': perfgate pins the ids `perfgate resources` writes (nvidia_<uuid>, "
                      "amd_<unique id>), device indices (0, 1, ...) and 'default' (no pin)");
  }
  return pin;
}

std::optional<gpu_pin> ctest_gpu_assignment(const std::function<const char*(const char*)>& getenv) {
  const char* count_text = getenv("CTEST_RESOURCE_GROUP_COUNT");
  if (count_text == nullptr) {
    return std::nullopt;
  }
  const std::string count_string(count_text);
  if (!is_index(count_string)) {
    throw usage_error("CTEST_RESOURCE_GROUP_COUNT='" + count_string + "': expected a count");
  }
  std::vector<std::string> ids;
  const int count = std::stoi(count_string);
  for (int i = 0; i < count; ++i) {
    const std::string group = "CTEST_RESOURCE_GROUP_" + std::to_string(i);
    const char* types = getenv(group.c_str());
    if (types == nullptr) {
      throw usage_error(group + " is not set, though CTEST_RESOURCE_GROUP_COUNT=" + count_string);
    }
    // The group's resource types, comma-separated; only "gpus" is perfgate's.
    const std::string list = "," + std::string(types) + ",";
    if (list.find(",gpus,") == std::string::npos) {
      continue;
    }
    const std::string variable = group + "_GPUS";
    const char* value = getenv(variable.c_str());
    if (value == nullptr) {
      throw usage_error(variable + " is not set, though " + group + "='" + types + "'");
    }
    const std::string_view whole(value);
    std::string_view rest = whole;
    while (!rest.empty()) {
      const auto end = rest.find(';');
      const std::string id = allocation_id(rest.substr(0, end), variable, whole);
      if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
        ids.push_back(id);
      }
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    }
  }
  if (ids.empty()) {
    return std::nullopt;
  }
  if (ids.size() > 1) {
    std::string all;
    for (const auto& id : ids) {
      all += (all.empty() ? "" : ", ") + id;
    }
    throw usage_error("CTest gave this test " + std::to_string(ids.size()) + " GPUs (" + all +
                      "): a perf test gates one GPU; request RESOURCE_GROUPS gpus:1");
  }
  return pin_for_ctest_gpu(ids.front());
}

} // namespace perfgate::detail
