#include "notes/frontmatter.h"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <string>

#include "text/json_write.h"

namespace ctxkit::notes {

namespace {

// The line starting at `pos` without its terminator, and where the next
// line starts.
std::string_view LineAt(std::string_view s, size_t pos, size_t* next) {
  size_t end = s.find('\n', pos);
  if (end == std::string_view::npos) {
    *next = s.size();
    return s.substr(pos);
  }
  *next = end + 1;
  std::string_view line = s.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

bool NeedsQuotes(std::string_view s) {
  if (s.empty()) return true;
  static constexpr std::string_view kWords[] = {
      "null", "true", "false", "yes", "no", "on", "off", "y", "n", "~"};
  std::string lower;
  for (char c : s) {
    lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  for (std::string_view w : kWords) {
    if (lower == w) return true;
  }
  char first = s.front();
  if (first == '-' || first == '?' || first == ':' || first == '.' ||
      first == '+') {
    return true;
  }
  // A leading digit may read back as a number, a date or a sexagesimal in
  // some YAML reader (1.0, 7, 0x1F, 1e3, 2026-01-01, 12:30): the fields are
  // strings, so such scalars are always quoted.
  if (first >= '0' && first <= '9') return true;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    bool safe = u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-' ||
                c == '/' || c == '+' || c == ':';
    if (!safe) return true;
  }
  return s.back() == ':';
}

// A YAML scalar: plain when that reads back as the same string, else a
// double-quoted (JSON-escaped, which YAML accepts) string.
std::string Scalar(std::string_view s) {
  if (!NeedsQuotes(s)) return std::string(s);
  return text::DumpJson(nlohmann::json(std::string(s)));
}

// "YYYY-MM-DDTHH:MM:SS[.fff]Z", as notes are stamped.
bool IsPlainTimestamp(std::string_view s) {
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd";
  if (s.size() < kShape.size() + 1 || s.back() != 'Z') return false;
  for (size_t i = 0; i < s.size() - 1; ++i) {
    const char want =
        i < kShape.size() ? kShape[i] : (i == kShape.size() ? '.' : 'd');
    const bool ok = want == 'd' ? (s[i] >= '0' && s[i] <= '9') : s[i] == want;
    if (!ok) return false;
  }
  return true;
}

std::string ScalarText(const YAML::Node& node) {
  if (node.IsScalar()) return node.Scalar();
  return "";
}

std::vector<std::string> StringList(const YAML::Node& node,
                                    std::string_view field,
                                    std::vector<std::string>* problems) {
  std::vector<std::string> out;
  if (!node || node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) {
    problems->push_back(std::string(field) + " is not a list");
    return out;
  }
  for (const YAML::Node& item : node) {
    if (item.IsScalar()) {
      out.push_back(item.Scalar());
    } else {
      problems->push_back(std::string(field) + " has a non-string item");
    }
  }
  return out;
}

}  // namespace

NoteParts SplitNote(std::string_view content) {
  NoteParts parts;
  size_t next = 0;
  if (LineAt(content, 0, &next) != "---" || next >= content.size() ||
      content[next - 1] != '\n') {
    parts.body = std::string(content);
    return parts;
  }
  size_t yaml_start = next;
  size_t pos = next;
  while (pos < content.size()) {
    size_t after = 0;
    std::string_view line = LineAt(content, pos, &after);
    if (line == "---" || line == "...") {
      parts.has_frontmatter = true;
      parts.yaml = std::string(content.substr(yaml_start, pos - yaml_start));
      size_t body = after;
      if (body < content.size() && content[body] == '\n') ++body;
      parts.body = std::string(content.substr(body));
      return parts;
    }
    pos = after;
  }
  parts.body = std::string(content);  // No closing line: not frontmatter.
  return parts;
}

void ParseHeader(std::string_view yaml, NoteHeader* header,
                 std::vector<std::string>* problems) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(yaml));
  } catch (const YAML::Exception& e) {
    problems->push_back(std::string("frontmatter is not valid YAML: ") +
                        e.what());
    return;
  }
  if (!root.IsMap()) {
    problems->push_back("frontmatter is not a YAML mapping");
    return;
  }
  try {
    for (const char* field : {"agent", "sessionId", "timestamp", "type"}) {
      YAML::Node n = root[field];
      if (!n) {
        problems->push_back(std::string("missing field '") + field + "'");
        continue;
      }
      if (!n.IsScalar() && !n.IsNull()) {
        problems->push_back(std::string("field '") + field +
                            "' is not a string");
        continue;
      }
      std::string v = ScalarText(n);
      if (std::string_view(field) == "agent") header->agent = v;
      if (std::string_view(field) == "sessionId") header->session_id = v;
      if (std::string_view(field) == "timestamp") header->timestamp = v;
      if (std::string_view(field) == "type") header->type = v;
    }
    if (!header->type.empty() && !ParseNoteType(header->type).ok()) {
      problems->push_back("type '" + header->type +
                          "' is not one of finding, decision, artifact, "
                          "reference, summary");
    }
    if (!root["tags"]) problems->push_back("missing field 'tags'");
    header->tags = StringList(root["tags"], "tags", problems);
    header->links = StringList(root["links"], "links", problems);
  } catch (const YAML::Exception& e) {
    problems->push_back(std::string("frontmatter: ") + e.what());
  }
}

