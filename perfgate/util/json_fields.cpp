// SPDX-License-Identifier: Apache-2.0
#include "util/json_fields.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <cmath>

namespace perfgate::detail {

json_fields::json_fields(const nlohmann::json& object, std::string file, std::string path)
    : m_object(object), m_file(std::move(file)), m_path(std::move(path)) {
  if (!m_object.is_object()) {
    throw input_error(m_file, m_path.empty() ? "" : "key '" + m_path + "'",
                      "expected a JSON object, found " + std::string(m_object.type_name()));
  }
}

nlohmann::json json_fields::parse(std::string_view text, const std::string& file) {
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    throw input_error(file, "", "the file is empty, expected a JSON object");
  }
  const auto line_of = [&](std::size_t at) {
    at = std::min(at, text.size());
    return std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
  };
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Count the line of the byte where parsing stopped.
    std::string what = e.what();
    if (const auto pos = what.find("syntax error"); pos != std::string::npos) {
      what = what.substr(pos);
    }
    throw input_error(file, line_of(e.byte == 0 ? 0 : e.byte - 1), "invalid JSON: " + what);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number beyond a double ("number overflow parsing '1e999'"): nlohmann gives no position,
    // so the number's text is looked up to name its line.
    const std::string what = e.what();
    const auto open = what.find('\'');
    const auto close = what.rfind('\'');
    if (e.id != 406 || open == std::string::npos || close <= open) {
      throw input_error(file, "", std::string("invalid JSON: ") + e.what());
    }
    const std::string number = what.substr(open + 1, close - open - 1);
    const auto at = text.find(number);
    throw input_error(file, at == std::string_view::npos ? "" : line_of(at),
                      "invalid JSON: the number " + number +
                          " is out of range (a double holds at most about 1.8e308)");
  } catch (const nlohmann::json::exception& e) {
    // Any other value nlohmann cannot hold: an input error, never a crash (found by fuzzing).
    throw input_error(file, "", std::string("invalid JSON: ") + e.what());
  }
}

std::string json_fields::key_path(std::string_view key) const {
  return m_path.empty() ? std::string(key) : m_path + "." + std::string(key);
}

void json_fields::fail(std::string_view key, const std::string& what) const {
  throw input_error(m_file, "key '" + key_path(key) + "'", what);
}

std::string json_fields::schema(std::initializer_list<std::string_view> accepted) const {
  std::string found = string("schema");
  if (std::find(accepted.begin(), accepted.end(), found) != accepted.end()) {
    return found;
  }
  // "expected "a", "b" or "c"" and, per format name, the major versions read:
  // "(this perfgate reads report format major versions 1 and 2)".
  const std::vector<std::string_view> ids(accepted);
  std::string expected;
  std::vector<std::pair<std::string_view, std::vector<std::string_view>>> formats;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    expected += std::string(i == 0                ? ""
                            : i + 1 == ids.size() ? " or "
                                                  : ", ") +
                "\"" + std::string(ids[i]) + "\"";
    const auto slash = ids[i].find('/');
    std::string_view name = ids[i].substr(0, slash);
    if (name.starts_with("perfgate-")) {
      name.remove_prefix(std::string_view("perfgate-").size());
    }
    const std::string_view major = slash == std::string_view::npos ? "" : ids[i].substr(slash + 1);
    auto it = std::find_if(formats.begin(), formats.end(),
                           [&](const auto& f) { return f.first == name; });
    if (it == formats.end()) {
      it = formats.insert(formats.end(), {name, {}});
    }
    it->second.push_back(major);
  }
  std::string reads;
  for (auto& [name, majors] : formats) {
    std::sort(majors.begin(), majors.end());
    reads += std::string(reads.empty() ? "" : ", ") + std::string(name) + " format major version" +
             (majors.size() > 1 ? "s " : " ");
    for (std::size_t m = 0; m < majors.size(); ++m) {
      reads += std::string(m == 0                   ? ""
                           : m + 1 == majors.size() ? " and "
                                                    : ", ") +
               std::string(majors[m]);
    }
  }
  fail("schema",
       "expected " + expected + ", found \"" + found + "\" (this perfgate reads " + reads + ")");
}

void json_fields::known_keys(std::span<const std::string_view> known) const {
  for (const auto& item : m_object.items()) {
    const std::string& key = item.key();
    if (std::find(known.begin(), known.end(), key) != known.end()) {
      continue;
    }
    if (const auto meant = nearest_word(key, known)) {
      fail(key, "unknown key: did you mean '" + *meant + "'?");
    }
    std::string keys;
    for (const std::string_view k : known) {
      keys += (keys.empty() ? "" : ", ") + std::string(k);
    }
    fail(key, "unknown key: " + (m_path.empty() ? std::string("the document") : "'" + m_path + "'") +
                  " holds only " + keys);
  }
}

