// SPDX-License-Identifier: Apache-2.0
// The asynchronous matrix paths real GEMMs take where mma.sync is no longer the fastest:
//  - Hopper's wgmma.mma_async (sm_90a): one warpgroup (128 threads) per block issues m64n256
//    multiply-accumulates whose operands both come from shared memory through matrix descriptors,
//    the way CUTLASS's Hopper GEMMs run; several blocks per SM keep the tensor cores fed.
//  - Blackwell's tcgen05.mma (sm_100a, sm_103a; compute capability 10.x): one thread per block
//    issues m128n256 multiply-accumulates from shared memory into tensor memory (TMEM: 256 of an
//    SM's 512 columns per block, two blocks per SM), and commits them to an mbarrier.
// The shared operand buffer holds one word everywhere, so the descriptors' layout cannot change a
// value and every address they reach lies inside the buffer (no swizzle; leading and stride
// offsets of one and two 8x16-byte core matrices: A spans at most 4 KiB, B 8 KiB of the 32 KiB).
// A fault here would end the process's CUDA context, so main() runs these last; a wrong sum (a
// kernel that did not run its instructions) or a commit that never arrives leaves the precision
// unmeasured.
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
// tcgen05 exists in sm_100a / sm_103a and the family-specific sm_100f / sm_103f; its kind::i8
// only in sm_100a (ptxas refuses it for sm_100f and sm_103a).
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) &&                                                      \
    (__CUDA_ARCH_FAMILY_SPECIFIC__ == 1000 || __CUDA_ARCH_FAMILY_SPECIFIC__ == 1030)
#define PGPU_TCGEN05 1
#endif
#if defined(__CUDA_ARCH_SPECIFIC__) && __CUDA_ARCH_SPECIFIC__ == 1000
#define PGPU_TCGEN05_I8 1
#endif

constexpr int wgmma_threads = 128;   // one warpgroup
constexpr int wgmma_unroll = 8;      // instructions per commit group
constexpr int smem_words = 8192;     // 32 KiB of operands
constexpr int b_offset_words = 4096; // B from the second half
constexpr int verify_iters = 4;      // 32 instructions: every sum below is exact
constexpr int umma_threads = 128;    // four warps: each reads its 32 TMEM lanes back
constexpr unsigned umma_columns = 256; // N: one f32 / s32 accumulator column each
constexpr int umma_blocks_per_sm = 2;  // 2 x 256 columns: all of an SM's 512
// Dynamic shared memory no block uses: with the 32 KiB of operands, 96 KiB a block, so that no
// third block (whose TMEM allocation would wait for a finished one) shares an SM.
constexpr int umma_spacer_bytes = 64 * 1024;

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

// The operands of each precision: `word` fills shared memory; each product of two of its
// values is `product`, so every accumulator gains k x product per instruction (exact in f32 and
// s32). idesc: tcgen05's instruction descriptor (PTX ISA "Instruction descriptor"): D format at
// bit 4 (1 f32, 2 s32), A and B formats at bits 7 and 10, K-major A and B, N >> 3 at bit 17,
// M >> 4 at bit 24.
constexpr unsigned umma_idesc(unsigned d_format, unsigned ab_format) {
  return d_format << 4 | ab_format << 7 | ab_format << 10 | (umma_columns >> 3) << 17 |
         (128 >> 4) << 24;
}
template <precision P, int K, unsigned Word, bool Float> struct operands_of {
  static constexpr precision p = P;
  static constexpr int k = K;
  static constexpr unsigned word = Word;
  static constexpr bool is_float = Float;
};
struct fp16_operands : operands_of<fp16, 16, 0x14001400u, true> { // half 2^-10 twice
  static constexpr double product = 1.0 / (1 << 20);
  static constexpr unsigned idesc = umma_idesc(1, 0);
};
struct bf16_operands : operands_of<bf16, 16, 0x3a803a80u, true> { // bf16 2^-10 twice
  static constexpr double product = 1.0 / (1 << 20);
  static constexpr unsigned idesc = umma_idesc(1, 1);
};
struct tf32_operands : operands_of<tf32, 8, 0x3a800000u, true> { // tf32 (an f32 word) 2^-10
  static constexpr double product = 1.0 / (1 << 20);
  static constexpr unsigned idesc = umma_idesc(1, 2);
};
struct fp8_operands : operands_of<fp8, 32, 0x08080808u, true> { // e4m3 2^-6 four times
  static constexpr double product = 1.0 / (1 << 12);
  static constexpr unsigned idesc = umma_idesc(1, 0);
};
struct int8_operands : operands_of<int8, 32, 0x01010101u, false> { // s8 1 four times
  static constexpr double product = 1.0;
  static constexpr unsigned idesc = umma_idesc(2, 1); // s32 D, signed A and B
};

