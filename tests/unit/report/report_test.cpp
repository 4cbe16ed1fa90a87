// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/gate.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>
#include <perfgate/writers.hpp>

#include "clocked_kernel.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace {
perfgate::profile two_kernels() {
  perfgate::profile p;
  p.format = perfgate::profile_format::perfgate_json;
  p.source_file = "two.json";
  p.device_name = "NVIDIA H100 80GB HBM3";
  for (const char* name : {"void axpy<float>(int, float*)", "reduce|sum(double const*)"}) {
    perfgate::kernel_profile k;
    k.name = name;
    k.invocations = 2;
    k.work = perfgate::declared_work{2.0e9, 0, 0, 1.2e10};
    k.duration = perfgate::duration_stats::from_samples({2e-3, 3e-3});
    k.time_s = k.duration->total_s;
    p.kernels.push_back(k);
  }
  return p;
}

std::vector<perfgate::device> devices() {
  return {perfgate::resolve_device("h100-sxm"), perfgate::resolve_device("mi300x")};
}
} // namespace

TEST(Report, JsonCarriesTheContractFields) {
  auto r = perfgate::predict_report(two_kernels(), devices());
  r.meta = perfgate::make_run_meta("predict", {"perfgate", "predict"});
  const auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  EXPECT_EQ(j["schema"], "perfgate-report/2");
  EXPECT_EQ(j["meta"]["command"], "predict");
  EXPECT_EQ(j["meta"]["timestamp"].get<std::string>().size(), 20U); // 2026-11-22T04:14:53Z
  ASSERT_EQ(j["kernels"].size(), 2U);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["name"], "void axpy<float>(int, float*)");
  EXPECT_EQ(k["invocations"], 2);
  for (const char* key :
       {"K_type", "W_comp", "W_traf", "E_mix", "D_ops", "D_ldst", "D_other", "O_krn"}) {
    EXPECT_TRUE(k["params"].contains(key)) << key;
  }
  EXPECT_EQ(k["params"]["model"], "roofline");
  EXPECT_TRUE(k["params"]["E_mix"].is_null()); // declared work has no mix terms
  EXPECT_DOUBLE_EQ(k["measured"]["time_s"].get<double>(), 5e-3);
  ASSERT_EQ(k["predictions"].size(), 2U);
  const auto& p = k["predictions"][0];
  EXPECT_EQ(p["device"], "h100-sxm");
  for (const char* key : {"T_op", "W_op", "W_ldst", "W_other", "C_op", "C_ldst", "C_other",
                          "E_instr", "T_op_adj", "O_dev", "bound", "T_pred", "predicted_time_s"}) {
    EXPECT_TRUE(p.contains(key)) << key;
  }
  EXPECT_EQ(p["bound"], "memory"); // O_krn 0.17 flop/B
  EXPECT_NEAR(p["predicted_time_s"].get<double>(), 1.2e10 / 3352.32e9, 1e-12);
  // The roof: a datasheet device's DRAM roof is its datasheet bandwidth.
  EXPECT_EQ(p["roof"]["bound"], "memory");
  EXPECT_EQ(p["roof"]["limiter"], "dram");
  EXPECT_NEAR(p["roof"]["time_s"].get<double>(), 1.2e10 / 3352.32e9, 1e-12);
  EXPECT_EQ(p["roof"]["terms"].size(), 2U);
  EXPECT_TRUE(p["roof"]["co_issue"].get<bool>());
  // Read back, the roof is the same.
  const auto back = perfgate::report_from_json(perfgate::report_to_json(r), "r.json");
  ASSERT_TRUE(back.kernels[0].predictions[0].roof);
  EXPECT_EQ(back.schema_version, 2);
  EXPECT_EQ(back.kernels[0].predictions[0].roof->terms.size(), 2U);
  EXPECT_DOUBLE_EQ(back.kernels[0].predictions[0].roof->time_s,
                   r.kernels[0].predictions[0].roof->time_s);
  EXPECT_EQ(k["verdict"]["status"], "skip");
  EXPECT_TRUE(k["verdict"]["efficiency"].is_null());
}

