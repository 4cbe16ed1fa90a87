// SPDX-License-Identifier: Apache-2.0
/// \file
/// A device: the peak rates of one GPU or CPU (`perfgate-device/1`), from the built-in
/// database (datasheets or published micro-benchmarks) or from a file `perfgate calibrate`
/// wrote. Rates are in units of 1e9 per second.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate {

/// The peaks the models need (MODEL.md section 3, device parameters).
struct device_peaks {
  double fp32_gflops = 0;  ///< T_SP, an FMA counted as 2 flops
  double fp64_gflops = 0;  ///< T_DP, an FMA counted as 2 flops
  double int_mad_gops = 0; ///< T_int, a 32-bit integer MAD counted as 2 ops
  double int_add_gops = 0; ///< T_add, a 32-bit integer add counted as 1 op
  double ldst_ginst = 0;   ///< T_ldst, shared-memory load/store thread instructions per second
  double dram_gbs = 0;     ///< B_mem, DRAM bandwidth in 1e9 bytes per second
  /// The memory roof: the highest sustained DRAM bandwidth over access patterns (read, write,
  /// copy, triad, with and without non-temporal stores), 1e9 B/s. 0 when the file does not
  /// state it: then the largest of dram_gbs and the all-core `dram_*_gbs` pattern peaks.
  double dram_roof_gbs = 0;

  friend bool operator==(const device_peaks&, const device_peaks&) = default;
};

/// One public measurement of a rate a device's roofs use, as its file names it
/// (`sources.measured`): who measured it (repository and commit, or paper and table), the best
/// value of that rate it holds (in the peak's unit), and what was measured.
struct measured_source {
  std::string source; ///< "te42kyfo/gpu-benches@1c36d509 gpu-stream/h100_pcie.txt"
  double best = 0;    ///< the highest rate those measurements reached (1e9 per second)
  std::string what;   ///< "stream kernels (init, read, scale, triad, 3pt, 5pt), every occupancy"
};

/// Where a built-in device's numbers come from (`sources`): its datasheet, the source of the
/// clock its peaks hold at, and per rate its roofs use (dram_gbs, l2, fp32_gflops, fp64_gflops,
/// each tensor peak) the public measurements of it, or why there is none.
struct device_sources {
  std::string datasheet; ///< the vendor document the peaks are multiplied out from
  std::string max_clock; ///< where max_clock_mhz comes from (NVML's maximum, as published)
  std::map<std::string, std::vector<measured_source>, std::less<>> measured;
  std::map<std::string, std::string, std::less<>> unmeasured; ///< rate -> "none: why"
};

