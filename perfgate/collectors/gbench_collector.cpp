// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"
#include "importers/gbench_importer.hpp"
#include "util/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include <fcntl.h>
#include <unistd.h>

namespace perfgate::detail {

namespace fs = std::filesystem;

namespace {
void check_result(const process_result& r, const collect_request& request) {
  if (r.timed_out) {
    throw target_error(request.program.front() + " timed out after " +
                       std::to_string(*request.timeout_s) + " s and was killed");
  }
  if (r.not_found) {
    throw target_error(request.program.front() + " could not be started" +
                       (r.last_stderr_line.empty() ? "" : ": " + r.last_stderr_line));
  }
  if (r.signal != 0 || r.exit_code != 0) {
    throw target_error(request.program.front() + " " + r.describe() +
                       (r.last_stderr_line.empty() ? "" : ": " + r.last_stderr_line));
  }
}

process_options forwarding_options(const collect_request& request) {
  process_options o;
  o.timeout_s = request.time_left();
  o.forward_stderr = true;
  return o;
}
} // namespace

bool is_gbench_binary(const std::string& program) {
  std::ifstream in(find_executable(program).value_or(program), std::ios::binary);
  if (!in) {
    return false;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Statically linked: the flag's name is in the binary; dynamically: libbenchmark is NEEDED.
  return bytes.find("benchmark_out_format") != std::string::npos ||
         bytes.find("libbenchmark.so") != std::string::npos;
}

void run_plain(const collect_request& request) {
  check_result(run_process(request.program, forwarding_options(request)), request);
}

namespace {
// Where the benchmark writes its JSON: an unnamed file of ours that it opens through /proc, so
// that a killed run leaves no file behind; a named file in the temp folder where there is no
// O_TMPFILE or /proc.
class benchmark_output {
public:
  benchmark_output() {
    const std::string dir = fs::temp_directory_path().string();
    m_fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (m_fd >= 0 && ::access("/proc/self/fd", X_OK) == 0) {
      m_path = "/proc/" + std::to_string(::getpid()) + "/fd/" + std::to_string(m_fd);
      return;
    }
    if (m_fd >= 0) {
      ::close(m_fd);
      m_fd = -1;
    }
    m_path = dir + "/perfgate-gbench-" + std::to_string(::getpid()) + ".json";
  }
  benchmark_output(const benchmark_output&) = delete;
  benchmark_output& operator=(const benchmark_output&) = delete;
  ~benchmark_output() {
    if (m_fd >= 0) {
      ::close(m_fd);
    } else {
      std::error_code ec;
      fs::remove(m_path, ec);
    }
  }
  [[nodiscard]] const std::string& path() const { return m_path; }
  /// What the benchmark wrote; nothing when it wrote nothing.
  [[nodiscard]] std::optional<std::string> text() const {
    if (m_fd < 0) {
      return fs::exists(m_path) ? std::optional(read_text_file(m_path)) : std::nullopt;
    }
    std::string text;
    char chunk[65536];
    ssize_t got;
    for (off_t at = 0; (got = ::pread(m_fd, chunk, sizeof chunk, at)) > 0; at += got) {
      text.append(chunk, static_cast<std::size_t>(got));
    }
    return text.empty() ? std::nullopt : std::optional(text);
  }

private:
  int m_fd = -1;
  std::string m_path;
};
} // namespace

profile collect_gbench(const collect_request& request) {
  const benchmark_output out;
  std::vector<std::string> argv = request.program;
  argv.push_back("--benchmark_out=" + out.path());
  argv.emplace_back("--benchmark_out_format=json");
  argv.push_back("--benchmark_repetitions=" + std::to_string(request.repetitions));
  auto options = forwarding_options(request);
  options.capture_stdout = true; // the console table; shown only when the run fails
  const auto result = run_process(argv, options);
  if (result.exit_code != 0 || result.signal != 0 || result.timed_out) {
    std::cerr << result.stdout_text;
    check_result(result, request);
  }
  const auto text = out.text();
  if (!text) {
    throw target_error(request.program.front() +
                       " wrote no Google Benchmark JSON: is it a Google Benchmark binary?");
  }
  auto p = import_gbench_json(*text, request.program.front() + " (Google Benchmark JSON)");
  p.source_file = request.program.front();
  return p;
}

} // namespace perfgate::detail
