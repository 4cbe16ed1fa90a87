// SPDX-License-Identifier: Apache-2.0
// The instruction dependence graph from SASS: the examples' real listings (tests/data/sass,
// nvcc 13.0 for sm_90) and small listings of the operand forms that decide dependences.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "importers/sass_importer.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace perfgate::detail {
namespace {

const sass_function& kernel(const std::vector<sass_function>& functions, const std::string& name) {
  const auto it = std::find_if(functions.begin(), functions.end(),
                               [&](const sass_function& f) { return f.name == name; });
  if (it == functions.end()) {
    throw std::runtime_error("no kernel " + name);
  }
  return *it;
}

std::vector<sass_function> listing(const std::string& name) {
  const std::string file = std::string(PERFGATE_TEST_DATA_DIR) + "/sass/" + name;
  return sass_from_listing(read_text_file(file), file);
}

// The graph of one kernel whose body is `code` (instruction lines without offsets).
sass_idg graph_of(const std::vector<std::string>& code, sass_idg_options options = {}) {
  std::string text = "\tcode for sm_90\n\t\tFunction : k\n";
  for (std::size_t i = 0; i < code.size(); ++i) {
    char offset[32];
    std::snprintf(offset, sizeof offset, "        /*%04zx*/ ", i * 16);
    text += offset + code[i] + " ;   /* 0x0 */\n";
  }
  return idg_from_sass(sass_from_listing(text, "t.sass").front(), options);
}

std::vector<std::size_t> indices_of(const sass_idg& g, const std::string& opcode_prefix) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < g.instructions.size(); ++i) {
    if (g.instructions[i].opcode.starts_with(opcode_prefix)) {
      out.push_back(i);
    }
  }
  return out;
}

bool depends_on(const idg_entry& e, std::size_t i) {
  return std::find(e.deps.begin(), e.deps.end(), i) != e.deps.end();
}

TEST(SassListing, ReadsEveryKernelOfTheExamples) {
  const auto saxpy = listing("saxpy.sm_90.sass");
  ASSERT_EQ(saxpy.size(), 2U);
  EXPECT_EQ(saxpy[1].name, "_Z5saxpyifPKfPf");
  EXPECT_EQ(saxpy[1].arch, "sm_90");
  const auto& code = kernel(saxpy, "_Z5saxpyifPKfPf").code;
  const auto& ffma = code[16];
  EXPECT_EQ(ffma.offset, 0x100U);
  EXPECT_EQ(ffma.opcode, "FFMA");
  EXPECT_EQ(ffma.operands, (std::vector<std::string>{"R7", "R2", "UR6", "R7"}));
  const auto& exit = code[7];
  EXPECT_EQ(exit.guard, "P0");
  EXPECT_EQ(exit.opcode, "EXIT");
}

TEST(SassIdg, SaxpyFusesBothLoadsIntoItsFfmaAndStoresIt) {
  const auto functions = listing("saxpy.sm_90.sass");
  const auto g = idg_from_sass(kernel(functions, "_Z5saxpyifPKfPf"), {});
  ASSERT_EQ(g.instructions.size(), 17U); // 19 listed to EXIT, the guarded EXIT and EXIT left out
  const auto loads = indices_of(g, "LDG");
  const auto ffma = indices_of(g, "FFMA");
  const auto stores = indices_of(g, "STG");
  ASSERT_EQ(loads.size(), 2U);
  ASSERT_EQ(ffma.size(), 1U);
  ASSERT_EQ(stores.size(), 1U);
  const auto& f = g.instructions[ffma[0]];
  EXPECT_TRUE(depends_on(f, loads[0]) && depends_on(f, loads[1]));
  EXPECT_EQ(f.pipe, pipeline::unit::alu);
  EXPECT_EQ(f.latency_class, "ffma");
  const auto& s = g.instructions[stores[0]];
  EXPECT_TRUE(s.store);
  EXPECT_TRUE(depends_on(s, ffma[0]));
  EXPECT_EQ(s.pipe, pipeline::unit::gmem);
  EXPECT_EQ(s.latency_class, "ldg_chase_dram");
  EXPECT_EQ(latency_classes(g),
            (std::vector<std::string>{"ffma", "imad", "ldg_chase_dram", "lds_chase"}));
}

TEST(SassIdg, TheTiledSgemmLoopNeedsItsTripCount) {
  const auto functions = listing("sgemm_tiled.sm_90.sass");
  const auto& f = kernel(functions, "_Z11sgemm_tilediPKfS0_Pf");
  ASSERT_EQ(sass_loops(f).size(), 1U);
  EXPECT_EQ(sass_loops(f)[0].head, 0x1e0U);
  try {
    (void)idg_from_sass(f, {});
    FAIL() << "a loop without a trip count was replicated";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("give --trip-count HEAD=N for the loop(s) "
                                         "0x01e0..0x0730"),
              std::string::npos)
        << e.what();
  }
}

