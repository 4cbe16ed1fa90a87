// SPDX-License-Identifier: Apache-2.0
#include <perfgate/run_meta.hpp>
#include <perfgate/version.hpp>

#include <chrono>
#include <ctime>

#include <unistd.h>

namespace perfgate {

std::string_view version() { return PERFGATE_VERSION; }

run_meta make_run_meta(std::string command, std::vector<std::string> argv) {
  run_meta m;
  m.perfgate_version = std::string(version());
  m.command = std::move(command);
  m.argv = std::move(argv);
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &utc);
  m.timestamp = stamp;
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) {
    m.host = host;
  }
  return m;
}

} // namespace perfgate
