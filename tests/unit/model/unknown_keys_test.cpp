// SPDX-License-Identifier: Apache-2.0
// Strict declarations (issue 53): an unknown key anywhere in a profile (declared_work included),
// a device file, a baseline or a history line is refused (exit 2), naming the file, the key's
// path and the known key nearest to it; a key that is known is read as before.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/profile.hpp>

#include "history/history.hpp"
#include "util/json_fields.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <array>
#include <fstream>
#include <string>
#include <utility>

namespace {
using nlohmann::json;

// The refusal's text, checked to be an input error (exit 2); "(accepted)" when there was none.
template <class F> std::string refusal(F&& read) {
  try {
    read();
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.status(), perfgate::exit_status::input_error);
    return e.what();
  }
  return "(accepted)";
}

json profile_doc() {
  return json::parse(R"({"schema": "perfgate-profile/1",
    "source": {"format": "gbench-json", "file": "bench.json"},
    "device": {"name": "host", "warp_size": 1},
    "kernels": [{"name": "BM_gemm", "invocations": 1, "time_s": 1e-3, "threads": 1,
                 "declared_work": {"fp32_flops": 0, "fp64_flops": 0, "int_ops": 0,
                                   "bytes": 6291456, "tensor_ops": {"tensor_bf16_ops": 1.6e10},
                                   "matrix": false}}]})");
}

std::string profile_refusal(const json& doc) {
  return refusal([&] { (void)perfgate::profile_from_json(doc.dump(), "p.json"); });
}

json device_doc() {
  return json::parse(R"({"schema": "perfgate-device/1", "id": "my-gpu", "name": "My GPU",
    "vendor": "nvidia", "warp_size": 32, "source": "datasheet", "compute_capability": "9.0",
    "peaks": {"fp32_gflops": 100, "fp64_gflops": 50, "int_mad_gops": 40, "int_add_gops": 60,
              "ldst_ginst": 20, "dram_gbs": 10, "tensor_bf16_gflops": 800},
    "provenance": {"how": "datasheet", "citations": {"tensor_bf16_gflops": "the datasheet"}},
    "measurements": [{"key": "fp32_gflops", "scope": "all", "threads": 1, "repetitions": 5,
                      "best": 100, "median": 99, "min": 98, "max": 100, "spread": 0.02,
                      "note": ""}]})");
}

std::string device_refusal(const json& doc) {
  return refusal([&] { (void)perfgate::device_from_json(doc.dump(), "dev.json"); });
}

json baseline_doc() {
  return json::parse(R"({"schema": "perfgate-baseline/2", "source": "run.json",
    "kernels": [{"name": "BM_triad", "efficiency": 0.5, "local_device": "local-cpu",
                 "bounds": {"local-cpu": "memory"}, "W_traf": 6291456,
                 "pipeline": {"latency_bound": false, "resident_groups": 2, "limited_by": "warps"}}],
    "device_identities": [{"kind": "cpu", "device": "local-cpu", "name": "AMD EPYC"}],
    "build": {"executable": "bench", "fnv1a64": "0123456789abcdef"}})");
}

std::string baseline_refusal(const json& doc) {
  return refusal([&] { (void)perfgate::baseline_from_json(doc.dump(), "base.json"); });
}
} // namespace

TEST(UnknownKeys, NearestWordIsATypoNotAnyWord) {
  constexpr std::array<std::string_view, 3> keys = {"bytes", "tensor_ops", "working_set_bytes"};
  EXPECT_EQ(perfgate::detail::edit_distance("tensor_op", "tensor_ops"), 1U);
  EXPECT_EQ(perfgate::detail::edit_distance("kitten", "sitting"), 3U);
  EXPECT_EQ(perfgate::detail::nearest_word("tensor_op", keys).value_or("-"), "tensor_ops");
  EXPECT_EQ(perfgate::detail::nearest_word("workingset_bytes", keys).value_or("-"),
            "working_set_bytes");
  EXPECT_EQ(perfgate::detail::nearest_word("working_set", keys).value_or("-"),
            "working_set_bytes"); // a prefix of it
  EXPECT_FALSE(perfgate::detail::nearest_word("comment", keys)); // nothing it resembles
}

TEST(UnknownKeys, JsonFieldsNamesThePathAndSuggestsOrListsTheKeys) {
  const json doc = {{"kernels", {{{"nmae", "k"}}}}};
  const perfgate::detail::json_fields root(doc, "x.json", "");
  const auto kernel = root.elements("kernels").front();
  EXPECT_EQ(refusal([&] { kernel.known_keys({"name", "time_s"}); }),
            "x.json: key 'kernels[0].nmae': unknown key: did you mean 'name'?");
  const json other = {{"comment", "hello"}};
  const perfgate::detail::json_fields top(other, "x.json", "");
  EXPECT_EQ(refusal([&] { top.known_keys({"name", "time_s"}); }),
            "x.json: key 'comment': unknown key: the document holds only name, time_s");
  EXPECT_EQ(refusal([&] { root.known_keys({"kernels"}); }), "(accepted)");
}

