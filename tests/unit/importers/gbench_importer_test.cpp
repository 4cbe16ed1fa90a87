// SPDX-License-Identifier: Apache-2.0
// Google Benchmark JSON as libbenchmark 1.7.1 writes it (tests/data/gbench/: real output of
// tests/consumer/stream_benchmarks.cpp with 3 repetitions).
#include <perfgate/device.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include "import_failure.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace {
const std::string file = std::string(PERFGATE_TEST_DATA_DIR) + "/gbench/stream_benchmarks.json";
}

TEST(GbenchImporter, RepetitionsGiveTheMedianTimeOfOneIteration) {
  const auto p = perfgate::import_profile(file);
  EXPECT_EQ(p.format, perfgate::profile_format::gbench_json);
  ASSERT_EQ(p.kernels.size(), 3U); // aggregates are not kernels
  const auto& triad = p.kernels[0];
  EXPECT_EQ(triad.name, "BM_triad");
  EXPECT_EQ(triad.threads, 1U);
  EXPECT_EQ(triad.invocations, 1U);
  ASSERT_TRUE(triad.work);
  EXPECT_EQ(triad.work->bytes, 402653184.0);
  EXPECT_EQ(triad.work->fp64_flops, 33554432.0);
  ASSERT_TRUE(triad.duration);
  EXPECT_EQ(triad.duration->samples, 3U);
  EXPECT_EQ(triad.duration->samples_s.size(), 3U); // every repetition, for the statistics
  EXPECT_EQ(*triad.time_s, triad.duration->median_s);
  EXPECT_GT(*triad.time_s, 1e-3); // milliseconds converted to seconds
  EXPECT_LT(*triad.time_s, 1.0);
  const auto k = perfgate::kernel_params_from_profile(p, triad);
  EXPECT_EQ(k.model, perfgate::model_kind::roofline);
  EXPECT_DOUBLE_EQ(k.O_krn, 1.0 / 12.0); // 2 flops per 24 bytes
}

TEST(GbenchImporter, ThreadsTimeUnitsErrorsAndMissingWork) {
  const std::string text = R"({"context": {"host_name": "h"}, "benchmarks": [
    {"name": "BM_mt/threads:2", "run_name": "BM_mt/threads:2", "run_type": "iteration",
     "threads": 2, "iterations": 10, "real_time": 250, "cpu_time": 500, "time_unit": "us",
     "perfgate_bytes": 2e6, "perfgate_fp32_flops": 1e6},
    {"name": "BM_broken", "run_name": "BM_broken", "run_type": "iteration", "error_occurred": true,
     "error_message": "no GPU", "threads": 1, "iterations": 0, "real_time": 0, "time_unit": "ns"},
    {"name": "BM_undeclared", "run_name": "BM_undeclared", "run_type": "iteration",
     "threads": 1, "iterations": 5, "real_time": 3, "time_unit": "ms"}]})";
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 2U); // the benchmark that reported an error is left out
  EXPECT_EQ(p.kernels[0].threads, 2U);
  // libbenchmark's real_time is per iteration of ONE of the 2 threads (wall / 2 x iterations
  // per thread); the counters sum both threads: one iteration of both takes 2 x 250 us.
  EXPECT_DOUBLE_EQ(*p.kernels[0].time_s, 500e-6);
  EXPECT_EQ(perfgate::test::import_failure(text, "g.json"),
            "g.json: kernel 'BM_undeclared': declares no work: call state.SetBytesProcessed(bytes) "
            "(Google Benchmark's bytes_per_second: judged against the memory roof), or set the "
            "counters perfgate_bytes and one of perfgate_fp32_flops, perfgate_fp64_flops, "
            "perfgate_int_ops or perfgate_tensor_<precision>_ops (tensor_bf16, ...) to the work "
            "of ONE iteration (default counter flags)");
  std::string bad_unit = text;
  bad_unit.replace(bad_unit.find("\"us\""), 4, "\"fortnights\"");
  EXPECT_NE(perfgate::test::import_failure(bad_unit, "g.json")
                .find("key 'benchmarks[0].time_unit': unknown time unit \"fortnights\""),
            std::string::npos);
}

