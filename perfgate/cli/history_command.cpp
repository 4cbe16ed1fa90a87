// SPDX-License-Identifier: Apache-2.0
// perfgate history append|changes|mute|unmute: a project's performance history and the change
// points in it (history/history.hpp, docs/statistics.md "History").
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/report.hpp>

#include "cli/commands.hpp"
#include "history/history.hpp"

#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>

namespace perfgate::cli {

namespace {

struct history_options {
  std::string file;
  std::vector<std::string> reports;
  std::string commit;
  std::string date;
  std::string kernel;
  std::string reason;
  std::string format = "md";
  std::string mutes;
  std::string output;
  double significance = 0.01;
  double min_shift = 0.02;
};

std::string today() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// The history as it is: an absent file is an empty history (the first run of a project).
std::string history_text(const std::string& file) {
  return std::filesystem::exists(file) ? read_text_file(file) : std::string();
}

// The file with `lines` after what it holds, written whole and atomically: a killed job never
// leaves half a line.
void append(const std::string& file, const std::string& lines) {
  const std::string before = history_text(file);
  (void)history::read_history(before, file); // never append to a file that cannot be read
  const std::filesystem::path path(file);
  create_parent_directories(path);
  write_files_atomically({{path, before + (before.empty() || before.back() == '\n' ? "" : "\n") + lines}});
}

} // namespace

action add_history_command(CLI::App& app) {
  auto o = std::make_shared<history_options>();
  auto* cmd = app.add_subcommand(
      "history", "A project's performance history: append accepted runs, find change points, "
                 "mute a kernel");
  cmd->require_subcommand(1);
  auto* add = cmd->add_subcommand(
      "append", "Append the kernels of gated reports of one commit (one report per run) to the "
                "history");
  add->add_option("reports", o->reports, "perfgate-report files of the commit's runs")->required();
  add->add_option("--history", o->file, "The perfgate-history/1 file (JSON lines)")->required();
  add->add_option("--commit", o->commit, "The commit the reports measured")->required();
  add->add_option("--date", o->date, "Its date (ISO 8601); default now");
  auto* changes = cmd->add_subcommand(
      "changes", "Each kernel's series and the change points in it (the first commit of every "
                 "shift, its size and confidence)");
  changes->add_option("--history", o->file, "The perfgate-history/1 file")->required();
  changes->add_option("--format", o->format, "md (a pull-request comment), html, json, text")
      ->check(CLI::IsMember(writer_names(history::trend_writers())))
      ->capture_default_str();
  changes->add_option("-o,--output", o->output, "Write here (atomically) instead of stdout");
  changes->add_option("--mutes", o->mutes,
                      "A perfgate-history/1 file of mute lines kept apart (e.g. committed to the "
                      "repository), applied after the history's own");
  changes->add_option("--significance", o->significance,
                      "Keep a split whose permutation p value is at most this")
      ->check(CLI::Range(0.001, 0.5))
      ->capture_default_str();
  changes->add_option("--min-shift", o->min_shift,
                      "Report shifts of at least this relative size")
      ->check(CLI::Range(0.0, 10.0))
      ->capture_default_str();
  auto* mute = cmd->add_subcommand("mute", "Take a kernel out of alerts, with the reason");
  mute->add_option("kernel", o->kernel, "The kernel's full name")->required();
  mute->add_option("--history", o->file, "The perfgate-history/1 file")->required();
  mute->add_option("--reason", o->reason, "Why (shown beside the kernel)")->required();
  auto* unmute = cmd->add_subcommand("unmute", "Alert on a muted kernel again");
  unmute->add_option("kernel", o->kernel, "The kernel's full name")->required();
  unmute->add_option("--history", o->file, "The perfgate-history/1 file")->required();
  return [o, add, changes, mute, unmute]() {
    if (add->parsed()) {
      const std::string date = o->date.empty() ? today() : o->date;
      std::string lines;
      std::size_t kernels = 0;
      for (const auto& f : o->reports) {
        const auto entries =
            history::entries_of(report_from_json(read_text_file(f), f), o->commit, date);
        if (entries.empty()) {
          throw input_error(f, "", "no kernel with an efficiency: nothing to add to a history");
        }
        kernels += entries.size();
        lines += history::to_lines(entries);
      }
      append(o->file, lines);
      std::cerr << "perfgate: history " << o->file << ": " << kernels << " kernel run"
                << (kernels == 1 ? "" : "s") << " of " << o->commit << " appended\n";
      return 0;
    }
    if (mute->parsed() || unmute->parsed()) {
      const auto s = history::read_history(history_text(o->file), o->file);
      const bool known = std::any_of(s.entries.begin(), s.entries.end(),
                                     [&](const history::entry& e) { return e.kernel == o->kernel; });
      if (!known && !s.entries.empty()) { // a file of mute lines only names any kernel
        throw usage_error("'" + o->kernel + "' is not a kernel of the history " + o->file +
                          " (kernels are named in full, as in the reports)");
      }
      append(o->file, history::to_line({o->kernel, mute->parsed(), o->reason, today()}));
      return 0;
    }
    (void)changes;
    auto s = history::read_history(history_text(o->file), o->file);
    if (!o->mutes.empty()) {
      const auto kept = history::read_history(read_text_file(o->mutes), o->mutes);
      s.mutes.insert(s.mutes.end(), kept.mutes.begin(), kept.mutes.end());
    }
    stats::change_point_options options;
    options.significance = o->significance;
    options.min_shift = o->min_shift;
    const auto all = history::trends(s, options);
    const std::string text = find_writer(history::trend_writers(), o->format).render(all);
    if (o->output.empty()) {
      std::cout << text;
    } else {
      const std::filesystem::path path(o->output);
      create_parent_directories(path);
      write_files_atomically({{path, text}});
      std::cerr << "perfgate: wrote " << o->output << "\n";
    }
    return 0;
  };
}

} // namespace perfgate::cli
