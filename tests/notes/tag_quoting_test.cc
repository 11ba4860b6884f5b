// Note tags are strings (the spec's string[]): a tag any YAML reader could
// take for a number, a date, a boolean or null is written quoted, and every
// tag reads back as the same string.

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "notes/frontmatter.h"

namespace ctxkit::notes {
namespace {

TEST(TagQuotingTest, TagsThatLookTypedAreQuotedAndReadBackAsStrings) {
  const std::vector<std::string> typed = {
      "1.0",  "7", "0x1F", "2026-01-01", "1e3", "12:30", "true",
      "null", "~", "No",   ".inf",       "-1",  "+5"};
  NoteHeader h;
  h.agent = "a";
  h.type = "finding";
  h.timestamp = "2026-01-01T00:00:00Z";
  h.tags = typed;
  h.tags.push_back("build");
  const std::string yaml = RenderHeaderYaml(h);
  for (const std::string& t : typed) {
    EXPECT_NE(yaml.find("\"" + t + "\""), std::string::npos)
        << t << " is not quoted in:\n"
        << yaml;
  }
  EXPECT_NE(yaml.find(" build"), std::string::npos) << "plain stays plain";
  // Read back through the YAML library: tagged as plain strings ("!" for
  // quoted scalars), the same text.
  YAML::Node root = YAML::Load(yaml);
  for (size_t i = 0; i < typed.size(); ++i) {
    EXPECT_EQ(root["tags"][i].Tag(), "!") << typed[i];
    EXPECT_EQ(root["tags"][i].Scalar(), typed[i]);
  }
  NoteHeader back;
  std::vector<std::string> problems;
  ParseHeader(yaml, &back, &problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(back.tags, h.tags);
}

}  // namespace
}  // namespace ctxkit::notes
