// The manifest's JSON form: round trips, and every kind of damage caught
// with a clear error instead of a wrong read.

#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/spawn.h"
#include "spawn/spawn_test_util.h"

namespace ctxkit::testing {
namespace {

Manifest Sample() {
  Manifest m;
  m.store_home = "/srv/ctxkit";
  m.prompt = "Analyze the dataset — all of it";
  m.parent_agent = "planner";
  m.parent_session = "run-42";
  m.child_agent = "planner.sub-0123456789ab";
  m.result_key = "result";
  m.prior_result = PriorResult{"2s", 3};
  m.created_unix_ns = 1700000000123456789;
  Ref r;
  r.id = "1a2b";
  r.key = "docs/big";
  r.scope = Scope::Global();
  r.type = ValueType::kJson;
  r.size_bytes = 1048576;
  r.version = 4;
  m.refs.push_back({"data", r});
  r.scope = Scope::Agent("planner");
  r.key = "notes";
  r.type = ValueType::kText;
  r.version = 1;
  r.size_bytes = 12;
  m.refs.push_back({"notes", r});
  return m;
}

nlohmann::json SampleJson() {
  return nlohmann::json::parse(FormatManifest(Sample()));
}

TEST(ManifestTest, RoundTrips) {
  Manifest m = Sample();
  std::string text = FormatManifest(m);
  EXPECT_EQ(text.back(), '\n');
  Result<Manifest> back = ParseManifest(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(FormatManifest(*back), text);
  EXPECT_EQ(back->prompt, m.prompt);
  EXPECT_EQ(back->created_unix_ns, m.created_unix_ns);
  ASSERT_TRUE(back->prior_result.has_value());
  EXPECT_EQ(back->prior_result->version, 3u);
  ASSERT_EQ(back->refs.size(), 2u);
  EXPECT_EQ(back->refs[0].ref, m.refs[0].ref);
  EXPECT_EQ(back->refs[1].ref, m.refs[1].ref);
  ASSERT_NE(back->Find("notes"), nullptr);
  EXPECT_EQ(back->Find("notes")->ref.key, "notes");
  EXPECT_EQ(back->Find("missing"), nullptr);

  m.prior_result.reset();
  m.refs.clear();
  Result<Manifest> empty = ParseManifest(FormatManifest(m));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_FALSE(empty->prior_result.has_value());
  EXPECT_TRUE(empty->refs.empty());
}

TEST(ManifestTest, DamageIsReported) {
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> damage;
    StatusCode want;
  };
  using J = nlohmann::json;
  std::vector<Case> cases = {
      {"not an object", [](J& j) { j = J::array(); }, StatusCode::kCorruption},
      {"no format", [](J& j) { j.erase("format"); },
       StatusCode::kInvalidArgument},
      {"other format", [](J& j) { j["format"] = "something-else"; },
       StatusCode::kInvalidArgument},
      {"newer version", [](J& j) { j["version"] = 2; },
       StatusCode::kInvalidArgument},
      {"version zero", [](J& j) { j["version"] = 0; },
       StatusCode::kInvalidArgument},
      {"version string", [](J& j) { j["version"] = "1"; },
       StatusCode::kCorruption},
      {"no store", [](J& j) { j.erase("store"); }, StatusCode::kCorruption},
      {"relative store", [](J& j) { j["store"] = "store"; },
       StatusCode::kCorruption},
      {"no prompt", [](J& j) { j.erase("prompt"); }, StatusCode::kCorruption},
      {"prompt number", [](J& j) { j["prompt"] = 7; }, StatusCode::kCorruption},
      {"no child", [](J& j) { j.erase("child"); }, StatusCode::kCorruption},
      {"empty child agent", [](J& j) { j["child"]["agent"] = ""; },
       StatusCode::kCorruption},
      {"bad child agent", [](J& j) { j["child"]["agent"] = "../x"; },
       StatusCode::kCorruption},
      {"bad parent session", [](J& j) { j["parent"]["session"] = "a b"; },
       StatusCode::kCorruption},
      {"result scope", [](J& j) { j["result"]["scope"] = "agent:other"; },
       StatusCode::kCorruption},
      {"result key", [](J& j) { j["result"]["key"] = ""; },
       StatusCode::kCorruption},
      {"prior", [](J& j) { j["result"]["prior"] = "x"; },
       StatusCode::kCorruption},
      {"negative time", [](J& j) { j["created_unix_ns"] = -1; },
       StatusCode::kCorruption},
      {"refs object", [](J& j) { j["refs"] = J::object(); },
       StatusCode::kCorruption},
      {"ref not object", [](J& j) { j["refs"][0] = "ck:1:1:t:1:g:x"; },
       StatusCode::kCorruption},
      {"bad name", [](J& j) { j["refs"][0]["name"] = "not valid"; },
       StatusCode::kCorruption},
      {"duplicate name", [](J& j) { j["refs"][1]["name"] = "data"; },
       StatusCode::kCorruption},
      {"bad wire ref", [](J& j) { j["refs"][0]["ref"] = "ck:nonsense"; },
       StatusCode::kCorruption},
      {"dynamic ref",
       [](J& j) {
         j["refs"][0]["ref"] = "ck:1a2b:0:j:1048576:g:docs/big";
         j["refs"][0]["version"] = 0;
       },
       StatusCode::kCorruption},
      {"size disagrees", [](J& j) { j["refs"][0]["size"] = 5; },
       StatusCode::kCorruption},
      {"type disagrees", [](J& j) { j["refs"][0]["type"] = "text"; },
       StatusCode::kCorruption},
      {"key disagrees", [](J& j) { j["refs"][0]["key"] = "docs/other"; },
       StatusCode::kCorruption},
      {"missing id", [](J& j) { j["refs"][0].erase("id"); },
       StatusCode::kCorruption},
      {"session-only ref",
       [](J& j) {
         j["refs"][0]["ref"] = "ck:~ab.1:4:j:1048576:g:docs/big";
         j["refs"][0]["id"] = "~ab.1";
       },
       StatusCode::kCorruption},
  };
  for (const Case& c : cases) {
    J j = SampleJson();
    c.damage(j);
    Result<Manifest> m = ParseManifest(j.dump());
    EXPECT_EQ(m.status().code(), c.want)
        << c.what << ": " << m.status().ToString();
  }
  EXPECT_EQ(ParseManifest("").status().code(), StatusCode::kCorruption);
  EXPECT_EQ(ParseManifest("{\"format\": ").status().code(),
            StatusCode::kCorruption);
  std::string text = FormatManifest(Sample());
  EXPECT_EQ(ParseManifest(text.substr(0, text.size() / 2)).status().code(),
            StatusCode::kCorruption);
}

TEST(ManifestTest, LoadManifestChecksTheFile) {
  char dir_template[] = "/tmp/ctxkit-manifest-XXXXXX";
  ASSERT_NE(::mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  EXPECT_EQ(LoadManifest(dir + "/none.json").status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(LoadManifest(dir).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(LoadManifest("").status().code(), StatusCode::kInvalidArgument);
  {
    std::ofstream out(dir + "/big.json");
    out << std::string(kMaxManifestBytes + 1, ' ');
  }
  EXPECT_EQ(LoadManifest(dir + "/big.json").status().code(),
            StatusCode::kCorruption);
  {
    std::ofstream out(dir + "/ok.json");
    out << FormatManifest(Sample());
  }
  Result<Manifest> ok = LoadManifest(dir + "/ok.json");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->child_agent, "planner.sub-0123456789ab");
  {
    std::ofstream out(dir + "/bad.json");
    out << "{\"format\": \"ctxkit-spawn-manifest\", \"version\": 1}";
  }
  Result<Manifest> bad = LoadManifest(dir + "/bad.json");
  EXPECT_EQ(bad.status().code(), StatusCode::kCorruption);
  EXPECT_NE(bad.status().message().find("bad.json"), std::string::npos)
      << bad.status().ToString();
  std::filesystem::remove_all(dir);
}

TEST(ManifestTest, ContextNames) {
  for (const char* good : {"data", "_x", "a1", "Data_2", "x"}) {
    EXPECT_TRUE(ValidateContextName(good).ok()) << good;
  }
  EXPECT_TRUE(ValidateContextName(std::string(64, 'n')).ok());
  for (std::string bad :
       {std::string(), std::string("1a"), std::string("a-b"),
        std::string("a.b"), std::string("a b"), std::string("é"),
        std::string("None"), std::string("class"), std::string(65, 'n')}) {
    EXPECT_EQ(ValidateContextName(bad).code(), StatusCode::kInvalidArgument)
        << bad;
  }
}

}  // namespace
}  // namespace ctxkit::testing
