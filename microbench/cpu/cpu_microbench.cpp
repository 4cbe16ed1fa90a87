// SPDX-License-Identifier: Apache-2.0
#include "cpu_microbench.hpp"

#include "cpu_kernels.hpp"
#include "cpu_topology.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <numeric>
#include <optional>
#include <stdexcept>

namespace perfgate::microbench {

namespace {

struct plan {
  double target_s;           ///< length of one timed repetition
  std::uint64_t repetitions; ///< timed, after one warm-up
};

struct free_deleter {
  void operator()(void* p) const { std::free(p); }
};
template <class T> using buffer = std::unique_ptr<T[], free_deleter>;

template <class T> buffer<T> allocate(std::size_t n) {
  const std::size_t bytes = (n * sizeof(T) + 63) / 64 * 64;
  auto* p = static_cast<T*>(std::aligned_alloc(64, bytes));
  if (p == nullptr) {
    throw std::bad_alloc();
  }
  return buffer<T>(p);
}

microbench_result summarize(std::string key, std::string scope, std::size_t threads,
                            std::vector<double> rates, std::string note) {
  std::sort(rates.begin(), rates.end());
  microbench_result r;
  r.key = std::move(key);
  r.scope = std::move(scope);
  r.threads = threads;
  r.repetitions = rates.size();
  r.min = rates.front();
  r.max = rates.back();
  r.best = r.max;
  const auto n = rates.size();
  r.median = n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
  r.note = std::move(note);
  return r;
}

// Rates of timed repetitions after one warm-up. A peak is the best rate, and on a shared
// machine the best shows up late: repeat beyond the planned count until the last few
// repetitions no longer raise it by 1% (at most 4x the planned count).
std::vector<double> settled_rates(const plan& p, const std::function<double()>& one_rate) {
  (void)one_rate(); // the warm-up
  const std::uint64_t settle = std::max<std::uint64_t>(2, p.repetitions / 2);
  std::vector<double> rates;
  double best = 0;
  std::uint64_t since_best = 0;
  for (std::uint64_t rep = 1; rep <= 4 * p.repetitions; ++rep) {
    const double rate = one_rate();
    rates.push_back(rate);
    since_best = rate > best * 1.01 ? 0 : since_best + 1;
    best = std::max(best, rate);
    if (rep >= p.repetitions && since_best >= settle) {
      break;
    }
  }
  return rates;
}

// Iterations of `run` that take about `seconds` of the first of `cpus` (its CPU time: a busy
// machine's waits do not shrink the runs).
std::uint64_t iterations_for(const std::vector<int>& cpus, double (*run)(std::uint64_t),
                             double seconds) {
  std::uint64_t iterations = 1 << 10;
  for (;;) {
    const double t = run_pinned_times({cpus.front()}, [&](std::size_t) {
                       volatile double sink = run(iterations);
                       (void)sink;
                     }).cpu_s.front();
    if (t > seconds / 8 || iterations > (1ULL << 40)) {
      return std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(static_cast<double>(iterations) * seconds / t));
    }
    iterations *= 4;
  }
}

// Counted operations per second (1e9) of `v` on every one of `cpus` at once: each core's ops over
// the CPU time its thread held the core, summed. A core's pipes are its own, so its rate is the
// same whether a neighbour's task took the core away between slices or not (issue 51: wall
// times on a busy 2-core VM read 0.4-0.5 of the true all-core rate, and refusals followed).
double variant_rate(const compute_variant& v, const std::vector<int>& cpus,
                    std::uint64_t iterations) {
  const pinned_times t = run_pinned_times(cpus, [&](std::size_t) {
    volatile double sink = v.run(iterations);
    (void)sink;
  });
  double rate = 0;
  for (const double cpu_s : t.cpu_s) {
    rate += v.ops_per_iteration * static_cast<double>(iterations) / cpu_s / 1e9;
  }
  return rate;
}

// The fastest variant of a kind on one core: short runs of every variant in turn, a few rounds
// (a neighbour's burst then slows one round of all, not every run of one), each one's best
// kept. The right chain count and width differ by core (Zen 4 splits a 512-bit FMA in two, Zen 5
// has two full-width pipes; an integer multiply's latency is 3 cycles on one core, 10 on another).
compute_variant fastest_variant(compute_kind kind, int cpu, double trial_s) {
  const std::vector<compute_variant> variants = compute_variants(kind);
  std::vector<std::uint64_t> iterations;
  for (const auto& v : variants) {
    iterations.push_back(iterations_for({cpu}, v.run, trial_s));
  }
  std::vector<double> best(variants.size(), 0);
  for (int round = 0; round < 4; ++round) {
    for (std::size_t i = 0; i < variants.size(); ++i) {
      best[i] = std::max(best[i], variant_rate(variants[i], {cpu}, iterations[i]));
    }
  }
  return variants[static_cast<std::size_t>(std::max_element(best.begin(), best.end()) -
                                           best.begin())];
}

// The core clock (MHz) of `cpu`: the best of many short runs of dependent adds (one a cycle),
// each over the CPU time its thread held the core. With wall times a neighbour's time slice in
// a run read as a slower clock (a 2-core VM under other builds: 2037 MHz from five 20 ms runs,
// 3540 from undisturbed ones); the CPU time leaves those slices out. Empty where it cannot be
// measured (not x86-64).
std::optional<double> measured_clock_mhz(int cpu, double seconds, int runs) {
  if (dependent_adds(1) == 0) {
    return std::nullopt;
  }
  const std::uint64_t iterations = iterations_for({cpu}, dependent_adds, seconds);
  double best = 0;
  for (int rep = 0; rep < runs; ++rep) {
    double adds = 0;
    const double t = run_pinned_times({cpu}, [&](std::size_t) {
                       adds = dependent_adds(iterations);
                     }).cpu_s.front();
    best = std::max(best, adds / t / 1e6);
  }
  return best;
}

// Counted operations per second (1e9) of `v` on every one of `cpus`: the best of many short
// repetitions. Many short ones: on a shared machine every thread must find its core free at
// once, which a 2 ms run does far more often than a longer one (a 2-core VM under three other
// builds, 2026-11-27: all cores at 0.4-0.5 of twice one core with 80 and 10 ms runs, 1.0 with
// 2 ms ones). run_pinned starts its timer once every thread is pinned and waiting, so thread
// start-up is not timed.
std::vector<double> compute_rates(const compute_variant& v, const std::vector<int>& cpus,
                                  const plan& p) {
  const plan shortp{p.target_s / 40, p.repetitions * 7};
  const std::uint64_t iterations = iterations_for(cpus, v.run, shortp.target_s);
  return settled_rates(shortp, [&] { return variant_rate(v, cpus, iterations); });
}

// A compute peak: the kernel's best variant (chosen on one core, then run on every one of
// `cpus`), checked against the highest clock known (`clocks`); a rate that looks impossible is
// measured again with the clock before it is refused (rate_check.hpp). Throws rather than
// report a rate physics rules out.
microbench_result compute_benchmark(const std::string& key, compute_kind kind,
                                    const compute_variant& v, const std::string& scope,
                                    const std::vector<int>& cpus, const plan& p,
                                    clock_bounds& clocks, const std::string& what) {
  std::vector<double> rates = compute_rates(v, cpus, p);
  char note[200];
  std::snprintf(note, sizeof note, "%s, %d independent chains (fastest of %zu variants); %s",
                v.isa.c_str(), v.chains, compute_variants(kind).size(), what.c_str());
  microbench_result r = summarize(key, scope, cpus.size(), rates, note);
  if (clocks.check_mhz() <= 0) {
    return r; // no clock to check against (not x86-64 and nothing reported)
  }
  const double threads = static_cast<double>(cpus.size());
  const auto again = [&] {
    // The clock just before and just after the rate, on the first core: the pair sees the
    // same machine.
    const double before = measured_clock_mhz(cpus.front(), 0.001, 5).value_or(0);
    const std::vector<double> more = compute_rates(v, cpus, p);
    const double after = measured_clock_mhz(cpus.front(), 0.001, 5).value_or(0);
    rates.insert(rates.end(), more.begin(), more.end());
    return rate_and_clock{*std::max_element(more.begin(), more.end()) / threads,
                          std::max(before, after)};
  };
  const checked_rate checked = check_compute_rate(r.best / threads, v, kind, clocks, again);
  if (checked.refusal) {
    throw std::runtime_error(key + " (" + scope + " core" + (scope == "one" ? "" : "s") +
                             "): " + *checked.refusal);
  }
  // The repetitions physics allows at the highest clock now known, those measured again
  // included (the run's best, where it was a glitch, is not among them).
  std::erase_if(rates, [&](double x) {
    return implausible_rate(x / threads, v, kind, clocks.check_mhz()).has_value();
  });
  return summarize(key, scope, cpus.size(), std::move(rates), note);
}

microbench_result l1_benchmark(const std::string& scope, const std::vector<int>& cpus,
                               const plan& p) {
  // Three arrays of 1536 floats (18 KiB) per thread stay in any L1 data cache of 32 KiB or more.
  constexpr std::size_t elements = 1536;
  std::vector<buffer<float>> arrays(3 * cpus.size());
  run_pinned(cpus, [&](std::size_t th) { // each thread allocates and touches its own arrays
    for (std::size_t j = 0; j < 3; ++j) {
      arrays[3 * th + j] = allocate<float>(elements);
      std::fill_n(arrays[3 * th + j].get(), elements, static_cast<float>(j));
    }
  });
  std::uint64_t passes = 1 << 10;
  std::vector<double> rates;
  for (std::uint64_t rep = 0; rep <= p.repetitions + 1; ++rep) {
    // Each core's L1 is its own: lanes over the CPU time of the thread that moved them, summed
    // (a busy machine's waits between slices left out, as for the compute peaks).
    std::vector<double> lanes(cpus.size());
    const pinned_times t = run_pinned_times(cpus, [&](std::size_t th) {
      lanes[th] = l1_load_store(arrays[3 * th].get(), arrays[3 * th + 1].get(),
                                arrays[3 * th + 2].get(), elements, passes);
    });
    if (rep == 0) { // sizing run
      passes = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(static_cast<double>(passes) * p.target_s / t.cpu_s[0]));
      continue;
    }
    if (rep > 1) { // rep 1 is the warm-up at full size
      double rate = 0;
      for (std::size_t th = 0; th < cpus.size(); ++th) {
        rate += lanes[th] / t.cpu_s[th] / 1e9;
      }
      rates.push_back(rate);
    }
  }
  return summarize("ldst_ginst", scope, cpus.size(), std::move(rates),
                   "32-bit lanes loaded or stored per second from L1 (2 loads + 1 store)");
}

