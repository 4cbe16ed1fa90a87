// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include "util/strings.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfgate {

namespace fs = std::filesystem;

std::string read_text_file(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    // Only a missing file is "no such file"; EACCES, ENOTDIR, ELOOP... say what they are.
    const int err = errno;
    throw input_error(file.string(), "",
                      err == ENOENT ? std::string("no such file")
                                    : std::string("cannot read it: ") + std::strerror(err));
  }
  if (S_ISDIR(st.st_mode)) {
    throw input_error(file.string(), "", "is a directory, expected a file");
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw input_error(file.string(), "", std::string("cannot open: ") + std::strerror(errno));
  }
  std::ostringstream s;
  s << in.rdbuf();
  if (in.bad()) {
    throw input_error(file.string(), "", "read error");
  }
  return s.str();
}

std::string file_fnv1a64(const fs::path& file) { return detail::fnv1a64_hex(read_text_file(file)); }

void copy_executable(const fs::path& from, const fs::path& to) {
  const std::string bytes = read_text_file(from);
  create_parent_directories(to);
  write_file_atomically(to, bytes);
  std::error_code ec;
  const auto perms = fs::status(from, ec).permissions();
  if (!ec) {
    fs::permissions(to, perms, fs::perm_options::replace, ec);
  }
  if (ec) {
    throw input_error(to.string(), "", "cannot give it " + from.string() +
                                           "'s permissions: " + ec.message());
  }
}

void create_parent_directories(const fs::path& file) {
  if (!file.has_parent_path()) {
    return;
  }
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  if (ec) {
    throw input_error(file.string(), "",
                      "cannot create its folder " + file.parent_path().string() + ": " +
                          ec.message());
  }
}

namespace {

fs::path folder_of(const fs::path& file) {
  return file.has_parent_path() ? file.parent_path() : fs::path(".");
}

// One file being written: its content sits in `fd`, an unnamed file (O_TMPFILE) or, where the
// file system has none, a named one from mkstemp (`named`).
struct pending_file {
  fs::path target;
  int fd = -1;
  std::string named; // mkstemp's name; empty for an unnamed file
};

[[noreturn]] void fail(const fs::path& file, const std::string& what, int err) {
  throw input_error(file.string(), "", what + ": " + std::strerror(err));
}

void write_all(const pending_file& f, std::string_view content) {
  std::size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(f.fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      fail(f.target, "write failed", errno);
    }
    written += static_cast<std::size_t>(n);
  }
  // The temporary is 0600 (mkstemp) or umask-limited; a report is an ordinary file for
  // everyone who reads the build tree.
  ::fchmod(f.fd, 0644);
  if (::fsync(f.fd) != 0) {
    fail(f.target, "write failed", errno);
  }
}

pending_file open_temporary(const fs::path& target) {
  pending_file f;
  f.target = target;
  const fs::path dir = folder_of(target);
  if (::access("/proc/self/fd", X_OK) == 0) { // linkat needs /proc/self/fd to name the file
    f.fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
    if (f.fd >= 0) {
      return f;
    }
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
      fail(target, "cannot create a temporary file beside it", errno);
    }
  }
  f.named = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  f.fd = ::mkstemp(f.named.data());
  if (f.fd < 0) {
    fail(target, "cannot create a temporary file beside it", errno);
  }
  return f;
}

// Closes descriptors and removes named temporaries when the write does not complete.
struct pending_set {
  std::vector<pending_file> files;
  int dir_fd = -1;
  pending_set() = default;
  pending_set(const pending_set&) = delete;
  pending_set& operator=(const pending_set&) = delete;
  ~pending_set() {
    for (auto& f : files) {
      if (f.fd >= 0) {
        ::close(f.fd);
      }
      if (!f.named.empty()) {
        ::unlink(f.named.c_str());
      }
    }
    if (dir_fd >= 0) {
      ::close(dir_fd); // releases the lock
    }
  }
};

// Holds off the signals a CI runner or a user sends to stop a job while the files are renamed.
class signals_held {
public:
  signals_held() {
    sigset_t set;
    sigemptyset(&set);
    for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
      sigaddset(&set, s);
    }
    ::sigprocmask(SIG_BLOCK, &set, &m_old);
  }
  signals_held(const signals_held&) = delete;
  signals_held& operator=(const signals_held&) = delete;
  ~signals_held() { ::sigprocmask(SIG_SETMASK, &m_old, nullptr); }

private:
  sigset_t m_old{};
};

} // namespace

void write_files_atomically(const std::vector<file_content>& files) {
  if (files.empty()) {
    return;
  }
  const fs::path dir = folder_of(files.front().path);
  pending_set set;
  for (const auto& file : files) {
    if (folder_of(file.path) != dir) {
      throw input_error(file.path.string(), "",
                        "must be in the same folder as " + files.front().path.string());
    }
    set.files.push_back(open_temporary(file.path));
    write_all(set.files.back(), file.content);
  }

  set.dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (set.dir_fd < 0 || ::flock(set.dir_fd, LOCK_EX) != 0) {
    fail(files.front().path, "cannot lock its folder", errno);
  }
  const signals_held held;
  // Under the lock, give every unnamed file its name beside the target: a fixed name, since no
  // other writer links while the lock is held, so a name left by a killed writer is replaced.
  for (auto& f : set.files) {
    if (!f.named.empty()) {
      continue;
    }
    const std::string name = "." + f.target.filename().string() + ".perfgate-tmp";
    ::unlinkat(set.dir_fd, name.c_str(), 0);
    const std::string self = "/proc/self/fd/" + std::to_string(f.fd);
    if (::linkat(AT_FDCWD, self.c_str(), set.dir_fd, name.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      fail(f.target, "cannot name the temporary file", errno);
    }
    f.named = (dir / name).string();
  }
  // The first file (the report) is removed before and renamed after the others: no moment
  // shows it beside another write's charts.
  if (set.files.size() > 1 && ::unlink(set.files.front().target.c_str()) != 0 && errno != ENOENT) {
    fail(set.files.front().target, "cannot replace it", errno);
  }
  for (std::size_t i = 1; i <= set.files.size(); ++i) {
    auto& f = set.files[i % set.files.size()]; // 1, 2, ..., n-1, then 0
    if (std::rename(f.named.c_str(), f.target.c_str()) != 0) {
      fail(f.target, "cannot rename the temporary file into place", errno);
    }
    f.named.clear();
  }
}

void write_file_atomically(const fs::path& file, std::string_view content) {
  write_files_atomically({{file, content}});
}

scratch_dir::scratch_dir(std::string_view prefix)
    : m_path(fs::temp_directory_path() / (std::string(prefix) + std::to_string(::getpid()))) {
  fs::remove_all(m_path);
  fs::create_directories(m_path);
}

scratch_dir::~scratch_dir() {
  std::error_code ec;
  fs::remove_all(m_path, ec);
}

} // namespace perfgate
