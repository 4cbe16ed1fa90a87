// SPDX-License-Identifier: Apache-2.0
// Matrix-unit kernels: each warp / wavefront keeps `mma_chains` independent accumulators and
// multiplies the same register fragments into them, so the loop is bound by the matrix unit's
// issue rate alone (no memory traffic, no shared memory). The fragments' values are small enough
// that no accumulator overflows or turns to inf within a run.
#include "gpu_tensor.hpp"

#include <string>

namespace perfgate::microbench::gpu {

namespace {

constexpr int mma_chains = 4;  // independent accumulators per warp / wavefront
constexpr int mma_unroll = 16; // steps per loop iteration

// What a kernel needs of one matrix instruction besides its step: 2 m n k operations per
// warp / wavefront instruction, the operand word, the accumulator type.
template <int M, int N, int K, unsigned Word, class Acc> struct mma_shape {
  static constexpr double ops = 2.0 * M * N * K;
  static constexpr unsigned word = Word;
  using acc = Acc;
};

enum precision : unsigned { fp16, bf16, tf32, fp64, fp8, int8 };
constexpr const char* names[] = {"fp16", "bf16", "tf32", "fp64", "fp8", "int8"};
// Bits of compiled_paths() beyond the precisions: the wider instruction shape of a precision
// (more operations per instruction) is in the code the device runs.
enum wider_shape : unsigned { fp64_m16n8k16 = 6, int8_k16 = 7 };

#if PGPU_CUDA
// Warp-level mma.sync (PTX ISA "Warp-level matrix multiply-accumulate instructions"); operands
// as the ISA lays them out per thread. ops: 2 m n k per warp instruction.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define PGPU_MMA_SM80 1
#endif
// FP8 mma.sync is a tensor instruction (QMMA) on sm_89 and sm_120; sm_90 and sm_100 accept it
// but emulate it (F2FP unpack to f16, then HMMA: checked in the SASS), so it is no path there.
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 890 || __CUDA_ARCH__ >= 1200)
#define PGPU_MMA_FP8 1
#endif
// FP64 m16n8k16: Hopper's DMMA.16x8x16 (wgmma has no FP64: this is its fastest FP64 path).
// sm_100 and sm_120 accept the shape but split it into DMMA.8x8x4 (checked in the SASS), so
// they run m8n8k4, their own instruction.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#define PGPU_MMA_FP64_K16 1
#endif

// One m16n8 mma.sync: D = A B + D with four accumulator registers of constraint `reg` ("f" f32,
// "r" s32); every A and B register holds the same word (the rate does not depend on values).
#define PGPU_MMA_M16N8(instr, reg)                                                                 \
  asm(instr " {%0,%1,%2,%3}, {%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"                               \
      : "+" reg(d.c[0]), "+" reg(d.c[1]), "+" reg(d.c[2]), "+" reg(d.c[3])                         \
      : "r"(a), "r"(b))

struct f32x4 {
  float c[4];
  __device__ double sum() const { return double(c[0]) + c[1] + c[2] + c[3]; }
};
struct s32x4 {
  int c[4];
  __device__ double sum() const { return double(c[0]) + c[1] + c[2] + c[3]; }
};
struct f64x2 {
  double c[2];
  __device__ double sum() const { return c[0] + c[1]; }
};
struct f64x4 {
  double c[4];
  __device__ double sum() const { return c[0] + c[1] + c[2] + c[3]; }
};

// m16n8k16, A 4 x b32, B 2 x b32 (two 16-bit values each), C/D 4 x f32.
struct mma_fp16 : mma_shape<16, 8, 16, 0x14191419u, f32x4> { // half 0.001 twice
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_SM80
    PGPU_MMA_M16N8("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "f");
#endif
  }
};
struct mma_bf16 : mma_shape<16, 8, 16, 0x3a833a83u, f32x4> { // bf16 0.001 twice
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_SM80
    PGPU_MMA_M16N8("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "f");
#endif
  }
};
// m16n8k8 tf32: A 4 x b32, B 2 x b32 (one tf32 each).
struct mma_tf32 : mma_shape<16, 8, 8, 0x3a83126fu, f32x4> { // 0.001f
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_SM80
    PGPU_MMA_M16N8("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "f");
#endif
  }
};
// m8n8k4 f64 (DMMA; the shape every sm_80+ part has): A, B one f64, C/D 2 x f64.
struct mma_fp64 : mma_shape<8, 8, 4, 0, f64x2> {
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_SM80
    const double x = 1e-3 + a * 1e-12, y = 1e-3 + b * 1e-12;
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
        : "+d"(d.c[0]), "+d"(d.c[1])
        : "d"(x), "d"(y));
#endif
  }
};
// m16n8k16 f64 (sm_90): A 8 x f64, B 4 x f64, C/D 4 x f64.
struct mma_fp64_k16 : mma_shape<16, 8, 16, 0, f64x4> {
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_FP64_K16
    const double x = 1e-3 + a * 1e-12, y = 1e-3 + b * 1e-12;
    asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
        "{%4,%4,%4,%4,%4,%4,%4,%4}, {%5,%5,%5,%5}, {%0,%1,%2,%3};"
        : "+d"(d.c[0]), "+d"(d.c[1]), "+d"(d.c[2]), "+d"(d.c[3])
        : "d"(x), "d"(y));
