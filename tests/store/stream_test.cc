// Streams: Append creates and extends; every append is a version whose
// content is the prefix so far; ReadRange reads byte ranges.

#include <random>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class StreamTest : public StoreTest {};

TEST_F(StreamTest, AppendCreatesAStreamAndEachAppendIsAVersion) {
  const std::vector<std::string> chunks = {"alpha\n", "", "beta\n",
                                           std::string("\0gamma\n", 7)};
  std::string all;
  std::string first_id;
  for (size_t i = 0; i < chunks.size(); ++i) {
    ASSERT_OK_AND_ASSIGN(Ref r, view().Append("log", chunks[i]));
    all += chunks[i];
    EXPECT_EQ(r.type, ValueType::kStream);
    EXPECT_EQ(r.size_bytes, all.size());
    EXPECT_EQ(r.key, "log");
    if (i == 0) first_id = r.id;
    EXPECT_EQ(r.id, first_id);
  }
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("log"));
  EXPECT_EQ(got, all);
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("log"));
  EXPECT_EQ(m.type, ValueType::kStream);
  EXPECT_EQ(m.size_bytes, all.size());
  EXPECT_EQ(m.version, chunks.size());

  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("log"));
  ASSERT_EQ(vs.size(), chunks.size());
  std::string prefix;
  for (size_t i = 0; i < chunks.size(); ++i) {
    prefix += chunks[i];
    EXPECT_EQ(vs[i].version, i + 1);
    EXPECT_EQ(vs[i].type, ValueType::kStream);
    EXPECT_EQ(vs[i].size_bytes, prefix.size()) << "version " << i + 1;
    // Documented: for streams the hash is of the appended bytes.
    EXPECT_EQ(vs[i].content_hash, Sha256Hex(chunks[i])) << "version " << i + 1;
    LookupOptions lo;
    lo.version = i + 1;
    ASSERT_OK_AND_ASSIGN(std::string v, view().Get("log", lo));
    EXPECT_EQ(v, prefix) << "version " << i + 1;
    ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("log", lo));
    ASSERT_OK_AND_ASSIGN(v, view().Resolve(pinned));
    EXPECT_EQ(v, prefix);
    // A static ref reads only its version's bytes.
    ASSERT_OK_AND_ASSIGN(v, view().ReadRange(pinned, 0, 1000));
    EXPECT_EQ(v, prefix);
  }
}

TEST_F(StreamTest, AppendInAScope) {
  SetOptions o;
  o.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref r, view().Append("mine", "x", o));
  EXPECT_EQ(r.scope, Scope::Agent("alice"));
  ASSERT_OK(view().Append("mine", "y", o));
  LookupOptions lo;
  lo.scope = "agent";
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("mine", lo));
  EXPECT_EQ(v, "xy");
  View bob = MakeView("bob", "");
  EXPECT_THAT(bob.Get("mine"), StatusIs(StatusCode::kNotFound));
  // The first append's ref pins its prefix; its Dynamic() follows the stream.
  ASSERT_OK_AND_ASSIGN(v, bob.Resolve(r));
  EXPECT_EQ(v, "x");
  ASSERT_OK_AND_ASSIGN(v, bob.Resolve(r.Dynamic()));
  EXPECT_EQ(v, "xy");
}

