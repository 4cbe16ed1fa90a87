// SPDX-License-Identifier: Apache-2.0
// CTest's GPU resources: the ids perfgate writes, and the GPU a test was given, pinned.
#include <perfgate/error.hpp>

#include "collectors/ctest_gpus.hpp"

#include <gtest/gtest.h>

#include <map>

namespace perfgate::detail {
namespace {

using environment = std::map<std::string, std::string>;

std::optional<gpu_pin> assignment(const environment& env) {
  return ctest_gpu_assignment([&env](const char* name) -> const char* {
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
  });
}

std::string error_of(const environment& env) {
  try {
    (void)assignment(env);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(CTestGpuId, NvidiaUuidsBecomeCTestIdsAndPinBackToTheSameUuid) {
  const std::string uuid = "GPU-8f3a9c1e-52b4-7d0e-a1c6-3e9b0f2d4a71";
  const std::string id = ctest_gpu_id("nvidia", uuid);
  EXPECT_EQ(id, "nvidia_8f3a9c1e_52b4_7d0e_a1c6_3e9b0f2d4a71");
  const auto pin = pin_for_ctest_gpu(id);
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->backend, "cuda");
  EXPECT_EQ(pin->describe(), "CUDA_VISIBLE_DEVICES=" + uuid);
}

TEST(CTestGpuId, AmdUniqueIdsArePaddedTo16HexDigitsAndPinThroughRocr) {
  EXPECT_EQ(ctest_gpu_id("amd", "4B8F9D2A7C1E0D36"), "amd_4b8f9d2a7c1e0d36");
  EXPECT_EQ(ctest_gpu_id("amd", "GPU-d36"), "amd_0000000000000d36");
  const auto pin = pin_for_ctest_gpu("amd_4b8f9d2a7c1e0d36");
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->backend, "hip");
  EXPECT_EQ(pin->describe(), "ROCR_VISIBLE_DEVICES=GPU-4b8f9d2a7c1e0d36 HIP_VISIBLE_DEVICES=0");
}

TEST(CTestGpuId, IdsCTestWouldRefuseAreNeverWritten) {
  EXPECT_THROW((void)ctest_gpu_id("nvidia", "MIG-8f3a"), usage_error);
  EXPECT_THROW((void)ctest_gpu_id("nvidia", "GPU-8f3a;rm"), usage_error);
  EXPECT_THROW((void)ctest_gpu_id("amd", "GPU-4b8f9d2a7c1e0d36ff"), usage_error); // > 16
  EXPECT_THROW((void)ctest_gpu_id("intel", "GPU-1"), usage_error);
}

TEST(CTestGpuPin, IndicesPinInPciOrderAndDefaultPinsNothing) {
  const auto pin = pin_for_ctest_gpu("3");
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->backend, "");
  EXPECT_EQ(pin->describe(),
            "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=3 HIP_VISIBLE_DEVICES=3");
  EXPECT_FALSE(pin_for_ctest_gpu("default"));
  try {
    (void)pin_for_ctest_gpu("gpu_a");
    FAIL() << "an id perfgate cannot pin was accepted";
  } catch (const usage_error& e) {
    EXPECT_NE(std::string(e.what()).find("the GPU 'gpu_a': perfgate pins the ids"),
              std::string::npos)
        << e.what();
  }
}

TEST(CTestGpuAssignment, ReadsTheGpusGroupCTestSets) {
  EXPECT_FALSE(assignment({})); // no resource specification
  const auto pin = assignment({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                               {"CTEST_RESOURCE_GROUP_0", "gpus"},
                               {"CTEST_RESOURCE_GROUP_0_GPUS", "id:nvidia_8f3a_52b4,slots:1"}});
  ASSERT_TRUE(pin);
  EXPECT_EQ(pin->ctest_id, "nvidia_8f3a_52b4");
  EXPECT_EQ(pin->describe(), "CUDA_VISIBLE_DEVICES=GPU-8f3a-52b4");
  // The one-GPU specification perfgate's module writes when the user gave none.
  EXPECT_FALSE(assignment({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                           {"CTEST_RESOURCE_GROUP_0", "gpus"},
                           {"CTEST_RESOURCE_GROUP_0_GPUS", "id:default,slots:1"}}));
  // A group of another resource type is the user's own.
  EXPECT_FALSE(assignment({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                           {"CTEST_RESOURCE_GROUP_0", "licenses"},
                           {"CTEST_RESOURCE_GROUP_0_LICENSES", "id:a,slots:1"}}));
  const auto second = assignment({{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                                  {"CTEST_RESOURCE_GROUP_0", "licenses"},
                                  {"CTEST_RESOURCE_GROUP_0_LICENSES", "id:a,slots:1"},
                                  {"CTEST_RESOURCE_GROUP_1", "licenses,gpus"},
                                  {"CTEST_RESOURCE_GROUP_1_GPUS", "id:2,slots:2"}});
  ASSERT_TRUE(second);
  EXPECT_EQ(second->ctest_id, "2");
}

TEST(CTestGpuAssignment, MalformedOrSeveralGpusAreErrorsNamingTheVariable) {
  EXPECT_EQ(error_of({{"CTEST_RESOURCE_GROUP_COUNT", "x"}}),
            "CTEST_RESOURCE_GROUP_COUNT='x': expected a count");
  EXPECT_EQ(error_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"}}),
            "CTEST_RESOURCE_GROUP_0 is not set, though CTEST_RESOURCE_GROUP_COUNT=1");
  EXPECT_EQ(error_of({{"CTEST_RESOURCE_GROUP_COUNT", "1"},
                      {"CTEST_RESOURCE_GROUP_0", "gpus"},
                      {"CTEST_RESOURCE_GROUP_0_GPUS", "slots:1"}}),
            "CTEST_RESOURCE_GROUP_0_GPUS='slots:1': expected id:<id>,slots:<n> (separated by "
            "';' when several), as CTest writes it");
  EXPECT_EQ(error_of({{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                      {"CTEST_RESOURCE_GROUP_0", "gpus"},
                      {"CTEST_RESOURCE_GROUP_0_GPUS", "id:0,slots:1"},
                      {"CTEST_RESOURCE_GROUP_1", "gpus"},
                      {"CTEST_RESOURCE_GROUP_1_GPUS", "id:1,slots:1"}}),
            "CTest gave this test 2 GPUs (0, 1): a perf test gates one GPU; request "
            "RESOURCE_GROUPS gpus:1");
  // Two slots of one GPU are one GPU.
  EXPECT_TRUE(assignment({{"CTEST_RESOURCE_GROUP_COUNT", "2"},
                          {"CTEST_RESOURCE_GROUP_0", "gpus"},
                          {"CTEST_RESOURCE_GROUP_0_GPUS", "id:1,slots:1"},
                          {"CTEST_RESOURCE_GROUP_1", "gpus"},
                          {"CTEST_RESOURCE_GROUP_1_GPUS", "id:1,slots:1"}}));
}

TEST(CTestResourceSpec, ListsEachGpuWithItsSlots) {
  EXPECT_EQ(ctest_resource_spec({{"nvidia_8f3a", 1}, {"1", 2}}),
            R"({
  "version": {
    "major": 1,
    "minor": 0
  },
  "local": [
    {
      "gpus": [
        {
          "id": "nvidia_8f3a",
          "slots": 1
        },
        {
          "id": "1",
          "slots": 2
        }
      ]
    }
  ]
}
)");
}

} // namespace
} // namespace perfgate::detail
