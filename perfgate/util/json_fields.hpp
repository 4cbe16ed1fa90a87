// SPDX-License-Identifier: Apache-2.0
// Typed access to JSON fields that throws input_error naming the file and the key path
// ("kernels[2].counters.inst_fp32"), so every reader reports bad input the same way.
#pragma once

#include <perfgate/error.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace perfgate::detail {

class json_fields {
public:
  json_fields(const nlohmann::json& object, std::string file, std::string path);

  /// Parse text as a JSON object; syntax errors name the line and column.
  static nlohmann::json parse(std::string_view text, const std::string& file);

  [[nodiscard]] bool has(std::string_view key) const;
  [[nodiscard]] std::string string(std::string_view key) const;
  [[nodiscard]] std::string string_or(std::string_view key, std::string fallback) const;
  [[nodiscard]] double number(std::string_view key) const;
  [[nodiscard]] double positive(std::string_view key) const; ///< finite and > 0
  [[nodiscard]] double non_negative(std::string_view key) const;
  [[nodiscard]] double fraction(std::string_view key) const;     ///< a number in [0, 1]
  [[nodiscard]] bool boolean(std::string_view key) const;        ///< true or false
  [[nodiscard]] std::uint64_t count(std::string_view key) const; ///< an integer >= 0
  [[nodiscard]] json_fields object(std::string_view key) const;
  [[nodiscard]] const nlohmann::json& array(std::string_view key) const;
  [[nodiscard]] std::vector<std::string> strings(std::string_view key) const; ///< string array
  [[nodiscard]] std::vector<double> positives(std::string_view key) const;    ///< numbers > 0
  /// An array of arrays of numbers > 0 (runs of samples); a bad number is named as
  /// `key[i].samples[j]`.
  [[nodiscard]] std::vector<std::vector<double>> positive_arrays(std::string_view key) const;
  [[nodiscard]] std::array<std::uint64_t, 3> dim3(std::string_view key) const; ///< [x, y, z] > 0
  [[nodiscard]] json_fields element(const nlohmann::json& item, std::size_t index,
                                    std::string_view array_key) const;
  /// The objects of the array `key`, each named `key[i]` in its errors.
  [[nodiscard]] std::vector<json_fields> elements(std::string_view key) const;
  [[nodiscard]] const nlohmann::json& raw() const { return m_object; }

  /// Refuses the object's first key that is not among `known` (exit 2), naming the file, the
  /// key's path and the known key nearest to it ("did you mean 'tensor_ops'?"), else every key
  /// the object may hold. A reader calls it once per object with the one list of keys its
  /// format defines: a key no reader knows is a declaration that would go unread in silence.
  void known_keys(std::span<const std::string_view> known) const;
  void known_keys(std::initializer_list<std::string_view> known) const {
    known_keys(std::span<const std::string_view>(known.begin(), known.size()));
  }
  [[nodiscard]] std::string key_path(std::string_view key) const;

  [[noreturn]] void fail(std::string_view key, const std::string& what) const;

  /// The document's "schema", which must be one of `accepted` ("perfgate-report/2", ...; the
  /// ids live in <perfgate/version.hpp>); any other fails naming them and the major versions
  /// this perfgate reads.
  [[nodiscard]] std::string schema(std::initializer_list<std::string_view> accepted) const;

  /// The enumerator of `values` whose to_string() the string at `key` is; any other string
  /// fails naming them all.
  template <class E>
  [[nodiscard]] E one_of(std::string_view key, std::initializer_list<E> values) const {
    const std::string v = string(key);
    std::string names;
    for (const E e : values) {
      if (v == to_string(e)) {
        return e;
      }
      names += (names.empty() ? "" : ", ") + std::string(to_string(e));
    }
    fail(key, "unknown value \"" + v + "\", expected one of: " + names);
  }

private:
  const nlohmann::json& at(std::string_view key) const;
  const nlohmann::json& m_object;
  std::string m_file;
  std::string m_path;
};

} // namespace perfgate::detail
