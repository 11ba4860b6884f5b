// Note files from disk (anyone may edit them): splitting and parsing the
// YAML frontmatter never crashes, and a header rendered back parses to the
// same fields (src/notes/frontmatter.h).

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "notes/frontmatter.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ctxkit::notes::NoteParts parts = ctxkit::notes::SplitNote(text);
  ctxkit::NoteHeader header;
  std::vector<std::string> problems;
  ctxkit::notes::ParseHeader(parts.yaml, &header, &problems);
  // What the writer renders, the reader reads back the same.
  const std::string rendered = ctxkit::notes::RenderNote(header, parts.body);
  ctxkit::notes::NoteParts again = ctxkit::notes::SplitNote(rendered);
  ctxkit::NoteHeader reread;
  std::vector<std::string> reproblems;
  ctxkit::notes::ParseHeader(again.yaml, &reread, &reproblems);
  if (problems.empty() &&
      (reread.agent != header.agent || reread.tags != header.tags ||
       reread.links != header.links)) {
    std::abort();
  }
  ctxkit::notes::ReplaceLinks(parts.yaml, {"a.md", "b/c.md"});
  return 0;
}
