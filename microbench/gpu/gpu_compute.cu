// SPDX-License-Identifier: Apache-2.0
// Compute kernels keep 8 independent dependency chains per thread at full occupancy; their
// results feed a store that never happens but that the compiler cannot rule out, so no chain
// can be removed.
#include "gpu_compute.hpp"

#include <string>

namespace perfgate::microbench::gpu {

namespace {

constexpr int unroll = 32; // chain steps per loop iteration in the compute kernels

// Arithmetic of one chain element type. init() gives per-thread start values, mad() is the
// measured instruction, sentinel() a condition that is false for every value the chains reach
// (they converge to a / (1 - m) for 0 < m < 1) but that the compiler cannot decide.
template <class T> struct arith;

template <> struct arith<float> {
  __device__ static float init(unsigned i) { return static_cast<float>(i & 1023u) * 1e-3f; }
  __device__ static float mad(float x, float m, float a) { return fmaf(x, m, a); }
  __device__ static float add(float x, float y) { return x + y; }
  __device__ static bool sentinel(float s) { return s == -1.0f; }
};

template <> struct arith<double> {
  __device__ static double init(unsigned i) { return static_cast<double>(i & 1023u) * 1e-3; }
  __device__ static double mad(double x, double m, double a) { return fma(x, m, a); }
  __device__ static double add(double x, double y) { return x + y; }
  __device__ static bool sentinel(double s) { return s == -1.0; }
};

template <> struct arith<__half2> {
  __device__ static __half2 init(unsigned i) {
    return __floats2half2_rn(static_cast<float>(i & 255u) * 1e-3f,
                             static_cast<float>((i + 1u) & 255u) * 1e-3f);
  }
  __device__ static __half2 mad(__half2 x, __half2 m, __half2 a) { return __hfma2(x, m, a); }
  __device__ static __half2 add(__half2 x, __half2 y) { return __hadd2(x, y); }
  __device__ static bool sentinel(__half2 s) { return __low2float(s) + __high2float(s) == -1.0f; }
};

// Integer multiply-add, wrapping; one instruction per step.
// NVIDIA: x*m + a is one IMAD (32 x 32 bits); m and a are unknown, so nothing re-associates.
// AMD: GCN/CDNA/RDNA have no full-rate 32 x 32-bit mad (x*m + a becomes v_mul_lo_u32, quarter
// rate, plus v_add_u32); their integer mad is v_mad_u32_u24. __umul24(x, m) + a does NOT give
// it: only the low 24 bits of each step feed the next, so LLVM drops the masks and emits 32-bit
// multiplies. Using the full x as the addend, x + __umul24(x, m), demands every bit of every
// step and compiles to exactly one v_mad_u32_u24 (checked on gfx908/90a/940/1030).
template <> struct arith<unsigned> {
  __device__ static unsigned init(unsigned i) { return i * 2654435761u + 1u; }
  __device__ static unsigned mad(unsigned x, unsigned m, unsigned a) {
#if PGPU_HIP
    (void)a;
    return __umul24(x, m) + x;
#else
    return x * m + a;
#endif
  }
  __device__ static unsigned add(unsigned x, unsigned y) { return x ^ y; }
  __device__ static bool sentinel(unsigned s) { return s == 0x7badf00du; }
};

// `chains` chains x = mad(x, m, a), UNROLL steps per loop iteration; m and a are kernel
// arguments.
template <class T, int UNROLL>
__global__ __launch_bounds__(block_threads) void mad_kernel(T* sink, int iters, T m, T a) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  T x[chains];
#pragma unroll
  for (int k = 0; k < chains; ++k)
    x[k] = arith<T>::init(tid * chains + k);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < chains; ++k)
        x[k] = arith<T>::mad(x[k], m, a);
    }
  }
  T s = x[0];
#pragma unroll
  for (int k = 1; k < chains; ++k)
    s = arith<T>::add(s, x[k]);
  if (arith<T>::sentinel(s))
    sink[tid] = s;
}