// Read bandwidth from one cache level: each thread sums its own buffer of `bytes_per_thread`
// (half the level's share per thread, so it stays resident) pass after pass.
microbench_result cache_benchmark(const std::string& key, const std::string& scope,
                                  const std::vector<int>& cpus, std::size_t bytes_per_thread,
                                  const plan& p, const std::string& note) {
  const std::size_t n = std::max<std::size_t>(bytes_per_thread / sizeof(double) / 64 * 64, 64);
  std::vector<buffer<double>> arrays(cpus.size());
  run_pinned(cpus, [&](std::size_t th) { // first touch by the thread that reads it
    arrays[th] = allocate<double>(n);
    std::fill_n(arrays[th].get(), n, 1.0);
  });
  std::uint64_t passes = 16;
  std::vector<double> rates;
  std::vector<double> sinks(cpus.size());
  for (std::uint64_t rep = 0; rep <= p.repetitions + 1; ++rep) {
    const double t = run_pinned(cpus, [&](std::size_t th) {
      double s = 0;
      for (std::uint64_t pass = 0; pass < passes; ++pass) {
        s += stream_read(arrays[th].get(), n);
      }
      sinks[th] = s;
    });
    if (rep == 0) { // sizing run
      passes = std::max<std::uint64_t>(
          1, static_cast<std::uint64_t>(static_cast<double>(passes) * p.target_s / t));
      continue;
    }
    if (rep > 1) { // rep 1 is the warm-up at full size
      rates.push_back(static_cast<double>(cpus.size() * n * sizeof(double) * passes) / t / 1e9);
    }
  }
  volatile double sink = std::accumulate(sinks.begin(), sinks.end(), 0.0);
  (void)sink;
  return summarize(key, scope, cpus.size(), std::move(rates), note);
}

