// SPDX-License-Identifier: Apache-2.0
// nvbench's JSON (tests/data/nvbench/: constructed to nvbench's writer, json_printer.cu, in its
// 2026 layout (66212f1 = cuda-bench 0.3.0) and its 2022-2025 layout (c03033b); README there).
// The expectations are read from the files themselves with a JSON parser of the test's own, so
// "times and bytes match the file exactly" is checked to the last bit.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/import.hpp>
#include <perfgate/model.hpp>

#include "importers/nvbench_importer.hpp"
#include "import_failure.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace {

const std::string dir = std::string(PERFGATE_TEST_DATA_DIR) + "/nvbench";
const std::string h200 = dir + "/copy_h200.json";
// A real file of the 2022-2025 layout (tests/data/external/SOURCES.md).
const std::string real_2022 =
    std::string(PERFGATE_TEST_DATA_DIR) + "/external/nvbench_NVIDIA-nvbench_test_ref.json";

// The state's summary value of `tag` as the file writes it (a string).
std::string written(const nlohmann::json& state, const std::string& tag,
                    const std::string& entry = "value") {
  for (const auto& s : state.at("summaries")) {
    if (s.at("tag") == tag) {
      for (const auto& d : s.at("data")) {
        if (d.at("name") == entry) {
          return d.at("value").get<std::string>();
        }
      }
    }
  }
  ADD_FAILURE() << "no " << tag;
  return "";
}

double number(const std::string& text) { return std::strtod(text.c_str(), nullptr); }

const perfgate::kernel_profile& kernel(const perfgate::profile& p, const std::string& name) {
  const auto it = std::find_if(p.kernels.begin(), p.kernels.end(),
                               [&](const auto& k) { return k.name == name; });
  if (it == p.kernels.end()) {
    throw std::runtime_error("no kernel " + name);
  }
  return *it;
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

} // namespace

TEST(NvbenchImporter, EveryStateIsAKernelWithItsAxisValues) {
  const auto text = perfgate::read_text_file(h200);
  EXPECT_EQ(perfgate::detect_profile_format(text, h200), perfgate::profile_format::nvbench_json);
  const auto f = perfgate::detail::read_nvbench_json(text, h200);
  EXPECT_EQ(f.writer, "nvbench python-0.3.0-5-g66212f1");
  ASSERT_EQ(f.states.size(), 7U); // 4 copy, 2 host_copy, 1 skipped
  EXPECT_EQ(f.states[0].kernel, "copy [Device=0 T=I32 Elements=2^20]");
  EXPECT_EQ(f.states[0].axis_args, (std::vector<std::string>{"T=I32", "Elements[pow2]=20"}));
  EXPECT_EQ(f.states[3].axis_args, (std::vector<std::string>{"T=F64", "Elements[pow2]=24"}));
  EXPECT_EQ(f.states[3].device, 0);
  EXPECT_EQ(f.states[5].kernel, "host_copy [Bytes=16777216 How=byte loop]");
  EXPECT_EQ(f.states[5].axis_args, (std::vector<std::string>{"Bytes=16777216", "How=byte loop"}));
  EXPECT_TRUE(f.states[5].cpu_only);
  EXPECT_FALSE(f.states[5].device);
  EXPECT_TRUE(f.states[6].skipped);

  const auto p = perfgate::import_profile(h200);
  EXPECT_EQ(p.format, perfgate::profile_format::nvbench_json);
  EXPECT_EQ(p.device_name, "NVIDIA H200");
  ASSERT_EQ(p.kernels.size(), 6U);
  EXPECT_EQ(kernel(p, "host_copy [Bytes=16777216 How=memcpy]").threads, 1U);
  ASSERT_EQ(p.tool_errors.size(), 1U); // the skipped state, quoted when it is gated
  EXPECT_EQ(p.tool_errors[0], "Failed to profile \"transform [Device=0 Algo=legacy]\": nvbench "
                              "skipped it (Algo=legacy needs sm_80 or older)");
}

