// SPDX-License-Identifier: Apache-2.0
// The `perfgate` command: parse, run one subcommand, map errors to the exit codes of DESIGN.md.
#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "cli/commands.hpp"

#include <algorithm>
#include <iostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
// "--kernels: " for the library argument `argument` of a usage error, by the option the
// subcommand that ran has for it ("" when it has none).
std::string option_prefix(const CLI::App& app, const std::string& argument) {
  static const std::vector<std::pair<std::string_view, std::vector<std::string>>> options = {
      {"kernel_regex", {"--kernel", "--kernels"}},
      {"devices", {"--device"}},
      {"species", {"--species", "--hull-species"}},
      {"f", {"--f", "--hull-f"}},
      {"alpha", {"--alpha"}},
      {"element_bytes", {"--element-bytes"}},
  };
  for (const auto& [arg, names] : options) {
    if (arg != argument) {
      continue;
    }
    for (const CLI::App* sub : app.get_subcommands()) {
      for (const auto& name : names) {
        if (sub->get_option_no_throw(name) != nullptr) {
          return name + ": ";
        }
      }
    }
  }
  return "";
}
} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  // `perfgate run [options] -- PROGRAM ARGS...`: the program's command line is split off here,
  // so none of its arguments is ever read as one of ours.
  const auto dashes = std::find(args.begin() + 1, args.end(), std::string("--"));
  const std::vector<std::string> program(dashes == args.end() ? args.end() : dashes + 1,
                                         args.end());
  std::vector<std::string> ours(args.begin() + 1, dashes);
  std::reverse(ours.begin(), ours.end()); // CLI11 takes a vector in reverse order
  CLI::App app{"perfgate: predicted performance bounds for GPU and CPU kernels, as a CI gate"};
  app.set_version_flag("--version", std::string(perfgate::version()));
  app.require_subcommand(1);
  namespace cli = perfgate::cli;
  const std::vector<std::pair<std::string, cli::action>> commands = {
      {"predict", cli::add_predict_command(app, args)},
      {"run", cli::add_run_command(app, args, program)},
      {"ab", cli::add_ab_command(app, args, program)},
      {"bisect", cli::add_bisect_command(app, program)},
      {"history", cli::add_history_command(app)},
      {"calibrate", cli::add_calibrate_command(app, args)},
      {"devices", cli::add_devices_command(app)},
      {"metrics", cli::add_metrics_command(app)},
      {"report", cli::add_report_command(app)},
      {"compare", cli::add_compare_command(app)},
      {"merge", cli::add_merge_command(app, args)},
      {"baseline", cli::add_baseline_command(app)},
      {"pipeline", cli::add_pipeline_command(app)},
      {"hull", cli::add_hull_command(app)},
      {"resources", cli::add_resources_command(app)},
  };
  try {
    app.parse(ours);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e); // prints help, version or the parse error
    return code == 0 ? 0 : static_cast<int>(perfgate::exit_status::input_error);
  }
  try {
    for (const auto& [name, run] : commands) {
      if (app.got_subcommand(name)) {
        return run();
      }
    }
  } catch (const perfgate::usage_error& e) {
    std::cerr << "perfgate: error: " << option_prefix(app, e.argument()) << e.what() << "\n";
    return static_cast<int>(e.status());
  } catch (const perfgate::error& e) {
    std::cerr << "perfgate: "
              << (e.status() == perfgate::exit_status::skipped ? "skipped: " : "error: ")
              << e.what() << "\n";
    return static_cast<int>(e.status());
  } catch (const std::exception& e) {
    // Not an error perfgate throws on purpose (std::logic_error of a broken invariant,
    // bad_alloc, ...): a bug to report, told apart from the user's bad input (2).
    std::cerr << "perfgate: internal error (please report it): " << e.what() << "\n";
    return static_cast<int>(perfgate::exit_status::internal_error);
  }
  return static_cast<int>(perfgate::exit_status::input_error);
}
