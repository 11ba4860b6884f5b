#include "capture/selection.h"

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "core/status_macros.h"
#include "index/query_terms.h"
#include "os/sqlite_db.h"
#include "text/json_parse.h"

namespace ctxkit::capture {

namespace {

// Text of a result for display and ranking: a JSON string's content, or
// the JSON text.
std::string ResultText(const std::string& result_json, size_t max) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(result_json);
  std::string text = j.is_string() ? j.get<std::string>() : result_json;
  if (text.size() > max) text.resize(max);
  return text;
}

std::string OneLine(std::string s, size_t max) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (s.size() > max) {
    size_t n = max;
    while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
    s = s.substr(0, n) + "...";
  }
  return s;
}

// Ranking reads at most this much of each output.
constexpr size_t kRankBytes = 256 << 10;

}  // namespace

std::string NumberedList(const std::vector<ContextPointer>& pointers,
                         const std::vector<LoadedContext>& contents) {
  std::string out;
  for (size_t i = 0; i < pointers.size() && i < contents.size(); ++i) {
    out += std::to_string(i + 1) + ". " + pointers[i].tool_name + ": " +
           OneLine(contents[i].args_json, 80) + " -> " +
           OneLine(ResultText(contents[i].result_json, 4096), 100) + " (" +
           std::to_string(pointers[i].size_bytes) + " bytes)\n";
  }
  return out;
}

Result<std::vector<size_t>> ParseSelectionReply(std::string_view reply,
                                                size_t n, size_t max) {
  for (size_t open = reply.find('['); open != std::string_view::npos;
       open = reply.find('[', open + 1)) {
    size_t close = reply.find(']', open);
    if (close == std::string_view::npos) break;
    nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(
        reply.substr(open, close - open + 1));
    if (!j.is_array()) continue;
    std::vector<size_t> out;
    std::set<size_t> seen;
    bool ints = true;
    for (const auto& item : j) {
      if (!item.is_number_integer()) {
        ints = false;
        break;
      }
      int64_t v = item.get<int64_t>();
      if (v < 1 || static_cast<uint64_t>(v) > n) continue;  // Ignore junk.
      if (seen.insert(static_cast<size_t>(v - 1)).second && out.size() < max) {
        out.push_back(static_cast<size_t>(v - 1));
      }
    }
    if (ints) return out;
  }
  return Status::InvalidArgument("the reply holds no list of numbers");
}

Result<std::vector<size_t>> RankBm25(std::string_view question,
                                     const std::vector<LoadedContext>& contents,
                                     size_t max) {
  std::vector<std::string> terms = index::QueryTerms(question);
  if (terms.empty()) return std::vector<size_t>();
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<storage::SqliteDb> db,
                          storage::SqliteDb::Open(":memory:", 1000));
  CTXKIT_RETURN_IF_ERROR(
      db->Exec("CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = 'porter "
               "unicode61')"));
  for (size_t i = 0; i < contents.size(); ++i) {
    std::string text = contents[i].tool_name + "\n" + contents[i].args_json +
                       "\n" + ResultText(contents[i].result_json, kRankBytes);
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT INTO docs(rowid, text) VALUES (?, ?)"));
    q->Bind(1, static_cast<int64_t>(i)).BindText(2, text);
    CTXKIT_RETURN_IF_ERROR(q->Run());
  }
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT rowid FROM docs WHERE docs MATCH ? "
                          "ORDER BY rank LIMIT ?"));
  std::string match = index::MatchExpression(terms);
  q->BindText(1, match).Bind(2, static_cast<int64_t>(max));
  std::vector<size_t> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(static_cast<size_t>(q->Int(0)));
  }
  return out;
}

}  // namespace ctxkit::capture
