// Name rules for notes: agent names, session ids, tags, slugs, note types
// and retention durations. Agent names and session ids become directory
// names, so they are validated strictly rather than rewritten: a name that
// would need rewriting is more likely a mistake (or an attack) than intent.

#include <cstdint>
#include <string>
#include <string_view>

#include "core/encoding.h"
#include "ctxkit/notes.h"

namespace ctxkit {

namespace {

constexpr size_t kMaxAgentBytes = 48;
constexpr size_t kMaxSessionBytes = 56;
constexpr size_t kMaxNoteTagBytes = 60;
constexpr size_t kMaxSlugBytes = 64;

constexpr std::string_view kTypeNames[] = {"finding", "decision", "artifact",
                                           "reference", "summary"};

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9');
}

// A path component that is never ".", "..", hidden, or anything but
// [A-Za-z0-9._-].
Status ValidateComponent(std::string_view what, std::string_view s,
                         size_t max) {
  if (s.empty() || s.size() > max) {
    return Status::InvalidArgument(std::string(what) + " must be 1-" +
                                   std::to_string(max) + " bytes");
  }
  if (!IsAsciiAlnum(s.front())) {
    return Status::InvalidArgument(std::string(what) + " '" + std::string(s) +
                                   "' must start with a letter or digit");
  }
  for (char c : s) {
    if (!IsAsciiAlnum(c) && c != '.' && c != '_' && c != '-') {
      return Status::InvalidArgument(
          std::string(what) + " '" + std::string(s) +
          "' may contain only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

}  // namespace

std::string_view NoteTypeName(NoteType type) {
  return kTypeNames[static_cast<size_t>(type)];
}

Result<NoteType> ParseNoteType(std::string_view name) {
  for (size_t i = 0; i < std::size(kTypeNames); ++i) {
    if (kTypeNames[i] == name) return static_cast<NoteType>(i);
  }
  return Status::InvalidArgument(
      "note type must be finding, decision, artifact, reference or "
      "summary, not '" +
      std::string(name) + "'");
}

Status ValidateAgentName(std::string_view agent) {
  return ValidateComponent("agent name", agent, kMaxAgentBytes);
}

Status ValidateNoteSessionId(std::string_view session_id) {
  return ValidateComponent("session id", session_id, kMaxSessionBytes);
}

Status ValidateNoteTag(std::string_view tag) {
  if (tag.empty() || tag.size() > kMaxNoteTagBytes) {
    return Status::InvalidArgument("a note tag must be 1-60 bytes");
  }
  if (!core::IsValidUtf8(tag)) {
    return Status::InvalidArgument("a note tag must be UTF-8");
  }
  for (char c : tag) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x80 || IsAsciiAlnum(c)) continue;
    if (c == '.' || c == '_' || c == '+' || c == '/' || c == '-') continue;
    return Status::InvalidArgument(
        "note tag '" + std::string(tag) +
        "' may contain only letters, digits and '._+/-'");
  }
  return Status::Ok();
}

Result<std::string> Slugify(std::string_view text) {
  std::string slug;
  bool dash = false;
  for (char c : text) {
    if (IsAsciiAlnum(c)) {
      if (dash && !slug.empty()) slug += '-';
      dash = false;
      slug += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    } else {
      dash = true;
    }
  }
  if (slug.size() > kMaxSlugBytes) {
    slug.resize(kMaxSlugBytes);
    // Prefer ending on a word boundary when one is reasonably close.
    size_t cut = slug.rfind('-');
    if (cut != std::string::npos && cut >= kMaxSlugBytes / 2) slug.resize(cut);
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  if (slug.empty()) {
    return Status::InvalidArgument("slug '" + std::string(text) +
                                   "' has no ASCII letters or digits");
  }
  return slug;
}

Result<int64_t> ParseRetention(std::string_view text) {
  auto bad = [&] {
    return Status::InvalidArgument(
        "duration must be a number followed by s, m, h, d or w (e.g. 30d), "
        "not '" +
        std::string(text) + "'");
  };
  if (text.size() < 2 || text.size() > 12) return bad();
  int64_t unit = 0;
  switch (text.back()) {
    case 's':
      unit = 1;
      break;
    case 'm':
      unit = 60;
      break;
    case 'h':
      unit = 3600;
      break;
    case 'd':
      unit = 86400;
      break;
    case 'w':
      unit = 7 * 86400;
      break;
    default:
      return bad();
  }
  int64_t n = 0;
  for (char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return bad();
    n = n * 10 + (c - '0');
    if (n > 100ll * 366 * 86400) {
      return Status::InvalidArgument("duration '" + std::string(text) +
                                     "' is over 100 years");
    }
  }
  int64_t seconds = n * unit;
  if (seconds > 100ll * 366 * 86400) {
    return Status::InvalidArgument("duration '" + std::string(text) +
                                   "' is over 100 years");
  }
  return seconds;
}

}  // namespace ctxkit
