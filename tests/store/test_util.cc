#include "store/test_util.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <thread>

extern char** environ;

namespace ctxkit::testing {

namespace {

constexpr char kChildEnv[] = "CTXKIT_STORE_TEST_CHILD";
// Fixed descriptor numbers inside the child.
constexpr int kChildResultFd = 100;
constexpr int kChildGoFd = 101;

// A test that deadlocks would otherwise hang the whole binary (and, under
// CTest, burn the full per-test timeout). The watchdog names the test and
// ends the process once one test runs longer than CTXKIT_TEST_HANG_SECONDS
// (default 150).
//
// The state is leaked on purpose: gtest destroys its listeners at exit while
// the watchdog thread may still wait on the condition variable.
struct WatchdogState {
  std::mutex mu;
  std::condition_variable cv;
  std::string name;
  std::chrono::steady_clock::time_point deadline;
  bool armed = false;
  bool started = false;

  static std::chrono::seconds Limit() {
    const char* v = std::getenv("CTXKIT_TEST_HANG_SECONDS");
    int s = v ? std::atoi(v) : 0;
    return std::chrono::seconds(s > 0 ? s : 150);
  }

  void Loop() {
    std::unique_lock lock(mu);
    while (true) {
      if (!armed) {
        cv.wait(lock);
        continue;
      }
      if (cv.wait_until(lock, deadline) == std::cv_status::timeout && armed &&
          std::chrono::steady_clock::now() >= deadline) {
        std::fprintf(stderr,
                     "\n*** %s still running after %lld s: probably "
                     "deadlocked; ending the test process ***\n",
                     name.c_str(), static_cast<long long>(Limit().count()));
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }
};

// Reachable from a global, so LeakSanitizer does not report it.
WatchdogState* const g_watchdog_state = new WatchdogState;

class HangWatchdog : public ::testing::EmptyTestEventListener {
 public:
  void OnTestStart(const ::testing::TestInfo& info) override {
    std::lock_guard lock(state_->mu);
    state_->name = std::string(info.test_suite_name()) + "." + info.name();
    state_->deadline = std::chrono::steady_clock::now() + state_->Limit();
    state_->armed = true;
    if (!state_->started) {
      state_->started = true;
      WatchdogState* st = state_;
      std::thread([st] { st->Loop(); }).detach();
    }
    state_->cv.notify_all();
  }
  void OnTestEnd(const ::testing::TestInfo&) override {
    std::lock_guard lock(state_->mu);
    state_->armed = false;
  }

 private:
  WatchdogState* state_ = g_watchdog_state;
};

[[maybe_unused]] const bool kWatchdogRegistered = [] {
  // Owned by gtest's UnitTest singleton, which is never destroyed.
  ::testing::UnitTest::GetInstance()->listeners().Append(new HangWatchdog);
  return true;
}();

}  // namespace

// ---------------------------------------------------------------------------

TempDir::TempDir() {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl =
      std::string(base && *base ? base : "/tmp") + "/ctxkit_store_test_XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (mkdtemp(buf.data()) == nullptr) {
    ADD_FAILURE() << "mkdtemp: " << std::strerror(errno);
    return;
  }
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string TempDir::Sub(std::string_view name) const {
  return path_ + "/" + std::string(name);
}

// ---------------------------------------------------------------------------

void StoreTest::SetUp() {
  options_ = OptionsFor(dir_.path() + "/home");
  auto store = Store::Open(options_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(store).value();
  view_.emplace(MakeView("alice", "s1"));
}

void StoreTest::TearDown() {
  view_.reset();
  store_.reset();
}

void StoreTest::Reopen(Options options) {
  options.home = options_.home;
  options.store_url = options_.store_url;
  options_ = options;
  view_.reset();
  store_.reset();
  auto store = Store::Open(options_);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  store_ = std::move(store).value();
  view_.emplace(MakeView("alice", "s1"));
}

std::unique_ptr<Store> StoreTest::OpenSecond(Options options) const {
  options.home = options_.home;
  options.store_url = options_.store_url;
  auto store = Store::Open(options);
  EXPECT_TRUE(store.ok()) << store.status().ToString();
  if (!store.ok()) return nullptr;
  return std::move(store).value();
}

View StoreTest::MakeView(std::string_view agent, std::string_view session) {
  auto v = store_->OpenView(agent, session);
  EXPECT_TRUE(v.ok()) << v.status().ToString();
  if (!v.ok()) std::abort();  // Nothing sensible to test without a view.
  return std::move(v).value();
}

// ---------------------------------------------------------------------------

std::string RandomBytes(uint64_t seed, size_t n) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 1);
  std::string out(n, '\0');
  size_t i = 0;
  while (i < n) {
    uint64_t word = rng();
    for (int b = 0; b < 8 && i < n; ++b, ++i) {
      out[i] = static_cast<char>(word >> (8 * b));
    }
  }
  return out;
}

std::string RandomText(uint64_t seed, size_t n) {
  std::string out = RandomBytes(seed, n);
  for (char& c : out) {
    c = static_cast<char>(' ' + (static_cast<unsigned char>(c) % 95));
  }
  return out;
}

std::string Payload(uint64_t seed) {
  // Mostly small (inline) values, every 16th one above the default inline
  // limit so that blob files are exercised too.
  size_t size =
      seed % 16 == 15 ? 70 * 1024 + seed % 1000 : 1 + seed * 37 % 3000;
  return "payload-" + std::to_string(seed) + ":" + RandomBytes(seed, size);
}

std::string BigPayload(uint64_t seed) {
  if (seed % 4 != 3) return Payload(seed);
  return "big-" + std::to_string(seed) + ":" +
         RandomBytes(seed, (3 << 19) + seed % 1000);
}

std::string Chunk(uint64_t seed) {
  return "<" + std::to_string(seed) + ">" +
         RandomText(seed, seed % 7 == 0 ? 90000 : seed * 13 % 500);
}

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

// ---------------------------------------------------------------------------

std::string DescribeMeta(const ObjectMeta& m) {
  std::ostringstream os;
  os << "{id=" << m.id << " key=" << m.key << " scope=" << m.scope.ToString()
     << " type=" << ValueTypeName(m.type) << " size=" << m.size_bytes
     << " version=" << m.version << " created=" << m.created_unix_ns
     << " updated=" << m.updated_unix_ns << " persistent=" << m.persistent
     << " tags=[";
  for (const auto& t : m.tags) os << t << ",";
  os << "]}";
  return os.str();
}

std::string DescribeVersion(const VersionMeta& v) {
  std::ostringstream os;
  os << "{v" << v.version << " " << VersionStateName(v.state) << " "
     << ValueTypeName(v.type) << " size=" << v.size_bytes
     << " hash=" << v.content_hash << " created=" << v.created_unix_ns
     << " producer=" << v.producer << "}";
  return os.str();
}

std::vector<ObjectMeta> ListAll(View& view, ListFilter filter,
                                size_t page_size) {
  std::vector<ObjectMeta> all;
  filter.limit = page_size;
  filter.cursor.clear();
  for (int pages = 0; pages < 100000; ++pages) {
    auto page = view.List(filter);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    if (!page.ok()) break;
    for (auto& m : page->items) all.push_back(std::move(m));
    if (page->next_cursor.empty()) break;
    filter.cursor = page->next_cursor;
  }
  return all;
}

std::string Snapshot(View& view) {
  std::ostringstream os;
  for (const ObjectMeta& m : ListAll(view, {})) {
    os << DescribeMeta(m) << "\n";
    LookupOptions lo;
    lo.scope = m.scope.ToString();
    auto versions = view.Versions(m.key, lo);
    if (!versions.ok()) {
      os << "  versions: " << versions.status().ToString() << "\n";
      continue;
    }
    for (const auto& v : *versions) os << "  " << DescribeVersion(v) << "\n";
  }
  StoreStats s = *view.store()->Stats();
  os << "objects=" << s.objects << " live=" << s.live_objects
     << " versions=" << s.versions << " content_bytes=" << s.content_bytes
     << " blob_files=" << s.blob_files
     << " session_objects=" << s.session_objects
     << " session_resident=" << s.session_resident_bytes
     << " session_spilled=" << s.session_spilled_bytes << "\n";
  return os.str();
}

// ---------------------------------------------------------------------------
// Child processes.

Child SpawnChild(const ChildSpec& spec) {
  Child child;
  // Everything the child needs is prepared before fork(): between fork() and
  // execve() it only calls async-signal-safe functions.
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
  if (n <= 0) {
    ADD_FAILURE() << "readlink /proc/self/exe: " << std::strerror(errno);
    return child;
  }
  exe[n] = '\0';

  std::string joined;
  for (size_t i = 0; i < spec.args.size(); ++i) {
    if (i) joined.push_back('\x1f');  // Unit separator: never in our args.
    joined += spec.args[i];
  }
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    if (std::strncmp(*e, kChildEnv, sizeof(kChildEnv) - 1) == 0) continue;
    env_strings.emplace_back(*e);
  }
  env_strings.push_back(std::string(kChildEnv) + "=" + joined);
  env_strings.push_back(
      "CTXKIT_STORE_TEST_CHILD_FDS=" +
      std::to_string(spec.capture_result ? kChildResultFd : -1) + "," +
      std::to_string(spec.go_fd >= 0 ? kChildGoFd : -1));
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  std::string arg0 = exe;
  std::string arg1 = "--gtest_filter=ChildProcessEntry.Run";
  std::vector<char*> argv = {arg0.data(), arg1.data(), nullptr};

