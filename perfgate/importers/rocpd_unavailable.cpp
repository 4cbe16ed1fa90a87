// SPDX-License-Identifier: Apache-2.0
// The rocpd importer of a build without SQLite: a .db is a clear input error, never a guess.
#include <perfgate/error.hpp>

#include "importers/rocpd_importer.hpp"

namespace perfgate::detail {

namespace {
[[noreturn]] void unavailable(const std::string& file) {
  throw input_error(file, "",
                    "this is a rocpd SQLite database, but perfgate was built without SQLite "
                    "(install libsqlite3-dev and rebuild), or convert it with `rocpd convert -i " +
                        file + " --output-format csv` and import the counter_collection.csv");
}
} // namespace

bool rocpd_supported() { return false; }

rocpd_records read_rocpd_file(const std::filesystem::path& file) { unavailable(file.string()); }

rocpd_records read_rocpd_bytes(std::string_view, const std::string& file) { unavailable(file); }

profile import_rocpd(const rocpd_records& records) { unavailable(records.records.file); }

} // namespace perfgate::detail
