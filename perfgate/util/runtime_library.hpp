// SPDX-License-Identifier: Apache-2.0
// A vendor runtime loaded with dlopen from a list of candidates, the first that loads winning:
// GPU toolkits and drivers exist only on some machines, and `perfgate` must start on every
// other one (docs/ci.md, "The Debian package"). Remembers each candidate's failure, so that a
// command needing the runtime can say what it looked for. Header-only: the CUPTI injection
// library compiles its users without perfgate's library.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <dlfcn.h>
#include <link.h>

namespace perfgate::detail {

class runtime_library {
public:
  /// Tries each candidate in turn: a bare name goes through the dynamic loader's search
  /// (LD_LIBRARY_PATH, ld.so.cache), a path is opened as it is.
  explicit runtime_library(const std::vector<std::string>& candidates) {
    for (const auto& name : candidates) {
      m_handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (m_handle != nullptr) {
        m_path = loaded_path(m_handle, name);
        return;
      }
      const char* why = ::dlerror();
      m_failures.emplace_back(name, why != nullptr ? why : "not loadable");
    }
  }
  runtime_library(const runtime_library&) = delete;
  runtime_library& operator=(const runtime_library&) = delete;
  // Never closed: a runtime's own threads and exit handlers may outlive any owner here.
  ~runtime_library() = default;

  [[nodiscard]] bool loaded() const { return m_handle != nullptr; }
  /// The file the loader opened (its absolute path), empty when none loaded.
  [[nodiscard]] const std::string& path() const { return m_path; }
  /// Every candidate that failed and the loader's reason: "a (why); b (why)".
  [[nodiscard]] std::string failures() const {
    std::string out;
    for (const auto& [name, why] : m_failures) {
      out += (out.empty() ? "" : "; ") + name + " (" + why + ")";
    }
    return out;
  }
  /// The function `name` as type F, or null when the library lacks it (or did not load).
  template <class F> [[nodiscard]] F symbol(const char* name) const {
    return m_handle == nullptr ? nullptr : reinterpret_cast<F>(::dlsym(m_handle, name));
  }

private:
  static std::string loaded_path(void* handle, const std::string& fallback) {
    link_map* map = nullptr;
    if (::dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != nullptr && map->l_name != nullptr &&
        *map->l_name != '\0') {
      return map->l_name;
    }
    return fallback;
  }

  void* m_handle = nullptr;
  std::string m_path;
  std::vector<std::pair<std::string, std::string>> m_failures;
};

/// `dir` first in a search path such as LD_LIBRARY_PATH, before what `current` held (null or
/// empty: nothing).
[[nodiscard]] inline std::string prepend_search_path(const std::string& dir, const char* current) {
  if (current == nullptr || *current == '\0') {
    return dir;
  }
  return dir + ":" + current;
}

} // namespace perfgate::detail