TEST(GbenchImporter, NonFiniteAggregatesAsGoogleBenchmarkWritesThem) {
  // A counter that is 0 in every repetition has a coefficient of variation of NaN, which
  // libbenchmark writes as a bare NaN (not JSON).
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "BM_dot", "run_name": "BM_dot", "run_type": "iteration", "threads": 1,
     "real_time": 12.5, "time_unit": "ms", "perfgate_bytes": 2e8, "perfgate_fp64_flops": 2e7,
     "perfgate_fp32_flops": 0.0, "label": "nan inf \"NaN\""},
    {"name": "BM_dot_cv", "run_name": "BM_dot", "run_type": "aggregate", "aggregate_name": "cv",
     "real_time": 0.01, "time_unit": "ms", "perfgate_fp32_flops": NaN, "x": -nan, "y": inf}]})";
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_DOUBLE_EQ(*p.kernels[0].time_s, 12.5e-3);
}

// Issue 16 #12: a denormal time made the efficiency inf, which JSON stores as null ("no
// efficiency"); it is refused where it is read, naming the key.
TEST(GbenchImporter, DenormalTimeIsAnInputError) {
  for (const char* time : {"4e-310", "1e-301"}) { // denormal as written, or once in seconds
    const std::string text = std::string(R"({"context": {}, "benchmarks": [
      {"name": "BM_dot", "run_name": "BM_dot", "run_type": "iteration", "threads": 1,
       "real_time": )") + time +
                             R"(, "time_unit": "ns", "perfgate_bytes": 2e8}]})";
    const auto message = perfgate::test::import_failure(text, "g.json");
    EXPECT_NE(message.find("g.json: key 'benchmarks[0].real_time': a time of " + std::string(time) +
                           " ns is below the smallest normal double"),
              std::string::npos)
        << message;
  }
}

// perfgate_write_bytes: the written part of perfgate_bytes, so the roof takes the DRAM patterns
// of the kernel's read/write mix.
TEST(GbenchImporter, DeclaredWriteBytesAreTheWrittenPartOfTheBytes) {
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "BM_triad", "run_name": "BM_triad", "run_type": "iteration", "threads": 1,
     "real_time": 20, "time_unit": "ms", "perfgate_bytes": 2.4e8, "perfgate_fp64_flops": 2e7,
     "perfgate_write_bytes": 8e7},
    {"name": "BM_dot", "run_name": "BM_dot", "run_type": "iteration", "threads": 1,
     "real_time": 10, "time_unit": "ms", "perfgate_bytes": 1.6e8, "perfgate_fp64_flops": 2e7}]})";
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 2U);
  EXPECT_EQ(p.kernels[0].work->write_bytes, 8e7);
  EXPECT_EQ(perfgate::kernel_params_from_profile(p, p.kernels[0]).write_bytes, 8e7);
  EXPECT_FALSE(p.kernels[1].work->write_bytes); // not declared: the mix is unknown
  EXPECT_FALSE(perfgate::kernel_params_from_profile(p, p.kernels[1]).write_bytes);

  std::string too_many = text;
  too_many.replace(too_many.find("8e7"), 3, "3e8");
  EXPECT_EQ(perfgate::test::import_failure(too_many, "g.json"),
            "g.json: key 'benchmarks[0].perfgate_write_bytes': expected the written part of "
            "perfgate_bytes, at most 240000000.0, found 300000000.0");
}

// perfgate_ordinary_stores 1: the kernel writes through the caches; read, carried through the
// profile JSON, and anything but 0 or 1 refused.
TEST(GbenchImporter, OrdinaryStoresAreDeclaredByACounter) {
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "BM_triad", "run_name": "BM_triad", "run_type": "iteration", "threads": 1,
     "real_time": 20, "time_unit": "ms", "perfgate_bytes": 2.4e8, "perfgate_fp64_flops": 2e7,
     "perfgate_write_bytes": 8e7, "perfgate_ordinary_stores": 1}]})";
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_TRUE(p.kernels[0].work->ordinary_stores);
  EXPECT_TRUE(perfgate::kernel_params_from_profile(p, p.kernels[0]).ordinary_stores);
  const auto back = perfgate::import_profile_text(perfgate::profile_to_json(p), "p.json");
  EXPECT_TRUE(back.kernels[0].work->ordinary_stores);
  std::string two = text;
  two.replace(two.find("\"perfgate_ordinary_stores\": 1"), 29, "\"perfgate_ordinary_stores\": 2");
  EXPECT_EQ(perfgate::test::import_failure(two, "g.json"),
            "g.json: key 'benchmarks[0].perfgate_ordinary_stores': expected 1 (ordinary stores "
            "only) or 0");
}

