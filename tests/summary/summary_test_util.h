// A temporary store per test and some generated values.

#ifndef CTXKIT_TESTS_SUMMARY_SUMMARY_TEST_UTIL_H_
#define CTXKIT_TESTS_SUMMARY_SUMMARY_TEST_UTIL_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/temp_store.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

class StoreFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir("ctxkit-sum");
    ASSERT_FALSE(dir_.empty());
    auto s = OpenTempStore(dir_);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    auto v = store_->OpenView("", "");
    ASSERT_TRUE(v.ok());
    view_.emplace(std::move(*v));
  }
  void TearDown() override {
    view_.reset();
    store_.reset();
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  Store& store() { return *store_; }
  View& view() { return *view_; }
  std::string home() const { return dir_ + "/store"; }

 private:
  std::string dir_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;
};

// `lines` log-like lines with a few rare events.
inline std::string LogText(int lines) {
  std::string out = "# Build log\n";
  for (int i = 0; i < lines; ++i) {
    if (i % 97 == 50) {
      out +=
          "ERROR: linker failed on target libfoo-" + std::to_string(i) + "\n";
    } else {
      out += "[" + std::to_string(i) + "] compiling unit " +
             std::to_string(i % 13) + " of the project ok\n";
    }
  }
  out += "build finished with status 1\n";
  return out;
}

inline std::string PythonSource() {
  return "import os\n\n"
         "class Tool:\n"
         "    def __init__(self, name):\n"
         "        self.name = name\n\n"
         "    def run(self):\n"
         "        return os.getcwd()\n\n"
         "def main():\n"
         "    Tool('x').run()\n";
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_SUMMARY_SUMMARY_TEST_UTIL_H_
