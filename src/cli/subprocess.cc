#include "cli/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

extern char** environ;

namespace ctxkit::cli {

namespace {

Status Errno(const std::string& what) {
  return Status::IoError(what + ": " + std::strerror(errno));
}

// Closes what it holds on every exit path.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct SpawnActions {
  posix_spawn_file_actions_t actions;
  SpawnActions() { posix_spawn_file_actions_init(&actions); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
};

std::vector<char*> CStrings(const std::vector<std::string>& v) {
  std::vector<char*> out;
  out.reserve(v.size() + 1);
  for (const auto& s : v) out.push_back(const_cast<char*>(s.c_str()));
  out.push_back(nullptr);
  return out;
}

// Moves bytes between the parent and the child's three pipes until both
// output pipes reach EOF. Polling all three avoids the deadlock of a child
// blocked writing a full stdout pipe while we block writing its stdin.
Status Pump(Fd& in, Fd& out, Fd& err, std::string_view input,
            ProcessResult* result) {
  size_t written = 0;
  if (input.empty()) in.Close();
  char buf[1 << 16];
  while (out.fd >= 0 || err.fd >= 0) {
    pollfd fds[3];
    int n = 0;
    int in_idx = -1, out_idx = -1, err_idx = -1;
    if (in.fd >= 0) fds[in_idx = n++] = {in.fd, POLLOUT, 0};
    if (out.fd >= 0) fds[out_idx = n++] = {out.fd, POLLIN, 0};
    if (err.fd >= 0) fds[err_idx = n++] = {err.fd, POLLIN, 0};
    if (::poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      return Errno("poll");
    }
    if (in_idx >= 0 && fds[in_idx].revents != 0) {
      ssize_t w = ::write(in.fd, input.data() + written,
                          std::min<size_t>(input.size() - written, PIPE_BUF));
      if (w > 0) written += static_cast<size_t>(w);
      // EPIPE: the child stopped reading; what it did read is its business.
      if ((w < 0 && errno != EINTR && errno != EAGAIN) ||
          written == input.size()) {
        in.Close();
      }
    }
    auto drain = [&](int idx, Fd& fd, std::string* sink) {
      if (idx < 0 || fds[idx].revents == 0) return;
      ssize_t r = ::read(fd.fd, buf, sizeof(buf));
      if (r > 0) {
        sink->append(buf, static_cast<size_t>(r));
      } else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
        fd.Close();
      }
    };
    drain(out_idx, out, &result->out);
    drain(err_idx, err, &result->err);
  }
  in.Close();
  return Status::Ok();
}

}  // namespace

Result<ProcessResult> RunProcess(
    const std::vector<std::string>& argv, std::string_view input,
    const std::optional<std::vector<std::string>>& env) {
  if (argv.empty()) return Status::InvalidArgument("empty argv");
  int p_in[2], p_out[2], p_err[2];
  Fd in_r, in_w, out_r, out_w, err_r, err_w;
  if (::pipe2(p_in, O_CLOEXEC) != 0) return Errno("pipe");
  in_r.fd = p_in[0];
  in_w.fd = p_in[1];
  if (::pipe2(p_out, O_CLOEXEC) != 0) return Errno("pipe");
  out_r.fd = p_out[0];
  out_w.fd = p_out[1];
  if (::pipe2(p_err, O_CLOEXEC) != 0) return Errno("pipe");
  err_r.fd = p_err[0];
  err_w.fd = p_err[1];
  // Non-blocking stdin writes let Pump interleave them with reads.
  ::fcntl(in_w.fd, F_SETFL, ::fcntl(in_w.fd, F_GETFL) | O_NONBLOCK);

  SpawnActions fa;
  posix_spawn_file_actions_adddup2(&fa.actions, in_r.fd, 0);
  posix_spawn_file_actions_adddup2(&fa.actions, out_w.fd, 1);
  posix_spawn_file_actions_adddup2(&fa.actions, err_w.fd, 2);

  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env;
  if (env.has_value()) c_env = CStrings(*env);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), &fa.actions, nullptr,
                          c_argv.data(), env ? c_env.data() : environ);
  if (rc != 0) {
    return Status::IoError("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  in_r.Close();
  out_w.Close();
  err_w.Close();

  // Block SIGPIPE in this thread only, so a child that exits without
  // reading all of its stdin yields EPIPE here instead of killing us.
  sigset_t pipe_set, old_set;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  ProcessResult result;
  Status pumped = Pump(in_w, out_r, err_r, input, &result);
  timespec zero{0, 0};
  while (sigtimedwait(&pipe_set, nullptr, &zero) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &old_set, nullptr);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Errno("waitpid");
  }
  if (!pumped.ok()) return pumped;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signaled = true;
    result.exit_code = 128 + WTERMSIG(status);
  }
  return result;
}

Result<int> RunForeground(const std::vector<std::string>& argv,
                          const std::vector<std::string>& env) {
  if (argv.empty()) return Status::InvalidArgument("empty argv");
  struct sigaction ignore = {};
  struct sigaction old_int = {};
  struct sigaction old_quit = {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGINT, &ignore, &old_int);
  ::sigaction(SIGQUIT, &ignore, &old_quit);
  auto restore = [&] {
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGQUIT, &old_quit, nullptr);
  };

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGQUIT);
  sigaddset(&defaults, SIGPIPE);
  sigemptyset(&empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  std::vector<char*> c_argv = CStrings(argv);
  std::vector<char*> c_env = CStrings(env);
  pid_t pid = -1;
  int rc = ::posix_spawnp(&pid, argv[0].c_str(), nullptr, &attr, c_argv.data(),
                          c_env.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    restore();
    return Status::IoError("cannot run " + argv[0] + ": " + std::strerror(rc));
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      Status s = Errno("waitpid");
      restore();
      return s;
    }
  }
  restore();
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

Result<std::string> SelfExecutable() {
  char buf[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return Errno("readlink /proc/self/exe");
  return std::string(buf, static_cast<size_t>(n));
}

Status ExecProgram(const std::string& path,
                   const std::vector<std::string>& argv) {
  std::vector<char*> args = CStrings(argv);
  std::fflush(nullptr);
  ::execv(path.c_str(), args.data());
  return Status::IoError("cannot run " + path + ": " + std::strerror(errno));
}

}  // namespace ctxkit::cli
