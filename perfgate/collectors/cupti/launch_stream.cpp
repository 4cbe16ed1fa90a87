// SPDX-License-Identifier: Apache-2.0
#include "collectors/cupti/launch_stream.hpp"

#include <cuda_runtime_api.h> // the runtime launches' parameter blocks come with cupti.h

namespace perfgate::cupti {

namespace {
// A _ptsz launch's null stream is the calling thread's default stream, not the legacy one
// (cudaStream_t is CUstream: one overload serves both APIs).
CUstream per_thread(CUstream s) { return s != nullptr ? s : CU_STREAM_PER_THREAD; }
} // namespace

CUstream launch_stream(CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* params) {
  if (params == nullptr) {
    return nullptr;
  }
  if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
      return static_cast<const cudaLaunchKernel_v7000_params*>(params)->stream;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
      return per_thread(static_cast<const cudaLaunchKernel_ptsz_v7000_params*>(params)->stream);
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
      return static_cast<const cudaLaunchCooperativeKernel_v9000_params*>(params)->stream;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
      return per_thread(
          static_cast<const cudaLaunchCooperativeKernel_ptsz_v9000_params*>(params)->stream);
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060: {
      const auto* config = static_cast<const cudaLaunchKernelExC_v11060_params*>(params)->config;
      return config != nullptr ? config->stream : nullptr;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto* config =
          static_cast<const cudaLaunchKernelExC_ptsz_v11060_params*>(params)->config;
      return per_thread(config != nullptr ? config->stream : nullptr);
    }
    default: return nullptr;
    }
  }
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
      return static_cast<const cuLaunchKernel_params*>(params)->hStream;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
      return per_thread(static_cast<const cuLaunchKernel_ptsz_params*>(params)->hStream);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
      return static_cast<const cuLaunchCooperativeKernel_params*>(params)->hStream;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
      return per_thread(static_cast<const cuLaunchCooperativeKernel_ptsz_params*>(params)->hStream);
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto* config = static_cast<const cuLaunchKernelEx_params*>(params)->config;
      return config != nullptr ? config->hStream : nullptr;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
      const auto* config = static_cast<const cuLaunchKernelEx_ptsz_params*>(params)->config;
      return per_thread(config != nullptr ? config->hStream : nullptr);
    }
    default: return nullptr;
    }
  }
  return nullptr;
}

} // namespace perfgate::cupti
