// SPDX-License-Identifier: Apache-2.0
// The innermost loops of the CPU micro-benchmarks. Each returns a value derived from all its
// accumulators so the compiler cannot drop the work; each reports how much work it did.
#pragma once

#include "../permuted_index.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace perfgate::microbench {

/// The widest vector ISA this CPU has for the compute kernels: "avx512f", "avx2+fma" or
/// "generic".
[[nodiscard]] std::string compute_isa();

enum class compute_kind { fp32_fma, fp64_fma, int_add, int_mad };

/// One way to run a compute micro-benchmark: a vector width and a number of independent
/// accumulator chains. Which is fastest depends on the core (latency x pipes, the width its
/// pipes really have), so calibration tries them all and keeps the best.
struct compute_variant {
  std::string isa;                             ///< "avx512f", "avx2+fma", "generic"
  int vector_bits = 0;                         ///< 512, 256, 128
  int chains = 0;                              ///< independent accumulators
  double ops_per_iteration = 0;                ///< counted ops per call and iteration
  double (*run)(std::uint64_t iterations) = nullptr; ///< returns a value of every accumulator
  /// Vector operations of one lane-width per iteration (chains; a multiply-add is 2).
  [[nodiscard]] double vector_ops_per_iteration(compute_kind kind) const {
    return kind == compute_kind::int_mad ? 2.0 * chains : chains;
  }
};

/// Every variant this CPU can run for `kind`: each vector ISA it has x the chain counts tried.
[[nodiscard]] std::vector<compute_variant> compute_variants(compute_kind kind);

/// Runs `iterations` x 16 dependent integer adds and returns how many it did: one a clock cycle
/// on every x86-64 core, so adds / seconds is the core's clock. 0 where not measurable.
double dependent_adds(std::uint64_t iterations);

/// Loads and stores from L1: per pass over `bytes` of each of three 32-bit arrays, two loads and
/// one store per element. Returns the 32-bit lanes moved.
double l1_load_store(float* a, float* b, float* c, std::size_t elements, std::uint64_t passes);

// DRAM kernels over [begin, end) of their arrays (STREAM conventions: bytes read plus bytes
// written, no write-allocate traffic counted).
double stream_read(const double* a, std::size_t n);
void stream_write(double* a, std::size_t n, double value);
void stream_copy(double* c, const double* a, std::size_t n);
void stream_triad(double* a, const double* b, const double* c, double scalar, std::size_t n);

// Random 4-byte gather and scatter (the boat hull model's P_uncoalesced). The index array is a
// pseudo-random permutation of [0, 2^bits): a seeded bijective hash of the position (multiply
// by odd constants and xor-shifts, each invertible modulo 2^bits), so it is made in one
// sequential pass, in parallel, instead of a Fisher-Yates shuffle's random swaps (seconds over
// hundreds of MiB).

/// idx[i] = permuted_index(first + i, bits, seed) for i < n.
void fill_permutation(std::uint32_t* idx, std::size_t n, std::size_t first, unsigned bits,
                      std::uint32_t seed);
/// out[i] = in[idx[i]] for i < n: one random 4-byte load per element.
void gather(std::uint32_t* out, const std::uint32_t* in, const std::uint32_t* idx, std::size_t n);
/// out[idx[i]] = in[i] for i < n: one random 4-byte store per element.
void scatter(std::uint32_t* out, const std::uint32_t* in, const std::uint32_t* idx, std::size_t n);

/// Whether this build has non-temporal (streaming) store kernels: x86-64 (SSE2 is baseline).
[[nodiscard]] bool have_nontemporal_stores();
// The same write, copy and triad with non-temporal stores, which bypass the caches and skip the
// write-allocate read: the fastest way a kernel can write DRAM, so the memory roof includes
// them. Only where have_nontemporal_stores(); [begin, end) must be 16-byte aligned.
void stream_write_nt(double* a, std::size_t n, double value);
void stream_copy_nt(double* c, const double* a, std::size_t n);
void stream_triad_nt(double* a, const double* b, const double* c, double scalar, std::size_t n);

} // namespace perfgate::microbench
