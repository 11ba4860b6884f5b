// Rendering for people (compact aligned text) and the printing of --json
// output. The JSON forms themselves live with the types they describe
// (docs/json.md) and are a stable interface for scripts.

#ifndef CTXKIT_CLI_OUTPUT_H_
#define CTXKIT_CLI_OUTPUT_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "store/json_forms.h"

namespace ctxkit::cli {

// The JSON forms of refs, metadata and stats are the store layer's
// (store/json_forms.h, docs/json.md), shared with the MCP tools.
using store::ObjectMetaToJson;
using store::RefToJson;
using store::StatsToJson;
using store::VersionListToJson;

// Prints `j` on one line followed by a newline. Invalid UTF-8 in strings
// (keys are validated, but producers are free-form) is replaced, never
// fatal.
void PrintJson(const nlohmann::json& j);

// Sizes and counts read the same in every face (core/format.h).
using core::GroupedNumber;
using core::HumanBytes;

// "312 B", or "4,194,304 B (4.0 MiB)" from 1 KiB up.
std::string ExactBytes(uint64_t bytes);
// A kept token count for tables: "12,345", or "-" when not counted.
std::string TokensCell(const std::optional<uint64_t>& tokens);
// UTC "2024-05-01 12:34:56", or "-" for 0.
std::string HumanTime(int64_t unix_ns);
// RFC 3339 UTC with nanoseconds, "" for 0.
std::string Rfc3339(int64_t unix_ns);
// `s` with newlines and tabs turned into spaces, for one line of a listing.
std::string OneLine(std::string s);

// A text table whose columns are padded to their widest cell. Columns in
// `right_aligned` (0-based) are right-aligned (numbers). An empty header
// renders rows only (key/value listings).
class Table {
 public:
  explicit Table(std::vector<std::string> header,
                 std::vector<size_t> right_aligned = {})
      : header_(std::move(header)), right_(std::move(right_aligned)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  size_t size() const { return rows_.size(); }
  // The header and rows, two spaces between columns, no trailing blanks.
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<size_t> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_OUTPUT_H_
