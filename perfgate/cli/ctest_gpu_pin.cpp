// SPDX-License-Identifier: Apache-2.0
// The GPU CTest gave a test (RESOURCE_GROUPS gpus:1 and a resource specification): `perfgate
// run` pins the program to it, and with --gpu-calibrations gates on that GPU's calibration.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "cli/commands.hpp"
#include "collectors/ctest_gpus.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace perfgate::cli {

namespace {

// An exclusive flock held for the object's life: tests sharing a GPU (slots > 1) calibrate it
// once, the others wait and reuse the file.
class file_lock {
public:
  explicit file_lock(const std::filesystem::path& path)
      : m_fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (m_fd < 0 || ::flock(m_fd, LOCK_EX) != 0) {
      throw input_error(path.string(), "", "cannot create or lock it: " + errno_text());
    }
  }
  file_lock(const file_lock&) = delete;
  file_lock& operator=(const file_lock&) = delete;
  ~file_lock() { ::close(m_fd); }

private:
  static std::string errno_text() { return std::strerror(errno); }
  int m_fd;
};

// The calibration of the GPU CTest pinned this test to, DIR/gpu-<id>.json: measured now when
// missing or older than this perfgate (a rebuilt perfgate may measure differently), else
// reused. Throws skip_error when that GPU cannot be measured here.
std::string pinned_gpu_calibration(const std::string& dir, const detail::gpu_pin& pin,
                                   const std::vector<std::string>& argv) {
  namespace fs = std::filesystem;
  const fs::path file = fs::path(dir) / ("gpu-" + pin.ctest_id + ".json");
  create_parent_directories(file);
  const file_lock lock(fs::path(file.string() + ".lock"));
  std::error_code ec;
  const auto self = fs::last_write_time(fs::read_symlink("/proc/self/exe", ec), ec);
  std::error_code file_ec;
  const auto made = fs::last_write_time(file, file_ec);
  if (!file_ec && (ec || made >= self)) {
    return file.string();
  }
  std::cerr << "perfgate: calibrating GPU " << pin.ctest_id << " (" << pin.describe() << ") into "
            << file.string() << "\n";
  calibration_request request;
  request.backends = pin.backend.empty() ? std::vector<std::string>{"cuda", "hip"}
                                         : std::vector<std::string>{pin.backend};
  request.id = "local-" + pin.ctest_id;
  request.output = file.string();
  request.argv = argv;
  calibrate_device(request);
  return file.string();
}

} // namespace

void pin_to_ctest_gpu(const std::string& gpu_calibrations, std::vector<std::string>& devices,
                      const std::vector<std::string>& argv) {
  const auto pin = detail::ctest_gpu_assignment([](const char* name) { return std::getenv(name); });
  if (!pin) {
    return;
  }
  for (const auto& [name, value] : pin->environment) {
    ::setenv(name.c_str(), value.c_str(), 1); // inherited by the program and the calibration
  }
  std::cerr << "perfgate: CTest gave this test the GPU " << pin->ctest_id << ": " << pin->describe()
            << "\n";
  if (!gpu_calibrations.empty()) {
    devices.front() = pinned_gpu_calibration(gpu_calibrations, *pin, argv);
  }
}


} // namespace perfgate::cli