struct device {
  std::string id;     ///< short, lower-case, used on the command line ("h100-sxm")
  std::string name;   ///< marketing name ("NVIDIA H100 SXM5 80GB")
  std::string vendor; ///< "nvidia", "amd", "intel", "arm"
  std::string kind;   ///< "gpu" or "cpu"
  int warp_size = 32; ///< 32 on NVIDIA, 64 for an AMD wavefront, 1 for a CPU
  std::string source; ///< "measured" or "datasheet"
  device_peaks peaks;
  /// CPU only: the peaks of one core, for single-threaded code (a one-thread benchmark must be
  /// held to one core's roof, not the socket's). Empty for GPUs.
  std::optional<device_peaks> one_core_peaks;
  std::uint64_t compute_units = 0; ///< SMs, CUs or CPU cores; 0 when unknown
  /// The SM clock the compute peaks hold at (MHz): measured while `perfgate calibrate` ran
  /// (`clocks.mhz_after`, else `mhz_before`), or the datasheet clock the peaks were computed at
  /// (`boost_clock_mhz`). A kernel measured at another clock has its compute roof scaled.
  std::optional<double> sm_clock_mhz;
  /// GPU: the SM clock the part holds under sustained load where its power limit keeps it
  /// below the clock its peaks hold at (an L4 at 72 W), with its source in the citations
  /// (`sustained_clock_mhz`). Predicted times use it; the roof keeps sm_clock_mhz, a bound.
  /// Empty: the part sustains sm_clock_mhz.
  std::optional<double> sustained_clock_mhz;
  /// GPU datasheet entry: the highest SM clock the card runs (NVML's maximum clock, above the
  /// advertised boost on GeForce and workstation parts), the clock its peaks are multiplied out
  /// at (`max_clock_mhz`); empty where the file gives only the boost clock.
  std::optional<double> max_clock_mhz;
  /// The advertised boost clock (`boost_clock_mhz`), kept beside a higher max_clock_mhz.
  std::optional<double> boost_clock_mhz;
  /// GPU: the SM clock individual compute peaks were measured at (MHz), from the clock each
  /// micro-benchmark measured while it ran (`peak_clocks_mhz`): under a power cap tensor work
  /// runs below the clock read before and after the run, so its rate belongs to its own clock.
  /// A peak without an entry holds at sm_clock_mhz.
  std::map<std::string, double, std::less<>> peak_clocks_mhz;
  /// The architecture: compute capability ("9.0", from `compute_capability` or a calibration's
  /// `provenance.arch` "sm_90") or gfx target ("gfx942"); empty when the file does not say.
  std::string arch;
  /// Optional peaks (fp16_gflops, ...); tensor paths as `tensor_<precision>_gflops` (int8:
  /// `tensor_int8_gops`), dense.
  std::map<std::string, double, std::less<>> extra_peaks;
  /// CPU only: optional peaks of one core (its cache bandwidths `l2_gbs`, `llc_gbs`, ...).
  std::map<std::string, double, std::less<>> one_core_extra_peaks;
  /// Cache capacities (bytes). CPU: one core's "l1", "l2" (private to a core) and "llc"
  /// (shared by all); GPU: the chip's "l2" (and "llc", AMD's Infinity Cache). Empty when
  /// unknown.
  std::map<std::string, double, std::less<>> cache_bytes;
  /// CPU only: the SIMD register width one instruction works on (bits: 128 SSE/NEON, 256 AVX2,
  /// 512 AVX-512): the boat hull's W_vector. Empty when unknown.
  std::optional<int> vector_bits;
  /// CPU only: the hardware threads the all-core peaks use (the boat hull's N_threads). Empty
  /// when unknown: then the ratio of the all-core to the one-core fp32 peak, when both exist.
  std::optional<int> hardware_threads;
  /// Whether the device issues load/store, integer and floating-point instructions to separate
  /// pipes that overlap (then the roof's compute terms overlap instead of adding up). From the
  /// file's `co_issue`, else by architecture: CPUs, AMD GPUs and NVIDIA compute capability 7.0
  /// and later do; older NVIDIA GPUs are held to the thesis's single pipeline.
  bool co_issue = false;
  /// GPU: the memory the product has, as its datasheet states it (GB; `memory_gb`), which
  /// tells apart parts of one chip and SM count (an H200 141 GB from an H100 80 GB).
  std::optional<double> memory_gb;
  /// A measured device: the built-in datasheet device it is (`datasheet`, by
  /// datasheet_device_for), what its measured peaks are checked against; empty when none fits.
  std::string datasheet_id;
  /// A calibrated GPU: the card the calibration measured, its UUID ("GPU-8f3a9c1e-52b4-...")
  /// and its driver's version, where the micro-benchmarks said (a run's device identity);
  /// empty otherwise.
  std::string uuid;
  std::string driver;
  /// Built-in entries: the datasheet, the clock's source and the public measurements of every
  /// rate the roofs use (`sources`); empty for a calibrated file.
  std::optional<device_sources> sources;
  std::string provenance_how; ///< how the numbers were obtained, with a citation
  std::string provenance_date;
  std::map<std::string, std::string, std::less<>> citations; ///< peak key -> where it comes from
  std::string origin; ///< "built-in" or the file it was read from
};

