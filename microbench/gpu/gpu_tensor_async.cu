// SPDX-License-Identifier: Apache-2.0
// Hopper's warpgroup matrix path (wgmma.mma_async, sm_90a): one warpgroup (128 threads) per block
// issues m64n256 multiply-accumulates whose operands both come from shared memory through matrix
// descriptors, the way CUTLASS's Hopper GEMMs run; several blocks per SM keep the tensor cores fed.
// The shared operand buffer holds one word everywhere, so the descriptors' layout cannot change a
// value and every address they reach lies inside the buffer (no swizzle; leading and stride
// offsets of one and two 8x16-byte core matrices: A spans 2 KiB, B 8 KiB of the 32 KiB). A fault
// here would end the process's CUDA context, so main() runs these last; a wrong sum (a kernel
// that did not run its instructions) leaves the precision unmeasured.
#include "gpu_tensor.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::microbench::gpu {

#if PGPU_CUDA
namespace {

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define PGPU_WGMMA 1
#endif

constexpr int wgmma_threads = 128;   // one warpgroup
constexpr int wgmma_unroll = 8;      // instructions per commit group
constexpr int smem_words = 8192;     // 32 KiB of operands
constexpr int b_offset_words = 4096; // B from the second half
constexpr int verify_iters = 4;      // 32 instructions: every sum below is exact

enum precision : int { fp16, bf16, tf32, fp8, int8, count };
constexpr const char* names[] = {"fp16", "bf16", "tf32", "fp8", "int8"};

// The accumulator list D of an m64n256 instruction: 128 registers per thread.
#define PGPU_WGMMA_D                                                                               \
  "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "                        \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "               \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "               \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "               \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "               \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "               \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "   \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, "     \
  "%127}"
#define PGPU_D4(i) "+r"(d[(i)]), "+r"(d[(i) + 1]), "+r"(d[(i) + 2]), "+r"(d[(i) + 3])
#define PGPU_D16(i) PGPU_D4(i), PGPU_D4((i) + 4), PGPU_D4((i) + 8), PGPU_D4((i) + 12)
#define PGPU_D64(i) PGPU_D16(i), PGPU_D16((i) + 16), PGPU_D16((i) + 32), PGPU_D16((i) + 48)

// D += A B with D's 128 registers, A and B from the descriptors %128, %129; scale-d true.
// `tail`: the immediate operands after scale-d the instruction's type takes.
#define PGPU_WGMMA_STEP(instr, tail)                                                               \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" instr " " PGPU_WGMMA_D                   \
               ", %128, %129, p" tail ";\n}\n"                                                     \
               : PGPU_D64(0), PGPU_D64(64)                                                         \
               : "l"(a), "l"(b))

// word: the operand word filling shared memory; per_instruction: what each accumulator gains
// per instruction from it (k products of the same two values: exact in f32 and s32).
template <int K, unsigned Word, bool Float> struct wgmma_shape {
  static constexpr double ops = 2.0 * 64 * 256 * K;
  static constexpr unsigned word = Word;
  static constexpr bool is_float = Float;
};
// half 2^-10 twice: each product 2^-20, k 16
struct wgmma_fp16 : wgmma_shape<16, 0x14001400u, true> {
  static constexpr double per_instruction = 16.0 / (1 << 20);
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", ", 1, 1, 0, 0");
#endif
  }
};
// bf16 2^-10 twice
struct wgmma_bf16 : wgmma_shape<16, 0x3a803a80u, true> {
  static constexpr double per_instruction = 16.0 / (1 << 20);
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0");
#endif
  }
};
// tf32 (an f32 word) 2^-10, k 8
struct wgmma_tf32 : wgmma_shape<8, 0x3a800000u, true> {
  static constexpr double per_instruction = 8.0 / (1 << 20);
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", ", 1, 1");
#endif
  }
};
// e4m3 2^-6 four times: each product 2^-12, k 32
struct wgmma_fp8 : wgmma_shape<32, 0x08080808u, true> {
  static constexpr double per_instruction = 32.0 / (1 << 12);
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", ", 1, 1");
#endif
  }
};
// s8 1 four times, k 32
struct wgmma_int8 : wgmma_shape<32, 0x01010101u, false> {
  static constexpr double per_instruction = 32.0;
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "");
#endif
  }
};

// Keeps the compiler from moving accumulator registers across the asynchronous instructions.
__device__ __forceinline__ void fence_operands(unsigned (&d)[128]) {
#pragma unroll
  for (int r = 0; r < 128; ++r)
    asm volatile("" : "+r"(d[r])::"memory");
}

// The synchronisation around wgmma (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-
// Accumulate"); empty where the code has no wgmma, and such a kernel is never launched.
#ifdef PGPU_WGMMA
#define PGPU_ASYNC(text) asm volatile(text ::: "memory")
#else
#define PGPU_ASYNC(text)
#endif

// A shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"): start address, leading
// and stride byte offsets, all >> 4; no swizzle, base offset 0.
__device__ std::uint64_t descriptor(const void* p) {
  const auto address = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  constexpr std::uint64_t leading = 128, stride = 256;
  return (address & 0x3ffff) >> 4 | (leading >> 4) << 16 | (stride >> 4) << 32;
}

