# SPDX-License-Identifier: Apache-2.0
# Every dependency comes from a Debian package (scripts/install-deps.sh installs them); none is
# downloaded at configure time.
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
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
