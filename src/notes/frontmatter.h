// The note file format: YAML frontmatter between "---" lines, then the
// markdown body. Writing is byte-exact and canonical (docs/notes.md);
// reading uses yaml-cpp and tolerates notes written by other programs.

#ifndef CTXKIT_NOTES_FRONTMATTER_H_
#define CTXKIT_NOTES_FRONTMATTER_H_

#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/notes.h"
#include "ctxkit/status.h"

namespace ctxkit::notes {

// A note cut into its parts. `yaml` excludes the "---" lines; `body` starts
// after the closing "---" line and the one blank line the writer puts
// there. Without frontmatter, `yaml` is empty and `body` is everything.
struct NoteParts {
  bool has_frontmatter = false;
  std::string yaml;
  std::string body;
};
NoteParts SplitNote(std::string_view content);

// Parses the frontmatter YAML into `header`, appending what does not
// conform to `problems` (never fails: a note with a broken header is still
// a searchable file).
void ParseHeader(std::string_view yaml, NoteHeader* header,
                 std::vector<std::string>* problems);

// The canonical file: "---\n<fields>---\n\n<body>", body ending in '\n'.
std::string RenderNote(const NoteHeader& header, std::string_view body);
// Just the canonical YAML lines (no "---").
std::string RenderHeaderYaml(const NoteHeader& header);

// `yaml` with its top-level `links` entry replaced by a block list of
// `links` (appended when absent), every other line kept byte for byte.
std::string ReplaceLinks(std::string_view yaml,
                         const std::vector<std::string>& links);

// Joins parts back: "---\n" + yaml + "---\n\n" + body.
std::string JoinNote(std::string_view yaml, std::string_view body);

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_FRONTMATTER_H_
