// SPDX-License-Identifier: Apache-2.0
// perfgate pipeline idg (--cubin BINARY | --sass LISTING) [--kernel NAME] [--arch sm_NN]
//                       [--trip-count HEAD=N]... [--trip-counts FILE] [--profile FILE]
//                       [--global-latency dram|l2] [--latencies lat.json] -o k.idg.json:
// a kernel's instruction dependence graph from its SASS.
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>
#include <perfgate/pipeline.hpp>

#include "cli/commands.hpp"
#include "collectors/sass_listing.hpp"
#include "importers/sass_importer.hpp"
#include "importers/trip_counts.hpp"
#include "util/demangle.hpp"
#include "util/number_format.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>

namespace perfgate::cli {

namespace {
struct idg_options {
  std::string cubin, sass, res_usage, kernel, arch, global_latency = "dram", latencies, output;
  std::string trip_counts_file, profile_file;
  std::vector<std::string> trip_counts;
};

// The kernel of the listing --kernel names (its mangled name, its demangled name, or the
// demangled name without parameters), for --arch or the newest architecture listed.
const detail::sass_function& pick_kernel(const std::vector<detail::sass_function>& functions,
                                         const idg_options& o, const std::string& source) {
  std::string arch = o.arch;
  if (arch.empty()) {
    for (const auto& f : functions) {
      const auto number = [](const std::string& a) { return std::atoi(a.c_str() + 3); };
      if (arch.empty() || number(f.arch) > number(arch)) {
        arch = f.arch;
      }
    }
  }
  std::vector<const detail::sass_function*> matches;
  std::string names;
  for (const auto& f : functions) {
    if (f.arch != arch) {
      continue;
    }
    const std::string demangled = detail::demangle(f.name.c_str());
    names += "\n  " + demangled + (demangled == f.name ? "" : " (" + f.name + ")");
    if (o.kernel.empty() || f.name == o.kernel || demangled == o.kernel ||
        demangled.substr(0, demangled.find('(')) == o.kernel) {
      matches.push_back(&f);
    }
  }
  if (names.empty()) {
    throw usage_error("--arch: " + source + " has no SASS for " + arch);
  }
  if (matches.size() != 1) {
    throw usage_error("--kernel: " +
                      (o.kernel.empty() ? source + " has several kernels: pick one"
                       : matches.empty()
                           ? "no kernel '" + o.kernel + "' in " + source
                           : "'" + o.kernel + "' names several kernels of " + source) +
                      "; its " + arch + " kernels:" + names);
  }
  return *matches.front();
}

int run_idg(const idg_options& o) {
  if (o.cubin.empty() == o.sass.empty()) {
    throw usage_error("give one of --cubin BINARY (listed with cuobjdump -sass) and --sass "
                      "LISTING (a saved cuobjdump -sass listing)");
  }
  const std::string source = o.cubin.empty() ? o.sass : o.cubin;
  const std::string listing =
      o.cubin.empty() ? read_text_file(o.sass) : detail::cuobjdump_sass(o.cubin);
  const auto functions = detail::sass_from_listing(listing, source);
  if (functions.empty()) {
    throw input_error(source, "", "no SASS in it (no 'Function :' in cuobjdump -sass's listing)");
  }
  const auto& f = pick_kernel(functions, o, source);
  detail::sass_idg_options options;
  for (const auto& t : o.trip_counts) {
    options.trip_counts.insert(detail::parse_trip_count(t));
  }
  if (!o.trip_counts_file.empty()) {
    detail::read_trip_counts(o.trip_counts_file, options.trip_counts);
  }
  if (!o.profile_file.empty()) {
    const auto settled = detail::trip_count_from_profile(o.profile_file, f, options.trip_counts);
    char at[16];
    std::snprintf(at, sizeof at, "0x%04x", settled.head);
    std::cerr << "perfgate: the loop at " << at << " runs " << settled.trips
              << " times: " << detail::significant(settled.per_warp, 6)
              << " warp instructions executed per warp in " << o.profile_file << "\n";
  }
  options.global_latency = o.global_latency == "l2" ? "ldg_chase_l2" : "ldg_chase_dram";
  auto g = detail::idg_from_sass(f, options);
  // Registers and shared memory, for simulate --occupancy auto.
  const std::string usage_source = o.cubin.empty() ? o.res_usage : o.cubin;
  if (!usage_source.empty()) {
    const std::string usage =
        o.cubin.empty() ? read_text_file(o.res_usage) : detail::cuobjdump_resource_usage(o.cubin);
    for (const auto& u : detail::resource_usage_from_listing(usage, usage_source)) {
      if (u.function == f.name && (u.arch.empty() || u.arch == f.arch)) {
        g.resources = u.resources;
      }
    }
    if (!g.resources) {
      std::cerr << "perfgate: " << usage_source << " lists no resource usage of " << f.name
                << " for " << f.arch << ": simulate --occupancy auto will need a number\n";
    }
  }
  if (!o.latencies.empty()) {
    const auto known = pipeline::latencies_from_json(read_text_file(o.latencies), o.latencies);
    std::string missing;
    for (const auto& c : detail::latency_classes(g)) {
      if (known.find(c) == known.end()) {
        missing += (missing.empty() ? "" : ", ") + c;
      }
    }
    if (!missing.empty()) {
      throw input_error(o.latencies, "ops",
                        "no latencies for " + missing + ", which the graph of " + f.name +
                            " needs (perfgate pipeline fit on a sweep with those ops)");
    }
  }
  std::map<std::string, std::size_t> by_pipe;
  for (const auto& e : g.instructions) {
    ++by_pipe[std::string(pipeline::to_string(e.pipe))];
  }
  std::string pipes;
  for (const auto& [pipe, n] : by_pipe) {
    pipes += (pipes.empty() ? "" : ", ") + pipe + " " + std::to_string(n);
  }
  std::cerr << "perfgate: " << detail::demangle(f.name.c_str()) << " (" << f.arch
            << "): " << g.instructions.size() << " warp instructions on its path (" << pipes
            << "), " << g.trip_counts.size() << " loop" << (g.trip_counts.size() == 1 ? "" : "s")
            << " replicated"
            << (g.resources ? ", " + std::to_string(g.resources->registers_per_thread) +
                                  " registers per thread, " +
                                  std::to_string(g.resources->shared_bytes_per_group) +
                                  " bytes of shared memory per group"
                            : std::string())
            << "\n";
  emit(detail::sass_idg_to_json(g, o.cubin.empty() ? "listing " + o.sass
                                                   : "cuobjdump -sass " + o.cubin),
       o.output);
  return 0;
}
} // namespace

action add_pipeline_idg_command(CLI::App& pipeline) {
  auto d = std::make_shared<idg_options>();
  auto* idg = pipeline.add_subcommand(
      "idg", "A kernel's instruction dependence graph from its SASS (perfgate-idg/1), for "
             "simulate");
  idg->add_option("--cubin", d->cubin,
                  "CUDA binary (cubin, fatbin, object or executable), listed with cuobjdump -sass");
  idg->add_option("--sass", d->sass, "A saved cuobjdump -sass listing instead");
  idg->add_option("--res-usage", d->res_usage,
                  "With --sass: a saved cuobjdump -res-usage listing (registers, shared memory: "
                  "what simulate --occupancy auto needs)");
  idg->add_option("--kernel", d->kernel,
                  "The kernel: mangled or demangled name, or the name without parameters");
  idg->add_option("--arch", d->arch, "sm_NN of the listing (default: the newest in it)");
  idg->add_option("--trip-count", d->trip_counts,
                  "HEAD=N: the loop starting at offset HEAD runs its body N times (repeat per "
                  "loop; a missing one is an error listing the loops)");
  idg->add_option("--trip-counts", d->trip_counts_file,
                  "CSV of trip counts: columns head (the loop's first offset) and trips");
  idg->add_option("--profile", d->profile_file,
                  "A profile of the kernel (ncu, CUPTI) whose executed warp instructions settle "
                  "the trip count of the one loop left without one");
  idg->add_option("--global-latency", d->global_latency,
                  "Latency class of global memory instructions: dram (ldg_chase_dram) or l2 "
                  "(ldg_chase_l2)")
      ->check(CLI::IsMember({"dram", "l2"}))
      ->capture_default_str();
  idg->add_option("--latencies", d->latencies,
                  "perfgate-latencies/1 JSON that must price every latency class of the graph");
  idg->add_option("-o,--output", d->output, "perfgate-idg/1 JSON to write (default stdout)");
  return [d]() { return run_idg(*d); };
}

} // namespace perfgate::cli