#endif
  }
};
// m16n8k32 e4m3 (sm_89, sm_120): A 4 x b32, B 2 x b32 (four 8-bit values each).
struct mma_fp8 : mma_shape<16, 8, 32, 0x08080808u, f32x4> { // e4m3 2^-6 four times
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_FP8
    PGPU_MMA_M16N8("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "f");
#endif
  }
};
// m16n8k32 s8 (IMMA): A 4 x b32, B 2 x b32, C/D 4 x s32 (wrapping).
struct mma_int8 : mma_shape<16, 8, 32, 0x01010101u, s32x4> {
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MMA_SM80
    PGPU_MMA_M16N8("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "r");
#endif
  }
};

// Which precisions the code the device actually runs carries (a cc 8.9 part runs sm_80 code
// when the build has no sm_89: no FP8 there, and an empty kernel must not pass for a rate).
__global__ void paths_kernel(unsigned* out) {
  unsigned m = 0;
#ifdef PGPU_MMA_SM80
  m |= 1u << fp16 | 1u << bf16 | 1u << tf32 | 1u << fp64 | 1u << int8;
#endif
#ifdef PGPU_MMA_FP8
  m |= 1u << fp8;
#endif
#ifdef PGPU_MMA_FP64_K16
  m |= 1u << fp64_m16n8k16;
#endif
  *out = m;
}
#else
// AMD MFMA (CDNA2 gfx90a, CDNA3 gfx94x): one wavefront instruction per step. ops: 2 m n k.
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define PGPU_MFMA_CDNA2 1
#endif
#if defined(__gfx90a__)
#define PGPU_MFMA_I8_K8 1 // v_mfma_i32_32x32x8i8, dropped by gfx94x
#endif
#if defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
#define PGPU_MFMA_CDNA3 1 // xf32 (TF32's counterpart, dropped again by gfx950), fp8, int8 k16
#endif

typedef float floatx16 __attribute__((ext_vector_type(16)));
typedef double doublex4 __attribute__((ext_vector_type(4)));
typedef float floatx2 __attribute__((ext_vector_type(2)));
typedef int intx16 __attribute__((ext_vector_type(16)));
typedef _Float16 halfx4 __attribute__((ext_vector_type(4)));
typedef short shortx4 __attribute__((ext_vector_type(4)));

struct f32x16 {
  floatx16 c;
  __device__ double sum() const { return double(c[0]) + c[5] + c[10] + c[15]; }
};
struct f64x4 {
  doublex4 c;
  __device__ double sum() const { return c[0] + c[1] + c[2] + c[3]; }
};
struct s32x16 {
  intx16 c;
  __device__ double sum() const { return double(c[0]) + c[5] + c[10] + c[15]; }
};