/// The peak `key` of the whole device (a required peak or an optional one); empty when absent.
[[nodiscard]] std::optional<double> peak_value(const device& d, std::string_view key);

/// The SM clock (MHz) the peak `key` holds at: its own measured clock, else the device's
/// sm_clock_mhz; empty when neither is known.
[[nodiscard]] std::optional<double> peak_clock_mhz(const device& d, std::string_view key);

/// Parse and validate `perfgate-device/1` JSON text: the schema tag, id, name, a known vendor
/// and kind, a positive warp size, and every required peak present, numeric and positive.
/// Throws input_error naming `file` and the offending key.
[[nodiscard]] device device_from_json(std::string_view text, const std::string& file);

/// Whether an architecture co-issues (device::co_issue when a file does not say): CPUs, AMD GPUs
/// and NVIDIA GPUs of compute capability 7.0 and later (`arch` "7.0" or "sm_70"); not older
/// NVIDIA GPUs nor unknown architectures. Throws usage_error for an unreadable `arch`.
[[nodiscard]] bool architecture_co_issues(std::string_view kind, std::string_view vendor,
                                          std::string_view arch);

/// The peaks of one scope: one core's (a one-thread CPU kernel, when the device has them) or
/// the whole device's, with the optional peaks of the same scope.
struct scope_peaks {
  const device_peaks& peaks;
  const std::map<std::string, double, std::less<>>& extra;
  bool one_core = false; ///< true when these are one core's peaks
};
[[nodiscard]] scope_peaks peaks_of_scope(const device& d, bool one_core);

/// The DRAM roof of a device (all cores, or one core's peaks), 1e9 B/s: `dram_roof_gbs` when
/// stated, else the largest of dram_gbs and every `dram_*_gbs` pattern peak of the scope.
[[nodiscard]] double memory_roof_gbs(const device& d, bool one_core = false);

/// One DRAM access pattern the calibration measured (`dram_triad_nt_gbs`: a = b + s c with
/// non-temporal stores), as the read and write rates it sustained (1e9 B/s).
struct dram_pattern {
  std::string name; ///< the peak key without `_gbs` ("dram_triad_nt")
  double read_gbs = 0;
  double write_gbs = 0;
};

/// The measured DRAM patterns of a scope, from its pattern peaks: read, write, copy and triad,
/// with (`_nt`) and without non-temporal stores. Bytes are counted as STREAM does (a store is
/// one write, whatever the cache does to it). Empty for a datasheet device.
[[nodiscard]] std::vector<dram_pattern> dram_patterns(const device& d, bool one_core);

/// The DRAM roof for traffic that reads `read_bytes` and writes `write_bytes`: the fastest
/// measured pattern with the same read share (a triad's 2/3 reads: the better of the plain and
/// the non-temporal triad), or between two measured shares the fastest pattern of each, time-
/// shared so that together they move exactly that traffic. The roof of the kernel's kind of
/// traffic, not of the best pattern of all: one core that reads at 20 GB/s may stream a triad
/// at 15.
struct dram_mix_roof {
  double gbs = 0;  ///< (read + write bytes) / least time, 1e9 B/s
  std::string via; ///< the pattern or two patterns that schedule uses ("dram_triad_nt")
};
/// Empty when the scope has no patterns on both sides of the traffic's read share.
/// `ordinary_stores`: only the patterns without non-temporal stores (a kernel that writes
/// through the caches cannot use them); `via` then names a plain pattern ("dram_triad").
[[nodiscard]] std::optional<dram_mix_roof> dram_roof_for_mix(const device& d, bool one_core,
                                                             double read_bytes, double write_bytes,
                                                             bool ordinary_stores = false);

/// A cache level a working set can stream from, and its read bandwidth (1e9 B/s).
struct cache_level {
  std::string name; ///< "l1", "l2", "llc"
  double capacity_bytes = 0;
  double gbs = 0;
};

