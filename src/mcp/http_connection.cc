#include "mcp/http_connection.h"

#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace ctxkit::mcp {

namespace {

thread_local const RequestHead* current_head = nullptr;

// Sets the calling thread's current head for as long as it lives.
class CurrentHeadScope {
 public:
  explicit CurrentHeadScope(const RequestHead* head) { current_head = head; }
  ~CurrentHeadScope() { current_head = nullptr; }
  CurrentHeadScope(const CurrentHeadScope&) = delete;
  CurrentHeadScope& operator=(const CurrentHeadScope&) = delete;
};

int Millis(time_t sec, time_t usec) {
  const time_t ms = sec * 1000 + usec / 1000;
  return static_cast<int>(std::min<time_t>(ms, 1 << 30));
}

// poll(2) for `events` on `sock` within `timeout_ms`; > 0 when ready.
int WaitFor(int sock, short events, int timeout_ms) {
  pollfd p{sock, events, 0};
  int n;
  do {
    n = ::poll(&p, 1, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n;
}

ssize_t Receive(int sock, char* data, size_t n, int flags) {
  ssize_t got;
  do {
    got = ::recv(sock, data, n, flags);
  } while (got < 0 && errno == EINTR);
  return got;
}

// The peer has not closed the connection (httplib's is_socket_alive).
bool PeerAlive(int sock) {
  if (WaitFor(sock, POLLIN, 0) == 0) return true;
  char byte;
  return Receive(sock, &byte, 1, MSG_PEEK) > 0;
}

void AddressOf(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  auto* sa = reinterpret_cast<sockaddr*>(&addr);
  if ((peer ? ::getpeername(sock, sa, &len) : ::getsockname(sock, sa, &len)) !=
      0) {
    return;
  }
  if (addr.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    port = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  } else {
    return;
  }
  char host[NI_MAXHOST] = {};
  if (::getnameinfo(sa, len, host, sizeof host, nullptr, 0, NI_NUMERICHOST) ==
      0) {
    ip = host;
  }
}

// httplib's SocketStream (buffered reads, each read and write within the
// server's timeouts) that also keeps the request head it reads.
class HeadKeepingStream final : public httplib::Stream {
 public:
  HeadKeepingStream(int sock, int read_timeout_ms, int write_timeout_ms,
                    RequestHead* head)
      : sock_(sock),
        read_timeout_ms_(read_timeout_ms),
        write_timeout_ms_(write_timeout_ms),
        head_(head),
        buffer_(kBufferBytes) {}

  bool is_readable() const override {
    return offset_ < filled_ || WaitFor(sock_, POLLIN, read_timeout_ms_) > 0;
  }

  bool is_writable() const override {
    return WaitFor(sock_, POLLOUT, write_timeout_ms_) > 0 && PeerAlive(sock_);
  }

  ssize_t read(char* data, size_t n) override {
    const ssize_t got = ReadBuffered(data, n);
    if (got > 0) head_->Append(data, static_cast<size_t>(got));
    return got;
  }

  ssize_t write(const char* data, size_t n) override {
    if (!is_writable()) return -1;
    ssize_t sent;
    do {
      sent = ::send(sock_, data, n, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, /*peer=*/true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    AddressOf(sock_, /*peer=*/false, ip, port);
  }
  int socket() const override { return sock_; }

 private:
  static constexpr size_t kBufferBytes = 4096;

  ssize_t ReadBuffered(char* data, size_t n) {
    if (offset_ < filled_) {
      const size_t take = std::min(n, filled_ - offset_);
      std::memcpy(data, buffer_.data() + offset_, take);
      offset_ += take;
      return static_cast<ssize_t>(take);
    }
    if (!is_readable()) return -1;
    if (n >= kBufferBytes) return Receive(sock_, data, n, 0);
    offset_ = filled_ = 0;
    const ssize_t got = Receive(sock_, buffer_.data(), kBufferBytes, 0);
    if (got <= 0) return got;
    const size_t take = std::min(n, static_cast<size_t>(got));
    std::memcpy(data, buffer_.data(), take);
    offset_ = take;
    filled_ = static_cast<size_t>(got);
    return static_cast<ssize_t>(take);
  }

  const int sock_;
  const int read_timeout_ms_;
  const int write_timeout_ms_;
  RequestHead* const head_;
  std::vector<char> buffer_;
  size_t offset_ = 0;  // Next unread byte of buffer_.
  size_t filled_ = 0;  // Bytes of buffer_ received.
};

}  // namespace

void RequestHead::Append(const char* data, size_t n) {
  for (size_t i = 0; i < n && !complete && !too_large; ++i) {
    if (bytes.size() == kMaxBytes) {
      too_large = true;
      break;
    }
    bytes += data[i];
    // The blank line: a line of its own, "\r\n", after the request line.
    complete = bytes.size() >= 3 && bytes.ends_with("\n\r\n");
  }
}

const RequestHead* CurrentRequestHead() { return current_head; }

bool HeadKeepingServer::process_and_close_socket(socket_t sock) {
  const int keep_alive_ms = Millis(keep_alive_timeout_sec_, 0);
  const int read_ms = Millis(read_timeout_sec_, read_timeout_usec_);
  const int write_ms = Millis(write_timeout_sec_, write_timeout_usec_);
  bool ok = false;
  for (size_t left = keep_alive_max_count_;
       left > 0 && svr_sock_ != INVALID_SOCKET &&
       WaitFor(sock, POLLIN, keep_alive_ms) > 0;
       --left) {
    RequestHead head;
    HeadKeepingStream stream(sock, read_ms, write_ms, &head);
    CurrentHeadScope current(&head);
    bool closed = false;
    ok = process_request(stream, /*close_connection=*/left == 1, closed,
                         nullptr);
    if (!ok || closed) break;
  }
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
  return ok;
}

}  // namespace ctxkit::mcp