// The last-level cache's read bandwidth: the fastest of buffers filling an eighth, a quarter and
// half of it (each thread's at least twice its L2, so that the reads come from the last level).
// The level is shared, with the other cores and on a VM with other guests: the larger buffers
// spill to DRAM while a neighbour is busy, and the roof is the level's rate, not the spill's.
microbench_result llc_benchmark(const std::string& scope, const std::vector<int>& cpus,
                                const cpu_facts& facts, const plan& p) {
  std::optional<microbench_result> fastest;
  for (const std::size_t share : {8, 4, 2}) {
    const std::size_t per_thread = facts.llc_bytes / share / cpus.size();
    if (per_thread < 2 * facts.l2_bytes && share != 2) {
      continue; // an L2 would hold part of it
    }
    microbench_result r = cache_benchmark(
        "llc_gbs", scope, cpus, per_thread, p,
        "bytes read per second from the last-level cache: the fastest of buffers filling 1/8, "
        "1/4 and 1/2 of it (where each thread's is at least twice its L2); this one 1/" +
            std::to_string(share));
    if (!fastest || r.best > fastest->best) {
      fastest = std::move(r);
    }
  }
  return *fastest;
}

// The four STREAM kernels over arrays of `n` doubles split evenly across the threads; each
// thread first-touches its own part so pages sit near the core that streams them.
std::vector<microbench_result> dram_benchmarks(const std::string& scope,
                                               const std::vector<int>& cpus, std::size_t n,
                                               const plan& p) {
  auto a = allocate<double>(n), b = allocate<double>(n), c = allocate<double>(n);
  const std::size_t threads = cpus.size();
  auto part = [&](std::size_t t) {
    const std::size_t chunk = (n / threads + 7) / 8 * 8;
    const std::size_t begin = std::min(n, t * chunk);
    return std::pair{begin, std::min(n, begin + chunk)};
  };
  run_pinned(cpus, [&](std::size_t t) {
    const auto [begin, end] = part(t);
    std::fill(a.get() + begin, a.get() + end, 1.0);
    std::fill(b.get() + begin, b.get() + end, 2.0);
    std::fill(c.get() + begin, c.get() + end, 0.5);
  });
  const double bytes = static_cast<double>(n) * sizeof(double);
  struct kernel {
    const char* key;
    double bytes_per_element;
    std::function<void(std::size_t, std::size_t)> body;
    const char* note;
  };
  volatile double sink = 0;
  const kernel kernels[] = {
      {"dram_read_gbs", 1,
       [&](std::size_t b0, std::size_t e) { sink = stream_read(a.get() + b0, e - b0); },
       "sum of an array: bytes read"},
      {"dram_write_gbs", 1,
       [&](std::size_t b0, std::size_t e) { stream_write(c.get() + b0, e - b0, 3.0); },
       "fill an array: bytes written (write-allocate traffic not counted, as STREAM)"},
      {"dram_copy_gbs", 2,
       [&](std::size_t b0, std::size_t e) { stream_copy(c.get() + b0, a.get() + b0, e - b0); },
       "c = a: bytes read + bytes written"},
      {"dram_triad_gbs", 3,
       [&](std::size_t b0, std::size_t e) {
         stream_triad(a.get() + b0, b.get() + b0, c.get() + b0, 3.0, e - b0);
       },
       "a = b + s c (STREAM triad): bytes read + bytes written"},
  };
  const kernel nontemporal[] = {
      {"dram_write_nt_gbs", 1,
       [&](std::size_t b0, std::size_t e) { stream_write_nt(c.get() + b0, e - b0, 3.0); },
       "fill an array with non-temporal stores: bytes written"},
      {"dram_copy_nt_gbs", 2,
       [&](std::size_t b0, std::size_t e) { stream_copy_nt(c.get() + b0, a.get() + b0, e - b0); },
       "c = a with non-temporal stores: bytes read + bytes written"},
      {"dram_triad_nt_gbs", 3,
       [&](std::size_t b0, std::size_t e) {
         stream_triad_nt(a.get() + b0, b.get() + b0, c.get() + b0, 3.0, e - b0);
       },
       "a = b + s c with non-temporal stores: bytes read + bytes written"},
  };
  std::vector<kernel> all(std::begin(kernels), std::end(kernels));
  if (have_nontemporal_stores()) {
    all.insert(all.end(), std::begin(nontemporal), std::end(nontemporal));
  }
  // Twice the repetitions, settling over twice as many: a kernel of ordinary stores is held to
  // the plain pattern of its mix, and on a VM whose neighbours' builds share the memory bus a
  // short settle kept a one-core triad of 14.6 GB/s that the examples' triad beat by 15%
  // (2026-11-27).
  const plan longer{p.target_s, p.repetitions * 2};
  std::vector<microbench_result> out;
  for (const auto& k : all) {
    std::vector<double> rates = settled_rates(longer, [&] {
      const double t = run_pinned(cpus, [&](std::size_t th) {
        const auto [begin, end] = part(th);
        k.body(begin, end);
      });
      return k.bytes_per_element * bytes / t / 1e9;
    });
    out.push_back(summarize(k.key, scope, threads, std::move(rates), k.note));
  }
  return out;
}