  int result_pipe[2] = {-1, -1};
  if (spec.capture_result && pipe2(result_pipe, O_CLOEXEC) != 0) {
    ADD_FAILURE() << "pipe2: " << std::strerror(errno);
    return child;
  }
  int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

  pid_t pid = fork();
  if (pid < 0) {
    ADD_FAILURE() << "fork: " << std::strerror(errno);
    return child;
  }
  if (pid == 0) {
    // dup2 clears FD_CLOEXEC on the new descriptor.
    if (spec.capture_result && dup2(result_pipe[1], kChildResultFd) < 0) {
      _exit(120);
    }
    if (spec.go_fd >= 0 && dup2(spec.go_fd, kChildGoFd) < 0) _exit(121);
    if (devnull >= 0) dup2(devnull, STDOUT_FILENO);  // gtest chatter.
    execve(exe, argv.data(), envp.data());
    _exit(127);
  }
  if (devnull >= 0) close(devnull);
  if (spec.capture_result) {
    close(result_pipe[1]);
    child.result_fd = result_pipe[0];
  }
  child.pid = pid;
  return child;
}

int WaitChild(pid_t pid, int timeout_s) {
  auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  while (true) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) {
      ADD_FAILURE() << "waitpid: " << std::strerror(errno);
      return -1;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ADD_FAILURE() << "child " << pid << " timed out after " << timeout_s
                    << " s; killing it";
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      return status;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      out.append(buf, static_cast<size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fd);
  return out;
}

std::vector<std::string> ChildArgs() {
  std::vector<std::string> args;
  const char* v = std::getenv(kChildEnv);
  if (v == nullptr || *v == '\0') return args;
  std::string cur;
  for (const char* p = v; *p; ++p) {
    if (*p == '\x1f') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(*p);
    }
  }
  args.push_back(cur);
  return args;
}

void ChildWrite(std::string_view data) {
  while (!data.empty()) {
    ssize_t n = write(kChildResultFd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
}

void ChildWaitForGo() {
  const char* fds = std::getenv("CTXKIT_STORE_TEST_CHILD_FDS");
  if (fds == nullptr || std::strstr(fds, ",-1") != nullptr) return;
  char c;
  while (true) {
    ssize_t n = read(kChildGoFd, &c, 1);
    if (n == 0) break;
    if (n < 0 && errno != EINTR) break;
  }
  close(kChildGoFd);
}

}  // namespace ctxkit::testing
