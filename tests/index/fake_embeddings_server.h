// A tiny OpenAI-compatible /embeddings server on 127.0.0.1 for tests: one
// thread, one request per connection. Each input's vector is a hashed bag
// of its lower-cased words (kDim buckets), so texts sharing words are
// similar, and a test can make two different words "synonyms" by mapping
// them to one bucket. Records every request.

#ifndef CTXKIT_TESTS_INDEX_FAKE_EMBEDDINGS_SERVER_H_
#define CTXKIT_TESTS_INDEX_FAKE_EMBEDDINGS_SERVER_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace ctxkit::testing {

class FakeEmbeddingsServer {
 public:
  enum class Mode { kOk, kStatus500, kGarbage };
  static constexpr size_t kDim = 64;

  explicit FakeEmbeddingsServer(
      Mode mode, std::map<std::string, std::string> synonyms = {})
      : mode_(mode), synonyms_(std::move(synonyms)) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    if (fd_ < 0 ||
        ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 16) != 0) {
      return;
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Loop(); });
  }
  ~FakeEmbeddingsServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  FakeEmbeddingsServer(const FakeEmbeddingsServer&) = delete;
  FakeEmbeddingsServer& operator=(const FakeEmbeddingsServer&) = delete;

  std::string base_url() const {
    return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
  }
  std::vector<std::string> bodies() {
    std::lock_guard lock(mu_);
    return bodies_;
  }
  std::vector<std::string> request_lines() {
    std::lock_guard lock(mu_);
    return lines_;
  }

  std::vector<float> Vector(const std::string& text) const {
    std::vector<float> v(kDim, 0.0f);
    std::string w;
    auto flush = [&] {
      if (w.empty()) return;
      auto s = synonyms_.find(w);
      const std::string& key = s == synonyms_.end() ? w : s->second;
      v[std::hash<std::string>{}(key) % kDim] += 1.0f;
      w.clear();
    };
    for (char c : text) {
      if (std::isalnum(static_cast<unsigned char>(c))) {
        w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      } else {
        flush();
      }
    }
    flush();
    v[0] += 0.01f;  // Never all zero.
    return v;
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
  bool ReadSome(int c, std::string* buf) {
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
    size_t end;
    while ((end = buf.find("\r\n\r\n")) == std::string::npos) {
      if (!ReadSome(c, &buf)) return;
    }
    std::string head = buf.substr(0, end);
    std::string lower = head;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
    size_t length = 0;
    size_t cl = lower.find("content-length:");
    if (cl != std::string::npos) length = std::stoul(lower.substr(cl + 15));
    std::string body = buf.substr(end + 4);
    while (body.size() < length) {
      if (!ReadSome(c, &body)) break;
    }
    {
      std::lock_guard lock(mu_);
      bodies_.push_back(body);
      lines_.push_back(head.substr(0, head.find("\r\n")));
    }
    std::string status = "200 OK";
    std::string reply;
    if (mode_ == Mode::kStatus500) {
      status = "500 Internal Server Error";
      reply = R"({"error":{"message":"boom"}})";
    } else if (mode_ == Mode::kGarbage) {
      reply = "<html>not json";
    } else {
      nlohmann::json req = nlohmann::json::parse(body, nullptr, false);
      nlohmann::json data = nlohmann::json::array();
      if (req.is_object() && req["input"].is_array()) {
        for (size_t i = 0; i < req["input"].size(); ++i) {
          data.push_back(
              {{"object", "embedding"},
               {"index", i},
               {"embedding", Vector(req["input"][i].get<std::string>())}});
        }
      }
      reply = nlohmann::json{{"object", "list"}, {"data", data}}.dump();
    }
    std::string out = "HTTP/1.1 " + status +
                      "\r\nContent-Type: application/json\r\nConnection: "
                      "close\r\nContent-Length: " +
                      std::to_string(reply.size()) + "\r\n\r\n" + reply;
    size_t off = 0;
    while (off < out.size()) {
      ssize_t n = ::write(c, out.data() + off, out.size() - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }

  Mode mode_;
  std::map<std::string, std::string> synonyms_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> bodies_;
  std::vector<std::string> lines_;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_INDEX_FAKE_EMBEDDINGS_SERVER_H_
