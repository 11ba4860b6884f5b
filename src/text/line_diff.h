// A line diff of two texts as unified hunks (what `diff -u` shows), for
// comparing two versions of a value.

#ifndef CTXKIT_TEXT_LINE_DIFF_H_
#define CTXKIT_TEXT_LINE_DIFF_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::text {

struct DiffLine {
  char op = ' ';          // ' ' both, '-' only in the old text, '+' new.
  std::string_view text;  // The line without its '\n'; points into an input.
  // The last line of a text that does not end in '\n' (diff -u's "\ No
  // newline at end of file"): "a" and "a\n" differ.
  bool no_newline = false;
};

struct DiffHunk {
  // 1-based first line and line count on each side, as "@@ -a,b +c,d @@"
  // (a count of 0 names the line before which the change sits).
  uint64_t from_line = 0, from_count = 0;
  uint64_t to_line = 0, to_count = 0;
  std::vector<DiffLine> lines;
};

struct LineDiffOptions {
  size_t context_lines = 3;
  // Lines on either side between the common head and tail (what the
  // diff algorithm works on). Larger: ResourceExhausted, since the work
  // grows with their product when the texts are unrelated.
  size_t max_changed_lines = 20000;
};

// The hunks that turn `from` into `to` (none when they are equal). Lines
// end at '\n'; a last line without one is still a line, and differs from
// the same line with one. The lines point
// into `from` and `to`, which must outlive the result.
Result<std::vector<DiffHunk>> LineDiff(std::string_view from,
                                       std::string_view to,
                                       const LineDiffOptions& options = {});

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_LINE_DIFF_H_