std::string RenderHeaderYaml(const NoteHeader& h) {
  std::string out;
  out += "agent: " + Scalar(h.agent) + "\n";
  out += "sessionId: " + Scalar(h.session_id) + "\n";
  // The spec writes its timestamp plain (a YAML timestamp is what it is).
  out += "timestamp: " +
         (IsPlainTimestamp(h.timestamp) ? h.timestamp : Scalar(h.timestamp)) +
         "\n";
  out += "type: " + Scalar(h.type) + "\n";
  out += "tags: [";
  for (size_t i = 0; i < h.tags.size(); ++i) {
    if (i > 0) out += ", ";
    out += Scalar(h.tags[i]);
  }
  out += "]\n";
  if (!h.links.empty()) {
    out += "links:\n";
    for (const std::string& l : h.links) out += "  - " + Scalar(l) + "\n";
  }
  return out;
}

std::string JoinNote(std::string_view yaml, std::string_view body) {
  std::string out = "---\n";
  out += yaml;
  if (!yaml.empty() && yaml.back() != '\n') out += '\n';
  out += "---\n\n";
  out += body;
  return out;
}

std::string RenderNote(const NoteHeader& header, std::string_view body) {
  std::string b(body);
  if (b.empty() || b.back() != '\n') b += '\n';
  return JoinNote(RenderHeaderYaml(header), b);
}

std::string ReplaceLinks(std::string_view yaml,
                         const std::vector<std::string>& links) {
  std::string block;
  if (!links.empty()) {
    block = "links:\n";
    for (const std::string& l : links) block += "  - " + Scalar(l) + "\n";
  }
  std::string out;
  bool replaced = false;
  size_t pos = 0;
  while (pos < yaml.size()) {
    size_t next = 0;
    std::string_view line = LineAt(yaml, pos, &next);
    bool is_links = line.starts_with("links:");
    if (!is_links) {
      out.append(yaml.substr(pos, next - pos));
      if (next == yaml.size() && yaml.back() != '\n') out += '\n';
      pos = next;
      continue;
    }
    // Skip the entry: its line and the indented or "- " lines under it.
    pos = next;
    while (pos < yaml.size()) {
      std::string_view more = LineAt(yaml, pos, &next);
      if (more.empty() || more.front() == ' ' || more.front() == '\t' ||
          more.front() == '-') {
        pos = next;
      } else {
        break;
      }
    }
    if (!replaced) out += block;
    replaced = true;
  }
  if (!replaced) out += block;
  return out;
}

}  // namespace ctxkit::notes
