// SPDX-License-Identifier: Apache-2.0
#include "collectors/counter_cache.hpp"

#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "util/json_fields.hpp"
#include "util/subprocess.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace perfgate::detail {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr const char* cache_schema = "perfgate-counter-cache/1";

json key_json(const counter_cache_key& key) {
  return {{"files_fnv1a64", key.files_fnv1a64},
          {"argv", key.argv},
          {"device", key.device},
          {"metrics", key.metrics}};
}

counter_cache_key key_from(const json_fields& f) {
  return {f.strings("files_fnv1a64"), f.strings("argv"), f.string("device"), f.strings("metrics")};
}
} // namespace

counter_cache_key counter_cache_key_of(const std::vector<std::string>& argv, std::string device,
                                       std::vector<std::string> metrics) {
  if (argv.empty()) {
    throw std::logic_error("counter_cache_key_of: an empty command");
  }
  counter_cache_key key{{}, argv, std::move(device), std::move(metrics)};
  const auto program = find_executable(argv.front());
  if (!program) {
    throw input_error(argv.front(), "",
                      "not found or not executable: its counters cannot be "
                      "keyed by its contents");
  }
  key.files_fnv1a64.push_back(file_fnv1a64(*program));
  for (std::size_t i = 1; i < argv.size(); ++i) {
    std::error_code ec;
    if (fs::is_regular_file(argv[i], ec)) { // a script the program runs, an input it reads
      key.files_fnv1a64.push_back(argv[i] + "=" + file_fnv1a64(argv[i]));
    }
  }
  return key;
}

fs::path counter_cache::file_of(const counter_cache_key& key) const {
  // The name only spreads the keys over files: the file holds the whole key, compared on read.
  char name[32];
  std::snprintf(name, sizeof name, "%016zx.json", std::hash<std::string>{}(key_json(key).dump()));
  return m_dir / name;
}

std::optional<cupti_run> counter_cache::find(const counter_cache_key& key) const {
  const fs::path file = file_of(key);
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return std::nullopt;
  }
  try {
    const json doc = json_fields::parse(read_text_file(file), file.string());
    const json_fields root(doc, file.string(), "");
    (void)root.schema({cache_schema});
    if (key_from(root.object("key")) != key) {
      return std::nullopt; // another key of the same name: count this one
    }
    if (!doc.contains("run") || !doc.at("run").is_object()) {
      root.fail("run", "missing: expected the counter run (perfgate-cupti/1)");
    }
    auto run = cupti_run_from_json(doc.at("run").dump(), file.string());
    if (run.mode != "counters" || run.status != "ok") {
      root.object("run").fail("status", "expected an ok counter run, found a " + run.mode +
                                            " run with status " + run.status);
    }
    return run;
  } catch (const input_error& e) {
    std::cerr << "perfgate: warning: counter cache: " << e.what()
              << "; ignored, the state is counted again\n";
    return std::nullopt;
  }
}

void counter_cache::store(const counter_cache_key& key, const std::string& run_json) const {
  const fs::path file = file_of(key);
  try {
    const json doc = {
        {"schema", cache_schema}, {"key", key_json(key)}, {"run", json::parse(run_json)}};
    create_parent_directories(file);
    write_file_atomically(file, doc.dump(1) + "\n");
  } catch (const std::exception& e) { // counted already: only the reuse is lost
    std::cerr << "perfgate: warning: counter cache: cannot keep the counter run in "
              << file.string() << ": " << e.what() << "\n";
  }
}

cupti_run cached_counter_run(const counter_cache* cache, const counter_cache_key& key,
                             const std::function<std::string()>& count, bool* hit) {
  if (cache != nullptr) {
    if (auto run = cache->find(key)) {
      if (hit != nullptr) {
        *hit = true;
      }
      return *run;
    }
  }
  if (hit != nullptr) {
    *hit = false;
  }
  const std::string text = count();
  auto run = cupti_run_from_json(text, "counter run of " + key.argv.front());
  if (cache != nullptr) {
    cache->store(key, text);
  }
  return run;
}

} // namespace perfgate::detail
