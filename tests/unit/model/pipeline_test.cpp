// SPDX-License-Identifier: Apache-2.0
// The pipeline simulator's rules beyond Eq. 1 (MODEL.md section 5): groups admitted up to the
// occupancy limit, barriers across the warps of a group, in-order issue, the issue width,
// refused graphs.
#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace {
namespace pl = perfgate::pipeline;
constexpr pl::latency fermi_fadd{1, 18}; // Fermi (Table II); glibc declares ::fadd

pl::instruction op(std::string name, std::vector<std::size_t> deps, pl::latency l = fermi_fadd,
                   pl::unit u = pl::unit::alu) {
  pl::instruction in;
  in.op = std::move(name);
  in.pipe = u;
  in.lat = l;
  in.deps = std::move(deps);
  return in;
}
} // namespace

TEST(PipelineSimulator, GroupsBeyondTheOccupancyLimitWaitForAFreeSlot) {
  const auto g = pl::dependent_chain(fermi_fadd, 10);
  pl::sim_config c;
  c.groups = 3;
  c.resident_groups = 1;
  EXPECT_EQ(pl::simulate(g, c).cycles, 3 * 180.0); // one after the other
  c.resident_groups = 3;
  EXPECT_EQ(pl::simulate(g, c).cycles, pl::eq1_cycles(fermi_fadd, 10, 3)); // side by side
  c.resident_groups = 8; // admits min(M, N) groups, not M + 1
  EXPECT_EQ(pl::simulate(g, c).cycles, pl::eq1_cycles(fermi_fadd, 10, 3));
  EXPECT_EQ(pl::simulate(g, c).instructions, 30U);
}

TEST(PipelineSimulator, ABarrierWaitsForItsDepsInEveryWarpOfTheGroup) {
  pl::idg g;
  g.instructions = {op("fadd", {}), op("bar", {0}, {1, 2}, pl::unit::sync), op("fadd", {1})};
  pl::sim_config c;
  c.warps_per_group = 2;
  // Without the barrier flag warp 0 passes the "bar" at 18: 0..18, 18..20, 20..38; warp 1 one
  // cycle later: 39.
  EXPECT_EQ(pl::simulate(g, c).cycles, 39.0);
  // As a barrier both warps wait for warp 1's fadd (19): bar at 19 and 20, fadd at 21 and 22.
  g.instructions[1].barrier = true;
  EXPECT_EQ(pl::simulate(g, c).cycles, 40.0);
}

TEST(PipelineSimulator, InOrderIssueHoldsAnIndependentInstructionBehindAStalledOne) {
  pl::idg g;
  g.instructions = {op("a", {}), op("b", {0}), op("c", {})};
  pl::sim_config c;
  EXPECT_EQ(pl::simulate(g, c).cycles, 36.0); // c issues at 1 while b waits for a
  c.in_order = true;
  EXPECT_EQ(pl::simulate(g, c).cycles, 37.0); // c only after b (18): 19 + 18
}

// Independent instructions on two pipelines issue side by side; an issue width of one halves the
// rate, and the oldest ready instruction goes first whichever pipeline it uses.
TEST(PipelineSimulator, IssueWidthLimitsInstructionsPerCycleOverAllPipelines) {
  constexpr pl::latency one{1, 1};
  pl::idg g;
  for (int i = 0; i < 8; ++i) {
    g.instructions.push_back(op("alu", {}, one, pl::unit::alu));
    g.instructions.push_back(op("dfma", {}, one, pl::unit::fp64));
  }
  pl::sim_config c;
  EXPECT_EQ(pl::simulate(g, c).cycles, 8.0); // both pipes issue every cycle
  c.issue_width = 2;
  EXPECT_EQ(pl::simulate(g, c).cycles, 8.0); // two slots: no change
  c.issue_width = 1;
  const auto r = pl::simulate(g, c);
  EXPECT_EQ(r.cycles, 16.0); // one instruction per cycle: the last issues at 15
  EXPECT_EQ(r.instructions, 16u);
  EXPECT_DOUBLE_EQ(r.utilisation, 0.5); // each pipe busy half the time: dispatch-bound
  // Quarter-cycle issue latencies (lambda 0.25, Pascal): four per cycle from one pipe, unless
  // the width caps them.
  pl::idg quick;
  for (int i = 0; i < 8; ++i) {
    quick.instructions.push_back(op("fast", {}, {0.25, 1}, pl::unit::alu));
  }
  c.issue_width = 0;
  EXPECT_EQ(pl::simulate(quick, c).cycles, 2.75); // last issues at 1.75
  c.issue_width = 2;
  EXPECT_EQ(pl::simulate(quick, c).cycles, 4.25); // two per cycle: last issues at 3.25
}

