// SPDX-License-Identifier: Apache-2.0
// `--collector auto`: what the program is (read from its bytes, never by running it) and what
// the machine has decide the collector; where that does not decide it, the user is told the
// choices instead of getting a collector that cannot work here.
#include <perfgate/error.hpp>

#include "collectors/collectors.hpp"
#include "util/subprocess.hpp"

#include <fstream>
#include <iterator>

namespace perfgate::detail {

program_facts program_facts_of(const std::string& program) {
  program_facts f;
  std::ifstream in(find_executable(program).value_or(program), std::ios::binary);
  if (!in) {
    return f;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto has = [&](std::string_view s) { return bytes.find(s) != std::string::npos; };
  f.script = bytes.starts_with("#!");
  // Dynamically linked: the library is NEEDED by name; statically: its own symbols or flags
  // are in the binary (nvbench's namespace in mangled names, Google Benchmark's flag names).
  f.nvbench = has("libnvbench.so") || has("N7nvbench");
  f.gbench = has("benchmark_out_format") || has("libbenchmark.so");
  f.hip = has("libamdhip64.so") || has("__hip_fatbin");
  f.cuda = has("libcudart.so") || has("__cudaRegisterFatBinary") ||
           has("__nv_cudaEntityRegisterCallback");
  return f;
}

machine_facts machine_facts_here() {
  machine_facts m;
  m.nvidia_unavailable = nvidia_gpu_unavailable();
  m.rocm = find_executable("rocprofv3").has_value();
  return m;
}

std::string choose_collector(const std::string& program, const program_facts& p,
                             const machine_facts& m) {
  if (p.nvbench) {
    return "nvbench";
  }
  if (p.gbench) {
    return "gbench";
  }
  const bool nvidia = !m.nvidia_unavailable;
  if (p.cuda || (!p.hip && nvidia && !m.rocm)) {
    return "cupti"; // a CUDA program without a driver skips there, saying why
  }
  if (p.hip || (m.rocm && !nvidia)) {
    return "rocprof";
  }
  // Neither the program nor the machine tells: say what was looked at and what to choose.
  std::string what = program + " is " +
                     (p.script ? "a script, whose benchmark auto cannot see into"
                               : "neither a Google Benchmark nor an nvbench program, nor a "
                                 "CUDA or HIP binary that auto recognises");
  const std::string machine = nvidia ? "this machine has both an NVIDIA GPU and ROCm (rocprofv3)"
                                     : "this machine has no NVIDIA GPU (" + *m.nvidia_unavailable +
                                           ") and no ROCm (no rocprofv3 on PATH)";
  throw skip_error("--collector auto cannot tell how to measure it: " + what + ", and " + machine +
                   ". Choose one: --collector gbench (a Google Benchmark program), "
                   "nvbench (an nvbench program), cupti or ncu (a CUDA program on an NVIDIA "
                   "GPU), rocprof (a HIP program on an AMD GPU), or profile (a recorded "
                   "--profile); in CMake, add_perf_prediction(... COLLECTOR <one of them>)");
}

} // namespace perfgate::detail
