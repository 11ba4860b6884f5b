#include "index/thesaurus.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "core/status_macros.h"
#include "os/posix_io.h"

namespace ctxkit::index {

namespace {

// A file mapped read-only for the thesaurus's lifetime.
class MappedText {
 public:
  MappedText() = default;
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  ~MappedText() {
    if (!text_.empty()) {
      ::munmap(const_cast<char*>(text_.data()), text_.size());
    }
  }

  Status Map(const std::string& path) {
    storage::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return storage::ErrnoStatus("open", path);
    struct stat st;
    if (::fstat(fd.get(), &st) != 0) return storage::ErrnoStatus("stat", path);
    if (st.st_size == 0) return Status::Corruption(path + " is empty");
    void* addr = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ,
                        MAP_PRIVATE, fd.get(), 0);
    if (addr == MAP_FAILED) return storage::ErrnoStatus("map", path);
    text_ = std::string_view(static_cast<const char*>(addr),
                             static_cast<size_t>(st.st_size));
    return Status::Ok();
  }

  std::string_view text() const { return text_; }

  // The line starting at `offset` (without its newline); empty past the
  // end.
  std::string_view LineAt(size_t offset) const {
    if (offset >= text_.size()) return {};
    size_t end = text_.find('\n', offset);
    if (end == std::string_view::npos) end = text_.size();
    return text_.substr(offset, end - offset);
  }

  // The line whose first space-separated field is `key`, or empty. The
  // file's lines are sorted by that field in byte order (WordNet's index
  // and exception files; their licence header lines start with spaces,
  // which sort first).
  // Every line whose first field is `key` (the exception lists repeat a
  // few keys on adjacent lines).
  std::vector<std::string_view> FindAll(std::string_view key) const {
    std::vector<std::string_view> out;
    std::string_view line = Find(key);
    if (line.empty()) return out;
    const size_t at = static_cast<size_t>(line.data() - text_.data());
    auto key_of = [](std::string_view l) { return l.substr(0, l.find(' ')); };
    size_t begin = at;
    while (begin >= 2) {  // text_[begin - 1] ends the line before.
      const size_t prev = text_.rfind('\n', begin - 2);
      const size_t start = prev == std::string_view::npos ? 0 : prev + 1;
      if (key_of(LineAt(start)) != key) break;
      begin = start;
    }
    for (size_t i = begin; i < text_.size();) {
      std::string_view l = LineAt(i);
      if (key_of(l) != key) break;
      out.push_back(l);
      i += l.size() + 1;
    }
    return out;
  }

  std::string_view Find(std::string_view key) const {
    size_t lo = 0;
    size_t hi = text_.size();
    // Invariant: the line sought, if any, starts in [lo, hi).
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      size_t start = mid == 0 ? 0 : text_.find('\n', mid - 1);
      if (start == std::string_view::npos) {
        hi = mid;
        continue;
      }
      if (mid != 0) ++start;
      if (start >= hi) {
        hi = mid;
        continue;
      }
      std::string_view line = LineAt(start);
      std::string_view field = line.substr(0, line.find(' '));
      int c = field.compare(key);
      if (c == 0) return line;
      if (c < 0) {
        lo = start + line.size() + 1;
      } else {
        hi = mid;
      }
    }
    return {};
  }

 private:
  std::string_view text_;
};

constexpr size_t kPosCount = 4;
constexpr std::array<std::string_view, kPosCount> kPosNames = {"noun", "verb",
                                                               "adj", "adv"};
constexpr std::array<char, kPosCount> kPosLetters = {'n', 'v', 'a', 'r'};

int PosIndex(char letter) {
  switch (letter) {
    case 'n':
      return 0;
    case 'v':
      return 1;
    case 'a':
    case 's':  // An adjective satellite lives in data.adj.
      return 2;
    case 'r':
      return 3;
    default:
      return -1;
  }
}

// WordNet's detachment rules (morphy(7WN)): an ending and its replacement.
struct Rule {
  std::string_view suffix;
  std::string_view ending;
};
constexpr std::array<Rule, 8> kNounRules = {{{"s", ""},
                                             {"ses", "s"},
                                             {"xes", "x"},
                                             {"zes", "z"},
                                             {"ches", "ch"},
                                             {"shes", "sh"},
                                             {"men", "man"},
                                             {"ies", "y"}}};
