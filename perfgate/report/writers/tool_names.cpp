// SPDX-License-Identifier: Apache-2.0
#include "report/writers/tool_names.hpp"

#include "report/origin.hpp"
#include "util/strings.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

namespace perfgate::detail {

std::string tool_name(std::string_view name) {
  std::string clean;
  clean.reserve(name.size());
  for (std::string_view s = name; !s.empty();) {
    const auto c = next_utf8_char(s);
    const std::size_t n = c ? c->length : 1;
    if (!c) {
      clean += "\xEF\xBF\xBD";
    } else if (c->code_point < 0x20 || c->code_point == 0x7f) {
      clean += ' '; // one line in every format
    } else {
      clean += s.substr(0, n);
    }
    s.remove_prefix(n);
  }
  if (clean.size() <= k_tool_name_max) {
    return clean;
  }
  const std::string tail = "~" + fnv1a64_hex(name).substr(0, 8);
  std::size_t head = 0; // whole characters only (clean is valid UTF-8)
  for (std::string_view s = clean;;) {
    const std::size_t n = next_utf8_char(s)->length;
    if (head + n + tail.size() > k_tool_name_max) {
      break;
    }
    head += n;
    s.remove_prefix(n);
  }
  return clean.substr(0, head) + tail;
}

namespace {

std::string classname_of(const tool_kernel& k) {
  return "perfgate." + (k.test.empty() ? "" : k.test + ".") +
         (k.device.empty() ? "predicted" : k.device);
}

// Names the clashes leave free: what both tools key a kernel by is taken once.
class name_registry {
public:
  [[nodiscard]] bool free(const tool_kernel& k) const {
    return !series_.contains({k.test, k.kernel}) && !cases_.contains({k.classname, k.kernel});
  }
  /// The host of the kernel that took `k`'s series, if one did.
  [[nodiscard]] const std::string* holder_host(const tool_kernel& k) const {
    const auto it = series_.find({k.test, k.kernel});
    return it == series_.end() ? nullptr : &it->second;
  }
  void take(const tool_kernel& k, const std::string& host) {
    series_.emplace(std::pair{k.test, k.kernel}, host);
    cases_.emplace(k.classname, k.kernel);
  }

private:
  std::map<std::pair<std::string, std::string>, std::string> series_; // (test, kernel) -> host
  std::set<std::pair<std::string, std::string>> cases_;               // JUnit: (classname, kernel)
};

// A space-only name is none: JUnit's schemas collapse it to nothing.
std::string or_default(std::string name, std::string_view fallback) {
  return trim(name).empty() ? std::string(fallback) : name;
}

} // namespace

std::vector<tool_kernel> tool_kernels(const report& r) {
  std::vector<tool_kernel> out;
  name_registry taken;
  for (const auto& k : r.kernels) {
    const std::string test = k.origin.empty() ? "" : origin_test(k.origin);
    const std::string device = k.result.device.empty() ? r.local_device : k.result.device;
    tool_kernel t{tool_name(test), tool_name(k.name), tool_name(device), "",
                  k.origin.empty() ? "perfgate" : or_default(tool_name(test), "perfgate")};
    t.classname = classname_of(t);
    const std::string host = split_origin(k.origin).host;
    if (const auto* other = taken.holder_host(t); other && !host.empty() && *other != host) {
      t.test = tool_name(test + "@" + host); // another runner's run of the same test
      t.classname = classname_of(t);
    }
    const std::string kernel = t.kernel;
    for (int n = 2; !taken.free(t); ++n) {
      t.kernel = kernel + " (" + std::to_string(n) + ")";
    }
    taken.take(t, host);
    out.push_back(std::move(t));
  }
  return out;
}

std::string openmetrics_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    switch (c) {
    case '\\': out += "\\\\"; break;
    case '"': out += "\\\""; break;
    case '\n': out += "\\n"; break;
    case '#': out += "%23"; break;
    case '%': out += "%25"; break;
    default: out += c;
    }
  }
  return out;
}

std::string tool_number(double v) {
  if (std::isnan(v)) {
    return "NaN";
  }
  if (std::isinf(v)) {
    return v > 0 ? "+Inf" : "-Inf";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", k_tool_digits, v);
  return buf;
}

} // namespace perfgate::detail
