// Refs: the wire form (FormatRef/ParseRef) and refs handed out by a store.

#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr std::array<ValueType, 9> kAllTypes = {
    ValueType::kText,   ValueType::kJson,   ValueType::kMemory,
    ValueType::kResult, ValueType::kStream, ValueType::kToolcall,
    ValueType::kFile,   ValueType::kNote,   ValueType::kChat};

// A valid key of 1..max_bytes bytes: printable ASCII (':' ' ' '=' '~'
// favoured) and non-control UTF-8 of every encoded length.
std::string RandomKey(std::mt19937_64& rng, size_t max_bytes) {
  std::uniform_int_distribution<size_t> len_dist(1, max_bytes);
  size_t target = len_dist(rng);
  std::string key;
  while (true) {
    uint32_t cp;
    switch (rng() % 8) {
      case 0:
        cp = ":= ~/"[rng() % 5];
        break;
      case 1:
        cp = 0xA0 + rng() % (0x800 - 0xA0);
        break;
      case 2:
        cp = 0x800 + rng() % (0xD800 - 0x800);
        break;
      case 3:
        cp = 0xE000 + rng() % (0xFFFE - 0xE000);
        break;
      case 4:
        cp = 0x10000 + rng() % (0x110000 - 0x10000);
        break;
      default:
        cp = 0x20 + rng() % 95;  // Printable ASCII.
    }
    std::string enc;
    AppendUtf8(cp, &enc);
    if (key.size() + enc.size() > target) break;
    key += enc;
  }
  if (key.empty()) key = "k";
  return key;
}

std::string RandomScopeId(std::mt19937_64& rng, size_t max_len) {
  static constexpr char kChars[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-";
  size_t len = 1 + rng() % max_len;
  std::string id;
  for (size_t i = 0; i < len; ++i) id.push_back(kChars[rng() % 65]);
  return id;
}

std::string Base36(uint64_t n) {
  static constexpr char kDigits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::string out;
  do {
    out.insert(out.begin(), kDigits[n % 36]);
    n /= 36;
  } while (n);
  return out;
}

Ref RandomRef(std::mt19937_64& rng) {
  Ref r;
  r.id = Base36(1 + rng() % (uint64_t{1} << 40));
  r.key = RandomKey(rng, 256);
  switch (rng() % 3) {
    case 0:
      r.scope = Scope::Global();
      break;
    case 1:
      r.scope = Scope::Agent(RandomScopeId(rng, 64));
      break;
    default:
      r.scope = Scope::Session(RandomScopeId(rng, 64));
  }
  r.type = kAllTypes[rng() % kAllTypes.size()];
  r.size_bytes = rng() % 4 == 0 ? 0 : rng() % (uint64_t{1} << 40);
  r.version = rng() % 3 == 0 ? 0 : 1 + rng() % 100000;
  if (rng() % 2 == 0) {
    constexpr std::string_view kAlphabet =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    for (size_t i = 0; i < kRefTagChars; ++i) {
      r.tag += kAlphabet[rng() % kAlphabet.size()];
    }
  }
  return r;
}

std::string Describe(const Ref& r) {
  return "{id=" + r.id + " key=" + r.key + " scope=" + r.scope.ToString() +
         " type=" + std::string(ValueTypeName(r.type)) +
         " size=" + std::to_string(r.size_bytes) +
         " version=" + std::to_string(r.version) + "}";
}

// ---------------------------------------------------------------------------
// Pure wire form.

TEST(RefWireTest, DocumentedExampleParses) {
  ASSERT_OK_AND_ASSIGN(Ref r,
                       ParseRef("ck:2s:3:t:14729:a=reviewer:notes/auth"));
  EXPECT_EQ(r.id, "2s");
  EXPECT_EQ(r.version, 3u);
  EXPECT_TRUE(r.is_static());
  EXPECT_FALSE(r.is_session_only());
  EXPECT_EQ(r.type, ValueType::kText);
  EXPECT_EQ(r.size_bytes, 14729u);
  EXPECT_EQ(r.scope, Scope::Agent("reviewer"));
  EXPECT_EQ(r.key, "notes/auth");
  EXPECT_EQ(FormatRef(r), "ck:2s:3:t:14729:a=reviewer:notes/auth");
}

TEST(RefWireTest, FormatMatchesDocumentedLayout) {
  Ref r;
  r.id = "1z";
  r.key = "a:b c";
  r.scope = Scope::Session("run-1");
  r.type = ValueType::kJson;
  r.size_bytes = 42;
  r.version = 0;
  EXPECT_EQ(FormatRef(r), "ck:1z:0:j:42:s=run-1:a:b c");
  r.scope = Scope::Global();
  EXPECT_EQ(FormatRef(r), "ck:1z:0:j:42:g:a:b c");
}

TEST(RefWireTest, TypeLetters) {
  const std::vector<std::pair<ValueType, char>> letters = {
      {ValueType::kText, 't'},   {ValueType::kJson, 'j'},
      {ValueType::kMemory, 'm'}, {ValueType::kResult, 'r'},
      {ValueType::kStream, 's'}, {ValueType::kToolcall, 'c'},
      {ValueType::kFile, 'f'},   {ValueType::kNote, 'n'},
      {ValueType::kChat, 'h'}};
  for (auto [type, letter] : letters) {
    std::string s = std::string("ck:5:1:") + letter + ":10:g:k";
    ASSERT_OK_AND_ASSIGN(Ref r, ParseRef(s));
    EXPECT_EQ(r.type, type) << s;
    EXPECT_EQ(FormatRef(r), s);
  }
}

TEST(RefWireTest, RoundTripPropertyOverRandomRefs) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 3000; ++i) {
    Ref r = RandomRef(rng);
    std::string wire = FormatRef(r);
    auto parsed = ParseRef(wire);
    ASSERT_TRUE(parsed.ok())
        << Describe(r) << " -> " << wire << ": " << parsed.status().ToString();
    ASSERT_EQ(*parsed, r) << Describe(r) << " -> " << wire << " -> "
                          << Describe(*parsed);
    EXPECT_EQ(FormatRef(*parsed), wire);
  }
}

