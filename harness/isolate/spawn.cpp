#include "harness/isolate/spawn.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "harness/isolate/trace.h"

namespace ladder::isolate {
namespace {
using Clock = std::chrono::steady_clock;
std::atomic<bool> g_stop{false};
constexpr std::size_t kLogTail = 4096;

// Owns a file descriptor; closing never throws.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { int f = fd_; fd_ = -1; return f; }
  void reset(int f = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = f;
  }

 private:
  int fd_ = -1;
};

bool make_pipe(Fd& read_end, Fd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end.reset(fds[0]);
  write_end.reset(fds[1]);
  return true;
}

void take_lines(std::string& buffer, ChildRun& run) {
  std::size_t start = 0;
  for (std::size_t nl; (nl = buffer.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = buffer.substr(start, nl - start);
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("type")) run.garbage.push_back(line.substr(0, 200));
    else run.messages.push_back(std::move(j));
  }
  buffer.erase(0, start);
}

}  // namespace

void request_stop() { g_stop = true; }
bool stop_requested() { return g_stop; }
void clear_stop() { g_stop = false; }

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

ChildRun spawn_and_collect(const std::vector<std::string>& argv, const std::string& input, double timeout_s) {
  return spawn_and_collect(argv, input, ChildLimits{timeout_s, "", 0, ""});
}

ChildRun spawn_and_collect(const std::vector<std::string>& argv, const std::string& input, const ChildLimits& limits) {
  ChildRun run;
  const double timeout_s = limits.timeout_s;
  const auto t0 = Clock::now();
  Fd in_r, in_w, out_r, out_w, log_r, log_w;
  if (!make_pipe(in_r, in_w) || !make_pipe(out_r, out_w) || !make_pipe(log_r, log_w)) {
    run.spawn_failed = true;
    run.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // Signals stay blocked from the fork until the child has reset its handlers: a stop that
  // lands before the child's exec must end the copy by the default action, not run the parent's
  // handlers in it (the CLI's stop flag, or a test framework's fatal-signal report, which would
  // also flush the parent's buffered output a second time).
  sigset_t all, before;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &before);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
    run.spawn_failed = true;
    run.spawn_error = std::string("fork: ") + std::strerror(errno);
    return run;
  }
  if (pid == 0) {
    // Child: own process group so a timeout can end everything it started.
    ::setpgid(0, 0);
    for (int sig = 1; sig < NSIG; ++sig) {  // what exec would do, done before any signal is let in
      struct sigaction sa {};
      if (::sigaction(sig, nullptr, &sa) == 0 && sa.sa_handler != SIG_IGN && sa.sa_handler != SIG_DFL)
        ::signal(sig, SIG_DFL);
    }
    ::signal(SIGPIPE, SIG_DFL);
    ::sigprocmask(SIG_SETMASK, &before, nullptr);
    ::dup2(in_r.get(), 0);
    ::dup2(log_w.get(), 1);
    ::dup2(log_w.get(), 2);
    ::dup2(out_w.get(), 3);  // dup2 clears O_CLOEXEC on the copies
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  ::pthread_sigmask(SIG_SETMASK, &before, nullptr);
  in_r.reset();
  out_w.reset();
  log_w.reset();

  // The child reads all of stdin before anything else; a child that dies early gives EPIPE,
  // which the parent ignores (SIGPIPE is ignored process-wide by the CLI).
  for (std::size_t off = 0; off < input.size();) {
    const ssize_t n = ::write(in_w.get(), input.data() + off, input.size() - off);
    if (n <= 0) break;
    off += static_cast<std::size_t>(n);
  }
  in_w.reset();

  std::string pending;
  bool out_open = true, log_open = true;
  auto after = [](Clock::time_point t, double s) {
    return t + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  bool ready = limits.ready_type.empty();  // the child has said it is ready
  run.setup_s = ready ? 0 : limits.setup_s;
  auto deadline = after(t0, ready ? timeout_s : limits.setup_s);
  while (out_open || log_open) {
    int wait_ms = 200;
    if (timeout_s > 0) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        run.timed_out = true;
        run.timed_out_in_setup = !ready;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left, 200));
    }
    if (g_stop) { run.timed_out = true; break; }
    pollfd fds[2] = {{out_open ? out_r.get() : -1, POLLIN, 0}, {log_open ? log_r.get() : -1, POLLIN, 0}};
    const int polled = ::poll(fds, 2, wait_ms);
    if (polled < 0 && errno != EINTR) break;
    char buf[65536];
    if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(out_r.get(), buf, sizeof buf);
      if (n <= 0) out_open = false;
      else {
        const std::size_t seen = run.messages.size();
        pending.append(buf, static_cast<std::size_t>(n));
        take_lines(pending, run);
        for (std::size_t i = seen; i < run.messages.size(); ++i) {
          const std::string type = run.messages[i].value("type", "");
          if (ready ? type == limits.restart_type : type == limits.ready_type) {
            ready = true;
            deadline = after(Clock::now(), timeout_s);
          }
        }
      }
    }
    if (fds[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      const ssize_t n = ::read(log_r.get(), buf, sizeof buf);
      if (n <= 0) log_open = false;
      else {
        run.log_tail.append(buf, static_cast<std::size_t>(n));
        if (run.log_tail.size() > kLogTail) run.log_tail.erase(0, run.log_tail.size() - kLogTail);
      }
    }
  }
  if (!pending.empty()) { pending.push_back('\n'); take_lines(pending, run); }

  int status = 0;
  if (run.timed_out) {
    ::kill(-pid, SIGTERM);
    bool gone = false;
    for (int i = 0; i < 50 && !gone; ++i) {  // up to 0.5 s to leave politely
      gone = ::waitpid(pid, &status, WNOHANG) == pid;
      if (!gone) ::usleep(10000);
    }
    if (!gone) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
    }
    ::kill(-pid, SIGKILL);  // anything the child started that outlived it
  } else {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) run.signal = WTERMSIG(status);
  }
  const auto t1 = Clock::now();
  run.wall_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  run.started_us = monotonic_us(t0);
  run.ended_us = monotonic_us(t1);
  return run;
}

}  // namespace ladder::isolate
