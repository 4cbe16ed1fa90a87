#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The stages of the GitHub action (action.yml at the repository root; docs/ci.md, "The GitHub
# action"), one a step, each reading its inputs from the environment the step gives it:
#   cache-key  (perfgate not on PATH) the key of perfgate's cached build: the runner's system,
#            compiler and architecture, the action's ref (ACTION_REF) and a hash of the sources
#            built (a moved tag or branch gets a new key); output
#            key (empty when perfgate is installed: nothing to build)
#   install  perfgate on PATH, else the build the cache restored into $RUNNER_TEMP/perfgate,
#            else built from the action's own source there (output built=true: the next step
#            saves it in the cache); its dependencies from apt-get where the runner allows it,
#            else perfgate's pinned download (input dependencies); the prefix goes on
#            CMAKE_PREFIX_PATH, so that the project's find_package(PerfGate) or FetchContent's
#            FIND_PACKAGE_ARGS takes it instead of building it again
#   base     (baseline ab) the pull request's base commit in a worktree, built by the same
#            build command: output dir, its build tree
#   gate     the build command, then ctest; the reports merged into $REPORTS/all.json with
#            summary.md and CTest's test list (tests.json, where the annotations find the
#            add_perf_prediction calls); outputs ctest (its exit status) and report
#   compare  the base commit's stored reports (pr_loop.py fetch-baseline --commit), or with
#            missing-baseline ancestor those of its nearest ancestor that has them, compared
#            with this run's: compare.md (naming the commit), compare.json; outputs status
#            (pr_loop.py compare's: 4 when nothing was compared) and baseline-commit
#   history  (baseline history, on a branch) the branch's history so far, this run appended
#   verdict  the job summary, the annotations, the pull request's comment; fails the step when
#            a perf test failed, a kernel regressed or (missing-baseline fail or ancestor)
#            nothing was compared; outputs verdict and failed-kernels
# Exit codes: 0 done, 1 the gate or the comparison failed (verdict), 2 bad input or an error.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
pr_loop=(python3 "$here/pr_loop.py")
stage="${1:-}"

output() { echo "$1=$2" >>"$GITHUB_OUTPUT"; }
die() { echo "::error title=perfgate::$1"; exit "${2:-2}"; }

# A pull request whose base has no stored reports: compared with the nearest ancestor that has
# them (ancestor), or not compared and failed (fail) or passed (pass), saying so either way.
check_missing_baseline() {
  case "${MISSING_BASELINE:-}" in
    ancestor|fail|pass) ;;
    *) die "input missing-baseline must be ancestor, fail or pass, not '${MISSING_BASELINE:-}'" ;;
  esac
}
# How far back `ancestor` looks: one page of GitHub's commit list, the base's 99 nearest.
ancestors=99

# The workflow file this run comes from ("owner/repo/.github/workflows/perf.yml@refs/..."): the
# base commit's reports are those of the same workflow.
workflow_file() {
  local ref="${GITHUB_WORKFLOW_REF%%@*}"
  echo "${ref##*/}"
}

# The Debian/Ubuntu packages of perfgate's build dependencies.
apt_packages=(nlohmann-json3-dev libcli11-dev)

# apt_install: installs the apt_packages that are missing, with apt-get, as root or through
# passwordless sudo; returns 1 (installing nothing) where the runner has no apt-get or no way to
# root, 2 when apt-get itself failed.
apt_install() {
  command -v apt-get >/dev/null && command -v dpkg-query >/dev/null || return 1
  local missing=() p
  for p in "${apt_packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -gt 0 ] || { echo "perfgate: ${apt_packages[*]} installed"; return 0; }
  local root=()
  if [ "$(id -u)" -ne 0 ]; then
    sudo -n true 2>/dev/null || return 1
    root=(sudo -n)
  fi
  echo "perfgate: apt-get install ${missing[*]}"
  "${root[@]}" apt-get update -q >/dev/null &&
    "${root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
      "${missing[@]}" || return 2
}

