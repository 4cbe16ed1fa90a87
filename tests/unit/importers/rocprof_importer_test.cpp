// SPDX-License-Identifier: Apache-2.0
// rocprofv3 counter_collection.csv and the AMD counter table, against hand-written fixtures in
// the format public rocprofv3 output shows (tests/data/rocprof/FORMAT.md lists the totals).
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/model.hpp>

#include "importers/amd_counters.hpp"
#include "importers/rocprof_importer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {
using perfgate::detail::import_rocprof_csv;

const std::string rocprof_dir = std::string(PERFGATE_TEST_DATA_DIR) + "/rocprof/";
const std::string saxpy = "void saxpy_kernel<float>(int, float, float const*, float*)";
const std::string dgemm =
    "void dgemm_tiled<double, 16>(double const*, double const*, double*, int, int, int)";

std::string text_of(const std::string& name) {
  return perfgate::read_text_file(rocprof_dir + name);
}

perfgate::profile load(const std::string& name, std::string_view arch) {
  return import_rocprof_csv(text_of(name), rocprof_dir + name, arch);
}

const perfgate::kernel_profile& kernel(const perfgate::profile& p, const std::string& name) {
  for (const auto& k : p.kernels) {
    if (k.name == name) {
      return k;
    }
  }
  throw std::runtime_error("no kernel " + name);
}

// The input_error message of importing `name`, then deriving every kernel's model parameters.
std::string failure(const std::string& name, std::string_view arch) {
  try {
    const auto p = load(name, arch);
    for (const auto& k : p.kernels) {
      (void)perfgate::kernel_params_from_profile(p, k);
    }
  } catch (const perfgate::input_error& e) {
    return e.what();
  }
  return "no error";
}

struct bytes_rw {
  double read, write;
};

// Totals of FORMAT.md; instruction counts are the same on gfx90a and gfx942.
void expect_totals(const perfgate::profile& p, bytes_rw saxpy_bytes, bytes_rw dgemm_bytes,
                   bool timed = true) {
  EXPECT_EQ(p.warp_size, 64);
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].name, saxpy); // order of first dispatch, full signature
  EXPECT_EQ(p.kernels[1].name, dgemm);
  const auto& s = kernel(p, saxpy);
  EXPECT_EQ(s.invocations, 3U);
  EXPECT_EQ(*s.counter("inst_fp32"), 50331648.0);
  EXPECT_EQ(*s.counter("inst_fp32_fma"), 50331648.0);
  EXPECT_EQ(*s.counter("inst_fp64"), 0.0);
  EXPECT_EQ(*s.counter("inst_fp64_fma"), 0.0);
  EXPECT_EQ(*s.counter("inst_integer"), 301989888.0);
  EXPECT_EQ(*s.counter("inst_ldst"), 150994944.0);
  EXPECT_EQ(*s.counter("warp_inst_executed"), 15728640.0); // wave level: not x 64
  EXPECT_EQ(*s.counter("dram_read_bytes"), saxpy_bytes.read);
  EXPECT_EQ(*s.counter("dram_write_bytes"), saxpy_bytes.write);
  ASSERT_TRUE(s.launch);
  EXPECT_EQ(s.launch->grid[0], 65536U);
  EXPECT_EQ(s.launch->block[0], 256U);
  const auto& g = kernel(p, dgemm);
  EXPECT_EQ(g.invocations, 2U);
  EXPECT_EQ(*g.counter("inst_fp32"), 0.0);
  EXPECT_EQ(*g.counter("inst_fp64"), 35127296.0);
  EXPECT_EQ(*g.counter("inst_fp64_fma"), 33554432.0);
  EXPECT_EQ(*g.counter("inst_integer"), 6291456.0);
  EXPECT_EQ(*g.counter("inst_ldst"), 11665408.0);
  EXPECT_EQ(*g.counter("warp_inst_executed"), 860166.0);
  EXPECT_EQ(*g.counter("dram_read_bytes"), dgemm_bytes.read);
  EXPECT_EQ(*g.counter("dram_write_bytes"), dgemm_bytes.write);
  if (!timed) {
    return;
  }
  ASSERT_TRUE(s.duration);
  EXPECT_EQ(s.duration->samples, 3U);
  EXPECT_NEAR(s.duration->total_s, 155367e-9, 1e-15);
  EXPECT_NEAR(s.duration->min_s, 51522e-9, 1e-15);
  EXPECT_NEAR(s.duration->max_s, 52151e-9, 1e-15);
  EXPECT_NEAR(*s.time_s, 155367e-9, 1e-15);
  ASSERT_TRUE(g.duration);
  EXPECT_EQ(g.duration->samples, 2U);
  EXPECT_NEAR(*g.time_s, 4045556e-9, 1e-15);
}

