// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for one reader, named by perfgate_fuzz_reader (reader_name.cpp, compiled
// with PERFGATE_FUZZ_READER into each of CMakeLists' executables, one per reader). A reader may
// accept an input or refuse it with perfgate::error (input_error, exit 2); anything else escaping,
// a crash, a hang or a sanitizer report is a finding. Accepted profiles also go through the model's
// parameter derivation, and their numbers must be finite and >= 0, and their report may hold no 0
// that stands for a value the input did not have: a reader that accepts nonsense is a finding too.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/hull.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>
#include <perfgate/pipeline.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "collectors/collectors.hpp"
#include "history/history.hpp"
#include "collectors/gpu_inventory.hpp"
#include "importers/gbench_importer.hpp"
#include "importers/ncu_importer.hpp"
#include "importers/nvbench_importer.hpp"
#include "importers/nvprof_importer.hpp"
#include "importers/rocpd_importer.hpp"
#include "importers/rocprof_importer.hpp"
#include "importers/sass_importer.hpp"
#include "unknown_zeros.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

extern "C" const char perfgate_fuzz_reader[]; // reader_name.cpp

namespace {
using namespace perfgate;

void require(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "accepted nonsense: %s\n", what);
    std::abort();
  }
}

void check_profile(const profile& p) {
  for (const auto& k : p.kernels) {
    for (const auto& [name, v] : k.counters) {
      require(std::isfinite(v) && v >= 0, "a counter is negative or not finite");
    }
    if (k.time_s) {
      require(std::isfinite(*k.time_s) && *k.time_s >= 0, "a time is negative or not finite");
    }
    try {
      (void)kernel_params_from_profile(p, k);
    } catch (const error&) {
      // a kernel lacking metrics is refused by the model: fine
    }
    if (k.duration) {
      require(k.duration->samples >= 1, "statistics of no sample");
    }
    require(!k.sample_count || *k.sample_count >= 1, "a sample count of 0 for unknown");
  }
  // Its report: no field 0 because its value was unknown (tests/support/unknown_zeros.hpp).
  try {
    const auto r = predict_report(p, {resolve_device("h100-sxm")});
    require(test::zeros_standing_for_unknown(nlohmann::json::parse(report_to_json(r))).empty(),
            "a report field is 0 for a value the input did not hold");
  } catch (const error&) {
    // nothing to predict: refused with a message
  }
}

// A strict reader (profile, device file, baseline, history line) that accepted `text` must
// refuse the same document with one key no format defines, added at the top and in the first
// object of `nested` (kernels[0], peaks): an unknown key is bad input, never ignored.
template <class Reader>
void require_refuses_unknown_key(std::string_view text, std::string_view nested, Reader reader) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    return; // accepted as something other than JSON text (none of these readers does)
  }
  if (!doc.is_object()) {
    return;
  }
  std::vector<nlohmann::json> variants(1, doc);
  variants.front()["perfgate_fuzz_unknown_key"] = 1;
  if (auto it = doc.find(std::string(nested)); it != doc.end()) {
    nlohmann::json* inner = it->is_array() && !it->empty() ? &it->front() : &*it;
    if (inner->is_object()) {
      (*inner)["perfgate_fuzz_unknown_key"] = 1;
      variants.push_back(doc);
    }
  }
  for (const auto& v : variants) {
    bool refused = false;
    try {
      reader(v.dump());
    } catch (const input_error& e) {
      refused = std::string_view(e.what()).find("perfgate_fuzz_unknown_key") != std::string_view::npos;
    } catch (const error&) {
    }
    require(refused, "a document with an unknown key was not refused naming it");
  }
}

