#include "mcp/http_pool.h"

#include <algorithm>
#include <utility>

namespace ctxkit::mcp {

ElasticPool::ElasticPool(size_t min_threads, size_t max_threads)
    : max_threads_(std::max<size_t>(max_threads, 1)) {
  core::MutexLock lock(&mu_);
  const size_t start = std::clamp<size_t>(min_threads, 1, max_threads_);
  while (threads_.size() < start) StartThreadLocked();
}

ElasticPool::~ElasticPool() { shutdown(); }

void ElasticPool::StartThreadLocked() {
  threads_.emplace_back([this] { Work(); });
}

void ElasticPool::enqueue(std::function<void()> fn) {
  core::MutexLock lock(&mu_);
  jobs_.push_back(std::move(fn));
  // Every queued job beyond the idle threads gets a thread of its own,
  // while there is room.
  if (jobs_.size() > idle_ && threads_.size() < max_threads_) {
    StartThreadLocked();
  }
  work_.Signal();
}

void ElasticPool::shutdown() {
  std::vector<std::thread> threads;
  {
    core::MutexLock lock(&mu_);
    shutdown_ = true;
    threads.swap(threads_);
  }
  work_.SignalAll();
  for (std::thread& t : threads) {
    if (t.joinable()) t.join();
  }
}

size_t ElasticPool::threads() {
  core::MutexLock lock(&mu_);
  return threads_.size();
}

void ElasticPool::Work() {
  for (;;) {
    std::function<void()> fn;
    {
      core::MutexLock lock(&mu_);
      ++idle_;
      while (jobs_.empty() && !shutdown_) work_.Wait(&mu_);
      --idle_;
      if (jobs_.empty()) return;  // Shutting down, nothing left.
      fn = std::move(jobs_.front());
      jobs_.pop_front();
    }
    fn();
  }
}

}  // namespace ctxkit::mcp