TEST(NvbenchImporter, TimesBytesAndSamplesMatchTheFileExactly) {
  const auto doc = nlohmann::json::parse(perfgate::read_text_file(h200));
  const auto p = perfgate::import_profile(h200);
  const auto& bench = doc.at("benchmarks").at(0);
  for (std::size_t s = 0; s < 4; ++s) {
    const auto& state = bench.at("states").at(s);
    const auto& k = kernel(p, "copy [" + state.at("name").get<std::string>() + "]");
    SCOPED_TRACE(k.name);
    EXPECT_EQ(*k.time_s, number(written(state, "nv/cold/time/gpu/mean")));
    ASSERT_TRUE(k.work);
    const double reads = number(written(state, "nv/gmem/reads/ReadBytes"));
    const double writes = number(written(state, "nv/gmem/writes/WriteBytes"));
    EXPECT_EQ(k.work->bytes, reads + writes);
    EXPECT_EQ(k.work->write_bytes, writes);
    EXPECT_EQ(k.work->items, number(written(state, "nv/element_count/Elements")));
    EXPECT_EQ(k.work->bytes_source, "nvbench");
    EXPECT_EQ(*k.sm_clock_mhz, number(written(state, "nv/cold/sm_clock_rate/mean")) / 1e6);
    // --jsonbin's samples: every one, as float32 in the file beside the JSON
    const auto count = static_cast<std::size_t>(number(written(state, "nv/cold/sample_size")));
    ASSERT_TRUE(k.duration);
    ASSERT_EQ(k.duration->samples_s.size(), count);
    std::ifstream bin(dir + "/" + written(state, "nv/json/bin:nv/cold/sample_times", "filename"),
                      std::ios::binary);
    std::vector<float> stored(count);
    bin.read(reinterpret_cast<char*>(stored.data()), static_cast<std::streamsize>(4 * count));
    for (std::size_t i = 0; i < count; ++i) {
      EXPECT_EQ(k.duration->samples_s[i], static_cast<double>(stored[i]));
    }
  }
  // A CPU-only benchmark's time is its CPU mean.
  const auto& state = doc.at("benchmarks").at(1).at("states").at(0);
  EXPECT_EQ(*kernel(p, "host_copy [Bytes=16777216 How=memcpy]").time_s,
            number(written(state, "nv/cpu_only/time/cpu/mean")));
}

// The 2022-2025 layout (NVIDIA/nvbench's own reference output, 2022): no named columns
// (add_global_memory_reads<T>(n) without a column name), so the bytes and items are only in the
// rates; rate x mean gives the integers back exactly. The statistics are the sample count and
// the noise: nothing else is made up.
TEST(NvbenchImporter, OlderFilesGiveTheBytesThroughTheBandwidth) {
  const auto doc = nlohmann::json::parse(perfgate::read_text_file(real_2022));
  const auto p = perfgate::import_profile(real_2022);
  const auto& bench = doc.at("benchmarks").at(3); // copy_type_sweep: T = U8 .. F64, 2 GPUs
  ASSERT_EQ(bench.at("name"), "copy_type_sweep");
  for (const auto& state : bench.at("states")) {
    const auto& k = kernel(p, "copy_type_sweep [" + state.at("name").get<std::string>() + "]");
    SCOPED_TRACE(k.name);
    EXPECT_EQ(*k.time_s, number(written(state, "nv/cold/time/gpu/mean")));
    EXPECT_EQ(k.work->bytes, 536870912.0); // 256 MiB read and written, whatever the type
    EXPECT_FALSE(k.work->write_bytes);     // the rate does not say which part is written
    EXPECT_EQ(*k.sample_count, number(written(state, "nv/cold/sample_size")));
    EXPECT_EQ(*k.relative_noise, number(written(state, "nv/cold/time/gpu/stdev/relative")));
    EXPECT_FALSE(k.duration); // no median, no samples: only the count, the mean and the noise
  }
}

TEST(NvbenchImporter, AStateIsJudgedAgainstTheMemoryRoof) {
  const auto p = perfgate::import_profile(h200);
  const auto& k = kernel(p, "copy [Device=0 T=F64 Elements=2^24]");
  const auto params = perfgate::kernel_params_from_profile(p, k);
  EXPECT_FALSE(params.compute_declared);
  const auto d = perfgate::resolve_device("h200");
  const auto pred = perfgate::predict(params, d);
  EXPECT_EQ(pred.bound, perfgate::bound_class::memory);
  EXPECT_DOUBLE_EQ(pred.predicted_time_s, 2.0 * 8 * (1 << 24) / (d.peaks.dram_gbs * 1e9));
}

