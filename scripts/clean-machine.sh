#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# perfgate on a clean machine (docs/ci.md, "On a clean machine"): as root, makes a minimal
# Debian 12 (mmdebstrap --variant=minbase bookworm, the mirror of this machine's apt sources)
# with only build-essential, cmake, git and the consumer's libbenchmark-dev, and in it:
#   1 builds perfgate from a clone the documented way (cmake -S -B, cmake --build); its
#     nlohmann_json and CLI11 come from the pinned fallback, fed from local copies (DEPS_DIR)
#   2 packages it (cpack), lintian on the packages (lintian of this machine: not in the chroot)
#   3 the GitHub action's install step (the build of 1 as its restored cache) and gate step on
#     tests/consumer, a Google Benchmark gate
#   4 the FetchContent consumer (tests/consumer/check_consumer.cmake, MODE=fetchcontent):
#     configures, builds, and `ctest -L perf` gives each test its asserted outcome
#   5 apt-get install ./perfgate_*.deb; perfgate --version, calibrate --backend cpu, a gbench
#     gate with the installed perfgate; ldd of it and ldconfig -p show no CUDA or ROCm library
# Each phase's wall time is printed; any failure stops the script (exit 1).
#   scripts/clean-machine.sh [--reuse] [WORK_DIR]   (default /tmp/perfgate-clean-machine)
# --reuse keeps WORK_DIR/root when an earlier run of this script made it (mmdebstrap takes 5-18
# minutes here) and removes only what the steps below wrote there; the build step still refuses
# a root where perfgate's dependencies are installed.
# DEPS_DIR (default: WORK_DIR/deps) holds the pinned sources, checked against their SHA-256:
#   nlohmann-json3_3.11.2.orig.tar.gz  (Debian's orig tarball = GitHub's v3.11.2 archive;
#                                       `apt-get source --download-only nlohmann-json3`)
#   CLI11-2.1.2.tar.gz                 (git archive --prefix=CLI11-2.1.2/ v2.1.2 | gzip -n, of a
#                                       CLI11 clone: GitHub's v2.1.2 archive)
set -euo pipefail
root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
reuse=0
if [ "${1:-}" = "--reuse" ]; then reuse=1; shift; fi
work="${1:-/tmp/perfgate-clean-machine}"
deps="${DEPS_DIR:-$work/deps}"
die() { echo "clean-machine: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || die "run it as root (mmdebstrap, chroot)"
command -v mmdebstrap >/dev/null || die "needs mmdebstrap (apt-get install mmdebstrap)"

declare -A pins=([nlohmann-json3_3.11.2.orig.tar.gz]=d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273
                 [CLI11-2.1.2.tar.gz]=26291377e892ba0e5b4972cdfd4a2ab3bf53af8dac1f4ea8fe0d1376b625c8cb)
for f in "${!pins[@]}"; do
  [ -f "$deps/$f" ] || die "no $deps/$f (DEPS_DIR): see this script's header for where it comes from"
  echo "${pins[$f]}  $deps/$f" | sha256sum -c --quiet - || die "$deps/$f is not the pinned file"
done

# The Debian archive this machine's apt uses (deb822 first, as Debian 12 writes it).
mirror=""
if [ -f /etc/apt/sources.list.d/debian.sources ]; then
  mirror="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources)"
fi
if [ -z "$mirror" ] && [ -f /etc/apt/sources.list ]; then
  mirror="$(awk '$1 == "deb" && $2 !~ /^\[/ && $2 ~ /debian/ && $3 == "bookworm" {print $2; exit}' /etc/apt/sources.list)"
fi
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources.list*"

phase_start=$SECONDS
phase() { # phase NAME: prints the time of the previous phase, then this one's title
  echo "==> [$((SECONDS - phase_start)) s] $1"
  phase_start=$SECONDS
}
total_start=$SECONDS

chroot_dir="$work/root"
if [ "$reuse" = 1 ] && [ -f "$chroot_dir/clean-steps.sh" ] && grep -q "^I: success" "$work/mmdebstrap.log"; then
  phase "reusing $chroot_dir (made by an earlier run: $(grep "^I: success" "$work/mmdebstrap.log"))"
  umount "$chroot_dir/proc" "$chroot_dir/sys" 2>/dev/null || true
  rm -rf "$chroot_dir"/{src,deps,build,dist,runner,consumer-action,consumer-fc,consumer-deb} \
    "$chroot_dir"/{build,consumer,apt}.log "$chroot_dir/cpu-device.json"
  if chroot "$chroot_dir" dpkg-query -W perfgate >/dev/null 2>&1; then
    chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get purge --autoremove -y -q perfgate >/dev/null
  fi
else
  phase "mmdebstrap minbase bookworm from $mirror"
  rm -rf "$chroot_dir"
  mkdir -p "$work"
  mmdebstrap --variant=minbase --include=build-essential,cmake,git,libbenchmark-dev \
    bookworm "$chroot_dir" "$mirror" >"$work/mmdebstrap.log" 2>&1 ||
    { tail -20 "$work/mmdebstrap.log"; die "mmdebstrap failed (log: $work/mmdebstrap.log)"; }
fi
mkdir -p "$chroot_dir/src" "$chroot_dir/deps"
cp "$deps"/nlohmann-json3_3.11.2.orig.tar.gz "$deps"/CLI11-2.1.2.tar.gz "$chroot_dir/deps/"
git clone -q --no-hardlinks "$root_dir" "$chroot_dir/src/perfgate"
git -C "$chroot_dir/src/perfgate" checkout -q "$(git -C "$root_dir" rev-parse HEAD)"
# /proc and /sys as every machine has them: without /sys the CPU calibration finds no caches
# and holds a 6 MiB triad to DRAM, which it then beats (the 2026-11-28 run's consumer step).
mount -t proc proc "$chroot_dir/proc"
mount -t sysfs sysfs "$chroot_dir/sys"
trap 'umount "$chroot_dir/proc" "$chroot_dir/sys" 2>/dev/null || true' EXIT

# Inside: the steps a user takes. No CUDA or ROCm, no nlohmann_json/CLI11 package, no GoogleTest.
cat >"$chroot_dir/clean-steps.sh" <<'EOF'
set -euo pipefail
export PERFGATE_NLOHMANN_JSON_URL=file:///deps/nlohmann-json3_3.11.2.orig.tar.gz
export PERFGATE_CLI11_URL=file:///deps/CLI11-2.1.2.tar.gz
# Library names, not substrings: ICU's libicudata.so.72 holds "cuda".
gpu='lib(cuda|cupti|nvidia|nvrtc|amdhip|hsa-runtime|rocm)'
step() { echo "--> [$((SECONDS - t))s] $1"; t=$SECONDS; }
# `! cmd` does not stop a `set -e` script: each absence is checked with an explicit exit.
no_gpu_runtime() { # no_gpu_runtime BINARY: neither it nor the loader's cache names a GPU library
  if ldd "$1" | grep -E "$gpu" || ldconfig -p | grep -E "$gpu"; then
    echo "a CUDA or ROCm library is there (above)"; exit 1
  fi
  if [ -e /usr/local/cuda ] || [ -e /opt/rocm ]; then echo "a GPU toolkit is installed"; exit 1; fi
}
t=$SECONDS
case "$1" in
  build)
    for p in nlohmann-json3-dev libcli11-dev libgtest-dev; do
      if dpkg-query -W "$p" >/dev/null 2>&1; then echo "$p is installed"; exit 1; fi
    done
    cmake -S /src/perfgate -B /build -DCMAKE_BUILD_TYPE=Release >/build.log 2>&1 ||
      { tail -30 /build.log; exit 1; }
    grep -E "perfgate: (nlohmann_json|CLI11)|its tests are off" /build.log
    cmake --build /build --parallel "$(nproc)" >>/build.log 2>&1 || { tail -30 /build.log; exit 1; }
    step "built; ldd build/bin/perfgate:"
    ldd /build/bin/perfgate
    no_gpu_runtime /build/bin/perfgate
    # CPack's DEB generator runs `file` to find what dpkg-shlibdeps must read; minbase and
    # build-essential lack it (the 2026-11-28 run stopped here): the packager installs it.
    step "packaging needs the file utility: apt-get install file"
    apt-get update -q >/apt.log 2>&1
    apt-get install -y -q --no-install-recommends file >>/apt.log 2>&1 || { tail -20 /apt.log; exit 1; }
    cpack --config /build/CPackConfig.cmake -B /dist >/dev/null
    ls /dist/*.deb ;;
  action)
    # The action's install step with the build above as its restored cache, then its gate step
    # on tests/consumer (Google Benchmark, CPU).
    export RUNNER_TEMP=/runner GITHUB_OUTPUT=/runner/out GITHUB_ENV=/runner/env GITHUB_PATH=/runner/path
    rm -rf /runner && mkdir -p /runner && : >/runner/out && : >/runner/env && : >/runner/path
    cmake --install /build --prefix /runner/perfgate >/dev/null
    PERFGATE_BASELINE=stored PERFGATE_CACHE_HIT=true bash /src/perfgate/scripts/perf_action.sh install
    grep -q "^perfgate=/runner/perfgate/bin/perfgate$" /runner/out
    export PATH="$(cat /runner/path):$PATH" $(cat /runner/env)
    cd /src/perfgate/tests/consumer
    BUILD_COMMAND="cmake -S . -B /consumer-action -DCONSUMER_WITH_GPU=OFF -DCMAKE_BUILD_TYPE=Release \
      -DPERFGATE_GIT_REPOSITORY=file:///nonexistent && cmake --build /consumer-action -j$(nproc)" \
    BUILD_DIR=/consumer-action CTEST_ARGS="-L perf -R ^perf\\.triad$" REPORTS=/runner/reports \
    PERFGATE=perfgate bash /src/perfgate/scripts/perf_action.sh gate
    test -s /runner/reports/all.json && grep -q "^report=" /runner/out
    step "action: install and gate ran" ;;
  consumer)
    cmake -DMODE=fetchcontent -DSOURCE_REPO=/src/perfgate -DSOURCE=/src/perfgate/tests/consumer \
      -DWORK=/consumer-fc -P /src/perfgate/tests/consumer/check_consumer.cmake >/consumer.log 2>&1 ||
      { tail -40 /consumer.log; exit 1; }
    grep -E "^-- ok: " /consumer.log | tail -5
    step "FetchContent consumer: configured, built, ctest -L perf outcomes as asserted" ;;
  deb)
    apt-get update -q >/apt.log 2>&1 # mmdebstrap leaves no package lists
    apt-get install -y -q /dist/perfgate_*.deb >>/apt.log 2>&1 || { tail -20 /apt.log; exit 1; }
    command -v perfgate
    perfgate --version
    ldd "$(command -v perfgate)"
    no_gpu_runtime "$(command -v perfgate)"
    step "installed; perfgate calibrate --backend cpu"
    perfgate calibrate --backend cpu -o /cpu-device.json
    test -s /cpu-device.json
    step "a gbench gate with the installed perfgate (find_package)"
    rm -rf /consumer-deb
    cmake -S /src/perfgate/tests/consumer -B /consumer-deb -DCONSUMER_WITH_GPU=OFF \
      -DCMAKE_BUILD_TYPE=Release -DPERFGATE_GIT_REPOSITORY=file:///nonexistent >/dev/null
    grep -q "^perfgate_DIR:PATH=/usr/lib/cmake/PerfGate" /consumer-deb/CMakeCache.txt
    cmake --build /consumer-deb -j"$(nproc)" >/dev/null
    (cd /consumer-deb && ctest -L perf -R '^perf\.triad$' --output-on-failure)
    step "deb: done" ;;
esac
EOF
in_chroot() { chroot "$chroot_dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
                DEBIAN_FRONTEND=noninteractive bash /clean-steps.sh "$1"; }

phase "build perfgate from a clone (fallback from local copies)"
in_chroot build
phase "lintian (this machine's) on the packages built in the clean machine"
if command -v lintian >/dev/null; then
  lintian "$chroot_dir"/dist/*.deb 2>&1 | grep -v "running with root privileges" || true
  if lintian "$chroot_dir"/dist/*.deb 2>/dev/null | grep -q "^E:"; then die "lintian reports errors"; fi
else
  echo "no lintian on this machine (apt-get install lintian): not run"
fi
phase "the action's install and gate steps"
in_chroot action
phase "FetchContent consumer (tests/consumer)"
in_chroot consumer
phase "apt-get install ./perfgate_*.deb, its commands"
in_chroot deb
phase "done"
echo "clean-machine: all steps passed in $((SECONDS - total_start)) s"