TEST(Report, KernelRegexSelectsAndExplainsWhenNothingMatches) {
  const auto r = perfgate::predict_report(two_kernels(), devices(), "^reduce\\|");
  ASSERT_EQ(r.kernels.size(), 1U);
  EXPECT_EQ(r.kernels[0].name, "reduce|sum(double const*)");
  try {
    (void)perfgate::predict_report(two_kernels(), devices(), "gemm");
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    // The library names its argument; the command names its own option for it.
    EXPECT_EQ(e.argument(), "kernel_regex");
    EXPECT_NE(std::string(e.what()).find("'gemm' matches no kernel of two.json; its 2 "
                                         "kernels are:\n  void axpy<float>(int, float*)"),
              std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("--kernel"), std::string::npos);
  }
  EXPECT_THROW((void)perfgate::predict_report(two_kernels(), devices(), "(unclosed"),
               perfgate::usage_error);
  EXPECT_THROW((void)perfgate::predict_report(two_kernels(), {}), perfgate::usage_error);
}

TEST(Report, MarkdownAndTextShowEveryDevice) {
  const auto r = perfgate::predict_report(two_kernels(), devices());
  const auto md = perfgate::report_to_markdown(r);
  // The short name heads the kernel's details, the full one below it; pipes escaped in both.
  EXPECT_NE(md.find("#### `reduce\\|sum`"), std::string::npos);
  EXPECT_NE(md.find("`reduce\\|sum(double const*)`"), std::string::npos);
  EXPECT_NE(md.find("| h100-sxm |"), std::string::npos);
  EXPECT_NE(md.find("| mi300x |"), std::string::npos);
  EXPECT_NE(md.find("declared work: no instruction-mix terms"), std::string::npos);
  const auto text = perfgate::report_to_text(r);
  EXPECT_NE(text.find("kernel void axpy<float>(int, float*)"), std::string::npos);
  EXPECT_NE(text.find("3.580 ms"), std::string::npos); // 1.2e10 B / 3352.32 GB/s
}

TEST(Report, JsonReadsBackWhatItWrote) {
  auto r = perfgate::predict_report(two_kernels(), devices());
  r.meta = perfgate::make_run_meta("predict", {"perfgate", "predict"});
  const std::string text = perfgate::report_to_json(r);
  const auto back = perfgate::report_from_json(text, "r.json");
  EXPECT_EQ(perfgate::report_to_json(back), text); // every written field survives
  EXPECT_THROW((void)perfgate::report_from_json("{\"schema\": \"perfgate-report/2\"}", "r.json"),
               perfgate::input_error);
}

namespace {
// A compute-bound fp32 kernel (O_krn 1000 flop/B) measured at `clock_mhz`, power-capped.
perfgate::profile clocked_kernel(double clock_mhz) {
  return perfgate::test::clocked_kernel(clock_mhz, {"sw_power_cap"});
}

std::vector<perfgate::device> two_h100s() {
  auto other = perfgate::resolve_device("h100-sxm");
  other.id = "h100-other"; // same peaks and clock, but not the local device
  return {perfgate::resolve_device("h100-sxm"), other};
}
} // namespace

TEST(Report, ScaleLocalClockScalesOnlyTheFirstDevice) {
  const auto r = perfgate::predict_report(clocked_kernel(1410), two_h100s(), "", true);
  const auto& k = r.kernels.at(0);
  ASSERT_EQ(k.predictions.size(), 2U);
  const auto& local = k.predictions[0];
  const auto& other = k.predictions[1];
  ASSERT_TRUE(local.clock_scale);
  EXPECT_DOUBLE_EQ(*local.clock_scale, 1410.0 / 1980.0);
  EXPECT_DOUBLE_EQ(local.T_op, 66908.16 * 1410.0 / 1980.0);
  EXPECT_DOUBLE_EQ(local.predicted_time_s / other.predicted_time_s, 1980.0 / 1410.0);
  EXPECT_FALSE(other.clock_scale);
  EXPECT_EQ(other.T_op, 66908.16);
  EXPECT_EQ(r.devices[0].peaks.fp32_gflops, 66908.16); // the report keeps the device as given
  ASSERT_TRUE(k.measured);
  EXPECT_EQ(k.measured->sm_clock_mhz, 1410.0);
  EXPECT_EQ(k.measured->clock_limits, std::vector<std::string>{"sw_power_cap"});

  // Off by default (perfgate predict: the profile need not come from the first device).
  const auto plain = perfgate::predict_report(clocked_kernel(1410), two_h100s());
  EXPECT_FALSE(plain.kernels[0].predictions[0].clock_scale);
  EXPECT_EQ(plain.kernels[0].predictions[0].T_op, 66908.16);
  EXPECT_EQ(plain.kernels[0].measured->sm_clock_mhz, 1410.0); // still reported
}