// Real output (tests/data/gbench/stream_triad_threads.json: scripts/bench/stream_triad on the
// 2-core VM, libbenchmark 1.7.1): the all-thread triad's real_time (8.74 ms) is the wall time
// over the iterations of both threads, while each thread spent 17.2 ms of CPU per iteration of
// its own loop, busy all the time. One iteration of both threads (the summed counters' work)
// takes 2 x 8.74 ms: within 5% of the CPU time per thread, not half of it.
TEST(GbenchImporter, MultiThreadedTimeIsOneIterationOfAllThreads) {
  const auto p = perfgate::import_profile(std::string(PERFGATE_TEST_DATA_DIR) +
                                          "/gbench/stream_triad_threads.json");
  ASSERT_EQ(p.kernels.size(), 2U);
  const auto& all = p.kernels[1];
  EXPECT_EQ(all.name, "BM_stream_triad_all/real_time/threads:2");
  EXPECT_EQ(all.threads, 2U);
  EXPECT_DOUBLE_EQ(*all.time_s, 2 * 8.740511999998748e-3);
  EXPECT_NEAR(*all.time_s / 17.221042261904763e-3, 1.0, 0.05);
  EXPECT_EQ(all.work->bytes, 2 * p.kernels[0].work->bytes); // summed over the threads
  // One thread, Google Benchmark's default clock: the thread's CPU time, not the real 15.721 ms.
  EXPECT_DOUBLE_EQ(*p.kernels[0].time_s, 15.64888563333333e-3);
}

// Found by fuzz_gbench_json (tests/data/fuzz-regressions): write bytes without perfgate_bytes.
// The fuzzer's file also carries a counter named `perfgate_byteA`: since issue 53 a perfgate_*
// counter perfgate does not read is refused first, with the nearest one it reads.
TEST(GbenchImporter, WriteBytesWithoutBytesAreAnInputError) {
  const std::string file = std::string(PERFGATE_TEST_DATA_DIR) +
                           "/fuzz-regressions/gbench_write_bytes_without_bytes.json";
  const auto what = perfgate::test::import_failure(std::filesystem::path(file));
  EXPECT_NE(what.find("gbench_write_bytes_without_bytes.json: key 'benchmarks[1].perfgate_byteA': "
                      "is no counter perfgate reads: did you mean 'perfgate_bytes'?"),
            std::string::npos)
      << what;
  std::string text = perfgate::read_text_file(file);
  for (auto at = text.find("perfgate_byteA"); at != std::string::npos;
       at = text.find("perfgate_byteA")) {
    text.replace(at, 14, "user_counter_A");
  }
  const auto without = perfgate::test::import_failure(text, "w.json");
  EXPECT_NE(without.find("w.json: key 'benchmarks[1].perfgate_write_bytes': is the written part "
                         "of perfgate_bytes, but perfgate_bytes is not set"),
            std::string::npos)
      << without;
}

// Issue 53: a counter that looks like a declaration perfgate does not read is refused.
TEST(GbenchImporter, AnUnknownPerfgateCounterIsRefusedWithTheNearestOne) {
  const std::string text = R"({"context": {}, "benchmarks": [{"name": "BM_triad",
    "run_type": "iteration", "iterations": 10, "real_time": 1.0, "cpu_time": 1.0,
    "time_unit": "ms", "perfgate_bytes": 6291456, "perfgate_workingset_bytes": 6291456}]})";
  EXPECT_EQ(perfgate::test::import_failure(text, "g.json"),
            "g.json: key 'benchmarks[0].perfgate_workingset_bytes': is no counter perfgate "
            "reads: did you mean 'perfgate_working_set_bytes'?");
}