struct mma_fp16 : mma_shape<32, 32, 8, 0x14191419u, f32x16> { // v_mfma_f32_32x32x8f16
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA2
    const _Float16 x = static_cast<_Float16>(1e-3f + (a & 1u) * 1e-6f);
    const _Float16 y = static_cast<_Float16>(1e-3f + (b & 1u) * 1e-6f);
    d.c =
        __builtin_amdgcn_mfma_f32_32x32x8f16(halfx4{x, x, x, x}, halfx4{y, y, y, y}, d.c, 0, 0, 0);
#endif
  }
};
struct mma_bf16 : mma_shape<32, 32, 8, 0x3a833a83u, f32x16> { // v_mfma_f32_32x32x8bf16_1k
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA2
    const short x = static_cast<short>(a & 0xffffu), y = static_cast<short>(b & 0xffffu);
    d.c = __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(shortx4{x, x, x, x}, shortx4{y, y, y, y}, d.c, 0,
                                                   0, 0);
#endif
  }
};
struct mma_tf32 : mma_shape<32, 32, 4, 0x3a83126fu, f32x16> { // v_mfma_f32_32x32x4_xf32
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA3
    const float x = __uint_as_float(a), y = __uint_as_float(b);
    d.c = __builtin_amdgcn_mfma_f32_32x32x4_xf32(floatx2{x, x}, floatx2{y, y}, d.c, 0, 0, 0);
#endif
  }
};
// FP8 on gfx94x is E4M3 "FNUZ" (exponent bias 8): 0x10 is 2^-6.
struct mma_fp8 : mma_shape<32, 32, 16, 0x10101010u, f32x16> { // v_mfma_f32_32x32x16_fp8_fp8
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA3
    const long x = static_cast<long>(static_cast<unsigned long>(a) << 32 | a);
    const long y = static_cast<long>(static_cast<unsigned long>(b) << 32 | b);
    d.c = __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(x, y, d.c, 0, 0, 0);
#endif
  }
};
struct mma_fp64 : mma_shape<16, 16, 4, 0, f64x4> { // v_mfma_f64_16x16x4f64
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA2
    d.c = __builtin_amdgcn_mfma_f64_16x16x4f64(1e-3 + a * 1e-12, 1e-3 + b * 1e-12, d.c, 0, 0, 0);
#endif
  }
};
struct mma_int8 : mma_shape<32, 32, 8, 0x01010101u, s32x16> { // v_mfma_i32_32x32x8i8
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_I8_K8
    d.c =
        __builtin_amdgcn_mfma_i32_32x32x8i8(static_cast<int>(a), static_cast<int>(b), d.c, 0, 0, 0);
#endif
  }
};
struct mma_int8_k16 : mma_shape<32, 32, 16, 0x01010101u, s32x16> { // v_mfma_i32_32x32x16_i8
  __device__ static void step(acc& d, unsigned a, unsigned b) {
#ifdef PGPU_MFMA_CDNA3
    const long x = static_cast<long>(static_cast<unsigned long>(a) << 32 | a);
    const long y = static_cast<long>(static_cast<unsigned long>(b) << 32 | b);
    d.c = __builtin_amdgcn_mfma_i32_32x32x16_i8(x, y, d.c, 0, 0, 0);
#endif
  }
};

__global__ void paths_kernel(unsigned* out) {
  unsigned m = 0;
#ifdef PGPU_MFMA_CDNA2
  m |= 1u << fp16 | 1u << bf16 | 1u << fp64;
#endif
#ifdef PGPU_MFMA_I8_K8
  m |= 1u << int8;
#endif
#ifdef PGPU_MFMA_CDNA3
  m |= 1u << tf32 | 1u << fp8 | 1u << int8 | 1u << int8_k16;
#endif
  *out = m;
}
#endif