// wgmma: 2 x 64 x 256 x k operations per warpgroup instruction.
template <class Operands> struct wgmma : Operands {
  static constexpr double ops = 2.0 * 64 * 256 * Operands::k;
  __device__ static void step(unsigned (&d)[128], std::uint64_t a, std::uint64_t b) {
#ifdef PGPU_WGMMA
    constexpr precision p = Operands::p;
    if constexpr (p == fp16) {
      PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", ", 1, 1, 0, 0");
    } else if constexpr (p == bf16) {
      PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", ", 1, 1, 0, 0");
    } else if constexpr (p == tf32) {
      PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", ", 1, 1");
    } else if constexpr (p == fp8) {
      PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", ", 1, 1");
    } else {
      PGPU_WGMMA_STEP("wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8", "");
    }
#endif
  }
};
struct wgmma_fp16 : wgmma<fp16_operands> {};
struct wgmma_bf16 : wgmma<bf16_operands> {};
struct wgmma_tf32 : wgmma<tf32_operands> {};
struct wgmma_fp8 : wgmma<fp8_operands> {};
struct wgmma_int8 : wgmma<int8_operands> {};

// tcgen05: D (in TMEM at `tmem`) = A B, + D when `accumulate`; 2 x 128 x 256 x k operations.
#ifdef PGPU_TCGEN05
#define PGPU_UMMA_STEP(kind)                                                                       \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\ntcgen05.mma.cta_group::1." kind           \
               " [%0], %1, %2, %3, p;\n}\n" ::"r"(tmem),                                           \
               "l"(a), "l"(b), "r"(idesc), "r"(accumulate)                                         \
               : "memory")
#else
#define PGPU_UMMA_STEP(kind) ((void)tmem, (void)a, (void)b, (void)accumulate, (void)idesc)
#endif
template <class Operands> struct umma : Operands {
  static constexpr double ops = 2.0 * 128 * 256 * Operands::k;
  __device__ static void step(unsigned tmem, std::uint64_t a, std::uint64_t b,
                              unsigned accumulate) {
    constexpr unsigned idesc = Operands::idesc;
    constexpr precision p = Operands::p;
    if constexpr (p == fp16 || p == bf16) { // the descriptor's formats tell the two apart
      PGPU_UMMA_STEP("kind::f16");
    } else if constexpr (p == tf32) {
      PGPU_UMMA_STEP("kind::tf32");
    } else if constexpr (p == fp8) {
      PGPU_UMMA_STEP("kind::f8f6f4");
    } else {
#ifdef PGPU_TCGEN05_I8
      PGPU_UMMA_STEP("kind::i8");
#else
      (void)tmem, (void)a, (void)b, (void)accumulate, (void)idesc;
#endif
    }
  }
};
struct umma_fp16 : umma<fp16_operands> {};
struct umma_bf16 : umma<bf16_operands> {};
struct umma_tf32 : umma<tf32_operands> {};
struct umma_fp8 : umma<fp8_operands> {};
struct umma_int8 : umma<int8_operands> {};

// Keeps the compiler from moving accumulator registers across the asynchronous instructions.
__device__ __forceinline__ void fence_operands(unsigned (&d)[128]) {
#pragma unroll
  for (int r = 0; r < 128; ++r)
    asm volatile("" : "+r"(d[r])::"memory");
}

