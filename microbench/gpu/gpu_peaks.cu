// SPDX-License-Identifier: Apache-2.0
// gpu_peaks.cu: peak-rate micro-benchmarks for perfgate's device model (T_SP, T_DP, T_int,
// T_add, T_ldst, B_mem, plus fp16, L2 bandwidth and a measured roofline sweep).
//
// One source for two back ends: compiled by nvcc it is perfgate-microbench-cuda; compiled as
// HIP (hipcc / clang -x hip, AMD) it is perfgate-microbench-hip. Everything that differs
// between the runtimes lives in gpu_compat.hpp.
//
// Method (after Konstantinidis 2017, ch. 4, and the roofline paper of Williams et al. 2009):
// every kernel is sized so that one timed run lasts about 20 ms (the iteration or pass count
// is calibrated on the device), warmed up once at that size, then timed `reps` times with GPU
// events; "best" is the highest rate. Compute kernels keep 8 independent dependency chains per
// thread at full occupancy; their results feed a store that never happens but that the
// compiler cannot rule out, so no chain can be removed. Memory kernels stream 16-byte vectors
// over buffers far larger than L2 (flushed between repetitions) and verify a checksum, so a
// kernel that skipped data would be reported as an error rather than as bandwidth.
#include "gpu_compat.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <dlfcn.h>

namespace {

constexpr int kBlock = 256; // threads per block: a multiple of both warp sizes (32, 64)
constexpr int kIlp = 8;     // independent chains per thread in the compute kernels

// ================================ device code ==============================================

// Arithmetic of one chain element type. init() gives per-thread start values, mad() is the
// measured instruction, sentinel() a condition that is false for every value the chains reach
// (they converge to a / (1 - m) for 0 < m < 1) but that the compiler cannot decide.
template <class T> struct Arith;

template <> struct Arith<float> {
  __device__ static float init(unsigned i) { return static_cast<float>(i & 1023u) * 1e-3f; }
  __device__ static float mad(float x, float m, float a) { return fmaf(x, m, a); }
  __device__ static float add(float x, float y) { return x + y; }
  __device__ static bool sentinel(float s) { return s == -1.0f; }
};

template <> struct Arith<double> {
  __device__ static double init(unsigned i) { return static_cast<double>(i & 1023u) * 1e-3; }
  __device__ static double mad(double x, double m, double a) { return fma(x, m, a); }
  __device__ static double add(double x, double y) { return x + y; }
  __device__ static bool sentinel(double s) { return s == -1.0; }
};

template <> struct Arith<__half2> {
  __device__ static __half2 init(unsigned i) {
    return __floats2half2_rn(static_cast<float>(i & 255u) * 1e-3f,
                             static_cast<float>((i + 1u) & 255u) * 1e-3f);
  }
  __device__ static __half2 mad(__half2 x, __half2 m, __half2 a) { return __hfma2(x, m, a); }
  __device__ static __half2 add(__half2 x, __half2 y) { return __hadd2(x, y); }
  __device__ static bool sentinel(__half2 s) { return __low2float(s) + __high2float(s) == -1.0f; }
};

// Integer multiply-add, wrapping; one instruction per step.
// NVIDIA: x*m + a is one IMAD (32 x 32 bits); m and a are unknown, so nothing re-associates.
// AMD: GCN/CDNA/RDNA have no full-rate 32 x 32-bit mad (x*m + a becomes v_mul_lo_u32, quarter
// rate, plus v_add_u32); their integer mad is v_mad_u32_u24. __umul24(x, m) + a does NOT give
// it: only the low 24 bits of each step feed the next, so LLVM drops the masks and emits 32-bit
// multiplies. Using the full x as the addend, x + __umul24(x, m), demands every bit of every
// step and compiles to exactly one v_mad_u32_u24 (checked on gfx908/90a/940/1030).
template <> struct Arith<unsigned> {
  __device__ static unsigned init(unsigned i) { return i * 2654435761u + 1u; }
  __device__ static unsigned mad(unsigned x, unsigned m, unsigned a) {
#if PGPU_HIP
    (void)a;
    return __umul24(x, m) + x;
#else
    return x * m + a;
#endif
  }
  __device__ static unsigned add(unsigned x, unsigned y) { return x ^ y; }
  __device__ static bool sentinel(unsigned s) { return s == 0x7badf00du; }
};

// kIlp chains x = mad(x, m, a), UNROLL steps per loop iteration; m and a are kernel arguments.
template <class T, int UNROLL>
__global__ __launch_bounds__(kBlock) void madKernel(T* sink, int iters, T m, T a) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  T x[kIlp];
#pragma unroll
  for (int k = 0; k < kIlp; ++k)
    x[k] = Arith<T>::init(tid * kIlp + k);
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < kIlp; ++k)
        x[k] = Arith<T>::mad(x[k], m, a);
    }
  }
  T s = x[0];
#pragma unroll
  for (int k = 1; k < kIlp; ++k)
    s = Arith<T>::add(s, x[k]);
  if (Arith<T>::sentinel(s))
    sink[tid] = s;
}

// 32-bit integer adds. A plain x += c chain would be folded into one multiply, so each chain is
// a Fibonacci-like pair (x += y; y += x): every add consumes the previous result and every
// intermediate value has two uses, which leaves nothing to re-associate or merge.
template <int PAIRS>
__global__ __launch_bounds__(kBlock) void addKernel(unsigned* sink, int iters, unsigned seed) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned x[kIlp], y[kIlp];
#pragma unroll
  for (int k = 0; k < kIlp; ++k) {
    x[k] = tid + static_cast<unsigned>(k);
    y[k] = seed ^ (static_cast<unsigned>(k) * 0x9e3779b9u);
  }
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < PAIRS; ++u) {
#pragma unroll
      for (int k = 0; k < kIlp; ++k) {
        x[k] += y[k];
        y[k] += x[k];
      }
    }
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < kIlp; ++k)
    s ^= x[k] ^ y[k];
  if (s == seed)
    sink[tid] = s;
}