/// The fastest cache level that can hold `working_set_bytes` (up to twice its capacity:
/// a working set a little larger than a cache still hits it partly, and a roof must not be
/// beaten), with its bandwidth for one core or all (`l1`: ldst_ginst x 4 B; `l2`, `llc`: the
/// `l2_gbs`, `llc_gbs` peaks, else the next faster level's rate). All cores of a CPU see the
/// private levels once per core. A GPU's `l2` (or AMD's Infinity Cache as `llc`) is one cache
/// the whole chip shares; without an `l2_gbs` peak its rate is the SMs' load path, ldst_ginst x
/// 4 B (every byte from L2 enters an SM through it: a bound, not what L2 sustains). Empty for a
/// device without cache data, or a working set beyond the last level.
[[nodiscard]] std::optional<cache_level> cache_holding(const device& d, double working_set_bytes,
                                                       bool one_core);

/// The last (largest) cache level of a scope with its bandwidth, as cache_holding rates it; empty
/// for a device without cache data. A working set beyond every cache that is read more than once
/// still streams its re-reads through it.
[[nodiscard]] std::optional<cache_level> last_cache_level(const device& d, bool one_core);

/// Serialise to `perfgate-device/1` JSON text.
[[nodiscard]] std::string device_to_json(const device& d);

/// A measured GPU's tensor peaks that the calibration did not measure (a precision its tensor
/// micro-benchmarks lack there, or all of them where warp-level MMA is not the fastest path:
/// Hopper, datacenter Blackwell) completed from the built-in datasheet devices of the same
/// vendor, architecture and SM count, per clock, at the file's own clock, each cited as not
/// measured; a measured peak is kept. Unchanged when it lacks a clock or architecture, or the
/// matching built-ins disagree or are none.
[[nodiscard]] device with_datasheet_tensor_peaks(const device& d);

/// What a GPU says of itself at run time.
struct gpu_identity {
  std::string name;   ///< the runtime's device name ("NVIDIA H100 80GB HBM3")
  std::string vendor; ///< "nvidia", "amd"
  std::string arch;   ///< "sm_90", "9.0" or "gfx942"
  std::uint64_t compute_units = 0;
  double memory_bytes = 0; ///< total device memory the runtime reports; 0 when unknown
};

/// The architecture as the built-in files name it: a compute capability ("9.0"; from "sm_90" or
/// "sm_90a" too) or a gfx target ("gfx942"); empty when `arch` is neither.
[[nodiscard]] std::string architecture_name(std::string_view arch);

/// The built-in datasheet device a GPU is: the same vendor, architecture and SM count, the
/// product's model (the name's first word with a digit, "h200") in the built-in's name, the
/// form factor the name states (PCIe, SXM, NVL) not contradicted, and the memory within 10% of
/// the built-in's memory_gb (GiB as the runtime counts it against the datasheet's GB): an H200
/// is never taken for an H100 of the same chip and SM count. nullptr when none fits, or when
/// several do and memory cannot tell them apart.
[[nodiscard]] const device* datasheet_device_for(const gpu_identity& gpu);

/// Read and validate a device file (with_datasheet_tensor_peaks applied).
[[nodiscard]] device load_device_file(const std::filesystem::path& file);

/// The built-in database, sorted by id. Embedded in the binary at build time.
[[nodiscard]] const std::vector<device>& builtin_devices();

/// A device by built-in id, or by file path when the argument names an existing file or ends in
/// `.json`. Throws usage_error for an unknown id, suggesting the nearest built-in ids.
[[nodiscard]] device resolve_device(std::string_view id_or_file);

/// The built-in ids nearest to a name that is none (nearest first, five at most): those that
/// begin or end with it or begin it, else those within a third of its length in edits.
[[nodiscard]] std::vector<std::string> nearest_builtin_ids(std::string_view name);

} // namespace perfgate