// The synchronisation around wgmma (PTX ISA "Asynchronous Warpgroup Level Matrix Multiply-
// Accumulate") and tcgen05; empty where the code lacks the path, and such a kernel is never
// launched.
#ifdef PGPU_WGMMA
#define PGPU_WGMMA_SYNC(text) asm volatile(text ::: "memory")
#else
#define PGPU_WGMMA_SYNC(text)
#endif
#ifdef PGPU_TCGEN05
#define PGPU_TCGEN05_SYNC(text) asm volatile(text ::: "memory")
#else
#define PGPU_TCGEN05_SYNC(text)
#endif

// A shared-memory matrix descriptor (PTX ISA "Matrix Descriptor Format"): start address, leading
// and stride byte offsets, all >> 4; no swizzle, base offset 0; tcgen05's has version 1 at bit 46.
__device__ std::uint64_t descriptor(const void* p, std::uint64_t version = 0) {
  const auto address = static_cast<std::uint64_t>(__cvta_generic_to_shared(p));
  constexpr std::uint64_t leading = 128, stride = 256;
  return (address & 0x3ffff) >> 4 | (leading >> 4) << 16 | (stride >> 4) << 32 | version << 46;
}

template <class Op> __device__ void fill_operands(unsigned* operands) {
  for (int i = threadIdx.x; i < smem_words; i += blockDim.x)
    operands[i] = Op::word;
}

template <class Op> __device__ double value_of(unsigned word) {
  return Op::is_float ? double(__uint_as_float(word)) : double(static_cast<int>(word));
}

template <class Op>
__global__ __launch_bounds__(wgmma_threads) void wgmma_kernel(double* sums, int iters) {
  __shared__ alignas(1024) unsigned operands[smem_words];
  fill_operands<Op>(operands);
  PGPU_WGMMA_SYNC("fence.proxy.async.shared::cta;"); // the stores, visible to the async proxy
  __syncthreads();
  const std::uint64_t a = descriptor(operands), b = descriptor(operands + b_offset_words);
  unsigned d[128];
#pragma unroll
  for (int r = 0; r < 128; ++r)
    d[r] = 0;
  fence_operands(d);
  for (int i = 0; i < iters; ++i) {
    // As CUTLASS's main loop: a fence per group (the registers were last written by a wgmma).
    PGPU_WGMMA_SYNC("wgmma.fence.sync.aligned;");
#pragma unroll
    for (int u = 0; u < wgmma_unroll; ++u)
      Op::step(d, a, b);
    PGPU_WGMMA_SYNC("wgmma.commit_group.sync.aligned;");
    PGPU_WGMMA_SYNC("wgmma.wait_group.sync.aligned 1;");
  }
  PGPU_WGMMA_SYNC("wgmma.wait_group.sync.aligned 0;");
  fence_operands(d);
  double s = 0;
#pragma unroll
  for (int r = 0; r < 128; ++r)
    s += value_of<Op>(d[r]);
  sums[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Thread 0 issues iters x wgmma_unroll instructions into the block's TMEM (the first one
// overwrites, the rest accumulate) and commits them to an mbarrier every thread waits on; then
// each thread reads 8 columns of its lane back (warp w reads lanes 32w to 32w + 31).
// `timed_out` is set when the commit did not arrive within about 10 s.
template <class Op>
__global__ __launch_bounds__(umma_threads) void tcgen05_kernel(double* sums, int iters,
                                                               unsigned* timed_out) {
  __shared__ alignas(1024) unsigned operands[smem_words];
  __shared__ unsigned tmem_base;
  fill_operands<Op>(operands);
  const unsigned warp = threadIdx.x / 32;
  const auto shared = [](const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
  };
#ifdef PGPU_TCGEN05
  constexpr long long timeout_cycles = 20'000'000'000LL; // ~10 s: a commit that never arrives
  __shared__ alignas(8) unsigned long long committed;
  if (warp == 0) { // a whole warp allocates, and gives up its right to allocate more
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(
                     shared(&tmem_base)),
                 "n"(umma_columns)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(shared(&committed)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory"); // before the commit's arrive
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); // operands, for the async proxy
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
#endif
  __syncthreads();
  PGPU_TCGEN05_SYNC("tcgen05.fence::after_thread_sync;");
  const unsigned tmem = tmem_base;
  if (threadIdx.x == 0) {
    const std::uint64_t a = descriptor(operands, 1), b = descriptor(operands + b_offset_words, 1);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
      for (int u = 0; u < wgmma_unroll; ++u)
        Op::step(tmem, a, b, i != 0 || u != 0);
    }
#ifdef PGPU_TCGEN05
    asm volatile(
        "tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
            shared(&committed))
        : "memory");
#endif
  }
  unsigned columns[8] = {};
#ifdef PGPU_TCGEN05
  const long long start = clock64();
  for (unsigned arrived = 0; !arrived;) {
    asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                 "selp.u32 %0, 1, 0, p;\n}\n"
                 : "=r"(arrived)
                 : "r"(shared(&committed))
                 : "memory");
    if (!arrived && clock64() - start > timeout_cycles) {
      atomicExch(timed_out, 1u);
      return; // the TMEM stays allocated: the run is reported failed, and ends
    }
  }
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(columns[0]), "=r"(columns[1]), "=r"(columns[2]), "=r"(columns[3]),
                 "=r"(columns[4]), "=r"(columns[5]), "=r"(columns[6]), "=r"(columns[7])
               : "r"(tmem + ((warp * 32) << 16))
               : "memory");
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
#else
  (void)timed_out;
