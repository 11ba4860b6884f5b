// Whole-file reads and writes for tests (errors show up as an empty read or
// a failed expectation on the contents, which is what a test wants).

#ifndef CTXKIT_TESTS_COMMON_FILES_H_
#define CTXKIT_TESTS_COMMON_FILES_H_

#include <sys/stat.h>

#include <filesystem>
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

// Every path under `root` with its mode, size, mtime and bytes: equal
// results mean nothing under `root` was created, changed or removed.
inline std::string TreeState(const std::string& root) {
  std::string out;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator(root)) {
    struct stat st;
    if (::lstat(entry.path().c_str(), &st) != 0) continue;
    out += entry.path().string() + " " + std::to_string(st.st_mode) + " " +
           std::to_string(st.st_size) + " " +
           std::to_string(st.st_mtim.tv_sec) + "." +
           std::to_string(st.st_mtim.tv_nsec) + "\n";
    if (entry.is_regular_file()) out += ReadAll(entry.path()) + "\n";
  }
  return out;
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_FILES_H_
