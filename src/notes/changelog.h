// The "## Changelog" section of a note body: where every change to a note
// is recorded as "- <ISO> [agent]: description". Lines inside fenced code
// blocks are never taken for the heading.

#ifndef CTXKIT_NOTES_CHANGELOG_H_
#define CTXKIT_NOTES_CHANGELOG_H_

#include <string>
#include <string_view>

namespace ctxkit::notes {

// "- 2026-02-21T15:10:00Z [code-fixer]: Updated severity".
std::string ChangelogEntry(std::string_view iso, std::string_view agent,
                           std::string_view message);

// `body` with `entry` appended as the last item of its changelog section,
// which is added at the end ("## Changelog", blank line, entry) when
// missing.
std::string AppendChangelog(std::string_view body, std::string_view entry);

// Where the changelog section starts and ends in `body`; start == npos when
// there is none. The section runs to the next heading of level 1 or 2, or
// to the end.
struct ChangelogSpan {
  size_t start = std::string_view::npos;
  size_t end = std::string_view::npos;
};
ChangelogSpan FindChangelog(std::string_view body);

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_CHANGELOG_H_