// Shared-memory (LDS) 32-bit loads and stores. Each thread copies its kIlp words from the
// source half of the buffer to the destination half, UNROLL times per iteration. Thread t
// touches word t + k*stride, so a warp hits 32 consecutive words: no bank conflicts, and no
// thread reads another thread's words (no barriers needed). stride and dst_offset are kernel
// arguments: the compiler cannot prove that a store does not alias the next load (so it must
// keep every load and store), and it cannot merge two accesses into one wider instruction
// (no ds_read2 / LDS.64), so each source access is exactly one instruction.
template <int UNROLL>
__global__ __launch_bounds__(kBlock) void ldsKernel(unsigned* sink, int iters, int stride,
                                                    int dst_offset) {
  __shared__ unsigned buf[2 * kIlp * kBlock];
  const int t = threadIdx.x;
#pragma unroll
  for (int k = 0; k < kIlp; ++k) {
    buf[t + k * stride] = static_cast<unsigned>(t + k);
    buf[t + k * stride + dst_offset] = 0u;
  }
  unsigned r[kIlp];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
#pragma unroll
      for (int k = 0; k < kIlp; ++k)
        r[k] = buf[t + k * stride];
#pragma unroll
      for (int k = 0; k < kIlp; ++k)
        buf[t + k * stride + dst_offset] = r[k];
    }
  }
  unsigned s = 0;
#pragma unroll
  for (int k = 0; k < kIlp; ++k)
    s += buf[t + k * stride + dst_offset];
  if (s == 0xffffffffu)
    sink[blockIdx.x * blockDim.x + t] = s;
}

__device__ inline unsigned sum4(uint4 v) { return v.x + v.y + v.z + v.w; }

// Adds each lane's value into *out: a butterfly reduction per warp, then one atomic per warp.
__device__ inline void warpSumToGlobal(unsigned s, unsigned* out) {
  for (int o = warpSize / 2; o > 0; o >>= 1)
    s += pgpu::shflXor(s, o);
  if ((threadIdx.x & (warpSize - 1)) == 0)
    atomicAdd(out, s);
}

__global__ __launch_bounds__(kBlock) void readKernel(const uint4* __restrict__ p, std::size_t n,
                                                     unsigned* checksum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned s = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    s += sum4(a) + sum4(b) + sum4(c) + sum4(d);
  }
  for (; i < n; i += stride)
    s += sum4(p[i]);
  warpSumToGlobal(s, checksum);
}

__global__ __launch_bounds__(kBlock) void writeKernel(uint4* __restrict__ p, std::size_t n,
                                                      unsigned v) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const uint4 w = make_uint4(v, v, v, v);
  for (; i + 3 * stride < n; i += 4 * stride) {
    p[i] = w;
    p[i + stride] = w;
    p[i + 2 * stride] = w;
    p[i + 3 * stride] = w;
  }
  for (; i < n; i += stride)
    p[i] = w;
}

__global__ __launch_bounds__(kBlock) void copyKernel(const uint4* __restrict__ src,
                                                     uint4* __restrict__ dst, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride)
    dst[i] = src[i];
}

// Reads an L2-resident buffer `passes` times (L2-only loads where the ISA has them).
__global__ __launch_bounds__(kBlock) void l2ReadKernel(const uint4* __restrict__ p, std::size_t n,
                                                       int passes, unsigned* checksum) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned s = 0;
  for (int r = 0; r < passes; ++r) {
    std::size_t i = first;
    for (; i + 3 * stride < n; i += 4 * stride) {
      const uint4 a = pgpu::loadL2Only(p + i), b = pgpu::loadL2Only(p + i + stride);
      const uint4 c = pgpu::loadL2Only(p + i + 2 * stride);
      const uint4 d = pgpu::loadL2Only(p + i + 3 * stride);
      s += sum4(a) + sum4(b) + sum4(c) + sum4(d);
    }
    for (; i < n; i += stride)
      s += sum4(pgpu::loadL2Only(p + i));
  }
  warpSumToGlobal(s, checksum);
}

// Roofline sweep: y = f(x) element-wise, f = K dependent FMAs per fp32 element; 8 bytes of
// DRAM traffic (4 read, 4 written) and 2K flops per element.
template <int K>
__global__ __launch_bounds__(kBlock) void sweepKernel(const float4* __restrict__ x,
                                                      float4* __restrict__ y, std::size_t n,
                                                      float m, float a) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    float4 v = x[i];
#pragma unroll
    for (int j = 0; j < K; ++j) {
      v.x = fmaf(v.x, m, a);
      v.y = fmaf(v.y, m, a);
      v.z = fmaf(v.z, m, a);
      v.w = fmaf(v.w, m, a);
    }
    y[i] = v;
  }
}

// ================================ host code ================================================

struct GpuFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(pgpu::Error e, const char* what) {
  if (e != pgpu::kSuccess)
    throw GpuFailure(std::string(pgpu::kRuntimeName) + " error: " + what +
                     " failed: " + pgpu::errorName(e) + ": " + pgpu::errorString(e));
}
#define PG_CHECK(expr) check((expr), #expr)
#define PG_LAUNCH_CHECK() check(pgpu::getLastError(), "kernel launch")

class DeviceBuffer {
public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    PG_CHECK(pgpu::deviceMalloc(&ptr_, bytes));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), bytes_(o.bytes_) { o.ptr_ = nullptr; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(bytes_, o.bytes_);
    return *this;
  }
  ~DeviceBuffer() {
    if (ptr_)
      (void)pgpu::deviceFree(ptr_);
  }
  template <class T> T* as() const { return static_cast<T*>(ptr_); }

private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

struct Stats {
  int reps = 0;
  double best = NAN, median = NAN, min = NAN, max = NAN;
  double best_ms = NAN; // duration of the best run
};

struct Result {
  std::string key;
  std::optional<Stats> stats; // empty: not measurable on this device (values are null)
  long long threads = 0;
  std::string note;
};

struct SweepPoint {
  int fma_per_element;
  double intensity, gflops, gbs;
};

struct Plan {
  bool quick = false;
  double target_ms = 20.0; // length of one timed run
  int reps = 10;
};

