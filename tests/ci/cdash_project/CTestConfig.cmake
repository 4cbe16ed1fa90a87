# SPDX-License-Identifier: Apache-2.0
# Where `ctest -D Experimental` would submit; cli.cdash_xml runs `ctest -T Test` only and
# submits nothing (the address is a closed local port).
set(CTEST_PROJECT_NAME "perfgate-cdash-check")
set(CTEST_NIGHTLY_START_TIME "00:00:00 UTC")
set(CTEST_SUBMIT_URL "http://127.0.0.1:9/submit.php?project=perfgate-cdash-check")
