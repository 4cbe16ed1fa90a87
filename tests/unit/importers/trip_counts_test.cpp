// SPDX-License-Identifier: Apache-2.0
// The trip counts `perfgate pipeline idg` gives a SASS graph's loops: HEAD=N, or a CSV file of
// them, a bad one named by its line.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "importers/trip_counts.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace {

using perfgate::detail::parse_trip_count;
using perfgate::detail::read_trip_counts;

TEST(TripCounts, HeadIsHexWithOrWithoutItsPrefix) {
  EXPECT_EQ(parse_trip_count("0x01e0=32"), (std::pair<std::uint32_t, std::uint64_t>{0x1e0, 32}));
  EXPECT_EQ(parse_trip_count("1e0=7"), (std::pair<std::uint32_t, std::uint64_t>{0x1e0, 7}));
  for (const char* bad : {"0x01e0", "0x01e0=", "=32", "0x=3", "0xzz=3", "0x10=3x"}) {
    EXPECT_THROW((void)parse_trip_count(bad), perfgate::usage_error) << bad;
  }
}

TEST(TripCounts, FileRowsAddUpAndABadRowIsNamedByItsLine) {
  const perfgate::scratch_dir dir("perfgate-trip-counts-test-");
  const auto file = (dir.path() / "trips.csv").string();
  perfgate::write_file_atomically(file, "head,trips\n0x0100,4\n0x0200,16\n");
  std::map<std::uint32_t, std::uint64_t> trips;
  read_trip_counts(file, trips);
  EXPECT_EQ(trips, (std::map<std::uint32_t, std::uint64_t>{{0x100, 4}, {0x200, 16}}));

  perfgate::write_file_atomically(file, "head,trips\n0x0100,4\n0x0200,many\n");
  try {
    read_trip_counts(file, trips);
    FAIL() << "expected input_error";
  } catch (const perfgate::input_error& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.where(), "3");
  }
}

TEST(ScratchDir, IsEmptyWhenMadeAndGoneAfterwards) {
  std::filesystem::path kept;
  {
    const perfgate::scratch_dir dir("perfgate-scratch-test-");
    kept = dir.path();
    ASSERT_TRUE(std::filesystem::is_directory(kept));
    EXPECT_TRUE(std::filesystem::is_empty(kept));
    perfgate::create_parent_directories(kept / "a" / "b.txt");
    perfgate::write_file_atomically(kept / "a" / "b.txt", "x");
  }
  EXPECT_FALSE(std::filesystem::exists(kept));
}

} // namespace