constexpr std::size_t kMiB = std::size_t{1} << 20;

class EventTimer {
public:
  EventTimer() {
    PG_CHECK(pgpu::eventCreate(&start_));
    PG_CHECK(pgpu::eventCreate(&stop_));
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() {
    (void)pgpu::eventDestroy(start_);
    (void)pgpu::eventDestroy(stop_);
  }
  double timeMs(const std::function<void()>& work) {
    PG_CHECK(pgpu::eventRecord(start_));
    work();
    PG_CHECK(pgpu::eventRecord(stop_));
    PG_CHECK(pgpu::eventSynchronize(stop_));
    float ms = 0.0f;
    PG_CHECK(pgpu::eventElapsedMs(&ms, start_, stop_));
    return static_cast<double>(ms);
  }

private:
  pgpu::Event start_{}, stop_{};
};

// Calibrates the size parameter p of `launch` (iterations or passes; the work is proportional
// to p) so that one run lasts plan.target_ms, warms up at that size, then times plan.reps runs.
// work_per_p: units of work per unit of p; rates are in 1e9 units per second.
Stats measure(EventTimer& timer, const Plan& plan, const std::function<void(long long)>& launch,
              double work_per_p, long long p0, long long p_max,
              const std::function<void()>& before = {}, long long* p_out = nullptr) {
  auto prepare = [&] {
    if (before)
      before();
  };
  prepare();
  launch(p0); // first launch: module load, page mapping
  PG_CHECK(pgpu::deviceSynchronize());
  prepare();
  const double t0 = std::max(timer.timeMs([&] { launch(p0); }), 1e-3);
  const double scaled = static_cast<double>(p0) * plan.target_ms / t0;
  const long long p = std::clamp(static_cast<long long>(std::llround(scaled)), 1LL, p_max);
  prepare();
  launch(p); // warm-up at the final size (lets the clocks settle)
  PG_CHECK(pgpu::deviceSynchronize());

  std::vector<double> rates, times;
  for (int r = 0; r < plan.reps; ++r) {
    prepare();
    const double ms = timer.timeMs([&] { launch(p); });
    times.push_back(ms);
    rates.push_back(work_per_p * static_cast<double>(p) / (std::max(ms, 1e-6) * 1e6));
  }
  Stats s;
  s.reps = plan.reps;
  const auto best = std::max_element(rates.begin(), rates.end());
  s.best = *best;
  s.best_ms = times[static_cast<std::size_t>(best - rates.begin())];
  std::vector<double> sorted = rates;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  const std::size_t h = sorted.size() / 2;
  s.median = sorted.size() % 2 ? sorted[h] : 0.5 * (sorted[h - 1] + sorted[h]);
  if (p_out)
    *p_out = p;
  return s;
}

template <class Kernel> int blocksFor(Kernel k, int cus) {
  int per_cu = 0;
  PG_CHECK(pgpu::occupancyBlocksPerCu(&per_cu, k, kBlock, 0));
  return std::max(per_cu, 1) * std::max(cus, 1);
}

// ---- clocks: NVML / ROCm SMI through dlopen (no headers, no link dependency) --------------

struct ClockSample {
  std::optional<unsigned> sm_mhz;
  std::optional<unsigned long long> reasons;
};

class ClockReader {
public:
  ClockReader(const pgpu::DeviceProp& prop, int index);
  ClockReader(const ClockReader&) = delete;
  ClockReader& operator=(const ClockReader&) = delete;
  ~ClockReader();
  ClockSample sample();

private:
  void* lib_ = nullptr;
  bool ready_ = false;
#if PGPU_CUDA
  using NvmlDevice = void*; // nvmlDevice_t is an opaque pointer
  int (*shutdown_)() = nullptr;
  int (*clock_)(NvmlDevice, int, unsigned*) = nullptr;
  int (*reasons_)(NvmlDevice, unsigned long long*) = nullptr;
  NvmlDevice dev_ = nullptr;
#else
  int (*shutdown_)() = nullptr;
  int (*clk_)(std::uint32_t, int, void*) = nullptr;
  std::uint32_t dev_ = 0;
  unsigned lib_major_ = 0;
#endif
};

template <class F> F symbol(void* lib, const char* name) {
  return reinterpret_cast<F>(dlsym(lib, name));
}

#if PGPU_CUDA
ClockReader::ClockReader(const pgpu::DeviceProp&, int index) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_)
    return;
  auto init = symbol<int (*)()>(lib_, "nvmlInit_v2");
  auto by_pci = symbol<int (*)(const char*, NvmlDevice*)>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  auto by_index = symbol<int (*)(unsigned, NvmlDevice*)>(lib_, "nvmlDeviceGetHandleByIndex_v2");
  shutdown_ = symbol<int (*)()>(lib_, "nvmlShutdown");
  clock_ = symbol<int (*)(NvmlDevice, int, unsigned*)>(lib_, "nvmlDeviceGetClockInfo");
  reasons_ = symbol<int (*)(NvmlDevice, unsigned long long*)>(
      lib_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!reasons_)
    reasons_ = symbol<int (*)(NvmlDevice, unsigned long long*)>(
        lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  if (!init || !clock_ || init() != 0)
    return;
  // NVML numbers devices in PCI order, CUDA fastest-first and after CUDA_VISIBLE_DEVICES:
  // match by PCI bus id, fall back to the index.
  char bus[32] = {};
  bool found = false;
  if (by_pci && pgpu::pciBusId(bus, sizeof bus, index) == pgpu::kSuccess)
    found = by_pci(bus, &dev_) == 0;
  if (!found && by_index)
    found = by_index(static_cast<unsigned>(index), &dev_) == 0;
  ready_ = found;
}

ClockReader::~ClockReader() {
  if (lib_) {
    if (shutdown_ && ready_)
      shutdown_();
    dlclose(lib_);
  }
}

