#include "index/chunker.h"

#include <algorithm>
#include <span>
#include <string_view>
#include <vector>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "ctxkit/tokenizer.h"

namespace ctxkit::index {

namespace {

constexpr uint64_t kBlockBytes = 1ull << 20;

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// Moves `cut` forward (at most 3 bytes) so it does not split a UTF-8
// character, keeping previews and embeddings inputs well formed.
size_t CharBoundary(std::string_view s, size_t cut) {
  size_t limit = std::min(s.size(), cut + 3);
  while (cut < limit && IsContinuation(s[cut])) ++cut;
  return cut;
}

class Builder {
 public:
  Builder(const Tokenizer& tok, uint32_t max_tokens, const ChunkSink& emit)
      : tok_(tok), max_(max_tokens), emit_(emit) {}

  // Adds the line starting at absolute offset `offset`.
  Status AddLine(uint64_t offset, std::string_view line) {
    // A token is rarely more than 8 bytes, so a line this long is split
    // right away instead of being counted first and encoded again.
    if (line.size() > 8ull * max_) {
      CTXKIT_RETURN_IF_ERROR(Flush());
      return SplitLongLine(offset, line);
    }
    size_t n = tok_.Count(line);
    if (n > max_) {
      CTXKIT_RETURN_IF_ERROR(Flush());
      return SplitLongLine(offset, line);
    }
    if (tokens_ + n > max_) CTXKIT_RETURN_IF_ERROR(Flush());
    if (text_.empty()) offset_ = offset;
    text_.append(line);
    tokens_ += n;
    return Status::Ok();
  }

  Status Flush() {
    if (text_.empty()) return Status::Ok();
    Chunk c;
    c.offset = offset_;
    c.text = std::move(text_);
    c.tokens = static_cast<uint32_t>(tokens_);
    text_.clear();
    tokens_ = 0;
    return emit_(std::move(c));
  }

 private:
  Status EmitPiece(uint64_t offset, std::string_view piece) {
    Chunk c;
    c.offset = offset;
    c.text = std::string(piece);
    c.tokens = static_cast<uint32_t>(tok_.Count(piece));
    return emit_(std::move(c));
  }

  Status SplitLongLine(uint64_t offset, std::string_view line) {
    if (!core::IsValidUtf8(line)) {
      // Token byte lengths do not map back onto ill-formed input (it is
      // repaired before BPE), so cut by bytes instead.
      size_t step = std::max<size_t>(16, 3ull * max_);
      size_t pos = 0;
      while (pos < line.size()) {
        size_t end = CharBoundary(line, std::min(line.size(), pos + step));
        CTXKIT_RETURN_IF_ERROR(
            EmitPiece(offset + pos, line.substr(pos, end - pos)));
        pos = end;
      }
      return Status::Ok();
    }
    std::vector<uint32_t> ids = tok_.Encode(line);
    size_t pos = 0;  // Start of the piece being built.
    size_t cum = 0;  // Bytes of `line` covered by the tokens seen so far.
    uint32_t in_piece = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      Result<std::string> t =
          tok_.Decode(std::span<const uint32_t>(&ids[i], 1));
      if (!t.ok()) return t.status();
      cum += t->size();
      if (++in_piece < max_ || i + 1 == ids.size()) continue;
      // A token may end inside a character; move the cut past it.
      size_t end = CharBoundary(line, std::min(line.size(), cum));
      if (end > pos) {
        CTXKIT_RETURN_IF_ERROR(
            EmitPiece(offset + pos, line.substr(pos, end - pos)));
        pos = end;
      }
      in_piece = 0;
    }
    if (pos < line.size()) {
      CTXKIT_RETURN_IF_ERROR(EmitPiece(offset + pos, line.substr(pos)));
    }
    return Status::Ok();
  }

  const Tokenizer& tok_;
  const uint32_t max_;
  const ChunkSink& emit_;
  uint64_t offset_ = 0;
  std::string text_;
  size_t tokens_ = 0;
};

}  // namespace

Status ChunkValue(uint64_t size, const RangeReader& read, uint32_t max_tokens,
                  const ChunkSink& emit) {
  CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tok, Tokenizer::Get());
  Builder builder(*tok, max_tokens, emit);
  std::string buf;       // Unprocessed bytes.
  uint64_t buf_off = 0;  // Absolute offset of buf[0].
  uint64_t next = 0;     // Next offset to read.
  while (true) {
    bool eof = next >= size;
    if (!eof) {
      CTXKIT_ASSIGN_OR_RETURN(std::string block,
                              read(next, std::min(kBlockBytes, size - next)));
      if (block.empty()) {
        eof = true;  // The value is shorter than its recorded size.
        next = size;
      } else {
        next += block.size();
        buf.append(block);
      }
    }
    size_t pos = 0;
    while (pos < buf.size()) {
      size_t nl = buf.find('\n', pos);
      size_t end;
      if (nl != std::string::npos) {
        end = nl + 1;
      } else if (eof) {
        end = buf.size();
      } else if (buf.size() - pos >= kBlockBytes) {
        // A line longer than a block: cut it so memory stays bounded.
        end = CharBoundary(buf, buf.size() - 4);
      } else {
        break;  // Wait for the rest of the line.
      }
      CTXKIT_RETURN_IF_ERROR(builder.AddLine(
          buf_off + pos, std::string_view(buf).substr(pos, end - pos)));
      pos = end;
    }
    buf.erase(0, pos);
    buf_off += pos;
    if (eof) break;
  }
  return builder.Flush();
}

}  // namespace ctxkit::index
