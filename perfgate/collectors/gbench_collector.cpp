// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/statistics.hpp>

#include "collectors/collectors.hpp"
#include "importers/gbench_importer.hpp"
#include "util/number_format.hpp"
#include "util/subprocess.hpp"

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <regex>

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

namespace {

// The time each repetition measures a benchmark for, when the program's own time is split among
// `repetitions` (request.split_min_time): its --benchmark_min_time (Google Benchmark's default
// 0.5 s where it gives none) over the repetitions, so that five samples cost one plain run
// (simdjson's suite: 3.4x its plain run with five repetitions of the whole time each). Nothing
// where the program fixes iterations (`--benchmark_min_time=100x`) or one repetition takes it
// all. A benchmark that sets its own MinTime() keeps it.
std::optional<std::string> split_min_time(const collect_request& request, int repetitions) {
  if (!request.split_min_time || repetitions <= 1) {
    return std::nullopt;
  }
  double seconds = 0.5;
  for (const auto& arg : request.program) {
    if (arg.starts_with("--benchmark_min_time=")) {
      std::string value = arg.substr(std::string_view("--benchmark_min_time=").size());
      if (value.ends_with("x")) {
        return std::nullopt; // iterations, not time
      }
      if (value.ends_with("s")) {
        value.pop_back();
      }
      try {
        seconds = std::stod(value);
      } catch (const std::exception&) {
        return std::nullopt; // the program will say what it makes of it
      }
    }
  }
  char each[32];
  std::snprintf(each, sizeof each, "%.6g", seconds / repetitions);
  return std::string(each);
}

// One run of the benchmark binary with `repetitions` and, when given, a filter.
profile run_gbench_once(const collect_request& request, int repetitions,
                        const std::string& filter) {
  const benchmark_output out;
  std::vector<std::string> argv = request.program;
  argv.push_back("--benchmark_out=" + out.path());
  argv.emplace_back("--benchmark_out_format=json");
  argv.push_back("--benchmark_repetitions=" + std::to_string(repetitions));
  if (const auto each = split_min_time(request, repetitions)) {
    argv.push_back("--benchmark_min_time=" + *each);
  }
  if (!filter.empty()) {
    argv.push_back("--benchmark_filter=" + filter);
  }
  // The program's console table goes where its output would go without perfgate (the test's
  // log): the JSON perfgate reads is written to a file of its own.
  const auto result = run_process(argv, forwarding_options(request));
  if (result.exit_code != 0 || result.signal != 0 || result.timed_out) {
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

// ^(a|b)$ over exact benchmark names: Google Benchmark's filter is a regular expression.
std::string exact_names_filter(const std::vector<std::string>& names) {
  std::string filter = "^(";
  for (std::size_t i = 0; i < names.size(); ++i) {
    filter += i == 0 ? "" : "|";
    for (const char c : names[i]) {
      if (std::string_view(".^$|()[]{}*+?\\").find(c) != std::string_view::npos) {
        filter += '\\';
      }
      filter += c;
    }
  }
  return filter + ")$";
}

// The benchmarks the program would run, by name (--benchmark_list_tests, which honours a
// --benchmark_filter among the user's own arguments); nothing where it does not list them (not
// a Google Benchmark binary: the run then says what it is).
std::optional<std::vector<std::string>> listed_benchmarks(const collect_request& request) {
  std::vector<std::string> argv = request.program;
  argv.emplace_back("--benchmark_list_tests=true");
  auto options = forwarding_options(request);
  options.capture_stdout = true;
  const auto result = run_process(argv, options);
  if (result.exit_code != 0 || result.signal != 0 || result.timed_out) {
    return std::nullopt;
  }
  std::vector<std::string> names;
  std::string line;
  for (const char c : result.stdout_text + "\n") {
    if (c != '\n') {
      line += c;
    } else if (!line.empty()) {
      names.push_back(std::move(line));
      line.clear();
    }
  }
  return names;
}

// --kernels as the program's own filter, so that the benchmarks it does not name never run
// (simdjson's 25-state suite ran 30 s for two gated states): the program's benchmarks, listed,
// that the ECMAScript regex finds, by exact name. Empty `names`: every benchmark.
struct kernels_filter {
  bool selects_none = false;
  std::vector<std::string> names;
};

kernels_filter filter_by_kernels(const collect_request& request) {
  if (request.kernel_regex.empty() || !request.only_benchmarks.empty()) {
    return {};
  }
  std::regex selector;
  try {
    selector = std::regex(request.kernel_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("kernel_regex", "'" + request.kernel_regex +
                                          "' is not a valid regular expression: " + e.what());
  }
  const auto listed = listed_benchmarks(request);
  if (!listed) {
    return {};
  }
  kernels_filter out;
  for (const auto& name : *listed) {
    if (std::regex_search(name, selector)) {
      out.names.push_back(name);
    }
  }
  out.selects_none = out.names.empty();
  return out;
}

} // namespace

double median_half_width(const std::vector<double>& samples) {
  const auto ci = stats::median_interval(samples);
  if (!ci || !(ci->estimate > 0)) {
    return std::numeric_limits<double>::infinity();
  }
  return std::max(ci->hi - ci->estimate, ci->estimate - ci->lo) / ci->estimate;
}

void add_repetitions(profile& into, const profile& round) {
  for (const auto& k : round.kernels) {
    auto it = std::find_if(into.kernels.begin(), into.kernels.end(),
                           [&](const kernel_profile& mine) { return mine.name == k.name; });
    if (it == into.kernels.end() || !it->duration || !k.duration) {
      continue; // a benchmark that appeared only now was not asked for
    }
    std::vector<double> samples = it->duration->samples_s;
    samples.insert(samples.end(), k.duration->samples_s.begin(), k.duration->samples_s.end());
    it->duration = duration_stats::from_samples(std::move(samples));
    it->time_s = it->duration->median_s;
  }
  for (const auto& e : round.tool_errors) { // a benchmark failing every round: said once
    if (std::find(into.tool_errors.begin(), into.tool_errors.end(), e) == into.tool_errors.end()) {
      into.tool_errors.push_back(e);
    }
  }
}

profile collect_gbench(const collect_request& request) {
  const kernels_filter selected = filter_by_kernels(request);
  if (selected.selects_none) {
    profile none; // nothing to run: the gate says that --kernels matches no benchmark
    none.source_file = request.program.front();
    return none;
  }
  const std::vector<std::string>& names =
      request.only_benchmarks.empty() ? selected.names : request.only_benchmarks;
  return run_gbench_once(request, request.repetitions, names.empty() ? "" : exact_names_filter(names));
}

} // namespace perfgate::detail