constexpr bytes_rw gfx90a_saxpy{402653184.0, 201331200.0};
constexpr bytes_rw gfx90a_dgemm{33538432.0, 16773120.0};
constexpr bytes_rw gfx942_saxpy{402763776.0, 201329664.0};
constexpr bytes_rw gfx942_dgemm{33413504.0, 16776192.0};
} // namespace

TEST(RocprofImporter, Gfx90aSumCounters) {
  const auto p = load("counter_collection_gfx90a.csv", "gfx90a");
  EXPECT_EQ(p.format, perfgate::profile_format::rocprof_csv);
  EXPECT_EQ(p.device_name, "gfx90a");
  expect_totals(p, gfx90a_saxpy, gfx90a_dgemm);
  // 3 dispatches x (FETCH_SIZE by hand): 32 x RDREQ_32B + 64 x (RDREQ - RDREQ_32B).
  const double rdreq = 3 * 2097152.0 + 512 * (1 + 3 + 5);
  const double rdreq_32b = 1024.0 * (1 + 3 + 5);
  EXPECT_EQ(*kernel(p, saxpy).counter("dram_read_bytes"),
            32 * rdreq_32b + 64 * (rdreq - rdreq_32b));
}

TEST(RocprofImporter, Gfx942InstanceCountersAndScientificValues) {
  const auto p = load("counter_collection_gfx942.csv", "gfx942:sramecc+:xnack-");
  EXPECT_EQ(p.device_name, "gfx942");
  expect_totals(p, gfx942_saxpy, gfx942_dgemm);
}

TEST(RocprofImporter, UnknownArchitecturePicksFormulasByCounterNames) {
  const auto a = load("counter_collection_gfx90a.csv", "");
  EXPECT_EQ(a.device_name, "Agent 1");
  expect_totals(a, gfx90a_saxpy, gfx90a_dgemm);
  const auto b = load("counter_collection_gfx942.csv", "");
  EXPECT_EQ(b.device_name, "Agent 2"); // numeric Agent_Id
  expect_totals(b, gfx942_saxpy, gfx942_dgemm);
}

TEST(RocprofImporter, AgentInfoColumnsParseTheSame) {
  const auto p = load("counter_collection_gfx90a_agent_info.csv", "gfx90a");
  expect_totals(p, gfx90a_saxpy, gfx90a_dgemm);
}

TEST(RocprofImporter, WaveFrontSizeColumnScalesLanes) {
  // Wave_Front_Size 32 (an RDNA wave32 file): thread-level counts are wave-level x 32.
  std::string text = text_of("counter_collection_gfx90a_agent_info.csv");
  for (auto pos = text.find("\"GPU\",2,64,"); pos != std::string::npos;
       pos = text.find("\"GPU\",2,64,", pos)) {
    text.replace(pos, 11, "\"GPU\",2,32,");
  }
  const auto p = import_rocprof_csv(text, "w32.csv", "gfx90a");
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(*kernel(p, saxpy).counter("inst_fp32_fma"), 50331648.0 / 2);
  EXPECT_EQ(*kernel(p, saxpy).counter("warp_inst_executed"), 15728640.0);
}

TEST(RocprofImporter, RdnaDefaultsToWave32) {
  const std::string text =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
      "1,\"k()\",\"SQ_INSTS_LDS\",10\n1,\"k()\",\"SQ_INSTS_FLAT\",5\n"
      "1,\"k()\",\"SQ_INSTS_TEX_LOAD\",1\n1,\"k()\",\"SQ_INSTS_TEX_STORE\",1\n";
  const auto p = import_rocprof_csv(text, "rdna.csv", "gfx1100");
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(*p.kernels[0].counter("inst_ldst"), 17.0 * 32);
}