TEST(Report, ScaleLocalClockIgnoresDifferencesWithinHalfAPercent) {
  const auto scale_at = [](double mhz) {
    return perfgate::predict_report(clocked_kernel(mhz), two_h100s(), "", true)
        .kernels[0]
        .predictions[0]
        .clock_scale;
  };
  EXPECT_FALSE(scale_at(1980));
  EXPECT_FALSE(scale_at(1971)); // -0.45%
  EXPECT_FALSE(scale_at(1989)); // +0.45%
  ASSERT_TRUE(scale_at(1965));  // -0.76%
  EXPECT_DOUBLE_EQ(*scale_at(1965), 1965.0 / 1980.0);
  ASSERT_TRUE(scale_at(2000)); // +1.01%: a clock above the peaks' raises the roof
  EXPECT_DOUBLE_EQ(*scale_at(2000), 2000.0 / 1980.0);

  // No clock on either side: nothing to scale.
  auto p = clocked_kernel(1410);
  p.kernels[0].sm_clock_mhz.reset();
  EXPECT_FALSE(
      perfgate::predict_report(p, two_h100s(), "", true).kernels[0].predictions[0].clock_scale);
  auto devices = two_h100s();
  devices[0].sm_clock_mhz.reset();
  EXPECT_FALSE(perfgate::predict_report(clocked_kernel(1410), devices, "", true)
                   .kernels[0]
                   .predictions[0]
                   .clock_scale);
}

TEST(Report, JsonRoundTripKeepsClockFields) {
  auto r = perfgate::predict_report(clocked_kernel(1410), two_h100s(), "", true);
  r.meta = perfgate::make_run_meta("run", {"perfgate", "run"});
  const std::string text = perfgate::report_to_json(r);
  const auto j = nlohmann::json::parse(text);
  const auto& k = j["kernels"][0];
  EXPECT_EQ(k["measured"]["sm_clock_mhz"], 1410.0);
  EXPECT_EQ(k["measured"]["clock_limits"], nlohmann::json::array({"sw_power_cap"}));
  EXPECT_DOUBLE_EQ(k["predictions"][0]["clock_scale"].get<double>(), 1410.0 / 1980.0);
  EXPECT_FALSE(k["predictions"][1].contains("clock_scale"));

  const auto back = perfgate::report_from_json(text, "r.json");
  EXPECT_EQ(back.kernels[0].measured->sm_clock_mhz, 1410.0);
  EXPECT_EQ(back.kernels[0].measured->clock_limits, std::vector<std::string>{"sw_power_cap"});
  EXPECT_DOUBLE_EQ(*back.kernels[0].predictions[0].clock_scale, 1410.0 / 1980.0);
  EXPECT_FALSE(back.kernels[0].predictions[1].clock_scale);
  EXPECT_EQ(perfgate::report_to_json(back), text);

  // Reports without clocks carry no clock keys.
  EXPECT_EQ(
      perfgate::report_to_json(perfgate::predict_report(two_kernels(), devices())).find("clock"),
      std::string::npos);

  auto bad = j;
  bad["kernels"][0]["predictions"][0]["clock_scale"] = "0.7";
  try {
    (void)perfgate::report_from_json(bad.dump(), "r.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(std::string(e.what()), "r.json: key 'kernels[0].predictions[0].clock_scale': "
                                     "expected a number, found string \"0.7\"");
  }
  bad = j;
  bad["kernels"][0]["measured"]["clock_limits"] = {"sw_power_cap", false};
  try {
    (void)perfgate::report_from_json(bad.dump(), "r.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(std::string(e.what()), "r.json: key 'kernels[0].measured.clock_limits[1]': "
                                     "expected a string, found boolean false");
  }
}