bool json_fields::has(std::string_view key) const {
  return m_object.contains(key) && !m_object.at(std::string(key)).is_null();
}

const nlohmann::json& json_fields::at(std::string_view key) const {
  if (!has(key)) {
    fail(key, "missing");
  }
  return m_object.at(std::string(key));
}

std::string json_fields::string(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_string()) {
    fail(key, "expected a string, found " + std::string(v.type_name()));
  }
  return v.get<std::string>();
}

std::string json_fields::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? string(key) : std::move(fallback);
}

double json_fields::number(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_number()) {
    fail(key, "expected a number, found " + std::string(v.type_name()) + " " + v.dump());
  }
  const double d = v.get<double>();
  if (!std::isfinite(d)) {
    fail(key, "expected a finite number");
  }
  return d;
}

double json_fields::positive(std::string_view key) const {
  const double d = number(key);
  if (!(d > 0)) {
    fail(key, "expected a number > 0, found " + at(key).dump());
  }
  return d;
}

double json_fields::non_negative(std::string_view key) const {
  const double d = number(key);
  if (d < 0) {
    fail(key, "expected a number >= 0, found " + at(key).dump());
  }
  return d;
}

double json_fields::fraction(std::string_view key) const {
  const double d = number(key);
  if (d < 0 || d > 1) {
    fail(key, "expected a number from 0 to 1, found " + at(key).dump());
  }
  return d;
}

bool json_fields::boolean(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_boolean()) {
    fail(key, "expected true or false, found " + v.dump());
  }
  return v.get<bool>();
}

std::uint64_t json_fields::count(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_number_unsigned()) { // nlohmann parses every integer >= 0 as unsigned
    fail(key, "expected an integer >= 0, found " + v.dump());
  }
  return v.get<std::uint64_t>();
}

json_fields json_fields::object(std::string_view key) const {
  return json_fields(at(key), m_file, key_path(key));
}

std::vector<std::string> json_fields::strings(std::string_view key) const {
  const auto& a = array(key);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) {
      fail(std::string(key) + "[" + std::to_string(i) + "]",
           "expected a string, found " + std::string(a[i].type_name()) + " " + a[i].dump());
    }
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

std::vector<double> json_fields::positives(std::string_view key) const {
  const auto& a = array(key);
  std::vector<double> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number() || !std::isfinite(a[i].get<double>()) || !(a[i].get<double>() > 0)) {
      fail(std::string(key) + "[" + std::to_string(i) + "]",
           "expected a finite number > 0, found " + a[i].dump());
    }
    out.push_back(a[i].get<double>());
  }
  return out;
}

std::vector<std::vector<double>> json_fields::positive_arrays(std::string_view key) const {
  const auto& a = array(key);
  std::vector<std::vector<double>> out;
  out.reserve(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const nlohmann::json holder = {{"samples", a[i]}};
    const json_fields element(holder, m_file, key_path(key) + "[" + std::to_string(i) + "]");
    out.push_back(element.positives("samples"));
  }
  return out;
}

std::array<std::uint64_t, 3> json_fields::dim3(std::string_view key) const {
  const auto& a = array(key);
  if (a.size() != 3) {
    fail(key, "expected 3 dimensions [x, y, z], found " + std::to_string(a.size()));
  }
  std::array<std::uint64_t, 3> out{};
  for (std::size_t i = 0; i < 3; ++i) {
    if (!a[i].is_number_unsigned() || a[i].get<std::uint64_t>() == 0) {
      fail(key, "expected positive integers, found " + a.dump());
    }
    out[i] = a[i].get<std::uint64_t>();
  }
  return out;
}

const nlohmann::json& json_fields::array(std::string_view key) const {
  const auto& v = at(key);
  if (!v.is_array()) {
    fail(key, "expected an array, found " + std::string(v.type_name()));
  }
  return v;
}

json_fields json_fields::element(const nlohmann::json& item, std::size_t index,
                                 std::string_view array_key) const {
  return json_fields(item, m_file, key_path(array_key) + "[" + std::to_string(index) + "]");
}

std::vector<json_fields> json_fields::elements(std::string_view key) const {
  const auto& list = array(key);
  std::vector<json_fields> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    out.push_back(element(list[i], i, key));
  }
  return out;
}

} // namespace perfgate::detail
