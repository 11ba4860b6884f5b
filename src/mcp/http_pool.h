// The HTTP server's connection workers.
//
// cpp-httplib serves each connection on one pool thread for as long as the
// connection lives: a keep-alive client, an open event stream and a client
// sending its request head one byte at a time each hold one. With a fixed
// pool, as many slow clients as threads starved everyone else. This pool
// keeps `min_threads` and grows, one thread per waiting connection, up to
// `max_threads`, so slow clients starve no one until that many
// connections are open at once; beyond it, connections wait their turn.
// Threads never shrink below what a burst needed (they park idle).
//
// Thread safety: thread-safe (httplib calls enqueue from its accept
// thread and shutdown from its stopping thread).

#ifndef CTXKIT_MCP_HTTP_POOL_H_
#define CTXKIT_MCP_HTTP_POOL_H_

#include <httplib.h>

#include <cstddef>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "core/mutex.h"

namespace ctxkit::mcp {

class ElasticPool final : public httplib::TaskQueue {
 public:
  ElasticPool(size_t min_threads, size_t max_threads);
  ~ElasticPool() override;

  void enqueue(std::function<void()> fn) override EXCLUDES(mu_);
  // Runs what is queued, then joins every thread.
  void shutdown() override EXCLUDES(mu_);

  // Threads started so far.
  size_t threads() EXCLUDES(mu_);

 private:
  void Work() EXCLUDES(mu_);
  void StartThreadLocked() REQUIRES(mu_);

  const size_t max_threads_;
  core::Mutex mu_;
  core::CondVar work_;
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  std::vector<std::thread> threads_ GUARDED_BY(mu_);
  size_t idle_ GUARDED_BY(mu_) = 0;
  bool shutdown_ GUARDED_BY(mu_) = false;
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_HTTP_POOL_H_