// 32-bit integer adds. A plain x += c chain would be folded into one multiply, so each chain is
// a Fibonacci-like pair (x += y; y += x): every add consumes the previous result and every
// intermediate value has two uses, which leaves nothing to re-associate or merge.
template <int PAIRS>
__global__ __launch_bounds__(block_threads) void add_kernel(unsigned* sink, int iters,
                                                            unsigned seed) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x[chains], y[chains];
#pragma unroll
  for (int k = 0; k < chains; ++k) {
    x[k] = tid + static_cast<unsigned>(k);
    y[k] = seed ^ (static_cast<unsigned>(k) * 0x9e3779b9u);
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < PAIRS; ++u) {
#pragma unroll
      for (int k = 0; k < chains; ++k) {
        x[k] += y[k];
        y[k] += x[k];
      }
    }
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < chains; ++k)
    s ^= x[k] ^ y[k];
  if (s == seed)
    sink[tid] = s;
}

template <class T>
result run_mad(const bench& b, const std::string& key, T m, T a, double ops_per_mad,
               const std::string& note) {
  result r{key, std::nullopt, 0, note};
  auto kernel = mad_kernel<T, unroll>;
  const int blocks = blocks_for(kernel, b.dev.cus);
  r.threads = static_cast<long long>(blocks) * block_threads;
  device_buffer sink(static_cast<std::size_t>(r.threads) * sizeof(T));
  auto launch = [&](long long iters) {
    kernel<<<blocks, block_threads>>>(sink.as<T>(), static_cast<int>(iters), m, a);
    PG_LAUNCH_CHECK();
  };
  const double work = static_cast<double>(r.threads) * chains * unroll * ops_per_mad;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 16, 1LL << 30);
  return r;
}

} // namespace

result run_fp32_fma(const bench& b) {
  return run_mad<float>(b, "fp32_gflops", 0.5f, 0.25f, 2.0,
                        "FMA = 2 flops; 8 independent fmaf chains per thread");
}

result run_fp64_fma(const bench& b) {
  return run_mad<double>(b, "fp64_gflops", 0.5, 0.25, 2.0,
                         "FMA = 2 flops; 8 independent fma chains per thread");
}

result run_fp16_fma(const bench& b) {
  if (!pgpu::has_fp16_arith(b.dev.prop))
    return result{"fp16_gflops", std::nullopt, 0, "no fp16 arithmetic on this device"};
  return run_mad<__half2>(b, "fp16_gflops", __float2half2_rn(0.5f), __float2half2_rn(0.25f), 4.0,
                          "half2 FMA = 2 lanes x 2 flops; 8 chains per thread");
}

result run_int_mad(const bench& b) {
  return run_mad<unsigned>(
      b, "int_mad_gops", 0x00000326u, 0x9e3779b9u, 2.0,
      PGPU_CUDA ? "32-bit integer multiply-add a*b+c = 2 ops (IMAD); 8 chains per thread"
                : "integer multiply-add a*b+c = 2 ops, 24-bit multiply "
                  "(v_mad_u32_u24); 8 chains per thread");
}

result run_int_add(const bench& b) {
  constexpr int pairs = unroll / 2;
  result r{"int_add_gops", std::nullopt, 0,
           "32-bit integer add = 1 op; 8 Fibonacci-pair chains (x+=y; y+=x) per thread"};
  auto kernel = add_kernel<pairs>;
  const int blocks = blocks_for(kernel, b.dev.cus);
  r.threads = static_cast<long long>(blocks) * block_threads;
  device_buffer sink(static_cast<std::size_t>(r.threads) * sizeof(unsigned));
  auto launch = [&](long long iters) {
    kernel<<<blocks, block_threads>>>(sink.as<unsigned>(), static_cast<int>(iters), 0x2545f491u);
    PG_LAUNCH_CHECK();
  };
  const double work = static_cast<double>(r.threads) * chains * pairs * 2.0;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 16, 1LL << 30);
  return r;
}

} // namespace perfgate::microbench::gpu
