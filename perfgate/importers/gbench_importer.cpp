// SPDX-License-Identifier: Apache-2.0
#include "importers/gbench_importer.hpp"

#include <perfgate/error.hpp>

#include "util/json_fields.hpp"
#include "util/strings.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <iostream>
#include <map>
#include <optional>
#include <set>

namespace perfgate::detail {

namespace {
double seconds_per(const json_fields& f) {
  const std::string unit = f.string_or("time_unit", "ns");
  if (unit == "ns") {
    return 1e-9;
  }
  if (unit == "us") {
    return 1e-6;
  }
  if (unit == "ms") {
    return 1e-3;
  }
  if (unit == "s") {
    return 1.0;
  }
  f.fail("time_unit", "unknown time unit \"" + unit + "\", expected ns, us, ms or s");
}

// Google Benchmark writes non-finite numbers as bare NaN / inf (e.g. the coefficient of variation
// of a counter that is 0 in every repetition), which is not JSON. Outside strings they become
// null; perfgate never reads the aggregates they appear in.
std::string replace_non_finite(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) {
        out += text[++i];
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      out += c;
      continue;
    }
    bool replaced = false;
    for (std::string_view token :
         {"-nan", "nan", "NaN", "-NaN", "-inf", "inf", "-Infinity", "Infinity"}) {
      if (text.substr(i, token.size()) == token) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out += c;
    }
  }
  return out;
}

constexpr std::string_view tensor_prefix = "perfgate_tensor_";

// The counters a benchmark declares its work to perfgate with (docs/formats.md); the
// perfgate_tensor_<precision>_ops ones are checked by declared_tensor_ops. A counter named
// perfgate_* that is none of them is a declaration perfgate would not read: refused.
constexpr std::string_view declaration_counters[] = {
    "perfgate_fp32_flops",  "perfgate_fp64_flops",        "perfgate_int_ops",
    "perfgate_bytes",       "perfgate_write_bytes",       "perfgate_working_set_bytes",
    "perfgate_ordinary_stores", "perfgate_matrix"};

void no_unknown_declaration(const json_fields& b) {
  for (const auto& item : b.raw().items()) {
    const std::string& key = item.key();
    if (!key.starts_with("perfgate_") || key.starts_with(tensor_prefix) ||
        std::find(std::begin(declaration_counters), std::end(declaration_counters), key) !=
            std::end(declaration_counters)) {
      continue;
    }
    std::vector<std::string> names(std::begin(declaration_counters), std::end(declaration_counters));
    for (auto op : counter::tensor_ops) {
      names.push_back("perfgate_" + std::string(op));
    }
    const std::vector<std::string_view> views(names.begin(), names.end());
    const auto meant = nearest_word(key, views);
    b.fail(key, "is no counter perfgate reads: " +
                    (meant ? "did you mean '" + *meant + "'?" : "expected one of " + join(names, ", ")));
  }
}

// The first of the values perfgate reads that is null (NaN/Infinity in the file), if any.
std::optional<std::string> non_finite_key(const json_fields& b) {
  for (const char* key :
       {"real_time", "cpu_time", "perfgate_bytes", "perfgate_fp32_flops", "perfgate_fp64_flops",
        "perfgate_int_ops", "perfgate_write_bytes", "perfgate_working_set_bytes",
        "perfgate_ordinary_stores", "perfgate_matrix", "bytes_per_second", "items_per_second"}) {
    if (b.raw().contains(key) && b.raw().at(key).is_null()) { // has() is false for null
      return std::string(key);
    }
  }
  for (const auto& item : b.raw().items()) {
    if (item.key().starts_with(tensor_prefix) && item.value().is_null()) {
      return item.key();
    }
  }
  return std::nullopt;
}

// Declared tensor work: `perfgate_tensor_<precision>_ops` counters, by canonical counter name.
std::map<std::string, double, std::less<>> declared_tensor_ops(const json_fields& b) {
  std::map<std::string, double, std::less<>> ops;
  for (const auto& item : b.raw().items()) {
    const std::string& key = item.key();
    if (!key.starts_with(tensor_prefix)) {
      continue;
    }
    const std::string canonical = key.substr(std::string_view("perfgate_").size());
    const auto& known = counter::tensor_ops;
    if (std::find(known.begin(), known.end(), canonical) == known.end()) {
      std::string names;
      for (auto name : known) {
        names += (names.empty() ? "" : ", ") + std::string("perfgate_") + std::string(name);
      }
      b.fail(key, "names no tensor precision perfgate knows; expected one of " + names);
    }
    if (const double v = b.non_negative(key); v > 0) {
      ops[canonical] = v;
    }
  }
  return ops;
}

// A benchmark that UseRealTime() or UseManualTime(): its name ends in /real_time or
// /manual_time, and Google Benchmark reports and sizes it on real_time.
bool on_real_or_manual_time(std::string_view name) {
  return name.find("/real_time") != std::string_view::npos ||
         name.find("/manual_time") != std::string_view::npos;
}