ClockSample ClockReader::sample() {
  ClockSample s;
  if (!ready_)
    return s;
  constexpr int kNvmlClockSm = 1; // NVML_CLOCK_SM
  unsigned mhz = 0;
  if (clock_(dev_, kNvmlClockSm, &mhz) == 0)
    s.sm_mhz = mhz;
  unsigned long long r = 0;
  if (reasons_ && reasons_(dev_, &r) == 0)
    s.reasons = r;
  return s;
}
#else
namespace rsmi {
// rsmi_frequencies_t changed layout in ROCm SMI 6 (a leading bool, 33 entries): read it into
// a buffer large enough for either and interpret it by the library's major version.
struct FrequenciesV5 {
  std::uint32_t num_supported, current;
  std::uint64_t frequency[32];
};
struct FrequenciesV6 {
  bool has_deep_sleep;
  std::uint32_t num_supported, current;
  std::uint64_t frequency[33];
};
struct Version {
  std::uint32_t major, minor, patch;
  const char* build;
};
constexpr int kClkTypeSys = 0; // RSMI_CLK_TYPE_SYS: the shader (graphics) clock
} // namespace rsmi

ClockReader::ClockReader(const pgpu::DeviceProp& prop, int index) {
  for (const char* name :
       {"librocm_smi64.so.1", "librocm_smi64.so", "librocm_smi64.so.7", "librocm_smi64.so.6",
        "librocm_smi64.so.5", "librocm_smi64.so.2", "/opt/rocm/lib/librocm_smi64.so"}) {
    lib_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib_)
      break;
  }
  if (!lib_)
    return;
  auto init = symbol<int (*)(std::uint64_t)>(lib_, "rsmi_init");
  auto count = symbol<int (*)(std::uint32_t*)>(lib_, "rsmi_num_monitor_devices");
  auto pci = symbol<int (*)(std::uint32_t, std::uint64_t*)>(lib_, "rsmi_dev_pci_id_get");
  auto version = symbol<int (*)(rsmi::Version*)>(lib_, "rsmi_version_get");
  shutdown_ = symbol<int (*)()>(lib_, "rsmi_shut_down");
  clk_ = symbol<int (*)(std::uint32_t, int, void*)>(lib_, "rsmi_dev_gpu_clk_freq_get");
  if (!init || !clk_ || init(0) != 0)
    return;
  rsmi::Version v{};
  lib_major_ = (version && version(&v) == 0) ? v.major : 0;
  std::uint32_t n = 0;
  if (!count || count(&n) != 0 || n == 0)
    return;
  // BDF id: domain << 32 | bus << 8 | device << 3 | function. Match HIP's PCI location.
  bool found = false;
  for (std::uint32_t d = 0; pci && d < n && !found; ++d) {
    std::uint64_t bdf = 0;
    if (pci(d, &bdf) != 0)
      continue;
    const auto bus = static_cast<int>((bdf >> 8) & 0xffu);
    const auto dev = static_cast<int>((bdf >> 3) & 0x1fu);
    const auto dom = static_cast<int>((bdf >> 32) & 0xffffffffu);
    if (bus == prop.pciBusID && dev == prop.pciDeviceID && dom == prop.pciDomainID) {
      dev_ = d;
      found = true;
    }
  }
  if (!found && static_cast<std::uint32_t>(index) < n) {
    dev_ = static_cast<std::uint32_t>(index);
    found = true;
  }
  ready_ = found;
}

ClockReader::~ClockReader() {
  if (lib_) {
    if (shutdown_ && ready_)
      shutdown_();
    dlclose(lib_);
  }
}

ClockSample ClockReader::sample() {
  ClockSample s;
  if (!ready_)
    return s;
  alignas(8) unsigned char buf[512] = {};
  if (clk_(dev_, rsmi::kClkTypeSys, buf) != 0)
    return s;
  std::uint32_t num = 0, cur = 0;
  const std::uint64_t* freq = nullptr;
  std::uint32_t cap = 0;
  if (lib_major_ >= 6) {
    const auto* f = reinterpret_cast<const rsmi::FrequenciesV6*>(buf);
    num = f->num_supported, cur = f->current, freq = f->frequency, cap = 33;
  } else {
    const auto* f = reinterpret_cast<const rsmi::FrequenciesV5*>(buf);
    num = f->num_supported, cur = f->current, freq = f->frequency, cap = 32;
  }
  if (num == 0 || num > cap || cur >= num)
    return s;                                             // layout guess wrong: report nothing
  s.sm_mhz = static_cast<unsigned>(freq[cur] / 1000000u); // Hz -> MHz
  return s;
}
#endif

// ---- JSON ----------------------------------------------------------------------------------

