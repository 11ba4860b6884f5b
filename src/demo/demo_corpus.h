// The document `ctxkit demo` stores: real text found on this machine (the
// license texts every Debian system ships, ctxkit's own sources), repeated
// and trimmed to an exact size so the demo shows multi-MB handling
// wherever it runs.

#ifndef CTXKIT_DEMO_DEMO_CORPUS_H_
#define CTXKIT_DEMO_DEMO_CORPUS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace ctxkit::cli {

struct DemoCorpus {
  std::string text;                  // Exactly the requested size.
  size_t files = 0;                  // Distinct files read.
  std::vector<std::string> origins;  // Directories the files came from.
};

// Never fails: missing directories are skipped, and if no file at all can
// be read the text is generated (origins then says so).
DemoCorpus BuildDemoCorpus(size_t target_bytes);

// The ctxkit source tree holding the running binary or the working
// directory (a directory with include/ctxkit/store.h), or "" if none.
std::string FindSourceRoot();

}  // namespace ctxkit::cli

#endif  // CTXKIT_DEMO_DEMO_CORPUS_H_
