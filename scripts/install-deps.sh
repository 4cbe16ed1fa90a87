#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages perfgate builds with, only those that are missing; with --cmake4
# also pip's CMake 4.4 into .cmake4/ (the test command's cmake4 configuration).
set -euo pipefail

packages=(cmake ninja-build g++ python3 nlohmann-json3-dev libcli11-dev libgtest-dev
          libbenchmark-dev python3-jsonschema
          python3-yaml # tests/ci/check_workflows.py reads the GitHub workflows
          python3-prometheus-client libxml2-utils # cli.report_ci_formats: OpenMetrics, JUnit XSD
          libsqlite3-dev # rocpd .db profiles (rocprofv3's default output since ROCm 7.0)
          ccache # scripts/test.sh: each configuration compiles what the others already did once
          hipcc libamdhip64-dev) # HIP builds of the GPU micro-benchmarks (Debian's ROCm 5.2)

# cuobjdump and nvdisasm for the offline check of the tensor micro-benchmarks' SASS
# (tests/microbench/check_tensor_isa.sh): PyPI wheels, no GPU needed, only where a CUDA toolkit
# builds those benchmarks. Without them that one test skips (77) and says why.
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
  if ! python3 -c 'import glob, os, sys, nvidia; sys.exit(not any(glob.glob(os.path.join(p, "*", "bin", "nvdisasm")) for p in nvidia.__path__))' 2>/dev/null; then
    echo "==> dependencies: installing the SASS tools (pip: nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)"
    python3 -m pip install -q nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm ||
      echo "warning: could not install the SASS tools; microbench.cuda.tensor_sass will skip" >&2
  fi
fi

# pip's CMake 4.4 for the cmake4 test configuration (scripts/test.sh): GPU hosts and many users
# build with CMake 4, whose find modules and CTest wording differ from Debian's 3.25. In a
# virtual environment of its own (.cmake4/, ignored by git), so nothing on the system changes.
install_cmake4() {
  [ "${1:-}" = --cmake4 ] || return 0 # only the test command asks for it
  local venv
  venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cmake4"
  # cuda-bench is nvbench's PyPI wheel: its headers, libnvbench.so and CMake package let that
  # configuration build tests/nvbench/copy_bench.cu (nvbench's package needs CMake 3.30).
  if "$venv/bin/cmake" --version 2>/dev/null | grep -q "version 4\.4\." &&
     "$venv/bin/pip" show -q cuda-bench >/dev/null 2>&1; then
    return 0
  fi
  echo "==> dependencies: CMake 4.4 and cuda-bench 0.3 into $venv (pip)"
  rm -rf "$venv"
  python3 -m venv "$venv" && "$venv/bin/pip" install -q 'cmake==4.4.*' 'cuda-bench==0.3.*' ||
    { echo "error: could not install CMake 4.4 and cuda-bench with pip into $venv" >&2; exit 2; }
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "==> dependencies: all present (${packages[*]})"
  install_cmake4 "$@"
  exit 0
fi

echo "==> dependencies: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
install_cmake4 "$@"