TEST(SassIdg, TheTiledSgemmReplicatesItsTilesBetweenBarriers) {
  const auto functions = listing("sgemm_tiled.sm_90.sass");
  const auto& f = kernel(functions, "_Z11sgemm_tilediPKfS0_Pf");
  sass_idg_options options;
  options.trip_counts[0x1e0] = 4;
  const auto g = idg_from_sass(f, options);
  const auto ffma = indices_of(g, "FFMA");
  const auto bars = indices_of(g, "BAR");
  ASSERT_EQ(ffma.size(), 4U * 32U); // kTile FFMAs per tile, unrolled
  ASSERT_EQ(bars.size(), 8U);       // two __syncthreads per tile
  EXPECT_EQ(indices_of(g, "LDG").size(), 8U);
  // The first barrier of each tile waits for the tile's two shared stores.
  for (std::size_t t = 0; t < 4; ++t) {
    const auto& bar = g.instructions[bars[2 * t]];
    EXPECT_TRUE(bar.barrier);
    EXPECT_EQ(bar.latency_class, "bar");
    EXPECT_EQ(std::count_if(bar.deps.begin(), bar.deps.end(),
                            [&](std::size_t d) { return g.instructions[d].opcode == "STS"; }),
              2);
  }
  // Nothing after a barrier issues before it: every LDS of a tile depends on its barrier.
  for (const std::size_t i : indices_of(g, "LDS")) {
    const auto before = std::find_if(bars.rbegin(), bars.rend(), [&](auto b) { return b < i; });
    ASSERT_NE(before, bars.rend());
    EXPECT_TRUE(depends_on(g.instructions[i], *before)) << "LDS " << i;
  }
  // The sum is carried: each tile's first FFMA reads the previous tile's last one.
  for (std::size_t t = 1; t < 4; ++t) {
    EXPECT_TRUE(depends_on(g.instructions[ffma[32 * t]], ffma[32 * t - 1])) << "tile " << t;
  }
  EXPECT_TRUE(depends_on(g.instructions[indices_of(g, "STG").front()], ffma.back()));
}

TEST(SassIdg, TheExecutedInstructionsSettleTheOneLoopLeftOpen) {
  const auto functions = listing("sgemm_tiled.sm_90.sass");
  const auto& f = kernel(functions, "_Z11sgemm_tilediPKfS0_Pf");
  std::uint32_t head = 0;
  // 30 instructions before the loop, 86 in it, 2 after: 4 tiles walk 376.
  EXPECT_EQ(trip_count_from_executed(f, {}, 376, head), 4U);
  EXPECT_EQ(head, 0x1e0U);
  EXPECT_EQ(trip_count_from_executed(f, {}, 376 - 10, head), 4U); // early warps: rounded
  EXPECT_THROW((void)trip_count_from_executed(f, {{0x1e0, 4}}, 376, head), usage_error);
  try {
    (void)trip_count_from_executed(f, {}, 20, head);
    FAIL() << "fewer instructions than the path's shortest walk were accepted";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "_Z11sgemm_tilediPKfS0_Pf: 20 warp instructions executed per warp, but its path "
              "walks 118 with the loop at 0x01e0 run once: the profile is of another build or "
              "kernel");
  }
}

TEST(SassIdg, OperandFormsDecideTheDependences) {
  const auto g =
      graph_of({"IADD3 R4, P0, PT, R2, R3, RZ",      // 0: defines R4 and P0
                "LDG.E.128 R8, desc[UR4][R4.64]",    // 1: reads R4:R5, defines R8..R11
                "FADD R12, R11, R0",                 // 2: R11 from the 128-bit load
                "@P0 FADD R13, R13, 1",              // 3: the guard reads P0
                "IMAD.WIDE R14, R12, 0x4, R6",       // 4: reads R6:R7, defines R14:R15
                "STG.E.64 desc[UR4][R14.64], R2",    // 5: stores R2:R3 (never defined) at R14:R15
                "DFMA R16, R2, R4, R16",             // 6: pairs: R2:R3, R4:R5 (R4 from 0)
                "ISETP.GE.AND P1, PT, R15, 0x1, PT", // 7: R15 from the WIDE result
                "SEL R18, R16, R17, P1"});           // 8: P1 a source, R16:R17 from DFMA
  ASSERT_EQ(g.instructions.size(), 9U);
  const auto deps = [&](std::size_t i) { return g.instructions[i].deps; };
  EXPECT_EQ(deps(1), (std::vector<std::size_t>{0}));
  EXPECT_EQ(deps(2), (std::vector<std::size_t>{1}));
  EXPECT_EQ(deps(3), (std::vector<std::size_t>{0}));
  EXPECT_EQ(deps(4), (std::vector<std::size_t>{2}));
  EXPECT_EQ(deps(5), (std::vector<std::size_t>{4}));
  EXPECT_EQ(deps(6), (std::vector<std::size_t>{0}));
  EXPECT_EQ(deps(7), (std::vector<std::size_t>{4}));
  EXPECT_EQ(deps(8), (std::vector<std::size_t>{6, 7}));
  EXPECT_EQ(g.instructions[6].pipe, pipeline::unit::fp64);
  EXPECT_TRUE(g.instructions[5].store);
}

