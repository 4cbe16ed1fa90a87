// SPDX-License-Identifier: Apache-2.0
// The boat hull model's class language, Table 1 and the band's assumptions (model/hull.cpp).
// Device numbers are the paper's (built-in gtx470, q8300) so every expected time is a hand
// computation from Table 2 / Table 3.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/hull.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
namespace hull = perfgate::hull;

std::string error_of(const std::string& species) {
  try {
    (void)hull::classify(hull::parse_species(species), hull::target::gpu);
  } catch (const perfgate::usage_error& e) {
    EXPECT_EQ(e.argument(), "species");
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << species;
  return {};
}

hull::prediction band_of(const std::string& species, double f, const std::string& device,
                         hull::assumptions a = {}) {
  const auto d = perfgate::resolve_device(device);
  const auto t = d.kind == "cpu" ? hull::target::cpu : hull::target::gpu;
  return hull::predict(hull::classify(hull::parse_species(species), t), f,
                       hull::rates_of(d, a.one_core), a);
}

TEST(HullSpecies, ParsesThePapersSpellings) {
  const auto a = hull::parse_species("1024x1024|element -> 1024x1024|element");
  const auto b = hull::parse_species("  1024\u00d71024 element \u2192 1024x1024   element ");
  EXPECT_EQ(a.to_string(), b.to_string());
  EXPECT_EQ(a.to_string(), "1024x1024|element -> 1024x1024|element");
  const auto n = hull::parse_species("64x64 neighborhood(3x5) -> 64x64 element");
  EXPECT_EQ(n.inputs[0].pattern, hull::pattern_kind::neighbourhood);
  EXPECT_EQ(n.inputs[0].shape, (std::vector<std::uint64_t>{3, 5}));
  EXPECT_EQ(hull::parse_species("64x64 neighb(7) -> 64x64 element").inputs[0].shape,
            (std::vector<std::uint64_t>{7}));
  const auto u = hull::parse_species("unordered 8x8|element -> 8x8|element");
  EXPECT_TRUE(u.unordered);
  EXPECT_EQ(u.to_string(), "unordered 8x8|element -> 8x8|element");
  const auto two = hull::parse_species("16|element ^ 16|element -> 16|element");
  EXPECT_EQ(two.inputs.size(), 2u);
}

TEST(HullSpecies, BadInputNamesTheToken) {
  EXPECT_NE(error_of("1024|elemnt -> 1024|element").find("pattern 'elemnt'"), std::string::npos);
  EXPECT_NE(error_of("10a24|element -> 1024|element").find("size '10a24'"), std::string::npos);
  EXPECT_NE(error_of("0|element -> 0|element").find("size '0'"), std::string::npos);
  EXPECT_NE(error_of("1024|element").find("expected INPUT -> OUTPUT"), std::string::npos);
  EXPECT_NE(error_of("1024|element -> 1024|element -> 1024|element").find("one '->'"),
            std::string::npos);
  EXPECT_NE(error_of("1024element -> 1024|element").find("'1024element'"), std::string::npos);
  EXPECT_NE(error_of("64x64|tile(8) -> 64|element").find("expected tile(UxV)"), std::string::npos);
  EXPECT_NE(error_of("64x64|tile(8x8 -> 64|element").find("unbalanced parentheses"),
            std::string::npos);
  EXPECT_NE(error_of("4x4x4|element -> 64|element").find("at most 2 dimensions"),
            std::string::npos);
  EXPECT_NE(error_of("8|element -> 8|element ^ 8|element").find("one output"), std::string::npos);
  // Sizes stay exact: at most 2^31 per dimension and 2^53 elements.
  EXPECT_NE(error_of("4294967296|element -> 4294967296|element").find("larger than 2147483648"),
            std::string::npos);
  EXPECT_NE(error_of("2147483648x2147483648|element -> 1|shared").find("more than 2^53"),
            std::string::npos);
  EXPECT_NE(error_of("8|element ^ 8|element ^ 8|element -> 8|element").find("at most two"),
            std::string::npos);
}

TEST(HullClasses, RejectsWhatNoRowDescribes) {
  EXPECT_NE(error_of("1024|element -> 512|element").find("same size on both sides"),
            std::string::npos);
  EXPECT_NE(error_of("64x64|tile(3x3) -> 441|element").find("must divide"), std::string::npos);
  EXPECT_NE(error_of("64x64|tile(8x8) -> 10|element").find("one output element per tile (64)"),
            std::string::npos);
  EXPECT_NE(error_of("unordered 64|element -> 1|shared").find("'unordered' is a class for"),
            std::string::npos);
  EXPECT_NE(error_of("64|shared -> 64|element").find("output pattern"), std::string::npos);
  EXPECT_NE(error_of("64|element -> 64|neighbourhood(3)").find("input pattern"), std::string::npos);
  EXPECT_NE(error_of("64|neighbourhood(3x3) -> 64|element").find("2-D input"), std::string::npos);
  EXPECT_NE(error_of("8|element ^ 8|element -> 16|element").find("one size on all three sides"),
            std::string::npos);
  EXPECT_THROW(
      (void)hull::classify(hull::parse_species("8|element -> 8|element"), hull::target::gpu, 3, 0),
      perfgate::usage_error);             // alpha belongs to neighbourhood classes
  EXPECT_EQ(hull::classes().size(), 12u); // Table 1's 11 rows and the case study's Y-projection
}

TEST(HullBand, FmaAndCoalescingAssumptionsWidenOrNarrowTheBand) {
  // X-projection of 1024x1024 on the GTX470 with f = 1 is memory-bound at both floors:
  // m0 = 4 (A B + A) / 95e9, m1 = 4 (A B + A) / 5.9e9.
  const std::string x = "1024x1024|tile(1x1024) -> 1024|element";
  const double d = 1024.0 * 1024 + 1024, m0 = 4 * d / 95e9, m1 = 4 * d / 5.9e9;
  hull::assumptions a;
  auto p = band_of(x, 1, "gtx470", a);
  EXPECT_DOUBLE_EQ(p.band_s.lo, m0);
  EXPECT_DOUBLE_EQ(p.band_s.hi, m1);
  EXPECT_EQ(p.bound, "memory");
  a.coalesced = hull::coalescing::known;
  p = band_of(x, 1, "gtx470", a);
  EXPECT_DOUBLE_EQ(p.band_s.hi, m0);
  EXPECT_FALSE(p.times_s.contains("m1"));
  a.coalesced = hull::coalescing::scattered;
  p = band_of(x, 1, "gtx470", a);
  EXPECT_DOUBLE_EQ(p.band_s.lo, m1);
  // A compute-bound element -> element (f = 1000): FMA unknown spans c0 .. 2 c0; no FMA is 2 c0.
  const std::string e = "1024|element -> 1024|element";
  const double c0 = 1024 * (1000.0 + 16) / 1089e9;
  a = {};
  p = band_of(e, 1000, "gtx470", a);
  EXPECT_DOUBLE_EQ(p.band_s.lo, c0);
  EXPECT_DOUBLE_EQ(p.band_s.hi, 2 * c0);
  EXPECT_EQ(p.bound, "compute");
  a.fma = hull::fma_use::no;
  EXPECT_DOUBLE_EQ(band_of(e, 1000, "gtx470", a).band_s.lo, 2 * c0);
  a.fma = hull::fma_use::yes;
  EXPECT_DOUBLE_EQ(band_of(e, 1000, "gtx470", a).band_s.hi, c0);
  // At the crossover f both terms meet: the class is memory-bound below it.
  const double f_star = p.crossover_f.at("c0");
  EXPECT_NEAR(band_of(e, f_star, "gtx470", a).times_s.at("c0"), p.times_s.at("m0"), 1e-18);
  EXPECT_EQ(band_of(e, f_star * 0.9, "gtx470", a).bound, "memory");
  EXPECT_EQ(band_of(e, f_star * 1.1, "gtx470", a).bound, "compute");
}

TEST(HullBand, AnOverflowingBandIsRefusedNotInfinite) {
  EXPECT_THROW((void)band_of("1048576|element -> 1048576|element", 1e308, "gtx470"),
               perfgate::usage_error);
}

TEST(HullBand, TransfersAddOnceAndNeedTheBus) {
  hull::assumptions a;
  a.transfers = true;
  const auto p = band_of("1024|element -> 1024|element", 2, "gtx470", a);
  EXPECT_DOUBLE_EQ(p.times_s.at("t0"), 4 * 2048 / 5.1e9);
  EXPECT_DOUBLE_EQ(p.band_s.lo, p.times_s.at("m0") + p.times_s.at("t0"));
  auto r = hull::rates_of(perfgate::resolve_device("gtx470"), false);
  r.bus_gbs.reset();
  try {
    (void)hull::predict(
        hull::classify(hull::parse_species("8|element -> 8|element"), hull::target::gpu), 1, r, a);
    ADD_FAILURE() << "no bus, no transfer time";
  } catch (const perfgate::usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("states no peaks.bus_gbs"), std::string::npos);
  }
}

