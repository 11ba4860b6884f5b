// Steps of `ctxkit demo` that live in their own files (demo.cc runs them in
// order). Each prints its lines through `say` and checks every claim it
// prints: a failed check is an Internal error that ends the demo.

#ifndef CTXKIT_DEMO_DEMO_STEPS_H_
#define CTXKIT_DEMO_DEMO_STEPS_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <string_view>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "face/environment.h"

namespace ctxkit::cli {

using DemoSay = std::function<void(const std::string& line)>;

// A private directory under $TMPDIR (else /tmp) for steps that work on a
// throwaway store, removed when the step ends however it ends. path() is
// empty when it could not be created.
class DemoTempDir {
 public:
  DemoTempDir() {
    const std::string tmp = env::Get("TMPDIR");
    std::string pattern =
        (tmp.empty() ? std::string("/tmp") : tmp) + "/ctxkit-demo-XXXXXX";
    if (::mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ~DemoTempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  DemoTempDir(const DemoTempDir&) = delete;
  DemoTempDir& operator=(const DemoTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Replaces the file at `path` with `text`.
inline Status DemoWriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Status::IoError("cannot write " + path);
  return Status::Ok();
}

// The context manager: a harness log with tool calls ingested into a new
// session `session_id`, the policy collapsing older outputs, a budgeted
// render, the locked chat, idempotent re-ingestion. Tool outputs are cut
// from `corpus`.
Status DemoContextManager(Store& store, const std::string& session_id,
                          std::string_view corpus, const DemoSay& say);

// File watchers on a throwaway store and directory (the user's watch list
// stays as it was): a file indexed, changed, unchanged, deleted.
Status DemoWatchers(const DemoSay& say);

// Tool-output capture and agent context notes on a throwaway store and
// roots: a large and a small output saved, BM25 selection, a note written,
// updated and superseded, found by rg and by the index.
Status DemoCaptureAndNotes(const DemoSay& say);

// Sub-agents with refs on `store`: a real child process started through
// `ctxkit spawn` resolves a passed ref and returns a result (4 lines).
Status DemoSpawn(Store& store, const DemoSay& say);

// Context as variables (SPEC-25) on session `session_id` (after
// DemoContextManager): the root prompt vs the inlined context, and the
// helpers by variable name. At most 6 lines.
Status DemoExternalize(Store& store, const std::string& session_id,
                       std::string_view corpus, const DemoSay& say);

}  // namespace ctxkit::cli

#endif  // CTXKIT_DEMO_DEMO_STEPS_H_
