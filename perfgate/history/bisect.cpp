// SPDX-License-Identifier: Apache-2.0
#include "history/bisect.hpp"

#include <perfgate/error.hpp>

#include "util/number_format.hpp"
#include "util/subprocess.hpp"

#include <regex>

namespace perfgate::history {

bisect_answer bisect_answer_of(const report& judged) {
  bool any = false, ambiguous = false;
  for (const auto& k : judged.kernels) {
    if (!k.result.ab) {
      continue;
    }
    any = true;
    if (k.result.ab->kind == stats::change::slower && k.result.ab->beyond_allowed) {
      return bisect_answer::bad;
    }
    ambiguous = ambiguous || k.result.ab->kind == stats::change::ambiguous;
  }
  return !any || ambiguous ? bisect_answer::skip : bisect_answer::good;
}

std::optional<bisect_range> range_from_history(const std::vector<series>& all,
                                               const std::string& kernel_regex) {
  std::regex pattern;
  try {
    pattern = std::regex(kernel_regex, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw usage_error("kernel_regex", "'" + kernel_regex + "' is not a valid regex: " + e.what());
  }
  std::optional<bisect_range> latest;
  std::size_t latest_at = 0;
  for (const auto& s : all) {
    if (s.muted || !std::regex_search(s.kernel, pattern)) {
      continue;
    }
    for (const auto& c : s.changes) {
      // Later in the series wins; series share the commits' order, so the index compares.
      if (c.ratio > 1 && c.index > 0 && c.index < s.commits.size() &&
          (!latest || c.index >= latest_at)) {
        latest =
            bisect_range{s.commits[c.index - 1], s.commits[c.index], s.kernel, s.device, c.ratio};
        latest_at = c.index;
      }
    }
  }
  return latest;
}

std::string first_bad_commit(std::string_view bisect_log) {
  static const std::regex line(R"(# first bad commit: \[([0-9a-f]{7,64})\])");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(bisect_log.begin(), bisect_log.end(), m, line)) {
    return m[1].str();
  }
  return {};
}

std::string git(const std::string& repo, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"git", "-C", repo};
  argv.insert(argv.end(), args.begin(), args.end());
  detail::process_options o;
  o.capture_stdout = true;
  o.forward_stderr = true;
  const auto done = detail::run_process(argv, o);
  if (done.exit_code != 0) {
    std::string command = "git";
    for (const auto& a : args) {
      command += " " + a;
    }
    throw usage_error(command + " in " + repo + " failed (" + done.describe() + ")" +
                      (done.last_stderr_line.empty() ? "" : ": " + done.last_stderr_line));
  }
  std::string out = done.stdout_text;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) {
    out.pop_back();
  }
  return out;
}

bool run_build(const std::string& dir, const std::string& command) {
  // The build command is the user's shell line (`cmake --build build`), run where it belongs.
  detail::process_options o;
  o.forward_stderr = true;
  const auto done = detail::run_process({"/bin/sh", "-c", "cd \"$1\" && " + command, "sh", dir}, o);
  return done.exit_code == 0 && done.signal == 0 && !done.timed_out;
}

std::vector<std::string> ab_evidence(const report& judged) {
  std::vector<std::string> lines;
  for (const auto& k : judged.kernels) {
    if (const auto& a = k.result.ab) {
      lines.push_back(k.name + ": " + std::string(stats::to_string(a->kind)) +
                      (a->kind == stats::change::slower && !a->beyond_allowed ? " (within)" : "") +
                      ", time ratio " + detail::fixed(a->ratio.estimate, 3) + "x (" +
                      detail::fixed(a->confidence * 100, 0) + "% interval " +
                      detail::fixed(a->ratio.lo, 3) + "x .. " + detail::fixed(a->ratio.hi, 3) +
                      "x, allowed " + detail::fixed(a->allowed, 3) + "x) over " +
                      std::to_string(a->rounds) + " rounds");
    }
  }
  return lines;
}

} // namespace perfgate::history