#endif
  __syncthreads();
  if (warp == 0) {
    PGPU_TCGEN05_SYNC("tcgen05.fence::after_thread_sync;");
#ifdef PGPU_TCGEN05
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(tmem),
                 "n"(umma_columns)
                 : "memory");
#endif
  }
  double s = 0;
#pragma unroll
  for (int c = 0; c < 8; ++c)
    s += value_of<Op>(columns[c]);
  sums[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

// Which asynchronous paths the code the device runs carries (a cc 9.0 part runs sm_90 code when
// the build has no sm_90a, and there these kernels are empty).
enum async_path : unsigned { wgmma_path = 1, tcgen05_path = 2, tcgen05_i8_path = 4 };
__global__ void async_probe_kernel(unsigned* out) {
  unsigned m = 0;
#ifdef PGPU_WGMMA
  m |= wgmma_path;
#endif
#ifdef PGPU_TCGEN05
  m |= tcgen05_path;
#endif
#ifdef PGPU_TCGEN05_I8
  m |= tcgen05_i8_path;
#endif
  *out = m;
}

unsigned async_path_compiled() {
  device_buffer out(sizeof(unsigned));
  async_probe_kernel<<<1, 1>>>(out.as<unsigned>());
  PG_LAUNCH_CHECK();
  unsigned m = 0;
  PG_CHECK(pgpu::memcpy_to_host(&m, out.as<unsigned>(), sizeof m));
  return m;
}

// Every thread's sum must be what verify_iters x wgmma_unroll instructions add to `per_thread`
// accumulators; else the note says what was found.
bool sums_check(const device_buffer& sums, std::size_t threads, double per_thread_instruction,
                const char* path, result& r) {
  std::vector<double> got(threads);
  PG_CHECK(pgpu::memcpy_to_host(got.data(), sums.as<double>(), got.size() * sizeof(double)));
  const double want = verify_iters * wgmma_unroll * per_thread_instruction;
  for (std::size_t t = 0; t < got.size(); ++t) {
    if (got[t] != want) {
      r.note = std::string(path) + " check failed: thread " + std::to_string(t) +
               "'s accumulators sum to " + std::to_string(got[t]) + ", expected " +
               std::to_string(want) + " after " + std::to_string(verify_iters * wgmma_unroll) +
               " instructions; not a rate to trust";
      return false;
    }
  }
  return true;
}

template <class Op> result run_wgmma(const bench& b, result r) {
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
  launch(verify_iters);
  if (!sums_check(sums, static_cast<std::size_t>(r.threads), 128.0 * Op::k * Op::product, "wgmma",
                  r))
    return r;
  const double work = static_cast<double>(blocks) * wgmma_unroll * Op::ops;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 64, 1LL << 30);
  return r;
}