void read(std::string_view text) {
  const std::string file = "fuzz-input";
  using namespace perfgate::detail;
#define PERFGATE_READER_IS(name) (std::string_view(perfgate_fuzz_reader) == name)
  if (PERFGATE_READER_IS("nvprof")) {
    check_profile(import_nvprof_csv(text, file));
  } else if (PERFGATE_READER_IS("ncu_raw")) {
    check_profile(import_ncu_csv_raw(text, file));
    (void)ncu_raw_missing_metrics(text, {"dram__bytes_read.sum", "gpu__time_duration.sum"});
  } else if (PERFGATE_READER_IS("ncu_details")) {
    check_profile(import_ncu_csv_details(text, file));
  } else if (PERFGATE_READER_IS("rocprofv3_csv")) {
    check_profile(import_rocprof_csv(text, file, ""));
  } else if (PERFGATE_READER_IS("rocprof_v1_csv")) {
    check_profile(import_rocprof_wide_csv(text, file));
  } else if (PERFGATE_READER_IS("rocpd")) {
    check_profile(import_rocpd(read_rocpd_bytes(text, file)));
  } else if (PERFGATE_READER_IS("gbench_json")) {
    check_profile(import_gbench_json(text, file));
  } else if (PERFGATE_READER_IS("nvbench_json")) {
    check_profile(detail::import_nvbench_json(text, file)); // sample files beside `file`: none
  } else if (PERFGATE_READER_IS("detect")) {
    const auto p = import_profile_text(text, file); // dispatch + every reader + value checks
    check_profile(p);
    if (p.format == profile_format::perfgate_json) {
      require_refuses_unknown_key(text, "kernels", [&](const std::string& t) {
        (void)profile_from_json(t, file);
      });
    }
  } else if (PERFGATE_READER_IS("device_json")) {
    (void)device_from_json(text, file);
    require_refuses_unknown_key(text, "peaks",
                                [&](const std::string& t) { (void)device_from_json(t, file); });
  } else if (PERFGATE_READER_IS("report_json")) {
    try {
      (void)report_from_json(text, file);
    } catch (const error&) {
      // a baseline, or no report: the baseline reader's turn
    }
    (void)baseline_from_json(text, file);
    if (text.find("perfgate-baseline/") != std::string_view::npos) { // a report is read as it is
      require_refuses_unknown_key(text, "kernels",
                                  [&](const std::string& t) { (void)baseline_from_json(t, file); });
    }
  } else if (PERFGATE_READER_IS("history_json")) {
    // History lines: every line a JSON object, an entry or a mute, each with only its keys.
    const auto store = history::read_history(text, file);
    for (const auto& e : store.entries) {
      require(std::isfinite(e.efficiency) && e.efficiency > 0, "an efficiency <= 0");
    }
    // One line of JSON text is one document; several are not, and are left alone.
    require_refuses_unknown_key(text, "mute", [&](const std::string& t) {
      (void)history::read_history(t, file);
    });
  } else if (PERFGATE_READER_IS("cupti_json")) {
    const auto run = cupti_run_from_json(text, file);
    check_profile(profile_from_cupti_runs(run, run));
  } else if (PERFGATE_READER_IS("hull_app")) {
    // The application file and the class language of every primitive, then the band on a GPU
    // and a CPU of the paper: an accepted class must give a finite, ordered band.
    const auto app = hull::application_from_json(text, file);
    for (const char* id : {"gtx470", "q8300"}) {
      const auto p = hull::predict_application(app, hull::rates_of(resolve_device(id), false), {});
      require(std::isfinite(p.total_s.lo) && std::isfinite(p.total_s.hi), "a band is not finite");
      require(p.total_s.lo >= 0 && p.total_s.lo <= p.total_s.hi, "a band is negative or reversed");
    }
  } else if (PERFGATE_READER_IS("pipeline_json")) {
    // Either format: latencies (perfgate-latencies/1), or a graph over the Fermi classes of
    // tests/data/pipeline/fermi.latencies.json (perfgate-idg/1); each refuses the other.
    try {
      (void)pipeline::latencies_from_json(text, file);
    } catch (const error&) {
    }
    const std::map<std::string, pipeline::latency, std::less<>> fermi = {
        {"fadd", {1, 18}}, {"fmadd", {1, 22}}, {"memory", {2, 600}}};
    (void)pipeline::idg_from_json(text, file, fermi);
  } else if (PERFGATE_READER_IS("sass")) {
    // A cuobjdump -sass listing: every function's graph, loops run twice; refusals are
    // usage_error (a loop without a trip count cannot happen here, an unknown opcode can).
    for (const auto& f : detail::sass_from_listing(text, file)) {
      detail::sass_idg_options options;
      for (const auto& loop : detail::sass_loops(f)) {
        options.trip_counts[loop.head] = 2;
      }
      options.max_instructions = 100000;
      try {
        const auto g = detail::idg_from_sass(f, options);
        for (std::size_t i = 0; i < g.instructions.size(); ++i) {
          for (const auto d : g.instructions[i].deps) {
            require(d < i, "a dependence on a later instruction");
          }
        }
        (void)detail::sass_idg_to_json(g, file);
      } catch (const usage_error&) {
      }
    }
  } else if (PERFGATE_READER_IS("gpu_answers")) {
    // Recorded NVML / ROCm SMI answers: every GPU listed must have an id CTest accepts.
    const auto inventory = detail::gpu_inventory_from(detail::gpu_answers_from_json(text, file));
    for (const auto& g : inventory.gpus) {
      for (const char c : g.ctest_id) {
        require((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_',
                "a CTest id with a character CTest refuses");
      }
    }
  } else {
    std::fprintf(stderr, "fuzz: no reader is called '%s' (tests/fuzz/CMakeLists.txt)\n",
                 perfgate_fuzz_reader);
    std::abort(); // a reader CMakeLists names that this harness lacks: a build error in all but
                  // name
  }
#undef PERFGATE_READER_IS
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    read(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const perfgate::error&) {
    // refused with a message and an exit code: the expected outcome for most inputs
  }
  return 0;
}