# build_perfgate PREFIX: configures, builds and installs the action's source into PREFIX, its
# dependencies as the input dependencies says.
build_perfgate() {
  local prefix=$1 source_dir build="$RUNNER_TEMP/perfgate-build" fetch=ON rc=0
  source_dir="$(cd "$here/.." && pwd)"
  case "${PERFGATE_DEPENDENCIES:-auto}" in
    auto) apt_install || rc=$?
          [ $rc -ne 2 ] || die "apt-get could not install ${apt_packages[*]}"
          [ $rc -eq 0 ] || echo "perfgate: no apt-get as root here; perfgate fetches its pinned dependencies" ;;
    apt)  apt_install || rc=$?
          [ $rc -eq 0 ] || die "input dependencies is apt, but apt-get could not install ${apt_packages[*]} (it needs root or passwordless sudo)"
          fetch=OFF ;;
    fetch) ;;
    *) die "input dependencies must be auto, apt or fetch, not '${PERFGATE_DEPENDENCIES}'" ;;
  esac
  echo "perfgate: building it from $source_dir (tests off)"
  cmake -S "$source_dir" -B "$build" -DCMAKE_BUILD_TYPE=Release -DPERFGATE_WITH_TESTS=OFF \
    -DPERFGATE_FETCH_DEPENDENCIES=$fetch
  cmake --build "$build" --parallel "$(nproc)"
  cmake --install "$build" --prefix "$prefix" >/dev/null
}

