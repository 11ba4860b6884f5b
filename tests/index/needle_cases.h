// Needle-in-a-haystack retrieval cases for find_relevant, shared by the
// test (tests/index/needle_test.cc, small) and the benchmark
// (bench/needle_bench.cc, 100 cases of ~132k tokens), and the reworded
// cases (tests/index/reworded_test.cc, the same benchmark).
//
// A haystack is real text found on this machine — the license texts in
// /usr/share/common-licenses (every Debian system has them) and, when
// asked, the packages' /usr/share/doc/*/copyright files — cut into
// paragraphs and sampled by a seeded generator until it reaches the token
// target. One fact is planted as its own paragraph at a depth that varies
// from case to case. The question paraphrases the fact (other verbs and
// nouns) but names its entity as a user would: it shares the proper nouns
// and a rare word or two, never the whole sentence.
//
// Everything is deterministic for a given set of corpus files.

#ifndef CTXKIT_TESTS_INDEX_NEEDLE_CASES_H_
#define CTXKIT_TESTS_INDEX_NEEDLE_CASES_H_

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/tokenizer.h"

namespace ctxkit::needle {

struct Case {
  std::string haystack;
  // The planted fact: bytes [fact_begin, fact_end) of haystack.
  uint64_t fact_begin = 0;
  uint64_t fact_end = 0;
  std::string fact;
  std::string question;
  size_t tokens = 0;  // o200k tokens of the haystack.
};

// Whether the chunk [offset, offset + length) holds the case's whole fact.
inline bool HoldsFact(const Case& c, uint64_t offset, uint64_t length) {
  return offset <= c.fact_begin && c.fact_end <= offset + length;
}

struct Paragraph {
  std::string text;  // Ends with "\n\n".
  size_t tokens = 0;
};

inline std::string ReadWhole(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The corpus: paragraphs (blank-line separated, at least 60 bytes,
// duplicates dropped) of the license texts and, with `doc_copyrights`, of
// /usr/share/doc/*/copyright, files taken in sorted path order.
inline std::vector<Paragraph> LoadCorpus(bool doc_copyrights) {
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  for (const auto& e :
       std::filesystem::directory_iterator("/usr/share/common-licenses", ec)) {
    if (e.is_regular_file(ec) && !e.is_symlink(ec)) files.push_back(e.path());
  }
  if (doc_copyrights) {
    for (const auto& e :
         std::filesystem::directory_iterator("/usr/share/doc", ec)) {
      std::filesystem::path c = e.path() / "copyright";
      if (std::filesystem::is_regular_file(c, ec) &&
          !std::filesystem::is_symlink(c, ec)) {
        files.push_back(c);
      }
    }
  }
  std::sort(files.begin(), files.end());
  const Tokenizer* tok = *Tokenizer::Get();
  std::set<std::string> seen;
  std::vector<Paragraph> out;
  for (const auto& f : files) {
    std::string text = ReadWhole(f);
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find("\n\n", pos);
      if (end == std::string::npos) end = text.size();
      std::string para = text.substr(pos, end - pos);
      pos = end + 2;
      // Trim blank lines around it.
      while (!para.empty() && (para.front() == '\n' || para.front() == ' '))
        para.erase(0, 1);
      if (para.size() < 60 || !seen.insert(para).second) continue;
      para += "\n\n";
      size_t n = tok->Count(para);
      out.push_back({std::move(para), n});
    }
  }
  return out;
}

// splitmix64: small, seedable, the same everywhere.
struct Rng {
  uint64_t s;
  uint64_t Next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  template <typename T>
  const T& Pick(const std::vector<T>& v) {
    return v[Next() % v.size()];
  }
};

// A fact and a question that asks for it in other words. Slots: {P} a
// person, {O} an organisation or project codename, {C} a city, {N} a
// number, {X} a name for a pet, ship or star.
struct Template {
  const char* fact;
  const char* question;
};

inline const std::vector<Template>& Templates() {
  static const std::vector<Template> t = {
      {"{P} keeps the spare key to the {O} storage unit taped under a blue "
       "ceramic flowerpot by the back door.",
       "Where does {P} hide the extra key for the {O} storage unit?"},
      {"After the flood, the {O} nightly build server was moved to a "
       "colocation rack in {C}.",
       "In which city is the {O} nightly build machine hosted now?"},
      {"{P} was born in {C} in the winter of 19{N}, the youngest of five.",
       "What is the birthplace of {P}?"},
      {"The passphrase for the {O} staging database is \"{X}-{N}\", rotated "
       "every quarter.",
       "What password protects the {O} staging DB?"},
      {"{P} adopted a three-legged greyhound named {X} from a shelter near "
       "{C}.",
       "What is the name of the dog that {P} rescued?"},
      {"At the {O} offsite, {P} presented a revenue forecast of {N} million "
       "euros for next year.",
       "How much revenue did {P} predict at the {O} retreat?"},
      {"{P}'s grandmother's lentil soup is seasoned with smoked paprika, "
       "cumin and a spoon of honey.",
       "Which spices go into the lentil soup of {P}'s grandmother?"},
      {"The {O} observatory recorded an unexpected flare from the star {X} "
       "on the night of March {N}.",
       "When did the {O} telescope detect the flare from {X}?"},
      {"{P} replaced the corroded intake valve on the {O} pumping station's "
       "second boiler.",
       "Which part did {P} swap out at the {O} pump station?"},
      {"The annual {O} chess tournament was won by {P}, who beat the "
       "defending champion in forty moves.",
       "Who took first place in the yearly {O} chess competition?"},
      {"The research vessel {X} left {C} with {N} crew members bound for "
       "the Weddell Sea.",
       "How many people sailed on the {X} when it departed from {C}?"},
      {"{P} is allergic to hazelnuts and carries an epinephrine injector "
       "at all times.",
       "What food allergy does {P} have?"},
  };
  return t;
}

inline const std::vector<std::string>& FirstNames() {
  static const std::vector<std::string> v = {
      "Ingrid",    "Tomasz",   "Keiko",   "Oluwaseun",   "Marisol",   "Dmitri",
      "Anneliese", "Rafferty", "Saoirse", "Bartholomew", "Yusuf",     "Lucinda",
      "Thandiwe",  "Ignacio",  "Freya",   "Kwame",       "Esperanza", "Radek"};
  return v;
}
inline const std::vector<std::string>& LastNames() {
  static const std::vector<std::string> v = {
      "Okonkwo",   "Lindqvist",   "Haddad",     "Nakamura",  "Abernathy",
      "Kowalczyk", "Fairweather", "Delacroix",  "Ostrowski", "Balogun",
      "Szymanski", "Valderrama",  "Achterberg", "Mbeki",     "Quinlan"};
  return v;
}
inline const std::vector<std::string>& Orgs() {
  static const std::vector<std::string> v = {
      "Halcyon", "Ironbark", "Larkspur", "Quillon",   "Marigold", "Tessellate",
      "Bluefin", "Cobaltia", "Juniper",  "Vantablue", "Orchard",  "Granite"};
  return v;
}
inline const std::vector<std::string>& Cities() {
  static const std::vector<std::string> v = {
      "Tromsø", "Valparaíso", "Ouagadougou", "Hobart",    "Tbilisi",
      "Kraków", "Nagoya",     "Asunción",    "Reykjavík", "Windhoek"};
  return v;
}
inline const std::vector<std::string>& Names() {
  static const std::vector<std::string> v = {
      "Biscuit", "Marlowe", "Pemberton", "Zephyrine", "Kestrel",
      "Gliese",  "Ondine",  "Tamarind",  "Corvina",   "Halloran"};
  return v;
}

inline std::string Fill(std::string s, const std::string& p,
                        const std::string& o, const std::string& c,
                        const std::string& n, const std::string& x) {
  const std::pair<std::string_view, const std::string*> slots[] = {
      {"{P}", &p}, {"{O}", &o}, {"{C}", &c}, {"{N}", &n}, {"{X}", &x}};
  for (const auto& [slot, value] : slots) {
    for (size_t at = s.find(slot); at != std::string::npos;
         at = s.find(slot, at + value->size())) {
      s.replace(at, slot.size(), *value);
    }
  }
  return s;
}

// A haystack of about `target_tokens` tokens from `corpus`, paragraphs
// drawn by `rng`, with `fact` planted at depth (index * 37 % 100) percent.
inline Case PlantFact(const std::vector<Paragraph>& corpus, Rng& rng,
                      uint64_t index, size_t target_tokens, std::string fact,
                      std::string question) {
  Case c;
  c.fact = std::move(fact);
  c.question = std::move(question);
  const Tokenizer* tok = *Tokenizer::Get();
  const size_t fact_tokens = tok->Count(c.fact + "\n\n");
  const size_t depth = (index * 37 % 100) * target_tokens / 100;
  bool planted = false;
  while (c.tokens < target_tokens) {
    if (!planted && c.tokens >= depth) {
      c.fact_begin = c.haystack.size();
      c.haystack += c.fact;
      c.fact_end = c.haystack.size();
      c.haystack += "\n\n";
      c.tokens += fact_tokens;
      planted = true;
      continue;
    }
    const Paragraph& p = corpus[rng.Next() % corpus.size()];
    c.haystack += p.text;
    c.tokens += p.tokens;
  }
  if (!planted) {
    c.fact_begin = c.haystack.size();
    c.haystack += c.fact;
    c.fact_end = c.haystack.size();
    c.haystack += "\n\n";
  }
  // Paragraph counts add up to within a few tokens of the whole count.
  c.tokens = tok->Count(c.haystack);
  return c;
}

// Case `index` of a run: a fact from the templates with its names drawn
// by a generator seeded with `index`, then planted by PlantFact with the
// same generator.
inline Case MakeCase(const std::vector<Paragraph>& corpus, uint64_t index,
                     size_t target_tokens) {
  Rng rng{index * 7919 + 17};
  const Template& t = Templates()[index % Templates().size()];
  const std::string person =
      rng.Pick(FirstNames()) + " " + rng.Pick(LastNames());
  const std::string org = rng.Pick(Orgs());
  const std::string city = rng.Pick(Cities());
  const std::string num = std::to_string(10 + rng.Next() % 89);
  const std::string name = rng.Pick(Names());
  return PlantFact(corpus, rng, index, target_tokens,
                   Fill(t.fact, person, org, city, num, name),
                   Fill(t.question, person, org, city, num, name));
}

// The reworded set, tests/index/data/reworded_facts.tsv: 100 hand-written
// facts, each with a question that asks for it in other words, sharing at
// most one content word with it after stemming (49 share none; the shared
// word is never a name; check_reworded.py next to it verifies that). Each
// line is FACT<TAB>QUESTION; empty when the file cannot be read.
struct Reworded {
  std::string fact;
  std::string question;
};

inline std::vector<Reworded> LoadReworded(const std::string& path) {
  std::ifstream in(path);
  std::vector<Reworded> out;
  std::string line;
  while (std::getline(in, line)) {
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return {};
    out.push_back({line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

// Case `index` of the reworded set: its fact planted as PlantFact does.
inline Case MakeRewordedCase(const std::vector<Paragraph>& corpus,
                             const std::vector<Reworded>& set, uint64_t index,
                             size_t target_tokens) {
  const Reworded& r = set[index % set.size()];
  Rng rng{index * 7919 + 17};
  return PlantFact(corpus, rng, index, target_tokens, r.fact, r.question);
}

}  // namespace ctxkit::needle

#endif  // CTXKIT_TESTS_INDEX_NEEDLE_CASES_H_
