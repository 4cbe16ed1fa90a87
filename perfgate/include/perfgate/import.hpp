// SPDX-License-Identifier: Apache-2.0
/// \file
/// Reading profiles from the files profilers write. The format is detected from the content.
#pragma once

#include <perfgate/profile.hpp>

#include <filesystem>
#include <string>
#include <string_view>

namespace perfgate {

/// Formats perfgate reads.
enum class profile_format {
  detect,        ///< decide from the file's content
  nvprof_csv,    ///< `nvprof --csv --metrics ...` (per-invocation Min/Max/Avg table)
  ncu_csv_raw,   ///< `ncu --csv --page raw` (a row per launch, a column per metric)
  ncu_csv,       ///< `ncu --csv` details layout (a row per metric)
  perfgate_json, ///< `perfgate-profile/1`
  gbench_json,   ///< Google Benchmark `--benchmark_out_format=json` with declared work
  rocprof_csv,   ///< rocprofv3 `counter_collection.csv` (AMD; architecture from the counters)
  rocprof_wide_csv, ///< rocprof v1 `results.csv`, rocprofv2, Omniperf `pmc_perf.csv` (a column
                    ///< per counter)
  rocpd_db,         ///< rocprofv3's rocpd SQLite database (`.db`, ROCm 7.0+)
};

/// Detect the format of a file's text; throws input_error naming `file` when it is none we know.
[[nodiscard]] profile_format detect_profile_format(std::string_view text, const std::string& file);

/// Read a profile file. Throws input_error (exit 2) naming the file and the line or key on a
/// missing, unreadable, empty or malformed file, and on values no profiler can have measured
/// (negative, NaN or infinite times and counts).
[[nodiscard]] profile import_profile(const std::filesystem::path& file,
                                     profile_format format = profile_format::detect);

/// Parse profile text already in memory (tests, stdin); `file` is used in messages.
[[nodiscard]] profile import_profile_text(std::string_view text, const std::string& file,
                                          profile_format format = profile_format::detect);

} // namespace perfgate
