// SPDX-License-Identifier: Apache-2.0
#include "cpu_kernels.hpp"

#include <algorithm>
#include <utility>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace perfgate::microbench {

namespace {
// Per-lane FMA chains a = a*m + c converge to c/(1-m): bounded, no denormals, no overflow.
constexpr double mul_f = 0.999999;
constexpr double add_f = 1e-6;

// The portable kernels (no vector ISA known): lanes x chains scalars the compiler vectorises.
constexpr int generic_chains = 12;
constexpr int generic_lanes32 = 4;

template <class T> double generic_fma(std::uint64_t iterations) {
  constexpr int n = generic_chains * generic_lanes32 * 4 / static_cast<int>(sizeof(T));
  T acc[n];
  for (int i = 0; i < n; ++i) {
    acc[i] = static_cast<T>(i);
  }
  const T m = static_cast<T>(mul_f), c = static_cast<T>(add_f);
  for (std::uint64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i) {
      acc[i] = acc[i] * m + c;
    }
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += static_cast<double>(acc[i]);
  }
  return sum;
}

template <bool Mad> double generic_int(std::uint64_t iterations) {
  constexpr int n = generic_chains * generic_lanes32;
  std::uint32_t acc[n];
  for (int i = 0; i < n; ++i) {
    acc[i] = static_cast<std::uint32_t>(i);
  }
  for (std::uint64_t it = 0; it < iterations; ++it) {
    for (int i = 0; i < n; ++i) {
      acc[i] = Mad ? acc[i] * 3u + 7u : acc[i] + 7u;
    }
  }
  double sum = 0;
  for (int i = 0; i < n; ++i) {
    sum += acc[i];
  }
  return sum;
}

// Counted operations per lane and step: FMA and multiply-add = 2, add = 1.
double ops_per_lane(compute_kind kind) { return kind == compute_kind::int_add ? 1.0 : 2.0; }
// Lanes per vector of `bits` for the kind's element (fp64: 64-bit lanes, the rest 32-bit).
int lanes_of(compute_kind kind, int bits) { return bits / (kind == compute_kind::fp64_fma ? 64 : 32); }

template <class T, std::size_t N> double sum_of(const T (&values)[N]) {
  double sum = 0;
  for (T v : values) {
    sum += static_cast<double>(v);
  }
  return sum;
}

#if defined(__x86_64__)
// One step of each kind in each ISA. The chains are the accumulators of `kernel` below; the
// empty asm keeps each in a register and hides its value, so the compiler can neither spill,
// merge nor fold the steps (an integer add chain would otherwise become one multiply).
#define PG_512 __attribute__((target("avx512f"), always_inline)) inline
#define PG_256 __attribute__((target("avx2,fma"), always_inline)) inline
struct f64_512 {
  using V = __m512d;
  PG_512 static V init(int i) { return _mm512_set1_pd(i); }
  PG_512 static V step(V a) { return _mm512_fmadd_pd(a, _mm512_set1_pd(mul_f), _mm512_set1_pd(add_f)); }
  PG_512 static double total(V v) {
    alignas(64) double o[8];
    _mm512_store_pd(o, v);
    return sum_of(o);
  }
};
struct f32_512 {
  using V = __m512;
  PG_512 static V init(int i) { return _mm512_set1_ps(static_cast<float>(i)); }
  PG_512 static V step(V a) {
    return _mm512_fmadd_ps(a, _mm512_set1_ps(static_cast<float>(mul_f)),
                           _mm512_set1_ps(static_cast<float>(add_f)));
  }
  PG_512 static double total(V v) {
    alignas(64) float o[16];
    _mm512_store_ps(o, v);
    return sum_of(o);
  }
};
template <bool Mad> struct i32_512 {
  using V = __m512i;
  PG_512 static V init(int i) { return _mm512_set1_epi32(i); }
  PG_512 static V step(V a) {
    const V c = _mm512_set1_epi32(7);
    return Mad ? _mm512_add_epi32(_mm512_mullo_epi32(a, _mm512_set1_epi32(3)), c)
               : _mm512_add_epi32(a, c);
  }
  PG_512 static double total(V v) {
    alignas(64) std::uint32_t o[16];
    _mm512_store_si512(o, v);
    return sum_of(o);
  }
};
struct f64_256 {
  using V = __m256d;
  PG_256 static V init(int i) { return _mm256_set1_pd(i); }
  PG_256 static V step(V a) { return _mm256_fmadd_pd(a, _mm256_set1_pd(mul_f), _mm256_set1_pd(add_f)); }
  PG_256 static double total(V v) {
    alignas(32) double o[4];
    _mm256_store_pd(o, v);
    return sum_of(o);
  }
};
struct f32_256 {
  using V = __m256;
  PG_256 static V init(int i) { return _mm256_set1_ps(static_cast<float>(i)); }
  PG_256 static V step(V a) {
    return _mm256_fmadd_ps(a, _mm256_set1_ps(static_cast<float>(mul_f)),
                           _mm256_set1_ps(static_cast<float>(add_f)));
  }
  PG_256 static double total(V v) {
    alignas(32) float o[8];
    _mm256_store_ps(o, v);
    return sum_of(o);
  }
};
template <bool Mad> struct i32_256 {
  using V = __m256i;
  PG_256 static V init(int i) { return _mm256_set1_epi32(i); }
  PG_256 static V step(V a) {
    const V c = _mm256_set1_epi32(7);
    return Mad ? _mm256_add_epi32(_mm256_mullo_epi32(a, _mm256_set1_epi32(3)), c)
               : _mm256_add_epi32(a, c);
  }
  PG_256 static double total(V v) {
    alignas(32) std::uint32_t o[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(o), v);
    return sum_of(o);
  }
};

