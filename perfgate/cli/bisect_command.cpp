// SPDX-License-Identifier: Apache-2.0
// perfgate bisect --good G --bad B --build CMD --executable PATH --device DEV [-- ARGS...]:
// `git bisect run` with perfgate's A/B verdict as the test (history/bisect.hpp). The good
// commit is built once in a worktree of its own and kept as the base; git then checks out each
// commit to test in the repository, perfgate builds it there and runs it alternately with the
// base (perfgate ab's session and rule): SLOWER beyond the allowance is bad, AMBIGUOUS skips
// (125), as does a commit that does not build.
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/run_meta.hpp>
#include <perfgate/writers.hpp>

#include "cli/commands.hpp"
#include "cli/shared.hpp"
#include "decide/ab_session.hpp"
#include "history/bisect.hpp"
#include "util/subprocess.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

namespace {
namespace fs = std::filesystem;
using history::bisect_answer;

struct bisect_options {
  std::string good, bad, history_file, build, executable, repo = ".", work_dir;
  std::vector<std::string> device_ids;
  bool step = false;
  decide::ab_session session;
  gate_policy policy; ///< the A/B verdict's drop and confidence
};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The step's command line for `git bisect run`: this perfgate with the options resolved.
std::vector<std::string> step_command(const bisect_options& o,
                                      const std::vector<std::string>& program) {
  const auto& s = o.session;
  std::vector<std::string> argv = {fs::read_symlink("/proc/self/exe").string(),
                                   "bisect",
                                   "--step",
                                   "--repo",
                                   o.repo,
                                   "--work-dir",
                                   o.work_dir,
                                   "--build",
                                   o.build,
                                   "--executable",
                                   o.executable,
                                   "--collector",
                                   s.collection.collector,
                                   "--repetitions",
                                   std::to_string(s.collection.repetitions),
                                   "--min-rounds",
                                   std::to_string(s.min_rounds),
                                   "--max-rounds",
                                   std::to_string(s.max_rounds),
                                   "--time-budget",
                                   number(s.time_budget_s),
                                   "--max-efficiency-drop",
                                   number(o.policy.max_efficiency_drop),
                                   "--confidence",
                                   number(o.policy.confidence)};
  for (const auto& d : o.device_ids) {
    argv.insert(argv.end(), {"--device", d});
  }
  if (!s.collection.kernels.empty()) {
    argv.insert(argv.end(), {"--kernels", s.collection.kernels});
  }
  if (s.collection.timeout_s) {
    argv.insert(argv.end(), {"--timeout", number(*s.collection.timeout_s)});
  }
  argv.emplace_back("--");
  argv.insert(argv.end(), program.begin(), program.end());
  return argv;
}

fs::path step_report(const bisect_options& o, const std::string& sha) {
  return fs::path(o.work_dir) / "steps" / (sha + ".json");
}

// One commit, the one checked out in the repository: built, run alternately with the kept
// base, its judged report kept under the work folder; git's answer.
bisect_answer step(const bisect_options& o, const std::vector<std::string>& program) {
  const std::string sha = history::git(o.repo, {"rev-parse", "HEAD"});
  std::cerr << "perfgate bisect: testing " << sha << "\n";
  if (!history::run_build(o.repo, o.build)) {
    std::cerr << "perfgate bisect: " << sha << " does not build: skipped (125)\n";
    return bisect_answer::skip;
  }
  decide::ab_session s = o.session; // this commit's builds
  s.base_binary = (fs::path(o.work_dir) / "base" / o.executable).string();
  s.head_binary = (fs::path(o.repo) / o.executable).string();
  s.args = program;
  if (!fs::exists(s.head_binary)) {
    std::cerr << "perfgate bisect: the build left no " << s.head_binary << ": skipped (125)\n";
    return bisect_answer::skip;
  }
  std::vector<device> devices;
  for (const auto& d : o.device_ids) {
    devices.push_back(resolve_device(d));
  }
  report judged;
  try {
    judged = decide::judge_ab_outcome(
        decide::run_ab_session(s, o.policy, devices, make_run_meta("bisect", {})), o.policy);
  } catch (const target_error& e) {
    std::cerr << "perfgate bisect: " << sha << ": " << e.what() << ": skipped (125)\n";
    return bisect_answer::skip;
  }
  create_parent_directories(step_report(o, sha));
  write_files_atomically({{step_report(o, sha), report_to_json(judged)}});
  const bisect_answer a = history::bisect_answer_of(judged);
  std::cout << "perfgate bisect: " << sha << " is "
            << (a == bisect_answer::bad    ? "bad"
                : a == bisect_answer::good ? "good"
                                           : "skipped")
            << "\n";
  for (const auto& line : history::ab_evidence(judged)) {
    std::cout << "  " << line << "\n";
  }
  return a;
}

// The kept base: the good commit checked out in a worktree of its own and built there.
void build_base(const bisect_options& o, const std::string& good) {
  const fs::path base = fs::path(o.work_dir) / "base";
  if (fs::exists(base)) {
    (void)history::git(o.repo, {"worktree", "remove", "--force", base.string()});
  }
  (void)history::git(o.repo, {"worktree", "add", "--detach", base.string(), good});
  if (!history::run_build(base.string(), o.build)) {
    throw usage_error("the good commit " + good + " does not build with --build '" + o.build +
                      "' (in " + base.string() + ")");
  }
  if (!fs::exists(base / o.executable)) {
    throw usage_error("the good commit's build left no " + (base / o.executable).string() +
                      " (--executable is relative to the repository)");
  }
}

// `git bisect run` with the step, then the first bad commit it named (empty: none), measured
// for the evidence where git never tested it (the bad end itself).
std::string run_bisection(const bisect_options& o, const std::vector<std::string>& program) {
  detail::process_options po;
  po.forward_stderr = true;
  std::vector<std::string> run = {"git", "-C", o.repo, "bisect", "run"};
  const auto steps = step_command(o, program);
  run.insert(run.end(), steps.begin(), steps.end());
  (void)detail::run_process(run, po); // its outcome is read from the log below
  const std::string first = history::first_bad_commit(history::git(o.repo, {"bisect", "log"}));
  if (!first.empty() && !fs::exists(step_report(o, first))) {
    (void)history::git(o.repo, {"checkout", "--quiet", "--detach", first});
    (void)step(o, program);
  }
  return first;
}

int bisect(bisect_options& o, const std::vector<std::string>& program) {
  o.repo = history::git(o.repo, {"rev-parse", "--show-toplevel"});
  if (o.work_dir.empty()) {
    o.work_dir = history::git(o.repo, {"rev-parse", "--absolute-git-dir"}) + "/perfgate-bisect";
  }
  o.work_dir = fs::absolute(o.work_dir).string();
  if (!o.history_file.empty()) {
    const auto range = history::range_from_history(
        history::trends(history::read_history(read_text_file(o.history_file), o.history_file)),
        o.session.collection.kernels);
    if (!range) {
      throw usage_error(o.history_file + ": no change point that slowed a kernel" +
                        (o.session.collection.kernels.empty() ? "" : " matching --kernels"));
    }
    std::cout << "perfgate bisect: " << range->kernel << " on " << range->device << " "
              << range->ratio << "x from " << range->bad << " (after " << range->good << ")\n";
    o.good = range->good;
    o.bad = range->bad;
  }
  const std::string good = history::git(o.repo, {"rev-parse", "--verify", o.good + "^{commit}"});
  const std::string bad = history::git(o.repo, {"rev-parse", "--verify", o.bad + "^{commit}"});
  fs::remove_all(fs::path(o.work_dir) / "steps");
  build_base(o, good);
  (void)history::git(o.repo, {"bisect", "start", bad, good});
  std::string first;
  try {
    first = run_bisection(o, program);
  } catch (...) {
    (void)history::git(o.repo, {"bisect", "reset"}); // the checkout as it was
    throw;
  }
  (void)history::git(o.repo, {"bisect", "reset"});
  (void)history::git(o.repo,
                     {"worktree", "remove", "--force", (fs::path(o.work_dir) / "base").string()});
  if (first.empty()) {
    std::cout << "perfgate bisect: no single first bad commit: skipped (AMBIGUOUS or unbuildable) "
                 "commits leave it open (git bisect log in the output above lists them)\n";
    return 1;
  }
  const report evidence = report_from_json(read_text_file(step_report(o, first).string()),
                                           step_report(o, first).string());
  const bool slower = history::bisect_answer_of(evidence) == bisect_answer::bad;
  std::cout << "perfgate bisect: first bad commit " << first << " "
            << history::git(o.repo, {"log", "-1", "--format=%s", first}) << "\n";
  for (const auto& line : history::ab_evidence(evidence)) {
    std::cout << "  " << line << "\n";
  }
  if (!slower) {
    std::cout << "perfgate bisect: but its A/B verdict against the good commit is not SLOWER: "
                 "the range may not hold the regression\n";
  }
  return slower ? 0 : 1;
}

} // namespace

