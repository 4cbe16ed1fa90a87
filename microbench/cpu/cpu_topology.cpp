// SPDX-License-Identifier: Apache-2.0
#include "cpu_topology.hpp"

#include "util/cpuinfo.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <pthread.h>
#include <sched.h>

namespace perfgate::microbench {

namespace {
std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t"));
  s.erase(s.find_last_not_of(" \t\r\n") + 1);
  return s;
}

// "32K" / "1024K" / "32M" -> bytes
std::size_t parse_cache_size(const std::string& s) {
  std::size_t v = 0;
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    v = v * 10 + static_cast<std::size_t>(s[i++] - '0');
  }
  const char unit = i < s.size() ? s[i] : 'B';
  return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : unit == 'G' ? v << 30 : v;
}

void pin_to(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}
} // namespace

std::optional<double> mean_cpu_mhz(const std::vector<int>& cpus) {
  // cpufreq is the live clock where the kernel exposes it; /proc/cpuinfo otherwise.
  double sum = 0;
  std::size_t n = 0;
  for (int cpu : cpus) {
    std::ifstream f("/sys/devices/system/cpu/cpu" + std::to_string(cpu) +
                    "/cpufreq/scaling_cur_freq");
    double khz = 0;
    if (f >> khz && khz > 0) {
      sum += khz / 1000.0;
      ++n;
    }
  }
  if (n > 0) {
    return sum / static_cast<double>(n);
  }
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  int cpu = -1;
  while (std::getline(info, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      continue;
    }
    const std::string key = trim(line.substr(0, colon));
    if (key == "processor") {
      cpu = std::stoi(line.substr(colon + 1));
    } else if (key == "cpu MHz" && std::find(cpus.begin(), cpus.end(), cpu) != cpus.end()) {
      sum += std::stod(line.substr(colon + 1));
      ++n;
    }
  }
  if (n == 0) {
    return std::nullopt;
  }
  return sum / static_cast<double>(n);
}

std::optional<double> system_max_mhz(const std::vector<int>& cpus, const std::string& sysfs_cpu) {
  double highest = 0;
  for (int cpu : cpus) {
    std::ifstream f(sysfs_cpu + "/cpu" + std::to_string(cpu) + "/cpufreq/cpuinfo_max_freq");
    double khz = 0;
    if (f >> khz && khz > 0) {
      highest = std::max(highest, khz / 1000.0);
    }
  }
  if (highest > 0) {
    return highest;
  }
#if defined(__x86_64__)
  // Leaf 0x16: EAX base, EBX maximum frequency in MHz (0 where the CPU or hypervisor leaves it
  // out). Only read from the real machine: a test with its own sysfs tree stops above.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (sysfs_cpu == "/sys/devices/system/cpu" && __get_cpuid_max(0, nullptr) >= 0x16 &&
      __get_cpuid_count(0x16, 0, &eax, &ebx, &ecx, &edx) && (ebx & 0xffff) > 0) {
    return static_cast<double>(ebx & 0xffff);
  }
#endif
  return std::nullopt;
}

