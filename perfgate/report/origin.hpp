// SPDX-License-Identifier: Apache-2.0
// Where a merged report's kernel came from: its origin "<report file> (<host>)" (merge_reports
// writes it, later merges keep it). add_perf_prediction names a test's report after the CTest
// test (<test>.json), so the origin also names the test.
#pragma once

#include <string>
#include <string_view>

namespace perfgate::detail {

struct origin_parts {
  std::string file; ///< the report file as merge was given it
  std::string host; ///< empty when the origin names none
};

/// "build/perfgate-reports/perf.triad.json (runner-1)" -> {file, "runner-1"}.
[[nodiscard]] origin_parts split_origin(std::string_view origin);

/// The test an origin names: its file's name without folders and ".json" ("perf.triad").
[[nodiscard]] std::string origin_test(std::string_view origin);

} // namespace perfgate::detail
