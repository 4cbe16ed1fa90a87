// SPDX-License-Identifier: Apache-2.0
// The reader one fuzzing executable exercises (fuzz_reader.cpp reads it): the only source
// compiled once per reader, so the harness itself is compiled once for all of them.
extern "C" const char perfgate_fuzz_reader[] = PERFGATE_FUZZ_READER;
