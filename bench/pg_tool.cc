// The measurements of bench/pg_bench.py (docs/benchmarks.md, "The
// PostgreSQL engine"), against a server the script starts:
//
//   pg_tool setget URL HOME ROUNDS [COUNT_TOKENS_MAX_BYTES]
//                                       durable set and get of 1 KiB, 64 KiB
//                                       and 4 MiB through ctxkit, and the
//                                       raw libpq INSERT / SELECT anchor with
//                                       the same durability, interleaved;
//                                       the store's
//                                       Options::count_tokens_max_bytes
//                                       (default: the library's; 0: the
//                                       engine's own work alone)
//   pg_tool throughput URL HOME SQLITE_HOME SECONDS
//                                       8 writers, then 8 readers, each with
//                                       its own Store: PostgreSQL vs SQLite
//   pg_tool visibility URL HOME N       commit on one Store to the change
//                                       seen by another polling it
//   pg_tool notify URL HOME N           Set on one Store to the MCP
//                                       notification of a subscriber on
//                                       another (LISTEN/NOTIFY wake-up)
//   pg_tool range URL HOME              bytes of pages the server touched to
//                                       read 1 MiB from the middle of a
//                                       256 MiB value
//
// Each prints one line per result: NAME VALUE... (see the script).

#include <libpq-fe.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ctxkit/mcp.h"
#include "ctxkit/store.h"

namespace {

using Clock = std::chrono::steady_clock;

uint64_t NanosSince(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() -
                                                              start)
      .count();
}

uint64_t Median(std::vector<uint64_t> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

uint64_t Percentile(std::vector<uint64_t> v, double fraction) {
  std::sort(v.begin(), v.end());
  if (v.empty()) return 0;
  return v[std::min(v.size() - 1, static_cast<size_t>(v.size() * fraction))];
}

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "pg_tool: %s\n", what.c_str());
  std::exit(1);
}

std::unique_ptr<ctxkit::Store> OpenStore(
    const std::string& url, const std::string& home,
    std::optional<uint64_t> count_tokens_max_bytes = std::nullopt) {
  ctxkit::Options o;
  o.home = home;
  o.store_url = url;
  if (count_tokens_max_bytes) {
    o.count_tokens_max_bytes = *count_tokens_max_bytes;
  }
  auto store = ctxkit::Store::Open(o);
  if (!store.ok()) Die(store.status().ToString());
  return std::move(*store);
}

ctxkit::View ViewOf(ctxkit::Store& store) {
  auto view = store.OpenView("bench", "");
  if (!view.ok()) Die(view.status().ToString());
  return std::move(*view);
}

// The anchor: one libpq connection, synchronous_commit on, a table of
// (key, value), prepared INSERT and SELECT with binary parameters.
class RawPg {
 public:
  explicit RawPg(const std::string& url) : conn_(PQconnectdb(url.c_str())) {
    if (PQstatus(conn_) != CONNECTION_OK) Die(PQerrorMessage(conn_));
    Run("SET synchronous_commit = on");
    Run("CREATE TABLE IF NOT EXISTS raw_anchor(k text PRIMARY KEY, v bytea)");
    Run("ALTER TABLE raw_anchor ALTER COLUMN v SET STORAGE EXTERNAL");
    Prepare("ins", "INSERT INTO raw_anchor VALUES ($1, $2)", 2);
    Prepare("sel", "SELECT v FROM raw_anchor WHERE k = $1", 1);
  }
  ~RawPg() { PQfinish(conn_); }

  void Insert(const std::string& key, const std::string& value) {
    const char* values[] = {key.data(), value.data()};
    const int lengths[] = {static_cast<int>(key.size()),
                           static_cast<int>(value.size())};
    const int formats[] = {1, 1};
    Check(PQexecPrepared(conn_, "ins", 2, values, lengths, formats, 1));
  }
  size_t Select(const std::string& key) {
    const char* values[] = {key.data()};
    const int lengths[] = {static_cast<int>(key.size())};
    const int formats[] = {1};
    PGresult* r = PQexecPrepared(conn_, "sel", 1, values, lengths, formats, 1);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
      Die(PQresultErrorMessage(r));
    }
    const size_t n = PQgetlength(r, 0, 0);
    PQclear(r);
    return n;
  }

 private:
  void Run(const char* sql) { Check(PQexec(conn_, sql)); }
  void Prepare(const char* name, const char* sql, int n) {
    const Oid types[] = {25, 17};
    Check(PQprepare(conn_, name, sql, n, types));
  }
  void Check(PGresult* r) {
    const ExecStatusType s = PQresultStatus(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK) {
      Die(PQresultErrorMessage(r));
    }
    PQclear(r);
  }
  PGconn* conn_;
};

