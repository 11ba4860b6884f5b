#include "summary/summary_cache.h"

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/sha256.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::summary {

namespace {

constexpr int kFormat = 1;
// Entries are small; anything bigger is not ours.
constexpr uint64_t kMaxEntryBytes = 16u << 20;

}  // namespace

SummaryCache::SummaryCache(const std::string& home)
    : dir_(storage::SummaryCacheDir(home)) {}

std::string SummaryCache::FileName(const CacheKey& key) {
  std::string material = "ctxkit-summary-v1";
  material += '\0';
  material += key.content_id;
  material += '\0';
  material += std::to_string(key.max_tokens);
  material += '\0';
  material += key.summarizer;
  material += '\0';
  material += key.hints;
  return core::ToHex(core::Sha256(material));
}

std::optional<CacheEntry> SummaryCache::Lookup(const CacheKey& key) const {
  const std::string path = dir_ + "/" + FileName(key);
  Result<std::string> data = storage::ReadFileRange(path, 0, kMaxEntryBytes);
  if (!data.ok() || data->empty()) return std::nullopt;
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(*data);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  // The name is a hash: check the identity it stands for.
  if (j.value("format", 0) != kFormat ||
      j.value("content_id", "") != key.content_id ||
      j.value("max_tokens", static_cast<size_t>(0)) != key.max_tokens ||
      j.value("summarizer", "") != key.summarizer ||
      j.value("hints", "") != key.hints || !j.contains("text") ||
      !j["text"].is_string()) {
    return std::nullopt;
  }
  CacheEntry e;
  e.text = j["text"].get<std::string>();
  e.tokens = j.value("tokens", static_cast<size_t>(0));
  e.kind = j.value("kind", "");
  e.notes = j.value("notes", "");
  e.sampled = j.value("sampled", false);
  return e;
}

Status SummaryCache::Store(const CacheKey& key, const CacheEntry& e) const {
  Status s = storage::MakeDirs(dir_);
  if (!s.ok()) return s;
  nlohmann::json j = {{"format", kFormat},
                      {"content_id", key.content_id},
                      {"max_tokens", key.max_tokens},
                      {"summarizer", key.summarizer},
                      {"hints", key.hints},
                      {"kind", e.kind},
                      {"sampled", e.sampled},
                      {"tokens", e.tokens},
                      {"notes", e.notes},
                      {"created_unix_ns", core::NowUnixNanos()},
                      {"text", e.text}};
  std::string body = text::DumpJson(j) + "\n";
  return storage::AtomicWriteFile(dir_, dir_ + "/" + FileName(key), body,
                                  /*sync=*/false);
}

}  // namespace ctxkit::summary