cache_sizes read_cache_sizes(int cpu, const std::string& sysfs_cpu) {
  cache_sizes c;
  // One cache level, from either source: the largest of any type, the data or unified L1, L2.
  const auto add = [&c](unsigned level, bool instruction, std::size_t bytes) {
    c.largest = std::max(c.largest, bytes);
    if (!instruction && level == 1) {
      c.l1d = bytes;
    } else if (!instruction && level == 2) {
      c.l2 = bytes;
    }
  };
  for (int index = 0; index < 8; ++index) {
    const std::string dir =
        sysfs_cpu + "/cpu" + std::to_string(cpu) + "/cache/index" + std::to_string(index);
    std::ifstream size(dir + "/size"), level(dir + "/level"), type(dir + "/type");
    std::string s, t;
    unsigned lvl = 0;
    if (size >> s) {
      const bool known = static_cast<bool>(level >> lvl) && static_cast<bool>(type >> t);
      add(known ? lvl : 0, t == "Instruction", parse_cache_size(s));
    }
  }
  if (c.largest > 0) {
    c.source = "sysfs";
    return c;
  }
#if defined(__x86_64__)
  // CPUID's deterministic cache parameters, which Linux itself turns into sysfs's tree: leaf 4
  // (Intel), else 0x8000001D (AMD). glibc's sysconf is no substitute: on AMD it states the L3 of
  // the whole package (320 MiB on a 2-vCPU EPYC VM whose sysfs says 32 MiB).
  for (const unsigned leaf : {0x4u, 0x8000001Du}) {
    if (__get_cpuid_max(leaf & 0x80000000u, nullptr) < leaf) {
      continue;
    }
    for (unsigned sub = 0; sub < 16; ++sub) {
      unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
      __cpuid_count(leaf, sub, eax, ebx, ecx, edx);
      const unsigned type = eax & 0x1f; // 0 none (the end), 1 data, 2 instruction, 3 unified
      if (type == 0) {
        break;
      }
      // ways x partitions x line size x sets, each stored minus one
      add((eax >> 5) & 0x7, type == 2,
          std::size_t{((ebx >> 22) & 0x3ff) + 1} * (((ebx >> 12) & 0x3ff) + 1) *
              ((ebx & 0xfff) + 1) * (ecx + 1));
    }
    if (c.largest > 0) {
      c.source = "cpuid";
      break;
    }
  }
#endif
  return c;
}

cpu_facts read_cpu_facts() {
  cpu_facts f;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) {
        f.cpus.push_back(c);
      }
    }
  }
  if (f.cpus.empty()) {
    f.cpus.push_back(0);
  }
  std::ifstream info("/proc/cpuinfo");
  std::ostringstream text;
  text << info.rdbuf();
  const auto cpu = detail::parse_cpuinfo(text.str());
  f.model = cpu.model;
  f.vendor = cpu.vendor_id == "GenuineIntel"   ? "intel"
             : cpu.vendor_id == "AuthenticAMD" ? "amd"
             : !cpu.implementer.empty()        ? "arm"
                                               : "";
  if (f.model.empty()) {
    f.model = "unknown CPU";
  }
  if (f.vendor.empty()) {
    f.vendor = "arm"; // non-x86 Linux without a vendor_id line
  }
  const cache_sizes caches = read_cache_sizes(f.cpus.front());
  f.l1d_bytes = caches.l1d;
  f.l2_bytes = caches.l2;
  f.llc_bytes = caches.largest;
  f.cache_source = caches.source;
  f.mhz = mean_cpu_mhz(f.cpus);
  f.max_mhz = system_max_mhz(f.cpus);
  return f;
}

namespace {
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
} // namespace

pinned_times run_pinned_times(const std::vector<int>& cpus,
                              const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::chrono::steady_clock::time_point> ends(cpus.size());
  pinned_times out;
  out.cpu_s.resize(cpus.size());
  std::vector<std::thread> threads;
  threads.reserve(cpus.size());
  for (std::size_t t = 0; t < cpus.size(); ++t) {
    threads.emplace_back([&, t] {
      pin_to(cpus[t]);
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) {
      }
      const double cpu_begin = thread_cpu_seconds();
      body(t);
      out.cpu_s[t] = thread_cpu_seconds() - cpu_begin;
      ends[t] = std::chrono::steady_clock::now();
    });
  }
  while (ready.load() != cpus.size()) {
    std::this_thread::yield();
  }
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (auto& th : threads) {
    th.join();
  }
  const auto end = *std::max_element(ends.begin(), ends.end());
  out.wall_s = std::chrono::duration<double>(end - start).count();
  return out;
}

double run_pinned(const std::vector<int>& cpus, const std::function<void(std::size_t)>& body) {
  return run_pinned_times(cpus, body).wall_s;
}

} // namespace perfgate::microbench
