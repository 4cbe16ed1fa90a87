// SPDX-License-Identifier: Apache-2.0
#include "subprocess.hpp"

#include <perfgate/error.hpp>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace perfgate::detail {

std::string process_result::describe() const {
  if (timed_out) {
    return "timed out and was killed";
  }
  if (not_found) {
    return "could not be started";
  }
  if (signal != 0) {
    const char* name = sigabbrev_np(signal);
    return std::string("was killed by SIG") + (name != nullptr ? name : std::to_string(signal));
  }
  return "exited with " + std::to_string(exit_code);
}

std::optional<std::string> find_executable(const std::string& name,
                                           const std::vector<std::string>& dirs) {
  auto executable = [](const std::string& path) { return ::access(path.c_str(), X_OK) == 0; };
  if (name.find('/') != std::string::npos) {
    return executable(name) ? std::optional<std::string>(name) : std::nullopt;
  }
  std::vector<std::string> search = dirs;
  if (const char* path = std::getenv("PATH")) {
    const std::string p = path;
    for (std::size_t start = 0; start <= p.size();) {
      const auto end = std::min(p.find(':', start), p.size());
      if (end > start) {
        search.push_back(p.substr(start, end - start));
      }
      start = end + 1;
    }
  }
  for (const auto& dir : search) {
    const std::string candidate = dir + "/" + name;
    if (executable(candidate)) {
      return candidate;
    }
  }
  return std::nullopt;
}

namespace {
void close_fd(int& fd) {
  if (fd >= 0) {
    ::close(fd);
    fd = -1;
  }
}
} // namespace

process_result run_process(const std::vector<std::string>& argv, const process_options& options) {
  if (argv.empty()) {
    throw usage_error("no program to run");
  }
  int out_pipe[2] = {-1, -1};
  int err_pipe[2] = {-1, -1};
  if ((options.capture_stdout && ::pipe2(out_pipe, O_CLOEXEC) != 0) ||
      (options.on_stderr_line && ::pipe2(err_pipe, O_CLOEXEC) != 0)) {
    throw target_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  }
  std::vector<char*> args;
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) {
    throw target_error(std::string("cannot start ") + argv[0] + ": " + std::strerror(errno));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    if (out_pipe[1] >= 0) {
      ::dup2(out_pipe[1], STDOUT_FILENO);
    }
    if (err_pipe[1] >= 0) {
      ::dup2(err_pipe[1], STDERR_FILENO);
    }
    for (const auto& [name, value] : options.environment) {
      ::setenv(name.c_str(), value.c_str(), 1);
    }
    ::execvp(args[0], args.data());
    const std::string msg = std::string(argv[0]) + ": " + std::strerror(errno) + "\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg.data(), msg.size());
    ::_exit(127);
  }
  close_fd(out_pipe[1]);
  close_fd(err_pipe[1]);

  process_result result;
  std::string err_buffer;
  const auto deadline = options.timeout_s
                            ? std::chrono::steady_clock::now() +
                                  std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                      std::chrono::duration<double>(*options.timeout_s))
                            : std::chrono::steady_clock::time_point::max();
  auto flush_lines = [&](bool all) {
    std::size_t nl;
    while ((nl = err_buffer.find('\n')) != std::string::npos) {
      const std::string line = err_buffer.substr(0, nl);
      if (!line.empty()) {
        result.last_stderr_line = line;
      }
      options.on_stderr_line(line);
      err_buffer.erase(0, nl + 1);
    }
    if (all && !err_buffer.empty()) {
      result.last_stderr_line = err_buffer;
      options.on_stderr_line(err_buffer);
      err_buffer.clear();
    }
  };
  while (out_pipe[0] >= 0 || err_pipe[0] >= 0) {
    pollfd fds[2];
    nfds_t n = 0;
    if (out_pipe[0] >= 0) {
      fds[n++] = {out_pipe[0], POLLIN, 0};
    }
    if (err_pipe[0] >= 0) {
      fds[n++] = {err_pipe[0], POLLIN, 0};
    }
    int wait_ms = -1;
    if (options.timeout_s) {
      const auto left = deadline - std::chrono::steady_clock::now();
      wait_ms = static_cast<int>(std::max<long long>(
          0, std::chrono::duration_cast<std::chrono::milliseconds>(left).count()));
    }
    const int ready = ::poll(fds, n, wait_ms);
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready == 0) { // deadline passed
      ::kill(-pid, SIGKILL);
      result.timed_out = true;
      break;
    }
    for (nfds_t i = 0; i < n; ++i) {
      if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) {
        continue;
      }
      char chunk[4096];
      const ssize_t got = ::read(fds[i].fd, chunk, sizeof chunk);
      const bool is_out = fds[i].fd == out_pipe[0];
      if (got <= 0) {
        close_fd(is_out ? out_pipe[0] : err_pipe[0]);
        continue;
      }
      if (is_out) {
        result.stdout_text.append(chunk, static_cast<std::size_t>(got));
      } else {
        err_buffer.append(chunk, static_cast<std::size_t>(got));
        flush_lines(false);
      }
    }
  }
  close_fd(out_pipe[0]);
  close_fd(err_pipe[0]);
  if (options.on_stderr_line) {
    flush_lines(true);
  }
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, result.timed_out ? 0 : WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) {
      break;
    }
    if (done == 0 && std::chrono::steady_clock::now() >= deadline) {
      ::kill(-pid, SIGKILL);
      result.timed_out = true;
      continue;
    }
    if (done == 0) {
      ::usleep(2000);
    }
  }
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    result.not_found = result.exit_code == 127;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  if (result.timed_out) {
    result.signal = 0;
  }
  return result;
}

} // namespace perfgate::detail
