// SPDX-License-Identifier: Apache-2.0
// The `perfgate` command: parse, run one subcommand, map errors to the exit codes of DESIGN.md.
#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "commands.hpp"

#include <algorithm>
#include <iostream>

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
  auto predict = perfgate::cli::add_predict_command(app, args);
  auto devices = perfgate::cli::add_devices_command(app);
  auto calibrate = perfgate::cli::add_calibrate_command(app, args);
  auto run = perfgate::cli::add_run_command(app, args, program);
  auto baseline = perfgate::cli::add_baseline_command(app);
  try {
    app.parse(ours);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e); // prints help, version or the parse error
    return code == 0 ? 0 : static_cast<int>(perfgate::exit_status::input_error);
  }
  try {
    if (app.got_subcommand("predict")) {
      return predict();
    }
    if (app.got_subcommand("devices")) {
      return devices();
    }
    if (app.got_subcommand("calibrate")) {
      return calibrate();
    }
    if (app.got_subcommand("run")) {
      return run();
    }
    if (app.got_subcommand("baseline")) {
      return baseline();
    }
  } catch (const perfgate::error& e) {
    std::cerr << "perfgate: "
              << (e.status() == perfgate::exit_status::skipped ? "skipped: " : "error: ")
              << e.what() << "\n";
    return static_cast<int>(e.status());
  } catch (const std::exception& e) {
    std::cerr << "perfgate: internal error: " << e.what() << "\n";
    return static_cast<int>(perfgate::exit_status::input_error);
  }
  return static_cast<int>(perfgate::exit_status::input_error);
}
