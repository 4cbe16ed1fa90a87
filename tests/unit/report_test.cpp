// SPDX-License-Identifier: Apache-2.0
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/import.hpp>
#include <perfgate/report.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {
perfgate::profile two_kernels() {
  perfgate::profile p;
  p.format = "perfgate-profile/1";
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
  r.meta = perfgate::make_report_meta("predict", {"perfgate", "predict"});
  const auto j = nlohmann::json::parse(perfgate::report_to_json(r));
  EXPECT_EQ(j["schema"], "perfgate-report/1");
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
  EXPECT_NEAR(p["predicted_time_s"].get<double>(), 1.2e10 / 3350e9, 1e-12);
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
    EXPECT_NE(std::string(e.what()).find("--kernel 'gemm' matches no kernel of two.json; its "
                                         "kernels are:\n  void axpy<float>(int, float*)"),
              std::string::npos);
  }
  EXPECT_THROW((void)perfgate::predict_report(two_kernels(), devices(), "(unclosed"),
               perfgate::usage_error);
  EXPECT_THROW((void)perfgate::predict_report(two_kernels(), {}), perfgate::usage_error);
}

TEST(Report, MarkdownAndTextShowEveryDevice) {
  const auto r = perfgate::predict_report(two_kernels(), devices());
  const auto md = perfgate::report_to_markdown(r);
  EXPECT_NE(md.find("### `reduce\\|sum(double const*)`"), std::string::npos); // pipe escaped
  EXPECT_NE(md.find("| h100-sxm |"), std::string::npos);
  EXPECT_NE(md.find("| mi300x |"), std::string::npos);
  EXPECT_NE(md.find("declared work: no instruction-mix terms"), std::string::npos);
  const auto text = perfgate::report_to_text(r);
  EXPECT_NE(text.find("kernel void axpy<float>(int, float*)"), std::string::npos);
  EXPECT_NE(text.find("3.582 ms"), std::string::npos); // 1.2e10 B / 3350 GB/s
}

TEST(Report, FormatNames) {
  EXPECT_EQ(perfgate::parse_report_format("json"), perfgate::report_format::json);
  EXPECT_EQ(perfgate::parse_report_format("md"), perfgate::report_format::markdown);
  EXPECT_EQ(perfgate::parse_report_format("text"), perfgate::report_format::text);
  try {
    (void)perfgate::parse_report_format("xml");
    FAIL();
  } catch (const perfgate::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "unknown format 'xml': expected text, json, md or html");
  }
}

TEST(Report, JsonReadsBackWhatItWrote) {
  auto r = perfgate::predict_report(two_kernels(), devices());
  r.meta = perfgate::make_report_meta("predict", {"perfgate", "predict"});
  const std::string text = perfgate::report_to_json(r);
  const auto back = perfgate::report_from_json(text, "r.json");
  EXPECT_EQ(perfgate::report_to_json(back), text); // every written field survives
  EXPECT_THROW((void)perfgate::report_from_json("{\"schema\": \"perfgate-report/2\"}", "r.json"),
               perfgate::input_error);
}