TEST(RefWireTest, RoundTripAllScopesAndTypes) {
  for (ValueType type : kAllTypes) {
    for (const Scope& scope :
         {Scope::Global(), Scope::Agent("a"), Scope::Session("S.1_x-y"),
          Scope::Agent(std::string(64, 'z'))}) {
      for (uint64_t version : {uint64_t{0}, uint64_t{1}, uint64_t{9999}}) {
        Ref r{"k3",
              "dir/key: with spaces and \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
              scope,
              type,
              123456789,
              version};
        auto parsed = ParseRef(FormatRef(r));
        ASSERT_TRUE(parsed.ok()) << FormatRef(r);
        EXPECT_EQ(*parsed, r) << FormatRef(r);
      }
    }
  }
}

TEST(RefWireTest, ExtremeNumbersRoundTrip) {
  Ref r{"zzzzzzzzzzzz",
        "k",
        Scope::Global(),
        ValueType::kText,
        std::numeric_limits<uint64_t>::max(),
        std::numeric_limits<uint64_t>::max()};
  ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(FormatRef(r)));
  EXPECT_EQ(parsed, r);
}

TEST(RefWireTest, KeyIsTakenVerbatimIncludingColonsAndPrefixLookalikes) {
  for (std::string key : {":", "::", "a:", ":a", "ck:1:0:t:1:g:k", "g", "a=x",
                          " ", "  lead", "trail  ", "~", "s=1:2"}) {
    Ref r{"7", key, Scope::Agent("x"), ValueType::kNote, 3, 2};
    std::string wire = FormatRef(r);
    ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(wire));
    EXPECT_EQ(parsed.key, key) << wire;
    EXPECT_EQ(parsed, r) << wire;
  }
}

