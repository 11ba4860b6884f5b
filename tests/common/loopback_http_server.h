// A tiny HTTP/1.1 server on 127.0.0.1 for tests that exercise ctxkit's HTTP
// clients for real: one thread, one request per connection, replies from a
// handler. Records every request so tests can check its shape. Header-only
// so any test folder can include "common/loopback_http_server.h".

#ifndef CTXKIT_TESTS_COMMON_LOOPBACK_HTTP_SERVER_H_
#define CTXKIT_TESTS_COMMON_LOOPBACK_HTTP_SERVER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ctxkit::testing {

class LoopbackHttpServer {
 public:
  struct Request {
    std::string request_line;  // "POST /v1/chat/completions HTTP/1.1"
    std::string headers;       // Raw header block, lower-cased.
    std::string body;
  };
  struct Reply {
    std::string status = "200 OK";
    std::string body;
    // Never answer: hold the connection until the client hangs up or the
    // server stops (about 5 s at most), to test client timeouts.
    bool hang = false;
  };
  using Handler = std::function<Reply(const Request&)>;

  explicit LoopbackHttpServer(Handler handler) : handler_(std::move(handler)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;  // Ephemeral.
    if (fd_ < 0 ||
        ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 16) != 0) {
      return;  // port() stays 0; the client's connect fails visibly.
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }

  ~LoopbackHttpServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }

  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  // The OpenAI-style base URL clients are configured with.
  std::string base_url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
  }
  std::vector<Request> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }
  size_t hits() {
    std::lock_guard lock(mu_);
    return requests_.size();
  }

 private:
  void Loop() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 20) <= 0) continue;
      int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      Serve(c);
      ::close(c);
    }
  }

  // Reads with a deadline so a silent client cannot wedge the server.
  static bool ReadSome(int c, std::string* buf) {
    pollfd p{c, POLLIN, 0};
    if (::poll(&p, 1, 2000) <= 0) return false;
    char tmp[65536];
    ssize_t n = ::read(c, tmp, sizeof tmp);
    if (n <= 0) return false;
    buf->append(tmp, static_cast<size_t>(n));
    return true;
  }

  void Serve(int c) {
    std::string buf;
    size_t end = std::string::npos;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!ReadSome(c, &buf)) return;
    }
    Request r;
    std::string head = buf.substr(0, end);
    size_t eol = head.find("\r\n");
    r.request_line = head.substr(0, eol);
    r.headers = eol == std::string::npos ? "" : head.substr(eol + 2);
    for (char& ch : r.headers) {
      ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    }
    size_t length = 0;
    size_t cl = r.headers.find("content-length:");
    if (cl != std::string::npos) {
      length = std::stoul(r.headers.substr(cl + 15));
    }
    r.body = buf.substr(end + 4);
    while (r.body.size() < length) {
      if (!ReadSome(c, &r.body)) break;
    }
    {
      std::lock_guard lock(mu_);
      requests_.push_back(r);
    }
    Reply reply = handler_(r);
    if (reply.hang) {
      for (int i = 0; i < 250 && !stop_; ++i) {
        pollfd p{c, POLLIN, 0};
        if (::poll(&p, 1, 20) > 0) {
          char tmp[256];
          if (::read(c, tmp, sizeof tmp) <= 0) return;
        }
      }
      return;
    }
    std::string out = "HTTP/1.1 " + reply.status +
                      "\r\nContent-Type: application/json\r\n"
                      "Connection: close\r\nContent-Length: " +
                      std::to_string(reply.body.size()) + "\r\n\r\n" +
                      reply.body;
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = ::write(c, out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }

  Handler handler_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<Request> requests_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_LOOPBACK_HTTP_SERVER_H_
