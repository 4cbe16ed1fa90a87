// SPDX-License-Identifier: Apache-2.0
// dlopen libperfgate_cupti.so and call InitializeInjection in a process the CUDA driver never
// initialised: it must return 0 and leave a perfgate-cupti/1 file saying why, without touching
// target-side CUPTI (which crashes without a driver). Exit 77 where a driver is loaded anyway.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <dlfcn.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s WORK_DIR\n", argv[0]);
    return 2;
  }
  if (::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) != nullptr) {
    std::printf("libcuda.so.1 is already loaded: not a driver-less process\n");
    return 77;
  }
  const std::string output = std::string(argv[1]) + "/injection_without_driver.json";
  std::remove(output.c_str());
  ::setenv("PERFGATE_CUPTI_OUTPUT", output.c_str(), 1);
  ::setenv("PERFGATE_CUPTI_MODE", "counters", 1);
  ::setenv("PERFGATE_CUPTI_METRICS", "smsp__inst_executed.sum", 1);
  void* lib = ::dlopen(INJECTION_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "FAIL: cannot load %s: %s\n", INJECTION_LIBRARY, ::dlerror());
    return 1;
  }
  auto init = reinterpret_cast<int (*)()>(::dlsym(lib, "InitializeInjection"));
  if (init == nullptr) {
    std::fprintf(stderr, "FAIL: InitializeInjection not found\n");
    return 1;
  }
  if (const int rc = init(); rc != 0) {
    std::fprintf(stderr, "FAIL: InitializeInjection returned %d without a driver\n", rc);
    return 1;
  }
  std::ifstream in(output);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  for (const char* expected :
       {"\"schema\": \"perfgate-cupti/1\"", "\"status\": \"failed\"",
        "not called by the CUDA driver: libcuda.so.1 is not loaded", "\"kernels\": []"}) {
    if (json.find(expected) == std::string::npos) {
      std::fprintf(stderr, "FAIL: %s lacks '%s':\n%s\n", output.c_str(), expected, json.c_str());
      return 1;
    }
  }
  std::printf("InitializeInjection refused cleanly: %s\n", json.c_str());
  return 0;
}