TEST(RefWireTest, MaxLengthUnderDocumentedConditions) {
  // Worst case of the documented bound: 64-byte key, 32-byte scope id,
  // 4-digit version, 10-digit size, 7 base-36 digits of id.
  for (const Scope& scope :
       {Scope::Global(), Scope::Agent(std::string(32, 'a')),
        Scope::Session(std::string(32, 's'))}) {
    for (std::string key :
         {std::string(64, 'k'),
          std::string(16, 'x') +
              std::string("\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                          "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                          "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                          "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                          "\xf0\x9f\x98\x80\xf0\x9f\x98\x80"
                          "\xf0\x9f\x98\x80\xf0\x9f\x98\x80")}) {
      ASSERT_EQ(key.size(), 64u);
      Ref r{"zzzzzzz", key, scope, ValueType::kResult, 9'999'999'999, 9999};
      EXPECT_LE(FormatRef(r).size(), 128u) << FormatRef(r);
      r.tag = std::string(kRefTagChars, 'Q');
      EXPECT_LE(FormatRef(r).size(), 145u) << FormatRef(r);
    }
  }
}

TEST(RefWireTest, MalformedStringsAreInvalidArgument) {
  const std::vector<std::string> bad = {
      "",
      "ck",
      "ck:",
      "ck:2s",
      "ck:2s:3:t:14729:a=reviewer",   // No key field.
      "ck:2s:3:t:14729:a=reviewer:",  // Empty key.
      "xk:2s:3:t:14729:g:k",          // Wrong magic.
      "CK:2s:3:t:14729:g:k",
      " ck:2s:3:t:14729:g:k",
      "ck::3:t:14729:g:k",                      // Empty id.
      "ck:2s::t:14729:g:k",                     // Empty version.
      "ck:2s:x:t:14729:g:k",                    // Non-decimal version.
      "ck:2s:-1:t:14729:g:k",                   // Negative version.
      "ck:2s:+1:t:14729:g:k",                   // Signed version.
      "ck:2s: 1:t:14729:g:k",                   // Space in version.
      "ck:2s:99999999999999999999999:t:1:g:k",  // Version overflow.
      "ck:2s:3::14729:g:k",                     // Empty type.
      "ck:2s:3:x:14729:g:k",                    // Unknown type letter.
      "ck:2s:3:tt:14729:g:k",                   // Two-letter type.
      "ck:2s:3:T:14729:g:k",
      "ck:2s:3:t::g:k",     // Empty size.
      "ck:2s:3:t:12a:g:k",  // Non-decimal size.
      "ck:2s:3:t:-5:g:k",
      "ck:2s:3:t:184467440737095516160:g:k",  // Size overflow.
      "ck:2s:3:t:1::k",                       // Empty scope.
      "ck:2s:3:t:1:x:k",                      // Unknown scope.
      "ck:2s:3:t:1:global:k",
      "ck:2s:3:t:1:a=:k",                              // Empty agent id.
      "ck:2s:3:t:1:s=:k",                              // Empty session id.
      "ck:2s:3:t:1:a:k",                               // Agent without '='.
      "ck:2s:3:t:1:a=bad id:k",                        // Space in scope id.
      "ck:2s:3:t:1:a=bad/id:k",                        // '/' in scope id.
      "ck:2s:3:t:1:a=" + std::string(65, 'a') + ":k",  // Scope id too long.
      "ck:2s:3:t:1:g:bad\nkey",  // Control character in key.
      "ck:2s:3:t:1:g:bad\x01key",
      std::string("ck:2s:3:t:1:g:nul\0key", 21),  // NUL in key.
      "ck:2s:3:t:1:g:\xff\xfe",                   // Invalid UTF-8 key.
      "ck:2s:3:t:1:g:\xc0\xaf",                   // Overlong encoding.
      "ck:2s:3:t:1:g:" + std::string(257, 'k'),   // Key too long.
      "ck:2s:3:t:1:g:k\n",                        // Trailing newline.
  };
  for (const std::string& s : bad) {
    auto r = ParseRef(s);
    EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument))
        << "accepted malformed ref: \"" << s << "\"";
  }
}

