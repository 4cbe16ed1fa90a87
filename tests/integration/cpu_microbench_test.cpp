// SPDX-License-Identifier: Apache-2.0
// The CPU micro-benchmarks, run for real (about 10 s): every peak measured, positive and
// consistent with the others. Loose bounds: this checks the benchmarks are sane, not fast.
#include <perfgate/calibration.hpp>
#include <perfgate/device.hpp>

#include "cpu_kernels.hpp"
#include "cpu_microbench.hpp"
#include "cpu_topology.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {
// 12 benchmarks (with the random gather, scatter and their mix), 3 more with non-temporal stores
// on x86-64, and the L2 and a separate last-level cache where sysfs tells their sizes: per scope
// (one core, all cores).
std::size_t benchmarks_per_scope() {
  const auto facts = perfgate::microbench::read_cpu_facts();
  return (perfgate::microbench::have_nontemporal_stores() ? 15U : 12U) +
         (facts.l2_bytes > 0 ? 1U : 0U) +
         (facts.llc_bytes > facts.l2_bytes && facts.llc_bytes > facts.l1d_bytes ? 1U : 0U);
}
} // namespace

// The relations between peaks asserted below, as one answer: whether a run is worth checking.
bool peaks_relate(const perfgate::microbench_run& run) {
  const auto best = [&](const char* key, const char* scope) { return run.find(key, scope)->best; };
  for (const char* scope : {"one", "all"}) {
    if (best("fp32_gflops", scope) < 1.2 * best("fp64_gflops", scope) ||
        best("dram_read_gbs", scope) < 0.5 * best("dram_copy_gbs", scope) ||
        best("ldst_ginst", scope) * 4 <= 2 * best("dram_read_gbs", scope)) {
      return false;
    }
  }
  for (const char* key : {"fp32_gflops", "fp64_gflops", "int_add_gops"}) {
    if (best(key, "all") < 0.8 * best(key, "one")) {
      return false;
    }
  }
  return best("dram_triad_gbs", "all") >= 0.6 * best("dram_triad_gbs", "one");
}

// The 1-minute load average per online core (/proc/loadavg), 0 where unknown.
double load_per_core() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  const unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  return in >> load ? load / cores : 0;
}

// The relations between a run's peaks (issue 51: asserted only of a run the machine left alone).
void expect_peaks_relate(const perfgate::microbench_run& run) {
  for (const char* scope : {"one", "all"}) {
    SCOPED_TRACE(scope);
    const auto best = [&](const char* key) { return run.find(key, scope)->best; };
    // A vector holds twice as many fp32 lanes as fp64 lanes at the same FMA rate.
    EXPECT_GE(best("fp32_gflops"), 1.2 * best("fp64_gflops"));
    // Reading alone moves at least half the bytes per second of a copy (which reads + writes).
    EXPECT_GE(best("dram_read_gbs"), 0.5 * best("dram_copy_gbs"));
    // L1 serves lanes far faster than DRAM delivers them (8 bytes a lane-pair from DRAM).
    EXPECT_GT(best("ldst_ginst") * 4, 2 * best("dram_read_gbs"));
  }
  // All cores do at least as well as one, allowing for noise on a shared VM: 20% for compute,
  // 40% for DRAM, whose bandwidth drifts that much within a minute here (measured).
  for (const char* key : {"fp32_gflops", "fp64_gflops", "int_add_gops"}) {
    EXPECT_GE(run.find(key, "all")->best, 0.8 * run.find(key, "one")->best) << key;
  }
  EXPECT_GE(run.find("dram_triad_gbs", "all")->best, 0.6 * run.find("dram_triad_gbs", "one")->best);
}

TEST(CpuMicrobench, FullRunGivesConsistentPeaks) {
  // A neighbour on the shared VM can slow one whole benchmark down (once in CI: fp32 on all
  // cores measured 117 GFLOPS against fp64's 140): the run is taken again, up to three times,
  // until its peaks relate; the assertions below then hold of that run, and fail on the third.
  auto run = perfgate::microbench::run_cpu_microbench({});
  for (int again = 0; again < 2 && !peaks_relate(run); ++again) {
    run = perfgate::microbench::run_cpu_microbench({});
  }
  EXPECT_FALSE(run.quick);
  EXPECT_EQ(run.backend, "cpu");
  EXPECT_GE(run.dev.compute_units, 1U);
  EXPECT_EQ(run.results.size(), 2 * benchmarks_per_scope());
  for (const auto& r : run.results) {
    SCOPED_TRACE(r.key + " " + r.scope);
    EXPECT_GT(r.best, 0);
    EXPECT_LE(r.min, r.median);
    EXPECT_LE(r.median, r.max);
    EXPECT_EQ(r.best, r.max);
    EXPECT_GE(r.repetitions, 5U);
  }
  // Under load (a neighbour taking both cores of a 2-core runner: all-core DRAM triad 4.8 GB/s
  // against one core's 19.1, issue 51) a run's peaks need not relate after three tries; a busy
  // machine gives lower numbers, never a failed test: the relations are then not judged, and
  // the test says so. On a machine left alone they are.
  const double load = load_per_core();
  const bool judged = peaks_relate(run) || load <= 1.5;
  if (judged) {
    expect_peaks_relate(run);
  }
  const auto d = perfgate::device_from_microbench(run, "local-cpu");
  ASSERT_TRUE(d.one_core_peaks);
  EXPECT_EQ(d.kind, "cpu");
  EXPECT_EQ(d.peaks.fp32_gflops, run.find("fp32_gflops", "all")->best);
  EXPECT_EQ(d.one_core_peaks->fp64_gflops, run.find("fp64_gflops", "one")->best);
  EXPECT_EQ(d.extra_peaks.at("dram_triad_gbs"), run.find("dram_triad_gbs", "all")->best);
  const auto back = perfgate::device_from_json(perfgate::calibration_to_json(d, run, {}), "c.json");
  ASSERT_TRUE(back.one_core_peaks);
  EXPECT_EQ(back.one_core_peaks->dram_gbs, d.one_core_peaks->dram_gbs);
  // Caches serve reads faster than DRAM, and the device knows their sizes.
  if (const auto* l2 = run.find("l2_gbs", "one")) {
    EXPECT_GT(l2->best, run.find("dram_read_gbs", "one")->best);
    EXPECT_GT(back.cache_bytes.at("l2"), 0.0);
    EXPECT_EQ(back.one_core_extra_peaks.at("l2_gbs"), l2->best);
  }
  // Each scope's memory roof is its best DRAM pattern.
  for (const char* scope : {"one", "all"}) {
    double best = 0;
    for (const auto& r : run.results) {
      if (r.scope == scope && r.key.starts_with("dram_")) {
        best = std::max(best, r.best);
      }
    }
    const auto& peaks = std::string(scope) == "one" ? *back.one_core_peaks : back.peaks;
    EXPECT_EQ(peaks.dram_roof_gbs, best) << scope;
    EXPECT_GE(peaks.dram_roof_gbs, peaks.dram_gbs) << scope;
  }
  if (!judged) {
    GTEST_SKIP() << "the machine was busy (load " << load
                 << " per core): three runs' peaks did not relate, so their relations were not "
                    "judged; every other check passed";
  }
}