// C independent chains of K's step, fully unrolled so every accumulator is its own register.
#define PG_KERNEL_BODY                                                                             \
  typename K::V a[C];                                                                              \
  _Pragma("GCC unroll 32") for (int j = 0; j < C; ++j) { a[j] = K::init(j); }                      \
  for (std::uint64_t it = 0; it < iterations; ++it) {                                              \
    _Pragma("GCC unroll 32") for (int j = 0; j < C; ++j) {                                         \
      a[j] = K::step(a[j]);                                                                        \
      asm("" : "+v"(a[j]));                                                                        \
    }                                                                                              \
  }                                                                                                \
  double s = 0;                                                                                    \
  _Pragma("GCC unroll 32") for (int j = 0; j < C; ++j) { s += K::total(a[j]); }                    \
  return s;
template <class K, int C>
__attribute__((target("avx512f"))) double kernel512(std::uint64_t iterations) {
  PG_KERNEL_BODY
}
template <class K, int C>
__attribute__((target("avx2,fma"))) double kernel256(std::uint64_t iterations) {
  PG_KERNEL_BODY
}
#undef PG_KERNEL_BODY
#undef PG_512
#undef PG_256

// Chain counts tried: enough to cover latency x pipes on any core (Zen 5: 4-cycle FMA x 2
// full-width pipes = 8; an integer multiply of 10 cycles wants more), and no more than the
// registers hold beside the constants (32 zmm, 16 ymm).
template <class K, int... C>
void add512(std::vector<compute_variant>& out, compute_kind kind, std::integer_sequence<int, C...>) {
  (out.push_back({"avx512f", 512, C, ops_per_lane(kind) * lanes_of(kind, 512) * C, &kernel512<K, C>}),
   ...);
}
template <class K, int... C>
void add256(std::vector<compute_variant>& out, compute_kind kind, std::integer_sequence<int, C...>) {
  (out.push_back({"avx2+fma", 256, C, ops_per_lane(kind) * lanes_of(kind, 256) * C, &kernel256<K, C>}),
   ...);
}
using chains512 = std::integer_sequence<int, 4, 6, 8, 10, 12, 16, 20, 24, 28>;
using chains256 = std::integer_sequence<int, 4, 6, 8, 10, 12, 14>;

bool have_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f");
}
bool have_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
bool have_avx512() { return false; }
bool have_avx2() { return false; }
#endif

compute_variant generic_variant(compute_kind kind) {
  const int lanes = lanes_of(kind, 32 * generic_lanes32);
  const double ops = ops_per_lane(kind) * lanes * generic_chains;
  switch (kind) {
  case compute_kind::fp32_fma: return {"generic", 128, generic_chains, ops, &generic_fma<float>};
  case compute_kind::fp64_fma: return {"generic", 128, generic_chains, ops, &generic_fma<double>};
  case compute_kind::int_add: return {"generic", 128, generic_chains, ops, &generic_int<false>};
  case compute_kind::int_mad: return {"generic", 128, generic_chains, ops, &generic_int<true>};
  }
  return {};
}
} // namespace

std::string compute_isa() {
  return have_avx512() ? "avx512f" : have_avx2() ? "avx2+fma" : "generic";
}

std::vector<compute_variant> compute_variants(compute_kind kind) {
  std::vector<compute_variant> out;
#if defined(__x86_64__)
  if (have_avx512()) {
    switch (kind) {
    case compute_kind::fp32_fma: add512<f32_512>(out, kind, chains512{}); break;
    case compute_kind::fp64_fma: add512<f64_512>(out, kind, chains512{}); break;
    case compute_kind::int_add: add512<i32_512<false>>(out, kind, chains512{}); break;
    case compute_kind::int_mad: add512<i32_512<true>>(out, kind, chains512{}); break;
    }
  }
  if (have_avx2()) {
    switch (kind) {
    case compute_kind::fp32_fma: add256<f32_256>(out, kind, chains256{}); break;
    case compute_kind::fp64_fma: add256<f64_256>(out, kind, chains256{}); break;
    case compute_kind::int_add: add256<i32_256<false>>(out, kind, chains256{}); break;
    case compute_kind::int_mad: add256<i32_256<true>>(out, kind, chains256{}); break;
    }
  }
#endif
  if (out.empty()) {
    out.push_back(generic_variant(kind));
  }
  return out;
}

double dependent_adds(std::uint64_t iterations) {
#if defined(__x86_64__)
  // 16 adds per iteration, each waiting for the one before: one per cycle on every x86-64 core
  // (the loop's own counter and branch run beside them on other ports).
  std::uint64_t x = 0;
  for (std::uint64_t i = 0; i < iterations; ++i) {
    asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
                 "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0"
                 : "+r"(x));
  }
  return static_cast<double>(x);
#else
  (void)iterations;
  return 0;
#endif
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