void SetGet(const std::string& url, const std::string& home, int rounds,
            std::optional<uint64_t> count_tokens_max_bytes) {
  auto store = OpenStore(url, home, count_tokens_max_bytes);
  ctxkit::View view = ViewOf(*store);
  RawPg raw(url);
  struct Size {
    const char* name;
    size_t bytes;
    int per_round;
  };
  for (const Size& size :
       {Size{"1KiB", 1 << 10, 200}, Size{"64KiB", 64 << 10, 50},
        Size{"4MiB", 4 << 20, 4}}) {
    std::vector<uint64_t> p50[4];  // ctxkit set, raw set, ctxkit get, raw get
    for (int round = 0; round < rounds; ++round) {
      std::vector<uint64_t> ns[4];
      // Each value differs, so neither side deduplicates it.
      auto value = [&](int i) {
        std::string v(size.bytes, 'a' + (round + i) % 26);
        std::snprintf(v.data(), v.size(), "%d-%d-", round, i);
        return v;
      };
      for (int i = 0; i < size.per_round; ++i) {
        const std::string key = std::string(size.name) + "/" +
                                std::to_string(round) + "/" + std::to_string(i);
        const std::string v = value(i);
        // Alternate which side goes first.
        for (int side :
             (i % 2 ? std::vector<int>{0, 1} : std::vector<int>{1, 0})) {
          auto start = Clock::now();
          if (side == 0) {
            if (!view.Set(key, v).ok()) Die("set");
          } else {
            raw.Insert(key, v);
          }
          ns[side].push_back(NanosSince(start));
        }
      }
      for (int i = 0; i < size.per_round; ++i) {
        const std::string key = std::string(size.name) + "/" +
                                std::to_string(round) + "/" + std::to_string(i);
        for (int side :
             (i % 2 ? std::vector<int>{2, 3} : std::vector<int>{3, 2})) {
          auto start = Clock::now();
          if (side == 2) {
            auto got = view.Get(key);
            if (!got.ok() || got->size() != size.bytes) Die("get");
          } else if (raw.Select(key) != size.bytes) {
            Die("select");
          }
          ns[side].push_back(NanosSince(start));
        }
      }
      for (int k = 0; k < 4; ++k) p50[k].push_back(Median(ns[k]));
    }
    for (int k = 0; k < 4; k += 2) {
      const char* op = k == 0 ? "set" : "get";
      std::printf("setget %s %s %llu %llu %llu %llu %llu %llu\n", size.name, op,
                  static_cast<unsigned long long>(Median(p50[k])),
                  static_cast<unsigned long long>(
                      *std::min_element(p50[k].begin(), p50[k].end())),
                  static_cast<unsigned long long>(
                      *std::max_element(p50[k].begin(), p50[k].end())),
                  static_cast<unsigned long long>(Median(p50[k + 1])),
                  static_cast<unsigned long long>(
                      *std::min_element(p50[k + 1].begin(), p50[k + 1].end())),
                  static_cast<unsigned long long>(
                      *std::max_element(p50[k + 1].begin(), p50[k + 1].end())));
    }
  }
}

