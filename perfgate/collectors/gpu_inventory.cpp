// SPDX-License-Identifier: Apache-2.0
#include "collectors/gpu_inventory.hpp"

#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "collectors/ctest_gpus.hpp"
#include "util/json_fields.hpp"
#include "util/nvml_library.hpp"
#include "util/rocm_smi_library.hpp"

#include <cinttypes>
#include <cstdio>

namespace perfgate::detail {

namespace {
template <class Library, class Answer, class T>
void take(const Library& lib, const Answer& a, call_answer<T>& into) {
  into.status = a.status;
  into.value = static_cast<T>(a.value);
  if (a.status != 0) {
    into.message = lib.error_string(a.status);
  }
}

template <class Library> void ask_init(const Library& lib, library_answers& out) {
  out.load_error = lib.load_error();
  if (!out.load_error.empty()) {
    return;
  }
  out.init.status = lib.init_status();
  if (out.init.status != 0) {
    out.init.message = out.init.status == -1 ? "the init function is missing from the library"
                                             : lib.error_string(out.init.status);
    return;
  }
  take(lib, lib.device_count(), out.count);
}

library_answers ask_nvml() {
  const nvml_library nvml;
  library_answers out;
  ask_init(nvml, out);
  if (out.init.status != 0 || !out.load_error.empty() || out.count.status != 0) {
    return out;
  }
  for (unsigned i = 0; i < out.count.value; ++i) {
    device_answers d;
    const auto handle = nvml.handle_by_index(i);
    if (handle.status != 0) {
      d.id.status = handle.status;
      d.id.message = "nvmlDeviceGetHandleByIndex_v2: " + nvml.error_string(handle.status);
    } else {
      take(nvml, nvml.uuid(handle.value), d.id);
      take(nvml, nvml.name(handle.value), d.name);
      take(nvml, nvml.memory_total(handle.value), d.memory_total);
    }
    out.devices.push_back(std::move(d));
  }
  return out;
}

library_answers ask_rocm_smi() {
  const rocm_smi_library smi;
  library_answers out;
  ask_init(smi, out);
  if (out.init.status != 0 || !out.load_error.empty() || out.count.status != 0) {
    return out;
  }
  for (std::uint32_t i = 0; i < out.count.value; ++i) {
    device_answers d;
    const auto id = smi.unique_id(i);
    d.id.status = id.status;
    if (id.status == 0) {
      char hex[19];
      std::snprintf(hex, sizeof hex, "0x%016" PRIx64, id.value);
      d.id.value = hex;
    } else {
      d.id.message = smi.error_string(id.status);
    }
    take(smi, smi.name(i), d.name);
    take(smi, smi.memory_total(i), d.memory_total);
    out.devices.push_back(std::move(d));
  }
  return out;
}

template <class T> nlohmann::ordered_json call_json(const call_answer<T>& a) {
  nlohmann::ordered_json j = {{"status", a.status}};
  if (a.status != 0) {
    j["message"] = a.message;
  } else {
    j["value"] = a.value;
  }
  return j;
}

nlohmann::ordered_json library_json(const library_answers& l) {
  nlohmann::ordered_json j;
  if (!l.load_error.empty()) {
    j["load_error"] = l.load_error;
    return j;
  }
  j["init"] = call_json(l.init);
  if (l.init.status != 0) {
    return j;
  }
  j["count"] = call_json(l.count);
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : l.devices) {
    devices.push_back({{"id", call_json(d.id)},
                       {"name", call_json(d.name)},
                       {"memory_total", call_json(d.memory_total)}});
  }
  j["devices"] = devices;
  return j;
}

template <class T> call_answer<T> call_from(const json_fields& parent, std::string_view key) {
  call_answer<T> a;
  if (!parent.has(key)) {
    return a; // never asked: the library failed before
  }
  const json_fields f = parent.object(key);
  a.status = static_cast<int>(f.number("status"));
  if (a.status != 0) {
    a.message = f.string_or("message", "");
  } else if constexpr (std::is_same_v<T, std::string>) {
    a.value = f.string("value");
  } else {
    a.value = static_cast<T>(f.count("value"));
  }
  return a;
}

library_answers library_from(const json_fields& root, std::string_view key) {
  library_answers l;
  if (!root.has(key)) {
    l.load_error = "not recorded";
    return l;
  }
  const json_fields f = root.object(key);
  l.load_error = f.string_or("load_error", "");
  if (!l.load_error.empty()) {
    return l;
  }
  l.init = call_from<int>(f, "init");
  l.count = call_from<std::uint32_t>(f, "count");
  if (l.init.status == 0 && l.count.status == 0) {
    const auto& devices = f.array("devices");
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const json_fields d = f.element(devices[i], i, "devices");
      l.devices.push_back({call_from<std::string>(d, "id"), call_from<std::string>(d, "name"),
                           call_from<std::uint64_t>(d, "memory_total")});
    }
    if (l.devices.size() != l.count.value) {
      f.fail("devices", "holds " + std::to_string(l.devices.size()) + " devices, but count is " +
                            std::to_string(l.count.value));
    }
  }
  return l;
}