// Google Benchmark's own rate counters, SetBytesProcessed (bytes_per_second) and
// SetItemsProcessed (items_per_second): what all threads processed over the seconds the run
// measured, which are the CPU time (its JSON cpu_time x threads x iterations) unless the
// benchmark uses real or manual time, whose name then ends in /real_time or /manual_time and
// whose time is in real_time. Their product with that per-iteration time and the thread count is
// what one iteration of all the threads processed, the unit of perfgate's declared work.
std::optional<double> per_iteration(const json_fields& b, std::string_view rate_key,
                                    const std::string& name, std::uint64_t threads) {
  if (!b.has(rate_key)) {
    return std::nullopt;
  }
  const std::string_view time_key = on_real_or_manual_time(name) ? "real_time" : "cpu_time";
  return b.non_negative(rate_key) * b.positive(time_key) * seconds_per(b) *
         static_cast<double>(threads);
}

// The arguments a Google Benchmark name carries after its function name ("BM_memcpy/8/64":
// "8/64"); the options the harness appends (min_time:, min_warmup_time:, iterations:,
// repeats:, threads:, process_time, real_time, manual_time) are not the benchmark's.
std::string arguments_of(std::string_view name) {
  constexpr std::array<std::string_view, 5> option_prefixes = {
      "min_time:", "min_warmup_time:", "iterations:", "repeats:", "threads:"};
  std::string out;
  for (std::size_t at = name.find('/'); at != std::string_view::npos;) {
    const std::size_t end = name.find('/', at + 1);
    const std::string_view part =
        name.substr(at + 1, end == std::string_view::npos ? end : end - at - 1);
    const bool option =
        part == "real_time" || part == "manual_time" || part == "process_time" ||
        std::any_of(option_prefixes.begin(), option_prefixes.end(),
                    [&](std::string_view p) { return part.substr(0, p.size()) == p; });
    if (!option && !part.empty()) {
      out += (out.empty() ? "" : "/") + std::string(part);
    }
    at = end;
  }
  return out;
}

// The clock a repetition is timed on: Google Benchmark's own. It times a benchmark on its
// thread's CPU time (cpu_time) unless the benchmark asks for real or manual time, or for the
// whole process's CPU time; with T threads perfgate keeps T x real_time (cpu_time then adds
// the threads up). The CPU time is what the work took on a runner that others share: a
// neighbour that takes the core away stretches real_time and not cpu_time (on the 2-core VM,
// two busy threads beside a triad: real_time 1.2-1.5x, cpu_time within 3%; docs/statistics.md).
// A file without cpu_time (not Google Benchmark's own) is timed on real_time.
std::string_view sample_clock(const json_fields& b, const std::string& name,
                              std::uint64_t threads) {
  const bool wall = threads != 1 || on_real_or_manual_time(name) ||
                    name.find("/process_time") != std::string::npos;
  return wall || !b.has("cpu_time") ? "real_time" : "cpu_time";
}

struct benchmark_runs {
  std::vector<double> times_s;
  std::vector<double> real_times_s; ///< beside CPU times_s: the same repetitions' real_time
  std::uint64_t threads = 1;
  std::optional<declared_work> work;
};
} // namespace

bool looks_like_gbench_json(std::string_view text) {
  return text.find("\"benchmarks\"") != std::string_view::npos &&
         text.find("\"context\"") != std::string_view::npos;
}

