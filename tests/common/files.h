// Whole-file reads and writes for tests (errors show up as an empty read or
// a failed expectation on the contents, which is what a test wants).

#ifndef CTXKIT_TESTS_COMMON_FILES_H_
#define CTXKIT_TESTS_COMMON_FILES_H_

#include <fstream>
#include <sstream>
#include <string>

namespace ctxkit::testing {

// The bytes of the file at `path`; empty when it cannot be read.
inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Replaces the file at `path` with `data`.
inline void WriteAll(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << data;
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_FILES_H_