std::string jsonString(const std::string& in) {
  std::string out = "\"";
  for (const unsigned char c : in) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    default:
      if (c < 0x20) {
        char b[8];
        std::snprintf(b, sizeof b, "\\u%04x", c);
        out += b;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.3f", v);
  return b;
}

template <class T> std::string jsonOptional(const std::optional<T>& v) {
  return v ? std::to_string(*v) : std::string("null");
}

// ---- the benchmarks ------------------------------------------------------------------------

struct Device {
  int index = 0;
  pgpu::DeviceProp prop{};
  int cus = 1;
  std::size_t l2 = 0;
};

class Bench {
public:
  Bench(const Device& dev, const Plan& plan) : dev_(dev), plan_(plan) {}

  void progress(const std::string& key) {
    ++step_;
    std::fprintf(stderr, "[%d/%d] %s ...\n", step_, kSteps, key.c_str());
  }
  void done(const Result& r) {
    if (r.stats)
      std::fprintf(stderr, "[%d/%d] %s = %.1f (1e9/s, best of %d)\n", step_, kSteps, r.key.c_str(),
                   r.stats->best, r.stats->reps);
    else
      std::fprintf(stderr, "[%d/%d] %s: not measured (%s)\n", step_, kSteps, r.key.c_str(),
                   r.note.c_str());
  }

  static constexpr int kSteps = 11;
  static constexpr int kUnroll = 32; // chain steps per loop iteration in the compute kernels

  template <class T>
  Result runMad(const std::string& key, T m, T a, double ops_per_mad, const std::string& note) {
    Result r{key, std::nullopt, 0, note};
    auto kernel = madKernel<T, kUnroll>;
    const int blocks = blocksFor(kernel, dev_.cus);
    r.threads = static_cast<long long>(blocks) * kBlock;
    DeviceBuffer sink(static_cast<std::size_t>(r.threads) * sizeof(T));
    auto launch = [&](long long iters) {
      kernel<<<blocks, kBlock>>>(sink.as<T>(), static_cast<int>(iters), m, a);
      PG_LAUNCH_CHECK();
    };
    const double work = static_cast<double>(r.threads) * kIlp * kUnroll * ops_per_mad;
    r.stats = measure(timer_, plan_, launch, work, plan_.quick ? 4 : 16, 1LL << 30);
    return r;
  }

  Result runIntAdd() {
    constexpr int kPairs = kUnroll / 2;
    Result r{"int_add_gops", std::nullopt, 0,
             "32-bit integer add = 1 op; 8 Fibonacci-pair chains (x+=y; y+=x) per thread"};
    auto kernel = addKernel<kPairs>;
    const int blocks = blocksFor(kernel, dev_.cus);
    r.threads = static_cast<long long>(blocks) * kBlock;
    DeviceBuffer sink(static_cast<std::size_t>(r.threads) * sizeof(unsigned));
    auto launch = [&](long long iters) {
      kernel<<<blocks, kBlock>>>(sink.as<unsigned>(), static_cast<int>(iters), 0x2545f491u);
      PG_LAUNCH_CHECK();
    };
    const double work = static_cast<double>(r.threads) * kIlp * kPairs * 2.0;
    r.stats = measure(timer_, plan_, launch, work, plan_.quick ? 4 : 16, 1LL << 30);
    return r;
  }

  Result runLds() {
    constexpr int kLdsUnroll = 16;
    Result r{"ldst_ginst", std::nullopt, 0,
             "shared-memory (LDS) 32-bit load and store instructions, thread level, "
             "bank-conflict free; 8 loads + 8 stores per step"};
    auto kernel = ldsKernel<kLdsUnroll>;
    const int blocks = blocksFor(kernel, dev_.cus);
    r.threads = static_cast<long long>(blocks) * kBlock;
    DeviceBuffer sink(static_cast<std::size_t>(r.threads) * sizeof(unsigned));
    auto launch = [&](long long iters) {
      kernel<<<blocks, kBlock>>>(sink.as<unsigned>(), static_cast<int>(iters), kBlock,
                                 kIlp * kBlock);
      PG_LAUNCH_CHECK();
    };
    const double work = static_cast<double>(r.threads) * kLdsUnroll * kIlp * 2.0;
    r.stats = measure(timer_, plan_, launch, work, plan_.quick ? 4 : 16, 1LL << 30);
    return r;
  }

  // ---- memory ----
  void allocateMemoryBuffers() {
    const std::size_t l2 = std::max<std::size_t>(dev_.l2, 4 * kMiB);
    std::size_t free_b = 0, total_b = 0;
    PG_CHECK(pgpu::memGetInfo(&free_b, &total_b));
    // Streaming buffers: >= 16x L2 and >= 1 GiB (a quick run: >= 2x L2, >= 64 MiB); the
    // flush buffer: >= 4x L2 and >= 512 MiB (also past a 256 MiB last-level cache such as
    // MI300's Infinity Cache). All bounded by 80% of the free device memory.
    const std::size_t budget = free_b / 10 * 8;
    flush_bytes_ = plan_.quick ? std::max<std::size_t>(2 * l2, 32 * kMiB)
                               : std::max<std::size_t>(4 * l2, 512 * kMiB);
    flush_bytes_ = std::max(std::min(flush_bytes_, budget / 4 / kMiB * kMiB), 2 * l2);
    l2_bytes_ = std::max<std::size_t>(l2 / 2 / kMiB * kMiB, kMiB);
    std::size_t want = plan_.quick ? std::max<std::size_t>(2 * l2, 64 * kMiB)
                                   : std::max<std::size_t>(16 * l2, 1024 * kMiB);
    const std::size_t fixed = flush_bytes_ + l2_bytes_ + 16 * kMiB;
    const std::size_t floor = std::max<std::size_t>(4 * l2, 64 * kMiB);
    if (budget < fixed + 2 * floor)
      throw GpuFailure("not enough free device memory for the bandwidth buffers: " +
                       std::to_string(free_b / kMiB) + " MiB free, " +
                       std::to_string((fixed + 2 * floor) * 10 / 8 / kMiB) + " MiB needed");
    want = std::min(want, (budget - fixed) / 2);
    stream_bytes_ = want / (16 * kMiB) * (16 * kMiB);
    src_ = DeviceBuffer(stream_bytes_);
    dst_ = DeviceBuffer(stream_bytes_);
    flush_ = DeviceBuffer(flush_bytes_);
    l2buf_ = DeviceBuffer(l2_bytes_);
    checksum_ = DeviceBuffer(sizeof(unsigned));
    PG_CHECK(pgpu::deviceMemset(src_.as<void>(), 0x01, stream_bytes_));
    PG_CHECK(pgpu::deviceMemset(dst_.as<void>(), 0, stream_bytes_));
    PG_CHECK(pgpu::deviceMemset(l2buf_.as<void>(), 0x01, l2_bytes_));
    mem_blocks_ = std::max({blocksFor(readKernel, dev_.cus), blocksFor(writeKernel, dev_.cus),
                            blocksFor(copyKernel, dev_.cus)});
    mem_blocks_ = std::min(mem_blocks_, dev_.cus * 8);
  }

  void flushL2() {
    writeKernel<<<mem_blocks_, kBlock>>>(flush_.as<uint4>(), flush_bytes_ / 16,
                                         0x5a5a5a5au + ++flushes_);
    PG_LAUNCH_CHECK();
  }

  unsigned checksumOf(const DeviceBuffer& buf, std::size_t bytes) {
    PG_CHECK(pgpu::deviceMemset(checksum_.as<void>(), 0, sizeof(unsigned)));
    readKernel<<<mem_blocks_, kBlock>>>(buf.as<uint4>(), bytes / 16, checksum_.as<unsigned>());
    PG_LAUNCH_CHECK();
    unsigned v = 0;
    PG_CHECK(pgpu::memcpyToHost(&v, checksum_.as<void>(), sizeof v));
    return v;
  }

  static unsigned expectedChecksum(std::size_t bytes, unsigned word, unsigned times = 1) {
    // Sum of bytes/4 copies of `word`, `times` times, modulo 2^32.
    return static_cast<unsigned>(static_cast<std::uint64_t>(bytes / 4) * word * times);
  }

  std::string memNote(const char* what) const {
    return std::string(what) + "; " + std::to_string(stream_bytes_ / kMiB) +
           " MiB buffers, 16-byte accesses, L2 flushed (" + std::to_string(flush_bytes_ / kMiB) +
           " MiB written) before each repetition, checksum verified";
  }

  Result runDramRead() {
    Result r{"dram_read_gbs", std::nullopt, static_cast<long long>(mem_blocks_) * kBlock,
             memNote("bytes read")};
    const std::size_t n = stream_bytes_ / 16;
    auto launch = [&](long long passes) {
      for (long long p = 0; p < passes; ++p) {
        readKernel<<<mem_blocks_, kBlock>>>(src_.as<uint4>(), n, checksum_.as<unsigned>());
        PG_LAUNCH_CHECK();
      }
    };
    r.stats = measure(timer_, plan_, launch, static_cast<double>(stream_bytes_), 1, 4096,
                      [&] { flushL2(); });
    if (checksumOf(src_, stream_bytes_) != expectedChecksum(stream_bytes_, 0x01010101u))
      throw GpuFailure("read checksum mismatch: the kernel did not read the whole buffer");
    return r;
  }

  Result runDramWrite() {
    Result r{"dram_write_gbs", std::nullopt, static_cast<long long>(mem_blocks_) * kBlock,
             memNote("bytes written")};
    const std::size_t n = stream_bytes_ / 16;
    auto launch = [&](long long passes) {
      for (long long p = 0; p < passes; ++p) {
        writeKernel<<<mem_blocks_, kBlock>>>(dst_.as<uint4>(), n, 0x02020202u);
        PG_LAUNCH_CHECK();
      }
    };
    r.stats = measure(timer_, plan_, launch, static_cast<double>(stream_bytes_), 1, 4096,
                      [&] { flushL2(); });
    if (checksumOf(dst_, stream_bytes_) != expectedChecksum(stream_bytes_, 0x02020202u))
      throw GpuFailure("write checksum mismatch: the kernel did not write the whole buffer");
    return r;
  }

  Result runDramCopy() {
    Result r{"dram_copy_gbs", std::nullopt, static_cast<long long>(mem_blocks_) * kBlock,
             memNote("bytes read + bytes written")};
    const std::size_t n = stream_bytes_ / 16;
    auto launch = [&](long long passes) {
      for (long long p = 0; p < passes; ++p) {
        copyKernel<<<mem_blocks_, kBlock>>>(src_.as<uint4>(), dst_.as<uint4>(), n);
        PG_LAUNCH_CHECK();
      }
    };
    r.stats = measure(timer_, plan_, launch, 2.0 * static_cast<double>(stream_bytes_), 1, 4096,
                      [&] { flushL2(); });
    if (checksumOf(dst_, stream_bytes_) != expectedChecksum(stream_bytes_, 0x01010101u))
      throw GpuFailure("copy checksum mismatch: the kernel did not copy the whole buffer");
    return r;
  }

  Result runL2() {
    const int blocks = std::min(blocksFor(l2ReadKernel, dev_.cus), dev_.cus * 8);
    Result r{"l2_gbs", std::nullopt, static_cast<long long>(blocks) * kBlock,
             "bytes read from a " + std::to_string(l2_bytes_ / kMiB) +
                 " MiB working set (about half of L2) read repeatedly" +
                 (PGPU_CUDA ? ", L2-only loads (ld.global.cg)" : "")};
    const std::size_t n = l2_bytes_ / 16;
    auto launch = [&](long long passes) {
      l2ReadKernel<<<blocks, kBlock>>>(l2buf_.as<uint4>(), n, static_cast<int>(passes),
                                       checksum_.as<unsigned>());
      PG_LAUNCH_CHECK();
    };
    r.stats = measure(timer_, plan_, launch, static_cast<double>(l2_bytes_), 4, 1 << 20);
    PG_CHECK(pgpu::deviceMemset(checksum_.as<void>(), 0, sizeof(unsigned)));
    l2ReadKernel<<<blocks, kBlock>>>(l2buf_.as<uint4>(), n, 3, checksum_.as<unsigned>());
    PG_LAUNCH_CHECK();
    unsigned v = 0;
    PG_CHECK(pgpu::memcpyToHost(&v, checksum_.as<void>(), sizeof v));
    if (v != expectedChecksum(l2_bytes_, 0x01010101u, 3))
      throw GpuFailure("L2 checksum mismatch: the kernel did not read the whole working set");
    return r;
  }

  template <int K> void sweepPoint(std::vector<SweepPoint>& out) {
    auto kernel = sweepKernel<K>;
    const int blocks = std::min(blocksFor(kernel, dev_.cus), dev_.cus * 8);
    const std::size_t n = stream_bytes_ / 16; // float4 elements
    auto launch = [&](long long passes) {
      for (long long p = 0; p < passes; ++p) {
        kernel<<<blocks, kBlock>>>(src_.as<float4>(), dst_.as<float4>(), n, 0.5f, 0.25f);
        PG_LAUNCH_CHECK();
      }
    };
    const double elements = static_cast<double>(n) * 4.0;
    const double flops = elements * 2.0 * K;
    const double bytes = elements * 8.0;
    const Stats s = measure(timer_, plan_, launch, flops, 1, 4096, [&] { flushL2(); });
    const double gbs = s.best * bytes / flops; // same run as the best GFLOPS
    out.push_back({K, 2.0 * K / 8.0, s.best, gbs});
  }

  std::vector<SweepPoint> runSweep() {
    std::vector<SweepPoint> out;
    sweepPoint<1>(out);
    sweepPoint<2>(out);
    sweepPoint<4>(out);
    sweepPoint<8>(out);
    sweepPoint<16>(out);
    sweepPoint<32>(out);
    sweepPoint<64>(out);
    sweepPoint<128>(out);
    sweepPoint<256>(out);
    return out;
  }

private:
  const Device& dev_;
  Plan plan_;
  EventTimer timer_;
  int step_ = 0;
  DeviceBuffer src_, dst_, flush_, l2buf_, checksum_;
  std::size_t stream_bytes_ = 0, flush_bytes_ = 0, l2_bytes_ = 0;
  int mem_blocks_ = 1;
  unsigned flushes_ = 0;
};

// ---- command line --------------------------------------------------------------------------

struct Options {
  int device = 0;
  bool quick = false;
  std::string output; // empty: stdout
};

void usage(std::FILE* f) {
  std::fprintf(f,
               "usage: %s [--device-index N] [--quick] [-o FILE]\n"
               "  Measures the peak rates of one %s GPU and prints perfgate-microbench/1 JSON.\n"
               "  --device-index N  device to measure (default 0)\n"
               "  --quick           small sizes and 3 repetitions (a smoke run)\n"
               "  -o FILE           write the JSON to FILE instead of stdout\n"
               "exit status: 0 ok, 1 GPU error during a run, 2 bad arguments, 77 no usable GPU\n",
               pgpu::kProgram, pgpu::kRuntimeName);
}

// Returns -1 when parsing succeeded, else the exit status.
int parseArgs(int argc, char** argv, Options& o) {
  auto bad = [](const std::string& msg) {
    std::fprintf(stderr, "%s: %s\n", pgpu::kProgram, msg.c_str());
    usage(stderr);
    return 2;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    std::string value;
    auto takeValue = [&](const std::string& name) -> bool {
      if (a.size() > name.size() && a.compare(0, name.size() + 1, name + "=") == 0) {
        value = a.substr(name.size() + 1);
        return true;
      }
      if (a != name)
        return false;
      if (i + 1 >= argc)
        throw std::invalid_argument(name + " needs a value");
      value = argv[++i];
      return true;
    };
    try {
      if (a == "-h" || a == "--help") {
        usage(stdout);
        return 0;
      } else if (a == "--quick") {
        o.quick = true;
      } else if (takeValue("--device-index")) {
        char* end = nullptr;
        errno = 0;
        const long v = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0' || errno != 0 || v < 0 || v > 1024)
          return bad("--device-index: not a device index: '" + value + "'");
        o.device = static_cast<int>(v);
      } else if (takeValue("-o") || takeValue("--output")) {
        if (value.empty())
          return bad("-o: empty file name");
        o.output = value;
      } else {
        return bad("unknown argument '" + a + "'");
      }
    } catch (const std::invalid_argument& e) {
      return bad(e.what());
    }
  }
  return -1;
}

std::string render(const Device& dev, const ClockSample& before, const ClockSample& after,
                   const std::vector<Result>& results, const std::vector<SweepPoint>& sweep,
                   bool quick) {
  std::string j;
  j += "{\n  \"schema\": \"perfgate-microbench/1\",\n  \"backend\": " + jsonString(pgpu::kBackend) +
       ",\n";
  j += std::string("  \"quick\": ") + (quick ? "true" : "false") + ",\n";
  j += "  \"device\": {\n";
  j += "    \"index\": " + std::to_string(dev.index) + ",\n";
  j += "    \"name\": " + jsonString(dev.prop.name) + ",\n";
  j += "    \"vendor\": " + jsonString(pgpu::kVendor) + ",\n";
  j += "    \"arch\": " + jsonString(pgpu::archName(dev.prop)) + ",\n";
  j += "    \"compute_units\": " + std::to_string(dev.prop.multiProcessorCount) + ",\n";
  j += "    \"warp_size\": " + std::to_string(dev.prop.warpSize) + ",\n";
  j += "    \"l2_bytes\": " + std::to_string(dev.prop.l2CacheSize) + ",\n";
  j += "    \"memory_bytes\": " + std::to_string(dev.prop.totalGlobalMem) + ",\n";
  j += "    \"sm_clock_mhz_before\": " + jsonOptional(before.sm_mhz) + ",\n";
  j += "    \"sm_clock_mhz_after\": " + jsonOptional(after.sm_mhz) + ",\n";
  if (after.reasons) {
    char b[32];
    std::snprintf(b, sizeof b, "0x%llx", *after.reasons);
    j += "    \"throttle_reasons\": " + jsonString(b) + "\n";
  } else {
    j += "    \"throttle_reasons\": null\n";
  }
  j += "  },\n  \"results\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const Result& r = results[i];
    const Stats s = r.stats.value_or(Stats{});
    j += "    { \"key\": " + jsonString(r.key) + ", \"scope\": \"all\", \"unit\": \"1e9/s\", ";
    j += "\"repetitions\": " + std::to_string(s.reps) + ",\n      ";
    j += "\"best\": " + jsonNumber(s.best) + ", \"median\": " + jsonNumber(s.median) +
         ", \"min\": " + jsonNumber(s.min) + ", \"max\": " + jsonNumber(s.max) + ",\n      ";
    j += "\"threads\": " + std::to_string(r.threads) + ", \"note\": " + jsonString(r.note) + " }";
    j += i + 1 < results.size() ? ",\n" : "\n";
  }
  j += "  ],\n  \"sweep\": [\n";
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    const SweepPoint& p = sweep[i];
    j += "    { \"fma_per_element\": " + std::to_string(p.fma_per_element) +
         ", \"intensity_flop_per_byte\": " + jsonNumber(p.intensity) +
         ", \"gflops\": " + jsonNumber(p.gflops) + ", \"gbs\": " + jsonNumber(p.gbs) + " }";
    j += i + 1 < sweep.size() ? ",\n" : "\n";
  }
  j += "  ]\n}\n";
  return j;
}

