// The transport's pure rules: loopback binds, Host/Origin checks, bearer
// tokens, and how a POST body is classified before it reaches the core.

#include "mcp/http_security.h"

#include <gtest/gtest.h>

#include <cctype>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "mcp/http_message.h"
#include "mcp/http_session.h"
#include "text/json_parse.h"

namespace ctxkit::mcp {
namespace {

TEST(HttpSecurityTest, LoopbackBinds) {
  for (const char* a :
       {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"}) {
    EXPECT_TRUE(IsLoopbackBind(a)) << a;
  }
  for (const char* a : {"0.0.0.0", "::", "192.168.1.5", "10.0.0.1",
                        "example.com", "", "128.0.0.1"}) {
    EXPECT_FALSE(IsLoopbackBind(a)) << a;
  }
}

TEST(HttpSecurityTest, HostOfAuthority) {
  EXPECT_EQ(HostOfAuthority("localhost:8765"), "localhost");
  EXPECT_EQ(HostOfAuthority("LocalHost"), "localhost");
  EXPECT_EQ(HostOfAuthority("[::1]:80"), "[::1]");
  EXPECT_EQ(HostOfAuthority("[::1]"), "[::1]");
  EXPECT_EQ(HostOfAuthority("127.0.0.1"), "127.0.0.1");
  for (const char* bad : {"", ":80", "host:", "host:port", "host:123456",
                          "[::1", "[::1]x", "user@localhost", "a b", "::1"}) {
    EXPECT_EQ(HostOfAuthority(bad), "") << bad;
  }
}

TEST(HttpSecurityTest, OriginsAndHosts) {
  OriginPolicy p({"https://App.Example:8443/"});
  EXPECT_TRUE(p.OriginAllowed("http://localhost:3000"));
  EXPECT_TRUE(p.OriginAllowed("http://127.0.0.1"));
  EXPECT_TRUE(p.OriginAllowed("https://[::1]:1"));
  EXPECT_TRUE(p.OriginAllowed("https://app.example:8443"));
  EXPECT_FALSE(p.OriginAllowed("https://app.example"));      // Other port.
  EXPECT_FALSE(p.OriginAllowed("http://app.example:8443"));  // Scheme.
  EXPECT_FALSE(p.OriginAllowed("http://evil.example.com"));
  EXPECT_FALSE(p.OriginAllowed("http://localhost.evil.com"));
  EXPECT_FALSE(p.OriginAllowed("null"));
  EXPECT_FALSE(p.OriginAllowed("file://"));
  EXPECT_FALSE(p.OriginAllowed("http://localhost/path"));
  EXPECT_TRUE(p.HostAllowed("localhost:8765"));
  EXPECT_TRUE(p.HostAllowed("127.0.0.1:1"));
  EXPECT_TRUE(p.HostAllowed("app.example"));
  EXPECT_FALSE(p.HostAllowed("evil.example.com"));
  EXPECT_FALSE(p.HostAllowed(""));
  OriginPolicy none({});
  EXPECT_FALSE(none.OriginAllowed("https://app.example:8443"));
  EXPECT_FALSE(none.HostAllowed("app.example"));
}

TEST(HttpSecurityTest, BearerTokens) {
  EXPECT_TRUE(BearerTokenMatches("Bearer s3cret", "s3cret"));
  EXPECT_TRUE(BearerTokenMatches("bearer s3cret", "s3cret"));
  EXPECT_TRUE(BearerTokenMatches("Bearer   s3cret ", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cre", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer s3cretx", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Basic s3cret", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("s3cret", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("", "s3cret"));
  EXPECT_FALSE(BearerTokenMatches("Bearer ", ""));
}

// nlohmann's parsers stop at a NUL byte as at the end of the input, so a
// message with one followed by anything was classified by its prefix (found
// by the json_rpc fuzzer): a raw NUL makes it malformed.
TEST(HttpSecurityTest, HeaderValuesWithControlBytesAreNotClean) {
  using namespace std::string_literals;
  EXPECT_TRUE(HeaderValueIsClean("0123abcd"));
  EXPECT_TRUE(HeaderValueIsClean("text/event-stream;\tq=1"));
  EXPECT_TRUE(HeaderValueIsClean(""));
  EXPECT_TRUE(HeaderValueIsClean("caf\xc3\xa9"));  // obs-text is not control.
  for (const std::string& bad :
       {"0123abcd\0junk"s, "a\rb"s, "a\nb"s, "\x01"s, "a\x7f"s, "\x1f"s}) {
    EXPECT_FALSE(HeaderValueIsClean(bad)) << bad.size();
  }
}

// The raw head shows what httplib's parse hides: an empty Origin (dropped,
// so it passed for none), a line ending in a bare LF (skipped), "Name :"
// and folded lines (misfiled or dropped), control bytes.
TEST(HttpSecurityTest, RequestHeadsHidingHeadersAreRefused) {
  using namespace std::string_literals;
  const std::string line = "POST /mcp HTTP/1.1\r\n";
  const std::string host = "Host: 127.0.0.1:8080\r\n";
  EXPECT_EQ(RequestHeadProblem(line + host + "\r\n"), "");
  EXPECT_EQ(RequestHeadProblem(line + host + "Origin: http://localhost\r\n" +
                               "Accept: */*\r\nX-Empty:\r\n\r\n"),
            "");
  EXPECT_EQ(RequestHeadProblem(line + "\r\n"), "");
  struct Case {
    std::string head;
    std::string says;
  };
  for (const Case& c : std::initializer_list<Case>{
           {line + host + "Origin:\r\n\r\n", "header Origin is empty"},
           {line + host + "origin:  \t \r\n\r\n", "header origin is empty"},
           {line + "Host:\r\n\r\n", "header Host is empty"},
           {line + host + "Authorization: \r\n\r\n", "is empty"},
           {line + host + "Mcp-Session-Id:\r\n\r\n", "is empty"},
           {line + host + "Origin: http://evil.example\nX: y\r\n\r\n",
            "does not end in CRLF"},
           {line + host + "Origin : http://evil.example\r\n\r\n",
            "header name"},
           {line + host + "Origin: http://localhost\r\n evil\r\n\r\n",
            "not 'name: value'"},
           {line + host + "Origin: http://localhost\r\n\tX: evil\r\n\r\n",
            "header name"},
           {line + host + "no colon\r\n\r\n", "not 'name: value'"},
           {line + host + ": value\r\n\r\n", "not 'name: value'"},
           {line + host + "Mcp-Session-Id: ab\0junk\r\n\r\n"s,
            "header Mcp-Session-Id holds a control byte"},
           {line + host + "X-Any: a\x01b\r\n\r\n", "control byte"},
           {"POST /mcp\0 HTTP/1.1\r\n"s + host + "\r\n",
            "request line holds a control byte"},
           {line + host, "cut short"},
           {line + host + "\r", "cut short"},
       }) {
    EXPECT_NE(RequestHeadProblem(c.head).find(c.says), std::string::npos)
        << "'" << RequestHeadProblem(c.head) << "' for " << c.head;
  }
}

TEST(HttpMessageTest, RawNulByteIsMalformed) {
  using namespace std::string_literals;
  const std::string request =
      R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"s;
  EXPECT_EQ(ClassifyMessage(request).kind, MessageKind::kRequest);
  for (const std::string& body :
       {request + "\0junk"s, "9\0[[["s, "{\"a\":\"x\0y\"}"s}) {
    EXPECT_EQ(ClassifyMessage(body).kind, MessageKind::kMalformed)
        << body.size();
    EXPECT_TRUE(text::ParseJsonOrDiscarded(body).is_discarded());
    Status s = text::CheckJson(body, "the body");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("NUL byte"), std::string::npos) << s.ToString();
    EXPECT_FALSE(text::ParseJson(body, "the body").ok());
  }
  // Escaped, a NUL is fine.
  EXPECT_TRUE(text::CheckJson(R"({"a":"x\u0000y"})", "the body").ok());
}

TEST(HttpMessageTest, Classifies) {
  MessageInfo m = ClassifyMessage(
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"method":"x"}})");
  EXPECT_EQ(m.kind, MessageKind::kRequest);
  EXPECT_EQ(m.method, "initialize");
  m = ClassifyMessage(
      R"({"params":{"id":3},"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(m.kind, MessageKind::kNotification);
  EXPECT_EQ(m.method, "notifications/initialized");
  EXPECT_EQ(ClassifyMessage(R"({"jsonrpc":"2.0","id":4,"result":{}})").kind,
            MessageKind::kResponse);
  EXPECT_EQ(ClassifyMessage(R"({"jsonrpc":"2.0","id":)").kind,
            MessageKind::kMalformed);
  EXPECT_EQ(ClassifyMessage("").kind, MessageKind::kMalformed);
  EXPECT_EQ(ClassifyMessage(R"({"a":1} {"b":2})").kind,
            MessageKind::kMalformed);
  EXPECT_EQ(
      ClassifyMessage(R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])").kind,
      MessageKind::kNotAnObject);
  EXPECT_EQ(ClassifyMessage("42").kind, MessageKind::kNotAnObject);
  std::string deep(kMaxJsonDepth + 1, '[');
  deep += std::string(kMaxJsonDepth + 1, ']');
  EXPECT_EQ(ClassifyMessage(R"({"x":)" + deep + "}").kind,
            MessageKind::kTooDeep);
}

TEST(HttpSessionTest, IdsAreRandomSignedDatedAndBindingsHideThem) {
  constexpr int64_t kNow = 1'795'000'000;
  constexpr std::chrono::seconds kWeek{7 * 24 * 3600};
  SessionIds ids(std::string(32, 'k'), kWeek);
  Result<std::string> a = ids.New(kNow);
  Result<std::string> b = ids.New(kNow);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 72u);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(a->find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_TRUE(ids.Issued(*a, kNow));
  // Same key on another server.
  EXPECT_TRUE(SessionIds(std::string(32, 'k'), kWeek).Issued(*a, kNow));
  EXPECT_FALSE(SessionIds(std::string(32, 'x'), kWeek).Issued(*a, kNow));
  // Good for max_age, with some clock difference between servers.
  EXPECT_TRUE(ids.Issued(*a, kNow + kWeek.count()));
  EXPECT_FALSE(ids.Issued(*a, kNow + kWeek.count() + 1));
  EXPECT_TRUE(ids.Issued(*a, kNow - 60));
  EXPECT_FALSE(ids.Issued(*a, kNow - 3600));
  std::string forged = *a;
  forged[5] = forged[5] == '0' ? '1' : '0';  // The random part changed.
  EXPECT_FALSE(ids.Issued(forged, kNow));
  forged = *a;
  forged[33] = forged[33] == '0' ? '1' : '0';  // The issue time changed.
  EXPECT_FALSE(ids.Issued(forged, kNow));
  forged = *a;
  forged.back() = forged.back() == '0' ? '1' : '0';  // The tag changed.
  EXPECT_FALSE(ids.Issued(forged, kNow));
  EXPECT_FALSE(ids.Issued(a->substr(0, 64), kNow));
  EXPECT_FALSE(ids.Issued("", kNow));
  std::string upper = *a;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  ASSERT_NE(upper, *a);  // 72 hex digits hold a letter (p > 1 - 1e-13).
  EXPECT_FALSE(ids.Issued(upper, kNow));

  ClientBinding ba = BindingFor(*a);
  EXPECT_EQ(ba.agent.size(), 20u);
  EXPECT_EQ(ba.agent.rfind("mcp-", 0), 0u);
  EXPECT_EQ(ba.agent, ba.session);
  EXPECT_EQ(a->find(ba.agent.substr(4)), std::string::npos);
  EXPECT_NE(BindingFor(*b).agent, ba.agent);
  EXPECT_EQ(BindingFor(*a).agent, ba.agent);  // Stable.
}

TEST(HttpSessionTest, OutboxStreamsAndReplacement) {
  Outbox box;
  box.Push(R"({"a":1})");
  uint64_t g1 = box.OpenStream();
  std::string out;
  EXPECT_EQ(box.Take(g1, std::chrono::milliseconds(10), &out),
            Outbox::Wait::kMessages);
  EXPECT_EQ(out, "event: message\ndata: {\"a\":1}\n\n");
  out.clear();
  EXPECT_EQ(box.Take(g1, std::chrono::milliseconds(10), &out),
            Outbox::Wait::kIdle);
  uint64_t g2 = box.OpenStream();  // A reconnect replaces the old stream.
  EXPECT_EQ(box.Take(g1, std::chrono::milliseconds(10), &out),
            Outbox::Wait::kEnded);
  box.EndStream(g1);  // The old stream's end leaves the new one open.
  EXPECT_TRUE(box.HasStream());
  for (size_t i = 0; i < Outbox::kMaxPending + 5; ++i) {
    box.Push(std::to_string(i));
  }
  EXPECT_EQ(box.Take(g2, std::chrono::milliseconds(10), &out),
            Outbox::Wait::kMessages);
  EXPECT_EQ(out.find("data: 4\n"), std::string::npos);  // Oldest dropped.
  EXPECT_NE(out.find("data: 5\n"), std::string::npos);
  box.Close();
  EXPECT_EQ(box.Take(g2, std::chrono::milliseconds(10), &out),
            Outbox::Wait::kEnded);
  EXPECT_FALSE(box.HasStream());
}

}  // namespace
}  // namespace ctxkit::mcp