TEST(UnknownKeys, ProfileReadsItsKeysAndRefusesOthersAtEveryLevel) {
  const auto p = perfgate::profile_from_json(profile_doc().dump(), "p.json");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_EQ(p.kernels[0].work->matrix, std::optional<bool>(false)); // declared false: kept
  // ... and written back, so a profile that went through perfgate says the same.
  const auto again = perfgate::profile_from_json(perfgate::profile_to_json(p), "again.json");
  EXPECT_EQ(again.kernels[0].work->matrix, std::optional<bool>(false));

  auto doc = profile_doc();
  doc["kernel"] = json::array();
  EXPECT_EQ(profile_refusal(doc), "p.json: key 'kernel': unknown key: did you mean 'kernels'?");
  doc = profile_doc();
  doc["kernels"][0]["time"] = 1e-3;
  EXPECT_EQ(profile_refusal(doc), "p.json: key 'kernels[0].time': unknown key: did you mean "
                                  "'time_s'?");
  doc = profile_doc();
  doc["device"]["warpsize"] = 32;
  EXPECT_EQ(profile_refusal(doc),
            "p.json: key 'device.warpsize': unknown key: did you mean 'warp_size'?");
  doc = profile_doc();
  doc["kernels"][0]["counters"] = {{"inst_fp23", 5}};
  EXPECT_EQ(profile_refusal(doc),
            "p.json: key 'kernels[0].counters.inst_fp23': unknown key: did you mean 'inst_fp32'?");
}

// The issue's case: a BF16 count written one level too high was ignored, and the kernel held to a
// bytes-only roof of 99.9 us instead of 832 us.
TEST(UnknownKeys, DeclaredWorkRefusesATypoAndAPrecisionOneLevelTooHigh) {
  auto doc = profile_doc();
  doc["kernels"][0]["declared_work"].erase("tensor_ops");
  doc["kernels"][0]["declared_work"]["tensor_bf16_ops"] = 1.6e10;
  EXPECT_EQ(profile_refusal(doc),
            "p.json: key 'kernels[0].declared_work.tensor_bf16_ops': unknown key: did you mean "
            "'tensor_ops.tensor_bf16_ops'? (tensor work is declared per precision inside "
            "tensor_ops)");
  doc = profile_doc();
  doc["kernels"][0]["declared_work"]["working_set"] = 1e6;
  EXPECT_EQ(profile_refusal(doc), "p.json: key 'kernels[0].declared_work.working_set': unknown "
                                  "key: did you mean 'working_set_bytes'?");
  doc = profile_doc();
  doc["kernels"][0]["declared_work"]["tensor_ops"] = {{"tensor_bf61_ops", 1e9}};
  EXPECT_EQ(profile_refusal(doc), "p.json: key 'kernels[0].declared_work.tensor_ops."
                                  "tensor_bf61_ops': unknown key: did you mean 'tensor_bf16_ops'?");
}

TEST(UnknownKeys, DeviceFileRefusesUnknownKeysPeaksAndCitations) {
  const auto d = perfgate::device_from_json(device_doc().dump(), "dev.json");
  EXPECT_EQ(d.extra_peaks.at("tensor_bf16_gflops"), 800.0);
  auto doc = device_doc();
  doc["peaks"]["tensor_bf16_glops"] = 800;
  EXPECT_EQ(device_refusal(doc), "dev.json: key 'peaks.tensor_bf16_glops': unknown key: did you "
                                 "mean 'tensor_bf16_gflops'?");
  doc = device_doc();
  doc["boost_clock"] = 1980;
  EXPECT_EQ(device_refusal(doc),
            "dev.json: key 'boost_clock': unknown key: did you mean 'boost_clock_mhz'?");
  doc = device_doc();
  doc["provenance"]["citations"]["tensor_bf16_gflop"] = "a typo cites nothing";
  EXPECT_EQ(device_refusal(doc), "dev.json: key 'provenance.citations.tensor_bf16_gflop': unknown "
                                 "key: did you mean 'tensor_bf16_gflops'?");
  doc = device_doc();
  doc["measurements"][0]["medain"] = 99;
  EXPECT_EQ(device_refusal(doc),
            "dev.json: key 'measurements[0].medain': unknown key: did you mean 'median'?");
  doc = device_doc();
  doc["peaks_one_core"] = doc["peaks"];
  doc["peaks_one_core"]["l3_gbs"] = 50;
  EXPECT_EQ(device_refusal(doc),
            "dev.json: key 'peaks_one_core.l3_gbs': unknown key: did you mean 'l2_gbs'?");
}

