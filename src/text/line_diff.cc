#include "text/line_diff.h"

#include <algorithm>
#include <dtl/dtl.hpp>
#include <string>

namespace ctxkit::text {
namespace {

// Each line with its '\n' (the last one may have none), so lines that
// differ only in that compare unequal.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    nl = nl == std::string_view::npos ? text.size() : nl + 1;
    lines.push_back(text.substr(at, nl - at));
    at = nl;
  }
  return lines;
}

DiffLine Shown(char op, std::string_view line) {
  const bool newline = !line.empty() && line.back() == '\n';
  if (newline) line.remove_suffix(1);
  return {op, line, !newline};
}

// One step of the edit script, with the 0-based line indexes before it
// on each side.
struct Step {
  char op;
  std::string_view text;
  uint64_t a, b;
};

// The edit script of a[lo, a_hi) against b[lo, b_hi) (the part between
// the common head and tail), appended to `steps`.
void MiddleSteps(const std::vector<std::string_view>& a,
                 const std::vector<std::string_view>& b, size_t lo, size_t a_hi,
                 size_t b_hi, std::vector<Step>* steps) {
  uint64_t ai = lo, bi = lo;
  std::vector<std::string_view> am(a.begin() + lo, a.begin() + a_hi);
  std::vector<std::string_view> bm(b.begin() + lo, b.begin() + b_hi);
  if (am.empty() || bm.empty()) {
    for (std::string_view l : am) steps->push_back({'-', l, ai++, bi});
    for (std::string_view l : bm) steps->push_back({'+', l, ai, bi++});
    return;
  }
  dtl::Diff<std::string_view, std::vector<std::string_view>> diff(am, bm);
  diff.onHuge();
  diff.compose();
  const size_t first = steps->size();
  for (const auto& [line, info] : diff.getSes().getSequence()) {
    const char op = info.type == dtl::SES_COMMON   ? ' '
                    : info.type == dtl::SES_DELETE ? '-'
                                                   : '+';
    steps->push_back({op, line, 0, 0});
  }
  // In each run of changes the removed lines come first, as diff -u shows
  // them; then the line indexes are counted along the script.
  auto run = steps->begin() + static_cast<std::ptrdiff_t>(first);
  while (run != steps->end()) {
    if (run->op == ' ') {
      ++run;
      continue;
    }
    auto end = std::find_if(run, steps->end(),
                            [](const Step& s) { return s.op == ' '; });
    std::stable_partition(run, end, [](const Step& s) { return s.op == '-'; });
    run = end;
  }
  for (size_t i = first; i < steps->size(); ++i) {
    Step& s = (*steps)[i];
    s.a = ai;
    s.b = bi;
    if (s.op != '+') ++ai;
    if (s.op != '-') ++bi;
  }
}

DiffHunk MakeHunk(const std::vector<Step>& steps, size_t begin, size_t end) {
  DiffHunk h;
  for (size_t i = begin; i < end; ++i) {
    const Step& s = steps[i];
    if (s.op != '+') ++h.from_count;
    if (s.op != '-') ++h.to_count;
    h.lines.push_back(Shown(s.op, s.text));
  }
  // 1-based first line; with no line on a side, the line before the change.
  h.from_line = steps[begin].a + (h.from_count > 0 ? 1 : 0);
  h.to_line = steps[begin].b + (h.to_count > 0 ? 1 : 0);
  return h;
}

}  // namespace

Result<std::vector<DiffHunk>> LineDiff(std::string_view from,
                                       std::string_view to,
                                       const LineDiffOptions& options) {
  const std::vector<std::string_view> a = Lines(from), b = Lines(to);
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail < a.size() - head && tail < b.size() - head &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail]) {
    ++tail;
  }
  const size_t a_hi = a.size() - tail, b_hi = b.size() - tail;
  if (a_hi - head > options.max_changed_lines ||
      b_hi - head > options.max_changed_lines) {
    return Status::ResourceExhausted(
        "the texts differ over " + std::to_string(a_hi - head) + " and " +
        std::to_string(b_hi - head) + " lines, more than " +
        std::to_string(options.max_changed_lines) + " lines can be diffed");
  }
  // The script keeps `context` common lines around the middle only: the
  // rest of the head and tail cannot be part of a hunk.
  const size_t context = options.context_lines;
  const size_t keep_head = std::min(head, context);
  std::vector<Step> steps;
  for (size_t i = head - keep_head; i < head; ++i) {
    steps.push_back({' ', a[i], i, i});
  }
  MiddleSteps(a, b, head, a_hi, b_hi, &steps);
  for (size_t i = 0; i < std::min(tail, context); ++i) {
    steps.push_back({' ', a[a_hi + i], a_hi + i, b_hi + i});
  }
  std::vector<DiffHunk> hunks;
  size_t i = 0;
  while (i < steps.size()) {
    while (i < steps.size() && steps[i].op == ' ') ++i;
    if (i == steps.size()) break;
    const size_t begin = i >= context ? i - context : 0;
    // Extend over changes until a run of more than 2 * context commons.
    size_t last_change = i;
    size_t j = i + 1;
    while (j < steps.size()) {
      if (steps[j].op != ' ') {
        last_change = j;
      } else if (j - last_change > 2 * context) {
        break;
      }
      ++j;
    }
    const size_t end = std::min(steps.size(), last_change + 1 + context);
    hunks.push_back(MakeHunk(steps, begin, end));
    i = end;
  }
  return hunks;
}

}  // namespace ctxkit::text
