// SPDX-License-Identifier: Apache-2.0
#include "cpu_kernels.hpp"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace perfgate::microbench {

// Independent accumulator chains per kernel: FMA latency (4-5 cycles) x 2 pipes needs at least
// 10 in flight; 12 leaves room and still fits AVX2's 16 registers with the two constants.
constexpr int chains = 12;

namespace {
// Per-lane FMA chains a = a*m + c converge to c/(1-m): bounded, no denormals, no overflow.
constexpr double mul_f = 0.999999;
constexpr double add_f = 1e-6;

template <class T> double generic_fma(std::uint64_t iterations, int lanes) {
  T acc[chains * 8];
  for (int i = 0; i < chains * lanes; ++i) {
    acc[i] = static_cast<T>(i);
  }
  const T m = static_cast<T>(mul_f), c = static_cast<T>(add_f);
  for (std::uint64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < chains * lanes; ++i) {
      acc[i] = acc[i] * m + c;
    }
  }
  double sum = 0;
  for (int i = 0; i < chains * lanes; ++i) {
    sum += static_cast<double>(acc[i]);
  }
  return sum;
}

double generic_int(std::uint64_t iterations, bool mad) {
  std::uint32_t acc[chains * 4];
  for (int i = 0; i < chains * 4; ++i) {
    acc[i] = static_cast<std::uint32_t>(i);
  }
  for (std::uint64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < chains * 4; ++i) {
      acc[i] = mad ? acc[i] * 3u + 7u : acc[i] + 7u;
    }
  }
  double sum = 0;
  for (int i = 0; i < chains * 4; ++i) {
    sum += acc[i];
  }
  return sum;
}

template <class T, std::size_t N> double sum_of(const T (&values)[N]) {
  double sum = 0;
  for (T v : values) {
    sum += static_cast<double>(v);
  }
  return sum;
}

#if defined(__x86_64__)
// The chains are written out so every accumulator stays in a register.
#define PERFGATE_CHAINS(OP)                                                                        \
  OP(0) OP(1) OP(2) OP(3) OP(4) OP(5) OP(6) OP(7) OP(8) OP(9) OP(10) OP(11)

__attribute__((target("avx512f"))) double fp64_fma_avx512(std::uint64_t iterations) {
  const __m512d m = _mm512_set1_pd(mul_f), c = _mm512_set1_pd(add_f);
#define INIT(i) __m512d a##i = _mm512_set1_pd(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm512_fmadd_pd(a##i, m, c);
    PERFGATE_CHAINS(STEP)
#undef STEP
  }
  __m512d s = _mm512_setzero_pd();
#define SUM(i) s = _mm512_add_pd(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(64) double out[8];
  _mm512_store_pd(out, s);
  return sum_of(out);
}

__attribute__((target("avx512f"))) double fp32_fma_avx512(std::uint64_t iterations) {
  const __m512 m = _mm512_set1_ps(static_cast<float>(mul_f)),
               c = _mm512_set1_ps(static_cast<float>(add_f));
#define INIT(i) __m512 a##i = _mm512_set1_ps(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm512_fmadd_ps(a##i, m, c);
    PERFGATE_CHAINS(STEP)
#undef STEP
  }
  __m512 s = _mm512_setzero_ps();
#define SUM(i) s = _mm512_add_ps(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(64) float out[16];
  _mm512_store_ps(out, s);
  return sum_of(out);
}

__attribute__((target("avx512f"))) double int_avx512(std::uint64_t iterations, bool mad) {
  const __m512i m = _mm512_set1_epi32(3), c = _mm512_set1_epi32(7);
#define INIT(i) __m512i a##i = _mm512_set1_epi32(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  if (mad) {
    for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm512_add_epi32(_mm512_mullo_epi32(a##i, m), c);
      PERFGATE_CHAINS(STEP)
#undef STEP
    }
  } else {
    for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm512_add_epi32(a##i, c);
      PERFGATE_CHAINS(STEP)
#undef STEP
    }
  }
  __m512i s = _mm512_setzero_si512();
#define SUM(i) s = _mm512_add_epi32(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(64) std::uint32_t out[16];
  _mm512_store_si512(out, s);
  return sum_of(out);
}