TEST(UnknownKeys, EveryBuiltInDeviceHoldsOnlyKnownKeys) {
  // builtin_devices() reads every embedded file with the strict reader: none may be refused.
  EXPECT_GT(perfgate::builtin_devices().size(), 20U);
}

TEST(UnknownKeys, BaselineRefusesUnknownKeysAtEveryLevel) {
  const auto b = perfgate::baseline_from_json(baseline_doc().dump(), "base.json");
  ASSERT_EQ(b.kernels.size(), 1U);
  auto doc = baseline_doc();
  doc["kernels"][0]["eficiency"] = 0.5;
  EXPECT_EQ(baseline_refusal(doc),
            "base.json: key 'kernels[0].eficiency': unknown key: did you mean 'efficiency'?");
  doc = baseline_doc();
  doc["sources"] = "x";
  EXPECT_EQ(baseline_refusal(doc), "base.json: key 'sources': unknown key: did you mean 'source'?");
  doc = baseline_doc();
  doc["device_identities"][0]["uid"] = "GPU-1";
  EXPECT_EQ(baseline_refusal(doc),
            "base.json: key 'device_identities[0].uid': unknown key: did you mean 'uuid'?");
  doc = baseline_doc();
  doc["build"]["hash"] = "0123456789abcdef";
  EXPECT_NE(baseline_refusal(doc).find("base.json: key 'build.hash': unknown key"),
            std::string::npos);
  doc = baseline_doc();
  doc["kernels"][0]["pipeline"]["limited"] = "warps";
  EXPECT_EQ(baseline_refusal(doc), "base.json: key 'kernels[0].pipeline.limited': unknown key: "
                                   "did you mean 'limited_by'?");
}

TEST(UnknownKeys, HistoryLineRefusesUnknownKeysNamingTheLine) {
  const std::string entry = R"({"schema": "perfgate-history/1", "commit": "abc", "date": "d",
    "kernel": "BM_triad", "device": "local-cpu", "efficiency": 0.5, "runs": [[0.5, 0.51]]})";
  auto one_line = [](std::string s) {
    std::erase(s, '\n');
    return s + "\n";
  };
  const std::string good = one_line(entry);
  EXPECT_EQ(perfgate::history::read_history(good + good, "h.jsonl").entries.size(), 2U);
  std::string typo = one_line(entry);
  typo.replace(typo.find("\"runs\""), 6, "\"rnus\"");
  EXPECT_EQ(refusal([&] { (void)perfgate::history::read_history(good + typo, "h.jsonl"); }),
            "h.jsonl:2: key 'rnus': unknown key: did you mean 'runs'?");
  const std::string mute = R"({"schema": "perfgate-history/1", "mute": {"kernel": "BM_triad",
    "muted": true, "reson": "noisy"}})";
  EXPECT_EQ(refusal([&] { (void)perfgate::history::read_history(one_line(mute), "h.jsonl"); }),
            "h.jsonl:1: key 'mute.reson': unknown key: did you mean 'reason'?");
}

// The device reader's key lists and the JSON Schema users validate against say the same: every
// key the schema lists, at the top, in `peaks` and in `provenance`, is one the reader knows
// (null: present for the key check, absent for every other). The schema validation test
// (tests/schema/validate_reports.py) checks the other way: every file perfgate writes or ships
// holds only keys the schema lists.
TEST(UnknownKeys, TheDeviceSchemaListsExactlyTheKeysTheReaderKnows) {
  std::ifstream in(std::string(PERFGATE_SOURCE_DIR) + "/perfgate/schema/device-1.schema.json");
  const json schema = json::parse(in);
  ASSERT_EQ(schema.at("additionalProperties"), false);
  for (const auto& [object, properties] :
       {std::pair{std::string(), schema.at("properties")},
        std::pair{std::string("peaks"), schema.at("$defs").at("peaks").at("properties")},
        std::pair{std::string("provenance"),
                  schema.at("properties").at("provenance").at("properties")}}) {
    for (const auto& item : properties.items()) {
      auto doc = device_doc();
      json& target = object.empty() ? doc : doc[object];
      if (target.contains(item.key())) {
        continue;
      }
      target[item.key()] = nullptr;
      EXPECT_EQ(device_refusal(doc).find("unknown key"), std::string::npos)
          << object << "." << item.key();
    }
  }
}
