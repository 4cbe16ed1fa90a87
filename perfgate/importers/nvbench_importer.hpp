// SPDX-License-Identifier: Apache-2.0
// nvbench's JSON (`--json FILE` or `--jsonbin FILE`; its format version meta.version.json 1.x,
// written by nvbench since 2022-01 and by PyPI's cuda-bench, nvbench's Python front end; a file
// without `meta` in that layout is read too, the 2021 layout before it is refused by name).
// Every state of every benchmark becomes a kernel named "<benchmark> [<state name>]", the state
// name as nvbench writes it ("Device=0 T=I32 Elements=2^20"), on the GPU it ran on (a file of
// several GPUs names each state's: "Quadro GP100 (1)"). Its time is nvbench's cold mean
// (nv/cold/time/gpu/mean; nv/cpu_only/time/cpu/mean for CPU-only benchmarks), its samples those
// --jsonbin wrote beside the file, else the statistics the file holds (count and relative noise
// alone before 2025: no other statistic is made up), its bytes the global memory reads and writes the benchmark
// declared (nv/gmem/* columns, else the bandwidth summary times the mean), its items the
// element counts. nvbench declares no operations: alone, a state is judged against the memory
// roof; the nvbench collector adds CUPTI's counters of the same kernels.
#pragma once

#include <perfgate/profile.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

/// One nvbench state: where it is in the file, how to run it alone, and what nvbench measured.
struct nvbench_state {
  std::string benchmark; ///< the benchmark's name, as `--benchmark` takes it
  std::string name;      ///< the state's name as nvbench wrote it
  std::string kernel;    ///< perfgate's kernel name: "<benchmark> [<name>]"
  std::optional<std::int64_t> device; ///< absent for a CPU-only benchmark
  bool cpu_only = false;
  /// `--axis` specifications that select exactly this state ("T=I32", "Elements[pow2]=20").
  std::vector<std::string> axis_args;
  bool skipped = false;
  std::string skip_reason;
  std::optional<double> mean_s;          ///< cold GPU (or CPU-only) mean time
  std::optional<double> noise;           ///< relative standard deviation, when finite
  std::uint64_t samples = 0;             ///< nv/cold/sample_size (0: not in the file)
  std::optional<duration_stats> summary; ///< min, max, median, stdev where nvbench wrote them
  std::vector<double> samples_s;         ///< every cold sample (--jsonbin), else empty
  std::optional<double> bytes;           ///< global memory bytes read and written
  std::optional<double> write_bytes;     ///< the written part, when the columns tell it
  std::optional<double> items;           ///< element count
  std::optional<double> sm_clock_hz;     ///< nv/cold/sm_clock_rate/mean
};

/// What an nvbench JSON file holds.
struct nvbench_file {
  std::string writer; ///< "nvbench <git_version>" (or its version string)
  std::vector<std::pair<std::int64_t, std::string>> devices; ///< id, name
  std::vector<nvbench_state> states;
};

[[nodiscard]] bool looks_like_nvbench_json(std::string_view text);
/// Reads the file's states (jsonbin sample files are looked up beside `file`). Input errors name
/// the key ("benchmarks[0].states[1].summaries[4].data[0].value").
[[nodiscard]] nvbench_file read_nvbench_json(std::string_view text, const std::string& file);
/// The profile of those states: a kernel per measured state; skipped states in tool_errors.
[[nodiscard]] profile profile_from_nvbench(const nvbench_file& f, const std::string& file);
[[nodiscard]] profile import_nvbench_json(std::string_view text, const std::string& file);

} // namespace perfgate::detail