// A benchmark of a GPU GEMM declares its tensor work per precision: the kernel is measured in it
// and held to that path's roof; a precision perfgate does not know is named.
TEST(GbenchImporter, DeclaredTensorWorkSetsTheKernelsTypeAndRoof) {
  const std::string text = perfgate::read_text_file(std::string(PERFGATE_TEST_DATA_DIR) +
                                                    "/gbench/declared_tensor_work.json");
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 1U);
  EXPECT_EQ(p.kernels[0].work->tensor_ops.at("tensor_bf16_ops"), 1.374e11);
  const auto k = perfgate::kernel_params_from_profile(p, p.kernels[0]);
  EXPECT_EQ(k.K_type, perfgate::kernel_type::tensor_bf16);
  EXPECT_EQ(k.W_comp, 1.374e11);
  EXPECT_EQ(k.simt_type, perfgate::kernel_type::fp32);
  const auto r = perfgate::roof_of(k, perfgate::resolve_device("h100-sxm"));
  EXPECT_EQ(r.limiter, "tensor_bf16");
  EXPECT_DOUBLE_EQ(r.time_s, 1.374e11 / 1070530.56e9);
  ASSERT_EQ(r.terms.size(), 3U); // fp32, tensor_bf16, dram
  EXPECT_EQ(r.terms[0].resource, "fp32");
  EXPECT_DOUBLE_EQ(r.terms[0].amount, 1e6);
  // Through perfgate-profile/1 and back.
  const auto again = perfgate::profile_from_json(perfgate::profile_to_json(p), "p.json");
  EXPECT_EQ(again.kernels[0].work->tensor_ops, p.kernels[0].work->tensor_ops);

  std::string unknown = text;
  unknown.replace(unknown.find("tensor_bf16_ops"), 15, "tensor_bf17_ops");
  EXPECT_NE(perfgate::test::import_failure(unknown, "g.json")
                .find("key 'benchmarks[0].perfgate_tensor_bf17_ops': names no tensor precision "
                      "perfgate knows; expected one of perfgate_tensor_fp16_ops"),
            std::string::npos);
}

// Real output of tests/consumer/standard_counters.cpp (libbenchmark 1.7.1, the 2-core VM; see
// tests/data/gbench/README.md): benchmarks that use only Google Benchmark's own counters. Each
// declares exactly 2 x 64 MiB a copy (4 x 64 MiB for the triad's perfgate_bytes), so the bytes
// of one iteration, recovered from bytes_per_second and the time it was computed over, must come
// out as those integers to double precision, whichever clock and thread count the run used.
TEST(GbenchImporter, StandardCountersGiveTheBytesOfOneIteration) {
  const auto p = perfgate::import_profile(std::string(PERFGATE_TEST_DATA_DIR) +
                                          "/gbench/standard_counters.json");
  ASSERT_EQ(p.kernels.size(), 6U);
  const double copy = 2.0 * 8 * (1 << 23); // bytes one iteration of one thread moves
  auto kernel = [&](const std::string& name) -> const perfgate::kernel_profile& {
    const auto it = std::find_if(p.kernels.begin(), p.kernels.end(),
                                 [&](const auto& k) { return k.name == name; });
    EXPECT_NE(it, p.kernels.end()) << name;
    return *it;
  };
  // bytes only: CPU time, one thread
  const auto& bytes_only = kernel("BM_copy");
  ASSERT_TRUE(bytes_only.work);
  EXPECT_NEAR(bytes_only.work->bytes / copy, 1.0, 1e-12);
  EXPECT_EQ(bytes_only.work->bytes_source, "bytes_per_second");
  EXPECT_FALSE(bytes_only.work->items);
  EXPECT_EQ(bytes_only.work->fp32_flops + bytes_only.work->fp64_flops + bytes_only.work->int_ops,
            0.0);
  // two threads: one iteration of both threads, as the time (2 x real_time) is
  const auto& threads = kernel("BM_copy/threads:2");
  EXPECT_NEAR(threads.work->bytes / (2 * copy), 1.0, 1e-12);
  // UseRealTime: the rate is over the wall time, not the CPU time
  EXPECT_NEAR(kernel("BM_copy/real_time").work->bytes / copy, 1.0, 1e-12);
  // bytes + items
  const auto& items = kernel("BM_copy_items");
  ASSERT_TRUE(items.work->items);
  EXPECT_NEAR(*items.work->items / (1 << 23), 1.0, 1e-12);
  EXPECT_NEAR(items.work->bytes / copy, 1.0, 1e-12);
  // bytes + perfgate counters: perfgate_bytes wins over bytes_per_second (3 arrays)
  const auto& declared = kernel("BM_triad_declared");
  EXPECT_EQ(declared.work->bytes, 4.0 * 8 * (1 << 23));
  EXPECT_EQ(declared.work->bytes_source, "perfgate_bytes");
  EXPECT_EQ(declared.work->fp64_flops, 2.0 * (1 << 23));
  // neither
  EXPECT_FALSE(kernel("BM_no_work").work);
}