TEST(RocprofImporter, OldColumnsWithKernelTraceDurations) {
  auto p = load("counter_collection_gfx90a_old_columns.csv", "gfx90a");
  expect_totals(p, gfx90a_saxpy, gfx90a_dgemm, /*timed=*/false);
  EXPECT_FALSE(kernel(p, saxpy).duration);
  const std::string trace = text_of("kernel_trace_gfx90a.csv");
  EXPECT_TRUE(perfgate::detail::looks_like_rocprof_kernel_trace(trace));
  EXPECT_FALSE(perfgate::detail::looks_like_rocprof_csv(trace));
  perfgate::detail::attach_rocprof_kernel_trace(p, trace, "kernel_trace_gfx90a.csv");
  expect_totals(p, gfx90a_saxpy, gfx90a_dgemm);
}

TEST(RocprofImporter, KernelTraceWithOtherDispatchCountsIsAnError) {
  auto p = load("counter_collection_gfx90a_old_columns.csv", "gfx90a");
  std::string trace = text_of("kernel_trace_gfx90a.csv");
  trace.erase(trace.rfind("\"KERNEL_DISPATCH\"")); // drop the last saxpy dispatch
  try {
    perfgate::detail::attach_rocprof_kernel_trace(p, trace, "trace.csv");
    FAIL() << "no error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("trace.csv: kernel '" + saxpy +
                                         "' has 2 dispatches in the trace but 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(RocprofImporter, PassFilesMergeToTheSameTotals) {
  const std::string one = text_of("pass_1_counter_collection_gfx942.csv");
  const std::string two = text_of("pass_2_counter_collection_gfx942.csv");
  const std::vector<perfgate::detail::rocprof_pass_file> passes = {{one, "pass_1.csv"},
                                                                   {two, "pass_2.csv"}};
  const auto p = perfgate::detail::import_rocprof_csv_passes(passes, "gfx942");
  EXPECT_EQ(p.source_file, "pass_1.csv");
  expect_totals(p, gfx942_saxpy, gfx942_dgemm);
  // One pass alone lacks counters, never gives partial ones.
  const auto first = import_rocprof_csv(one, "pass_1.csv", "gfx942");
  EXPECT_TRUE(kernel(first, saxpy).counter("dram_read_bytes"));
  EXPECT_FALSE(kernel(first, saxpy).counter("dram_write_bytes"));
  EXPECT_FALSE(kernel(first, saxpy).counter("warp_inst_executed"));
}

TEST(RocprofImporter, ModelReadsTheProfile) {
  const auto p = load("counter_collection_gfx90a.csv", "gfx90a");
  const auto k = perfgate::kernel_params_from_profile(p, kernel(p, saxpy));
  EXPECT_EQ(k.K_type, perfgate::kernel_type::fp32);
  EXPECT_EQ(k.W_comp, 2 * 50331648.0);
  EXPECT_EQ(k.W_traf, 402653184.0 + 201331200.0);
  EXPECT_EQ(*k.I_total, 64 * 15728640.0); // warp size of the profiled GPU x M_inst
  const auto g = perfgate::kernel_params_from_profile(p, kernel(p, dgemm));
  EXPECT_EQ(g.K_type, perfgate::kernel_type::fp64);
}

TEST(RocprofImporter, MissingCountersAreNamedInRocprofTerms) {
  const auto what = failure("counter_collection_gfx90a_missing.csv", "gfx90a");
  EXPECT_NE(what.find("counter_collection_gfx90a_missing.csv: kernel '" + saxpy +
                      "': lacks metrics the quantitative model needs: "),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("SQ_INSTS_VALU_FMA_F32"), std::string::npos) << what;
  EXPECT_NE(what.find("TCC_EA_WRREQ_64B_sum"), std::string::npos) << what;
  EXPECT_EQ(what.find("TCC_EA_RDREQ"), std::string::npos) << what; // read bytes are complete
}

TEST(RocprofImporter, UnknownArchitectureNamesCountersOfTheFileFamily) {
  const auto what = failure("counter_collection_gfx90a_missing.csv", "");
  EXPECT_NE(what.find("WRITE_SIZE (TCC_EA_WRREQ_sum, TCC_EA_WRREQ_64B_sum)"), std::string::npos)
      << what;
  EXPECT_EQ(what.find("TCC_EA0"), std::string::npos) << what;
  // GL2C counters: an RDNA file, wave32 unless the file says otherwise.
  const std::string text =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
      "1,\"k()\",\"SQ_INSTS_LDS\",1\n1,\"k()\",\"SQ_INSTS_FLAT\",1\n"
      "1,\"k()\",\"GL2C_MC_WRREQ_sum\",4\n1,\"k()\",\"GL2C_EA_WRREQ_64B_sum\",1\n";
  const auto p = import_rocprof_csv(text, "rdna.csv", "");
  EXPECT_EQ(p.warp_size, 32);
  EXPECT_EQ(*p.kernels[0].counter("inst_ldst"), 2.0 * 32);
  EXPECT_EQ(*p.kernels[0].counter("dram_write_bytes"), 3 * 32.0 + 64.0);
  EXPECT_EQ(p.native_name("inst_ldst"), "SQ_INSTS_LDS + SQ_INSTS_FLAT");
}

TEST(RocprofImporter, ArchitecturesWithoutFpCountersSayWhatIsMissing) {
  const std::string text =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
      "1,\"k()\",\"SQ_INSTS\",100\n1,\"k()\",\"SQ_INSTS_LDS\",1\n"
      "1,\"k()\",\"SQ_INSTS_VMEM_RD\",2\n1,\"k()\",\"SQ_INSTS_VMEM_WR\",1\n"
      "1,\"k()\",\"TCC_EA_RDREQ_sum\",10\n1,\"k()\",\"TCC_EA_RDREQ_32B_sum\",0\n"
      "1,\"k()\",\"TCC_EA_WRREQ_sum\",5\n1,\"k()\",\"TCC_EA_WRREQ_64B_sum\",5\n";
  const auto p = import_rocprof_csv(text, "mi100.csv", "gfx908");
  EXPECT_EQ(*p.kernels[0].counter("inst_ldst"), 4.0 * 64);
  EXPECT_EQ(*p.kernels[0].counter("dram_read_bytes"), 640.0);
  EXPECT_EQ(*p.kernels[0].counter("dram_write_bytes"), 320.0);
  try {
    (void)perfgate::kernel_params_from_profile(p, p.kernels[0]);
    FAIL() << "no error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("SQ_INSTS_VALU_FMA_F32 (no such counter on gfx908)"),
              std::string::npos)
        << e.what();
  }
}

