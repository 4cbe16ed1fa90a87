// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "collectors/collectors.hpp"
#include "importers/gbench_importer.hpp"
#include "src/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

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

profile collect_gbench(const collect_request& request) {
  const fs::path out =
      fs::temp_directory_path() / ("perfgate-gbench-" + std::to_string(::getpid()) + ".json");
  std::vector<std::string> argv = request.program;
  argv.push_back("--benchmark_out=" + out.string());
  argv.emplace_back("--benchmark_out_format=json");
  argv.push_back("--benchmark_repetitions=" + std::to_string(request.repetitions));
  auto options = forwarding_options(request);
  options.capture_stdout = true; // the console table; shown only when the run fails
  struct remove_at_exit { // also when the run throws (timed out, perfgate interrupted)
    const fs::path& file;
    ~remove_at_exit() {
      std::error_code ec;
      fs::remove(file, ec);
    }
  } const remover{out};
  const auto result = run_process(argv, options);
  if (result.exit_code != 0 || result.signal != 0 || result.timed_out) {
    std::cerr << result.stdout_text;
    check_result(result, request);
  }
  if (!fs::exists(out)) {
    throw target_error(request.program.front() +
                       " wrote no Google Benchmark JSON: is it a Google Benchmark binary?");
  }
  const std::string text = read_text_file(out);
  auto p = import_gbench_json(text, request.program.front() + " (Google Benchmark JSON)");
  p.source_file = request.program.front();
  return p;
}

} // namespace perfgate::detail
