#include "cli/output.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <string>

#include "core/clock.h"
#include "text/json_write.h"

namespace ctxkit::cli {

using nlohmann::json;

std::string TokensCell(const std::optional<uint64_t>& tokens) {
  return tokens ? GroupedNumber(*tokens) : "-";
}

void PrintJson(const json& j) {
  std::string text = text::DumpJson(j) + "\n";
  std::fwrite(text.data(), 1, text.size(), stdout);
}

std::string ExactBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  return GroupedNumber(bytes) + " B (" + HumanBytes(bytes) + ")";
}

namespace {

bool ToUtc(int64_t unix_ns, std::tm* tm) {
  std::time_t secs = static_cast<std::time_t>(unix_ns / 1000000000);
  return gmtime_r(&secs, tm) != nullptr;
}

}  // namespace

std::string HumanTime(int64_t unix_ns) {
  std::tm tm{};
  if (unix_ns == 0 || !ToUtc(unix_ns, &tm)) return "-";
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
  return buf;
}

std::string Rfc3339(int64_t unix_ns) {
  return core::FormatRfc3339Nanos(unix_ns);
}

std::string Table::Render() const {
  size_t columns = header_.size();
  for (const auto& row : rows_) columns = std::max(columns, row.size());
  std::vector<size_t> width(columns, 0);
  auto measure = [&](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size() && c < width.size(); ++c) {
      width[c] = std::max(width[c], row[c].size());
    }
  };
  measure(header_);
  for (const auto& row : rows_) measure(row);

  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < width.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : "";
      bool right = std::find(right_.begin(), right_.end(), c) != right_.end();
      std::string pad(width[c] - cell.size(), ' ');
      if (c > 0) line += "  ";
      line += right ? pad + cell : cell + pad;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  };
  if (!header_.empty()) emit(header_);
  for (const auto& row : rows_) emit(row);
  return out;
}

std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return s;
}

}  // namespace ctxkit::cli
