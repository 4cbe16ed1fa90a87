// SPDX-License-Identifier: Apache-2.0
// Pinned host <-> device copies (cudaMemcpyAsync / hipMemcpyAsync from cudaMallocHost /
// hipHostMalloc memory) on the default stream, timed with the same events as the kernels: the
// rate a program's input and output transfers reach at best (pageable memory is slower: it is
// staged through a pinned buffer by the driver). Both directions are checked to have copied
// the data.
#include "gpu_bus.hpp"

#include <cstring>
#include <string>

namespace perfgate::microbench::gpu {

namespace {

class pinned_buffer {
public:
  explicit pinned_buffer(std::size_t bytes) { PG_CHECK(pgpu::host_malloc(&ptr_, bytes)); }
  pinned_buffer(const pinned_buffer&) = delete;
  pinned_buffer& operator=(const pinned_buffer&) = delete;
  ~pinned_buffer() {
    if (ptr_)
      (void)pgpu::host_free(ptr_);
  }
  unsigned char* bytes() const { return static_cast<unsigned char*>(ptr_); }

private:
  void* ptr_ = nullptr;
};

// Whether the first and last 4 KiB of `p` hold `value` in every byte.
bool filled_with(const unsigned char* p, std::size_t bytes, unsigned char value) {
  const std::size_t probe = 4096;
  for (std::size_t i = 0; i < probe; ++i)
    if (p[i] != value || p[bytes - 1 - i] != value)
      return false;
  return true;
}

} // namespace

std::vector<result> run_bus(const bench& b) {
  const std::size_t bytes = (b.p.quick ? 64 : 256) * mib;
  pinned_buffer host(bytes);
  device_buffer dev(bytes);
  const std::string size = std::to_string(bytes / mib) + " MiB";

  std::memset(host.bytes(), 0x03, bytes); // touches every page before the timing
  auto h2d = [&](long long copies) {
    for (long long c = 0; c < copies; ++c)
      PG_CHECK(pgpu::memcpy_h2d_async(dev.as<void>(), host.bytes(), bytes));
  };
  result up{"bus_h2d_gbs", measure(b.timer, b.p, h2d, static_cast<double>(bytes), 1, 256), 0,
            "host to device: " + size + " copies from pinned host memory, bytes copied"};
  std::memset(host.bytes(), 0, bytes);
  PG_CHECK(pgpu::memcpy_to_host(host.bytes(), dev.as<void>(), 4096));
  PG_CHECK(pgpu::memcpy_to_host(host.bytes() + bytes - 4096, dev.as<unsigned char>() + bytes - 4096,
                                4096));
  if (!filled_with(host.bytes(), bytes, 0x03))
    throw gpu_failure("host-to-device copy: the device buffer does not hold the host's data");

  PG_CHECK(pgpu::device_memset(dev.as<void>(), 0x05, bytes));
  auto d2h = [&](long long copies) {
    for (long long c = 0; c < copies; ++c)
      PG_CHECK(pgpu::memcpy_d2h_async(host.bytes(), dev.as<void>(), bytes));
  };
  result down{"bus_d2h_gbs", measure(b.timer, b.p, d2h, static_cast<double>(bytes), 1, 256), 0,
              "device to host: " + size + " copies into pinned host memory, bytes copied"};
  PG_CHECK(pgpu::device_synchronize());
  if (!filled_with(host.bytes(), bytes, 0x05))
    throw gpu_failure("device-to-host copy: the host buffer does not hold the device's data");

  // The boat hull model's B_bus prices a program's inputs and outputs at one rate: the slower
  // direction, so neither side's transfers are promised more than the bus gave.
  const bool up_slower = up.stats->best <= down.stats->best;
  result bus{"bus_gbs", up_slower ? up.stats : down.stats, 0,
             std::string("the slower direction of pinned host-device copies (") +
                 (up_slower ? "host to device" : "device to host") + ", " + size + ")"};
  return {up, down, bus};
}

} // namespace perfgate::microbench::gpu