TEST(RocprofImporter, KilobyteCountersAreAFallback) {
  const std::string text = "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
                           "1,\"k()\",\"FETCH_SIZE\",2.5\n1,\"k()\",\"WRITE_SIZE\",1\n";
  const auto p = import_rocprof_csv(text, "kb.csv", "gfx942");
  EXPECT_EQ(*p.kernels[0].counter("dram_read_bytes"), 2560.0);
  EXPECT_EQ(*p.kernels[0].counter("dram_write_bytes"), 1024.0);
}

TEST(RocprofImporter, MalformedFilesNameFileAndLine) {
  const auto truncated = failure("truncated.csv", "gfx90a");
  EXPECT_NE(truncated.find("truncated.csv:41: a quoted field never closes"), std::string::npos)
      << truncated;
  const auto non_numeric = failure("non_numeric.csv", "gfx90a");
  EXPECT_NE(non_numeric.find("non_numeric.csv:35: counter SQ_INSTS: value \"abc\" is not a number"),
            std::string::npos)
      << non_numeric;
  const auto no_kernel = failure("no_kernel_name_column.csv", "gfx90a");
  EXPECT_NE(no_kernel.find("no_kernel_name_column.csv:1: the header has no \"Kernel_Name\" column"),
            std::string::npos)
      << no_kernel;
}

TEST(RocprofImporter, RowCutShortNamesItsLine) {
  std::string text = text_of("counter_collection_gfx90a.csv");
  text.resize(text.rfind(",\"TCC_EA_WRREQ_64B_sum\"")); // last row ends before its counter
  try {
    (void)import_rocprof_csv(text, "cut.csv", "gfx90a");
    FAIL() << "no error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("cut.csv:96: expected 19 columns like the header on "
                                         "line 1, found 15"),
              std::string::npos)
        << e.what();
  }
}