// For every string that parses, FormatRef gives the same string back: so
// refs have exactly one spelling (no leading zeros, no alternative forms).
TEST(RefWireTest, EveryParsableStringFormatsBackIdentically) {
  std::mt19937_64 rng(7);
  const std::string alphabet = ":0123456789azt~.=gs- \x01\xc3";
  int parsed_count = 0;
  std::vector<std::string> seeds = {"ck:2s:3:t:14729:a=reviewer:notes/auth",
                                    "ck:1:0:j:0:g:k",
                                    "ck:zz:10:s:100:s=run-1:a:b"};
  // A few hand-picked alternative spellings first.
  for (std::string s :
       {"ck:02s:3:t:1:g:k", "ck:2s:03:t:1:g:k", "ck:2s:3:t:01:g:k",
        "ck:2S:3:t:1:g:k", "ck:2s:00:t:1:g:k", "ck:0:0:t:1:g:k"}) {
    auto r = ParseRef(s);
    if (r.ok()) {
      EXPECT_EQ(FormatRef(*r), s) << "parse∘format is not identity";
    }
  }
  for (int i = 0; i < 20000; ++i) {
    std::string s = seeds[rng() % seeds.size()];
    int edits = 1 + rng() % 3;
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % (s.size() + 1);
      char c = alphabet[rng() % alphabet.size()];
      switch (rng() % 3) {
        case 0:
          s.insert(s.begin() + static_cast<ptrdiff_t>(pos), c);
          break;
        case 1:
          if (pos < s.size()) s.erase(pos, 1);
          break;
        default:
          if (pos < s.size()) s[pos] = c;
      }
    }
    auto r = ParseRef(s);
    if (!r.ok()) {
      EXPECT_THAT(r, StatusIs(StatusCode::kInvalidArgument)) << s;
      continue;
    }
    ++parsed_count;
    ASSERT_EQ(FormatRef(*r), s)
        << "parse∘format is not identity for \"" << s << "\"";
  }
  EXPECT_GT(parsed_count, 100);  // The mutations do keep many valid.
}

// ---------------------------------------------------------------------------
// Refs handed out by a store.

class StoreRefTest : public StoreTest {};

TEST_F(StoreRefTest, SetReturnsStaticRefWithMetadata) {
  SetOptions o;
  o.type = ValueType::kMemory;
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("doc", "hello world", o));
  EXPECT_FALSE(r.id.empty());
  EXPECT_EQ(r.key, "doc");
  EXPECT_EQ(r.scope, Scope::Global());
  EXPECT_EQ(r.type, ValueType::kMemory);
  EXPECT_EQ(r.size_bytes, 11u);
  EXPECT_EQ(r.version, 1u);
  EXPECT_TRUE(r.is_static());
  EXPECT_FALSE(r.is_session_only());
  for (char c : r.id) {
    EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'))
        << "persistent ids are base-36: " << r.id;
  }
}

TEST_F(StoreRefTest, RefOfIsMetadataOnlyAndMatchesSet) {
  ASSERT_OK_AND_ASSIGN(Ref set_ref, view().Set("k", "abc"));
  ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("k"));
  EXPECT_EQ(r, set_ref.Dynamic());
  ASSERT_OK_AND_ASSIGN(Ref again, view().Set("k", "abcdef"));
  EXPECT_EQ(again.id, set_ref.id);
  EXPECT_EQ(again.size_bytes, 6u);
  LookupOptions lo;
  lo.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("k", lo));
  EXPECT_TRUE(pinned.is_static());
  EXPECT_EQ(pinned.version, 1u);
  EXPECT_EQ(pinned.size_bytes, 3u);
  EXPECT_EQ(pinned.id, set_ref.id);
}

TEST_F(StoreRefTest, RefOfErrors) {
  EXPECT_THAT(view().RefOf("missing"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().RefOf(""), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_OK(view().Set("k", "v"));
  LookupOptions lo;
  lo.version = 2;
  EXPECT_THAT(view().RefOf("k", lo), StatusIs(StatusCode::kNotFound));
  lo.version = 0;
  lo.scope = "agent:mallory";
  EXPECT_THAT(view().RefOf("k", lo), StatusIs(StatusCode::kPermissionDenied));
  lo.scope = "nonsense";
  EXPECT_THAT(view().RefOf("k", lo), StatusIs(StatusCode::kInvalidArgument));
}

TEST_F(StoreRefTest, DistinctObjectsHaveDistinctIds) {
  std::set<std::string> ids;
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK_AND_ASSIGN(Ref r, view().Set("k" + std::to_string(i), "v"));
    EXPECT_TRUE(ids.insert(r.id).second) << "duplicate id " << r.id;
  }
  // Same key in another scope is another object.
  SetOptions o;
  o.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("k0", "v", o));
  EXPECT_TRUE(ids.insert(r.id).second);
}

