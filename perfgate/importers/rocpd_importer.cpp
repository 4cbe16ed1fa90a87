// SPDX-License-Identifier: Apache-2.0
#include "importers/rocpd_importer.hpp"

#include <perfgate/error.hpp>

#include "importers/amd_counters.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <sqlite3.h>

namespace perfgate::detail {

namespace {
// A query that runs this many SQLite VM steps (x 1000) is stopped: the views are part of the
// file, and a hostile or corrupt one must not hang the gate. A real database needs some hundred
// steps per counter row.
constexpr int progress_every = 1000;
constexpr long long step_budget = 2'000'000; // x progress_every VM steps

struct closer {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using database = std::unique_ptr<sqlite3, closer>;

struct finalizer {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using statement = std::unique_ptr<sqlite3_stmt, finalizer>;

int on_progress(void* steps) {
  auto* n = static_cast<long long*>(steps);
  return ++*n > step_budget ? 1 : 0;
}

class reader {
public:
  reader(database db, std::string file) : m_db(std::move(db)), m_file(std::move(file)) {
    // The schema is the file's, not ours: no triggers or functions it defines may run, and
    // the database is never written.
    sqlite3_db_config(m_db.get(), SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, nullptr);
    sqlite3_db_config(m_db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
    sqlite3_busy_timeout(m_db.get(), 5000);
    sqlite3_progress_handler(m_db.get(), progress_every, on_progress, &m_steps);
  }

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw input_error(m_file, where, what);
  }

  [[nodiscard]] statement prepare(const char* sql, const std::string& expectation) const {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(m_db.get(), sql, -1, &s, nullptr) != SQLITE_OK) {
      const std::string why = sqlite3_errmsg(m_db.get());
      sqlite3_finalize(s);
      fail("", expectation + " (SQLite: " + why + ")");
    }
    return statement(s);
  }

  // Steps `s`; false at the end. Errors (a corrupt file, the step budget) are input errors.
  bool step(sqlite3_stmt* s, const std::string& what) const {
    const int rc = sqlite3_step(s);
    if (rc == SQLITE_ROW) {
      return true;
    }
    if (rc == SQLITE_DONE) {
      return false;
    }
    if (rc == SQLITE_INTERRUPT) {
      fail("", "reading " + what + " takes too long: the database's views do far more work than "
                                   "a rocprofv3 database needs (corrupt or not rocprofv3 output)");
    }
    fail("", "cannot read " + what + " (SQLite: " + sqlite3_errmsg(m_db.get()) + ")");
  }