TEST(SassIdg, BranchesFollowTheStraightPathAndNestedLoopsRestart) {
  // 0x00 MOV; loop A 0x10..0x40 twice, inside it loop B 0x20..0x30 three times; 0x50 skipped
  // by an unconditional branch; a guarded branch forward is not taken.
  sass_idg_options options;
  options.trip_counts = {{0x10, 2}, {0x20, 3}};
  const auto g = graph_of({"MOV R0, RZ",          // 0x00
                           "FADD R0, R0, 1",      // 0x10  A
                           "FFMA R0, R0, R0, R0", // 0x20  B
                           "@P0 BRA 0x20",        // 0x30  B's back edge
                           "@P1 BRA 0x10",        // 0x40  A's back edge
                           "@P2 BRA 0x70",        // 0x50  not taken
                           "BRA 0x80",            // 0x60  taken
                           "IMAD R1, R1, R1, R1", // 0x70  jumped over
                           "FMUL R0, R0, 2",      // 0x80
                           "EXIT"},
                          options);
  std::string path;
  for (const auto& e : g.instructions) {
    path += e.opcode.substr(0, 4) + " ";
  }
  EXPECT_EQ(path, "MOV FADD FFMA FFMA FFMA FADD FFMA FFMA FFMA FMUL ");
  // The trap after the last EXIT (an unconditional branch to itself) ends a path without EXIT;
  // a guarded one (a spin) is not taken.
  const auto trap = graph_of({"FADD R0, R0, 1", "@P0 BRA 0x10", "BRA 0x20", "FADD R1, R1, 1"});
  EXPECT_EQ(trap.instructions.size(), 1U);
  // Found by fuzzing: a target or register beyond any listing's is no branch and no register.
  const auto huge = graph_of({"BRA 0xfffffffffffffffff", "FADD R99999999999, R0, 1", "EXIT"});
  EXPECT_EQ(huge.instructions.size(), 1U);
}

TEST(ResourceUsage, RegistersAndSharedMemoryPerFunctionAndArchitecture) {
  const std::string file =
      std::string(PERFGATE_TEST_DATA_DIR) + "/sass/sgemm_tiled.sm_80_sm_90.res-usage";
  const auto usage = resource_usage_from_listing(read_text_file(file), file);
  ASSERT_EQ(usage.size(), 4U);
  EXPECT_EQ(usage[0].arch, "sm_80");
  EXPECT_EQ(usage[0].function, "_Z11sgemm_tilediPKfS0_Pf");
  EXPECT_EQ(usage[0].resources.registers_per_thread, 32U);
  EXPECT_EQ(usage[0].resources.shared_bytes_per_group, 8192U);
  EXPECT_EQ(usage[2].arch, "sm_90");
  EXPECT_EQ(usage[2].resources.shared_bytes_per_group, 9216U); // sm_90 lists 1 KB more
  EXPECT_EQ(usage[3].resources.registers_per_thread, 15U);
  // A bare cubin's listing names no architecture.
  const std::string cubin = std::string(PERFGATE_TEST_DATA_DIR) + "/sass/saxpy.sm_90.res-usage";
  const auto saxpy = resource_usage_from_listing(read_text_file(cubin), cubin);
  ASSERT_EQ(saxpy.size(), 2U);
  EXPECT_EQ(saxpy[1].arch, "");
  EXPECT_EQ(saxpy[1].resources.registers_per_thread, 10U);
  EXPECT_THROW((void)resource_usage_from_listing(" Function _Z1kv:\n Function _Z1jv:\n", "r.txt"),
               input_error);
}

TEST(SassIdg, UnknownOpcodesAndBadListingsAreErrors) {
  EXPECT_THROW((void)graph_of({"FOO R0, R1"}), usage_error);
  sass_idg_options stray;
  stray.trip_counts = {{0x10, 2}};
  try {
    (void)graph_of({"FADD R0, R0, 1", "FADD R0, R0, 1"}, stray);
    FAIL() << "a trip count of no loop was accepted";
  } catch (const usage_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "--trip-count 0x0010: no loop of k starts there (it has none)");
  }
  try {
    (void)sass_from_listing("        /*0000*/ MOV R0, RZ ;\n", "x.sass");
    FAIL() << "an instruction outside a function was read";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), "x.sass: line 1: an instruction before any 'Function :' line");
  }
  sass_idg_options options;
  options.trip_counts = {{0x0, 3}};
  options.max_instructions = 5;
  EXPECT_THROW((void)graph_of({"FADD R0, R0, 1", "FADD R0, R0, 1", "@P0 BRA 0x0"}, options),
               usage_error);
}

} // namespace
} // namespace perfgate::detail
