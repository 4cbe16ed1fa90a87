// SPDX-License-Identifier: Apache-2.0
// perfgate hull --species "<class>" --f <ops> --device <id|file>... [--fma yes|no|unknown]
//               [--coalescing known|unknown|scattered] [--vector yes|no|unknown]
//               [--element-bytes 4] [--alpha N] [--beta N] [--transfers] [--one-core]
//               [--format text|json|md|svg] [-o FILE]
// perfgate hull --app app.json --device ...    (several primitives + one transfer volume)
// perfgate hull --list-classes [--format text|json]
// The boat hull band of an algorithm class before its code exists (MODEL.md section 4).
#include <perfgate/device.hpp>
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/hull.hpp>
#include <perfgate/hull_report.hpp>

#include "cli/commands.hpp"

#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace perfgate::cli {
namespace {
// An enum option's choices, spelt as hull::to_string spells them (and the JSON files read them).
template <class E> std::map<std::string, E> spelt(std::initializer_list<E> values) {
  std::map<std::string, E> out;
  for (const E v : values) {
    out.emplace(std::string(hull::to_string(v)), v);
  }
  return out;
}

struct hull_options {
  std::string species;
  double f = 0;
  std::vector<std::string> devices;
  std::string fma = "unknown", coalescing = "unknown", vector = "unknown";
  std::map<std::string, hull::fma_use> fma_choices =
      spelt({hull::fma_use::yes, hull::fma_use::no, hull::fma_use::unknown});
  std::map<std::string, hull::coalescing> coalescing_choices =
      spelt({hull::coalescing::known, hull::coalescing::unknown, hull::coalescing::scattered});
  std::map<std::string, hull::vectorised> vector_choices =
      spelt({hull::vectorised::yes, hull::vectorised::no, hull::vectorised::unknown});
  double element_bytes = 4, alpha = 0, beta = 0;
  bool transfers = false, one_core = false, list_classes = false;
  std::string app_file;
  std::string format = "text";
  std::string output;
};

// The assumptions the options state about the code to come.
hull::assumptions assumed(const hull_options& o) {
  hull::assumptions a;
  a.fma = o.fma_choices.at(o.fma);
  a.coalesced = o.coalescing_choices.at(o.coalescing);
  a.vector = o.vector_choices.at(o.vector);
  a.element_bytes = o.element_bytes;
  a.transfers = o.transfers;
  a.one_core = o.one_core;
  return a;
}

// The band of the class (--species) or of the application (--app) on every device.
hull::document hull_document(const hull_options& o, bool application) {
  hull::document doc;
  doc.assumed = assumed(o);
  const auto& a = doc.assumed;
  std::vector<hull::device_rates> rates;
  for (const auto& d : o.devices) {
    rates.push_back(hull::rates_of(resolve_device(d), o.one_core));
  }
  if (application) {
    doc.app = hull::application_from_json(read_text_file(o.app_file), o.app_file);
    doc.app_file = o.app_file;
    for (const auto& r : rates) {
      doc.app_predictions.push_back(hull::predict_application(*doc.app, r, a));
    }
    return doc;
  }
  doc.species_text = o.species;
  doc.kind = hull::parse_species(o.species);
  doc.f = o.f;
  doc.alpha = o.alpha;
  doc.beta = o.beta;
  bool cpu = false, gpu = false;
  for (const auto& r : rates) {
    (r.cpu ? cpu : gpu) = true;
  }
  // o differs by target (CPU element -> element); the rows are the same.
  const auto gpu_params = hull::classify(*doc.kind, hull::target::gpu, o.alpha, o.beta);
  const auto cpu_params = hull::classify(*doc.kind, hull::target::cpu, o.alpha, o.beta);
  doc.params = gpu || !cpu ? gpu_params : cpu_params;
  for (const auto& r : rates) {
    doc.predictions.push_back(hull::predict(r.cpu ? cpu_params : gpu_params, o.f, r, a));
  }
  return doc;
}
} // namespace

action add_hull_command(CLI::App& app) {
  auto opt = std::make_shared<hull_options>();
  auto* cmd = app.add_subcommand(
      "hull", "Boat hull model: the time band an algorithm class can reach on each device, "
              "before its code exists");
  auto* species = cmd->add_option(
      "--species", opt->species,
      "The class as the paper writes it: \"1024x1024|element -> 1024x1024|element\", "
      "\"1024x1024 neighb(7x7) -> 1024x1024 element\", two inputs joined by ^, an 'unordered' "
      "prefix (--list-classes shows them all)");
  auto* f = cmd->add_option("--f", opt->f, "Operations per operator application (an FMA counts 2)");
  auto* app_opt = cmd->add_option("--app", opt->app_file,
                                  "A perfgate-hull-app/1 file: several primitives and one "
                                  "transfer volume");
  auto* list = cmd->add_flag("--list-classes", opt->list_classes,
                             "Print Table 1's classes (text or --format json) and exit");
  auto* device = cmd->add_option("--device", opt->devices,
                                 "A built-in device id or a perfgate-device/1 file; repeat for "
                                 "several");
  cmd->add_option("--fma", opt->fma, "Whether the code will use FMA: yes, no, unknown")
      ->check(CLI::IsMember(opt->fma_choices))
      ->capture_default_str();
  cmd->add_option("--coalescing", opt->coalescing,
                  "Memory accesses: known (coalesced), unknown, scattered")
      ->check(CLI::IsMember(opt->coalescing_choices))
      ->capture_default_str();
  cmd->add_option("--vector", opt->vector, "CPUs: whether the code will be vectorised")
      ->check(CLI::IsMember(opt->vector_choices))
      ->capture_default_str();
  cmd->add_option("--element-bytes", opt->element_bytes, "Bytes per data element")
      ->capture_default_str();
  cmd->add_option("--alpha", opt->alpha, "Neighbourhood classes: extra coalesced accesses");
  cmd->add_option("--beta", opt->beta, "Neighbourhood classes: uncoalesced accesses");
  cmd->add_flag("--transfers", opt->transfers,
                "Add t0, the host <-> device transfer of the class's data (GPUs)");
  cmd->add_flag("--one-core", opt->one_core,
                "CPUs: one thread, held to one core's peaks (as a one-thread benchmark is)");
  cmd->add_option("--format", opt->format, "text, json (perfgate-hull/1), md or svg")
      ->check(CLI::IsMember(writer_names(hull::hull_writers())))
      ->capture_default_str();
  cmd->add_option("-o,--output", opt->output, "Write to this file (atomically) instead of stdout");
  species->excludes(app_opt);
  list->excludes(species)->excludes(app_opt)->excludes(device);
  f->excludes(app_opt);
  return [opt, species, f, app_opt, device]() {
    if (opt->list_classes) {
      if (opt->format != "text" && opt->format != "json") {
        throw usage_error("--list-classes prints text or json, not " + opt->format);
      }
      emit(opt->format == "json" ? hull::classes_to_json() : hull::classes_to_text(), opt->output);
      return 0;
    }
    if (species->count() == 0 && app_opt->count() == 0) {
      throw usage_error("give --species \"<class>\" with --f, --app FILE, or --list-classes");
    }
    if (species->count() > 0 && f->count() == 0) {
      throw usage_error("--species needs --f, the operations of one operator application");
    }
    if (device->count() == 0) {
      throw usage_error("--device: give at least one device (a built-in id or a file)");
    }
    const hull::document doc = hull_document(*opt, app_opt->count() > 0);
    const std::string text = find_writer(hull::hull_writers(), opt->format).render(doc);
    emit(text, opt->output);
    return 0;
  };
}

} // namespace perfgate::cli
