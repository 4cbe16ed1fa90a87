/* SPDX-License-Identifier: Apache-2.0
 * Hand-written reference measurements for checking the roofs `perfgate calibrate --backend cpu`
 * gives the gate: the best DRAM bandwidth over a read, a STREAM-style triad (a = b + s c) and
 * the same triad with non-temporal stores, and FP64 and FP32 FMA loops in the widest vectors -march=native
 * allows (AVX-512, AVX2+FMA or SSE2), each the best of 10 runs (the FMA loops: 60) after a warm-up on every OpenMP
 * thread (OMP_NUM_THREADS=1 gives the one-core figures). Arrays are 4x the last-level cache.
 * Deliberately written independently of microbench/cpu/ so the two check each other.
 * Build: gcc -O3 -march=native -fopenmp cpu_reference.c -o cpu_reference
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__AVX512F__)
typedef __m512d vec;
#define LANES 8
#define VSET(x) _mm512_set1_pd(x)
#define VLOAD(p) _mm512_load_pd(p)
#define VADD(a, b) _mm512_add_pd(a, b)
#define VFMA(a, b, c) _mm512_fmadd_pd(a, b, c)
#define VSTREAM(p, v) _mm512_stream_pd(p, v)
#define VSTORE(p, v) _mm512_storeu_pd(p, v)
#define ISA "avx512f"
typedef __m512 vecf;
#define VSETF(x) _mm512_set1_ps(x)
#define VFMAF(a, b, c) _mm512_fmadd_ps(a, b, c)
#define VADDF(a, b) _mm512_add_ps(a, b)
#define VSTOREF(p, v) _mm512_storeu_ps(p, v)
#define CHAINS 16 /* of 32 zmm registers */
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256d vec;
#define LANES 4
#define VSET(x) _mm256_set1_pd(x)
#define VLOAD(p) _mm256_load_pd(p)
#define VADD(a, b) _mm256_add_pd(a, b)
#define VFMA(a, b, c) _mm256_fmadd_pd(a, b, c)
#define VSTREAM(p, v) _mm256_stream_pd(p, v)
#define VSTORE(p, v) _mm256_storeu_pd(p, v)
#define ISA "avx2+fma"
typedef __m256 vecf;
#define VSETF(x) _mm256_set1_ps(x)
#define VFMAF(a, b, c) _mm256_fmadd_ps(a, b, c)
#define VADDF(a, b) _mm256_add_ps(a, b)
#define VSTOREF(p, v) _mm256_storeu_ps(p, v)
#define CHAINS 12 /* of 16 ymm registers: 12 chains + 2 constants, nothing spills */
#else
typedef __m128d vec;
#define LANES 2
#define VSET(x) _mm_set1_pd(x)
#define VLOAD(p) _mm_load_pd(p)
#define VADD(a, b) _mm_add_pd(a, b)
#define VFMA(a, b, c) _mm_add_pd(_mm_mul_pd(a, b), c) /* no FMA: mul + add, counted as 2 flops */
#define VSTREAM(p, v) _mm_stream_pd(p, v)
#define VSTORE(p, v) _mm_storeu_pd(p, v)
#define ISA "sse2"
typedef __m128 vecf;
#define VSETF(x) _mm_set1_ps(x)
#define VFMAF(a, b, c) _mm_add_ps(_mm_mul_ps(a, b), c)
#define VADDF(a, b) _mm_add_ps(a, b)
#define VSTOREF(p, v) _mm_storeu_ps(p, v)
#define CHAINS 12
#endif

/* Short FMA runs (about 3 ms), many of them: on a shared machine all threads of one run must
 * find their cores free at once, and the best run is the peak. */
#define FMA_REPS 61

static double now(void) { return omp_get_wtime(); }

static double hsum(vec v) {
  double out[LANES];
  VSTORE(out, v);
  double s = 0;
  for (int i = 0; i < LANES; ++i) {
    s += out[i];
  }
  return s;
}

/* pattern 0: read (8 vector accumulators), 1: triad, 2: triad with non-temporal stores. */
static double run_pattern(int pattern, double* a, const double* b, const double* c, size_t n) {
  double sink = 0;
  const double t0 = now();
#pragma omp parallel reduction(+ : sink)
  {
    const int nt = omp_get_num_threads(), id = omp_get_thread_num();
    size_t chunk = (n / nt) / (8 * LANES) * (8 * LANES);
    size_t lo = chunk * id, hi = id == nt - 1 ? n / (8 * LANES) * (8 * LANES) : lo + chunk;
    if (pattern == 0) {
      vec s[8];
      for (int j = 0; j < 8; ++j) {
        s[j] = VSET(0.0);
      }
      for (size_t i = lo; i < hi; i += 8 * LANES) {
        for (int j = 0; j < 8; ++j) {
          s[j] = VADD(s[j], VLOAD(b + i + j * LANES));
        }
      }
      for (int j = 1; j < 8; ++j) {
        s[0] = VADD(s[0], s[j]);
      }
      sink += hsum(s[0]);
    } else if (pattern == 1) {
      for (size_t i = lo; i < hi; ++i) {
        a[i] = b[i] + 3.0 * c[i];
      }
    } else {
      const vec k = VSET(3.0);
      for (size_t i = lo; i < hi; i += LANES) {
        VSTREAM(a + i, VFMA(k, VLOAD(c + i), VLOAD(b + i)));
      }
      _mm_sfence();
    }
  }
  const double t = now() - t0;
  volatile double keep = sink;
  (void)keep;
  const double bytes = (pattern == 0 ? 1.0 : 3.0) * sizeof(double) * (double)(n / (8 * LANES) * (8 * LANES));
  return bytes / t / 1e9;
}