__attribute__((target("avx2,fma"))) double fp64_fma_avx2(std::uint64_t iterations) {
  const __m256d m = _mm256_set1_pd(mul_f), c = _mm256_set1_pd(add_f);
#define INIT(i) __m256d a##i = _mm256_set1_pd(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm256_fmadd_pd(a##i, m, c);
    PERFGATE_CHAINS(STEP)
#undef STEP
  }
  __m256d s = _mm256_setzero_pd();
#define SUM(i) s = _mm256_add_pd(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(32) double out[4];
  _mm256_store_pd(out, s);
  return sum_of(out);
}

__attribute__((target("avx2,fma"))) double fp32_fma_avx2(std::uint64_t iterations) {
  const __m256 m = _mm256_set1_ps(static_cast<float>(mul_f)),
               c = _mm256_set1_ps(static_cast<float>(add_f));
#define INIT(i) __m256 a##i = _mm256_set1_ps(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm256_fmadd_ps(a##i, m, c);
    PERFGATE_CHAINS(STEP)
#undef STEP
  }
  __m256 s = _mm256_setzero_ps();
#define SUM(i) s = _mm256_add_ps(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(32) float out[8];
  _mm256_store_ps(out, s);
  return sum_of(out);
}

__attribute__((target("avx2"))) double int_avx2(std::uint64_t iterations, bool mad) {
  const __m256i m = _mm256_set1_epi32(3), c = _mm256_set1_epi32(7);
#define INIT(i) __m256i a##i = _mm256_set1_epi32(i);
  PERFGATE_CHAINS(INIT)
#undef INIT
  if (mad) {
    for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm256_add_epi32(_mm256_mullo_epi32(a##i, m), c);
      PERFGATE_CHAINS(STEP)
#undef STEP
    }
  } else {
    for (std::uint64_t it = 0; it < iterations; ++it) {
#define STEP(i) a##i = _mm256_add_epi32(a##i, c);
      PERFGATE_CHAINS(STEP)
#undef STEP
    }
  }
  __m256i s = _mm256_setzero_si256();
#define SUM(i) s = _mm256_add_epi32(s, a##i);
  PERFGATE_CHAINS(SUM)
#undef SUM
  alignas(32) std::uint32_t out[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(out), s);
  return sum_of(out);
}
#undef PERFGATE_CHAINS

enum class isa { avx512, avx2, generic };
isa detect() {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    return isa::avx512;
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return isa::avx2;
  }
  return isa::generic;
}
#else
enum class isa { generic };
isa detect() { return isa::generic; }
#endif

const isa chosen = detect();

// 32-bit lanes per vector register of the chosen ISA.
int lanes32() {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return 16;
  case isa::avx2: return 8;
#endif
  default: return 4;
  }
}
} // namespace

std::string compute_isa() {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return "avx512f";
  case isa::avx2: return "avx2+fma";
#endif
  default: return "generic";
  }
}

double fp32_fma_ops(std::uint64_t iterations) {
  return 2.0 * chains * lanes32() * static_cast<double>(iterations);
}
double fp64_fma_ops(std::uint64_t iterations) {
  return 2.0 * chains * (lanes32() / 2) * static_cast<double>(iterations);
}
double int_add_ops(std::uint64_t iterations) {
  return 1.0 * chains * (chosen == isa::generic ? 4 : lanes32()) * static_cast<double>(iterations);
}
double int_mad_ops(std::uint64_t iterations) { return 2.0 * int_add_ops(iterations); }

double fp32_fma(std::uint64_t iterations) {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return fp32_fma_avx512(iterations);
  case isa::avx2: return fp32_fma_avx2(iterations);
#endif
  default: return generic_fma<float>(iterations, lanes32());
  }
}

double fp64_fma(std::uint64_t iterations) {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return fp64_fma_avx512(iterations);
  case isa::avx2: return fp64_fma_avx2(iterations);
#endif
  default: return generic_fma<double>(iterations, lanes32() / 2);
  }
}

double int_add(std::uint64_t iterations) {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return int_avx512(iterations, false);
  case isa::avx2: return int_avx2(iterations, false);
#endif
  default: return generic_int(iterations, false);
  }
}

double int_mad(std::uint64_t iterations) {
  switch (chosen) {
#if defined(__x86_64__)
  case isa::avx512: return int_avx512(iterations, true);
  case isa::avx2: return int_avx2(iterations, true);
#endif
  default: return generic_int(iterations, true);
  }
}

// The memory kernels are compiled for each ISA and picked at load time (GCC function
// multi-versioning), so one binary streams with the widest loads the CPU has.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PERFGATE_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PERFGATE_CLONES
#endif

