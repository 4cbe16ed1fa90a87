// SPDX-License-Identifier: Apache-2.0
// The `perfgate` command: parse, run one subcommand, map errors to the exit codes of DESIGN.md.
#include <perfgate/error.hpp>
#include <perfgate/version.hpp>

#include "commands.hpp"

#include <iostream>

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv, argv + argc);
  CLI::App app{"perfgate: predicted performance bounds for GPU and CPU kernels, as a CI gate"};
  app.set_version_flag("--version", std::string(perfgate::version()));
  app.require_subcommand(1);
  auto predict = perfgate::cli::add_predict_command(app, args);
  auto devices = perfgate::cli::add_devices_command(app);
  auto calibrate = perfgate::cli::add_calibrate_command(app, args);
  try {
    app.parse(argc, argv);
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
