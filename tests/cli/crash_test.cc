// The probe's crash test, kept: `ctxkit` processes killed with SIGKILL at
// random moments while writing, through the CLI (`ctxkit set`), stdio MCP
// (`ctxkit mcp` set calls) and HTTP (`ctxkit serve` set calls). After each kill
// the store must reopen with every acknowledged write readable byte for byte
// and PRAGMA integrity_check ok. The seed is printed; CTXKIT_CRASH_SEED reruns
// one.

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "common/sqlite_integrity.h"
#include "ctxkit/store.h"
#include "mcp_http/http_test_client.h"

namespace ctxkit::cli::testing {
namespace {

// A child `ctxkit` with its stdin and stdout on pipes.
struct Child {
  pid_t pid = -1;
  int in = -1;   // Its stdin (write end).
  int out = -1;  // Its stdout (read end).
};

Child Spawn(const std::vector<std::string>& args) {
  int to_child[2], from_child[2];
  if (::pipe2(to_child, O_CLOEXEC) != 0 ||
      ::pipe2(from_child, O_CLOEXEC) != 0) {
    return {};
  }
  std::vector<char*> argv;
  for (const std::string& a : args)
    argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(to_child[0], 0);
    ::dup2(from_child[1], 1);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 2);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(to_child[0]);
  ::close(from_child[1]);
  return {pid, to_child[1], from_child[0]};
}

void KillAndReap(Child& c) {
  ::kill(c.pid, SIGKILL);
  ::waitpid(c.pid, nullptr, 0);
  ::close(c.in);
  ::close(c.out);
}

// A value of a size that varies as real ones do: inline or a blob file.
std::string Value(std::mt19937_64& rng, const std::string& key) {
  const size_t sizes[] = {20, 3000, 70'000, 300'000};
  std::string v = key + ":";
  v.resize(sizes[rng() % 4], static_cast<char>('a' + rng() % 26));
  return v;
}

class CrashTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    const char* env = std::getenv("CTXKIT_CRASH_SEED");
    seed_ = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("crash test seed %llu (CTXKIT_CRASH_SEED reruns it)\n",
                static_cast<unsigned long long>(seed_));
    rng_.seed(seed_);
  }

  // Every acknowledged write is there, exactly; the database is sound.
  void Verify() {
    const std::string db = home_ + "/ctxkit.db";
    if (!std::filesystem::exists(db)) {
      // Killed before the store was made: nothing can have been acked.
      EXPECT_TRUE(acked_.empty());
      return;
    }
    EXPECT_EQ(ctxkit::testing::SqliteIntegrityCheck(db), "ok");
    Options o;
    o.home = home_;
    Result<std::unique_ptr<Store>> store = Store::Open(o);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<View> view = (*store)->OpenView("", "");
    ASSERT_TRUE(view.ok());
    for (const auto& [key, value] : acked_) {
      Result<std::string> got = view->Get(key);
      ASSERT_TRUE(got.ok()) << key << ": " << got.status().ToString();
      EXPECT_TRUE(*got == value) << key << " differs (" << got->size()
                                 << " bytes, wanted " << value.size() << ")";
    }
  }

  uint64_t seed_ = 0;
  std::mt19937_64 rng_;
  std::map<std::string, std::string> acked_;
};

TEST_F(CrashTest, KilledCliWritersLoseNoAcknowledgedWrite) {
  for (int round = 0; round < 12; ++round) {
    const std::string key = "cli-" + std::to_string(round);
    const std::string value = Value(rng_, key);
    const std::string file = tmp_.path() + "/value";
    std::FILE* f = std::fopen(file.c_str(), "wb");
    std::fwrite(value.data(), 1, value.size(), f);
    std::fclose(f);
    Child c =
        Spawn({CTXKIT_BINARY, "--home", home_, "set", key, "--file", file});
    ASSERT_GT(c.pid, 0);
    std::this_thread::sleep_for(std::chrono::microseconds(rng_() % 20000));
    int status = 0;
    if (::waitpid(c.pid, &status, WNOHANG) == c.pid) {
      if (WIFEXITED(status) && WEXITSTATUS(status) == 0) acked_[key] = value;
      ::close(c.in);
      ::close(c.out);
    } else {
      KillAndReap(c);
    }
    Verify();
  }
}