PERFGATE_CLONES double l1_load_store(float* __restrict a, float* __restrict b, float* __restrict c,
                                     std::size_t elements, std::uint64_t passes) {
  for (std::uint64_t p = 0; p < passes; ++p) {
    for (std::size_t i = 0; i < elements; ++i) {
      c[i] = a[i] + b[i];
    }
    // Make each pass depend on the previous one so passes are not merged.
    a[p % elements] = c[(p * 7) % elements];
  }
  return 3.0 * static_cast<double>(elements) * static_cast<double>(passes);
}

PERFGATE_CLONES double stream_read(const double* a, std::size_t n) {
  // Four interleaved streams with independent SIMD sums: one core keeps more cache-line misses
  // in flight (and the prefetchers on four pages) than with one sequential stream, which
  // otherwise caps a single core well below what a tuned kernel reads.
  const std::size_t q = n / 4;
  const double *a0 = a, *a1 = a + q, *a2 = a + 2 * q, *a3 = a + 3 * q;
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
#pragma omp simd reduction(+ : s0, s1, s2, s3)
  for (std::size_t i = 0; i < q; ++i) {
    s0 += a0[i];
    s1 += a1[i];
    s2 += a2[i];
    s3 += a3[i];
  }
  for (std::size_t i = 4 * q; i < n; ++i) {
    s0 += a[i];
  }
  return s0 + s1 + s2 + s3;
}

PERFGATE_CLONES void stream_write(double* a, std::size_t n, double value) {
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = value;
  }
}

PERFGATE_CLONES void stream_copy(double* __restrict c, const double* __restrict a, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    c[i] = a[i];
  }
}

PERFGATE_CLONES void stream_triad(double* __restrict a, const double* __restrict b,
                                  const double* __restrict c, double scalar, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = b[i] + scalar * c[i];
  }
}

void fill_permutation(std::uint32_t* idx, std::size_t n, std::size_t first, unsigned bits,
                      std::uint32_t seed) {
  for (std::size_t i = 0; i < n; ++i) {
    idx[i] = permuted_index(first + i, bits, seed);
  }
}

// The compiler may vectorise these (AVX2 vpgatherdd, AVX-512 vpgatherdd / vpscatterdd); the
// random cache-line misses, not the instructions, set their speed.
PERFGATE_CLONES void gather(std::uint32_t* __restrict out, const std::uint32_t* __restrict in,
                            const std::uint32_t* __restrict idx, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = in[idx[i]];
  }
}

PERFGATE_CLONES void scatter(std::uint32_t* __restrict out, const std::uint32_t* __restrict in,
                             const std::uint32_t* __restrict idx, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[idx[i]] = in[i];
  }
}

#if defined(__x86_64__)
bool have_nontemporal_stores() { return true; }

// SSE2 streaming stores (every x86-64 has them): 16-byte non-temporal stores fill whole lines in
// the write-combining buffers, as fast as wider ones for DRAM-bound loops.
void stream_write_nt(double* a, std::size_t n, double value) {
  const __m128d v = _mm_set1_pd(value);
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    _mm_stream_pd(a + i, v);
  }
  for (; i < n; ++i) {
    a[i] = value;
  }
  _mm_sfence();
}

void stream_copy_nt(double* __restrict c, const double* __restrict a, std::size_t n) {
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    _mm_stream_pd(c + i, _mm_load_pd(a + i));
  }
  for (; i < n; ++i) {
    c[i] = a[i];
  }
  _mm_sfence();
}

void stream_triad_nt(double* __restrict a, const double* __restrict b, const double* __restrict c,
                     double scalar, std::size_t n) {
  const __m128d s = _mm_set1_pd(scalar);
  std::size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    _mm_stream_pd(a + i, _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(s, _mm_load_pd(c + i))));
  }
  for (; i < n; ++i) {
    a[i] = b[i] + scalar * c[i];
  }
  _mm_sfence();
}
#else
bool have_nontemporal_stores() { return false; }
void stream_write_nt(double* a, std::size_t n, double value) { stream_write(a, n, value); }
void stream_copy_nt(double* c, const double* a, std::size_t n) { stream_copy(c, a, n); }
void stream_triad_nt(double* a, const double* b, const double* c, double scalar, std::size_t n) {
  stream_triad(a, b, c, scalar, n);
}
#endif

} // namespace perfgate::microbench
