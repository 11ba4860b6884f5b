#include "demo/demo_corpus.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli/io.h"
#include "cli/subprocess.h"

namespace ctxkit::cli {

namespace fs = std::filesystem;

namespace {

// Files larger than this are skipped: the corpus should mix many texts.
constexpr uintmax_t kMaxFileBytes = 1 << 20;

bool HasExtension(const fs::path& p, const std::vector<std::string>& exts) {
  std::string ext = p.extension().string();
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// Regular files under `dir` (recursively when `recursive`), sorted so the
// corpus, and so its hash, is the same on every run. Errors (a missing or
// unreadable directory) just end the walk.
std::vector<fs::path> ListFiles(const fs::path& dir, bool recursive,
                                const std::vector<std::string>& exts) {
  std::vector<fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  auto consider = [&](const fs::directory_entry& e) {
    std::error_code fec;
    if (!e.is_regular_file(fec) || fec) return;
    if (!exts.empty() && !HasExtension(e.path(), exts)) return;
    uintmax_t size = e.file_size(fec);
    if (fec || size == 0 || size > kMaxFileBytes) return;
    out.push_back(e.path());
  };
  if (recursive) {
    fs::recursive_directory_iterator it(
        dir, fs::directory_options::skip_permission_denied, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      consider(*it);
    }
  } else {
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      consider(*it);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool LooksBinary(const std::string& data) {
  return data.find('\0') != std::string::npos;
}

// Appends each readable text file with a header line; returns how many.
size_t AppendFiles(const std::vector<fs::path>& files, std::string* text,
                   size_t budget) {
  size_t used = 0;
  for (const auto& f : files) {
    if (text->size() >= budget) break;
    Result<std::string> data = ReadFile(f.string());
    if (!data.ok() || LooksBinary(*data)) continue;
    *text += "==> " + f.string() + " <==\n" + *data;
    if (text->back() != '\n') text->push_back('\n');
    ++used;
  }
  return used;
}

bool IsSourceRoot(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "include" / "ctxkit" / "store.h", ec);
}

}  // namespace

std::string FindSourceRoot() {
  std::vector<fs::path> starts;
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  if (!ec) starts.push_back(cwd);
  Result<std::string> exe = SelfExecutable();
  if (exe.ok()) starts.push_back(fs::path(*exe).parent_path());
  for (fs::path dir : starts) {
    for (int depth = 0; depth < 6 && !dir.empty(); ++depth) {
      if (IsSourceRoot(dir)) return dir.string();
      if (dir == dir.parent_path()) break;
      dir = dir.parent_path();
    }
  }
  return "";
}

DemoCorpus BuildDemoCorpus(size_t target_bytes) {
  DemoCorpus c;
  // Everything read once, then repeated: reading more than the target is
  // pointless, reading a fraction of it keeps the demo fast.
  const size_t budget = target_bytes;

  size_t n = AppendFiles(ListFiles("/usr/share/common-licenses", false, {}),
                         &c.text, budget);
  if (n > 0) c.origins.push_back("/usr/share/common-licenses");
  c.files += n;

  std::string root = FindSourceRoot();
  if (!root.empty()) {
    const std::vector<std::string> exts = {".h", ".cc", ".md", ".txt", ".sh"};
    size_t m = 0;
    for (const char* sub : {"include", "src", "docs", "tests", "scripts"}) {
      m += AppendFiles(ListFiles(fs::path(root) / sub, true, exts), &c.text,
                       budget);
    }
    if (m > 0) c.origins.push_back(root + " (ctxkit sources)");
    c.files += m;
  }

  // A machine without either (a minimal container) still has package
  // copyright files more often than not.
  if (c.text.size() < 64 * 1024) {
    std::vector<fs::path> copyrights;
    std::error_code ec;
    fs::directory_iterator it("/usr/share/doc", ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
      fs::path p = it->path() / "copyright";
      std::error_code fec;
      if (fs::is_regular_file(p, fec)) copyrights.push_back(p);
    }
    std::sort(copyrights.begin(), copyrights.end());
    size_t k = AppendFiles(copyrights, &c.text, budget);
    if (k > 0) c.origins.push_back("/usr/share/doc");
    c.files += k;
  }

  if (c.text.empty()) {
    c.origins.push_back("generated text (no readable files found)");
    for (size_t i = 0; c.text.size() < 64 * 1024; ++i) {
      c.text += "line " + std::to_string(i) +
                ": ctxkit stores context as handles, not as content.\n";
    }
  }

  // Repeat whole passes, then trim to the exact size.
  std::string base = c.text;
  while (c.text.size() < target_bytes) c.text += base;
  c.text.resize(target_bytes);
  return c;
}

}  // namespace ctxkit::cli
