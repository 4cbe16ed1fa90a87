// SPDX-License-Identifier: Apache-2.0
// Red/black SOR (fp64), the thesis's case study: Laplace's equation on an 8192 x 8192 grid,
// red and black half-sweeps as the kernels kernel_red / kernel_black, 8 iterations. Each
// updated point costs 7 flops (3 DADD, 2 DFMA) for 24 bytes of DRAM traffic (its own value read
// and written, the other colour's values read once from DRAM, then from cache): O_krn ~0.3
// flop/B. In the thesis it sat near the ridge point (compute-bound on the GTX-660, memory-bound
// on the GTX-480: O_dev 0.25 to 0.6); every current GPU in perfgate's database, even at 1/64
// fp64 rate, runs it memory-bound (H100: O_dev ~0.7 with the instruction mix of this kernel's
// SASS): gated with EXPECT_BOUND memory.
// Built with nvcc as example_rbsor and, through rbsor_hip.hip, as HIP (example_hip_rbsor).
//
// Layout (as in the thesis): the colours live in separate arrays, each n rows of n/2 values.
// Point (i, c) of the full grid is red where i + c is even; it is element (i, c / 2) of its
// colour's array. So a red update reads black (i-1, j), (i+1, j), (i, j-1+s), (i, j+s) with
// s = i & 1 (for black, s = (i + 1) & 1): every access is coalesced.
#include "example_compat.hpp"

#include <cmath>
#include <cstdio>
#include <vector>

namespace {

constexpr int kN = 8192;         // grid points per side, boundary included
constexpr int kHalf = kN / 2;    // values per row of one colour
constexpr int kIterations = 8;   // red + black half-sweeps
constexpr double kOmega = 1.5;   // over-relaxation factor
static_assert(kN % 2 == 0 && static_cast<long long>(kN) * kHalf < (1LL << 31),
              "int indexing of one colour array");

// The initial grid (boundary included), the same on the device and on the host: a fixed
// pattern in [0, 1), with the top edge held at 1.
__host__ __device__ inline double initialValue(int i, int c) {
  if (i == 0)
    return 1.0;
  return static_cast<double>((i * 7919 + c * 104729) % 1000) * 1e-3;
}

// One point of a half-sweep of colour `colour` (0 red, 1 black): `out` is that colour's array,
// `other` the other colour's. Boundary points are never written.
__host__ __device__ inline double sorPoint(double old, double up, double down, double left,
                                           double right, double omega) {
  return old + omega * (0.25 * (up + down + left + right) - old);
}

__device__ inline void halfSweep(double* __restrict__ out, const double* __restrict__ other,
                                 int n, int colour, double omega) {
  const int half = n / 2;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  const int s = (i + colour) & 1;
  const int c = 2 * j + s; // column in the full grid
  if (i < 1 || i > n - 2 || c < 1 || c > n - 2)
    return;
  const int k = i * half + j;
  out[k] = sorPoint(out[k], other[k - half], other[k + half], other[k - 1 + s], other[k + s],
                    omega);
}

} // namespace

__global__ void kernel_red(double* red, const double* black, int n, double omega) {
  halfSweep(red, black, n, 0, omega);
}

__global__ void kernel_black(double* black, const double* red, int n, double omega) {
  halfSweep(black, red, n, 1, omega);
}

__global__ void fill_grid(double* red, double* black, int n) {
  const int half = n / 2;
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = blockIdx.y * blockDim.y + threadIdx.y;
  if (i < n && j < half) {
    red[i * half + j] = initialValue(i, 2 * j + (i & 1));
    black[i * half + j] = initialValue(i, 2 * j + ((i + 1) & 1));
  }
}

int main() {
  const char* program = EX_PROGRAM("rbsor");
  if (const int skip = ex::requireGpu(program))
    return skip;

  const std::size_t count = static_cast<std::size_t>(kN) * kHalf;
  double* red = nullptr;
  double* black = nullptr;
  EX_CHECK(ex::deviceMalloc(&red, count));
  EX_CHECK(ex::deviceMalloc(&black, count));
  const dim3 block(128, 2);
  const dim3 grid((kHalf + block.x - 1) / block.x, (kN + block.y - 1) / block.y);
  fill_grid<<<grid, block>>>(red, black, kN);
  EX_CHECK_LAUNCH();
  const auto sweep = [&] {
    kernel_red<<<grid, block>>>(red, black, kN, kOmega);
    EX_CHECK_LAUNCH();
    kernel_black<<<grid, block>>>(black, red, kN, kOmega);
    EX_CHECK_LAUNCH();
  };
  for (int it = 0; it + 1 < kIterations; ++it)
    sweep();

  // Verification of the last iteration on sampled rows r: rows r-1..r+1 of both colours are
  // copied before and after it, and the host recomputes row r of both colours from them.
  struct Window {
    std::vector<double> red, black; // rows r-1, r, r+1 of each colour
  };
  const int rows[] = {1, 2, 3, kN / 3, kN / 2, kN / 2 + 1, kN - 3, kN - 2};
  constexpr int kRows = sizeof rows / sizeof rows[0];
  const auto copyWindow = [&](int r) {
    const std::size_t first = static_cast<std::size_t>(r - 1) * kHalf;
    const std::size_t n = 3 * static_cast<std::size_t>(kHalf);
    Window w{std::vector<double>(n), std::vector<double>(n)};
    EX_CHECK(ex::copyToHost(w.red.data(), red + first, n * sizeof(double)));
    EX_CHECK(ex::copyToHost(w.black.data(), black + first, n * sizeof(double)));
    return w;
  };
  std::vector<Window> before, after;
  for (const int r : rows)
    before.push_back(copyWindow(r)); // (a blocking copy: waits for the sweeps above)
  sweep();
  for (const int r : rows)
    after.push_back(copyWindow(r));

  int bad = 0;
  double sample_sum = 0.0;
  for (int q = 0; q < kRows; ++q) {
    const int r = rows[q];
    for (int colour = 0; colour < 2; ++colour) {
      // Red reads the old black; black then reads the new red.
      const std::vector<double>& own0 = colour == 0 ? before[q].red : before[q].black;
      const std::vector<double>& own1 = colour == 0 ? after[q].red : after[q].black;
      const std::vector<double>& other = colour == 0 ? before[q].black : after[q].red;
      const int s = (r + colour) & 1;
      for (int j = 0; j < kHalf; ++j) {
        const int c = 2 * j + s; // column in the full grid
        const int k = kHalf + j; // row r within the window
        double want = own0[k];   // boundary points keep their value
        if (c >= 1 && c <= kN - 2)
          want = sorPoint(own0[k], other[k - kHalf], other[k + kHalf], other[k - 1 + s],
                          other[k + s], kOmega);
        const double got = own1[k];
        sample_sum += got;
        // FMA contraction may differ between device and host: allow a few ulp.
        if (!(std::fabs(got - want) <= 1e-14 * (std::fabs(want) + 1.0)) && ++bad <= 5)
          std::fprintf(stderr, "%s: %s (%d, %d) = %.17g, expected %.17g\n", program,
                       colour == 0 ? "red" : "black", r, c, got, want);
      }
    }
  }
  EX_CHECK(ex::deviceFree(red));
  EX_CHECK(ex::deviceFree(black));
  if (bad) {
    std::fprintf(stderr, "%s: wrong result: %d sampled points differ\n", program, bad);
    return 1;
  }
  std::printf("%s: ok: %d red/black SOR iterations on a %d x %d grid (sample sum %.6f)\n",
              program, kIterations, kN, kN, sample_sum);
  return 0;
}