TEST(NvbenchImporter, MalformedFilesNameTheKey) {
  const auto text = perfgate::read_text_file(h200);
  auto failure = [](const std::string& t) { return perfgate::test::import_failure(t, "n.json"); };
  // the element count of state 0 (a summary's data: indented deeper than the axis values)
  EXPECT_NE(failure(with(text, "                  \"value\": \"1048576\"",
                         "                  \"value\": \"1048576x\""))
                .find("n.json: key 'benchmarks[0].states[0].summaries[0].data[0].value': expected "
                      "an int64 written as a string, found int64 \"1048576x\""),
            std::string::npos);
  EXPECT_NE(failure(with(text, "\"major\": 1", "\"major\": 2"))
                .find("key 'meta.version.json.major': expected 1: perfgate reads nvbench's JSON "
                      "format 1.x, found 2"),
            std::string::npos);
  EXPECT_NE(failure(with(text, "\"input_string\": \"20\"", "\"input_string\": \"20\", \"x\": 0"))
                .find("no error"),
            std::string::npos); // unknown keys are nvbench's to add
  auto no_pow2_value = with(text, "\"value\": 1048576", "\"value\": 1048577");
  EXPECT_NE(failure(no_pow2_value)
                .find("key 'benchmarks[0].axes[1].values': has no value 1048576 for the state "
                      "that names it"),
            std::string::npos);
  // Without meta (hand-written files in the 1.x layout) the file is still nvbench's and read as
  // 1.x; the 2021 layout before it is refused by name (tests/golden/real_bench_test.cpp).
  auto no_meta = with(text, "\"meta\"", "\"m\"");
  EXPECT_TRUE(perfgate::detail::looks_like_nvbench_json(no_meta));
  EXPECT_EQ(perfgate::detail::import_nvbench_json(no_meta, "n.json").kernels.size(),
            perfgate::import_profile(h200).kernels.size());
  // state 0's mean GPU time no number
  std::string bad_mean = text;
  const auto value = bad_mean.find("\"value\": \"", bad_mean.find("nv/cold/time/gpu/mean"));
  bad_mean.insert(value + std::string("\"value\": \"").size(), "x");
  EXPECT_NE(failure(bad_mean).find("key 'benchmarks[0].states[0].summaries[16].data[0].value': "
                                   "expected a number written as a string, found \"x"),
            std::string::npos)
      << failure(bad_mean);
}

TEST(NvbenchImporter, SampleFilesMustHoldTheirSamples) {
  namespace fs = std::filesystem;
  const fs::path tmp = fs::temp_directory_path() / "perfgate-nvbench-test";
  fs::remove_all(tmp);
  fs::create_directories(tmp / "copy_h200.json-bin");
  for (const auto& e : fs::directory_iterator(dir + "/copy_h200.json-bin")) {
    fs::copy_file(e.path(), tmp / "copy_h200.json-bin" / e.path().filename());
  }
  const std::string text = perfgate::read_text_file(h200);
  const std::string file = (tmp / "copy_h200.json").string();
  { std::ofstream(tmp / "copy_h200.json-bin" / "1.bin", std::ios::binary) << "abcd"; }
  try {
    (void)perfgate::detail::import_nvbench_json(text, file);
    ADD_FAILURE() << "a truncated sample file was read";
  } catch (const perfgate::input_error& e) {
    EXPECT_NE(std::string(e.what()).find("key 'benchmarks[0].states[1].summaries[30].data[0].value'"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("holds 4 bytes, expected 2107 float32 samples"),
              std::string::npos)
        << e.what();
  }
  // A sample file moved away: the statistics nvbench wrote still describe the run.
  fs::remove_all(tmp / "copy_h200.json-bin");
  const auto p = perfgate::detail::import_nvbench_json(text, file);
  EXPECT_TRUE(p.kernels[1].duration); // median, min, max from the summaries
  EXPECT_TRUE(p.kernels[1].duration->samples_s.empty());
  fs::remove_all(tmp);
}

TEST(NvbenchImporter, NoDeclaredBytesSaysHowToDeclareThem) {
  // NVIDIA/spark-rapids-jni's results: times only, nothing says what a state moved.
  const std::string file =
      std::string(PERFGATE_TEST_DATA_DIR) + "/external/nvbench_spark-rapids-jni_after.json";
  EXPECT_NE(perfgate::test::import_failure(std::filesystem::path(file))
                .find("kernel 'get_json_object [Device=0 size_bytes=1000000 max_depth=2]': "
                      "declares no work: call state.add_global_memory_reads<T>(n) and "
                      "add_global_memory_writes<T>(n)"),
            std::string::npos);
}
