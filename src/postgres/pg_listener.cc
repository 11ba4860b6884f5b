#include "postgres/pg_listener.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "postgres/pg_conn.h"
#include "postgres/pg_schema.h"

namespace ctxkit::storage {

namespace {

class PgCommitListener : public CommitListener {
 public:
  PgCommitListener(std::unique_ptr<PgConn> conn, int wake_fd)
      : conn_(std::move(conn)), wake_fd_(wake_fd) {}
  ~PgCommitListener() override { ::close(wake_fd_); }

  Result<bool> Wait(std::chrono::milliseconds timeout) override {
    // A lost connection is re-made here, LISTEN included (the session
    // setup).
    CTXKIT_RETURN_IF_ERROR(conn_->EnsureConnected());
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> got,
                              conn_->TakeNotifications());
      if (!got.empty()) return true;
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      pollfd fds[2] = {{conn_->Socket(), POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      const int ms = static_cast<int>(std::min<int64_t>(left.count(), 60000));
      const int n = ::poll(fds, 2, ms);
      if (n < 0 && errno != EINTR) {
        return Status::Internal("poll on the PostgreSQL listener failed");
      }
      if (n > 0 && (fds[1].revents & POLLIN) != 0) {
        uint64_t count;
        [[maybe_unused]] ssize_t r = ::read(wake_fd_, &count, sizeof count);
        return false;
      }
    }
  }

  void Interrupt() override {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t r = ::write(wake_fd_, &one, sizeof one);
  }

 private:
  const std::unique_ptr<PgConn> conn_;
  const int wake_fd_;  // An eventfd: Interrupt's signal to a Wait.
};

}  // namespace

Result<std::unique_ptr<CommitListener>> OpenPgCommitListener(
    const std::string& url) {
  // LISTEN takes an identifier, not an expression: EXECUTE builds it.
  std::string setup = "DO $ck$ BEGIN EXECUTE 'LISTEN ' || quote_ident(" +
                      PgChangeChannelSql("current_schema()") + "); END $ck$";
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<PgConn> conn,
                          PgConn::Connect(url, std::move(setup)));
  const int fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (fd < 0) return Status::Internal("eventfd failed for the listener");
  return std::unique_ptr<CommitListener>(
      new PgCommitListener(std::move(conn), fd));
}

}  // namespace ctxkit::storage
