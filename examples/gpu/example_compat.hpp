// SPDX-License-Identifier: Apache-2.0
// example_compat.hpp: the handful of GPU runtime calls the perfgate example kernels use, under
// one spelling (namespace ex) for CUDA (nvcc) and for HIP on AMD (clang / hipcc). A minimal
// cousin of microbench/gpu/gpu_compat.hpp; kernels, __shared__, __syncthreads(), atomicAdd and
// the <<<grid, block>>> launch are spelled the same by both and need nothing here.
//
// The back end is chosen by the compiler, never by a user macro:
//   clang/hipcc compiling HIP (__HIP__, or HIP's AMD platform macro) -> HIP runtime;
//   nvcc (__CUDACC__)                                                -> CUDA runtime.
#pragma once

#if defined(__HIP__) || defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__)
#if defined(__NVCC__)
#error "example_compat.hpp: HIP on the NVIDIA platform is not supported; build the .cu with nvcc"
#endif
#include <hip/hip_runtime.h>
#define EX_HIP 1
#elif defined(__CUDACC__)
#include <cuda_runtime.h>
#define EX_HIP 0
#else
#error "example_compat.hpp: compile with nvcc (CUDA) or with hipcc / clang -x hip (HIP for AMD)"
#endif

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace ex {

#if EX_HIP
using Error = hipError_t;
inline constexpr Error kSuccess = hipSuccess;
inline constexpr const char* kRuntime = "HIP";
inline constexpr const char* kDeviceCountCall = "hipGetDeviceCount";
inline const char* errorString(Error e) { return hipGetErrorString(e); }
inline Error getDeviceCount(int* n) { return hipGetDeviceCount(n); }
inline Error setDevice(int d) { return hipSetDevice(d); }
inline Error initContext() { return hipFree(nullptr); }
inline Error deviceFree(void* p) { return hipFree(p); }
inline Error memset(void* p, int v, std::size_t n) { return hipMemset(p, v, n); }
inline Error copyToHost(void* dst, const void* src, std::size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyDeviceToHost);
}
inline Error copyToDevice(void* dst, const void* src, std::size_t n) {
  return hipMemcpy(dst, src, n, hipMemcpyHostToDevice);
}
inline Error synchronize() { return hipDeviceSynchronize(); }
inline Error lastError() { return hipGetLastError(); }
using Event = hipEvent_t;
inline Error eventCreate(Event* e) { return hipEventCreate(e); }
inline Error eventRecord(Event e) { return hipEventRecord(e, nullptr); }
inline Error eventSynchronize(Event e) { return hipEventSynchronize(e); }
inline Error eventElapsedMs(float* ms, Event a, Event b) { return hipEventElapsedTime(ms, a, b); }
inline Error eventDestroy(Event e) { return hipEventDestroy(e); }
template <class T> Error copyToSymbol(const T& symbol, const T& value) {
  return hipMemcpyToSymbol(HIP_SYMBOL(symbol), &value, sizeof(T));
}
template <class T> Error deviceMalloc(T** p, std::size_t count) {
  return hipMalloc(reinterpret_cast<void**>(p), count * sizeof(T));
}
#else
using Error = cudaError_t;
inline constexpr Error kSuccess = cudaSuccess;
inline constexpr const char* kRuntime = "CUDA";
inline constexpr const char* kDeviceCountCall = "cudaGetDeviceCount";
inline const char* errorString(Error e) { return cudaGetErrorString(e); }
inline Error getDeviceCount(int* n) { return cudaGetDeviceCount(n); }
inline Error setDevice(int d) { return cudaSetDevice(d); }
inline Error initContext() { return cudaFree(nullptr); }
inline Error deviceFree(void* p) { return cudaFree(p); }
inline Error memset(void* p, int v, std::size_t n) { return cudaMemset(p, v, n); }
inline Error copyToHost(void* dst, const void* src, std::size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyDeviceToHost);
}
inline Error copyToDevice(void* dst, const void* src, std::size_t n) {
  return cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);
}
inline Error synchronize() { return cudaDeviceSynchronize(); }
inline Error lastError() { return cudaGetLastError(); }
using Event = cudaEvent_t;
inline Error eventCreate(Event* e) { return cudaEventCreate(e); }
inline Error eventRecord(Event e) { return cudaEventRecord(e, nullptr); }
inline Error eventSynchronize(Event e) { return cudaEventSynchronize(e); }
inline Error eventElapsedMs(float* ms, Event a, Event b) { return cudaEventElapsedTime(ms, a, b); }
inline Error eventDestroy(Event e) { return cudaEventDestroy(e); }
template <class T> Error copyToSymbol(const T& symbol, const T& value) {
  return cudaMemcpyToSymbol(symbol, &value, sizeof(T));
}
template <class T> Error deviceMalloc(T** p, std::size_t count) {
  return cudaMalloc(reinterpret_cast<void**>(p), count * sizeof(T));
}
#endif

// perfgate's skip code: the program cannot run here, which is not a failure.
inline constexpr int kSkip = 77;

// 0 when device 0 is usable (and selected); otherwise prints "no GPU: <reason>" and returns 77.
// Called first, so a machine without a GPU (or without a driver) never reaches a kernel launch.
inline int requireGpu(const char* program) {
  int count = 0;
  const Error e = getDeviceCount(&count);
  if (e != kSuccess) {
    std::fprintf(stderr, "%s: no GPU: %s failed: %s\n", program, kDeviceCountCall, errorString(e));
    return kSkip;
  }
  if (count <= 0) {
    std::fprintf(stderr, "%s: no GPU: the %s runtime reports 0 devices\n", program, kRuntime);
    return kSkip;
  }
  Error s = setDevice(0);
  if (s == kSuccess)
    s = initContext();
  if (s != kSuccess) {
    std::fprintf(stderr, "%s: no GPU: %s device 0 is not usable: %s\n", program, kRuntime,
                 errorString(s));
    return kSkip;
  }
  return 0;
}

[[noreturn]] inline void fail(const char* file, int line, const char* call, Error e) {
  std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, errorString(e));
  std::exit(1);
}

} // namespace ex

// Runtime calls and kernel launches that fail end the program with exit status 1.
#define EX_CHECK(call)                                                                             \
  do {                                                                                             \
    const ::ex::Error ex_check_error_ = (call);                                                    \
    if (ex_check_error_ != ::ex::kSuccess)                                                         \
      ::ex::fail(__FILE__, __LINE__, #call, ex_check_error_);                                      \
  } while (0)
#define EX_CHECK_LAUNCH() EX_CHECK(::ex::lastError())

// The program's name in messages: example_<name> (CUDA) or example_hip_<name> (HIP).
#define EX_PROGRAM(name) (EX_HIP ? "example_hip_" name : "example_" name)
