// SPDX-License-Identifier: Apache-2.0
// CUPTI's Profiler Host API (cupti_profiler_host.h) behind a small RAII type. The host side
// needs no GPU and no driver (libcupti loads libnvperf_host itself), so everything here also
// runs offline: chip list, metric validation, config images, pass counts, and evaluating a
// counter-data image a target run decoded. Shared by the `perfgate` command and the injection
// library, so it depends on nothing of perfgate's but header-only util/. The injection library
// links libcupti (compiled with PERFGATE_CUPTI_LINKED); the command loads it at the first call
// (util/cupti_library.hpp), so that it starts where no CUDA toolkit is installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

struct CUpti_Profiler_Host_Object;

namespace perfgate::cupti {

/// A CUPTI call that failed: which call, and CUPTI's result code and text.
class cupti_failure : public std::runtime_error {
public:
  cupti_failure(std::string call, int code);
  [[nodiscard]] int code() const noexcept { return m_code; }
  [[nodiscard]] const std::string& call() const noexcept { return m_call; }

private:
  std::string m_call;
  int m_code;
};

/// libcupti could not be loaded (the command only): what was tried and how to get it.
class cupti_unavailable : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Loads libcupti now if it is not yet; throws cupti_unavailable where it cannot be.
void require_library();

/// The libcupti file in use (absolute); empty in the injection library, which links it.
[[nodiscard]] std::string library_path();

/// Pointers to the names, for CUPTI's `const char**` parameters; valid while `names` lives.
[[nodiscard]] std::vector<const char*> c_strings(const std::vector<std::string>& names);

/// Throws cupti_failure unless `result` (a CUptiResult) is CUPTI_SUCCESS.
inline void check(int result, const char* call) {
  if (result != 0) {
    throw cupti_failure(call, result);
  }
}

/// "CUPTI_ERROR_INVALID_METRIC_NAME (17)": CUPTI's own name for a result code.
[[nodiscard]] std::string result_text(int code);

/// Result codes the callers tell apart (values from cupti_result.h, kept here so that callers
/// need not include CUPTI's headers).
inline constexpr int result_not_supported = 27;
inline constexpr int result_insufficient_privileges = 35;
inline constexpr int result_virtualized_insufficient_privileges = 40;
inline constexpr int result_invalid_chip_name = 46;

/// A CUPTI parameter struct, zeroed, with its structSize set (CUPTI's `{X_STRUCT_SIZE}` idiom
/// leaves the other members to aggregate rules and trips -Wmissing-field-initializers).
template <class Params> [[nodiscard]] Params make_params(std::size_t struct_size) {
  Params p{};
  p.structSize = struct_size;
  return p;
}

/// make_params for CUPTI's struct `T` with its own `T_STRUCT_SIZE`, so that the two cannot be
/// mismatched.
#define PERFGATE_CUPTI_PARAMS(T) ::perfgate::cupti::make_params<T>(T##_STRUCT_SIZE)

/// Calls CUPTI's `fn` on `params`; throws cupti_failure naming `fn` unless it succeeds.
#define PERFGATE_CUPTI_CALL(fn, params) ::perfgate::cupti::check(fn(&(params)), #fn)

// Every function below throws cupti_unavailable (the command only) where libcupti cannot be
// loaded.

/// The chips this CUPTI's Range Profiler host side knows, in CUPTI's order ("GH100", ...).
[[nodiscard]] std::vector<std::string> supported_chips();

/// A host object for one chip. Any failed configuration call leaves CUPTI's object unusable
/// (every later call fails), so the object is single-shot: validate names first
/// (`metric_valid`), configure once, and make a new one after a failure.
class host_object {
public:
  /// `counter_availability` is the image the target side reports for a live device (empty
  /// offline). Throws cupti_failure (e.g. CUPTI_ERROR_INVALID_CHIP_NAME for a misspelled chip,
  /// CUPTI_ERROR_NOT_SUPPORTED for a chip listed but not profilable by the Range Profiler).
  explicit host_object(const std::string& chip,
                       const std::vector<std::uint8_t>& counter_availability = {});
  ~host_object();
  host_object(const host_object&) = delete;
  host_object& operator=(const host_object&) = delete;

  [[nodiscard]] const std::string& chip() const noexcept { return m_chip; }

  /// True when CUPTI knows the metric on this chip and it carries a roll-up (".sum", ".avg",
  /// ...): ConfigAddMetrics rejects a bare base name that GetMetricProperties accepts.
  [[nodiscard]] bool metric_valid(const std::string& metric);

  /// The config image scheduling all `metrics` (one ConfigAddMetrics call: each call would
  /// start its own pass group). Call once per object.
  [[nodiscard]] std::vector<std::uint8_t> config_image(const std::vector<std::string>& metrics);

  /// Metric values of one range of a decoded counter-data image, in the order of `metrics`.
  [[nodiscard]] std::vector<double> evaluate(const std::vector<std::uint8_t>& counter_data,
                                             std::size_t range_index,
                                             const std::vector<std::string>& metrics);

private:
  /// `params` of a call on this host object.
  template <class Params> [[nodiscard]] Params on_object(Params params) const {
    params.pHostObject = m_object;
    return params;
  }

  std::string m_chip;
  CUpti_Profiler_Host_Object* m_object = nullptr;
};

/// Replay passes a config image costs (the Range Profiler replays each kernel this often).
[[nodiscard]] std::size_t passes(const std::vector<std::uint8_t>& config_image);

/// CUPTI's chip name of a CUDA device by ordinal ("GH100"). TARGET SIDE: initialises CUPTI's
/// profiler and segfaults without a driver, so call it only after a device check succeeded.
[[nodiscard]] std::string chip_of_device(std::uint32_t device_index);

} // namespace perfgate::cupti
