// SPDX-License-Identifier: Apache-2.0
#include "collectors/cupti/range_session.hpp"

#include "collectors/cupti/chip_metrics.hpp"

#include <algorithm>

#include <cupti.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

namespace perfgate::cupti {

std::vector<std::uint8_t> counter_availability(CUcontext ctx) {
  auto p = PERFGATE_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
  p.ctx = ctx;
  PERFGATE_CUPTI_CALL(cuptiProfilerGetCounterAvailability, p);
  std::vector<std::uint8_t> image(p.counterAvailabilityImageSize);
  p.pCounterAvailabilityImage = image.data();
  PERFGATE_CUPTI_CALL(cuptiProfilerGetCounterAvailability, p);
  return image;
}

range_session::range_session(CUcontext ctx, const std::string& chip,
                             const std::vector<std::string>& metrics, std::size_t ranges_per_batch,
                             kernel_book& book)
    : m_ctx(ctx), m_metrics(metrics), m_batch(std::max<std::size_t>(ranges_per_batch, 1)),
      m_book(book) {
  m_host = std::make_unique<host_object>(chip, counter_availability(ctx));
  for (const auto& m : m_metrics) {
    if (!m_host->metric_valid(m)) {
      throw std::runtime_error("metric " + m + " is not valid on chip " + chip);
    }
  }
  m_config = m_host->config_image(m_metrics);

  auto enable = PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
  enable.ctx = ctx;
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerEnable, enable);
  m_object = enable.pRangeProfilerObject;

  auto names = c_strings(m_metrics);
  auto size = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params));
  size.pMetricNames = names.data();
  size.numMetrics = names.size();
  size.maxNumOfRanges = m_batch;
  size.maxNumRangeTreeNodes = static_cast<std::uint32_t>(m_batch);
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataSize, size);
  m_counter_data.resize(size.counterDataSize);

  initialize_counter_data();

  auto config = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params));
  config.configSize = m_config.size();
  config.pConfig = m_config.data();
  config.counterDataImageSize = m_counter_data.size();
  config.pCounterDataImage = m_counter_data.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = m_batch;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 1;
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerSetConfig, config);
  start();
}

range_session::~range_session() {
  try {
    finish();
  } catch (...) { // NOLINT(bugprone-empty-catch): nothing can be reported from a destructor
  }
}

void range_session::initialize_counter_data() {
  auto image =
      on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params));
  image.counterDataSize = m_counter_data.size();
  image.pCounterData = m_counter_data.data();
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerCounterDataImageInitialize, image);
}

void range_session::start() {
  auto p = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params));
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerStart, p);
  m_running = true;
}

void range_session::before_launch(const char* symbol) {
  if (!m_running) {
    return;
  }
  if (m_pending.size() >= m_batch) {
    decode_and_attribute();
    initialize_counter_data();
    start();
  }
  m_pending.emplace_back(symbol != nullptr ? symbol : "");
}

void range_session::decode_and_attribute() {
  auto stop = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params));
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerStop, stop);
  m_running = false;
  if (stop.isAllPassSubmitted == 0) {
    m_book.warn("the Range Profiler reported passes left unsubmitted after a batch of " +
                std::to_string(m_pending.size()) + " launches");
  }
  auto decode = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params));
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerDecodeData, decode);
  m_dropped += decode.numOfRangeDropped;

  auto info = PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
  info.pCounterDataImage = m_counter_data.data();
  info.counterDataImageSize = m_counter_data.size();
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerGetCounterDataInfo, info);
  if (info.numTotalRanges != m_pending.size()) {
    // Launches the callbacks did not see (graphs, device-side launches) shift the numbering:
    // attributing by position would give kernels each other's counters.
    m_book.warn(std::to_string(info.numTotalRanges) + " ranges decoded for " +
                std::to_string(m_pending.size()) +
                " launches seen: this batch's counters are left out (graph or device-side "
                "launches are not attributed)");
    m_pending.clear();
    return;
  }
  const auto time_index =
      std::find(m_metrics.begin(), m_metrics.end(), std::string(perfgate::detail::gpu_time_metric));
  for (std::size_t i = 0; i < m_pending.size(); ++i) {
    const auto values = m_host->evaluate(m_counter_data, i, m_metrics);
    const double weight = time_index != m_metrics.end()
                              ? values[static_cast<std::size_t>(time_index - m_metrics.begin())]
                              : 1.0;
    m_book.add_range(m_book.kernel(m_pending[i].c_str()), m_metrics, values,
                     weight > 0 ? weight : 1.0);
  }
  m_pending.clear();
}

void range_session::finish() {
  if (m_object == nullptr) {
    return;
  }
  if (m_running) {
    decode_and_attribute();
  }
  auto p = on_object(PERFGATE_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params));
  m_object = nullptr;
  PERFGATE_CUPTI_CALL(cuptiRangeProfilerDisable, p);
}

} // namespace perfgate::cupti
