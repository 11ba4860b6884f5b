// Chunk / ForEachChunk (include/ctxkit/chunk.h): the index's chunker over
// one pinned version, returning ranges instead of text.

#include "ctxkit/chunk.h"

#include <string>
#include <utility>

#include "core/status_macros.h"
#include "index/chunker.h"

namespace ctxkit {

namespace {

Status CheckBudget(uint32_t max_tokens) {
  if (max_tokens < 1 || max_tokens > kMaxChunkTokens) {
    return Status::InvalidArgument("max_tokens must be 1-" +
                                   std::to_string(kMaxChunkTokens));
  }
  return Status::Ok();
}

Status ChunkPinned(View& view, const Ref& ref, uint32_t max_tokens,
                   const ChunkVisitor& visit) {
  index::RangeReader read = [&](uint64_t off, uint64_t len) {
    return view.ReadRange(ref, off, len);
  };
  uint64_t n = 0;
  index::ChunkSink sink = [&](index::Chunk c) -> Status {
    ChunkRange r;
    r.index = n++;
    r.byte_begin = c.offset;
    r.byte_end = c.offset + c.text.size();
    r.line_begin = c.line_begin;
    r.line_end = c.line_end;
    r.tokens = c.tokens;
    r.valid_utf8 = c.valid_utf8;
    return visit(ref, r);
  };
  return index::ChunkValue(ref.size_bytes, read, max_tokens, sink);
}

}  // namespace

Status ForEachChunk(View& view, std::string_view key_or_ref,
                    uint32_t max_tokens, const ChunkVisitor& visit,
                    const ChunkOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckBudget(max_tokens));
  CTXKIT_ASSIGN_OR_RETURN(const Target target,
                          Target::Parse(key_or_ref, options.lookup));
  CTXKIT_ASSIGN_OR_RETURN(const Ref ref, view.Pin(target));
  return ChunkPinned(view, ref, max_tokens, visit);
}

Result<ChunkList> Chunk(View& view, std::string_view key_or_ref,
                        uint32_t max_tokens, const ChunkOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckBudget(max_tokens));
  ChunkList out;
  CTXKIT_ASSIGN_OR_RETURN(const Target target,
                          Target::Parse(key_or_ref, options.lookup));
  CTXKIT_ASSIGN_OR_RETURN(out.ref, view.Pin(target));
  CTXKIT_RETURN_IF_ERROR(ChunkPinned(view, out.ref, max_tokens,
                                     [&](const Ref&, const ChunkRange& c) {
                                       out.total_tokens += c.tokens;
                                       out.total_bytes = c.byte_end;
                                       out.chunks.push_back(c);
                                       return Status::Ok();
                                     }));
  return out;
}

}  // namespace ctxkit