TEST(Report, WritersShowTheClockOnlyWhereMeasured) {
  auto r = perfgate::predict_report(clocked_kernel(1410), two_h100s(), "", true);
  r.kernels[0].result.device = "h100-sxm"; // as the gate leaves it: the local table
  const auto text = perfgate::report_to_text(r);
  // The profile holds the time alone: its sample count is unknown, not 0.
  EXPECT_NE(text.find("measured: 25.000 ms, sample count unknown, SM clock 1410 MHz\n  clocks "
                      "held down by: sw_power_cap\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  h100-sxm: compute peaks scaled by 0.712 to the SM clock the kernel ran "
                      "at\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("h100-other: compute peaks scaled"), std::string::npos);
  const auto md = perfgate::report_to_markdown(r);
  EXPECT_NE(md.find("| measured | SM clock | roof |"), std::string::npos) << md;
  EXPECT_NE(md.find("| 1410 MHz, roof ×0.712 |"), std::string::npos) << md;
  EXPECT_NE(md.find("Measured at SM clock 1410 MHz; clocks held down by: sw_power_cap."),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("h100-sxm's compute peaks scaled by 0.712"), std::string::npos) << md;

  auto plain = perfgate::predict_report(two_kernels(), devices());
  for (auto& k : plain.kernels) {
    k.result.device = "h100-sxm";
  }
  EXPECT_EQ(perfgate::report_to_markdown(plain).find("clock"), std::string::npos);
  EXPECT_EQ(perfgate::report_to_text(plain).find("clock"), std::string::npos);
}

TEST(Report, FormatOneReportsAreReadWithoutRoofs) {
  auto r = perfgate::predict_report(two_kernels(), devices());
  auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  j["schema"] = "perfgate-report/1";
  for (auto& k : j["kernels"]) {
    for (auto& p : k["predictions"]) {
      p.erase("roof");
    }
  }
  const auto old = perfgate::report_from_json(j.dump(), "old.json");
  EXPECT_EQ(old.schema_version, 1);
  EXPECT_FALSE(old.kernels[0].predictions[0].roof);
  j["schema"] = "perfgate-report/3";
  try {
    (void)perfgate::report_from_json(j.dump(), "new.json");
    FAIL() << "a future major version was read";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("reads report format major versions 1 and 2"),
              std::string::npos)
        << e.what();
  }
}

// A kernel name that is not UTF-8 (a CSV holds bytes) is kept readable with U+FFFD: the report
// is written and valid JSON, where it used to throw and lose the verdict.
TEST(Report, NonUtf8KernelNameBecomesReplacementCharacter) {
  auto p = two_kernels();
  p.kernels[0].name = "bad\xff\xfename<\xc3(int)"; // two stray bytes, a truncated sequence
  auto r = perfgate::predict_report(p, devices());
  r.meta = perfgate::make_run_meta("run", {"perfgate", "run", "--", "prog\xff"});
  EXPECT_EQ(r.kernels[0].name, "bad\xEF\xBF\xBD\xEF\xBF\xBDname<\xEF\xBF\xBD(int)");
  const auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  EXPECT_EQ(j["kernels"][0]["name"], "bad\xEF\xBF\xBD\xEF\xBF\xBDname<\xEF\xBF\xBD(int)");
  EXPECT_EQ(j["meta"]["argv"][3], "prog\xEF\xBF\xBD");
  const auto back = perfgate::report_from_json(perfgate::report_to_json(r), "r.json");
  EXPECT_EQ(back.kernels[0].name, r.kernels[0].name);
}

// With thousands of kernels, "matches no kernel" names the first 20 and counts the rest.
TEST(Report, NoMatchMessageIsCappedForHugeProfiles) {
  auto p = two_kernels();
  const auto k = p.kernels[0];
  p.kernels.clear();
  for (int i = 0; i < 5000; ++i) {
    p.kernels.push_back(k);
    p.kernels.back().name = "kernel_" + std::to_string(i);
  }
  try {
    (void)perfgate::predict_report(p, devices(), "gemm");
    FAIL() << "expected usage_error";
  } catch (const perfgate::usage_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("its 5000 kernels are:\n  kernel_0\n"), std::string::npos) << what;
    EXPECT_NE(what.find("\n  kernel_19\n  ... and 4980 more"), std::string::npos) << what;
    EXPECT_EQ(what.find("kernel_20"), std::string::npos);
    EXPECT_LT(what.size(), 600U);
  }
}