TEST(CpuMicrobench, QuickRunIsMarkedAndComplete) {
  std::size_t lines = 0;
  perfgate::microbench::cpu_options o;
  o.quick = true;
  o.progress = [&](const std::string& line) {
    ++lines;
    EXPECT_EQ(line.rfind("[", 0), 0U);
  };
  const auto run = perfgate::microbench::run_cpu_microbench(o);
  EXPECT_TRUE(run.quick);
  EXPECT_EQ(lines, 2 * benchmarks_per_scope());
  EXPECT_NO_THROW((void)perfgate::device_from_microbench(run, "q"));
}

// The gather/scatter index (microbench/permuted_index.hpp) must be a permutation, or the
// benchmark would touch some elements twice and others never.
TEST(CpuMicrobench, GatherIndexIsAPermutation) {
  for (unsigned bits = 1; bits <= 20; ++bits) {
    const std::size_t n = std::size_t{1} << bits;
    std::vector<std::uint32_t> idx(n);
    perfgate::microbench::fill_permutation(idx.data(), n, 0, bits, 0x5eedU);
    std::vector<bool> seen(n, false);
    for (const auto v : idx) {
      ASSERT_LT(v, n) << bits;
      ASSERT_FALSE(seen[v]) << bits << " bits: " << v << " twice";
      seen[v] = true;
    }
  }
}

// Every compute variant runs, counts its work as its width and chains say, and the widths this
// CPU has are all tried, each with several chain counts: the calibration picks among them.
TEST(CpuMicrobench, ComputeVariantsCoverEveryWidthAndSeveralChainCounts) {
  using perfgate::microbench::compute_kind;
  for (const auto kind : {compute_kind::fp32_fma, compute_kind::fp64_fma, compute_kind::int_add,
                          compute_kind::int_mad}) {
    const auto variants = perfgate::microbench::compute_variants(kind);
    ASSERT_FALSE(variants.empty());
    std::set<std::string> isas;
    std::set<int> chains;
    for (const auto& v : variants) {
      SCOPED_TRACE(v.isa + " " + std::to_string(v.chains));
      isas.insert(v.isa);
      chains.insert(v.chains);
      const int lanes = v.vector_bits / (kind == compute_kind::fp64_fma ? 64 : 32);
      const double per_lane = kind == compute_kind::int_add ? 1 : 2;
      EXPECT_DOUBLE_EQ(v.ops_per_iteration, per_lane * lanes * v.chains);
      const double value = v.run(1000);
      EXPECT_TRUE(std::isfinite(value));
    }
    EXPECT_TRUE(isas.contains(perfgate::microbench::compute_isa()));
    if (perfgate::microbench::compute_isa() == "avx512f") {
      EXPECT_TRUE(isas.contains("avx2+fma")); // AVX-512 CPUs also try the 256-bit kernels
    }
    if (perfgate::microbench::compute_isa() != "generic") {
      EXPECT_GE(chains.size(), 6U);
    }
  }
}

// The clock the compute peaks ran at is measured (dependent adds, one a cycle) and stored with
// them; on x86-64 it is a plausible core clock.
TEST(CpuMicrobench, ComputePeaksCarryTheMeasuredClock) {
  if (perfgate::microbench::dependent_adds(1) == 0) {
    GTEST_SKIP() << "no dependent-add clock on this architecture";
  }
  EXPECT_EQ(perfgate::microbench::dependent_adds(10), 160.0);
  perfgate::microbench::cpu_options o;
  o.quick = true;
  const auto run = perfgate::microbench::run_cpu_microbench(o);
  for (const char* key : {"fp32_gflops", "fp64_gflops", "int_mad_gops", "int_add_gops"}) {
    const auto* r = run.find(key, "one");
    ASSERT_NE(r, nullptr) << key;
    ASSERT_TRUE(r->sm_clock_mhz) << key;
    EXPECT_GT(*r->sm_clock_mhz, 300.0) << key;
    EXPECT_LT(*r->sm_clock_mhz, 7000.0) << key;
    EXPECT_NE(r->note.find("independent chains (fastest of"), std::string::npos) << r->note;
  }
}