  [[nodiscard]] const std::string& file() const { return m_file; }

private:
  database m_db;
  std::string m_file;
  long long m_steps = 0;
};

std::string text_of(sqlite3_stmt* s, int col) {
  const auto* t = sqlite3_column_text(s, col);
  return t == nullptr ? std::string()
                      : std::string(reinterpret_cast<const char*>(t),
                                    static_cast<std::size_t>(sqlite3_column_bytes(s, col)));
}

std::optional<std::int64_t> integer_of(sqlite3_stmt* s, int col) {
  if (sqlite3_column_type(s, col) != SQLITE_INTEGER) {
    return std::nullopt;
  }
  return sqlite3_column_int64(s, col);
}

void check_schema(const reader& r) {
  const auto s = r.prepare("SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'",
                           "no rocpd_metadata table: not a rocprofv3 rocpd database (schema 3, "
                           "ROCm 7.0 and later; the older .rpd format of rocmProfileData is "
                           "another schema)");
  if (!r.step(s.get(), "rocpd_metadata")) {
    r.fail("table 'rocpd_metadata'", "has no schema_version, expected \"3\" or \"3.x.y\"");
  }
  const std::string v = text_of(s.get(), 0);
  if (v != "3" && !v.starts_with("3.")) {
    r.fail("table 'rocpd_metadata'",
           "schema_version is \"" + v + "\", expected \"3\" or \"3.x.y\" (rocpd schema 3)");
  }
}

struct agent_info {
  std::string arch;
  std::optional<std::int64_t> wave_size;
};

// GPU agents by (guid, id).
std::map<std::pair<std::string, std::int64_t>, agent_info> read_agents(const reader& r) {
  const auto s = r.prepare(
      "SELECT guid, id, name, CASE WHEN json_valid(extdata) THEN "
      "json_extract(extdata, '$.wave_front_size') END FROM rocpd_info_agent WHERE type = 'GPU'",
      "no rocpd_info_agent view: not a rocprofv3 rocpd database");
  std::map<std::pair<std::string, std::int64_t>, agent_info> agents;
  while (r.step(s.get(), "rocpd_info_agent")) {
    const auto id = integer_of(s.get(), 1);
    if (!id) {
      continue;
    }
    agents[{text_of(s.get(), 0), *id}] = {text_of(s.get(), 2), integer_of(s.get(), 3)};
  }
  return agents;
}

rocpd_records read_database(database db, const std::string& file) {
  const reader r(std::move(db), file);
  check_schema(r);
  const auto agents = read_agents(r);
  const auto s = r.prepare(
      "SELECT guid, pid, dispatch_id, agent_id, kernel_name, counter_name, value, start, \"end\", "
      "grid_size, workgroup_size FROM counters_collection ORDER BY guid, dispatch_id, counter_name",
      "no counters_collection view: not a rocprofv3 rocpd database with counter collection "
      "(`rocprofv3 --pmc ...`)");
  rocpd_records out;
  out.records.file = file;
  out.records.empty_where = "view 'counters_collection'";
  std::string arch_where;
  while (r.step(s.get(), "counters_collection")) {
    amd_counter_record rec;
    const std::string guid = text_of(s.get(), 0);
    const auto dispatch = integer_of(s.get(), 2);
    const auto agent = integer_of(s.get(), 3);
    rec.where = "run " + guid + ", dispatch " +
                (dispatch ? std::to_string(*dispatch) : "\"" + text_of(s.get(), 2) + "\"");
    if (!dispatch || *dispatch < 0) {
      r.fail(rec.where, "dispatch_id is not an integer >= 0");
    }
    rec.dispatch = static_cast<std::uint64_t>(*dispatch);
    rec.process = guid + "/" + text_of(s.get(), 1);
    rec.agent = agent ? std::to_string(*agent) : text_of(s.get(), 3);
    rec.kernel = text_of(s.get(), 4);
    rec.counter = text_of(s.get(), 5);
    rec.where += ", counter " + rec.counter;
    const int value_type = sqlite3_column_type(s.get(), 6);
    rec.value_text = text_of(s.get(), 6);
    if (value_type == SQLITE_INTEGER || value_type == SQLITE_FLOAT) {
      const double v = sqlite3_column_double(s.get(), 6);
      rec.value = std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
    }
    const auto start = integer_of(s.get(), 7);
    const auto end = integer_of(s.get(), 8);
    if (start && end) {
      if (*start < 0 || *end < *start) {
        r.fail(rec.where, "end " + std::to_string(*end) + " is before start " +
                              std::to_string(*start) + " (or start is negative)");
      }
      rec.timestamps = std::make_pair(static_cast<std::uint64_t>(*start),
                                      static_cast<std::uint64_t>(*end));
    }
    const auto grid = integer_of(s.get(), 9);
    const auto wg = integer_of(s.get(), 10);
    if (grid && wg && *wg > 0 && *grid > 0 && *grid % *wg == 0) {
      launch_config l;
      l.grid = {static_cast<std::uint64_t>(*grid / *wg), 1, 1};
      l.block = {static_cast<std::uint64_t>(*wg), 1, 1};
      rec.launch = l;
    }
    const auto a = agent ? agents.find({guid, *agent}) : agents.end();
    if (a == agents.end()) {
      r.fail(rec.where, "agent " + rec.agent + " is not a GPU agent of rocpd_info_agent");
    }
    if (a->second.wave_size && *a->second.wave_size >= 0) {
      rec.wave_size = static_cast<std::uint64_t>(*a->second.wave_size);
    }
    const std::string arch = normalize_amd_arch(a->second.arch);
    if (out.arch.empty()) {
      out.arch = arch;
      arch_where = rec.where;
    } else if (arch != out.arch) {
      r.fail(rec.where, "runs on " + arch + " but " + arch_where + " on " + out.arch +
                            "; a profile must come from one GPU architecture");
    }
    out.records.records.push_back(std::move(rec));
  }
  return out;
}

[[noreturn]] void open_failed(sqlite3* db, const std::string& file) {
  const std::string why = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
  sqlite3_close(db);
  throw input_error(file, "", "cannot open the SQLite database: " + why);
}
} // namespace

bool rocpd_supported() { return true; }

rocpd_records read_rocpd_file(const std::filesystem::path& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    open_failed(db, file.string());
  }
  return read_database(database(db), file.string());
}

rocpd_records read_rocpd_bytes(std::string_view bytes, const std::string& file) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    open_failed(db, file);
  }
  database owner(db);
  auto* copy = static_cast<unsigned char*>(sqlite3_malloc64(bytes.size() + 1));
  if (copy == nullptr) {
    throw input_error(file, "", "cannot read the SQLite database: out of memory");
  }
  std::memcpy(copy, bytes.data(), bytes.size());
  const auto size = static_cast<sqlite3_int64>(bytes.size());
  if (sqlite3_deserialize(db, "main", copy, size, size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) !=
      SQLITE_OK) {
    throw input_error(file, "", std::string("cannot read the SQLite database: ") +
                                    sqlite3_errmsg(db));
  }
  return read_database(std::move(owner), file);
}

profile import_rocpd(const rocpd_records& records) {
  return import_amd_records(std::span(&records.records, 1), records.arch, profile_format::rocpd_db);
}

} // namespace perfgate::detail