// The GPUs of one library's answers, or the note saying why there are none.
void add_library(const library_answers& l, const std::string& vendor, const std::string& library,
                 const std::string& init_call, gpu_inventory& out) {
  if (!l.load_error.empty()) {
    out.notes.push_back(library + ": not loaded (" + l.load_error + ")");
    return;
  }
  if (l.init.status != 0) {
    out.notes.push_back(library + ": " + init_call + " failed: " + l.init.message + " (status " +
                        std::to_string(l.init.status) + ")");
    return;
  }
  if (l.count.status != 0) {
    out.notes.push_back(library + ": the device count failed: " + l.count.message + " (status " +
                        std::to_string(l.count.status) + ")");
    return;
  }
  for (unsigned i = 0; i < l.devices.size(); ++i) {
    const auto& d = l.devices[i];
    gpu_info g;
    g.vendor = vendor;
    g.index = i;
    g.name = d.name.status == 0 ? d.name.value : "";
    g.memory_bytes = d.memory_total.status == 0 ? d.memory_total.value : 0;
    const std::string which =
        library + " device " + std::to_string(i) + (g.name.empty() ? "" : " (" + g.name + ")");
    if (d.id.status != 0) {
      if (vendor == "amd") {
        // Some Radeon cards have no unique id: CTest's id is then the index, which HIP and
        // ROCm SMI number alike on a machine of AMD GPUs only.
        g.ctest_id = std::to_string(i);
        out.notes.push_back(which + ": no unique id (" + d.id.message + "): listed by its index " +
                            g.ctest_id);
        out.gpus.push_back(std::move(g));
      } else {
        out.notes.push_back(which + ": left out, its UUID failed: " + d.id.message + " (status " +
                            std::to_string(d.id.status) + ")");
      }
      continue;
    }
    if (vendor == "nvidia" && d.id.value.starts_with("MIG-")) {
      out.notes.push_back(which + ": left out, a MIG instance (" + d.id.value + ")");
      continue;
    }
    try {
      g.ctest_id = ctest_gpu_id(vendor, vendor == "amd" && d.id.value.starts_with("0x")
                                            ? d.id.value.substr(2)
                                            : d.id.value);
    } catch (const usage_error& e) {
      out.notes.push_back(which + ": left out: " + e.what());
      continue;
    }
    out.gpus.push_back(std::move(g));
  }
}
} // namespace

gpu_answers ask_gpu_libraries() { return {ask_nvml(), ask_rocm_smi()}; }

std::string gpu_answers_to_json(const gpu_answers& answers) {
  const nlohmann::ordered_json j = {{"schema", gpu_answers_schema},
                                    {"nvml", library_json(answers.nvml)},
                                    {"rocm_smi", library_json(answers.rocm_smi)}};
  return j.dump(2) + "\n";
}

gpu_answers gpu_answers_from_json(std::string_view text, const std::string& file) {
  const nlohmann::json doc = json_fields::parse(text, file); // root refers to it
  const json_fields root(doc, file, "");
  (void)root.schema({gpu_answers_schema});
  return {library_from(root, "nvml"), library_from(root, "rocm_smi")};
}

gpu_inventory gpu_inventory_from(const gpu_answers& answers) {
  gpu_inventory out;
  add_library(answers.nvml, "nvidia", "NVML", "nvmlInit_v2", out);
  add_library(answers.rocm_smi, "amd", "ROCm SMI", "rsmi_init", out);
  return out;
}

} // namespace perfgate::detail