// The clock each repetition is timed on is Google Benchmark's own: the thread's CPU time for a
// benchmark on its default clock, real_time for UseRealTime / UseManualTime (and T x real_time
// for T threads). standard_counters.json was recorded on a busy VM: the single-thread copy had
// its core for 61% of its real time (11.098 ms real, 6.800 ms CPU), and its bytes_per_second
// (over the CPU time) gives 19.7 GB/s, the rate of the time it is judged on.
TEST(GbenchImporter, EachBenchmarkIsTimedOnGoogleBenchmarksClockForIt) {
  const auto p = perfgate::import_profile(std::string(PERFGATE_TEST_DATA_DIR) +
                                          "/gbench/standard_counters.json");
  auto time_of = [&](const std::string& name) {
    for (const auto& k : p.kernels) {
      if (k.name == name) {
        return *k.time_s;
      }
    }
    ADD_FAILURE() << name;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(time_of("BM_copy"), 6800146.775e-9);                  // cpu_time
  EXPECT_DOUBLE_EQ(time_of("BM_copy/real_time"), 12024984.666620892e-9); // real_time
  EXPECT_DOUBLE_EQ(time_of("BM_copy/threads:2"), 2 * 7669565.541669322e-9);
  EXPECT_NEAR(2.0 * 8 * (1 << 23) / time_of("BM_copy") / 1e9, 19.7, 0.05);
  // The real time stays beside a CPU time (and only there), through a perfgate-profile file.
  const auto again = perfgate::profile_from_json(perfgate::profile_to_json(p), "again.json");
  for (const auto* profile : {&p, &again}) {
    for (const auto& k : profile->kernels) {
      if (k.name == "BM_copy") {
        EXPECT_DOUBLE_EQ(k.real_time_s.value_or(0), 11097857.725007998e-9);
      } else if (k.name == "BM_copy/real_time" || k.name == "BM_copy/threads:2") {
        EXPECT_FALSE(k.real_time_s) << k.name;
      }
    }
  }

  // A file without cpu_time (not Google Benchmark's own writing) is timed on real_time; a
  // cpu_time Google Benchmark wrote as NaN refuses the benchmark, naming the key.
  const std::string text = R"({"context": {}, "benchmarks": [
    {"name": "BM_a", "run_name": "BM_a", "run_type": "iteration", "threads": 1,
     "real_time": 12.5, "time_unit": "ms", "perfgate_bytes": 2e8},
    {"name": "BM_b", "run_name": "BM_b", "run_type": "iteration", "threads": 1,
     "real_time": 12.5, "cpu_time": NaN, "time_unit": "ms", "perfgate_bytes": 2e8}]})";
  const auto q = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(q.kernels.size(), 1U);
  EXPECT_DOUBLE_EQ(*q.kernels[0].time_s, 12.5e-3);
  ASSERT_EQ(q.tool_errors.size(), 1U);
  EXPECT_NE(q.tool_errors[0].find("\"BM_b\": its \"cpu_time\" is NaN or infinite"),
            std::string::npos)
      << q.tool_errors[0];
}