int run(const Options& opt) {
  // Device count first; after an error the count is not touched, so it is never read then.
  int count = 0;
  const pgpu::Error ce = pgpu::getDeviceCount(&count);
  if (ce != pgpu::kSuccess) {
    std::fprintf(stderr, "%s: no %s device: %s\n", pgpu::kProgram, pgpu::kRuntimeName,
                 pgpu::errorString(ce));
    return 77;
  }
  if (count <= 0) {
    std::fprintf(stderr, "%s: no %s device: the runtime reports 0 devices\n", pgpu::kProgram,
                 pgpu::kRuntimeName);
    return 77;
  }
  if (opt.device >= count) {
    std::fprintf(stderr, "%s: --device-index %d out of range: %d device(s)\n", pgpu::kProgram,
                 opt.device, count);
    return 2;
  }
  Device dev;
  dev.index = opt.device;
  pgpu::Error e = pgpu::setDevice(opt.device);
  if (e == pgpu::kSuccess)
    e = pgpu::initContext();
  if (e == pgpu::kSuccess)
    e = pgpu::getDeviceProperties(&dev.prop, opt.device);
  if (e != pgpu::kSuccess) {
    std::fprintf(stderr, "%s: no %s device: device %d is not usable: %s\n", pgpu::kProgram,
                 pgpu::kRuntimeName, opt.device, pgpu::errorString(e));
    return 77;
  }
  dev.cus = std::max(dev.prop.multiProcessorCount, 1);
  dev.l2 = static_cast<std::size_t>(std::max(dev.prop.l2CacheSize, 0));

  // Check the output path before spending the run.
  std::string tmp;
  if (!opt.output.empty()) {
    tmp = opt.output + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "%s: cannot write '%s': %s\n", pgpu::kProgram, tmp.c_str(),
                   std::strerror(errno));
      return 2;
    }
    std::fclose(f);
  }

  std::fprintf(stderr, "%s: device %d: %s (%s, %d compute units)%s\n", pgpu::kProgram, dev.index,
               dev.prop.name, pgpu::archName(dev.prop).c_str(), dev.cus,
               opt.quick ? ", quick run" : "");
  Plan plan;
  plan.quick = opt.quick;
  plan.target_ms = opt.quick ? 1.0 : 20.0;
  plan.reps = opt.quick ? 3 : 10;

  ClockReader clocks(dev.prop, dev.index);
  const ClockSample before = clocks.sample();
  std::vector<Result> results;
  std::vector<SweepPoint> sweep;
  std::string current = "setup";
  try {
    Bench b(dev, plan);
    auto step = [&](const std::string& key, const std::function<Result()>& f) {
      current = key;
      b.progress(key);
      results.push_back(f());
      b.done(results.back());
    };
    step("fp32_gflops", [&] {
      return b.runMad<float>("fp32_gflops", 0.5f, 0.25f, 2.0,
                             "FMA = 2 flops; 8 independent fmaf chains per thread");
    });
    step("fp64_gflops", [&] {
      return b.runMad<double>("fp64_gflops", 0.5, 0.25, 2.0,
                              "FMA = 2 flops; 8 independent fma chains per thread");
    });
    step("fp16_gflops", [&] {
      if (!pgpu::hasFp16Arith(dev.prop))
        return Result{"fp16_gflops", std::nullopt, 0, "no fp16 arithmetic on this device"};
      return b.runMad<__half2>("fp16_gflops", __float2half2_rn(0.5f), __float2half2_rn(0.25f), 4.0,
                               "half2 FMA = 2 lanes x 2 flops; 8 chains per thread");
    });
    step("int_mad_gops", [&] {
      return b.runMad<unsigned>(
          "int_mad_gops", 0x00000326u, 0x9e3779b9u, 2.0,
          PGPU_CUDA ? "32-bit integer multiply-add a*b+c = 2 ops (IMAD); 8 chains per thread"
                    : "integer multiply-add a*b+c = 2 ops, 24-bit multiply "
                      "(v_mad_u32_u24); 8 chains per thread");
    });
    step("int_add_gops", [&] { return b.runIntAdd(); });
    step("ldst_ginst", [&] { return b.runLds(); });
    current = "dram_read_gbs"; // the buffers are set up for it
    b.allocateMemoryBuffers();
    step("dram_read_gbs", [&] { return b.runDramRead(); });
    step("dram_write_gbs", [&] { return b.runDramWrite(); });
    step("dram_copy_gbs", [&] { return b.runDramCopy(); });
    step("l2_gbs", [&] { return b.runL2(); });
    current = "roofline_sweep";
    b.progress(current);
    sweep = b.runSweep();
    for (const SweepPoint& p : sweep)
      std::fprintf(stderr, "      %3d FMA/element  %7.3f flop/B  %10.1f GFLOPS  %8.1f GB/s\n",
                   p.fma_per_element, p.intensity, p.gflops, p.gbs);
  } catch (const GpuFailure& err) {
    std::fprintf(stderr, "%s: %s: %s\n", pgpu::kProgram, current.c_str(), err.what());
    if (!tmp.empty())
      std::remove(tmp.c_str());
    return 1;
  }
  const ClockSample after = clocks.sample();

  const std::string json = render(dev, before, after, results, sweep, opt.quick);
  if (opt.output.empty()) {
    std::fwrite(json.data(), 1, json.size(), stdout);
    std::fflush(stdout);
    return 0;
  }
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  const bool ok = f && std::fwrite(json.data(), 1, json.size(), f) == json.size();
  const bool closed = f && std::fclose(f) == 0;
  if (!ok || !closed || std::rename(tmp.c_str(), opt.output.c_str()) != 0) {
    std::fprintf(stderr, "%s: cannot write '%s': %s\n", pgpu::kProgram, opt.output.c_str(),
                 std::strerror(errno));
    std::remove(tmp.c_str());
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  Options opt;
  const int parsed = parseArgs(argc, argv, opt);
  if (parsed >= 0)
    return parsed;
  return run(opt);
}