case "$stage" in
  cache-key)
    if binary="$(command -v perfgate)"; then
      echo "perfgate: $binary is installed: no build to cache"
      output key ""
      exit 0
    fi
    # The sources the build reads, by content: a tag or branch that moves changes the key too.
    source_dir="$(cd "$here/.." && pwd)"
    sources="$(cd "$source_dir" && find CMakeLists.txt cmake perfgate microbench packaging -type f \
               -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
    system="$(. /etc/os-release 2>/dev/null && echo "${ID:-linux}${VERSION_ID:-}")"
    compiler="$( (c++ --version 2>/dev/null || echo none) | head -1 | sha256sum | cut -c1-8)"
    ref="$(printf %s "${ACTION_REF:-local}" | tr -c 'A-Za-z0-9._-' _)"
    key="perfgate-${system:-linux}-$(uname -m)-cxx$compiler-$ref-$sources"
    echo "perfgate: build cache key $key"
    output key "$key" ;;

  install)
    case "${PERFGATE_BASELINE:-}" in
      stored|ab|history) ;;
      *) die "input baseline must be stored, ab or history, not '${PERFGATE_BASELINE:-}'" ;;
    esac
    prefix="$RUNNER_TEMP/perfgate"
    if binary="$(command -v perfgate)"; then
      echo "perfgate: using $binary ($("$binary" --version 2>/dev/null || echo '?'))"
    elif [ "${PERFGATE_CACHE_HIT:-}" = true ] && "$prefix/bin/perfgate" --version >/dev/null 2>&1; then
      binary="$prefix/bin/perfgate"
      echo "perfgate: restored from the cache: $binary ($("$binary" --version))"
      echo "$prefix/bin" >>"$GITHUB_PATH"
    else
      rm -rf "$prefix"
      build_perfgate "$prefix"
      binary="$prefix/bin/perfgate"
      echo "$prefix/bin" >>"$GITHUB_PATH"
      output built true
    fi
    prefix="$(cd "$(dirname "$(readlink -f "$binary")")/.." && pwd)"
    echo "CMAKE_PREFIX_PATH=$prefix${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}" >>"$GITHUB_ENV"
    output perfgate "$binary" ;;

  base)
    [ -n "${BASE_SHA:-}" ] || die "no base commit (github.event.pull_request.base.sha)"
    dir="$RUNNER_TEMP/perfgate-base"
    if ! git cat-file -e "$BASE_SHA^{commit}" 2>/dev/null; then
      echo "==> fetch $BASE_SHA (a shallow checkout lacks it)"
      git fetch --no-tags --depth=1 origin "$BASE_SHA"
    fi
    rm -rf "$dir"
    git worktree prune
    git worktree add --detach "$dir" "$BASE_SHA"
    echo "==> build the base commit ${BASE_SHA:0:12} in $dir"
    (cd "$dir" && bash -euo pipefail -c "$BUILD_COMMAND")
    output dir "$dir/$BUILD_DIR" ;;

  gate)
    bash -euo pipefail -c "$BUILD_COMMAND"
    [ -f "$BUILD_DIR/CTestTestfile.cmake" ] || die "the build command made no CTest tree in '$BUILD_DIR' (input build-dir)"
    # With a base build, add_perf_prediction makes every test `perfgate ab` of the base's
    # binary and this one; a tree kept from an earlier ab run (a self-hosted runner) is reset.
    if [ -n "${AB_BASE_DIR:-}" ] ||
       grep -q '^PERFGATE_AB_BASE_DIR:[A-Z]*=.' "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
      cmake -DPERFGATE_AB_BASE_DIR="${AB_BASE_DIR:-}" "$BUILD_DIR" >/dev/null
    fi
    find "$BUILD_DIR" -type d -name perfgate-reports -prune -exec rm -rf {} +
    rm -rf "$REPORTS"
    mkdir -p "$REPORTS"
    status=0
    # shellcheck disable=SC2086 # ctest-args is a list of arguments
    ctest --test-dir "$BUILD_DIR" $CTEST_ARGS || status=$?
    output ctest "$status"
    ctest --test-dir "$BUILD_DIR" --show-only=json-v1 >"$REPORTS/tests.json"
    mapfile -t files < <(find "$BUILD_DIR" -path '*/perfgate-reports/*.json' | sort)
    if [ ${#files[@]} -eq 0 ]; then
      die "no perf test wrote a report (ctest exited $status; ctest-args: $CTEST_ARGS)"
    fi
    "$PERFGATE" merge "${files[@]}" -o "$REPORTS/all.json"
    "$PERFGATE" report "$REPORTS/all.json" --format md -o "$REPORTS/summary.md"
    output report "$REPORTS/all.json" ;;

  compare)
    check_missing_baseline
    missing="$MISSING_BASELINE"
    baseline="$RUNNER_TEMP/perfgate-baseline" found="$RUNNER_TEMP/perfgate-baseline.found"
    rm -rf "$baseline" "$found"
    rc=0
    "${pr_loop[@]}" fetch-baseline --repo "$GITHUB_REPOSITORY" --branch "$BASE_REF" \
      --commit "$BASE_SHA" --workflow "$(workflow_file)" --artifact-prefix "$ARTIFACT_NAME-" \
      --prefer "$ARTIFACT_NAME-$RUNNER" --out "$baseline" --github-output "$found" \
      --ancestors "$([ "$missing" = ancestor ] && echo "$ancestors" || echo 0)" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then exit "$rc"; fi
    used="$(sed -n 's/^baseline-commit=//p' "$found" 2>/dev/null || true)"
    output baseline-commit "$used"
    rc=0
    "${pr_loop[@]}" compare --perfgate "$PERFGATE" --base "$baseline/all.json" \
      --head "$REPORTS/all.json" --md-out "$REPORTS/compare.md" \
      --no-baseline-body "$REPORTS/summary.md" --base-commit "$BASE_SHA" \
      ${used:+--baseline-commit "$used"} \
      --missing-baseline "$([ "$missing" = pass ] && echo pass || echo fail)" || rc=$?
    output status "$rc"
    # 1: a regression, 4: nothing compared; the verdict step fails the job for either.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 4 ]; then exit "$rc"; fi
    if [ -f "$baseline/all.json" ]; then
      # The same comparison as JSON, for the annotations (exit 1 is the regression itself).
      "$PERFGATE" compare "$baseline/all.json" "$REPORTS/all.json" --format json \
        -o "$REPORTS/compare.json" || [ $? -eq 1 ]
    fi
    if [ -f "$baseline/history.jsonl" ]; then
      # baseline history: the base branch's trends under the comparison.
      "$PERFGATE" history changes --history "$baseline/history.jsonl" --format md \
        >>"$REPORTS/compare.md"
    fi ;;

  history)
    previous="$RUNNER_TEMP/perfgate-previous"
    rm -rf "$previous"
    rc=0
    "${pr_loop[@]}" fetch-baseline --repo "$GITHUB_REPOSITORY" --branch "$GITHUB_REF_NAME" \
      --workflow "$(workflow_file)" --artifact-prefix "$ARTIFACT_NAME-" \
      --prefer "$ARTIFACT_NAME-$RUNNER" --out "$previous" || rc=$?
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ]; then exit "$rc"; fi
    if [ -f "$previous/history.jsonl" ]; then cp "$previous/history.jsonl" "$REPORTS/"; fi
    "$PERFGATE" history append "$REPORTS/all.json" --history "$REPORTS/history.jsonl" \
      --commit "$GITHUB_SHA" --date "$(git show -s --format=%cI HEAD)"
    "$PERFGATE" history changes --history "$REPORTS/history.jsonl" --format md \
      -o "$REPORTS/history.md"
    cat "$REPORTS/history.md" >>"$REPORTS/summary.md" ;;

  verdict)
    check_missing_baseline
    # The comparison first when there was one, then this run's report (without a baseline
    # compare.md holds it already, under the line that says nothing was compared).
    body=("$REPORTS/summary.md") compare=()
    if [ -f "$REPORTS/compare.md" ]; then body=("$REPORTS/compare.md"); fi
    if [ -f "$REPORTS/compare.json" ]; then
      body+=("$REPORTS/summary.md")
      compare=(--compare "$REPORTS/compare.json")
    fi
    "${pr_loop[@]}" summary --body-file "${body[@]}" ${ARTIFACT_URL:+--artifact-url "$ARTIFACT_URL"}
    "${pr_loop[@]}" annotate --report "$REPORTS/all.json" --tests "$REPORTS/tests.json" \
      "${compare[@]}" --github-output "$GITHUB_OUTPUT"
    if [ -n "${PR:-}" ] && [ "${COMMENT:-true}" = true ]; then
      if [ "${FORK:-false}" = true ]; then
        # A fork's pull request gets a read-only token: the report stays in the job summary.
        echo "perfgate: a fork's pull request: no comment (read-only token); see the job summary"
      else
        "${pr_loop[@]}" comment --repo "$GITHUB_REPOSITORY" --pr "$PR" \
          --body-file "${body[@]}" --marker '<!-- perfgate-action -->' \
          ${ARTIFACT_URL:+--artifact-url "$ARTIFACT_URL"}
      fi
    fi
    verdict=pass
    if [ "${COMPARE_STATUS:-0}" = 4 ]; then verdict=no-baseline; fi
    if [ "${COMPARE_STATUS:-0}" = 1 ]; then verdict=regression; fi
    if [ "${CTEST_STATUS:-0}" != 0 ]; then verdict=fail; fi
    if [ "$verdict" = no-baseline ]; then
      echo "::error title=perfgate::nothing was compared: the base commit ${BASE_SHA:0:12} has no stored reports (input missing-baseline: $MISSING_BASELINE)"
    fi
    output verdict "$verdict"
    echo "perfgate: $verdict"
    [ "$verdict" = pass ] || exit 1 ;;

  *) echo "usage: $0 cache-key|install|base|gate|compare|history|verdict" >&2; exit 2 ;;
esac