action add_bisect_command(CLI::App& app, const std::vector<std::string>& program) {
  auto o = std::make_shared<bisect_options>();
  auto* cmd = app.add_subcommand(
      "bisect", "Find the commit that slowed a kernel: git bisect run with perfgate's A/B "
                "verdict against the good commit's build");
  cmd->add_option("--good", o->good, "A commit without the slowdown (kept as the base)");
  cmd->add_option("--bad", o->bad, "A commit with it");
  cmd->add_option("--history", o->history_file,
                  "Instead of --good and --bad: the perfgate-history/1 file whose latest change "
                  "point that slowed a kernel (matching --kernels) names them");
  cmd->add_option("--build", o->build,
                  "Shell command that builds a checkout, run in its top folder")
      ->required();
  cmd->add_option("--executable", o->executable,
                  "The built benchmark, relative to the repository's top folder")
      ->required();
  cmd->add_option("--device", o->device_ids, "Device (as for perfgate ab); the first is local")
      ->required();
  cmd->add_option("--repo", o->repo, "The git repository")->capture_default_str();
  cmd->add_option("--work-dir", o->work_dir,
                  "Where the base worktree and the steps' reports go (default: "
                  "perfgate-bisect in the repository's git folder)");
  auto& s = o->session;
  cmd->add_option("--collector", s.collection.collector, "As for perfgate ab")
      ->capture_default_str();
  cmd->add_option("--kernels", s.collection.kernels,
                  "Only kernels / benchmarks matching this regex");
  add_change_options(cmd, o->policy.max_efficiency_drop, o->policy.confidence);
  cmd->add_option("--repetitions", s.collection.repetitions, "gbench: repetitions per run")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--min-rounds", s.min_rounds, "A/B rounds before a verdict")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--max-rounds", s.max_rounds, "A/B rounds at most (then AMBIGUOUS: skipped)")
      ->check(CLI::Range(6, 1000))
      ->capture_default_str();
  cmd->add_option("--time-budget", s.time_budget_s, "Seconds per commit's A/B session")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  cmd->add_option("--timeout", s.collection.timeout_s, "Kill a run after this many seconds")
      ->check(finite_seconds());
  cmd->add_flag("--step", o->step, "(internal) test the checked-out commit for git bisect run")
      ->group("");
  cmd->footer("After --: ARGS..., the arguments every build is run with");
  return [o, program]() {
    if (o->session.max_rounds < o->session.min_rounds) {
      throw usage_error("--max-rounds is below --min-rounds");
    }
    if (o->step) {
      try {
        return static_cast<int>(step(*o, program));
      } catch (const std::exception& e) {
        // Any other exit code would read as "bad" to git: stop the bisection instead.
        std::cerr << "perfgate bisect: " << e.what() << ": stopping the bisection\n";
        return static_cast<int>(bisect_answer::abort);
      }
    }
    if (o->history_file.empty() == (o->good.empty() || o->bad.empty())) {
      throw usage_error("give --good and --bad, or --history");
    }
    return bisect(*o, program);
  };
}

} // namespace perfgate::cli