TEST_F(CrashTest, KilledStdioServersLoseNoAcknowledgedWrite) {
  for (int round = 0; round < 6; ++round) {
    Child c = Spawn({CTXKIT_BINARY, "--home", home_, "mcp"});
    ASSERT_GT(c.pid, 0);
    const std::string init =
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"crash","version":"1"}}})"
        "\n";
    ASSERT_EQ(::write(c.in, init.data(), init.size()),
              static_cast<ssize_t>(init.size()));
    // Sets go out one after another; the kill lands during a random one.
    const int kill_at = 1 + static_cast<int>(rng_() % 8);
    std::string pending;  // Bytes read that do not make a line yet.
    std::map<int, std::pair<std::string, std::string>> sent;
    for (int i = 1; i <= kill_at; ++i) {
      const std::string key =
          "mcp-" + std::to_string(round) + "-" + std::to_string(i);
      const std::string value = Value(rng_, key);
      sent[i] = {key, value};
      const std::string req =
          nlohmann::json{{"jsonrpc", "2.0"},
                         {"id", i},
                         {"method", "tools/call"},
                         {"params",
                          {{"name", "set"},
                           {"arguments", {{"key", key}, {"value", value}}}}}}
              .dump() +
          "\n";
      if (::write(c.in, req.data(), req.size()) !=
          static_cast<ssize_t>(req.size())) {
        break;
      }
      if (i == kill_at) {
        std::this_thread::sleep_for(std::chrono::microseconds(rng_() % 5000));
        break;
      }
      // Wait for this request's answer before the next.
      while (pending.find("\"id\":" + std::to_string(i) + ",") ==
             std::string::npos) {
        char buf[65536];
        const ssize_t n = ::read(c.out, buf, sizeof buf);
        if (n <= 0) break;
        pending.append(buf, static_cast<size_t>(n));
      }
    }
    ::kill(c.pid, SIGKILL);
    // Everything it answered before dying counts as acknowledged.
    char buf[65536];
    ssize_t n;
    while ((n = ::read(c.out, buf, sizeof buf)) > 0) {
      pending.append(buf, static_cast<size_t>(n));
    }
    ::waitpid(c.pid, nullptr, 0);
    ::close(c.in);
    ::close(c.out);
    size_t at = 0;
    for (size_t nl; (nl = pending.find('\n', at)) != std::string::npos;
         at = nl + 1) {
      nlohmann::json reply =
          nlohmann::json::parse(pending.substr(at, nl - at), nullptr, false);
      if (!reply.is_object() || !reply.contains("result") ||
          !reply["id"].is_number_integer()) {
        continue;
      }
      const int id = reply["id"].get<int>();
      if (id > 0 && !reply["result"].value("isError", false)) {
        acked_[sent[id].first] = sent[id].second;
      }
    }
    Verify();
  }
  EXPECT_FALSE(acked_.empty()) << "no write was ever acknowledged";
}

TEST_F(CrashTest, KilledHttpServersLoseNoAcknowledgedWrite) {
  using mcp::testing::HeaderList;
  using mcp::testing::HttpConn;
  using mcp::testing::HttpReply;
  for (int round = 0; round < 4; ++round) {
    Child c = Spawn({CTXKIT_BINARY, "--home", home_, "serve", "--port", "0"});
    ASSERT_GT(c.pid, 0);
    // The first line of stdout is the URL: http://127.0.0.1:<port>/mcp.
    std::string first;
    char ch;
    while (::read(c.out, &ch, 1) == 1 && ch != '\n') first += ch;
    const size_t colon = first.rfind(':');
    ASSERT_NE(colon, std::string::npos) << first;
    const int port = std::atoi(first.c_str() + colon + 1);
    ASSERT_GT(port, 0) << first;
    const HeaderList headers = {
        {"Content-Type", "application/json"},
        {"Accept", "application/json, text/event-stream"}};
    HttpReply init = mcp::testing::HttpCall(
        port, "POST",
        R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"crash","version":"1"}}})",
        headers);
    ASSERT_EQ(init.status, 200) << init.body;
    HeaderList session = headers;
    session.push_back({"Mcp-Session-Id", init.Header("mcp-session-id")});
    const int kill_at = 1 + static_cast<int>(rng_() % 8);
    for (int i = 1; i <= kill_at; ++i) {
      const std::string key =
          "http-" + std::to_string(round) + "-" + std::to_string(i);
      const std::string value = Value(rng_, key);
      const std::string body =
          nlohmann::json{{"jsonrpc", "2.0"},
                         {"id", i},
                         {"method", "tools/call"},
                         {"params",
                          {{"name", "set"},
                           {"arguments", {{"key", key}, {"value", value}}}}}}
              .dump();
      HttpConn conn(port);
      ASSERT_TRUE(conn.Send(port, "POST", body, session));
      if (i == kill_at) {
        // Killed while this request is being received or handled.
        std::this_thread::sleep_for(std::chrono::microseconds(rng_() % 5000));
        break;
      }
      HttpReply r = conn.Read();
      nlohmann::json reply = nlohmann::json::parse(r.body, nullptr, false);
      if (r.status == 200 && reply.is_object() && reply.contains("result") &&
          !reply["result"].value("isError", false)) {
        acked_[key] = value;
      }
    }
    KillAndReap(c);
    Verify();
  }
  EXPECT_FALSE(acked_.empty()) << "no write was ever acknowledged";
}

}  // namespace
}  // namespace ctxkit::cli::testing
