// SPDX-License-Identifier: Apache-2.0
// An nvbench program as nvbench users write them, for perfgate's nvbench importer and collector
// (built against the nvbench that PyPI's cuda-bench wheel ships, when found):
//  - copy:      a GPU copy over a type axis (T) and a power-of-two axis (Elements), declaring
//               its element count and global memory reads and writes; its input is prepared
//               by a kernel of its own (fill) before state.exec, as real benchmarks do, which
//               the collector must not count as the measured kernel.
//  - host_copy: a CPU-only benchmark (set_is_cpu_only) over an int64 and a string axis, whose
//               states nvbench times on the host (nv/cpu_only/*); nvbench's main still needs a
//               CUDA device to start, so no file in tests/data/nvbench/ was written by it.
#include <nvbench/nvbench.cuh>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

template <typename T>
__global__ void fill(T* out, std::size_t n, T value) {
  const std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x;
  if (i < n) {
    out[i] = value;
  }
}

template <typename T>
__global__ void copy_kernel(const T* in, T* out, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n;
       i += std::size_t{gridDim.x} * blockDim.x) {
    out[i] = in[i];
  }
}

template <typename T>
void copy(nvbench::state& state, nvbench::type_list<T>) {
  const auto n = static_cast<std::size_t>(state.get_int64("Elements"));
  T* in = nullptr;
  T* out = nullptr;
  NVBENCH_CUDA_CALL(cudaMalloc(&in, n * sizeof(T)));
  NVBENCH_CUDA_CALL(cudaMalloc(&out, n * sizeof(T)));
  fill<<<static_cast<unsigned>((n + 255) / 256), 256>>>(in, n, T{1});
  NVBENCH_CUDA_CALL(cudaDeviceSynchronize());

  state.add_element_count(n, "Elements");
  state.add_global_memory_reads<T>(n, "ReadBytes");
  state.add_global_memory_writes<T>(n, "WriteBytes");
  state.exec([in, out, n](nvbench::launch& launch) {
    copy_kernel<<<1024, 256, 0, launch.get_stream()>>>(in, out, n);
  });
  NVBENCH_CUDA_CALL(cudaFree(in));
  NVBENCH_CUDA_CALL(cudaFree(out));
}
using copy_types = nvbench::type_list<std::int32_t, double>;
NVBENCH_BENCH_TYPES(copy, NVBENCH_TYPE_AXES(copy_types))
    .set_type_axes_names({"T"})
    .add_int64_power_of_two_axis("Elements", {20, 24});

void host_copy(nvbench::state& state) {
  const auto bytes = static_cast<std::size_t>(state.get_int64("Bytes"));
  const std::string how = state.get_string("How");
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  state.add_element_count(bytes, "Bytes");
  state.add_global_memory_reads(bytes, "ReadBytes");
  state.add_global_memory_writes(bytes, "WriteBytes");
  state.exec(nvbench::exec_tag::no_gpu, [&](nvbench::launch&) {
    if (how == "memcpy") {
      std::memcpy(dst.data(), src.data(), bytes);
    } else {
      for (std::size_t i = 0; i < bytes; ++i) {
        dst[i] = src[i];
      }
    }
    asm volatile("" : : "r"(dst.data()) : "memory");
  });
}
NVBENCH_BENCH(host_copy)
    .add_int64_axis("Bytes", {1 << 20, 16 << 20})
    .add_string_axis("How", {"memcpy", "byte loop"})
    .set_is_cpu_only(true);
