// SPEC-25.04: size warnings and auto-chunking.

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/format.h"
#include "core/status_macros.h"
#include "ctxkit/chunk.h"
#include "ctxkit/externalize.h"
#include "externalize/internal.h"
#include "text/summarize_budget.h"

namespace ctxkit {

namespace {

// AutoChunk's note starts with this, so a second AutoChunk replaces it.
constexpr std::string_view kChunkNote = " | chunked: ";

Status ValidateSizeConfig(const SizeConfig& c) {
  if (c.warn_bytes == 0 || c.chunk_bytes == 0 || c.total_bytes == 0) {
    return Status::InvalidArgument(
        "size limits (warn, chunk, total bytes) must be >= 1");
  }
  if (c.chunk_tokens != 0 &&
      (c.chunk_tokens < 16 || c.chunk_tokens > kMaxChunkTokens)) {
    return Status::InvalidArgument("chunk_tokens must be 0 or 16-" +
                                   std::to_string(kMaxChunkTokens));
  }
  return Status::Ok();
}

uint32_t ChunkTokens(const SizeConfig& c) {
  if (c.chunk_tokens != 0) return c.chunk_tokens;
  const uint64_t t = c.warn_bytes / 4;
  return static_cast<uint32_t>(
      std::clamp<uint64_t>(t, 16, static_cast<uint64_t>(kMaxChunkTokens)));
}

}  // namespace

std::vector<SizeWarning> ExternalizedContext::CheckSizeLimits(
    const SizeConfig& config) const {
  std::vector<SizeWarning> out;
  for (const ContextVariable& v : variables_) {
    SizeWarning w;
    w.variable = v.name;
    w.size = v.size_bytes;
    if (v.size_bytes > config.chunk_bytes) {
      w.kind = SizeWarning::Kind::kRequiresChunking;
      w.threshold = config.chunk_bytes;
      // The spec's rule; warn_bytes 0 would divide by zero, so it counts
      // as 1.
      w.suggested_chunks =
          v.size_bytes / std::max<uint64_t>(config.warn_bytes, 1) + 1;
      w.message =
          "variable '" + v.name + "' is " + core::HumanBytes(v.size_bytes) +
          ", over the chunk threshold " + core::HumanBytes(config.chunk_bytes) +
          ": split it into about " + core::GroupedNumber(w.suggested_chunks) +
          " chunks (auto_chunk)";
    } else if (v.size_bytes > config.warn_bytes) {
      w.kind = SizeWarning::Kind::kLargeVariable;
      w.threshold = config.warn_bytes;
      w.message =
          "variable '" + v.name + "' is " + core::HumanBytes(v.size_bytes) +
          ", over the warning threshold " + core::HumanBytes(config.warn_bytes);
    } else {
      continue;
    }
    out.push_back(std::move(w));
  }
  if (total_size_bytes_ > config.total_bytes) {
    SizeWarning w;
    w.kind = SizeWarning::Kind::kTotalSizeExceeded;
    w.size = total_size_bytes_;
    w.threshold = config.total_bytes;
    w.message =
        "externalized context is " + core::HumanBytes(total_size_bytes_) +
        ", over the total limit " + core::HumanBytes(config.total_bytes);
    out.push_back(std::move(w));
  }
  return out;
}

Status ExternalizedContext::AutoChunk(View& view, const SizeConfig& config) {
  CTXKIT_RETURN_IF_ERROR(ValidateSizeConfig(config));
  const uint32_t max_tokens = ChunkTokens(config);
  // Computed aside and applied only when every variable succeeded, so an
  // error leaves the context unchanged.
  std::vector<std::pair<size_t, std::vector<VariableChunk>>> done;
  for (size_t i = 0; i < variables_.size(); ++i) {
    const ContextVariable& v = variables_[i];
    if (v.size_bytes <= config.chunk_bytes) continue;
    std::vector<VariableChunk> chunks;
    auto chunk_one = [&](uint64_t member, const Ref& ref) -> Status {
      return ForEachChunk(
          view, FormatRef(ref), max_tokens,
          [&](const Ref& pinned, const ChunkRange& c) -> Status {
            chunks.push_back({.member = member,
                              .ref = pinned,
                              .byte_begin = c.byte_begin,
                              .byte_end = c.byte_end,
                              .tokens = c.tokens});
            return Status::Ok();
          });
    };
    if (v.members.empty()) {
      CTXKIT_RETURN_IF_ERROR(chunk_one(0, v.ref));
    } else {
      for (size_t m = 0; m < v.members.size(); ++m) {
        CTXKIT_RETURN_IF_ERROR(chunk_one(m, v.members[m].ref));
      }
    }
    done.emplace_back(i, std::move(chunks));
  }
  // A variable chunked by an earlier call under other limits loses it.
  for (ContextVariable& v : variables_) {
    const size_t at = v.summary.find(kChunkNote);
    if (at != std::string::npos) v.summary.resize(at);
    v.chunks.clear();
  }
  for (auto& [i, chunks] : done) {
    ContextVariable& v = variables_[i];
    v.summary += std::string(kChunkNote) + core::GroupedNumber(chunks.size()) +
                 " chunks of <= " + core::GroupedNumber(max_tokens) +
                 " tokens (refs to byte ranges)";
    v.chunks = std::move(chunks);
  }
  return Status::Ok();
}

}  // namespace ctxkit