// Random 4-byte gather (out[i] = in[idx[i]]) and scatter (out[idx[i]] = in[i]) over arrays of
// 2^bits elements, idx a pseudo-random permutation: the boat hull model's P_uncoalesced. Bytes
// are the useful ones, 4 per element moved (the index read and the sequential side are not
// counted: one uncoalesced access per element is what the rate prices). Each thread runs its
// own part of the permutation, but its random side spans the whole array, so no thread's
// accesses stay in its caches. A repetition moves a slice of each part, sized to last about
// p.target_s, and the next one continues where it stopped: the arrays stay far larger than the
// caches while the benchmark stays short.
std::vector<microbench_result> uncoalesced_benchmarks(const std::string& scope,
                                                      const std::vector<int>& cpus, unsigned bits,
                                                      const plan& p) {
  const std::size_t n = std::size_t{1} << bits;
  auto in = allocate<std::uint32_t>(n), out = allocate<std::uint32_t>(n);
  auto idx = allocate<std::uint32_t>(n);
  const std::size_t threads = cpus.size();
  auto part = [&](std::size_t t) {
    const std::size_t chunk = (n / threads + 15) / 16 * 16; // whole cache lines
    const std::size_t begin = std::min(n, t * chunk);
    return std::pair{begin, std::min(n, begin + chunk)};
  };
  constexpr std::uint32_t seed = 0x5eed1234U; // a fixed permutation: every run is the same
  run_pinned(cpus, [&](std::size_t t) {       // first touch by the thread that runs the part
    const auto [begin, end] = part(t);
    for (std::size_t i = begin; i < end; ++i) {
      in[i] = static_cast<std::uint32_t>(i);
    }
    std::fill(out.get() + begin, out.get() + end, 0U);
    fill_permutation(idx.get() + begin, end - begin, begin, bits, seed);
  });
  std::vector<std::size_t> cursor(threads, 0);
  // Moves `count` elements per thread (at most its part); returns the seconds and the elements.
  auto slice = [&](bool scattered, std::size_t count) {
    double moved = 0;
    for (std::size_t t = 0; t < threads; ++t) {
      const auto [begin, end] = part(t);
      moved += static_cast<double>(std::min(count, end - begin));
    }
    const double seconds = run_pinned(cpus, [&](std::size_t t) {
      const auto [begin, end] = part(t);
      const std::size_t length = end - begin;
      std::size_t todo = std::min(count, length);
      while (todo > 0) {
        const std::size_t at = cursor[t];
        const std::size_t m = std::min(todo, length - at);
        if (scattered) {
          scatter(out.get(), in.get() + begin + at, idx.get() + begin + at, m);
        } else {
          gather(out.get() + begin + at, in.get(), idx.get() + begin + at, m);
        }
        cursor[t] = (at + m) % length;
        todo -= m;
      }
    });
    return std::pair{seconds, moved};
  };
  std::size_t count = 1 << 12; // sized on the gather, so that one repetition lasts target_s
  for (;;) {
    const double t = slice(false, count).first;
    if (t > p.target_s / 8 || count >= n) {
      count = static_cast<std::size_t>(static_cast<double>(count) * p.target_s / std::max(t, 1e-9));
      break;
    }
    count *= 4;
  }
  count = std::clamp<std::size_t>(count, 1, n);
  std::vector<microbench_result> out_results;
  const std::string size = std::to_string(4 * n >> 20) + " MiB arrays";
  for (const bool scattered : {false, true}) {
    std::vector<double> rates = settled_rates(p, [&] {
      const auto [seconds, moved] = slice(scattered, count);
      return 4.0 * moved / seconds / 1e9;
    });
    out_results.push_back(
        summarize(scattered ? "uncoalesced_scatter_gbs" : "uncoalesced_gather_gbs", scope, threads,
                  std::move(rates),
                  std::string(scattered ? "out[idx[i]] = in[i]" : "out[i] = in[idx[i]]") +
                      ", idx a random permutation, " + size + ": 4 bytes per element moved"));
  }
  // The rate the boat hull model uses: gather and scatter bytes over their combined time (the
  // harmonic mean), statistic by statistic.
  const auto& g = out_results[0];
  const auto& s = out_results[1];
  const auto mix = [](double a, double b) { return a > 0 && b > 0 ? 2 / (1 / a + 1 / b) : 0.0; };
  microbench_result r = g;
  r.key = "uncoalesced_gbs";
  r.repetitions = std::min(g.repetitions, s.repetitions);
  r.best = mix(g.best, s.best);
  r.median = mix(g.median, s.median);
  r.min = mix(g.min, s.min);
  r.max = mix(g.max, s.max);
  r.note = "random 4-byte gather and scatter, " + size +
           ": both directions' bytes over their combined time (4 bytes per element moved)";
  out_results.push_back(r);
  return out_results;
}

