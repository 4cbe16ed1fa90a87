// SPDX-License-Identifier: Apache-2.0
// Resident groups per NVIDIA SM by the CUDA occupancy calculator's rules: the values are what
// cudaOccupancyMaxActiveBlocksPerMultiprocessor gives for these launches (the limits of the CUDA
// programming guide's compute-capability table; registers per warp in units of 256 from each
// of the four sub-partitions' 16K; shared memory in units of 128 bytes plus 1 KB per block from
// sm_80 on).
#include <perfgate/error.hpp>
#include <perfgate/pipeline.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
namespace pl = perfgate::pipeline;

std::string occupancy(const char* arch, std::uint64_t threads, std::uint32_t regs,
                      std::uint64_t shared) {
  const auto o = pl::nvidia_occupancy(arch, threads, {regs, shared});
  return std::to_string(o.groups) + " by " + o.limited_by;
}

std::string error_of(const char* arch, std::uint64_t threads, std::uint32_t regs,
                     std::uint64_t shared) {
  try {
    (void)pl::nvidia_occupancy(arch, threads, {regs, shared});
  } catch (const perfgate::usage_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(NvidiaOccupancy, TheExamplesOnHopper) {
  // The tiled sgemm (cuobjdump -res-usage: 32 registers, 9216 bytes): two blocks of 32 warps.
  EXPECT_EQ(occupancy("sm_90", 1024, 32, 9216), "2 by warps");
  // saxpy (10 registers, no shared memory), 256 threads: 8 blocks fill the 64 warps.
  EXPECT_EQ(occupancy("sm_90", 256, 10, 0), "8 by warps");
  EXPECT_EQ(occupancy("sm_90a", 256, 10, 0), "8 by warps");
}

TEST(NvidiaOccupancy, EachLimitDecidesWhereItIsTheTightest) {
  EXPECT_EQ(occupancy("sm_90", 256, 128, 0), "2 by registers"); // 4096 per warp: 16 warps
  EXPECT_EQ(occupancy("sm_90", 256, 40, 0), "6 by registers");  // 1280 per warp: 12 per quarter
  EXPECT_EQ(occupancy("sm_80", 128, 32, 48 * 1024), "3 by shared memory"); // 164 KB / 49 KB
  EXPECT_EQ(occupancy("sm_90", 32, 16, 0), "32 by groups");
  EXPECT_EQ(occupancy("sm_86", 256, 16, 0), "6 by warps");                 // 48 warps per SM
  EXPECT_EQ(occupancy("sm_75", 256, 16, 0), "4 by warps");                 // 32 warps per SM
  EXPECT_EQ(occupancy("sm_70", 128, 16, 48 * 1024), "2 by shared memory"); // 96 KB, none reserved
}

TEST(NvidiaOccupancy, LaunchesThatCannotRunAreErrorsNamingTheLimit) {
  EXPECT_EQ(error_of("sm_61", 256, 16, 0),
            "occupancy: no SM limits known for sm_61 (known: sm_70, sm_75, sm_80, sm_86, sm_87, "
            "sm_89, sm_90, sm_100); give the resident groups as a number");
  EXPECT_EQ(error_of("sm_90", 1024, 255, 0),
            "occupancy: a group of 1024 threads with 255 registers each does not fit one sm_90 "
            "SM (registers)");
  EXPECT_EQ(error_of("sm_90", 128, 16, 228 * 1024),
            "occupancy: 233472 bytes of shared memory per group; sm_90 allows at most 232448");
  EXPECT_EQ(error_of("sm_90", 2048, 16, 0),
            "occupancy: 2048 threads per group; a group has 1 to 1024");
}

} // namespace
