# SPDX-License-Identifier: Apache-2.0
# perfgate's two build dependencies, header-only: nlohmann_json (>= 3.10) and CLI11 (>= 2.1).
# An installed package comes first (Debian: nlohmann-json3-dev, libcli11-dev; scripts/
# install-deps.sh). Where one is missing, the release below is downloaded at configure time,
# pinned by its SHA-256 (docs/ci.md, "Dependencies"): a machine with only a compiler, CMake and
# git gets a working perfgate in one step. Off with -DPERFGATE_FETCH_DEPENDENCIES=OFF (perfgate's
# own CI: its machines have the packages and no internet) or FETCHCONTENT_FULLY_DISCONNECTED=ON;
# then a missing package is a configure error that says what to install.
# Fed from a local copy (no network), either of:
#   -DPERFGATE_NLOHMANN_JSON_URL=file:///path/json-3.11.2.tar.gz   the same bytes, hash checked
#   -DFETCHCONTENT_SOURCE_DIR_NLOHMANN_JSON=/path/json-3.11.2      an unpacked tree, not checked
# (CLI11: PERFGATE_CLI11_URL, FETCHCONTENT_SOURCE_DIR_CLI11). Each of the four may also come
# from the environment variable of the same name, so that one setting reaches every way of
# building (a clone, FetchContent, the GitHub action), e.g. on a machine without internet.
# The pins are GitHub's release archives (archive/refs/tags/<tag>.tar.gz), as distributions and
# package managers pin them: nlohmann/json v3.11.2 is byte-identical to Debian's
# nlohmann-json3_3.11.2.orig.tar.gz; CLI11 v2.1.2 is `git archive --prefix=CLI11-2.1.2/ v2.1.2 |
# gzip -n` of the upstream tag (Debian's cli11_2.1.2+ds.orig.tar.xz is a repack without CI files).
option(PERFGATE_FETCH_DEPENDENCIES
       "Download nlohmann_json and CLI11 (pinned by SHA-256) where no installed package is found" ON)
set(_pg_nlohmann_json_url "https://github.com/nlohmann/json/archive/refs/tags/v3.11.2.tar.gz")
set(_pg_cli11_url "https://github.com/CLIUtils/CLI11/archive/refs/tags/v2.1.2.tar.gz")
if(NOT "$ENV{PERFGATE_NLOHMANN_JSON_URL}" STREQUAL "")
  set(_pg_nlohmann_json_url "$ENV{PERFGATE_NLOHMANN_JSON_URL}")
endif()
if(NOT "$ENV{PERFGATE_CLI11_URL}" STREQUAL "")
  set(_pg_cli11_url "$ENV{PERFGATE_CLI11_URL}")
endif()
set(PERFGATE_NLOHMANN_JSON_URL "${_pg_nlohmann_json_url}"
    CACHE STRING "Where the fallback takes nlohmann/json v3.11.2 (the bytes are hash-checked)")
set(PERFGATE_CLI11_URL "${_pg_cli11_url}"
    CACHE STRING "Where the fallback takes CLI11 v2.1.2 (the bytes are hash-checked)")
set(_pg_nlohmann_json_sha256 d69f9deb6a75e2580465c6c4c5111b89c4dc2fa94e3a85fcd2ffcd9a143d9273)
set(_pg_cli11_sha256 26291377e892ba0e5b4972cdfd4a2ab3bf53af8dac1f4ea8fe0d1376b625c8cb)

# perfgate_dependency(<package> <version> <fetch name> <target> <url> <sha256> <Debian package>):
# find_package(<package> <version>), else the pinned release through FetchContent (its tests
# and install rules off, as for any subproject), else a configure error naming both ways.
function(perfgate_dependency package version name target url sha256 debian)
  find_package(${package} ${version} QUIET)
  if(${package}_FOUND)
    message(STATUS "perfgate: ${package} ${${package}_VERSION} (installed: ${${package}_DIR})")
    return()
  endif()
  string(TOUPPER "${name}" upper)
  if(NOT DEFINED FETCHCONTENT_SOURCE_DIR_${upper}
     AND NOT "$ENV{FETCHCONTENT_SOURCE_DIR_${upper}}" STREQUAL "")
    set(FETCHCONTENT_SOURCE_DIR_${upper} "$ENV{FETCHCONTENT_SOURCE_DIR_${upper}}")
  endif()
  include(FetchContent)
  set(why "")
  if(NOT PERFGATE_FETCH_DEPENDENCIES)
    set(why "PERFGATE_FETCH_DEPENDENCIES is OFF")
  elseif(FETCHCONTENT_FULLY_DISCONNECTED AND NOT FETCHCONTENT_SOURCE_DIR_${upper}
         AND NOT EXISTS "${FETCHCONTENT_BASE_DIR}/${name}-src/CMakeLists.txt")
    set(why "FETCHCONTENT_FULLY_DISCONNECTED is ON, FETCHCONTENT_SOURCE_DIR_${upper} is unset and "
            "no earlier download is in ${FETCHCONTENT_BASE_DIR}")
  endif()
  if(why)
    message(FATAL_ERROR
      "perfgate needs ${package} ${version} or later: no installed package was found "
      "(${package}_DIR: '${${package}_DIR}'), and the pinned download is off (${why}). Install "
      "it (Debian and Ubuntu: apt-get install ${debian}; or put its prefix on "
      "CMAKE_PREFIX_PATH), or let perfgate fetch the pinned release "
      "(-DPERFGATE_FETCH_DEPENDENCIES=ON; from a local copy: -DPERFGATE_${upper}_URL=file://...)")
  endif()
  message(STATUS "perfgate: ${package} not installed; using the pinned release ${url}")
  FetchContent_Declare(${name} URL "${url}" URL_HASH "SHA256=${sha256}"
                       DOWNLOAD_EXTRACT_TIMESTAMP ON)
  # Both releases declare cmake_minimum_required below 3.5, which CMake 4 refuses without this
  # (read by CMake 4 only; in this function's scope only).
  set(CMAKE_POLICY_VERSION_MINIMUM 3.5)
  # Their tests, examples, docs and install rules are off when they are a subproject.
  FetchContent_MakeAvailable(${name})
  if(NOT TARGET ${target})
    message(FATAL_ERROR "perfgate: the fetched ${name} (${url}) made no target ${target}")
  endif()
endfunction()

perfgate_dependency(nlohmann_json 3.10 nlohmann_json nlohmann_json::nlohmann_json
                    "${PERFGATE_NLOHMANN_JSON_URL}" ${_pg_nlohmann_json_sha256}
                    nlohmann-json3-dev)
perfgate_dependency(CLI11 2.1 cli11 CLI11::CLI11 "${PERFGATE_CLI11_URL}" ${_pg_cli11_sha256}
                    libcli11-dev)
find_package(Threads REQUIRED)
if(PERFGATE_WITH_TESTS)
  find_package(GTest 1.11 REQUIRED)
endif()
# rocprofv3's rocpd .db output (ROCm 7.0+) is read with SQLite's C library (libsqlite3-dev).
# Optional: a build without it reads every other format and says so when given a .db.
option(PERFGATE_WITH_SQLITE "Read rocprofv3 rocpd SQLite databases (needs SQLite3)" ON)
if(PERFGATE_WITH_SQLITE)
  find_package(SQLite3)
endif()
