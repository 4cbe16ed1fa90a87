// SPDX-License-Identifier: Apache-2.0
// Counter runs kept between gate runs (issue 43). A kernel's counters (instructions, bytes) are
// the same run after run while its code, launch configuration, GPU and counter set are; its
// times are not. The nvbench collector counts every state in a run of its own under kernel
// replay, which costs more than the suite itself (1.6-1.9x the suite on an H200): with a cache
// in the build tree, a state's counter run is made once per build of the program and reused
// while the program's files are byte-identical, and only the times are measured every run.
#pragma once

#include "collectors/collectors.hpp"

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace perfgate::detail {

/// What a counter run depends on. Two runs of equal keys count the same kernels the same way;
/// anything not in the key (a data file the program reads, an environment variable, a shared
/// library loaded by name) is the user's to keep fixed, or to turn the cache off for.
struct counter_cache_key {
  /// The FNV-1a hash of every file of the command (the program, resolved on PATH, and each
  /// argument that names a regular file: `python3 bench.py` hashes both), in argv order.
  std::vector<std::string> files_fnv1a64;
  std::vector<std::string> argv;    ///< the whole command (a state's --benchmark, --axis ...)
  std::string device;               ///< the GPU counted on: its name and chip
  std::vector<std::string> metrics; ///< the counter set, in the order asked

  [[nodiscard]] bool operator==(const counter_cache_key&) const = default;
};

/// The key of `argv` counted with `metrics` on `device`. Throws input_error when the program
/// cannot be found or read (its hash is the key: no run without it).
[[nodiscard]] counter_cache_key counter_cache_key_of(const std::vector<std::string>& argv,
                                                     std::string device,
                                                     std::vector<std::string> metrics);

/// A folder of counter runs (`perfgate-counter-cache/1` files, one per key, the whole key
/// inside: a file whose key differs is never used, so a changed program, state, device or
/// counter set is counted again).
class counter_cache {
public:
  explicit counter_cache(std::filesystem::path dir) : m_dir(std::move(dir)) {}

  /// The counter run stored for `key`, or empty when none is. A file that cannot be read or
  /// parsed (truncated, edited, another format) is a miss with a warning on stderr naming it,
  /// and is replaced by the next store: never counters from a file it cannot trust.
  [[nodiscard]] std::optional<cupti_run> find(const counter_cache_key& key) const;

  /// Keeps `run_json` (the injection library's perfgate-cupti/1 text of a counter run) for
  /// `key`, written atomically. A folder that cannot be written is a warning, not a failure:
  /// the run was counted, only its reuse is lost.
  void store(const counter_cache_key& key, const std::string& run_json) const;

  /// The file that holds `key`'s run.
  [[nodiscard]] std::filesystem::path file_of(const counter_cache_key& key) const;
  [[nodiscard]] const std::filesystem::path& dir() const { return m_dir; }

private:
  std::filesystem::path m_dir;
};

/// The counter run of `key`: from `cache` where it holds one, else `count()` (which runs the
/// program and returns the run's perfgate-cupti/1 text), stored for the next time. Without a
/// cache, always `count()`. `hit`, when given, says which it was.
[[nodiscard]] cupti_run cached_counter_run(const counter_cache* cache, const counter_cache_key& key,
                                           const std::function<std::string()>& count,
                                           bool* hit = nullptr);

} // namespace perfgate::detail
