// SPDX-License-Identifier: Apache-2.0
#include <perfgate/error.hpp>
#include <perfgate/file_io.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfgate {

std::string read_text_file(const std::filesystem::path& file) {
  std::error_code ec;
  const auto status = std::filesystem::status(file, ec);
  if (ec || !std::filesystem::exists(status)) {
    throw input_error(file.string(), "", "no such file");
  }
  if (std::filesystem::is_directory(status)) {
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

void write_file_atomically(const std::filesystem::path& file, std::string_view content) {
  const std::filesystem::path dir =
      file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  std::string tmpl = (dir / ("." + file.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) {
    throw input_error(file.string(), "",
                      std::string("cannot create a temporary file beside it: ") +
                          std::strerror(errno));
  }
  std::size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0) {
      if (errno == EINTR) {
        continue;
      }
      const int err = errno;
      ::close(fd);
      ::unlink(tmpl.c_str());
      throw input_error(file.string(), "", std::string("write failed: ") + std::strerror(err));
    }
    written += static_cast<std::size_t>(n);
  }
  // mkstemp creates 0600; a report is an ordinary file for everyone who reads the build tree.
  ::fchmod(fd, 0644);
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw input_error(file.string(), "", std::string("write failed: ") + std::strerror(err));
  }
  if (std::rename(tmpl.c_str(), file.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmpl.c_str());
    throw input_error(file.string(), "",
                      std::string("cannot rename the temporary file into "
                                  "place: ") +
                          std::strerror(err));
  }
}

} // namespace perfgate