TEST(HullBand, CpuFloorsAreVectorLanesAndThreads) {
  // Q8300: 40 GFLOPS, 4.7 GB/s, 4 threads, 128-bit vectors: 4 lanes of 32-bit elements, 2 of
  // 64-bit ones.
  const std::string e = "1024|element -> 1024|element";
  const auto p = band_of(e, 100, "q8300");
  const double c0 = 1024 * (100.0 + 4) / 40e9;
  EXPECT_DOUBLE_EQ(p.times_s.at("c0"), c0);
  EXPECT_DOUBLE_EQ(p.times_s.at("c1"), 4 * c0);
  EXPECT_DOUBLE_EQ(p.times_s.at("c2"), 4 * c0);
  EXPECT_DOUBLE_EQ(p.times_s.at("c3"), 16 * c0);
  EXPECT_DOUBLE_EQ(p.times_s.at("m0"), 4 * 2048 / 4.7e9);
  EXPECT_DOUBLE_EQ(p.band_s.hi, 4 * c0);
  hull::assumptions a;
  a.element_bytes = 8;
  EXPECT_DOUBLE_EQ(band_of(e, 100, "q8300", a).times_s.at("c1"), 2 * c0);
  a.element_bytes = 4;
  a.vector = hull::vectorised::yes;
  EXPECT_DOUBLE_EQ(band_of(e, 100, "q8300", a).band_s.hi, c0);
  a.one_core = true; // the paper's CPUs carry no one-core peaks
  EXPECT_THROW((void)band_of(e, 100, "q8300", a), perfgate::usage_error);
}

