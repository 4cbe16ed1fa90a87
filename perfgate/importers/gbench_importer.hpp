// SPDX-License-Identifier: Apache-2.0
// Google Benchmark JSON (`--benchmark_out_format=json`, json_schema_version 1). Each benchmark
// declares the work of ONE iteration in counters with default flags: perfgate_fp32_flops,
// perfgate_fp64_flops, perfgate_int_ops, perfgate_bytes (summed over threads by the library,
// which is the work of one wall-clock iteration). Without perfgate_bytes, Google Benchmark's own
// bytes_per_second (SetBytesProcessed) gives the bytes of one iteration; items_per_second
// (SetItemsProcessed) is kept and reported. A benchmark with bytes and no operations is judged
// against the memory roof alone. The measured time is the median real time per iteration over
// the repetitions; for GPU benchmarks that is the manual time.
#pragma once

#include <perfgate/profile.hpp>

#include <string>
#include <string_view>

namespace perfgate::detail {

[[nodiscard]] bool looks_like_gbench_json(std::string_view text);
[[nodiscard]] profile import_gbench_json(std::string_view text, const std::string& file);

} // namespace perfgate::detail
