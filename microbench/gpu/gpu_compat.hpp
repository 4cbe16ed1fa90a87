// SPDX-License-Identifier: Apache-2.0
// gpu_compat.hpp: the few runtime calls, types and device intrinsics the perfgate GPU
// micro-benchmarks need, under one spelling (namespace pgpu) for CUDA and for HIP on AMD.
//
// Selection is by compiler, never by user macro:
//   - clang/hipcc compiling HIP (`__HIP__`, or HIP's AMD platform macro) -> HIP runtime;
//   - nvcc (or clang -x cuda) (`__CUDACC__`)                             -> CUDA runtime.
// HIP's own NVIDIA platform layer is deliberately not used (it does not build with nvcc 13).
#pragma once

#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#if defined(__NVCC__)
#error "gpu_compat.hpp: HIP on the NVIDIA platform is not supported; compile with nvcc as CUDA"
#endif
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#define PGPU_HIP 1
#define PGPU_CUDA 0
#elif defined(__CUDACC__)
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#define PGPU_HIP 0
#define PGPU_CUDA 1
#else
#error "gpu_compat.hpp: compile with nvcc (CUDA) or with hipcc / clang -x hip (HIP for AMD)"
#endif

#include <cstddef>
#include <string>

namespace pgpu {

#if PGPU_CUDA
using Error = cudaError_t;
using DeviceProp = cudaDeviceProp;
using Event = cudaEvent_t;
inline constexpr Error kSuccess = cudaSuccess;
inline constexpr const char* kBackend = "cuda";     // JSON "backend"
inline constexpr const char* kRuntimeName = "CUDA"; // in messages: "no CUDA device"
inline constexpr const char* kVendor = "nvidia";
inline constexpr const char* kProgram = "perfgate-microbench-cuda";

inline const char* errorString(Error e) { return cudaGetErrorString(e); }
inline const char* errorName(Error e) { return cudaGetErrorName(e); }
inline Error getLastError() { return cudaGetLastError(); }
inline Error getDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline Error setDevice(int d) { return cudaSetDevice(d); }
inline Error getDeviceProperties(DeviceProp* p, int d) { return cudaGetDeviceProperties(p, d); }
inline Error deviceSynchronize() { return cudaDeviceSynchronize(); }
inline Error initContext() { return cudaFree(nullptr); }
inline Error deviceMalloc(void** p, std::size_t n) { return cudaMalloc(p, n); }
inline Error deviceFree(void* p) { return cudaFree(p); }
inline Error deviceMemset(void* p, int v, std::size_t n) { return cudaMemset(p, v, n); }
inline Error memcpyToHost(void* dst, const void* src, std::size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
}
inline Error memGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  return cudaMemGetInfo(free_bytes, total_bytes);
}
inline Error eventCreate(Event* e) { return cudaEventCreate(e); }
inline Error eventDestroy(Event e) { return cudaEventDestroy(e); }
inline Error eventRecord(Event e) { return cudaEventRecord(e, nullptr); }
inline Error eventSynchronize(Event e) { return cudaEventSynchronize(e); }
inline Error eventElapsedMs(float* ms, Event start, Event stop) {
  return cudaEventElapsedTime(ms, start, stop);
}
inline Error pciBusId(char* buf, int len, int d) { return cudaDeviceGetPCIBusId(buf, len, d); }
template <class Kernel>
inline Error occupancyBlocksPerCu(int* n, Kernel k, int block, std::size_t dyn_smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, k, block, dyn_smem);
}
// "sm_90", "sm_100", "sm_120"
inline std::string archName(const DeviceProp& p) {
  return "sm_" + std::to_string(p.major * 10 + p.minor);
}
inline bool hasFp16Arith(const DeviceProp& p) { return p.major * 10 + p.minor >= 53; }
#else
using Error = hipError_t;
using DeviceProp = hipDeviceProp_t;
using Event = hipEvent_t;
inline constexpr Error kSuccess = hipSuccess;
inline constexpr const char* kBackend = "hip";
inline constexpr const char* kRuntimeName = "HIP";
inline constexpr const char* kVendor = "amd";
inline constexpr const char* kProgram = "perfgate-microbench-hip";

inline const char* errorString(Error e) { return hipGetErrorString(e); }
inline const char* errorName(Error e) { return hipGetErrorName(e); }
inline Error getLastError() { return hipGetLastError(); }
inline Error getDeviceCount(int* n) { return hipGetDeviceCount(n); }
inline Error setDevice(int d) { return hipSetDevice(d); }
inline Error getDeviceProperties(DeviceProp* p, int d) { return hipGetDeviceProperties(p, d); }
inline Error deviceSynchronize() { return hipDeviceSynchronize(); }
inline Error initContext() { return hipFree(nullptr); }
inline Error deviceMalloc(void** p, std::size_t n) { return hipMalloc(p, n); }
inline Error deviceFree(void* p) { return hipFree(p); }
inline Error deviceMemset(void* p, int v, std::size_t n) { return hipMemset(p, v, n); }
inline Error memcpyToHost(void* dst, const void* src, std::size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToHost);
}
inline Error memGetInfo(std::size_t* free_bytes, std::size_t* total_bytes) {
  return hipMemGetInfo(free_bytes, total_bytes);
}
inline Error eventCreate(Event* e) { return hipEventCreate(e); }
inline Error eventDestroy(Event e) { return hipEventDestroy(e); }
inline Error eventRecord(Event e) { return hipEventRecord(e, nullptr); }
inline Error eventSynchronize(Event e) { return hipEventSynchronize(e); }
inline Error eventElapsedMs(float* ms, Event start, Event stop) {
  return hipEventElapsedTime(ms, start, stop);
}
inline Error pciBusId(char* buf, int len, int d) { return hipDeviceGetPCIBusId(buf, len, d); }
template <class Kernel>
inline Error occupancyBlocksPerCu(int* n, Kernel k, int block, std::size_t dyn_smem) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(n, reinterpret_cast<const void*>(k), block,
                                                      dyn_smem);
}
// "gfx90a:sramecc+:xnack-" -> "gfx90a"
inline std::string archName(const DeviceProp& p) {
  std::string s = p.gcnArchName;
  const auto colon = s.find(':');
  if (colon != std::string::npos)
    s.resize(colon);
  if (s.empty())
    s = "gfx" + std::to_string(p.gcnArch);
  return s;
}
inline bool hasFp16Arith(const DeviceProp&) { return true; } // packed fp16 on all gfx9+
#endif

// ---- device side -------------------------------------------------------------------------

// Butterfly exchange within a warp / wavefront (all lanes participate).
__device__ inline unsigned shflXor(unsigned v, int lane_mask) {
#if PGPU_CUDA
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
#else
  return __shfl_xor(v, lane_mask);
#endif
}

// A 16-byte global load that is cached in L2 but not in L1 where the ISA lets us say so
// (CUDA: ld.global.cg). AMD's vector L1 is 16 KiB per CU, far below the per-CU share of any
// L2-sized working set, so a plain load is used there.
__device__ inline uint4 loadL2Only(const uint4* p) {
#if PGPU_CUDA
  return __ldcg(p);
#else
  return *p;
#endif
}

} // namespace pgpu