TEST(RocprofImporter, DuplicateAndInconsistentRowsAreErrors) {
  const std::string header = "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n";
  auto what = [](const std::string& text) {
    try {
      (void)import_rocprof_csv(text, "d.csv", "gfx90a");
    } catch (const perfgate::input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(what(header + "1,\"k()\",\"SQ_INSTS\",1\n1,\"k()\",\"SQ_INSTS\",2\n")
                .find("d.csv:3: counter SQ_INSTS of dispatch 1 appears again (first on line 2)"),
            std::string::npos);
  EXPECT_NE(what(header + "1,\"k()\",\"SQ_INSTS\",1\n1,\"j()\",\"SQ_INSTS_LDS\",2\n")
                .find("d.csv:3: dispatch 1 is kernel 'j()' here but 'k()' on line 2"),
            std::string::npos);
  EXPECT_NE(what(header + "x,\"k()\",\"SQ_INSTS\",1\n")
                .find("d.csv:2: \"Dispatch_Id\" is \"x\", expected a non-negative integer"),
            std::string::npos);
  EXPECT_NE(what(header).find("d.csv:1: the table has no dispatches"), std::string::npos);
  // A ratio the model does not use may be "nan"; it is skipped, not an error.
  EXPECT_EQ(what(header + "1,\"k()\",\"MemUnitBusy\",nan\n"), "no error");
}

TEST(RocprofImporter, InstancesAndSumsFoldToBaseNames) {
  using perfgate::detail::amd_base_counter_name;
  bool instance = false;
  EXPECT_EQ(amd_base_counter_name("TCC_EA_RDREQ_sum", &instance), "TCC_EA_RDREQ");
  EXPECT_FALSE(instance);
  EXPECT_EQ(amd_base_counter_name("TCC_EA_RDREQ[15]", &instance), "TCC_EA_RDREQ");
  EXPECT_TRUE(instance);
  EXPECT_EQ(amd_base_counter_name("TCP_TCC_READ_REQ[3][1]", &instance), "TCP_TCC_READ_REQ");
  EXPECT_EQ(amd_base_counter_name("SQ_INSTS", &instance), "SQ_INSTS");
  EXPECT_FALSE(instance);
  // A whole-block total and its instances in one dispatch: the total wins, no double count.
  const std::string text = "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
                           "1,\"k()\",\"FETCH_SIZE[0]\",1\n1,\"k()\",\"FETCH_SIZE[1]\",1\n"
                           "1,\"k()\",\"FETCH_SIZE\",3\n";
  const auto p = import_rocprof_csv(text, "i.csv", "gfx90a");
  EXPECT_EQ(*p.kernels[0].counter("dram_read_bytes"), 3072.0);
}

TEST(RocprofImporter, Detection) {
  using perfgate::detail::looks_like_rocprof_csv;
  EXPECT_TRUE(looks_like_rocprof_csv(text_of("counter_collection_gfx90a.csv")));
  EXPECT_TRUE(looks_like_rocprof_csv(text_of("counter_collection_gfx90a_agent_info.csv")));
  EXPECT_TRUE(looks_like_rocprof_csv(text_of("no_kernel_name_column.csv")));
  EXPECT_FALSE(looks_like_rocprof_csv(
      perfgate::read_text_file(std::string(PERFGATE_TEST_DATA_DIR) + "/ncu/raw_two_kernels.csv")));
  EXPECT_FALSE(looks_like_rocprof_csv("\"ID\",\"Kernel Name\"\n"));
}

// --- the counter table -----------------------------------------------------------------------

TEST(AmdCounters, ArchitecturesAndFamilies) {
  using perfgate::detail::find_amd_arch;
  EXPECT_EQ(find_amd_arch("gfx90a")->family, "gfx90a");
  EXPECT_EQ(find_amd_arch("GFX942:sramecc+:xnack-")->family, "gfx94x");
  EXPECT_EQ(find_amd_arch("gfx940")->family, "gfx94x");
  EXPECT_EQ(find_amd_arch("gfx1030")->default_wave_size, 32);
  EXPECT_EQ(find_amd_arch("gfx1036"), nullptr);
  EXPECT_THROW((void)perfgate::detail::amd_counter_passes("gfx803"), perfgate::usage_error);
  const auto r = perfgate::detail::amd_counters_to_request("gfx942");
  for (const char* n : {"SQ_INSTS_VALU_FMA_F32", "SQ_INSTS_VALU_INT64", "SQ_INSTS",
                        "TCC_BUBBLE_sum", "TCC_EA0_RDREQ_sum", "TCC_EA0_WRREQ_64B_sum"}) {
    EXPECT_NE(std::find(r.begin(), r.end(), n), r.end()) << n;
  }
  EXPECT_EQ(r.size(), 20U); // with SQ_INSTS_MFMA
  const auto r908 = perfgate::detail::amd_counters_to_request("gfx908");
  EXPECT_EQ(std::count_if(r908.begin(), r908.end(),
                          [](const std::string& n) { return n.find("_F32") != n.npos; }),
            0);
}

TEST(AmdCounters, PassesRespectLimitsAndCoverEveryCounterOnce) {
  using namespace perfgate::detail;
  for (const auto& family : amd_arch_families()) {
    for (auto arch : family.names) {
      const auto wanted = amd_counters_to_request(arch);
      const auto passes = amd_counter_passes(arch);
      std::multiset<std::string> seen;
      for (const auto& pass : passes) {
        EXPECT_FALSE(pass.empty()) << arch;
        std::map<std::string, std::size_t> per_block;
        for (const auto& n : pass) {
          seen.insert(n);
          ++per_block[std::string(amd_counter_block(n))];
        }
        for (const auto& [block, n] : per_block) {
          const auto lim = std::find_if(family.limits.begin(), family.limits.end(),
                                        [&](const amd_block_limit& l) { return l.block == block; });
          ASSERT_NE(lim, family.limits.end()) << arch << " " << block;
          EXPECT_LE(n, lim->per_pass) << arch << " " << block;
        }
      }
      EXPECT_EQ(seen, std::multiset<std::string>(wanted.begin(), wanted.end())) << arch;
    }
  }
  // gfx942: 14 SQ counters -> 8 + 6; 5 TCC counters -> the 3 read ones stay together.
  const auto p = amd_counter_passes("gfx942");
  ASSERT_EQ(p.size(), 2U);
  EXPECT_EQ(p[0].size(), 11U);
  EXPECT_NE(std::find(p[0].begin(), p[0].end(), "TCC_BUBBLE_sum"), p[0].end());
  EXPECT_NE(std::find(p[1].begin(), p[1].end(), "TCC_EA0_WRREQ_sum"), p[1].end());
  EXPECT_EQ(amd_counter_passes("gfx90a").size(), 2U);
  // The generic split: a long list of one block.
  std::vector<std::string> many;
  for (int i = 0; i < 19; ++i) {
    many.push_back("SQ_X" + std::to_string(i));
  }
  many.push_back("TA_UNKNOWN_BLOCK");
  const std::vector<amd_block_limit> limits = {{"SQ", 8}};
  const auto split = split_amd_counter_passes(many, limits);
  ASSERT_EQ(split.size(), 3U);
  EXPECT_EQ(split[0].size(), 9U); // 8 SQ + the unknown-block counter (limit 1)
  EXPECT_EQ(split[2].size(), 3U);
}

TEST(AmdCounters, NegativeFormulaIsAnError) {
  const std::string text =
      "\"Dispatch_Id\",\"Kernel_Name\",\"Counter_Name\",\"Counter_Value\"\n"
      "1,\"k()\",\"TCC_EA_RDREQ_sum\",1\n1,\"k()\",\"TCC_EA_RDREQ_32B_sum\",5\n";
  try {
    (void)import_rocprof_csv(text, "neg.csv", "gfx90a");
    FAIL() << "no error";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(
        std::string(e.what()).find("neg.csv: kernel 'k()': FETCH_SIZE from TCC_EA_RDREQ_32B_sum, "
                                   "TCC_EA_RDREQ_sum is negative"),
        std::string::npos)
        << e.what();
  }
}

TEST(RocprofImporter, EveryTruncationImportsOrFailsWithInputError) {
  // As a crashed profiler leaves a file: every prefix imports or fails with input_error.
  std::size_t cuts = 0;
  for (const char* name :
       {"counter_collection_gfx90a.csv", "counter_collection_gfx942.csv",
        "counter_collection_gfx90a_agent_info.csv", "kernel_trace_gfx90a.csv", "truncated.csv"}) {
    const std::string text = text_of(name);
    for (std::size_t n = 0; n <= text.size(); n += (n < 600 ? 1 : 89)) {
      ++cuts;
      const std::string_view cut = std::string_view(text).substr(0, n);
      for (std::string_view arch : {"gfx90a", "", "gfx1100"}) {
        try {
          const auto p = import_rocprof_csv(cut, "cut", arch);
          for (const auto& k : p.kernels) {
            (void)perfgate::kernel_params_from_profile(p, k);
          }
        } catch (const perfgate::input_error&) {
        } catch (const std::exception& e) {
          ADD_FAILURE() << name << " cut at " << n << ": " << e.what();
        }
      }
    }
  }
  EXPECT_GT(cuts, 3000U);
}

namespace {
// The gfx942 fixture with matrix counters added to every dispatch of the dgemm kernel: each
// `counter=value` pair becomes a row like that dispatch's SQ_WAVES row.
std::string with_matrix_rows(const std::vector<std::pair<std::string, std::string>>& counters) {
  const std::string text = text_of("counter_collection_gfx942.csv");
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    const std::string line = text.substr(start, end - start);
    out += line + "\n";
    if (line.find(dgemm) != std::string::npos && line.find("\"SQ_WAVES\"") != std::string::npos) {
      const std::size_t name_at = line.find("\"SQ_WAVES\"");
      const std::size_t value_end = line.find(',', name_at + 11);
      for (const auto& [name, value] : counters) {
        out +=
            line.substr(0, name_at) + "\"" + name + "\"," + value + line.substr(value_end) + "\n";
      }
    }
    start = end == std::string::npos ? text.size() : end + 1;
  }
  return out;
}
} // namespace

// MFMA work (docs/tensor.md): SQ_INSTS_VALU_MFMA_MOPS_<type> counts operations in units of 512.
TEST(RocprofImporter, MatrixOperationsAreTensorWorkIn512s) {
  const auto p = import_rocprof_csv(
      with_matrix_rows({{"SQ_INSTS_MFMA", "1000"}, {"SQ_INSTS_VALU_MFMA_MOPS_F64", "2.0e6"}}),
      "m.csv", "gfx942");
  const auto& k = kernel(p, dgemm);
  ASSERT_TRUE(k.duration);
  const double dispatches = static_cast<double>(k.invocations);
  EXPECT_EQ(k.counter("tensor_fp64_ops"), dispatches * 512 * 2.0e6);
  EXPECT_EQ(k.counter("tensor_inst"), dispatches * 1000);
  const auto params = perfgate::kernel_params_from_profile(p, k);
  EXPECT_EQ(params.K_type, perfgate::kernel_type::tensor_fp64);
  EXPECT_EQ(params.W_comp, dispatches * 512 * 2.0e6);
}

TEST(RocprofImporter, MatrixInstructionsWithoutOperationsAreRefusedNamingTheCounters) {
  const auto p =
      import_rocprof_csv(with_matrix_rows({{"SQ_INSTS_MFMA", "1000"}}), "m.csv", "gfx942");
  try {
    (void)perfgate::kernel_params_from_profile(p, kernel(p, dgemm));
    FAIL() << "matrix instructions without their operations were modelled";
  } catch (const perfgate::input_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("matrix instructions on the tensor pipe (SQ_INSTS_MFMA) but no counter"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("collect SQ_INSTS_VALU_MFMA_MOPS_F16, SQ_INSTS_VALU_MFMA_MOPS_BF16"),
              std::string::npos)
        << what;
  }
  // What perfgate asks rocprofv3 for: the instruction count, not the operations counters.
  const auto r = perfgate::detail::amd_counters_to_request("gfx942");
  EXPECT_NE(std::find(r.begin(), r.end(), "SQ_INSTS_MFMA"), r.end());
  EXPECT_EQ(std::find(r.begin(), r.end(), "SQ_INSTS_VALU_MFMA_MOPS_F16"), r.end());
}