// "x86-64 avx2+fma", "x86-64 sse2" (portable kernels: SSE2 is x86-64's baseline), "aarch64 neon".
std::string arch_of(const std::string& isa) {
#if defined(__x86_64__)
  return "x86-64 " + (isa == "generic" ? std::string("sse2") : isa);
#elif defined(__aarch64__)
  return "aarch64 " + (isa == "generic" ? std::string("neon") : isa);
#else
  return isa;
#endif
}

std::string format_line(std::size_t step, std::size_t steps, const microbench_result& r) {
  char line[200];
  std::snprintf(line, sizeof line,
                "[%2zu/%zu] %-23s %-3s core%s %10.2f (median %.2f, spread %.1f%%)", step, steps,
                r.key.c_str(), r.scope == "one" ? "one" : "all", r.scope == "one" ? " " : "s",
                r.best, r.median, 100.0 * r.spread());
  return line;
}

} // namespace

microbench_run run_cpu_microbench(const cpu_options& options) {
  const plan p = options.quick ? plan{0.002, 2} : plan{0.08, 9};
  const cpu_facts facts = read_cpu_facts();
  microbench_run run;
  run.backend = "cpu";
  run.quick = options.quick;
  run.dev.name = facts.model;
  run.dev.vendor = facts.vendor;
  run.dev.kind = "cpu";
  run.dev.arch = arch_of(compute_isa());
  run.dev.compute_units = facts.cpus.size();
  run.dev.warp_size = 1;
  run.dev.clock_mhz_before = facts.mhz;

  // STREAM's rule: each array at least 4x the largest cache (and 64 MiB), so DRAM is measured.
  const std::size_t llc = facts.llc_bytes > 0 ? facts.llc_bytes : (32u << 20);
  const std::size_t n =
      options.quick ? (1u << 16) : std::max<std::size_t>(4 * llc, 64u << 20) / sizeof(double);
  // The random gather and scatter: 2^bits 4-byte elements, each array at least 8x the largest
  // cache (a random access then hits it at most 1 time in 8) and 64 MiB; slices of 40 ms and
  // 5 repetitions (settling up to 20) keep both directions near a second per scope.
  unsigned bits = 16;
  while (!options.quick && (std::size_t{4} << bits) < std::max<std::size_t>(8 * llc, 64u << 20)) {
    ++bits;
  }
  const plan p_uncoalesced = options.quick ? p : plan{0.04, 5};

  if (options.progress && facts.cache_source != "sysfs") {
    options.progress(facts.cache_source == "cpuid"
                         ? "cache sizes from CPUID: no cache/ under /sys/devices/system/cpu (is "
                           "/sys mounted?)"
                         : "no cache sizes found (no cache/ under /sys/devices/system/cpu, none "
                           "from CPUID): kernels whose data sit in a cache will be held to "
                           "DRAM's roof");
  }
  const std::vector<std::pair<std::string, std::vector<int>>> scopes = {
      {"one", {facts.cpus.front()}}, {"all", facts.cpus}};
  // Cache levels to measure: L2 if known, and the last level if it is a separate, larger one.
  const bool l2 = facts.l2_bytes > 0;
  const bool llc_level = facts.llc_bytes > facts.l2_bytes && facts.llc_bytes > facts.l1d_bytes;
  for (const auto& [name, bytes] :
       {std::pair{"l1", facts.l1d_bytes}, std::pair{"l2", facts.l2_bytes},
        std::pair{"llc", llc_level ? facts.llc_bytes : 0}}) {
    if (bytes > 0) {
      run.dev.cache_bytes[name] = static_cast<double>(bytes);
    }
  }
  const std::size_t steps =
      scopes.size() * ((have_nontemporal_stores() ? 15 : 12) + (l2 ? 1 : 0) + (llc_level ? 1 : 0));
  std::size_t step = 0;
  auto report = [&](const microbench_result& r) {
    run.results.push_back(r);
    if (options.progress) {
      options.progress(format_line(++step, steps, r));
    }
  };
  // The clock and each kind's fastest variant, found once on the first core. The physics check
  // divides by the highest clock anything says the core runs at: a measured clock only ever
  // reads low (every run shared its core: 1176 MHz for a 3.7 GHz Zen 4 while a CI run's tests
  // and a build shared the 2-core VM; /proc/cpuinfo's is the base clock, 2596 MHz for a Zen 5
  // that runs 4506), so a refusal means a broken count, not a busy machine.
  const double trial_s = options.quick ? 0.0002 : 0.003;
  const int clock_runs = options.quick ? 10 : 60;
  clock_bounds clocks;
  clocks.system_max_mhz = facts.max_mhz;
  clocks.reported_mhz = facts.mhz;
  clocks.measured(measured_clock_mhz(facts.cpus.front(), 0.001, clock_runs).value_or(0));
  struct kind_plan {
    const char* key;
    compute_kind kind;
    const char* what;
  };
  const kind_plan kinds[] = {
      {"fp32_gflops", compute_kind::fp32_fma, "FMA = 2 flops"},
      {"fp64_gflops", compute_kind::fp64_fma, "FMA = 2 flops"},
      {"int_mad_gops", compute_kind::int_mad, "32-bit multiply-low + add; MAD = 2 ops"},
      {"int_add_gops", compute_kind::int_add, "32-bit add; 1 op"},
  };
  std::vector<compute_variant> chosen;
  for (const auto& k : kinds) {
    chosen.push_back(fastest_variant(k.kind, facts.cpus.front(), trial_s));
  }
  // Compute peaks of both scopes first, before the memory benchmarks' arrays come and go.
  std::vector<microbench_result> compute;
  for (const auto& [scope, cpus] : scopes) {
    for (std::size_t i = 0; i < std::size(kinds); ++i) {
      compute.push_back(compute_benchmark(kinds[i].key, kinds[i].kind, chosen[i], scope, cpus, p,
                                          clocks, kinds[i].what));
    }
  }
  // Each peak is stored with the clock it ran at: the highest measured in the run, before and
  // after the peaks (each measurement can only read low).
  clocks.measured(measured_clock_mhz(facts.cpus.front(), 0.001, clock_runs).value_or(0));
  for (auto& r : compute) {
    if (clocks.highest_measured_mhz > 0) {
      r.sm_clock_mhz = clocks.highest_measured_mhz;
    }
  }
  for (const auto& [scope, cpus] : scopes) {
    for (const auto& r : compute) {
      if (r.scope == scope) {
        report(r);
      }
    }
    report(l1_benchmark(scope, cpus, p));
    if (l2) {
      report(cache_benchmark("l2_gbs", scope, cpus, facts.l2_bytes / 2, p,
                             "bytes read per second from a per-thread buffer of half the L2"));
    }
    if (llc_level) {
      report(llc_benchmark(scope, cpus, facts, p));
    }
    for (const auto& r : dram_benchmarks(scope, cpus, n, p)) {
      report(r);
    }
    for (const auto& r : uncoalesced_benchmarks(scope, cpus, bits, p_uncoalesced)) {
      report(r);
    }
  }
  run.dev.clock_mhz_after = mean_cpu_mhz(facts.cpus);
  return run;
}

} // namespace perfgate::microbench
