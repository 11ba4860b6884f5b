// Chunk / ForEachChunk (include/ctxkit/chunk.h): the index's chunker over
// one pinned version, returning ranges instead of text.

#include "ctxkit/chunk.h"

#include <string>
#include <utility>

#include "core/status_macros.h"
#include "index/chunker.h"

namespace ctxkit {

namespace {

// A static ref to the version `key_or_ref` names, when it can be pinned.
Result<Ref> Pin(View& view, std::string_view key_or_ref,
                const LookupOptions& lookup) {
  if (key_or_ref.starts_with("ck:")) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(key_or_ref));
    if (ref.is_static()) return ref;
    // Pin to the latest version, unless the view cannot see the key in
    // that scope (a capability from elsewhere): then read it as it stands.
    LookupOptions by_scope;
    by_scope.scope = ref.scope.ToString();
    Result<ObjectMeta> meta = view.Stat(ref.key, by_scope);
    if (meta.ok() && meta->id == ref.id) return StaticRefOf(*meta);
    return ref;
  }
  Status s = ValidateKey(key_or_ref);
  if (!s.ok()) return s.WithContext("key");
  if (lookup.version != 0) return view.RefOf(key_or_ref, lookup);
  CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(key_or_ref, lookup));
  return StaticRefOf(meta);
}

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
  CTXKIT_ASSIGN_OR_RETURN(const Ref ref, Pin(view, key_or_ref, options.lookup));
  return ChunkPinned(view, ref, max_tokens, visit);
}

Result<ChunkList> Chunk(View& view, std::string_view key_or_ref,
                        uint32_t max_tokens, const ChunkOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckBudget(max_tokens));
  ChunkList out;
  CTXKIT_ASSIGN_OR_RETURN(out.ref, Pin(view, key_or_ref, options.lookup));
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
