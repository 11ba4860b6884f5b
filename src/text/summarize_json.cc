// JSON: the shape as key paths with types, counts and sample values.
//
// Parsed with nlohmann's SAX interface, so no document tree is built and a
// sample cut in the middle of a large value still yields every path seen
// before the cut.

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/format.h"
#include "text/json_write.h"
#include "text/summarize_budget.h"
#include "text/summarize_structural.h"

namespace ctxkit::text {

namespace {

constexpr size_t kMaxPaths = 4096;
constexpr size_t kMaxDepth = 24;
constexpr size_t kSampleBytes = 60;

enum TypeBit : uint8_t {
  kNull = 1,
  kBool = 2,
  kInt = 4,
  kFloat = 8,
  kString = 16,
  kObject = 32,
  kArray = 64,
};

struct PathStat {
  std::string path;
  size_t depth = 0;
  uint8_t types = 0;
  uint64_t count = 0;
  // Containers: smallest and largest number of members seen.
  uint64_t min_len = UINT64_MAX;
  uint64_t max_len = 0;
  std::vector<std::string> samples;  // Up to two distinct scalars.
};

bool IsIdentifier(std::string_view key) {
  if (key.empty() || std::isdigit(static_cast<unsigned char>(key[0]))) {
    return false;
  }
  for (char c : key) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

class ShapeCollector : public nlohmann::json_sax<nlohmann::json> {
 public:
  struct Frame {
    size_t stat;  // Index of the container's PathStat.
    bool array;
    uint64_t members = 0;
    std::string key_path;  // For objects: the path of the pending key.
  };

  bool null() override { return Scalar(kNull, "null"); }
  bool boolean(bool v) override { return Scalar(kBool, v ? "true" : "false"); }
  bool number_integer(number_integer_t v) override {
    return Scalar(kInt, std::to_string(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    return Scalar(kInt, std::to_string(v));
  }
  bool number_float(number_float_t, const string_t& s) override {
    return Scalar(kFloat, s);
  }
  bool string(string_t& s) override {
    return Scalar(kString,
                  text::DumpJson(nlohmann::json(ClipLine(s, kSampleBytes))));
  }
  bool binary(binary_t&) override { return Scalar(kString, "<binary>"); }
  bool start_object(size_t) override { return Open(false); }
  bool end_object() override { return Close(); }
  bool start_array(size_t) override { return Open(true); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (stack_.empty()) return true;
    Frame& f = stack_.back();
    ++f.members;
    const std::string& base = stats_[f.stat].path;
    if (depth_ > kMaxDepth) {
      f.key_path = base + ".*";
    } else if (IsIdentifier(k)) {
      f.key_path = base + "." + k;
    } else {
      f.key_path =
          base + "[" + text::DumpJson(nlohmann::json(ClipLine(k, 40))) + "]";
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error_ = true;
    error_position_ = position;
    error_message_ = ex.what();
    return false;
  }

  const std::vector<PathStat>& stats() const { return stats_; }
  bool error() const { return error_; }
  size_t error_position() const { return error_position_; }
  const std::string& error_message() const { return error_message_; }
  uint64_t paths_dropped() const { return paths_dropped_; }
  uint64_t values() const { return values_; }
  bool complete() const { return complete_; }

 private:
  // The path of the value that starts now.
  std::string NextPath() {
    if (stack_.empty()) return "$";
    Frame& f = stack_.back();
    if (f.array) {
      ++f.members;
      return depth_ > kMaxDepth ? stats_[f.stat].path
                                : stats_[f.stat].path + "[]";
    }
    return f.key_path;
  }

  size_t Stat(const std::string& path) {
    auto it = index_.find(path);
    if (it != index_.end()) return it->second;
    if (stats_.size() >= kMaxPaths) {
      ++paths_dropped_;
      return SIZE_MAX;
    }
    PathStat s;
    s.path = path;
    s.depth = std::min(depth_, kMaxDepth + 1);
    stats_.push_back(std::move(s));
    index_.emplace(path, stats_.size() - 1);
    return stats_.size() - 1;
  }

  bool Scalar(uint8_t type, std::string text) {
    ++values_;
    size_t i = Stat(NextPath());
    if (stack_.empty()) complete_ = true;
    if (i == SIZE_MAX) return true;
    PathStat& s = stats_[i];
    s.types |= type;
    ++s.count;
    if (s.samples.size() < 2 && std::find(s.samples.begin(), s.samples.end(),
                                          text) == s.samples.end()) {
      s.samples.push_back(std::move(text));
    }
    return true;
  }

  bool Open(bool array) {
    ++values_;
    size_t i = Stat(NextPath());
    if (i == SIZE_MAX) {
      // Too many paths: count members against the parent's stat.
      i = stack_.empty() ? 0 : stack_.back().stat;
    } else {
      stats_[i].types |= array ? kArray : kObject;
      ++stats_[i].count;
    }
    stack_.push_back({i, array, 0, {}});
    ++depth_;
    return true;
  }

  bool Close() {
    if (stack_.empty()) return true;
    Frame f = std::move(stack_.back());
    stack_.pop_back();
    --depth_;
    if (f.stat < stats_.size()) {
      PathStat& s = stats_[f.stat];
      s.min_len = std::min(s.min_len, f.members);
      s.max_len = std::max(s.max_len, f.members);
    }
    if (stack_.empty()) complete_ = true;
    return true;
  }

  std::vector<PathStat> stats_;
  std::unordered_map<std::string, size_t> index_;
  std::vector<Frame> stack_;
  size_t depth_ = 0;
  bool error_ = false;
  bool complete_ = false;
  size_t error_position_ = 0;
  std::string error_message_;
  uint64_t paths_dropped_ = 0;
  uint64_t values_ = 0;
};

std::string TypeNames(uint8_t types) {
  static constexpr std::pair<uint8_t, const char*> kNames[] = {
      {kObject, "object"}, {kArray, "array"},  {kString, "string"},
      {kInt, "integer"},   {kFloat, "number"}, {kBool, "boolean"},
      {kNull, "null"}};
  std::string out;
  for (auto [bit, name] : kNames) {
    if (types & bit) out += (out.empty() ? "" : "|") + std::string(name);
  }
  return out;
}

std::string Describe(const PathStat& s) {
  std::string line = s.path + "  " + TypeNames(s.types);
  if (s.count > 1) line += " x" + core::GroupedNumber(s.count);
  if ((s.types & (kObject | kArray)) && s.max_len > 0) {
    const char* unit = (s.types & kArray) ? " items" : " keys";
    if (s.min_len == s.max_len) {
      line += ", " + core::GroupedNumber(s.max_len) + unit;
    } else {
      line += ", " + core::GroupedNumber(s.min_len) + "-" +
              core::GroupedNumber(s.max_len) + unit;
    }
  }
  if (!s.samples.empty()) {
    line += ", e.g. " + s.samples[0];
    if (s.samples.size() > 1) line += ", " + s.samples[1];
  }
  return line;
}

}  // namespace

bool SummarizeJson(const Tokenizer& tok, const StructuralInput& in,
                   size_t max_tokens, std::string* out) {
  std::string_view data = in.head;
  size_t lead = data.find_first_not_of(" \t\r\n");
  if (lead == std::string_view::npos) return false;
  if (in.type != ValueType::kJson && data[lead] != '{' && data[lead] != '[') {
    return false;
  }
  ShapeCollector shape;
  try {
    nlohmann::json::sax_parse(data, &shape);
  } catch (const std::exception&) {
    return false;
  }
  // A parse error is expected where a sample was cut; anywhere else the
  // value is not JSON.
  const bool cut =
      in.sampled && shape.error() && shape.error_position() + 8 >= data.size();
  if (shape.error() && !cut) return false;
  if (shape.stats().empty()) return false;
  // Concatenated documents (NDJSON) are handled as text.
  if (!shape.complete() && !cut) return false;

  const PathStat& root = shape.stats()[0];
  std::string header = "json: ";
  if (root.types & kObject) {
    header += "object with " + core::GroupedNumber(root.max_len) +
              (root.max_len == 1 ? " key" : " keys");
  } else if (root.types & kArray) {
    header += "array of " + core::GroupedNumber(root.max_len) +
              (root.max_len == 1 ? " item" : " items");
  } else {
    header += TypeNames(root.types);
  }
  header += ", " + core::HumanBytes(in.total_bytes);
  if (in.counts.tokens > 0) {
    header += std::string(", ") + (in.counts.tokens_exact ? "" : "~") +
              core::GroupedNumber(in.counts.tokens) + " tokens";
  }
  header += ", " + core::GroupedNumber(shape.stats().size()) + " paths";
  if (cut) {
    header += " (sampled: shape of the first " + core::HumanBytes(data.size()) +
              "; counts are lower bounds)";
  }
  if (shape.paths_dropped() > 0) header += " (path list capped)";

  // Shallow paths first (a small budget keeps the outline), then in the
  // order they first appear.
  std::vector<size_t> order(shape.stats().size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return shape.stats()[a].depth < shape.stats()[b].depth;
  });
  SummaryBlock paths{"paths (type, count, size, samples):", {}, 1, false};
  for (size_t i : order) {
    paths.lines.push_back(ClipLine(Describe(shape.stats()[i]), 240));
  }
  *out = RenderWithinBudget(tok, header, {paths}, max_tokens);
  return true;
}

}  // namespace ctxkit::text
