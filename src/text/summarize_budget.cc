#include "text/summarize_budget.h"

#include <algorithm>
#include <cstdio>

#include "text/utf8.h"

namespace ctxkit::text {

namespace {

// Joins the header and the chosen lines of each block.
std::string Render(std::string_view header,
                   const std::vector<SummaryBlock>& blocks,
                   const std::vector<size_t>& chosen) {
  std::string out(header);
  for (size_t b = 0; b < blocks.size(); ++b) {
    if (chosen[b] == 0) continue;
    const SummaryBlock& block = blocks[b];
    if (!block.heading.empty()) {
      if (!out.empty()) out += '\n';
      out += block.heading;
    }
    size_t first = block.keep_back ? block.lines.size() - chosen[b] : 0;
    for (size_t i = first; i < first + chosen[b]; ++i) {
      if (!out.empty()) out += '\n';
      out += block.lines[i];
    }
  }
  return out;
}

}  // namespace

std::string ClipLine(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  size_t cut = ValidUtf8Prefix(text.substr(0, max_bytes));
  // ValidUtf8Prefix stops at the first bad byte; for text that is not
  // UTF-8 at all keep the raw bytes (the tokenizer repairs them).
  if (cut + 4 < max_bytes) cut = max_bytes;
  return std::string(text.substr(0, cut)) + "\xE2\x80\xA6";  // "…"
}

std::string FitToTokens(const Tokenizer& tok, std::string_view text,
                        size_t max_tokens) {
  if (max_tokens == 0 || text.empty()) return "";
  std::vector<uint32_t> ids = tok.Encode(text);
  if (ids.size() <= max_tokens) return std::string(text);
  size_t k = max_tokens;
  while (k > 0) {
    Result<std::string> prefix =
        tok.Decode(std::span<const uint32_t>(ids.data(), k));
    if (!prefix.ok()) return "";
    std::string candidate = prefix->substr(0, ValidUtf8Prefix(*prefix));
    // Prefer ending at a line break when one is in the last third.
    size_t nl = candidate.rfind('\n');
    if (nl != std::string::npos && nl > 0 && nl >= candidate.size() * 2 / 3) {
      candidate.resize(nl);
    }
    if (!candidate.empty() && tok.Count(candidate) <= max_tokens) {
      return candidate;
    }
    --k;
  }
  return "";
}

std::string RenderWithinBudget(const Tokenizer& tok, std::string_view header,
                               const std::vector<SummaryBlock>& blocks,
                               size_t max_tokens) {
  if (max_tokens == 0) return "";
  std::string head = FitToTokens(tok, header, max_tokens);
  const size_t head_cost = tok.Count(head) + (head.empty() ? 0 : 1);
  if (head_cost >= max_tokens || blocks.empty()) return head;
  const size_t remaining = max_tokens - head_cost;

  // Per-line costs, counted with the line break that will follow them.
  std::vector<std::vector<size_t>> cost(blocks.size());
  std::vector<size_t> heading_cost(blocks.size(), 0);
  int total_weight = 0;
  for (size_t b = 0; b < blocks.size(); ++b) {
    const SummaryBlock& block = blocks[b];
    heading_cost[b] = block.heading.empty() ? 0 : tok.Count(block.heading) + 1;
    cost[b].reserve(block.lines.size());
    for (const std::string& line : block.lines) {
      cost[b].push_back(tok.Count(line) + 1);
    }
    total_weight += std::max(block.weight, 0);
  }
  if (total_weight <= 0) total_weight = 1;

  std::vector<size_t> chosen(blocks.size(), 0);
  std::vector<size_t> spent(blocks.size(), 0);
  size_t used = 0;
  auto line_cost = [&](size_t b, size_t n) {
    // Cost of the (n+1)-th chosen line of block b, counted from its end.
    size_t index = blocks[b].keep_back ? blocks[b].lines.size() - 1 - n : n;
    return cost[b][index];
  };
  auto grow = [&](size_t b, size_t limit) {
    while (chosen[b] < blocks[b].lines.size()) {
      size_t c =
          line_cost(b, chosen[b]) + (chosen[b] == 0 ? heading_cost[b] : 0);
      if (spent[b] + c > limit || used + c > remaining) break;
      spent[b] += c;
      used += c;
      ++chosen[b];
    }
  };
  // Pass 1: each block within its share. Pass 2: whatever is left, heaviest
  // block first.
  for (size_t b = 0; b < blocks.size(); ++b) {
    size_t share = remaining *
                   static_cast<size_t>(std::max(blocks[b].weight, 0)) /
                   static_cast<size_t>(total_weight);
    grow(b, share);
  }
  std::vector<size_t> by_weight(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) by_weight[b] = b;
  std::stable_sort(by_weight.begin(), by_weight.end(), [&](size_t a, size_t b) {
    return blocks[a].weight > blocks[b].weight;
  });
  for (size_t b : by_weight) grow(b, remaining);

  // The exact count of the joined text may differ from the sum of the
  // parts (BPE merges across line breaks): drop lines until it fits.
  std::string out = Render(head, blocks, chosen);
  while (tok.Count(out) > max_tokens) {
    size_t widest = 0;
    for (size_t b = 1; b < blocks.size(); ++b) {
      if (chosen[b] > chosen[widest]) widest = b;
    }
    if (chosen[widest] == 0) return FitToTokens(tok, head, max_tokens);
    --chosen[widest];
    out = Render(head, blocks, chosen);
  }
  return out;
}

bool LooksLikeText(std::string_view sample) {
  if (sample.empty()) return true;
  std::string_view probe = sample.substr(0, 64 << 10);
  size_t bad = 0;
  size_t pos = 0;
  while (pos < probe.size()) {
    size_t ok = ValidUtf8Prefix(probe.substr(pos));
    for (size_t i = pos; i < pos + ok; ++i) {
      unsigned char c = static_cast<unsigned char>(probe[i]);
      if (c == 0) return false;
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f') ++bad;
    }
    pos += ok;
    if (pos < probe.size()) {
      // A sequence cut by the end of the sample is not an error.
      if (probe.size() - pos < 4) break;
      ++bad;
      ++pos;
    }
  }
  return bad * 20 <= probe.size();  // At most 5% suspicious bytes.
}

}  // namespace ctxkit::text