TEST(PipelineSimulator, UtilisationOfTheBusiestPipelineDecidesLatencyBound) {
  pl::sim_config c;
  c.warps_per_group = 48;
  const auto r = pl::simulate(pl::dependent_chain(fermi_fadd, 256), c);
  EXPECT_EQ(r.busiest, pl::unit::alu);
  EXPECT_DOUBLE_EQ(r.utilisation, 256.0 * 48 / 12305);
  EXPECT_FALSE(r.latency_bound);
  c.warps_per_group = 2;
  EXPECT_TRUE(pl::simulate(pl::dependent_chain(fermi_fadd, 256), c).latency_bound);
}

TEST(PipelineSimulator, RefusesWhatItCannotSimulate) {
  pl::idg g;
  EXPECT_THROW((void)pl::simulate(g, {}), perfgate::usage_error);
  g.instructions = {op("a", {1}), op("b", {})};
  try {
    (void)pl::simulate(g, {});
    FAIL() << "a forward dependence was simulated";
  } catch (const perfgate::usage_error& e) {
    EXPECT_EQ(std::string(e.what()), "instruction 0 (a) depends on 1: expected an earlier "
                                     "instruction");
  }
  g.instructions = {op("a", {}, {0, 18})};
  EXPECT_THROW((void)pl::simulate(g, {}), perfgate::usage_error);
  pl::sim_config none;
  none.resident_groups = 0;
  EXPECT_THROW((void)pl::simulate(pl::dependent_chain(fermi_fadd, 2), none), perfgate::usage_error);
}

// perfgate-idg/1 and perfgate-latencies/1: what the simulate command reads.
TEST(PipelineFiles, IdgRefusesNamingTheKey) {
  const std::map<std::string, pl::latency, std::less<>> lat = {{"fadd", fermi_fadd}};
  const auto message = [&](const std::string& instructions) {
    try {
      (void)pl::idg_from_json(
          R"({"schema": "perfgate-idg/1", "instructions": )" + instructions + "}", "k.json", lat);
    } catch (const perfgate::input_error& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const auto g = pl::idg_from_json(
      R"({"schema": "perfgate-idg/1", "instructions": [{"op": "a", "pipe": "alu", "latency": "fadd"},
          {"op": "b", "pipe": "gmem", "latency": "fadd", "deps": [0], "store": true}]})",
      "k.json", lat);
  ASSERT_EQ(g.instructions.size(), 2U);
  EXPECT_EQ(g.instructions[1].pipe, pl::unit::gmem);
  EXPECT_TRUE(g.instructions[1].store);
  EXPECT_EQ(g.instructions[1].deps, (std::vector<std::size_t>{0}));
  EXPECT_EQ(message(R"([{"op": "a", "pipe": "alu", "latency": "fadd", "deps": [0]}])"),
            "k.json: key 'instructions[0].deps[0]': expected the index of an earlier instruction "
            "(< 0), found 0");
  EXPECT_EQ(message(R"([{"op": "a", "pipe": "fpu", "latency": "fadd"}])"),
            "k.json: key 'instructions[0].pipe': unknown value \"fpu\", expected one of: alu, "
            "fp64, sfu, lmem, gmem, sync, tensor");
  EXPECT_EQ(message(R"([{"op": "a", "pipe": "alu", "latency": "fadd", "barrier": 1}])"),
            "k.json: key 'instructions[0].barrier': expected true or false");
  EXPECT_EQ(message("[]"), "k.json: key 'instructions': expected at least one instruction");
}

TEST(PipelineFiles, LatenciesAreReadByClass) {
  const auto lat = pl::latencies_from_json(
      R"({"schema": "perfgate-latencies/1", "ops": {"ffma": {"issue": 0.5, "completion": 4.3}}})",
      "l.json");
  ASSERT_EQ(lat.size(), 1U);
  EXPECT_EQ(lat.at("ffma").issue, 0.5);
  EXPECT_EQ(lat.at("ffma").completion, 4.3);
  EXPECT_THROW(
      (void)pl::latencies_from_json(
          R"({"schema": "perfgate-latencies/1", "ops": {"x": {"issue": 0, "completion": 1}}})",
          "l.json"),
      perfgate::input_error);
}