template <class Op> result run_tcgen05(const bench& b, result r) {
  auto kernel = tcgen05_kernel<Op>;
  PG_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, umma_spacer_bytes));
  PG_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxShared));
  int per_sm = 0;
  PG_CHECK(pgpu::occupancy_blocks_per_cu(&per_sm, kernel, umma_threads, umma_spacer_bytes));
  const int blocks = std::clamp(per_sm, 1, umma_blocks_per_sm) * b.dev.cus;
  r.threads = static_cast<long long>(blocks) * umma_threads;
  device_buffer sums(static_cast<std::size_t>(r.threads) * sizeof(double));
  device_buffer timed_out(sizeof(unsigned));
  PG_CHECK(cudaMemset(timed_out.as<unsigned>(), 0, sizeof(unsigned)));
  auto launch = [&](long long iters) {
    kernel<<<blocks, umma_threads, umma_spacer_bytes>>>(sums.as<double>(), static_cast<int>(iters),
                                                        timed_out.as<unsigned>());
    PG_LAUNCH_CHECK();
  };
  launch(verify_iters);
  unsigned stuck = 0;
  PG_CHECK(pgpu::memcpy_to_host(&stuck, timed_out.as<unsigned>(), sizeof stuck));
  if (stuck != 0) {
    r.note = "tcgen05 check failed: the commit of " + std::to_string(verify_iters * wgmma_unroll) +
             " instructions did not arrive within ~10 s";
    return r;
  }
  if (!sums_check(sums, static_cast<std::size_t>(r.threads), 8.0 * Op::k * Op::product, "tcgen05",
                  r))
    return r;
  const double work = static_cast<double>(blocks) * wgmma_unroll * Op::ops;
  r.stats = measure(b.timer, b.p, launch, work, b.p.quick ? 4 : 64, 1LL << 30);
  return r;
}

} // namespace

int tensor_async_precisions(const pgpu::device_prop& prop) {
  return prop.major == 9 || prop.major == 10 ? count : 0;
}

std::string tensor_async_key(int i) {
  return std::string("tensor_") + names[i] + (i == int8 ? "_gops" : "_gflops");
}

result run_tensor_async(const bench& b, int i) {
  result r{tensor_async_key(i), std::nullopt, 0, ""};
  static const unsigned paths = async_path_compiled();
  const bool hopper = b.dev.prop.major == 9;
  if ((paths & (hopper ? wgmma_path : tcgen05_path)) == 0) {
    r.note = "no " + std::string(hopper ? "wgmma" : "tcgen05") +
             " in the code this build runs on " + pgpu::arch_name(b.dev.prop) +
             (hopper ? " (wgmma needs the architecture-specific sm_90a: add 90a to "
                       "CMAKE_CUDA_ARCHITECTURES)"
                     : " (tcgen05 needs the architecture-specific sm_100a / sm_103a: add 100a "
                       "or 103a to CMAKE_CUDA_ARCHITECTURES)") +
             "; the datasheet rate applies";
    return r;
  }
  if (hopper) {
    r.note = "wgmma.mma_async m64n256, A and B from shared memory, dense, 2 m n k per "
             "instruction; one warpgroup per block, every block the SM holds";
    switch (i) {
    case fp16: return run_wgmma<wgmma_fp16>(b, r);
    case bf16: return run_wgmma<wgmma_bf16>(b, r);
    case tf32: return run_wgmma<wgmma_tf32>(b, r);
    case fp8: return run_wgmma<wgmma_fp8>(b, r);
    case int8: return run_wgmma<wgmma_int8>(b, r);
    default: return r;
    }
  }
  if (i == int8 && (paths & tcgen05_i8_path) == 0) {
    r.note = "tcgen05 kind::i8 is in sm_100a code only, not in the code this build runs on " +
             pgpu::arch_name(b.dev.prop) + "; the datasheet rate applies";
    return r;
  }
  r.note = "tcgen05.mma cta_group::1 m128n256, A and B from shared memory, D in tensor memory, "
           "dense, 2 m n k per instruction; one issuing thread per block, two blocks per SM";
  switch (i) {
  case fp16: return run_tcgen05<umma_fp16>(b, r);
  case bf16: return run_tcgen05<umma_bf16>(b, r);
  case tf32: return run_tcgen05<umma_tf32>(b, r);
  case fp8: return run_tcgen05<umma_fp8>(b, r);
  case int8: return run_tcgen05<umma_int8>(b, r);
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