TEST_F(StoreRefTest, StoreRefsStayWithin145BytesFor64ByteKeys) {
  auto v = store_->OpenView(std::string(32, 'A'), std::string(32, 'S'));
  ASSERT_OK(v);
  std::string key = std::string(60, 'k') + "\xf0\x9f\x98\x80";
  ASSERT_EQ(key.size(), 64u);
  for (std::string scope : {"", "agent", "session"}) {
    SetOptions o;
    o.scope = scope;
    o.type = ValueType::kResult;
    ASSERT_OK_AND_ASSIGN(Ref r, v->Set(key, std::string(100000, 'x'), o));
    EXPECT_EQ(r.tag.size(), kRefTagChars) << FormatRef(r);
    EXPECT_LE(FormatRef(r).size(), 145u) << FormatRef(r);
    LookupOptions lo;
    lo.scope = scope.empty() ? "global" : scope;
    lo.version = 1;
    ASSERT_OK_AND_ASSIGN(Ref pinned, v->RefOf(key, lo));
    EXPECT_LE(FormatRef(pinned).size(), 145u) << FormatRef(pinned);
    o.persist = false;
    std::string tmp_key = std::string(59, 'k') + "T\xf0\x9f\x98\x80";
    ASSERT_EQ(tmp_key.size(), 64u);
    ASSERT_OK_AND_ASSIGN(Ref tmp, v->Set(tmp_key, "x", o));
    EXPECT_TRUE(tmp.is_session_only()) << FormatRef(tmp);
    EXPECT_LE(FormatRef(tmp).size(), 145u + 4) << FormatRef(tmp);
  }
}

TEST_F(StoreRefTest, StoreRefsRoundTripThroughWireForm) {
  SetOptions o;
  o.scope = "agent";
  o.type = ValueType::kJson;
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("cfg: main \xc3\xa9", "[1,2]", o));
  ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(FormatRef(r)));
  EXPECT_EQ(parsed, r);
  o.persist = false;
  o.scope = "session";
  ASSERT_OK_AND_ASSIGN(Ref tmp, view().Set("tmp:1", "{}", o));
  EXPECT_TRUE(tmp.is_session_only());
  ASSERT_OK_AND_ASSIGN(Ref tmp_parsed, ParseRef(FormatRef(tmp)));
  EXPECT_EQ(tmp_parsed, tmp);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Resolve(tmp_parsed));
  EXPECT_EQ(v, "{}");
}

TEST_F(StoreRefTest, RefFromOneInstanceResolvesInAnother) {
  ASSERT_OK(view().Set("shared", "v1"));
  ASSERT_OK(view().Set("shared", "v2"));
  ASSERT_OK_AND_ASSIGN(Ref dyn, view().RefOf("shared"));
  LookupOptions lo;
  lo.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("shared", lo));
  std::string dyn_wire = FormatRef(dyn);
  std::string pinned_wire = FormatRef(pinned);

  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_NE(second, nullptr);
  auto other = second->OpenView("bob", "");
  ASSERT_OK(other);
  ASSERT_OK_AND_ASSIGN(Ref d, ParseRef(dyn_wire));
  ASSERT_OK_AND_ASSIGN(Ref p, ParseRef(pinned_wire));
  ASSERT_OK_AND_ASSIGN(std::string dv, other->Resolve(d));
  ASSERT_OK_AND_ASSIGN(std::string pv, other->Resolve(p));
  EXPECT_EQ(dv, "v2");
  EXPECT_EQ(pv, "v1");
  // A write through the second instance is seen by a dynamic ref resolved
  // in the first.
  ASSERT_OK(other->Set("shared", "v3"));
  ASSERT_OK_AND_ASSIGN(std::string latest, view().Resolve(dyn));
  EXPECT_EQ(latest, "v3");
}

TEST_F(StoreRefTest, RefFromAnotherStoreIsNotFoundNeverAnotherValue) {
  ASSERT_OK_AND_ASSIGN(Ref mine, view().Set("alpha", "alpha-value"));
  TempDir other_dir;
  auto other = Store::Open(OptionsFor(other_dir.path() + "/home"));
  ASSERT_OK(other);
  auto ov = (*other)->OpenView("alice", "s1");
  ASSERT_OK(ov);
  ASSERT_OK_AND_ASSIGN(Ref theirs, ov->Set("beta", "beta-value"));
  // Ids are small sequential numbers in both stores: they may collide.
  auto r = ov->Resolve(mine);
  EXPECT_THAT(r, StatusIs(StatusCode::kNotFound))
      << "resolved to: " << (r.ok() ? *r : "");
  auto r2 = view().Resolve(theirs);
  EXPECT_THAT(r2, StatusIs(StatusCode::kNotFound))
      << "resolved to: " << (r2.ok() ? *r2 : "");
}

