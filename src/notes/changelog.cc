#include "notes/changelog.h"

#include <string>

namespace ctxkit::notes {

namespace {

std::string_view Trimmed(std::string_view line) {
  while (!line.empty() &&
         (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) {
    line.remove_suffix(1);
  }
  return line;
}

bool IsFence(std::string_view line) {
  return line.starts_with("```") || line.starts_with("~~~");
}

bool IsTopHeading(std::string_view line) {
  return line.starts_with("# ") || line.starts_with("## ") || line == "#" ||
         line == "##";
}

bool IsBlank(std::string_view line) { return Trimmed(line).empty(); }

}  // namespace

std::string ChangelogEntry(std::string_view iso, std::string_view agent,
                           std::string_view message) {
  return "- " + std::string(iso) + " [" + std::string(agent) +
         "]: " + std::string(message);
}

ChangelogSpan FindChangelog(std::string_view body) {
  ChangelogSpan span;
  bool fenced = false;
  size_t pos = 0;
  while (pos < body.size()) {
    size_t nl = body.find('\n', pos);
    size_t next = nl == std::string_view::npos ? body.size() : nl + 1;
    std::string_view line = body.substr(pos, next - pos);
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (IsFence(line)) {
      fenced = !fenced;
    } else if (!fenced) {
      if (span.start == std::string_view::npos) {
        if (Trimmed(line) == "## Changelog") span.start = pos;
      } else if (IsTopHeading(line)) {
        span.end = pos;
        return span;
      }
    }
    pos = next;
  }
  if (span.start != std::string_view::npos) span.end = body.size();
  return span;
}

std::string AppendChangelog(std::string_view body, std::string_view entry) {
  ChangelogSpan span = FindChangelog(body);
  if (span.start == std::string_view::npos) {
    std::string out(body);
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!out.empty() && !out.ends_with("\n\n")) out += '\n';
    out += "## Changelog\n\n";
    out += entry;
    out += '\n';
    return out;
  }
  std::string section(body.substr(span.start, span.end - span.start));
  // Drop trailing blank lines so the entry follows the last item directly.
  while (true) {
    if (!section.empty() && section.back() != '\n') section += '\n';
    size_t prev = section.rfind('\n', section.size() - 2);
    size_t line_start = prev == std::string::npos ? 0 : prev + 1;
    std::string_view last(section.data() + line_start,
                          section.size() - line_start - 1);
    if (line_start == 0 || !IsBlank(last)) break;
    section.resize(line_start);
  }
  // Only the heading so far: a blank line between it and the first item.
  if (section.find('\n') == section.size() - 1) section += '\n';
  section += entry;
  section += '\n';
  std::string tail(body.substr(span.end));
  if (!tail.empty()) section += '\n';
  return std::string(body.substr(0, span.start)) + section + tail;
}

}  // namespace ctxkit::notes