// `mma_chains` accumulators per warp, `mma_unroll` steps of each per iteration; the operand
// words come in as arguments so that nothing is known at compile time.
template <class Op>
__global__ __launch_bounds__(block_threads) void mma_kernel(double* sink, int iters, unsigned a,
                                                            unsigned b) {
  typename Op::acc acc[mma_chains] = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < mma_unroll; ++u) {
#pragma unroll
      for (int k = 0; k < mma_chains; ++k)
        Op::step(acc[k], a, b);
    }
  }
  double s = 0;
#pragma unroll
  for (int k = 0; k < mma_chains; ++k)
    s += acc[k].sum();
  if (s == -1.0)
    sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

unsigned compiled_paths() {
  device_buffer out(sizeof(unsigned));
  paths_kernel<<<1, 1>>>(out.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned m = 0;
  PG_CHECK(pgpu::memcpy_to_host(&m, out.as<unsigned>(), sizeof m));
  return m;
}

template <class Op> result run_op(const bench& b, result r) {
  auto kernel = mma_kernel<Op>;
  const int blocks = blocks_for(kernel, b.dev.cus);
  r.threads = static_cast<long long>(blocks) * block_threads;
  device_buffer sink(static_cast<std::size_t>(r.threads) * sizeof(double));
  auto launch = [&](long long iters) {
    kernel<<<blocks, block_threads>>>(sink.as<double>(), static_cast<int>(iters), Op::word,
                                      Op::word);
    PG_LAUNCH_CHECK();
  };
  const double warps = static_cast<double>(r.threads) / b.dev.prop.warpSize;
  const double work = warps * mma_chains * mma_unroll * Op::ops;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 16, 1LL << 30);
  return r;
}

} // namespace

std::string tensor_key(const pgpu::device_prop& prop, int i) {
#if PGPU_CUDA
  // wgmma / tcgen05 outrun mma.sync on 9.x and 10.x, but carry no FP64: DMMA stays its roof.
  const bool warp_mma_is_fastest = (prop.major != 9 && prop.major != 10) || i == fp64;
#else
  (void)prop;
  const bool warp_mma_is_fastest = true;
#endif
  return std::string(warp_mma_is_fastest ? "tensor_" : "mma_sync_") + names[i] +
         (i == int8 ? "_gops" : "_gflops");
}

result run_tensor(const bench& b, int i) {
  result r{tensor_key(b.dev.prop, i), std::nullopt, 0, ""};
  static const unsigned paths = compiled_paths();
  if ((paths >> i & 1u) == 0) {
    r.note = std::string("no ") + names[i] + " matrix path in the code this build runs on " +
             pgpu::arch_name(b.dev.prop) +
             (PGPU_CUDA ? " (mma.sync needs sm_80; FP8 runs on sm_89 and sm_120 only: add the "
                          "architecture to CMAKE_CUDA_ARCHITECTURES)"
                        : " (MFMA measured on gfx90a and gfx94x; TF32 (xf32) and FP8 on gfx94x)");
    return r;
  }
  const std::string how =
      PGPU_CUDA ? "warp-level mma.sync, dense, 2 m n k per instruction; 4 accumulators per warp"
                : "MFMA, dense, 2 m n k per instruction; 4 accumulators per wavefront";
  r.note =
      how + (r.key.rfind("mma_sync_", 0) == 0
                 ? "; not this architecture's fastest matrix path (wgmma / tcgen05), so no roof"
                 : "");
  switch (i) {
  case fp16: return run_op<mma_fp16>(b, r);
  case bf16: return run_op<mma_bf16>(b, r);
  case tf32: return run_op<mma_tf32>(b, r);
  case fp8: return run_op<mma_fp8>(b, r);
#if PGPU_CUDA
  case fp64:
    return (paths >> fp64_m16n8k16 & 1u) != 0 ? run_op<mma_fp64_k16>(b, r) : run_op<mma_fp64>(b, r);
  case int8: return run_op<mma_int8>(b, r);
#else
  case fp64: return run_op<mma_fp64>(b, r);
  case int8:
    return (paths >> int8_k16 & 1u) != 0 ? run_op<mma_int8_k16>(b, r) : run_op<mma_int8>(b, r);
#endif
  default: return r;
  }
}

} // namespace perfgate::microbench::gpu
