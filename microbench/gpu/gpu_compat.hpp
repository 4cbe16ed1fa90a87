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
using error = cudaError_t;
using device_prop = cudaDeviceProp;
using event = cudaEvent_t;
inline constexpr error success = cudaSuccess;
inline constexpr const char* backend = "cuda";      // JSON "backend"
inline constexpr const char* runtime_name = "CUDA"; // in messages: "no CUDA device"
inline constexpr const char* vendor = "nvidia";
inline constexpr const char* program = "perfgate-microbench-cuda";

inline const char* error_string(error e) { return cudaGetErrorString(e); }
inline const char* error_name(error e) { return cudaGetErrorName(e); }
inline error get_last_error() { return cudaGetLastError(); }
inline error get_device_count(int* n) { return cudaGetDeviceCount(n); }
inline error set_device(int d) { return cudaSetDevice(d); }
inline error get_device_properties(device_prop* p, int d) { return cudaGetDeviceProperties(p, d); }
inline error device_synchronize() { return cudaDeviceSynchronize(); }
inline error init_context() { return cudaFree(nullptr); }
inline error device_malloc(void** p, std::size_t n) { return cudaMalloc(p, n); }
inline error device_free(void* p) { return cudaFree(p); }
inline error device_memset(void* p, int v, std::size_t n) { return cudaMemset(p, v, n); }
inline error memcpy_to_host(void* dst, const void* src, std::size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
}
// Page-locked (pinned) host memory and asynchronous copies on the default stream, which the
// event timer's events are recorded on.
inline error host_malloc(void** p, std::size_t n) { return cudaMallocHost(p, n); }
inline error host_free(void* p) { return cudaFreeHost(p); }
inline error memcpy_h2d_async(void* dst, const void* src, std::size_t n) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, nullptr);
}
inline error memcpy_d2h_async(void* dst, const void* src, std::size_t n) {
  return cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, nullptr);
}
inline error mem_get_info(std::size_t* free_bytes, std::size_t* total_bytes) {
  return cudaMemGetInfo(free_bytes, total_bytes);
}
inline error event_create(event* e) { return cudaEventCreate(e); }
inline error event_destroy(event e) { return cudaEventDestroy(e); }
inline error event_record(event e) { return cudaEventRecord(e, nullptr); }
inline error event_synchronize(event e) { return cudaEventSynchronize(e); }
inline error event_elapsed_ms(float* ms, event start, event stop) {
  return cudaEventElapsedTime(ms, start, stop);
}
inline error pci_bus_id(char* buf, int len, int d) { return cudaDeviceGetPCIBusId(buf, len, d); }
// The SM clock attribute (kHz): cudaDeviceProp.clockRate is gone from CUDA 13.
inline error clock_rate_khz(int* khz, int d) {
  return cudaDeviceGetAttribute(khz, cudaDevAttrClockRate, d);
}
template <class Kernel>
inline error occupancy_blocks_per_cu(int* n, Kernel k, int block, std::size_t dyn_smem) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, k, block, dyn_smem);
}
// "sm_90", "sm_100", "sm_120"
inline std::string arch_name(const device_prop& p) {
  return "sm_" + std::to_string(p.major * 10 + p.minor);
}
inline bool has_fp16_arith(const device_prop& p) { return p.major * 10 + p.minor >= 53; }
#else
using error = hipError_t;
using device_prop = hipDeviceProp_t;
using event = hipEvent_t;
inline constexpr error success = hipSuccess;
inline constexpr const char* backend = "hip";
inline constexpr const char* runtime_name = "HIP";
inline constexpr const char* vendor = "amd";
inline constexpr const char* program = "perfgate-microbench-hip";

inline const char* error_string(error e) { return hipGetErrorString(e); }
inline const char* error_name(error e) { return hipGetErrorName(e); }
inline error get_last_error() { return hipGetLastError(); }
inline error get_device_count(int* n) { return hipGetDeviceCount(n); }
inline error set_device(int d) { return hipSetDevice(d); }
inline error get_device_properties(device_prop* p, int d) { return hipGetDeviceProperties(p, d); }
inline error device_synchronize() { return hipDeviceSynchronize(); }
inline error init_context() { return hipFree(nullptr); }
inline error device_malloc(void** p, std::size_t n) { return hipMalloc(p, n); }
inline error device_free(void* p) { return hipFree(p); }
inline error device_memset(void* p, int v, std::size_t n) { return hipMemset(p, v, n); }
inline error memcpy_to_host(void* dst, const void* src, std::size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToHost);
}
inline error host_malloc(void** p, std::size_t n) {
  return hipHostMalloc(p, n, hipHostMallocDefault);
}
inline error host_free(void* p) { return hipHostFree(p); }
inline error memcpy_h2d_async(void* dst, const void* src, std::size_t n) {
  return hipMemcpyAsync(dst, src, n, hipMemcpyHostToDevice, nullptr);
}
inline error memcpy_d2h_async(void* dst, const void* src, std::size_t n) {
  return hipMemcpyAsync(dst, src, n, hipMemcpyDeviceToHost, nullptr);
}
inline error mem_get_info(std::size_t* free_bytes, std::size_t* total_bytes) {
  return hipMemGetInfo(free_bytes, total_bytes);
}
inline error event_create(event* e) { return hipEventCreate(e); }
inline error event_destroy(event e) { return hipEventDestroy(e); }
inline error event_record(event e) { return hipEventRecord(e, nullptr); }
inline error event_synchronize(event e) { return hipEventSynchronize(e); }
inline error event_elapsed_ms(float* ms, event start, event stop) {
  return hipEventElapsedTime(ms, start, stop);
}
inline error pci_bus_id(char* buf, int len, int d) { return hipDeviceGetPCIBusId(buf, len, d); }
inline error clock_rate_khz(int* khz, int d) {
  return hipDeviceGetAttribute(khz, hipDeviceAttributeClockRate, d);
}
template <class Kernel>
inline error occupancy_blocks_per_cu(int* n, Kernel k, int block, std::size_t dyn_smem) {
  return hipOccupancyMaxActiveBlocksPerMultiprocessor(n, reinterpret_cast<const void*>(k), block,
                                                      dyn_smem);
}
// "gfx90a:sramecc+:xnack-" -> "gfx90a"
inline std::string arch_name(const device_prop& p) {
  std::string s = p.gcnArchName;
  const auto colon = s.find(':');
  if (colon != std::string::npos)
    s.resize(colon);
  if (s.empty())
    s = "gfx" + std::to_string(p.gcnArch);
  return s;
}
inline bool has_fp16_arith(const device_prop&) { return true; } // packed fp16 on all gfx9+
#endif

// ---- device side -------------------------------------------------------------------------

// Butterfly exchange within a warp / wavefront (all lanes participate).
__device__ inline unsigned shfl_xor(unsigned v, int lane_mask) {
#if PGPU_CUDA
  return __shfl_xor_sync(0xffffffffu, v, lane_mask);
#else
  return __shfl_xor(v, lane_mask);
#endif
}

// A 16-byte global load that is cached in L2 but not in L1 where the ISA lets us say so
// (CUDA: ld.global.cg). AMD's vector L1 is 16 KiB per CU, far below the per-CU share of any
// L2-sized working set, so a plain load is used there.
__device__ inline uint4 load_l2_only(const uint4* p) {
#if PGPU_CUDA
  return __ldcg(p);
#else
  return *p;
#endif
}
__device__ inline unsigned load_l2_only(const unsigned* p) {
#if PGPU_CUDA
  return __ldcg(p);
#else
  return *p;
#endif
}

} // namespace pgpu
