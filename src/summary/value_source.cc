#include "summary/value_source.h"

#include <algorithm>
#include <cstdint>
#include <string>

#include "core/encoding.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "summary/stats.h"

namespace ctxkit::summary {

namespace {

constexpr uint64_t kTailBytes = 64u << 10;
constexpr size_t kChunkPreviewBytes = 100;
constexpr size_t kMaxChunksListed = 400;

// Hashes the value while streaming it; returns its size.
Result<uint64_t> HashByStreaming(View& view, const Ref& ref,
                                 std::string* content_id) {
  core::Sha256Hasher hasher;
  uint64_t size = 0;
  Status s = StreamValue(view, ref, UINT64_MAX, [&](std::string_view part) {
    hasher.Update(part);
    size += part.size();
  });
  if (!s.ok()) return s;
  *content_id = core::ToHex(hasher.Finish());
  return size;
}

}  // namespace

void AddBytesRead(uint64_t n) {
  GlobalCounters().bytes_read.fetch_add(n, std::memory_order_relaxed);
}

Result<PinnedValue> ResolveTarget(View& view, std::string_view key_or_ref,
                                  const ScopeName& scope) {
  CTXKIT_ASSIGN_OR_RETURN(ctxkit::Target named,
                          ctxkit::Target::Parse(key_or_ref, {.scope = scope}));
  PinnedValue t;
  CTXKIT_ASSIGN_OR_RETURN(t.ref, view.Pin(named));

  // The version history (read through the pinned ref, a capability) gives
  // the content hash without reading the value.
  Result<std::vector<VersionMeta>> versions = view.Versions(t.ref);
  if (versions.ok() && !versions->empty()) {
    const VersionMeta* pick = nullptr;
    if (t.ref.version != 0) {
      for (const VersionMeta& v : *versions) {
        if (v.version == t.ref.version) pick = &v;
      }
    } else {
      pick = &versions->back();
    }
    if (pick == nullptr || pick->state != VersionState::kPresent) {
      return Status::NotFound("'" + t.ref.key + "' has no such version");
    }
    t.type = pick->type;
    t.size = pick->size_bytes;
    t.ref.version = pick->version;
    t.ref.size_bytes = pick->size_bytes;
    t.ref.type = pick->type;
    if (!IsAppendableType(t.type)) {
      t.content_id = pick->content_hash;
      return t;
    }
    // An appended version's hash covers its own append only (streams and
    // chats): chain them.
    std::string chain = "stream";
    uint64_t prev = 0;
    for (const VersionMeta& v : *versions) {
      if (v.version > pick->version) break;
      chain += '\n' + std::to_string(v.version) + ' ' +
               std::string(ValueTypeName(v.type)) + ' ' +
               std::to_string(v.size_bytes) + ' ' + v.content_hash;
      if (v.state != VersionState::kPresent) {
        prev = 0;
        t.chunks.clear();
        continue;
      }
      text::StreamChunk c;
      c.index = v.version;
      if (v.size_bytes >= prev && IsAppendableType(v.type)) {
        c.offset = prev;
        c.length = v.size_bytes - prev;
      } else {  // A plain set restarts the value.
        t.chunks.clear();
        c.offset = 0;
        c.length = v.size_bytes;
      }
      prev = v.size_bytes;
      if (c.length > 0) t.chunks.push_back(std::move(c));
    }
    t.content_id = core::ToHex(core::Sha256(chain));
    return t;
  }

  // A capability: hash what the ref resolves to.
  t.type = t.ref.type;
  Result<uint64_t> size = HashByStreaming(view, t.ref, &t.content_id);
  if (!size.ok()) return size.status();
  t.size = *size;
  t.ref.size_bytes = *size;
  return t;
}

Status ReadMaterial(View& view, const PinnedValue& target,
                    uint64_t sample_bytes, uint64_t count_limit_bytes,
                    const Tokenizer& tok, Material* out) {
  const bool sampled = target.size > sample_bytes;
  const uint64_t head_len = std::min(target.size, sample_bytes);
  if (head_len > 0) {
    Result<std::string> head = view.ReadRange(target.ref, 0, head_len);
    if (!head.ok()) return head.status();
    AddBytesRead(head->size());
    out->head = std::move(*head);
  }
  if (sampled) {
    uint64_t tail_len = std::min(kTailBytes, target.size - head_len);
    Result<std::string> tail =
        view.ReadRange(target.ref, target.size - tail_len, tail_len);
    if (!tail.ok()) return tail.status();
    AddBytesRead(tail->size());
    out->tail = std::move(*tail);
  }

  text::StructuralInput& in = out->input;
  in.head = out->head;
  in.tail = out->tail;
  in.sampled = sampled;
  in.total_bytes = target.size;
  in.type = target.type;
  in.name = target.ref.key;

  // Whole-value counts: from the head when it is the whole value, by
  // streaming up to the limit, estimated beyond.
  text::TextCountsBuilder counter(tok);
  if (!sampled) {
    counter.Append(out->head);
    in.counts = counter.Finish();
  } else if (target.size <= count_limit_bytes) {
    Status s =
        StreamValue(view, target.ref, target.size,
                    [&](std::string_view part) { counter.Append(part); });
    if (!s.ok()) return s;
    in.counts = counter.Finish();
  } else {
    counter.Append(out->head);
    text::TextCounts sample = counter.Finish();
    double scale = out->head.empty()
                       ? 0.0
                       : static_cast<double>(target.size) /
                             static_cast<double>(out->head.size());
    in.counts.bytes = target.size;
    in.counts.lines = static_cast<uint64_t>(sample.lines * scale);
    in.counts.words = static_cast<uint64_t>(sample.words * scale);
    in.counts.tokens = static_cast<uint64_t>(sample.tokens * scale);
    in.counts.tokens_exact = false;
  }

  // Stream chunks: the first and last ones, with a preview of each.
  in.chunk_count = target.chunks.size();
  std::vector<const text::StreamChunk*> listed;
  for (size_t i = 0; i < target.chunks.size(); ++i) {
    if (target.chunks.size() <= kMaxChunksListed || i < kMaxChunksListed / 2 ||
        i >= target.chunks.size() - kMaxChunksListed / 2) {
      listed.push_back(&target.chunks[i]);
    }
  }
  for (const text::StreamChunk* c : listed) {
    text::StreamChunk copy = *c;
    uint64_t n = std::min<uint64_t>(c->length, kChunkPreviewBytes);
    if (c->offset + n <= out->head.size()) {
      copy.preview = out->head.substr(c->offset, n);
    } else {
      Result<std::string> p = view.ReadRange(target.ref, c->offset, n);
      if (!p.ok()) return p.status();
      AddBytesRead(p->size());
      copy.preview = std::move(*p);
    }
    in.chunks.push_back(std::move(copy));
  }
  return Status::Ok();
}

}  // namespace ctxkit::summary
