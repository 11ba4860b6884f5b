// A raw HTTP/1.1 client over a loopback socket, so the tests control every
// header (Host, Origin, a missing Accept) and can read an event stream as it
// arrives. Header-only; for tests/mcp_http only.

#ifndef CTXKIT_TESTS_MCP_HTTP_HTTP_TEST_CLIENT_H_
#define CTXKIT_TESTS_MCP_HTTP_HTTP_TEST_CLIENT_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ctxkit::mcp::testing {

struct HttpReply {
  int status = 0;                              // 0: no complete response.
  std::map<std::string, std::string> headers;  // Lower-cased names.
  std::string body;

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? "" : it->second;
  }
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;

class HttpConn {
 public:
  explicit HttpConn(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (fd_ >= 0 &&
        ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~HttpConn() {
    if (fd_ >= 0) ::close(fd_);
  }
  HttpConn(const HttpConn&) = delete;
  HttpConn& operator=(const HttpConn&) = delete;

  bool connected() const { return fd_ >= 0; }

  // Sends a request. A Host header for 127.0.0.1:<port> and Content-Length
  // are added unless `headers` names them.
  bool Send(int port, std::string_view method, std::string_view body,
            const HeaderList& headers, std::string_view path = "/mcp") {
    std::string req =
        std::string(method) + " " + std::string(path) + " HTTP/1.1\r\n";
    bool host = false, length = false;
    for (const auto& [k, v] : headers) {
      std::string lk = Lower(k);
      host |= lk == "host";
      length |= lk == "content-length";
      req += k + ": " + v + "\r\n";
    }
    if (!host) req += "Host: 127.0.0.1:" + std::to_string(port) + "\r\n";
    if (!length && (method == "POST" || !body.empty())) {
      req += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    }
    req += "\r\n";
    // One write for small requests: two would meet Nagle's algorithm and
    // delayed ACKs and cost 40 ms each.
    if (body.size() <= 65536) return Write(req + std::string(body));
    return Write(req) && Write(body);
  }

  // Reads one whole response (Content-Length, chunked, or to EOF).
  HttpReply Read(int timeout_ms = 20000) {
    HttpReply r = ReadHead(timeout_ms);
    if (r.status == 0) return r;
    std::string te = Lower(r.Header("transfer-encoding"));
    if (te.find("chunked") != std::string::npos) {
      for (;;) {
        size_t eol;
        while ((eol = buf_.find("\r\n")) == std::string::npos) {
          if (!Fill(timeout_ms)) return Fail();
        }
        size_t size = std::stoul(buf_.substr(0, eol), nullptr, 16);
        while (buf_.size() < eol + 2 + size + 2) {
          if (!Fill(timeout_ms)) return Fail();
        }
        r.body += buf_.substr(eol + 2, size);
        buf_.erase(0, eol + 2 + size + 2);
        if (size == 0) return r;
      }
    }
    if (!r.Header("content-length").empty()) {
      size_t n = std::stoul(r.Header("content-length"));
      while (buf_.size() < n) {
        if (!Fill(timeout_ms)) return Fail();
      }
      r.body = buf_.substr(0, n);
      buf_.erase(0, n);
      return r;
    }
    if (r.status == 202 || r.status == 204) return r;
    while (Fill(timeout_ms)) {
    }
    r.body = std::move(buf_);
    buf_.clear();
    return r;
  }

  // Reads the status line and headers only (for event streams).
  HttpReply ReadHead(int timeout_ms = 20000) {
    HttpReply r;
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill(timeout_ms)) return r;
    }
    std::string head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    size_t eol = head.find("\r\n");
    std::string status_line = head.substr(0, eol);
    if (status_line.size() < 12) return r;
    r.status = std::stoi(status_line.substr(9, 3));
    size_t pos = eol == std::string::npos ? head.size() : eol + 2;
    while (pos < head.size()) {
      size_t next = head.find("\r\n", pos);
      if (next == std::string::npos) next = head.size();
      std::string line = head.substr(pos, next - pos);
      size_t colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        while (!v.empty() && v.front() == ' ') v.erase(0, 1);
        r.headers[Lower(line.substr(0, colon))] = v;
      }
      pos = next + 2;
    }
    return r;
  }

  // Raw bytes received after the head, waiting up to `timeout_ms` until
  // they contain `needle`. Returns everything read so far.
  std::string ReadUntil(std::string_view needle, int timeout_ms) {
    auto end = std::chrono::steady_clock::now() +
               std::chrono::milliseconds(timeout_ms);
    while (buf_.find(needle) == std::string::npos &&
           std::chrono::steady_clock::now() < end) {
      if (!Fill(50) && peer_closed_) break;
    }
    return buf_;
  }

  bool peer_closed() const { return peer_closed_; }

  // Sends bytes as they are (a partial or hand-made request).
  bool SendRaw(std::string_view bytes) { return Write(bytes); }

 private:
  static std::string Lower(std::string s) {
    for (char& c : s) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
  }

  bool Write(std::string_view data) {
    if (fd_ < 0) return false;
    while (!data.empty()) {
      ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  bool Fill(int timeout_ms) {
    if (fd_ < 0) return false;
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) return false;
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) {
      peer_closed_ = true;
      return false;
    }
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }

  HttpReply Fail() { return HttpReply{}; }

  int fd_ = -1;
  bool peer_closed_ = false;
  std::string buf_;
};

// One request on a fresh connection.
inline HttpReply HttpCall(int port, std::string_view method,
                          std::string_view body, const HeaderList& headers,
                          int timeout_ms = 20000) {
  HttpConn c(port);
  if (!c.connected() || !c.Send(port, method, body, headers)) return {};
  return c.Read(timeout_ms);
}

// One request for `path` (with its query) on a fresh connection.
inline HttpReply HttpCallPath(int port, std::string_view method,
                              std::string_view path,
                              const HeaderList& headers = {},
                              std::string_view body = "") {
  HttpConn c(port);
  if (!c.connected() || !c.Send(port, method, body, headers, path)) return {};
  return c.Read(20000);
}

}  // namespace ctxkit::mcp::testing

#endif  // CTXKIT_TESTS_MCP_HTTP_HTTP_TEST_CLIENT_H_
