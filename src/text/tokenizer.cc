// The public Tokenizer: registry, repair of ill-formed UTF-8, and the loop
// that feeds pre-tokenized pieces to BPE.

#include "ctxkit/tokenizer.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <unordered_map>

#include "text/byte_pair_merge.h"
#include "text/embedded_data.h"
#include "text/pretokenizer.h"
#include "text/rank_table.h"
#include "text/utf8.h"

namespace ctxkit {

struct Tokenizer::Rep {
  Encoding encoding;
  std::unique_ptr<text::RankTable> ranks;
  text::PreTokenizer pre;
  uint32_t n_vocab;
  std::unordered_map<uint32_t, std::string> special_text;
};

namespace {

constexpr Encoding kAllEncodings[] = {Encoding::kO200kBase,
                                      Encoding::kCl100kBase};

text::SplitPattern PatternOf(Encoding encoding) {
  return encoding == Encoding::kO200kBase ? text::SplitPattern::kO200k
                                          : text::SplitPattern::kCl100k;
}

// Returns `text` itself when it is well-formed UTF-8, else its repaired
// copy in `*storage` (see the header for the policy).
std::string_view RepairedUtf8(std::string_view text, std::string* storage) {
  const size_t valid = text::ValidUtf8Prefix(text);
  if (valid == text.size()) return text;
  storage->reserve(text.size() + 16);
  storage->assign(text.substr(0, valid));
  text::AppendRepairedUtf8(text.substr(valid), /*final=*/true, storage);
  return *storage;
}

}  // namespace

std::string_view EncodingName(Encoding encoding) {
  switch (encoding) {
    case Encoding::kO200kBase:
      return "o200k_base";
    case Encoding::kCl100kBase:
      return "cl100k_base";
  }
  return "unknown";
}

Result<Encoding> ParseEncoding(std::string_view name) {
  for (Encoding e : kAllEncodings) {
    if (EncodingName(e) == name) return e;
  }
  return Status::InvalidArgument("unknown encoding \"" + std::string(name) +
                                 "\" (known: o200k_base, cl100k_base)");
}

Result<const Tokenizer*> Tokenizer::Get(Encoding encoding) {
  struct Slot {
    std::once_flag once;
    const Tokenizer* tokenizer = nullptr;
    Status status;
  };
  // Built once per encoding and never destroyed: callers may hold the
  // pointer until exit, including from other static destructors.
  static Slot* const slots = new Slot[std::size(kAllEncodings)];
  const size_t index = static_cast<size_t>(encoding);
  if (index >= std::size(kAllEncodings)) {
    return Status::InvalidArgument("unknown encoding");
  }
  Slot& slot = slots[index];
  std::call_once(slot.once, [&slot, encoding] {
    const std::string_view name = EncodingName(encoding);
    Result<std::unique_ptr<text::RankTable>> ranks =
        text::RankTable::FromImage(text::EmbeddedRankImage(name), name,
                                   text::RankTable::ImageCheck::kQuick);
    if (!ranks.ok()) {
      slot.status = ranks.status();
      return;
    }
    auto rep =
        std::unique_ptr<Rep>(new Rep{encoding,
                                     std::move(*ranks),
                                     text::PreTokenizer(PatternOf(encoding)),
                                     0,
                                     {}});
    rep->n_vocab = rep->ranks->size();
    for (const auto& [id, special] : rep->ranks->specials()) {
      rep->special_text.emplace(id, special);
      rep->n_vocab = std::max(rep->n_vocab, id + 1);
    }
    slot.tokenizer = new Tokenizer(std::move(rep));
  });
  if (slot.tokenizer == nullptr) return slot.status;
  return slot.tokenizer;
}

Result<const Tokenizer*> Tokenizer::Get(std::string_view name) {
  Result<Encoding> encoding = ParseEncoding(name);
  if (!encoding.ok()) return encoding.status();
  return Get(*encoding);
}

Tokenizer::Tokenizer(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
Tokenizer::~Tokenizer() = default;

Encoding Tokenizer::encoding() const { return rep_->encoding; }

uint32_t Tokenizer::n_vocab() const { return rep_->n_vocab; }

std::vector<uint32_t> Tokenizer::Encode(std::string_view text) const {
  std::string storage;
  text = RepairedUtf8(text, &storage);
  std::vector<uint32_t> tokens;
  // English prose averages about four bytes per token.
  tokens.reserve(text.size() / 4 + 1);
  const text::RankTable& ranks = *rep_->ranks;
  rep_->pre.Split(text, /*final=*/true, [&](std::string_view piece) {
    text::BytePairEncode(ranks, piece, &tokens);
  });
  return tokens;
}

size_t Tokenizer::Count(std::string_view text) const {
  std::string storage;
  text = RepairedUtf8(text, &storage);
  size_t consumed;
  return CountValidUtf8(text, /*final=*/true, &consumed);
}

size_t Tokenizer::CountValidUtf8(std::string_view text, bool final,
                                 size_t* consumed) const {
  size_t count = 0;
  const text::RankTable& ranks = *rep_->ranks;
  *consumed = rep_->pre.Split(text, final, [&](std::string_view piece) {
    count += text::BytePairCount(ranks, piece);
  });
  return count;
}

Result<std::string> Tokenizer::Decode(std::span<const uint32_t> tokens) const {
  const text::RankTable& ranks = *rep_->ranks;
  std::string out;
  out.reserve(tokens.size() * 4);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const uint32_t id = tokens[i];
    if (id < ranks.size()) {
      out.append(ranks.Bytes(id));
      continue;
    }
    auto special = rep_->special_text.find(id);
    if (special == rep_->special_text.end()) {
      return Status::InvalidArgument("token id " + std::to_string(id) +
                                     " at position " + std::to_string(i) +
                                     " is not in " + std::string(name()));
    }
    out.append(special->second);
  }
  return out;
}

}  // namespace ctxkit