// store.h: Resolve is "NotFound when ... the ref belongs to another
// store". Two fresh stores both give their first object the same small id;
// with the same key too, only something store-specific can tell them apart.
TEST_F(StoreRefTest, RefFromAnotherStoreWithTheSameKeyIsNotFound) {
  ASSERT_OK_AND_ASSIGN(Ref mine, view().Set("report", "store one's report"));
  TempDir other_dir;
  auto other = Store::Open(OptionsFor(other_dir.path() + "/home"));
  ASSERT_OK(other);
  auto ov = (*other)->OpenView("alice", "s1");
  ASSERT_OK(ov);
  ASSERT_OK_AND_ASSIGN(Ref theirs, ov->Set("report", "store two"));
  auto r = ov->Resolve(mine);
  EXPECT_THAT(r, StatusIs(StatusCode::kNotFound))
      << "a ref from store one resolved in store two to: " << (r.ok() ? *r : "")
      << " (ids " << mine.id << " / " << theirs.id << ")";
}

TEST_F(StoreRefTest, ResolveUnknownIdsAndVersions) {
  ASSERT_OK_AND_ASSIGN(Ref r, view().Set("k", "v"));
  Ref unknown = r;
  unknown.id = "zzzzzz";
  EXPECT_THAT(view().Resolve(unknown), StatusIs(StatusCode::kNotFound));
  Ref future = r;
  future.version = 2;
  EXPECT_THAT(view().Resolve(future), StatusIs(StatusCode::kNotFound));
  Ref unknown_session = r;
  unknown_session.id = "~nosuchproc.1";
  auto u = view().Resolve(unknown_session);
  EXPECT_FALSE(u.ok());
  EXPECT_THAT(u, Not(StatusIs(StatusCode::kInternal)));
}

TEST_F(StoreRefTest, ReadRangeOnPlainValues) {
  std::string value = RandomBytes(3, 200000);  // Blob-backed.
  ASSERT_OK_AND_ASSIGN(Ref big, view().Set("big", value));
  ASSERT_OK_AND_ASSIGN(Ref small, view().Set("small", "0123456789"));
  struct Case {
    uint64_t off, len;
  };
  for (Case c : std::vector<Case>{{0, 10},
                                  {0, 0},
                                  {5, 3},
                                  {65535, 2},
                                  {65536, 70000},
                                  {199990, 100},
                                  {200000, 1},
                                  {300000, 5},
                                  {1, std::numeric_limits<uint64_t>::max()}}) {
    ASSERT_OK_AND_ASSIGN(std::string got, view().ReadRange(big, c.off, c.len));
    std::string want = c.off >= value.size() ? "" : value.substr(c.off, c.len);
    EXPECT_EQ(got, want) << "offset " << c.off << " length " << c.len;
    ASSERT_OK_AND_ASSIGN(std::string s, view().ReadRange(small, c.off, c.len));
    std::string sw =
        c.off >= 10 ? "" : std::string("0123456789").substr(c.off, c.len);
    EXPECT_EQ(s, sw) << "offset " << c.off << " length " << c.len;
  }
  Ref gone = small;
  gone.id = "zzzzzz";
  EXPECT_THAT(view().ReadRange(gone, 0, 1), StatusIs(StatusCode::kNotFound));
}

TEST_F(StoreRefTest, ErrorMessagesNeverCarryTheValue) {
  SetOptions o;
  o.scope = "agent";
  ASSERT_OK(view().Set("secret", "TOP-SECRET-VALUE-123", o));
  View bob = MakeView("bob", "");
  LookupOptions lo;
  lo.scope = "agent:alice";
  auto r = bob.Get("secret", lo);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), Not(HasSubstr("TOP-SECRET")));
}

}  // namespace
}  // namespace ctxkit::testing