// Operations per second of 8 threads, each with its own Store (its own
// connection or database handle), for `seconds`.
uint64_t Throughput(const std::string& url, const std::string& home,
                    bool writers, double seconds) {
  constexpr int kThreads = 8;
  std::vector<std::unique_ptr<ctxkit::Store>> stores;
  for (int t = 0; t < kThreads; ++t) stores.push_back(OpenStore(url, home));
  const std::string value(1024, 'v');
  if (!writers) {
    ctxkit::View view = ViewOf(*stores[0]);
    for (int i = 0; i < 100; ++i) {
      if (!view.Set("read/" + std::to_string(i), value).ok()) Die("set");
    }
  }
  std::atomic<uint64_t> ops{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ctxkit::View view = ViewOf(*stores[t]);
      uint64_t n = 0;
      for (uint64_t i = 0; !stop.load(); ++i) {
        if (writers) {
          const std::string key =
              "w" + std::to_string(t) + "/" + std::to_string(i);
          if (!view.Set(key, value).ok()) Die("set");
        } else if (!view.Get("read/" + std::to_string(i % 100)).ok()) {
          Die("get");
        }
        ++n;
      }
      ops.fetch_add(n);
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  stop.store(true);
  for (std::thread& t : threads) t.join();
  return static_cast<uint64_t>(ops.load() / seconds);
}

void Visibility(const std::string& url, const std::string& home, int n) {
  auto writer_store = OpenStore(url, home);
  auto reader_store = OpenStore(url, home);
  ctxkit::View writer = ViewOf(*writer_store);
  ctxkit::View reader = ViewOf(*reader_store);
  if (!writer.Set("visible", "0").ok()) Die("set");
  std::vector<uint64_t> ns;
  for (int i = 1; i <= n; ++i) {
    auto before = reader.Stat("visible");
    if (!before.ok()) Die("stat");
    const uint64_t want = before->version + 1;
    std::atomic<bool> go{false};
    Clock::time_point committed;
    std::thread w([&] {
      while (!go.load()) {
      }
      if (!writer.Set("visible", std::to_string(i)).ok()) Die("set");
      committed = Clock::now();
    });
    go.store(true);
    // The subscriber polls: each Stat is one round trip to the change
    // sequence (and the record, once it moved).
    Clock::time_point seen;
    while (true) {
      auto meta = reader.Stat("visible");
      if (meta.ok() && meta->version >= want) {
        seen = Clock::now();
        break;
      }
    }
    w.join();
    ns.push_back(seen > committed ? (seen - committed).count() : 0);
  }
  std::printf("visibility p50 %llu p99 %llu\n",
              static_cast<unsigned long long>(Percentile(ns, 0.5)),
              static_cast<unsigned long long>(Percentile(ns, 0.99)));
}

// An MCP subscriber on one machine, a writer on another (each its own
// Store and home): from the writer's Set call to the subscriber's
// notifications/resources/updated. The poll interval is a minute, so what
// is measured is the LISTEN/NOTIFY wake-up, not polling.
void Notify(const std::string& url, const std::string& home, int n) {
  auto server_store = OpenStore(url, home + "/subscriber");
  auto writer_store = OpenStore(url, home + "/writer");
  ctxkit::View writer = ViewOf(*writer_store);
  if (!writer.Set("watched", "0").ok()) Die("set");
  ctxkit::mcp::ServerOptions so;
  so.subscription_poll_ms = 60'000;
  auto server = ctxkit::mcp::Server::Create(server_store.get(), "", so);
  if (!server.ok()) Die(server.status().ToString());
  std::mutex mu;
  std::condition_variable cv;
  int notified = 0;
  Clock::time_point at;
  auto conn = (*server)->Connect({"bench", "bench"}, [&](std::string m) {
    if (m.find("notifications/resources/updated") == std::string::npos) return;
    std::lock_guard<std::mutex> lock(mu);
    at = Clock::now();
    ++notified;
    cv.notify_all();
  });
  if (!conn.ok()) Die(conn.status().ToString());
  (*conn)->Handle(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":)"
                  R"({"protocolVersion":"2025-11-25","capabilities":{}}})");
  (*conn)->Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  (*conn)->Handle(R"({"jsonrpc":"2.0","id":2,"method":"resources/subscribe",)"
                  R"("params":{"uri":"ctxkit://global/watched"}})");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::vector<uint64_t> ns;
  for (int i = 1; i <= n; ++i) {
    const Clock::time_point start = Clock::now();
    if (!writer.Set("watched", std::to_string(i)).ok()) Die("set");
    std::unique_lock<std::mutex> lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(10),
                     [&] { return notified >= i; })) {
      Die("no notification within 10 s");
    }
    ns.push_back((at - start).count());
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::printf("notify p50 %llu p99 %llu\n",
              static_cast<unsigned long long>(Percentile(ns, 0.5)),
              static_cast<unsigned long long>(Percentile(ns, 0.99)));
}

// Blocks (8 KiB pages of tables, TOAST and indexes) the server touched in
// the user tables so far, from its statistics (which a backend publishes
// when it goes idle, at most once a second).
uint64_t ServerBlocks(const std::string& url) {
  PGconn* conn = PQconnectdb(url.c_str());
  PGresult* r =
      PQexec(conn,
             "SELECT coalesce(sum(heap_blks_read + heap_blks_hit + "
             "coalesce(idx_blks_read, 0) + coalesce(idx_blks_hit, 0) + "
             "coalesce(toast_blks_read, 0) + coalesce(toast_blks_hit, 0) + "
             "coalesce(tidx_blks_read, 0) + coalesce(tidx_blks_hit, 0)), 0) "
             "FROM pg_statio_user_tables");
  if (PQresultStatus(r) != PGRES_TUPLES_OK) Die(PQresultErrorMessage(r));
  const uint64_t blocks = std::strtoull(PQgetvalue(r, 0, 0), nullptr, 10);
  PQclear(r);
  PQfinish(conn);
  return blocks;
}

void Range(const std::string& url, const std::string& home) {
  auto store = OpenStore(url, home);
  ctxkit::View view = ViewOf(*store);
  std::string big(256u << 20, '\0');
  for (size_t i = 0; i < big.size(); i += 4096) {
    std::snprintf(big.data() + i, 32, "%zu", i);
  }
  auto ref = view.Set("big", big);
  if (!ref.ok()) Die(ref.status().ToString());
  big.clear();
  big.shrink_to_fit();
  // A new instance: nothing of the value is cached in this one. Its
  // backend publishes the statistics of its open now; the read's when it
  // is idle after the read.
  auto fresh = OpenStore(url, home);
  ctxkit::View reader = ViewOf(*fresh);
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const uint64_t before = ServerBlocks(url);
  auto start = Clock::now();
  auto part = reader.ReadRange(*ref, 128u << 20, 1u << 20);
  const uint64_t ns = NanosSince(start);
  if (!part.ok() || part->size() != (1u << 20)) Die("read range");
  // An idle backend publishes what is pending within 10 s at the latest.
  std::this_thread::sleep_for(std::chrono::milliseconds(11000));
  const uint64_t touched = (ServerBlocks(url) - before) * 8192;
  std::printf("range server_bytes %llu ns %llu\n",
              static_cast<unsigned long long>(touched),
              static_cast<unsigned long long>(ns));
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if ((a.size() == 4 || a.size() == 5) && a[0] == "setget") {
    std::optional<uint64_t> count_tokens_max_bytes;
    if (a.size() == 5) count_tokens_max_bytes = std::stoull(a[4]);
    SetGet(a[1], a[2], std::atoi(a[3].c_str()), count_tokens_max_bytes);
  } else if (a.size() == 5 && a[0] == "throughput") {
    const double seconds = std::atof(a[4].c_str());
    for (bool writers : {true, false}) {
      const char* what = writers ? "writers" : "readers";
      std::printf("throughput %s postgres %llu sqlite %llu\n", what,
                  static_cast<unsigned long long>(
                      Throughput(a[1], a[2], writers, seconds)),
                  static_cast<unsigned long long>(
                      Throughput("", a[3], writers, seconds)));
    }
  } else if (a.size() == 4 && a[0] == "visibility") {
    Visibility(a[1], a[2], std::atoi(a[3].c_str()));
  } else if (a.size() == 4 && a[0] == "notify") {
    Notify(a[1], a[2], std::atoi(a[3].c_str()));
  } else if (a.size() == 3 && a[0] == "range") {
    Range(a[1], a[2]);
  } else {
    std::fprintf(stderr,
                 "usage: pg_tool setget URL HOME ROUNDS "
                 "[COUNT_TOKENS_MAX_BYTES] | throughput URL HOME "
                 "SQLITE_HOME SECONDS | visibility URL HOME N | notify URL "
                 "HOME N | range URL "
                 "HOME\n");
    return 2;
  }
  return 0;
}