profile import_gbench_json(std::string_view text, const std::string& file) {
  const nlohmann::json doc = json_fields::parse(replace_non_finite(text), file);
  const json_fields root(doc, file, "");
  const auto context = root.object("context");
  if (context.has("json_schema_version") && context.number("json_schema_version") != 1) {
    context.fail("json_schema_version", "expected 1 (Google Benchmark's JSON format version 1)");
  }
  profile p;
  p.format = profile_format::gbench_json;
  p.source_file = file;
  p.device_name = context.string_or("host_name", "");
  p.warp_size = 1;
  std::vector<std::string> order;
  std::map<std::string, benchmark_runs> runs;
  std::set<std::string> refused;
  const auto& benchmarks = root.array("benchmarks");
  for (std::size_t i = 0; i < benchmarks.size(); ++i) {
    const auto b = root.element(benchmarks[i], i, "benchmarks");
    if (b.string_or("run_type", "iteration") != "iteration") {
      continue; // aggregates (mean, median, stddev) are recomputed from the repetitions
    }
    const std::string name = b.has("run_name") ? b.string("run_name") : b.string("name");
    if (b.has("error_occurred") && b.raw().at("error_occurred").is_boolean() &&
        b.raw().at("error_occurred").get<bool>()) {
      std::cerr << "perfgate: " << file << ": benchmark '" << name
                << "' reported an error and is left out: " << b.string_or("error_message", "")
                << "\n";
      continue;
    }
    // NaN/Infinity became null above: the benchmark's time or declared work is no number (a
    // counter divided by zero). Refuse this benchmark, with the reason, not the whole file.
    if (const auto bad = non_finite_key(b)) {
      if (refused.insert(name).second) {
        p.tool_errors.push_back("Failed to profile \"" + name + "\": its \"" + *bad +
                                "\" is NaN or infinite (Google Benchmark writes NaN/Infinity "
                                "for a value divided by zero); the benchmark is left out");
      }
      continue;
    }
    auto [it, inserted] = runs.try_emplace(name);
    if (inserted) {
      order.push_back(name);
    }
    benchmark_runs& r = it->second;
    // With T threads, Google Benchmark divides the wall time by the iterations of all threads
    // (each thread's wall time / (T x its iterations)) while a default counter is the sum over
    // the threads: the time of one iteration of all T threads together is T x real_time.
    const std::uint64_t threads = b.has("threads") ? b.count("threads") : 1;
    if (threads == 0) {
      b.fail("threads", "expected at least 1 thread");
    }
    const std::string_view clock = sample_clock(b, name, threads);
    const double time_s = b.positive(clock) * seconds_per(b) * static_cast<double>(threads);
    if (!std::isnormal(time_s)) { // a denormal time: bound / time would be inf
      b.fail(clock, "a time of " + b.raw().at(clock).dump() + " " + b.string_or("time_unit", "ns") +
                        " is below the smallest normal double in seconds (2.2e-308 s)");
    }
    r.times_s.push_back(time_s);
    if (clock == "cpu_time") {
      r.real_times_s.push_back(b.positive("real_time") * seconds_per(b));
    }
    r.threads = threads;
    no_unknown_declaration(b);
    auto tensor_ops = declared_tensor_ops(b);
    const auto standard_bytes = per_iteration(b, "bytes_per_second", name, threads);
    const auto items = per_iteration(b, "items_per_second", name, threads);
    if (b.has("perfgate_bytes") || b.has("perfgate_fp32_flops") || b.has("perfgate_fp64_flops") ||
        b.has("perfgate_int_ops") || !tensor_ops.empty() || standard_bytes || items) {
      // Items alone are kept too: the report says what was declared and why it cannot be judged.
      auto value = [&](std::string_view key) { return b.has(key) ? b.non_negative(key) : 0.0; };
      r.work = declared_work{value("perfgate_fp32_flops"), value("perfgate_fp64_flops"),
                             value("perfgate_int_ops"), value("perfgate_bytes"),
                             value("perfgate_working_set_bytes")};
      r.work->tensor_ops = std::move(tensor_ops);
      r.work->items = items;
      r.work->arguments = arguments_of(name);
      if (!b.has("perfgate_bytes") && standard_bytes) { // perfgate_bytes wins where both are
        r.work->bytes = *standard_bytes;
        r.work->bytes_source = "bytes_per_second";
      }
      if (b.has("perfgate_write_bytes")) {
        const double written = b.non_negative("perfgate_write_bytes");
        if (!b.has("perfgate_bytes")) {
          b.fail("perfgate_write_bytes",
                 "is the written part of perfgate_bytes, but perfgate_bytes is not set");
        }
        if (written > r.work->bytes) {
          b.fail("perfgate_write_bytes", "expected the written part of perfgate_bytes, at most " +
                                             b.raw().at("perfgate_bytes").dump() + ", found " +
                                             b.raw().at("perfgate_write_bytes").dump());
        }
        r.work->write_bytes = written;
      }
      if (b.has("perfgate_ordinary_stores")) {
        const double flag = b.non_negative("perfgate_ordinary_stores");
        if (flag != 0 && flag != 1) {
          b.fail("perfgate_ordinary_stores", "expected 1 (ordinary stores only) or 0");
        }
        r.work->ordinary_stores = flag == 1;
      }
      if (b.has("perfgate_matrix")) {
        const double flag = b.non_negative("perfgate_matrix");
        if (flag != 0 && flag != 1) {
          b.fail("perfgate_matrix", "expected 1 (a matrix product, which may run on matrix units) "
                                    "or 0 (the vector pipes alone)");
        }
        r.work->matrix = flag == 1;
      }
    }
  }
  for (const auto& name : order) {
    if (refused.contains(name)) {
      continue; // some repetitions were fine, but the benchmark's numbers are not all there
    }
    const benchmark_runs& r = runs[name];
    kernel_profile k;
    k.name = name;
    k.invocations = 1; // the declared work and the time are those of one iteration
    k.work = r.work;
    k.threads = r.threads;
    k.duration = duration_stats::from_samples(r.times_s);
    k.time_s = k.duration->median_s;
    if (!r.real_times_s.empty()) {
      k.real_time_s = duration_stats::from_samples(r.real_times_s).median_s;
    }
    p.kernels.push_back(std::move(k));
  }
  return p;
}

} // namespace perfgate::detail
