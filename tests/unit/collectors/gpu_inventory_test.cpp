// SPDX-License-Identifier: Apache-2.0
// `perfgate resources` on NVML's and ROCm SMI's answers, replayed from recordings in
// tests/data/resources (the recorder's format; the values are those the libraries give for
// the cards named, see the README there).
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/ctest_gpus.hpp"
#include "collectors/gpu_inventory.hpp"

#include <gtest/gtest.h>

namespace perfgate::detail {
namespace {

std::string data(const std::string& name) {
  return std::string(PERFGATE_TEST_DATA_DIR) + "/resources/" + name;
}

gpu_answers replay(const std::string& name) {
  return gpu_answers_from_json(read_text_file(data(name)), data(name));
}

std::vector<ctest_gpu> spec_of(const gpu_inventory& inventory, unsigned slots = 1) {
  std::vector<ctest_gpu> gpus;
  for (const auto& g : inventory.gpus) {
    gpus.push_back({g.ctest_id, slots});
  }
  return gpus;
}

TEST(GpuInventory, FourH100sBecomeTheGoldenResourceSpecification) {
  const gpu_inventory inventory = gpu_inventory_from(replay("nvml_4x_h100.json"));
  ASSERT_EQ(inventory.gpus.size(), 4U);
  EXPECT_EQ(inventory.gpus[1].vendor, "nvidia");
  EXPECT_EQ(inventory.gpus[1].index, 1U);
  EXPECT_EQ(inventory.gpus[1].name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(inventory.gpus[1].memory_bytes, 85520809984U);
  ASSERT_EQ(inventory.notes.size(), 1U);
  EXPECT_EQ(inventory.notes[0], "ROCm SMI: not loaded (librocm_smi64.so.1: cannot open shared "
                                "object file: No such file or directory)");
  EXPECT_EQ(ctest_resource_spec(spec_of(inventory)),
            read_text_file(data("nvml_4x_h100.spec.json")));
}

TEST(GpuInventory, ALostGpuIsLeftOutAndSaysWhy) {
  const gpu_inventory inventory = gpu_inventory_from(replay("nvml_one_gpu_lost.json"));
  ASSERT_EQ(inventory.gpus.size(), 3U);
  EXPECT_EQ(inventory.gpus[2].index, 3U);
  EXPECT_EQ(inventory.notes[0],
            "NVML device 2: left out, its UUID failed: GPU is lost (status 15)");
}

TEST(GpuInventory, NoDriverListsNothingAndSaysWhy) {
  const gpu_inventory inventory = gpu_inventory_from(replay("nvml_driver_not_loaded.json"));
  EXPECT_TRUE(inventory.gpus.empty());
  ASSERT_EQ(inventory.notes.size(), 2U);
  EXPECT_EQ(inventory.notes[0], "NVML: nvmlInit_v2 failed: Driver Not Loaded (status 9)");
}

TEST(GpuInventory, AnAmdGpuWithoutUniqueIdIsListedByIndex) {
  const gpu_inventory inventory = gpu_inventory_from(replay("rocm_smi_mi300x_and_w7900.json"));
  ASSERT_EQ(inventory.gpus.size(), 2U);
  EXPECT_EQ(inventory.gpus[0].ctest_id, "amd_4b8f9d2a7c1e0d36");
  EXPECT_EQ(inventory.gpus[1].ctest_id, "1");
  EXPECT_EQ(inventory.notes[1],
            "ROCm SMI device 1 (AMD Radeon PRO W7900): no unique id (RSMI_STATUS_NOT_SUPPORTED: "
            "This function is not supported in the current environment.): listed by its index 1");
  // Each id pins: the MI300X by its UUID, the W7900 by its index.
  EXPECT_EQ(pin_for_ctest_gpu(inventory.gpus[0].ctest_id)->describe(),
            "ROCR_VISIBLE_DEVICES=GPU-4b8f9d2a7c1e0d36 HIP_VISIBLE_DEVICES=0");
  EXPECT_EQ(pin_for_ctest_gpu(inventory.gpus[1].ctest_id)->describe(),
            "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=1 HIP_VISIBLE_DEVICES=1");
}

TEST(GpuAnswers, ARecordingReadsBackAsTheSameAnswers) {
  for (const char* name : {"nvml_4x_h100.json", "nvml_one_gpu_lost.json",
                           "nvml_driver_not_loaded.json", "rocm_smi_mi300x_and_w7900.json"}) {
    SCOPED_TRACE(name);
    const std::string text = read_text_file(data(name));
    EXPECT_EQ(gpu_answers_to_json(gpu_answers_from_json(text, name)), text);
  }
}

TEST(GpuAnswers, AMalformedRecordingNamesTheKey) {
  const std::string text = R"({"schema": "perfgate-gpu-answers/1",
    "nvml": {"init": {"status": 0, "value": 0}, "count": {"status": 0, "value": 2},
             "devices": [{"id": {"status": 0, "value": "GPU-1"}}]}})";
  try {
    (void)gpu_answers_from_json(text, "rec.json");
    FAIL() << "a count that differs from the devices listed was accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "rec.json: key 'nvml.devices': holds 1 devices, but count is 2");
  }
  EXPECT_THROW((void)gpu_answers_from_json(R"({"schema": "perfgate-report/2"})", "r.json"),
               input_error);
}

} // namespace
} // namespace perfgate::detail
