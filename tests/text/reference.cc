#include "text/reference.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace ctxkit::text_test {
namespace {

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

}  // namespace

std::string MakeTempDir() {
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / "ctxkit_tok_XXXXXX")
          .string();
  if (mkdtemp(pattern.data()) == nullptr) return "";
  return pattern;
}

Result<std::vector<std::vector<uint32_t>>> ReferenceEncode(
    std::string_view encoding, const std::vector<std::string>& inputs) {
  const std::string dir = MakeTempDir();
  if (dir.empty()) return Status::IoError("mkdtemp failed");
  std::string command = "node " +
                        ShellQuote(std::string(CTXKIT_SOURCE_DIR) +
                                   "/scripts/tokenizer/reference.mjs") +
                        " encode " + std::string(encoding);
  std::vector<std::string> paths;
  for (size_t i = 0; i < inputs.size(); ++i) {
    paths.push_back(dir + "/case" + std::to_string(i) + ".txt");
    std::ofstream(paths.back(), std::ios::binary) << inputs[i];
    command += " " + ShellQuote(paths.back());
  }
  const int rc = std::system(command.c_str());
  if (rc != 0) {
    std::filesystem::remove_all(dir);
    return Status::Unavailable(
        "reference tokenizer failed (exit " + std::to_string(rc) +
        "): is node on PATH and node_modules installed by scripts/setup.sh?");
  }
  std::vector<std::vector<uint32_t>> out;
  for (const std::string& path : paths) {
    std::ifstream in(path + ".tokens", std::ios::binary);
    std::string raw((std::istreambuf_iterator<char>(in)),
                    std::istreambuf_iterator<char>());
    std::vector<uint32_t> ids(raw.size() / 4);
    for (size_t k = 0; k < ids.size(); ++k) {
      const auto* p =
          reinterpret_cast<const unsigned char*>(raw.data()) + 4 * k;
      ids[k] = uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) |
               (uint32_t{p[3]} << 24);
    }
    out.push_back(std::move(ids));
  }
  std::filesystem::remove_all(dir);
  return out;
}

}  // namespace ctxkit::text_test