// Issue 20: every timed sample, in the order measured, travels into the report and back; a
// report whose samples disagree with its statistics is refused, naming the key.
TEST(Report, JsonCarriesEveryTimedSample) {
  auto p = two_kernels();
  p.kernels[0].duration = perfgate::duration_stats::from_samples({3e-3, 1e-3, 2e-3});
  auto r = perfgate::predict_report(p, devices());
  r.meta = perfgate::make_run_meta("predict", {"perfgate", "predict"});
  const std::string text = perfgate::report_to_json(r);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["kernels"][0]["measured"]["samples_s"], nlohmann::json::array({3e-3, 1e-3, 2e-3}));
  const auto back = perfgate::report_from_json(text, "r.json");
  EXPECT_EQ(back.kernels[0].measured->stats->samples_s, (std::vector<double>{3e-3, 1e-3, 2e-3}));

  const auto refused = [&](nlohmann::json bad) {
    try {
      (void)perfgate::report_from_json(bad.dump(), "r.json");
    } catch (const perfgate::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  auto bad = j;
  bad["kernels"][0]["measured"]["samples_s"] = {3e-3, 1e-3};
  EXPECT_EQ(refused(bad), "r.json: key 'kernels[0].measured.samples_s': holds 2 samples, but "
                          "samples says 3");
  bad = j;
  bad["kernels"][0]["measured"]["samples_s"] = {3e-3, 1e-3, 4e-3};
  EXPECT_EQ(refused(bad), "r.json: key 'kernels[0].measured.samples_s': their median 0.003 s "
                          "disagrees with median_s 0.002 s");
  bad = j;
  bad["kernels"][0]["measured"]["samples_s"] = {3e-3, -1e-3, 2e-3};
  EXPECT_EQ(refused(bad), "r.json: key 'kernels[0].measured.samples_s[1]': expected a finite "
                          "number > 0, found -0.001");
}

namespace {
// Two kernels with declared work and one whose declared work cannot feed the model.
perfgate::profile with_unjudgeable_kernel() {
  auto p = two_kernels();
  perfgate::kernel_profile k = p.kernels.front();
  k.name = "no_bytes_kernel";
  k.work = perfgate::declared_work{1.0e9, 0, 0, 0}; // no bytes: its intensity is undefined
  p.kernels.insert(p.kernels.begin() + 1, k);
  return p;
}
} // namespace

TEST(Report, KernelThatCannotBeJudgedIsSkippedWithItsReason) {
  const auto r = perfgate::predict_report(with_unjudgeable_kernel(), devices());
  ASSERT_EQ(r.kernels.size(), 3U);
  const auto& skipped = r.kernels[1];
  EXPECT_EQ(skipped.name, "no_bytes_kernel");
  EXPECT_EQ(skipped.skip_reason, "declared work has no bytes; its intensity is undefined");
  EXPECT_TRUE(skipped.predictions.empty());
  EXPECT_EQ(skipped.result.status, perfgate::verdict_status::skip);
  ASSERT_EQ(skipped.result.reasons.size(), 1U);
  EXPECT_EQ(skipped.result.reasons.front(),
            "cannot be judged: declared work has no bytes; its intensity is undefined");
  ASSERT_TRUE(skipped.measured.has_value()); // its time is still reported
  for (std::size_t i : {0U, 2U}) {
    EXPECT_TRUE(r.kernels[i].skip_reason.empty());
    EXPECT_EQ(r.kernels[i].predictions.size(), 2U);
  }
}

TEST(Report, NoKernelThatCanBeJudgedIsTheFirstKernelsInputError) {
  auto p = with_unjudgeable_kernel();
  p.kernels.erase(p.kernels.begin());
  p.kernels.pop_back();
  try {
    (void)perfgate::predict_report(p, devices());
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_STREQ(e.what(), "two.json: kernel 'no_bytes_kernel': declared work has no bytes; its "
                           "intensity is undefined");
  }
}

TEST(Report, SkippedKernelSurvivesJsonAndEveryWriter) {
  auto r = perfgate::predict_report(with_unjudgeable_kernel(), devices());
  r.meta = perfgate::make_run_meta("predict", {"perfgate", "predict"});
  const std::string text = perfgate::report_to_json(r);
  const auto j = nlohmann::json::parse(text);
  EXPECT_TRUE(j["kernels"][1]["params"].is_null());
  EXPECT_EQ(j["kernels"][1]["skip_reason"], r.kernels[1].skip_reason);
  EXPECT_TRUE(j["kernels"][1]["predictions"].empty());
  const auto back = perfgate::report_from_json(text, "r.json");
  EXPECT_EQ(back.kernels[1].skip_reason, r.kernels[1].skip_reason);
  EXPECT_TRUE(back.kernels[1].predictions.empty());
  EXPECT_EQ(perfgate::report_to_json(back), text);

  EXPECT_NE(perfgate::report_to_markdown(r).find(
                "### Not judged\n\n| kernel | why it cannot be judged |\n| --- | --- |\n"
                "| `no_bytes_kernel` | declared work has no bytes; its intensity is undefined |"),
            std::string::npos)
      << perfgate::report_to_markdown(r);
  EXPECT_NE(perfgate::report_to_text(r).find(
                "kernel no_bytes_kernel\n  not predicted: declared work has no bytes"),
            std::string::npos);
  EXPECT_NE(perfgate::report_to_html(r).find("not predicted: declared work has no bytes"),
            std::string::npos);
  EXPECT_THROW((void)perfgate::report_quadrant_svg(r, 1), perfgate::usage_error);
  EXPECT_NO_THROW((void)perfgate::report_roofline_svg(r, 0));
}

TEST(Report, SkippedKernelWithParamsIsRefused) {
  auto r = perfgate::predict_report(with_unjudgeable_kernel(), devices());
  auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  j["kernels"][1]["params"] = j["kernels"][0]["params"];
  try {
    (void)perfgate::report_from_json(j.dump(), "r.json");
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("r.json: key 'kernels[1].params': a kernel with a "
                                         "skip_reason was not predicted"),
              std::string::npos)
        << e.what();
  }
}

