// The durable summary cache: one small JSON file per entry under
// <home>/cache/summaries/, named by the SHA-256 of the entry's identity
// (content identity, max_tokens, summarizer identity, hints). Written
// atomically (temp file in the same directory + rename), so processes
// sharing a store share the cache and a reader never sees half a file.
// See docs/summaries.md.

#ifndef CTXKIT_SUMMARY_SUMMARY_CACHE_H_
#define CTXKIT_SUMMARY_SUMMARY_CACHE_H_

#include <cstddef>
#include <optional>
#include <string>

#include "ctxkit/status.h"

namespace ctxkit::summary {

struct CacheKey {
  std::string content_id;  // Hex SHA-256 identifying the content.
  size_t max_tokens = 0;
  std::string summarizer;  // "structural-v1", "llm-v1:<model>".
  std::string hints;       // Other inputs that steer the output.
};

struct CacheEntry {
  std::string text;
  size_t tokens = 0;
  std::string kind;
  std::string notes;
  bool sampled = false;
};

class SummaryCache {
 public:
  // `home`: the store root.
  explicit SummaryCache(const std::string& home);

  // The file name (hex SHA-256) of `key`.
  static std::string FileName(const CacheKey& key);

  // The entry, or nullopt when absent, unreadable or not for `key`.
  std::optional<CacheEntry> Lookup(const CacheKey& key) const;

  // Writes the entry (atomically; no fsync: a lost entry is recomputed).
  Status Store(const CacheKey& key, const CacheEntry& entry) const;

  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

}  // namespace ctxkit::summary

#endif  // CTXKIT_SUMMARY_SUMMARY_CACHE_H_