constexpr std::array<Rule, 8> kVerbRules = {{{"s", ""},
                                             {"ies", "y"},
                                             {"es", "e"},
                                             {"es", ""},
                                             {"ed", "e"},
                                             {"ed", ""},
                                             {"ing", "e"},
                                             {"ing", ""}}};
constexpr std::array<Rule, 4> kAdjRules = {
    {{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"}}};

// The space-separated fields of a line.
class Fields {
 public:
  explicit Fields(std::string_view line) : rest_(line) {}
  std::string_view Next() {
    while (!rest_.empty() && rest_.front() == ' ') rest_.remove_prefix(1);
    size_t end = rest_.find(' ');
    std::string_view f = rest_.substr(0, end);
    rest_.remove_prefix(end == std::string_view::npos ? rest_.size() : end);
    return f;
  }

 private:
  std::string_view rest_;
};

bool ParseNumber(std::string_view s, int base, uint64_t* out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

// One synset of a data file, as far as Related needs it.
struct Synset {
  std::vector<std::string_view> words;  // WordNet's spelling.
  struct Pointer {
    std::string_view symbol;
    uint64_t offset = 0;
    int pos = -1;
    uint32_t source = 0;  // 0: between synsets; else a word number.
    uint32_t target = 0;
  };
  std::vector<Pointer> pointers;
};

bool ParseSynset(std::string_view line, Synset* out) {
  Fields f(line);
  f.Next();  // offset
  f.Next();  // lex_filenum
  f.Next();  // ss_type
  uint64_t words = 0;
  if (!ParseNumber(f.Next(), 16, &words)) return false;
  for (uint64_t i = 0; i < words; ++i) {
    std::string_view w = f.Next();
    f.Next();  // lex_id
    if (w.empty()) return false;
    out->words.push_back(w);
  }
  uint64_t pointers = 0;
  if (!ParseNumber(f.Next(), 10, &pointers)) return false;
  for (uint64_t i = 0; i < pointers; ++i) {
    Synset::Pointer p;
    p.symbol = f.Next();
    std::string_view pos = f.Next();
    if (!ParseNumber(pos, 10, &p.offset)) return false;
    pos = f.Next();
    p.pos = pos.size() == 1 ? PosIndex(pos[0]) : -1;
    std::string_view st = f.Next();
    uint64_t s = 0;
    if (p.pos < 0 || st.size() != 4 || !ParseNumber(st, 16, &s)) return false;
    p.source = static_cast<uint32_t>(s >> 8);
    p.target = static_cast<uint32_t>(s & 0xff);
    out->pointers.push_back(p);
  }
  return true;
}

// A WordNet word as query text: adjective markers ("big(a)") dropped,
// lower case, the words of a collocation ("set_up", "x-ray") separated by
// single spaces; empty when it holds anything but ASCII letters or more
// than three words.
std::string PlainWord(std::string_view w) {
  size_t paren = w.find('(');
  if (paren != std::string_view::npos) w = w.substr(0, paren);
  std::string out;
  int words = 1;
  for (char c : w) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c == '_' || c == '-' || c == ' ') {
      if (out.empty() || out.back() == ' ') return {};
      if (++words > 3) return {};
      out += ' ';
      continue;
    }
    if (c < 'a' || c > 'z') return {};
    out += c;
  }
  if (!out.empty() && out.back() == ' ') return {};
  return out;
}

// WordNet's spellings of query text: its words joined by '_', then by '-'
// (WordNet spells runs both ways: "coffee_maker", "out-of-pocket"); none
// when the text is not words of ASCII letters.
std::vector<std::string> Spellings(std::string_view text) {
  std::string plain = PlainWord(text);
  if (plain.empty()) return {};
  if (plain.find(' ') == std::string::npos) return {plain};
  std::string underscored = plain;
  std::replace(underscored.begin(), underscored.end(), ' ', '_');
  std::replace(plain.begin(), plain.end(), ' ', '-');
  return {underscored, plain};
}

// Whether `form` is `base` with an ending the index's stemmer removes: an
// s/es/ed/ing/er/est ending, after a doubled final consonant, a dropped
// final e or a final y turned to i. Irregular forms that are not (children,
// bought) must be searched for themselves.
bool Stemmed(std::string_view form, std::string_view base) {
  static constexpr std::array<std::string_view, 6> kEndings = {
      "s", "es", "ed", "ing", "er", "est"};
  std::vector<std::string> stems = {std::string(base)};
  if (!base.empty()) {
    stems.push_back(std::string(base) + base.back());  // slip -> slipp
    if (base.back() == 'e' || base.back() == 'y') {
      stems.push_back(std::string(base.substr(0, base.size() - 1)));
    }
    if (base.back() == 'y') {
      stems.push_back(std::string(base.substr(0, base.size() - 1)) + "i");
    }
  }
  for (const std::string& stem : stems) {
    if (!form.starts_with(stem)) continue;
    const std::string_view rest = form.substr(stem.size());
    if (std::find(kEndings.begin(), kEndings.end(), rest) != kEndings.end()) {
      return true;
    }
  }
  return false;
}

// How many senses of a word are widened (WordNet lists a word's senses
// most frequent first), and how many of those lend their hypernyms.
constexpr uint64_t kSenses = 3;
constexpr uint64_t kHypernymSenses = 1;
constexpr uint64_t kHyponymSenses = 1;

}  // namespace

struct Thesaurus::Files {
  std::array<MappedText, kPosCount> index;
  std::array<MappedText, kPosCount> data;
  std::array<MappedText, kPosCount> exceptions;

  // Irregular inflected forms by base form, per part of speech (the
  // exception lists read backwards), built on first use. Forms the index's
  // stemmer reduces itself (slipping, blotted) are left out.
  mutable std::once_flag irregular_once;
  mutable std::array<std::unordered_multimap<std::string, std::string>,
                     kPosCount>
      irregular;

  std::vector<std::string> IrregularForms(int pos,
                                          const std::string& base) const {
    std::call_once(irregular_once, [this] {
      for (size_t p = 0; p < kPosCount; ++p) {
        const MappedText& exc = exceptions[p];
        std::string_view text = exc.text();
        for (size_t at = 0; at < text.size();) {
          std::string_view line = exc.LineAt(at);
          at += line.size() + 1;
          Fields f(line);
          const std::string form = PlainWord(f.Next());
          for (std::string_view b = f.Next(); !b.empty(); b = f.Next()) {
            const std::string plain = PlainWord(b);
            if (!form.empty() && !plain.empty() && !Stemmed(form, plain)) {
              irregular[p].emplace(plain, form);
            }
          }
        }
      }
    });
    std::vector<std::string> out;
    auto [lo, hi] = irregular[pos].equal_range(base);
    for (auto it = lo; it != hi; ++it) out.push_back(it->second);
    return out;
  }

  // How WordNet spells `text` (Spellings): the first spelling an index
  // holds, else the first.
  std::string Spelling(std::string_view text) const;

  std::optional<Synset> SynsetAt(int pos, uint64_t offset) const {
    std::string_view line = data[pos].LineAt(offset);
    Synset s;
    if (line.empty() || !ParseSynset(line, &s)) return std::nullopt;
    return s;
  }

  // The base forms of `word` as part of speech `pos` that WordNet knows.
  std::vector<std::string> BaseForms(int pos, std::string_view word) const {
    std::vector<std::string> candidates = {std::string(word)};
    for (std::string_view exc : exceptions[pos].FindAll(word)) {
      Fields f(exc);
      f.Next();
      for (std::string_view b = f.Next(); !b.empty(); b = f.Next()) {
        candidates.emplace_back(b);
      }
    }
    auto apply = [&](const auto& rules) {
      for (const Rule& r : rules) {
        if (word.size() > r.suffix.size() && word.ends_with(r.suffix)) {
          candidates.push_back(
              std::string(word.substr(0, word.size() - r.suffix.size())) +
              std::string(r.ending));
        }
      }
    };
    if (pos == 0) apply(kNounRules);
    if (pos == 1) apply(kVerbRules);
    if (pos == 2) apply(kAdjRules);
    std::vector<std::string> out;
    for (std::string& c : candidates) {
      if (std::find(out.begin(), out.end(), c) == out.end() &&
          !index[pos].Find(c).empty()) {
        out.push_back(std::move(c));
      }
    }
    return out;
  }

  // The synset offsets of lemma `lemma` as `pos`, most frequent sense
  // first.
  std::vector<uint64_t> Senses(int pos, std::string_view lemma) const {
    std::string_view line = index[pos].Find(lemma);
    Fields f(line);
    f.Next();  // lemma
    f.Next();  // pos
    uint64_t synsets = 0;
    uint64_t pointer_kinds = 0;
    std::vector<uint64_t> out;
    if (!ParseNumber(f.Next(), 10, &synsets) ||
        !ParseNumber(f.Next(), 10, &pointer_kinds)) {
      return out;
    }
    for (uint64_t i = 0; i < pointer_kinds; ++i) f.Next();
    f.Next();  // sense_cnt
    f.Next();  // tagsense_cnt
    for (uint64_t i = 0; i < synsets; ++i) {
      uint64_t offset = 0;
      if (!ParseNumber(f.Next(), 10, &offset)) break;
      out.push_back(offset);
    }
    return out;
  }
};

Thesaurus::Thesaurus(std::unique_ptr<Files> files) : files_(std::move(files)) {}
Thesaurus::~Thesaurus() = default;

Result<std::unique_ptr<Thesaurus>> Thesaurus::Open(const std::string& dir) {
  auto files = std::make_unique<Files>();
  for (size_t p = 0; p < kPosCount; ++p) {
    const std::string name(kPosNames[p]);
    CTXKIT_RETURN_IF_ERROR(files->index[p].Map(dir + "/index." + name));
    CTXKIT_RETURN_IF_ERROR(files->data[p].Map(dir + "/data." + name));
    CTXKIT_RETURN_IF_ERROR(files->exceptions[p].Map(dir + "/" + name + ".exc"));
    // Every index line names its part of speech second, and every data
    // line starts with its own offset: check the first of each.
    const MappedText& index = files->index[p];
    size_t at = 0;
    while (index.LineAt(at).starts_with(' ')) at += index.LineAt(at).size() + 1;
    Fields f(index.LineAt(at));
    f.Next();
    const MappedText& data = files->data[p];
    size_t first = 0;
    while (data.LineAt(first).starts_with(' ')) {
      first += data.LineAt(first).size() + 1;
    }
    uint64_t offset = 0;
    if (f.Next() != std::string_view(&kPosLetters[p], 1) ||
        !ParseNumber(Fields(data.LineAt(first)).Next(), 10, &offset) ||
        offset != first) {
      return Status::Corruption(dir + "/index." + name + " or data." + name +
                                " is not a WordNet 3 file");
    }
  }
  return std::unique_ptr<Thesaurus>(new Thesaurus(std::move(files)));
}

const Thesaurus* Thesaurus::Default(std::string* why) {
  static std::once_flag once;
  static Thesaurus* instance = nullptr;
  static std::string* failure = nullptr;
  std::call_once(once, [] {
    Result<std::unique_ptr<Thesaurus>> t = Open(std::string(kWordNetDir));
    if (t.ok()) {
      instance = t->release();
    } else {
      failure = new std::string(t.status().ToString());
    }
  });
  if (instance == nullptr && why != nullptr) *why = *failure;
  return instance;
}

std::string Thesaurus::Files::Spelling(std::string_view text) const {
  std::vector<std::string> spellings = Spellings(text);
  for (const std::string& s : spellings) {
    for (const MappedText& index : index) {
      if (!index.Find(s).empty()) return s;
    }
  }
  return spellings.empty() ? std::string() : spellings.front();
}

bool Thesaurus::Knows(std::string_view word) const {
  const std::string key = files_->Spelling(word);
  if (key.empty()) return false;
  for (size_t p = 0; p < kPosCount; ++p) {
    if (!files_->index[p].Find(key).empty()) return true;
  }
  return false;
}

std::vector<Thesaurus::RelatedWord> Thesaurus::Related(std::string_view word,
                                                       size_t limit) const {
  std::vector<RelatedWord> out;
  const std::string key = files_->Spelling(word);
  if (key.empty()) return out;
  const std::string self_text = PlainWord(key);
  auto add_one = [&](std::string plain, Relation relation) {
    if (plain.empty() || plain == self_text || out.size() >= limit ||
        std::any_of(out.begin(), out.end(),
                    [&](const RelatedWord& r) { return r.word == plain; })) {
      return;
    }
    out.push_back({std::move(plain), relation});
  };
  // A word as part of speech `pos` and its irregular forms (child ->
  // children): the index stems regular endings itself.
  auto add = [&](int pos, std::string_view w, Relation relation) {
    std::string plain = PlainWord(w);
    if (plain.empty()) return;
    add_one(plain, relation);
    for (const std::string& form : files_->IrregularForms(pos, plain)) {
      add_one(form, relation);
    }
  };
  // Closest first: every base form, then each part of speech's senses in
  // turn (its synonyms and derived words), then the more general, similar
  // and more specific words.
  struct Sense {
    int pos;
    std::string lemma;
    uint64_t rank;
    Synset synset;
  };
  std::vector<Sense> senses;
  for (size_t p = 0; p < kPosCount; ++p) {
    const int pos = static_cast<int>(p);
    for (std::string& lemma : files_->BaseForms(pos, key)) {
      add(pos, lemma, Relation::kBaseForm);
      std::vector<uint64_t> offsets = files_->Senses(pos, lemma);
      for (uint64_t i = 0; i < offsets.size() && i < kSenses; ++i) {
        std::optional<Synset> s = files_->SynsetAt(pos, offsets[i]);
        if (s) senses.push_back({pos, lemma, i, std::move(*s)});
      }
    }
  }
  std::stable_sort(
      senses.begin(), senses.end(),
      [](const Sense& a, const Sense& b) { return a.rank < b.rank; });
  for (const Sense& s : senses) {
    // The lemma's own word number in the synset, for lexical pointers.
    uint32_t self = 0;
    for (size_t i = 0; i < s.synset.words.size(); ++i) {
      if (PlainWord(s.synset.words[i]) == PlainWord(s.lemma)) {
        self = static_cast<uint32_t>(i + 1);
      }
    }
    for (std::string_view w : s.synset.words) {
      add(s.pos, w, Relation::kSynonym);
    }
    for (const Synset::Pointer& p : s.synset.pointers) {
      if (p.symbol != "+" || p.source != self || self == 0) continue;
      std::optional<Synset> t = files_->SynsetAt(p.pos, p.offset);
      if (t && p.target >= 1 && p.target <= t->words.size()) {
        add(p.pos, t->words[p.target - 1], Relation::kDerived);
      }
    }
  }
  auto follow = [&](const Synset& from, std::string_view symbol,
                    Relation relation, std::vector<Synset>* reached) {
    for (const Synset::Pointer& p : from.pointers) {
      if (out.size() >= limit) return;
      if (p.symbol != symbol) continue;
      std::optional<Synset> t = files_->SynsetAt(p.pos, p.offset);
      if (!t) continue;
      for (std::string_view w : t->words) add(p.pos, w, relation);
      if (reached != nullptr) reached->push_back(std::move(*t));
    }
  };
  for (const Sense& s : senses) {
    if (s.pos == 2) follow(s.synset, "&", Relation::kSimilar, nullptr);
    if (s.rank < kHypernymSenses && s.pos <= 1) {
      follow(s.synset, "@", Relation::kGeneral, nullptr);
    }
  }
  for (const Sense& s : senses) {
    if (s.rank >= kHyponymSenses || s.pos > 1) continue;
    std::vector<Synset> level;
    follow(s.synset, "~", Relation::kSpecific, &level);
    for (const Synset& next : level) {
      follow(next, "~", Relation::kSpecific, nullptr);
    }
  }
  return out;
}

}  // namespace ctxkit::index