// The report records the local device, so charts need not guess it from names: the profile's
// device name picks it among the devices predicted for (nvprof's "(0)" suffix dropped), a gate
// makes the first device local, and reports written before the field existed get it derived
// from the name on reading.
TEST(Report, RecordsTheLocalDevice) {
  auto p = two_kernels(); // taken on "NVIDIA H100 80GB HBM3"
  EXPECT_EQ(
      perfgate::local_device_named("GeForce GTX 480 (0)", {perfgate::resolve_device("gtx-660"),
                                                           perfgate::resolve_device("gtx-480")}),
      "gtx-480");
  EXPECT_EQ(perfgate::local_device_named("GeForce GTX 480 (0)", devices()), "");
  EXPECT_EQ(perfgate::local_device_named("", devices()), "");

  p.device_name = "GeForce GTX 480 (0)";
  auto r = perfgate::predict_report(p, devices());
  EXPECT_EQ(r.local_device, "") << "measured on none of h100-sxm, mi300x";
  EXPECT_TRUE(
      nlohmann::json::parse(perfgate::report_to_json(r))["profile"]["local_device"].is_null());
  r = perfgate::predict_report(p, devices(), "", /*scale_local_clock=*/true);
  EXPECT_EQ(r.local_device, "h100-sxm") << "the profile was taken on the first device";

  r = perfgate::predict_report(
      p, {perfgate::resolve_device("mi300x"), perfgate::resolve_device("gtx-480")});
  EXPECT_EQ(r.local_device, "gtx-480");
  perfgate::apply_gate(r, perfgate::gate_policy{});
  EXPECT_EQ(r.local_device, "mi300x") << "a gate judges on the first device";

  auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  EXPECT_EQ(j["profile"]["local_device"], "mi300x");
  EXPECT_EQ(perfgate::report_from_json(j.dump(), "r.json").local_device, "mi300x");
  j["profile"].erase("local_device"); // as perfgate 0.1 wrote it
  EXPECT_EQ(perfgate::report_from_json(j.dump(), "old.json").local_device, "gtx-480");
  j["profile"]["local_device"] = "h100-sxm";
  try {
    (void)perfgate::report_from_json(j.dump(), "bad.json");
    FAIL() << "a local device the report does not list was read";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "bad.json: key 'profile.local_device': expected the id of one of the report's "
              "devices, found \"h100-sxm\"");
  }
}

namespace {
// A benchmark that declares bytes alone (SetBytesProcessed): 2.4 GB an iteration, 30 ms.
perfgate::report bytes_only_report() {
  perfgate::profile p;
  p.format = perfgate::profile_format::perfgate_json;
  p.source_file = "bytes.json";
  perfgate::kernel_profile k;
  k.name = "BM_copy/1048576";
  k.work = perfgate::declared_work{0, 0, 0, 2.4e9};
  k.time_s = 0.03;
  p.kernels.push_back(k);
  return perfgate::predict_report(p, devices());
}
} // namespace

