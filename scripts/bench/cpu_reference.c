/* SPDX-License-Identifier: Apache-2.0
 * Hand-written reference measurements for checking `perfgate calibrate --backend cpu`:
 * a STREAM-style triad (a = b + s c, OpenMP, arrays 4x the last-level cache) and an AVX-512
 * FMA loop (16 independent zmm chains per thread), each the best of 10 runs on every core.
 * Deliberately written independently of microbench/cpu/ so the two check each other.
 * Build: gcc -O3 -march=native -fopenmp cpu_reference.c -o cpu_reference
 */
#include <immintrin.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double now(void) { return omp_get_wtime(); }

static double triad_gbs(size_t n) {
  double *a = aligned_alloc(64, n * sizeof(double)), *b = aligned_alloc(64, n * sizeof(double)),
         *c = aligned_alloc(64, n * sizeof(double));
#pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    a[i] = 1.0;
    b[i] = 2.0;
    c[i] = 0.5;
  }
  double best = 0;
  for (int rep = 0; rep < 11; ++rep) {
    const double t0 = now();
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; ++i) {
      a[i] = b[i] + 3.0 * c[i];
    }
    const double t = now() - t0;
    const double gbs = 3.0 * sizeof(double) * (double)n / t / 1e9;
    if (rep > 0 && gbs > best) {
      best = gbs;
    }
  }
  volatile double sink = a[n / 2];
  (void)sink;
  free(a);
  free(b);
  free(c);
  return best;
}

static double fma_gflops(long iterations) {
  double best = 0;
  for (int rep = 0; rep < 11; ++rep) {
    double total = 0;
    const double t0 = now();
#pragma omp parallel reduction(+ : total)
    {
      __m512d x[16];
      const __m512d m = _mm512_set1_pd(0.9999999), k = _mm512_set1_pd(1e-7);
      for (int j = 0; j < 16; ++j) {
        x[j] = _mm512_set1_pd((double)j);
      }
      for (long i = 0; i < iterations; ++i) {
        for (int j = 0; j < 16; ++j) {
          x[j] = _mm512_fmadd_pd(x[j], m, k);
        }
      }
      double out[8];
      __m512d s = x[0];
      for (int j = 1; j < 16; ++j) {
        s = _mm512_add_pd(s, x[j]);
      }
      _mm512_storeu_pd(out, s);
      total += out[0] + out[7];
    }
    const double t = now() - t0;
    const double gflops = 16.0 * 8 * 2 * (double)iterations * omp_get_max_threads() / t / 1e9;
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
  printf("{\"threads\": %d, \"triad_gbs\": %.3f, \"fp64_fma_gflops\": %.3f}\n",
         omp_get_max_threads(), triad_gbs(n), fma_gflops(4000000));
  return 0;
}
