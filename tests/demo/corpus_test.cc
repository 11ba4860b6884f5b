// The demo's corpus builder: a real, deterministic document of an exact
// size from the sources and system files on the machine.

#include <gtest/gtest.h>

#include <string>

#include "demo/demo_corpus.h"

namespace ctxkit::cli {
namespace {

TEST(DemoCorpusTest, ExactSizeAndDeterministic) {
  DemoCorpus a = BuildDemoCorpus(1 << 20);
  DemoCorpus b = BuildDemoCorpus(1 << 20);
  EXPECT_EQ(a.text.size(), 1u << 20);
  EXPECT_FALSE(a.origins.empty());
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.text.find('\0'), std::string::npos);
  // The test runs from the build tree, so the sources are found.
  EXPECT_EQ(FindSourceRoot().empty(), false);
}

}  // namespace
}  // namespace ctxkit::cli