// A calibrated CPU: P_memory is the measured pattern of the class's own mix (STREAM's triad for
// two inputs and one output), not the fastest pattern (reads alone).
TEST(HullBand, CpuMemoryIsTheMeasuredPatternOfTheClassMix) {
  auto d = perfgate::resolve_device("q8300");
  d.extra_peaks["dram_read_gbs"] = 20;
  d.extra_peaks["dram_triad_gbs"] = 10;
  const auto r = hull::rates_of(d, false);
  const auto k = hull::classify(hull::parse_species("1024|element ^ 1024|element -> 1024|element"),
                                hull::target::cpu);
  EXPECT_EQ(k.read_elements, 2048);
  EXPECT_EQ(k.write_elements, 1024);
  EXPECT_DOUBLE_EQ(hull::predict(k, 1, r, {}).times_s.at("m0"), 4 * 3072 / 10e9);
}

TEST(HullApplication, ReadsTheFileAndNamesBadKeys) {
  const auto app = hull::application_from_json(
      R"({"schema": "perfgate-hull-app/1", "name": "two", "transfer_elements": 2048,
          "primitives": [{"name": "a", "species": "1024|element -> 1024|element", "f": 2},
                         {"name": "b", "species": "1024|element -> 1|shared", "f": 1,
                          "fma": "no", "coalescing": "known"}]})",
      "app.json");
  ASSERT_EQ(app.primitives.size(), 2u);
  EXPECT_EQ(*app.primitives[1].fma, hull::fma_use::no);
  const auto p =
      hull::predict_application(app, hull::rates_of(perfgate::resolve_device("gtx470"), false), {});
  EXPECT_DOUBLE_EQ(p.kernels_s.lo, p.primitives[0].band_s.lo + p.primitives[1].band_s.lo);
  EXPECT_DOUBLE_EQ(*p.transfers_s, 4 * 2048 / 5.1e9);
  EXPECT_DOUBLE_EQ(p.total_s.hi, p.kernels_s.hi + *p.transfers_s);
  for (const auto& [text, key] : std::vector<std::pair<std::string, std::string>>{
           {R"({"schema": "perfgate-hull-app/1", "primitives": []})", "primitives"},
           {R"({"schema": "perfgate-hull-app/1", "primitives": [{"name": "a",
               "species": "8|element -> 8|element", "f": 0}]})",
            "primitives[0].f"},
           {R"({"schema": "perfgate-hull-app/1", "primitives": [{"name": "a",
               "species": "8|element -> 8|element", "f": 1, "fma": "maybe"}]})",
            "primitives[0].fma"},
           {R"({"schema": "perfgate-hull/1", "primitives": []})", "schema"}}) {
    try {
      (void)hull::application_from_json(text, "app.json");
      ADD_FAILURE() << text;
    } catch (const perfgate::input_error& e) {
      EXPECT_EQ(e.file(), "app.json");
      EXPECT_NE(e.where().find(key), std::string::npos) << e.what();
    }
  }
}

} // namespace