static void memory_gbs(size_t n, double best[3]) {
  double *a = aligned_alloc(64, n * sizeof(double)), *b = aligned_alloc(64, n * sizeof(double)),
         *c = aligned_alloc(64, n * sizeof(double));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  for (int p = 0; p < 3; ++p) {
    best[p] = 0;
    for (int rep = 0; rep < 11; ++rep) {
      const double gbs = run_pattern(p, a, b, c, n);
      if (rep > 0 && gbs > best[p]) {
        best[p] = gbs;
      }
    }
  }
  free(a);
  free(b);
  free(c);
}

static double fma_gflops(long iterations) {
  double best = 0;
  for (int rep = 0; rep < FMA_REPS; ++rep) {
    double total = 0;
    const double t0 = now();
#pragma omp parallel reduction(+ : total)
    {
      vec x[CHAINS];
      const vec m = VSET(0.9999999), k = VSET(1e-7);
      for (int j = 0; j < CHAINS; ++j) {
        x[j] = VSET((double)j);
      }
      for (long i = 0; i < iterations; ++i) {
        for (int j = 0; j < CHAINS; ++j) {
          x[j] = VFMA(x[j], m, k);
        }
      }
      for (int j = 1; j < CHAINS; ++j) {
        x[0] = VADD(x[0], x[j]);
      }
      total += hsum(x[0]);
    }
    const double t = now() - t0;
    const double gflops = (double)CHAINS * LANES * 2 * (double)iterations * omp_get_max_threads() / t / 1e9;
    if (rep > 0 && gflops > best) {
      best = gflops;
    }
    volatile double sink = total;
    (void)sink;
  }
  return best;
}

/* The same loop in fp32: twice the lanes of a vector. */
static double fma_gflops_fp32(long iterations) {
  double best = 0;
  for (int rep = 0; rep < FMA_REPS; ++rep) {
    double total = 0;
    const double t0 = now();
#pragma omp parallel reduction(+ : total)
    {
      vecf x[CHAINS];
      const vecf m = VSETF(0.9999999f), k = VSETF(1e-7f);
      for (int j = 0; j < CHAINS; ++j) {
        x[j] = VSETF((float)j);
      }
      for (long i = 0; i < iterations; ++i) {
        for (int j = 0; j < CHAINS; ++j) {
          x[j] = VFMAF(x[j], m, k);
        }
      }
      for (int j = 1; j < CHAINS; ++j) {
        x[0] = VADDF(x[0], x[j]);
      }
      float out[2 * LANES];
      VSTOREF(out, x[0]);
      for (int j = 0; j < 2 * LANES; ++j) {
        total += out[j];
      }
    }
    const double t = now() - t0;
    const double gflops = (double)CHAINS * 2 * LANES * 2 * (double)iterations * omp_get_max_threads() / t / 1e9;
    if (rep > 0 && gflops > best) {
      best = gflops;
    }
    volatile double sink = total;
    (void)sink;
  }
  return best;
}

int main(int argc, char** argv) {
  const size_t llc_bytes = argc > 1 ? strtoull(argv[1], NULL, 10) : (32u << 20);
  size_t n = 4 * llc_bytes / sizeof(double);
  if (n < (64u << 20) / sizeof(double)) {
    n = (64u << 20) / sizeof(double);
  }
  double gbs[3];
  memory_gbs(n, gbs);
  double roof = gbs[0];
  for (int p = 1; p < 3; ++p) {
    roof = gbs[p] > roof ? gbs[p] : roof;
  }
  printf("{\"isa\": \"%s\", \"threads\": %d, \"read_gbs\": %.3f, \"triad_gbs\": %.3f, "
         "\"triad_nt_gbs\": %.3f, \"memory_roof_gbs\": %.3f, \"fp64_fma_gflops\": %.3f, "
         "\"fp32_fma_gflops\": %.3f}\n",
         ISA, omp_get_max_threads(), gbs[0], gbs[1], gbs[2], roof, fma_gflops(1000000),
         fma_gflops_fp32(1000000));
  return 0;
}
