// SPDX-License-Identifier: Apache-2.0
#include "util/subprocess.hpp"

#include <perfgate/error.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
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
  if (interrupted_by != 0) {
    return "was stopped: perfgate received " + signal_name(interrupted_by);
  }
  if (signal != 0) {
    return "was killed by " + signal_name(signal);
  }
  return "exited with " + std::to_string(exit_code);
}

std::string signal_name(int signal) {
  const char* name = sigabbrev_np(signal);
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(signal);
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

// The signals perfgate passes on to the program's process group.
constexpr std::array<int, 3> k_forwarded = {SIGINT, SIGTERM, SIGHUP};
// How long the group has after a forwarded signal before it is killed.
constexpr auto k_interrupt_grace = std::chrono::seconds(2);
// Timeouts beyond this never come (steady_clock's nanoseconds overflow near 9.2e9 s).
constexpr double k_forever_s = 1e9;

// Self-pipe: the handlers write the signal's number, the wait loop polls the read end.
int g_signal_pipe[2] = {-1, -1};

extern "C" void note_signal(int signal) {
  const int saved = errno;
  const auto byte = static_cast<unsigned char>(signal);
  [[maybe_unused]] auto n = ::write(g_signal_pipe[1], &byte, 1);
  errno = saved;
}

// Installs note_signal for SIGCHLD and the forwarded signals for one run; restores the
// previous handlers (and closes the self-pipe) when the run ends.
class signal_watch {
public:
  signal_watch() {
    if (::pipe2(g_signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
      throw target_error(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    struct sigaction action {};
    action.sa_handler = note_signal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGCHLD, &action, &m_old[0]);
    for (std::size_t i = 0; i < k_forwarded.size(); ++i) {
      ::sigaction(k_forwarded[i], &action, &m_old[i + 1]);
    }
  }
  signal_watch(const signal_watch&) = delete;
  signal_watch& operator=(const signal_watch&) = delete;
  ~signal_watch() {
    ::sigaction(SIGCHLD, &m_old[0], nullptr);
    for (std::size_t i = 0; i < k_forwarded.size(); ++i) {
      ::sigaction(k_forwarded[i], &m_old[i + 1], nullptr);
    }
    close_fd(g_signal_pipe[0]);
    close_fd(g_signal_pipe[1]);
  }
  /// The signals noted since the last call (SIGCHLD included).
  static std::vector<int> take() {
    std::vector<int> signals;
    unsigned char buffer[64];
    ssize_t got;
    while ((got = ::read(g_signal_pipe[0], buffer, sizeof buffer)) > 0) {
      signals.insert(signals.end(), buffer, buffer + got);
    }
    return signals;
  }

private:
  std::array<struct sigaction, k_forwarded.size() + 1> m_old{};
};

// Restores the dispositions a started program should begin with (ours are for perfgate).
void reset_signals_in_child() {
  struct sigaction action {};
  action.sa_handler = SIG_DFL;
  sigemptyset(&action.sa_mask);
  ::sigaction(SIGCHLD, &action, nullptr);
  for (const int s : k_forwarded) {
    ::sigaction(s, &action, nullptr);
  }
}

// A process outside the program's group that kills the group when perfgate dies without
// stopping it first (SIGKILL of perfgate, a crash): it waits for EOF on a pipe only perfgate
// holds. PR_SET_PDEATHSIG alone would reach the program but not its children.
class watchdog {
public:
  explicit watchdog(pid_t group) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      return; // the program still runs, only unguarded against a killed perfgate
    }
    m_pid = ::fork();
    if (m_pid == 0) {
      for (int fd = 0; fd < 1024; ++fd) { // hold nothing of perfgate's: not its stdout for CTest
        if (fd != fds[0]) {
          ::close(fd);
        }
      }
      for (const int s : {SIGINT, SIGTERM, SIGHUP, SIGCHLD}) {
        ::signal(s, s == SIGCHLD ? SIG_DFL : SIG_IGN); // a Ctrl-C meant for perfgate
      }
      char byte = 0;
      ssize_t got;
      while ((got = ::read(fds[0], &byte, 1)) < 0 && errno == EINTR) {
      }
      if (got == 0) { // perfgate is gone without disarming us
        ::kill(-group, SIGKILL);
      }
      ::_exit(0);
    }
    ::close(fds[0]);
    m_fd = fds[1];
    if (m_pid < 0) {
      close_fd(m_fd);
    }
  }
  watchdog(const watchdog&) = delete;
  watchdog& operator=(const watchdog&) = delete;
  ~watchdog() {
    if (m_fd >= 0) {
      const char done = 1;
      [[maybe_unused]] auto n = ::write(m_fd, &done, 1);
      close_fd(m_fd);
    }
    if (m_pid > 0) {
      while (::waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
  }

private:
  pid_t m_pid = -1;
  int m_fd = -1;
};

// Splits a stream into lines as it comes, in time linear in its length.
class line_splitter {
public:
  explicit line_splitter(const std::function<void(std::string_view)>& on_line,
                         std::string& last_line)
      : m_on_line(on_line), m_last(last_line) {}
  void add(std::string_view chunk) {
    m_buffer.append(chunk);
    std::size_t start = 0;
    std::size_t nl;
    while ((nl = m_buffer.find('\n', start)) != std::string::npos) {
      line(std::string_view(m_buffer).substr(start, nl - start));
      start = nl + 1;
    }
    m_buffer.erase(0, start);
  }
  void finish() {
    if (!m_buffer.empty()) {
      line(m_buffer);
      m_buffer.clear();
    }
  }

private:
  void line(std::string_view text) {
    if (!text.empty()) {
      m_last.assign(text);
    }
    if (m_on_line) {
      m_on_line(text);
    }
  }
  const std::function<void(std::string_view)>& m_on_line;
  std::string& m_last;
  std::string m_buffer;
};

void write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n <= 0) {
      return; // our stderr is gone: nothing more to show
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::chrono::steady_clock::time_point deadline_after(const std::optional<double>& seconds) {
  if (!seconds) {
    return std::chrono::steady_clock::time_point::max();
  }
  if (!std::isfinite(*seconds) || *seconds <= 0) {
    throw usage_error("the timeout must be a positive number of seconds, got " +
                      std::to_string(*seconds));
  }
  if (*seconds >= k_forever_s) {
    return std::chrono::steady_clock::time_point::max();
  }
  return std::chrono::steady_clock::now() +
         std::chrono::duration_cast<std::chrono::steady_clock::duration>(
             std::chrono::duration<double>(*seconds));
}

// Milliseconds until `t` for poll(): 0 when past, at most a minute (never an int overflow).
int poll_ms_until(std::chrono::steady_clock::time_point t) {
  const auto now = std::chrono::steady_clock::now();
  if (t <= now) {
    return 0;
  }
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(t - now).count();
  return static_cast<int>(std::min<long long>(left + 1, 60'000));
}

// The program's stdout and stderr pipes (-1 where not read); the parent's ends after start.
struct child_pipes {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
};

child_pipes open_pipes(bool capture_stdout, bool read_stderr) {
  child_pipes p;
  if ((capture_stdout && ::pipe2(p.out, O_CLOEXEC) != 0) ||
      (read_stderr && ::pipe2(p.err, O_CLOEXEC) != 0)) {
    const int err = errno;
    close_fd(p.out[0]);
    close_fd(p.out[1]);
    throw target_error(std::string("cannot create a pipe: ") + std::strerror(err));
  }
  return p;
}

// Forks the program into a process group of its own, its output into `pipes`.
pid_t start_child(const std::vector<std::string>& argv, const process_options& options,
                  child_pipes& pipes) {
  std::vector<char*> args;
  for (const auto& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);

  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    for (int* fd : {&pipes.out[0], &pipes.out[1], &pipes.err[0], &pipes.err[1]}) {
      close_fd(*fd);
    }
    throw target_error(std::string("cannot start ") + argv[0] + ": " + std::strerror(err));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL); // perfgate killed before the watchdog is up
    if (::getppid() != parent) {
      ::_exit(127);
    }
    reset_signals_in_child();
    if (pipes.out[1] >= 0) {
      ::dup2(pipes.out[1], STDOUT_FILENO);
    }
    if (pipes.err[1] >= 0) {
      ::dup2(pipes.err[1], STDERR_FILENO);
    }
    for (const auto& [name, value] : options.environment) {
      ::setenv(name.c_str(), value.c_str(), 1);
    }
    ::execvp(args[0], args.data());
    const std::string msg = std::string(argv[0]) + ": " + std::strerror(errno) + "\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid); // also here: the group exists before we may signal it
  return pid;
}

// The parent's side of the pipes: reads what they hold into the result as it comes.
class output_reader {
public:
  output_reader(child_pipes& pipes, const process_options& options, process_result& result)
      : m_pipes(pipes), m_options(options), m_result(result),
        m_err_lines(options.on_stderr_line, result.last_stderr_line) {
    close_fd(m_pipes.out[1]);
    close_fd(m_pipes.err[1]);
    for (const int fd : {m_pipes.out[0], m_pipes.err[0]}) {
      if (fd >= 0) {
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
      }
    }
  }
  // The open pipes, for poll().
  [[nodiscard]] std::vector<int> open_fds() const {
    std::vector<int> fds;
    for (const int fd : {m_pipes.out[0], m_pipes.err[0]}) {
      if (fd >= 0) {
        fds.push_back(fd);
      }
    }
    return fds;
  }
  // Reads what the pipes hold now.
  void read_available() {
    for (int* fd : {&m_pipes.out[0], &m_pipes.err[0]}) {
      if (*fd >= 0) {
        read_pipe(*fd);
      }
    }
  }
  // What is already written, not waiting for EOF; then the pipes are closed.
  void finish() {
    for (int* fd : {&m_pipes.out[0], &m_pipes.err[0]}) {
      if (*fd >= 0) {
        read_pipe(*fd);
        close_fd(*fd);
      }
    }
    m_err_lines.finish();
  }

private:
  // Reads what a pipe holds now; closes it at EOF.
  void read_pipe(int& fd) {
    char chunk[65536];
    for (;;) {
      const ssize_t got = ::read(fd, chunk, sizeof chunk);
      if (got < 0 && errno == EINTR) {
        continue;
      }
      if (got <= 0) {
        if (got == 0 || errno != EAGAIN) {
          close_fd(fd);
        }
        return;
      }
      const std::string_view data(chunk, static_cast<std::size_t>(got));
      if (&fd == &m_pipes.out[0]) {
        m_result.stdout_text.append(data);
      } else {
        if (m_options.forward_stderr) {
          write_all(STDERR_FILENO, data);
        }
        m_err_lines.add(data);
      }
    }
  }

  child_pipes& m_pipes;
  const process_options& m_options;
  process_result& m_result;
  line_splitter m_err_lines;
};

// Reads the program's output until it exits: a forwarded signal gets it a grace period, the
// timeout a SIGKILL.
void supervise(pid_t pid, std::chrono::steady_clock::time_point deadline, output_reader& reader,
               process_result& result) {
  const auto exited = [&] {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == pid;
  };
  auto kill_at = std::chrono::steady_clock::time_point::max(); // after a forwarded signal
  while (!exited()) {
    pollfd fds[3];
    nfds_t n = 0;
    fds[n++] = {g_signal_pipe[0], POLLIN, 0};
    for (const int fd : reader.open_fds()) {
      fds[n++] = {fd, POLLIN, 0};
    }
    // SIGCHLD wakes the poll through the self-pipe; once the timeout has fired, only that.
    const auto next = std::min(result.timed_out ? kill_at : deadline, kill_at);
    ::poll(fds, n, poll_ms_until(next));
    for (const int s : signal_watch::take()) {
      if (s != SIGCHLD && result.interrupted_by == 0) {
        result.interrupted_by = s;
        ::kill(-pid, s);
        kill_at = std::chrono::steady_clock::now() + k_interrupt_grace;
      }
    }
    reader.read_available();
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline && !result.timed_out && result.interrupted_by == 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
    }
    if (now >= kill_at) {
      kill_at = std::chrono::steady_clock::time_point::max();
      ::kill(-pid, SIGKILL);
    }
  }
}

// The exited program's status into the result.
void reap(pid_t pid, process_result& result) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
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
}
} // namespace

process_result run_process(const std::vector<std::string>& argv, const process_options& options) {
  if (argv.empty()) {
    throw usage_error("no program to run");
  }
  const auto deadline = deadline_after(options.timeout_s);
  const bool read_stderr = options.forward_stderr || options.on_stderr_line;
  child_pipes pipes = open_pipes(options.capture_stdout, read_stderr);

  const signal_watch signals;
  const pid_t pid = start_child(argv, options, pipes);
  const watchdog guard(pid);
  process_result result;
  output_reader reader(pipes, options, result);
  supervise(pid, deadline, reader, result);
  // The program is a zombie, so its group id is still its own: stop what it left running.
  ::kill(-pid, SIGKILL);
  reader.finish();
  reap(pid, result);
  if (result.interrupted_by != 0) { // perfgate is asked to stop: no caller goes on from here
    throw target_error(argv[0] + " " + result.describe() + " and stopped it");
  }
  return result;
}

} // namespace perfgate::detail