// Bytes without operations are judged against the memory roof alone: no operation count is made
// up, the class is memory, and the time the model gives is the DRAM time of those bytes.
TEST(GbenchImporter, BytesAloneAreJudgedAgainstTheMemoryRoof) {
  const auto p = perfgate::import_profile(std::string(PERFGATE_TEST_DATA_DIR) +
                                          "/gbench/standard_counters.json");
  const auto k = perfgate::kernel_params_from_profile(p, p.kernels[0]);
  EXPECT_FALSE(k.compute_declared);
  EXPECT_EQ(k.W_comp, 0.0);
  EXPECT_EQ(k.W_traf, p.kernels[0].work->bytes);
  const auto d = perfgate::resolve_device("h100-sxm");
  const auto pred = perfgate::predict(k, d);
  EXPECT_EQ(pred.bound, perfgate::bound_class::memory);
  EXPECT_DOUBLE_EQ(pred.predicted_time_s, k.W_traf / (d.peaks.dram_gbs * 1e9));
  ASSERT_TRUE(pred.roof);
  EXPECT_EQ(pred.roof->limiter, "dram");
  EXPECT_DOUBLE_EQ(pred.roof->time_s, pred.predicted_time_s);
  const auto with_items = perfgate::kernel_params_from_profile(p, p.kernels[3]);
  ASSERT_TRUE(with_items.items);
  EXPECT_NEAR(*with_items.items, 1 << 23, 1e-3);
  // With operations declared the compute side is there again.
  EXPECT_TRUE(perfgate::kernel_params_from_profile(p, p.kernels[4]).compute_declared);
}

// A name's arguments are kept as the benchmark wrote them (issue 43), without the options the
// harness appends; the working set is never read from them: snappy's "/2" indexes its test
// files, so a size taken from it would hold a 123 KB decompression to L1.
TEST(GbenchImporter, ArgumentsAreKeptAndNeverReadAsASize) {
  const std::string text = R"({"context": {"host_name": "h"}, "benchmarks": [
    {"name": "BM_UFlat/2", "run_type": "iteration", "threads": 1, "iterations": 10,
     "real_time": 1, "cpu_time": 1, "time_unit": "us", "bytes_per_second": 1.23e11},
    {"name": "BM_memcpy/8/64/min_time:0.100/min_warmup_time:0.100/real_time",
     "run_type": "iteration", "threads": 1, "iterations": 10, "real_time": 1, "cpu_time": 1,
     "time_unit": "us", "bytes_per_second": 1e9},
    {"name": "BM_set/size:4096/iterations:5/repeats:2/process_time/threads:1",
     "run_type": "iteration", "threads": 1, "iterations": 5, "real_time": 1, "cpu_time": 1,
     "time_unit": "us", "bytes_per_second": 1e9},
    {"name": "BM_plain/manual_time", "run_type": "iteration", "threads": 1, "iterations": 5,
     "real_time": 1, "cpu_time": 1, "time_unit": "us", "bytes_per_second": 1e9}]})";
  const auto p = perfgate::import_profile_text(text, "g.json");
  ASSERT_EQ(p.kernels.size(), 4U);
  EXPECT_EQ(p.kernels[0].work->arguments, "2");
  EXPECT_EQ(p.kernels[1].work->arguments, "8/64");
  EXPECT_EQ(p.kernels[2].work->arguments, "size:4096");
  EXPECT_EQ(p.kernels[3].work->arguments, "");
  // A perfgate-profile keeps them.
  const auto back = perfgate::import_profile_text(perfgate::profile_to_json(p), "p.json");
  EXPECT_EQ(back.kernels[1].work->arguments, "8/64");

  const auto uflat = perfgate::kernel_params_from_profile(p, p.kernels[0]);
  ASSERT_TRUE(uflat.working_set_bytes);
  EXPECT_DOUBLE_EQ(*uflat.working_set_bytes, 1.23e5); // one iteration's bytes, not "2"
  EXPECT_EQ(uflat.working_set_source,
            "working set not declared (arguments /2 not read as a size): one iteration's bytes");
  EXPECT_EQ(perfgate::kernel_params_from_profile(p, p.kernels[3]).working_set_source,
            "working set not declared: one iteration's bytes");
}