template <class Op>
__global__ __launch_bounds__(wgmma_threads) void wgmma_kernel(double* sums, int iters) {
  __shared__ alignas(1024) unsigned operands[smem_words];
  for (int i = threadIdx.x; i < smem_words; i += blockDim.x)
    operands[i] = Op::word;
  PGPU_ASYNC("fence.proxy.async.shared::cta;"); // the stores, visible to the async proxy
  __syncthreads();
  const std::uint64_t a = descriptor(operands), b = descriptor(operands + b_offset_words);
  unsigned d[128];
#pragma unroll
  for (int r = 0; r < 128; ++r)
    d[r] = 0;
  fence_operands(d);
  for (int i = 0; i < iters; ++i) {
    // As CUTLASS's main loop: a fence per group (the registers were last written by a wgmma).
    PGPU_ASYNC("wgmma.fence.sync.aligned;");
#pragma unroll
    for (int u = 0; u < wgmma_unroll; ++u)
      Op::step(d, a, b);
    PGPU_ASYNC("wgmma.commit_group.sync.aligned;");
    PGPU_ASYNC("wgmma.wait_group.sync.aligned 1;");
  }
  PGPU_ASYNC("wgmma.wait_group.sync.aligned 0;");
  fence_operands(d);
  double s = 0;
#pragma unroll
  for (int r = 0; r < 128; ++r)
    s += Op::is_float ? double(__uint_as_float(d[r])) : double(static_cast<int>(d[r]));
  sums[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Whether the code the device runs carries wgmma (a cc 9.0 part runs sm_90 code when the build
// has no sm_90a, and there these kernels are empty).
__global__ void wgmma_probe_kernel(unsigned* out) {
#ifdef PGPU_WGMMA
  *out = 1;
#else
  *out = 0;
#endif
}

bool wgmma_compiled() {
  device_buffer out(sizeof(unsigned));
  wgmma_probe_kernel<<<1, 1>>>(out.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned m = 0;
  PG_CHECK(pgpu::memcpy_to_host(&m, out.as<unsigned>(), sizeof m));
  return m == 1;
}

template <class Op> result run_op(const bench& b, result r) {
  auto kernel = wgmma_kernel<Op>;
  int per_sm = 0;
  PG_CHECK(pgpu::occupancy_blocks_per_cu(&per_sm, kernel, wgmma_threads, 0));
  const int blocks = std::max(per_sm, 1) * b.dev.cus;
  r.threads = static_cast<long long>(blocks) * wgmma_threads;
  device_buffer sums(static_cast<std::size_t>(r.threads) * sizeof(double));
  auto launch = [&](long long iters) {
    kernel<<<blocks, wgmma_threads>>>(sums.as<double>(), static_cast<int>(iters));
    PG_LAUNCH_CHECK();
  };
  // Every thread's 128 accumulators must hold what verify_iters x wgmma_unroll instructions add.
  launch(verify_iters);
  std::vector<double> got(static_cast<std::size_t>(r.threads));
  PG_CHECK(pgpu::memcpy_to_host(got.data(), sums.as<double>(), got.size() * sizeof(double)));
  const double want = 128.0 * verify_iters * wgmma_unroll * Op::per_instruction;
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (got[t] != want) {
      r.note = "wgmma check failed: thread " + std::to_string(t) + "'s accumulators sum to " +
               std::to_string(got[t]) + ", expected " + std::to_string(want) + " after " +
               std::to_string(verify_iters * wgmma_unroll) + " instructions; not a rate to trust";
      return r;
    }
  }
  const double work = static_cast<double>(blocks) * wgmma_unroll * Op::ops;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 64, 1LL << 30);
  return r;
}

} // namespace

int tensor_async_precisions(const pgpu::device_prop& prop) { return prop.major == 9 ? count : 0; }

std::string tensor_async_key(int i) {
  return std::string("tensor_") + names[i] + (i == int8 ? "_gops" : "_gflops");
}

result run_tensor_async(const bench& b, int i) {
  result r{tensor_async_key(i), std::nullopt, 0, ""};
  static const bool compiled = wgmma_compiled();
  if (!compiled) {
    r.note = "no wgmma in the code this build runs on " + pgpu::arch_name(b.dev.prop) +
             " (wgmma needs the architecture-specific sm_90a: add 90a to "
             "CMAKE_CUDA_ARCHITECTURES); the datasheet rate applies";
    return r;
  }
  r.note = "wgmma.mma_async m64n256, A and B from shared memory, dense, 2 m n k per "
           "instruction; one warpgroup per block, every block the SM holds";
  switch (i) {
  case fp16: return run_op<wgmma_fp16>(b, r);
  case bf16: return run_op<wgmma_bf16>(b, r);
  case tf32: return run_op<wgmma_tf32>(b, r);
  case fp8: return run_op<wgmma_fp8>(b, r);
  case int8: return run_op<wgmma_int8>(b, r);
  default: return r;
  }
}
#else
// AMD's matrix path is MFMA from registers, measured by run_tensor(): nothing asynchronous.
int tensor_async_precisions(const pgpu::device_prop&) { return 0; }
std::string tensor_async_key(int) { return {}; }
result run_tensor_async(const bench&, int) { return {}; }
#endif

} // namespace perfgate::microbench::gpu
