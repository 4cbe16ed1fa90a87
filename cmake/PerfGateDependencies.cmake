# SPDX-License-Identifier: Apache-2.0
# Every dependency comes from a Debian package (scripts/install-deps.sh installs them); none is
# downloaded at configure time.
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 2.1 REQUIRED)
find_package(Threads REQUIRED)
if(PERFGATE_WITH_TESTS)
  find_package(GTest 1.11 REQUIRED)
endif()
