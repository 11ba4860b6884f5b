// The demo's externalize step runs on the context-manager step's session,
// prints at most six lines and checks its own claims.

#include <iostream>
#include <string>
#include <vector>

#include "demo/demo_steps.h"
#include "externalize/externalize_fixture.h"

namespace ctxkit::testing {
namespace {

TEST_F(ExternalizeTest, DemoStep) {
  std::vector<std::string> lines;
  auto say = [&](const std::string& l) { lines.push_back(l); };
  std::string corpus;
  for (uint32_t i = 0; i < 40; ++i) {
    corpus += "warranty section " + std::to_string(i) + "\n" + Words(900, i);
  }
  ASSERT_TRUE(cli::DemoContextManager(*store_, "demo-ctx", corpus, say).ok());
  lines.clear();
  Status s = cli::DemoExternalize(*store_, "demo-ctx", corpus, say);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_GE(lines.size(), 3u);
  EXPECT_LE(lines.size(), 6u);
  std::string all;
  for (const std::string& l : lines) all += l + "\n";
  std::cout << all;  // What `ctxkit demo` prints for this step.
  EXPECT_NE(all.find("root prompt"), std::string::npos) << all;
  EXPECT_NE(all.find("% less"), std::string::npos) << all;
}

}  // namespace
}  // namespace ctxkit::testing