TEST_F(StreamTest, ReadRangeAcrossManyAppendsMatchesModel) {
  Options o = options_;
  o.inline_max_bytes = 4096;  // Force chunks of both storage kinds.
  o.durability = Durability::kProcess;
  Reopen(o);
  std::mt19937_64 rng(99);
  std::string model;
  Ref ref;
  for (int i = 0; i < 120; ++i) {
    size_t n = rng() % 3 == 0 ? 1 + rng() % 10 : 100 + rng() % 9000;
    std::string chunk = RandomBytes(1000 + i, n);
    ASSERT_OK_AND_ASSIGN(ref, view().Append("big-stream", chunk));
    model += chunk;
  }
  ASSERT_EQ(ref.size_bytes, model.size());
  for (int i = 0; i < 300; ++i) {
    uint64_t off = rng() % (model.size() + 100);
    uint64_t len = rng() % 4 == 0 ? rng() % 20 : rng() % 30000;
    ASSERT_OK_AND_ASSIGN(std::string got, view().ReadRange(ref, off, len));
    std::string want = off >= model.size() ? "" : model.substr(off, len);
    ASSERT_EQ(got.size(), want.size()) << "offset " << off << " len " << len;
    ASSERT_EQ(got, want) << "offset " << off << " len " << len;
  }
  ASSERT_OK_AND_ASSIGN(std::string whole, view().ReadRange(ref, 0, UINT64_MAX));
  EXPECT_EQ(whole, model);
  ASSERT_OK_AND_ASSIGN(std::string past,
                       view().ReadRange(ref, model.size(), 10));
  EXPECT_EQ(past, "");
  ASSERT_OK_AND_ASSIGN(past, view().ReadRange(ref, UINT64_MAX, UINT64_MAX));
  EXPECT_EQ(past, "");
  // Survives a reopen, and another instance reads the same ranges.
  Reopen(o);
  ASSERT_OK_AND_ASSIGN(std::string again, view().ReadRange(ref, 5000, 70000));
  EXPECT_EQ(again, model.substr(5000, 70000));
  ASSERT_OK_AND_ASSIGN(whole, view().Get("big-stream"));
  EXPECT_EQ(whole, model);
}

TEST_F(StreamTest, AppendToNonStreamIsFailedPrecondition) {
  ASSERT_OK(view().Set("text", "hello"));
  SetOptions json;
  json.type = ValueType::kJson;
  ASSERT_OK(view().Set("doc", "{}", json));
  std::string before = Snapshot(view());
  EXPECT_THAT(view().Append("text", "more"),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_THAT(view().Append("doc", "more"),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_EQ(Snapshot(view()), before);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("text"));
  EXPECT_EQ(v, "hello");
}

TEST_F(StreamTest, SetOnAStreamKeyEitherReplacesOrIsRefused) {
  ASSERT_OK_AND_ASSIGN(Ref r, view().Append("s", "abc"));
  ASSERT_OK(view().Append("s", "def"));
  SetOptions o;
  o.type = ValueType::kStream;
  auto set = view().Set("s", "XYZ", o);
  if (set.ok()) {
    // A new version whose whole content is the value; appends continue
    // from it; history is kept.
    EXPECT_EQ(set->id, r.id);
    ASSERT_OK_AND_ASSIGN(std::string v, view().Get("s"));
    EXPECT_EQ(v, "XYZ");
    ASSERT_OK(view().Append("s", "!"));
    ASSERT_OK_AND_ASSIGN(v, view().Get("s"));
    EXPECT_EQ(v, "XYZ!");
    LookupOptions lo;
    lo.version = 2;
    ASSERT_OK_AND_ASSIGN(v, view().Get("s", lo));
    EXPECT_EQ(v, "abcdef");
  } else {
    EXPECT_THAT(set, StatusIs(StatusCode::kFailedPrecondition));
    ASSERT_OK_AND_ASSIGN(std::string v, view().Get("s"));
    EXPECT_EQ(v, "abcdef");
  }
}

TEST_F(StreamTest, RemoveAndRecreateStream) {
  ASSERT_OK_AND_ASSIGN(Ref r, view().Append("s", "old"));
  ASSERT_OK(view().Remove("s"));
  EXPECT_THAT(view().Get("s"), StatusIs(StatusCode::kNotFound));
  // Appending after Remove revives the object with fresh content.
  ASSERT_OK_AND_ASSIGN(Ref again, view().Append("s", "new"));
  EXPECT_EQ(again.id, r.id);
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("s"));
  EXPECT_EQ(v, "new");
  LookupOptions lo;
  lo.version = 1;
  ASSERT_OK_AND_ASSIGN(v, view().Get("s", lo));
  EXPECT_EQ(v, "old");
}

TEST_F(StreamTest, SessionOnlyStream) {
  SetOptions tmp;
  tmp.persist = false;
  ASSERT_OK(view().Append("tmp-log", "a", tmp));
  ASSERT_OK_AND_ASSIGN(Ref r, view().Append("tmp-log", "b", tmp));
  EXPECT_TRUE(r.is_session_only());
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("tmp-log"));
  EXPECT_EQ(v, "ab");
  ASSERT_OK_AND_ASSIGN(v, view().ReadRange(r, 1, 5));
  EXPECT_EQ(v, "b");
  EXPECT_EQ(store_->Stats()->objects, 0u);
}

}  // namespace
}  // namespace ctxkit::testing
