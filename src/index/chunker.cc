#include "index/chunker.h"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "ctxkit/tokenizer.h"

namespace ctxkit::index {

namespace {

constexpr uint64_t kBlockBytes = 1ull << 20;
// Values up to this many bytes per budget token are counted whole first.
constexpr uint64_t kWholeCountBytesPerToken = 8;

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

bool IsBlankByte(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Moves `cut` forward (at most 3 bytes) so it does not split a UTF-8
// character, keeping previews and embeddings inputs well formed.
size_t CharBoundary(std::string_view s, size_t cut) {
  size_t limit = std::min(s.size(), cut + 3);
  while (cut < limit && IsContinuation(s[cut])) ++cut;
  return cut;
}

// Whether token counts add up across a boundary between text ending in
// '\n' and `next`: true when no o200k pre-token can span it, so the
// tokenizer splits the joined text exactly where it splits the parts. A
// pre-token holding a '\n' extends past it only into '\r', '\n', '/' or
// whitespace (the `[\r\n/]*`, `\s*[\r\n]+` and `\s+` branches of the
// pattern); the other branches never hold a '\n'. Conservatively, only a
// printable ASCII byte other than '/' qualifies (no Unicode whitespace).
bool StartsPretokenAlone(std::string_view next) {
  const unsigned char c = static_cast<unsigned char>(next[0]);
  return c > 0x20 && c < 0x7F && c != '/';
}

// ---------------------------------------------------------------------------
// Packing pieces into chunks.

// The chunk of `text` (non-empty) at `offset`, its first line `line`.
Chunk MakeChunk(uint64_t offset, std::string_view text, uint32_t tokens,
                uint64_t line) {
  Chunk c;
  c.offset = offset;
  c.text = std::string(text);
  c.tokens = tokens;
  c.line_begin = line;
  const uint64_t newlines =
      static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
  c.line_end = line + newlines + (text.back() == '\n' ? 0 : 1);
  c.valid_utf8 = core::IsValidUtf8(text);
  return c;
}

class Builder {
 public:
  Builder(const Tokenizer& tok, uint32_t max_tokens, const ChunkSink& emit)
      : tok_(tok), max_(max_tokens), emit_(emit) {}

  // Adds the piece starting at absolute offset `offset`, on 0-based line
  // `line`; `strong` says a strong boundary follows it.
  Status Add(uint64_t offset, std::string_view piece, bool strong,
             uint64_t line) {
    if (piece.empty()) return Status::Ok();
    // A token is rarely more than 8 bytes, so a piece this long is split
    // right away instead of being counted first and encoded again.
    size_t n = piece.size() > 8ull * max_ ? max_ + 1ull : tok_.Count(piece);
    if (n > max_) {
      CTXKIT_RETURN_IF_ERROR(Finish());
      return SplitLong(offset, piece, line);
    }
    while (!pieces_.empty() && tokens_ + n > max_) {
      CTXKIT_RETURN_IF_ERROR(CutForRoom());
    }
    if (pieces_.empty()) offset_ = offset;
    const bool additive =
        !pieces_.empty() && text_.back() == '\n' && StartsPretokenAlone(piece);
    pieces_.push_back(
        {text_.size(), static_cast<uint32_t>(n), strong, !additive, line});
    text_.append(piece);
    tokens_ += n;
    return Status::Ok();
  }

  // Emits everything pending.
  Status Finish() {
    while (!pieces_.empty()) {
      CTXKIT_RETURN_IF_ERROR(EmitFront(pieces_.size()));
    }
    return Status::Ok();
  }

 private:
  struct Piece {
    size_t begin;  // In text_.
    uint32_t tokens;
    bool strong_after;
    // The tokenizer may pre-tokenize across the boundary before this piece,
    // so counts do not simply add up there (see StartsPretokenAlone).
    bool joins_prev;
    uint64_t line;
  };

  // The exact count of the first `n` pending pieces: a sum over runs of
  // pieces joined by non-additive boundaries, each run counted whole.
  size_t ExactCount(size_t n) const {
    size_t total = 0;
    size_t i = 0;
    while (i < n) {
      size_t j = i + 1;
      while (j < n && pieces_[j].joins_prev) ++j;
      if (j == i + 1) {
        total += pieces_[i].tokens;
      } else {
        const size_t end =
            j == pieces_.size() ? text_.size() : pieces_[j].begin;
        total += tok_.Count(std::string_view(text_).substr(
            pieces_[i].begin, end - pieces_[i].begin));
      }
      i = j;
    }
    return total;
  }

  // Emits a prefix of the pending pieces to make room: up to the last
  // strong boundary that keeps at least half the budget, else all of them.
  Status CutForRoom() {
    size_t sum = 0;
    size_t cut = 0;
    for (size_t i = 0; i < pieces_.size(); ++i) {
      sum += pieces_[i].tokens;
      if (pieces_[i].strong_after && 2 * sum >= max_) cut = i + 1;
    }
    return EmitFront(cut == 0 ? pieces_.size() : cut);
  }

  // Emits the first `n` pending pieces as one chunk, or fewer when BPE
  // merges across their boundaries push the exact count over the budget
  // (always at least one: a single piece fits by construction).
  Status EmitFront(size_t n) {
    while (true) {
      const size_t len = n == pieces_.size() ? text_.size() : pieces_[n].begin;
      std::string_view t(text_.data(), len);
      size_t exact = ExactCount(n);
      if (exact > max_ && n > 1) {
        --n;
        continue;
      }
      CTXKIT_RETURN_IF_ERROR(
          EmitText(offset_, t, static_cast<uint32_t>(exact), pieces_[0].line));
      for (size_t i = 0; i < n; ++i) tokens_ -= pieces_[i].tokens;
      pieces_.erase(pieces_.begin(), pieces_.begin() + static_cast<long>(n));
      text_.erase(0, len);
      for (Piece& p : pieces_) p.begin -= len;
      offset_ += len;
      return Status::Ok();
    }
  }

  Status EmitText(uint64_t offset, std::string_view text, uint32_t tokens,
                  uint64_t line) {
    return emit_(MakeChunk(offset, text, tokens, line));
  }

  // The longest prefix of s[pos, pos + guess) (moved forward to a character
  // boundary) that fits the budget, shrinking the guess until it does.
  // Returns its end; *tokens gets its count. A single byte always fits
  // (one token: a byte of ASCII, or U+FFFD for a lone byte >= 0x80).
  size_t FitPrefix(std::string_view s, size_t pos, size_t guess,
                   size_t* tokens) const {
    size_t len = std::clamp<size_t>(guess, 1, s.size() - pos);
    while (true) {
      size_t end = pos + len;
      if (end < s.size()) end = CharBoundary(s, end);
      if (len == 1 && end > pos + 1) {
        // A single character over the budget: split inside it.
        size_t whole = tok_.Count(s.substr(pos, end - pos));
        if (whole > max_) end = pos + 1;
      }
      size_t c = tok_.Count(s.substr(pos, end - pos));
      if (c <= max_ || end == pos + 1) {
        *tokens = c;
        return end;
      }
      len = std::max<size_t>(1, std::min(len - 1, len * max_ / c));
    }
  }

  Status SplitLong(uint64_t offset, std::string_view piece, uint64_t line) {
    const auto emit_part = [&](size_t pos, size_t end, size_t tokens) {
      std::string_view part = piece.substr(pos, end - pos);
      Status s =
          EmitText(offset + pos, part, static_cast<uint32_t>(tokens), line);
      line += static_cast<uint64_t>(std::count(part.begin(), part.end(), '\n'));
      return s;
    };
    if (!core::IsValidUtf8(piece)) {
      // Token byte lengths do not map back onto ill-formed input (it is
      // repaired before BPE), so cut by bytes, sized by exact counts.
      size_t pos = 0;
      size_t guess = 3ull * max_;
      while (pos < piece.size()) {
        size_t tokens = 0;
        size_t end = FitPrefix(piece, pos, guess, &tokens);
        // Aim the next guess at a full budget from this piece's density.
        guess = std::max<size_t>(
            1, (end - pos) * max_ / std::max<size_t>(1, tokens));
        CTXKIT_RETURN_IF_ERROR(emit_part(pos, end, tokens));
        pos = end;
      }
      return Status::Ok();
    }
    // Well-formed: cut after every max_ tokens of the piece's own encoding,
    // then check the part's exact count (a cut moved to a character
    // boundary, or a merge the cut undid, can change it) and back off.
    std::vector<uint32_t> ids = tok_.Encode(piece);
    std::vector<size_t> ends(ids.size());
    size_t cum = 0;
    for (size_t i = 0; i < ids.size(); ++i) {
      CTXKIT_ASSIGN_OR_RETURN(
          std::string t, tok_.Decode(std::span<const uint32_t>(&ids[i], 1)));
      cum += t.size();
      ends[i] = std::min(cum, piece.size());
    }
    size_t pos = 0;
    size_t t = 0;  // First token ending after `pos`.
    while (pos < piece.size()) {
      size_t k = std::min<size_t>(max_, ids.size() - t);
      size_t end = 0;
      size_t tokens = 0;
      while (true) {
        end = t + k >= ids.size() ? piece.size()
                                  : CharBoundary(piece, ends[t + k - 1]);
        tokens = tok_.Count(piece.substr(pos, end - pos));
        if (tokens <= max_) break;
        if (k == 1) {
          end = FitPrefix(piece, pos, end - pos, &tokens);
          break;
        }
        k -= std::min(k - 1, std::max<size_t>(1, tokens - max_));
      }
      CTXKIT_RETURN_IF_ERROR(emit_part(pos, end, tokens));
      pos = end;
      while (t < ids.size() && ends[t] <= pos) ++t;
      if (t == ids.size() && pos < piece.size()) {
        // Only bytes the cut moved past remain (cannot happen for
        // well-formed text, whose tokens cover it): emit them as they are.
        size_t rest = tok_.Count(piece.substr(pos));
        CTXKIT_RETURN_IF_ERROR(emit_part(pos, piece.size(), rest));
        pos = piece.size();
      }
    }
    return Status::Ok();
  }

  const Tokenizer& tok_;
  const uint32_t max_;
  const ChunkSink& emit_;
  uint64_t offset_ = 0;  // Absolute offset of text_[0].
  std::string text_;     // The pending pieces, concatenated.
  std::vector<Piece> pieces_;
  size_t tokens_ = 0;  // Sum of the pending pieces' counts.
};

// ---------------------------------------------------------------------------
// Finding the pieces.

// Where the next piece ends, and whether a strong boundary follows it.
struct PieceEnd {
  size_t end = 0;
  bool strong = false;
};

class Segmenter {
 public:
  // Decides text or JSON from the first bytes of the value.
  explicit Segmenter(std::string_view head) {
    for (char c : head) {
      if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
      json_ = c == '[' || c == '{';
      break;
    }
  }

  // The end of the piece starting at buf[pos], or nullopt when more bytes
  // are needed to know it (never when `eof`).
  std::optional<PieceEnd> Next(std::string_view buf, size_t pos, bool eof) {
    return json_ ? NextJson(buf, pos, eof) : NextLine(buf, pos, eof);
  }

 private:
  static std::optional<PieceEnd> NextLine(std::string_view buf, size_t pos,
                                          bool eof) {
    size_t nl = buf.find('\n', pos);
    if (nl != std::string_view::npos) {
      // A blank line ends a paragraph.
      bool blank = true;
      for (size_t i = pos; i < nl && blank; ++i) blank = IsBlankByte(buf[i]);
      return PieceEnd{nl + 1, blank};
    }
    if (eof) return PieceEnd{buf.size(), true};
    if (buf.size() - pos >= kBlockBytes) {
      // A line longer than a block: cut it so memory stays bounded.
      return PieceEnd{CharBoundary(buf, buf.size() - 4), false};
    }
    return std::nullopt;  // Wait for the rest of the line.
  }

  // Scans with a copy of the state, committed only when the piece ends
  // inside `buf`; an unfinished piece is rescanned with the next block.
  std::optional<PieceEnd> NextJson(std::string_view buf, size_t pos, bool eof) {
    JsonState s = state_;
    bool item_ended = false;
    for (size_t i = pos; i < buf.size(); ++i) {
      const char c = buf[i];
      if (c == '\n') {
        state_ = s;
        state_.escape = false;
        return PieceEnd{i + 1, item_ended || s.depth == 0};
      }
      if (item_ended && !IsBlankByte(c)) {
        state_ = s;
        return PieceEnd{i, true};
      }
      if (i - pos >= kBlockBytes) {
        size_t cut = CharBoundary(buf, i);
        if (cut == i) {
          state_ = s;
          return PieceEnd{i, false};
        }
      }
      if (s.in_string) {
        if (s.escape) {
          s.escape = false;
        } else if (c == '\\') {
          s.escape = true;
        } else if (c == '"') {
          s.in_string = false;
        }
        continue;
      }
      switch (c) {
        case '"':
          s.in_string = true;
          break;
        case '[':
        case '{':
          if (++s.depth == 1) item_ended = true;
          break;
        case ']':
        case '}':
          if (s.depth > 0 && --s.depth == 0) item_ended = true;
          break;
        case ',':
          if (s.depth == 1) item_ended = true;
          break;
        default:
          break;
      }
    }
    if (eof) {
      state_ = s;
      return PieceEnd{buf.size(), true};
    }
    return std::nullopt;
  }

  struct JsonState {
    uint64_t depth = 0;
    bool in_string = false;
    bool escape = false;
  };

  bool json_ = false;
  JsonState state_;
};

}  // namespace

Status ChunkValue(uint64_t size, const RangeReader& read, uint32_t max_tokens,
                  const ChunkSink& emit, std::optional<uint64_t> known_tokens) {
  if (max_tokens < 1) return Status::InvalidArgument("max_tokens must be >= 1");
  CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tok, Tokenizer::Get());
  // A value whose exact count fits the budget is one chunk, whatever its
  // pieces would add up to. Its count is the caller's (recorded when it was
  // written), or counted here when the value is small enough to be likely
  // to fit (a token is about four bytes; the work is bounded either way).
  if (size > 0 && size <= kBlockBytes &&
      (known_tokens || size <= kWholeCountBytesPerToken * max_tokens)) {
    CTXKIT_ASSIGN_OR_RETURN(std::string all, read(0, size));
    if (all.size() == size) {
      const uint64_t total = known_tokens ? *known_tokens : tok->Count(all);
      if (total <= max_tokens) {
        return emit(MakeChunk(0, all, static_cast<uint32_t>(total), 0));
      }
    }
  }
  Builder builder(*tok, max_tokens, emit);
  std::optional<Segmenter> segmenter;
  std::string buf;       // Unprocessed bytes.
  uint64_t buf_off = 0;  // Absolute offset of buf[0].
  uint64_t next = 0;     // Next offset to read.
  uint64_t line = 0;     // Newlines before buf[0].
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
    if (!segmenter) segmenter.emplace(buf);
    size_t pos = 0;
    while (pos < buf.size()) {
      std::optional<PieceEnd> p = segmenter->Next(buf, pos, eof);
      if (!p) break;
      std::string_view piece = std::string_view(buf).substr(pos, p->end - pos);
      CTXKIT_RETURN_IF_ERROR(
          builder.Add(buf_off + pos, piece, p->strong, line));
      line +=
          static_cast<uint64_t>(std::count(piece.begin(), piece.end(), '\n'));
      pos = p->end;
    }
    buf.erase(0, pos);
    buf_off += pos;
    if (eof) break;
  }
  return builder.Finish();
}

}  // namespace ctxkit::index