// Issue 43: the compute side of a bytes-only kernel is unknown, so the report leaves it out
// (no W_comp 0, no T_pred 0, no int peak of a type nobody declared); its memory side is known
// and written: the roof is the bytes at the DRAM roof, the predicted time the bytes at B_mem.
TEST(Report, BytesOnlyKernelHasNoComputeSideInJson) {
  const auto r = bytes_only_report();
  const auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  const auto& params = j.at("kernels")[0].at("params");
  EXPECT_EQ(params.at("compute_declared"), false);
  for (const char* key : {"K_type", "W_comp", "O_krn"}) {
    EXPECT_FALSE(params.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(params.at("W_traf").get<double>(), 2.4e9);
  const auto h100 = perfgate::resolve_device("h100-sxm");
  const auto& p = j.at("kernels")[0].at("predictions")[0];
  for (const char* key : {"T_op", "T_op_adj", "O_dev", "T_pred"}) {
    EXPECT_FALSE(p.contains(key)) << key;
  }
  EXPECT_DOUBLE_EQ(p.at("B_mem").get<double>(), h100.peaks.dram_gbs);
  EXPECT_DOUBLE_EQ(p.at("predicted_time_s").get<double>(), 2.4e9 / (h100.peaks.dram_gbs * 1e9));
  const auto& roof = p.at("roof");
  EXPECT_FALSE(roof.contains("T_roof"));
  EXPECT_FALSE(roof.contains("O_ridge"));
  // The memory roof's time is known from the bytes: present, and the bytes at the roof's rate.
  EXPECT_EQ(roof.at("bound"), "memory");
  ASSERT_EQ(roof.at("terms").size(), 1U);
  const double rate = roof.at("terms")[0].at("rate").get<double>();
  EXPECT_DOUBLE_EQ(roof.at("time_s").get<double>(), 2.4e9 / (rate * 1e9));
  EXPECT_DOUBLE_EQ(roof.at("B_roof").get<double>(), rate);
}

TEST(Report, BytesOnlyKernelReadsBackAndOldZerosStillRead) {
  const auto r = bytes_only_report();
  const std::string text = perfgate::report_to_json(r);
  const auto back = perfgate::report_from_json(text, "r.json");
  ASSERT_EQ(back.kernels.size(), 1U);
  EXPECT_FALSE(back.kernels[0].params.compute_declared);
  EXPECT_DOUBLE_EQ(back.kernels[0].predictions[0].roof->time_s,
                   r.kernels[0].predictions[0].roof->time_s);
  EXPECT_EQ(perfgate::report_to_json(back), text);

  // Reports written before the compute side was left out held it as zeros (and an int peak):
  // still read, and written again without them.
  auto old = nlohmann::json::parse(text);
  auto& k = old.at("kernels")[0];
  k.at("params")["K_type"] = "int";
  k.at("params")["W_comp"] = 0;
  k.at("params")["O_krn"] = 0;
  for (auto& p : k.at("predictions")) {
    p["T_op"] = 1000.0;
    p["T_op_adj"] = 1000.0;
    p["O_dev"] = 0.3;
    p["T_pred"] = 0;
    p.at("roof")["T_roof"] = 0;
    p.at("roof")["O_ridge"] = 0;
  }
  EXPECT_EQ(perfgate::report_to_json(perfgate::report_from_json(old.dump(), "old.json")), text);

  // Declared operations beside compute_declared false contradict it.
  k.at("params")["W_comp"] = 5;
  try {
    (void)perfgate::report_from_json(old.dump(), "bad.json");
    FAIL() << "W_comp with compute_declared false was read";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("W_comp"), std::string::npos) << e.what();
  }
  // A kernel that declares operations still needs its compute side.
  auto declared = nlohmann::json::parse(
      perfgate::report_to_json(perfgate::predict_report(two_kernels(), devices())));
  declared.at("kernels")[0].at("predictions")[0].erase("T_pred");
  EXPECT_THROW((void)perfgate::report_from_json(declared.dump(), "bad.json"),
               perfgate::input_error);
}

// Issue 53: a BF16 kernel predicted for a V100 (no BF16 path) aborted `predict` for the whole
// profile. Now it cannot be judged on the V100, with the reason, and everything else is predicted.
namespace {
perfgate::profile bf16_and_fp32() {
  perfgate::profile p = two_kernels();
  perfgate::kernel_profile gemm = p.kernels.front();
  gemm.name = "bf16_gemm";
  gemm.work = perfgate::declared_work{0, 0, 0, 1.0e8};
  gemm.work->tensor_ops["tensor_bf16_ops"] = 1.37e11;
  p.kernels.insert(p.kernels.begin(), gemm);
  return p;
}
} // namespace

TEST(Report, AKernelADeviceCannotRunIsNotJudgedThereAndTheRestIsPredicted) {
  const std::vector<perfgate::device> v100_h100 = {perfgate::resolve_device("v100-pcie"),
                                                   perfgate::resolve_device("h100-sxm")};
  const auto r = perfgate::predict_report(bf16_and_fp32(), v100_h100);
  ASSERT_EQ(r.kernels.size(), 3U);
  const auto& gemm = r.kernels[0];
  EXPECT_TRUE(gemm.skip_reason.empty()); // predicted where it can run
  ASSERT_EQ(gemm.predictions.size(), 1U);
  EXPECT_EQ(gemm.predictions[0].device, "h100-sxm");
  const auto f = std::find_if(gemm.result.findings.begin(), gemm.result.findings.end(),
                              [](const auto& x) { return x.code == "cannot_be_judged"; });
  ASSERT_NE(f, gemm.result.findings.end());
  EXPECT_EQ(f->context.words.at("device"), "v100-pcie");
  const std::string reasons = gemm.result.reasons.back();
  EXPECT_EQ(reasons.rfind("cannot be judged: on v100-pcie: device 'v100-pcie' has no tensor_bf16 "
                          "path: no peak 'tensor_bf16_gflops'",
                          0),
            0U)
      << reasons;
  for (std::size_t i = 1; i < 3; ++i) { // the fp32 kernels run on both
    EXPECT_EQ(r.kernels[i].predictions.size(), 2U) << r.kernels[i].name;
  }
  // Every format shows it: the reason is in the JSON, Markdown and text reports.
  for (const char* format : {"json", "md", "text"}) {
    EXPECT_NE(perfgate::render_report(r, format).find("cannot be judged: on v100-pcie"),
              std::string::npos)
        << format;
  }
}

TEST(Report, AKernelNoDeviceCanRunIsSkippedOnlyAProfileOfSuchKernelsIsRefused) {
  const std::vector<perfgate::device> v100 = {perfgate::resolve_device("v100-pcie")};
  const auto r = perfgate::predict_report(bf16_and_fp32(), v100);
  EXPECT_NE(r.kernels[0].skip_reason.find("on v100-pcie: device 'v100-pcie' has no tensor_bf16"),
            std::string::npos);
  EXPECT_TRUE(r.kernels[0].predictions.empty());
  EXPECT_EQ(r.kernels[1].predictions.size(), 1U);
  // Gated on the V100, the BF16 kernel is a skip with its reason, the others are judged.
  auto gated = r;
  perfgate::apply_gate(gated, perfgate::gate_policy{}, {});
  EXPECT_EQ(gated.kernels[0].result.status, perfgate::verdict_status::skip);
  EXPECT_NE(gated.kernels[1].result.status, perfgate::verdict_status::skip);
  EXPECT_THROW((void)perfgate::predict_report(bf16_and_fp32(), v100, "bf16"), perfgate::input_error);
}

TEST(Report, GatedOnADeviceThatCannotRunItTheKernelIsNotJudgedThere) {
  // The local device (the first) lacks BF16, another has it: not judged, never judged against
  // the other device's roof.
  const std::vector<perfgate::device> v100_h100 = {perfgate::resolve_device("v100-pcie"),
                                                   perfgate::resolve_device("h100-sxm")};
  auto r = perfgate::predict_report(bf16_and_fp32(), v100_h100);
  perfgate::apply_gate(r, perfgate::gate_policy{}, {});
  EXPECT_EQ(r.kernels[0].result.status, perfgate::verdict_status::skip);
  EXPECT_FALSE(r.kernels[0].result.efficiency);
  ASSERT_EQ(r.kernels[0].result.findings.size(), 1U);
  EXPECT_EQ(r.kernels[0].result.findings[0].code, "cannot_be_judged");
  // Gated on the H100 with the V100 beside it: judged, the V100's finding kept beside it.
  const std::vector<perfgate::device> h100_v100 = {v100_h100[1], v100_h100[0]};
  auto s = perfgate::predict_report(bf16_and_fp32(), h100_v100);
  perfgate::apply_gate(s, perfgate::gate_policy{}, {});
  EXPECT_TRUE(s.kernels[0].result.efficiency);
  EXPECT_EQ(s.kernels[0].result.findings.back().code, "cannot_be_judged");
}
