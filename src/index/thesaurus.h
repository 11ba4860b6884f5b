// Related English words from the WordNet 3.0 database, for widening a
// search query to the words a text may have used instead of the asker's.

#ifndef CTXKIT_INDEX_THESAURUS_H_
#define CTXKIT_INDEX_THESAURUS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::index {

// Where Debian's wordnet-base package installs the database.
inline constexpr std::string_view kWordNetDir = "/usr/share/wordnet";

// The database files (wndb(5WN): index.POS, data.POS and POS.exc for noun,
// verb, adj and adv) mapped read-only and searched in place: nothing is
// parsed up front, so opening costs a few mmap calls and a lookup reads
// only the pages of the lines it needs. Immutable once opened; safe to use
// from many threads.
class Thesaurus {
 public:
  // Maps the database under `dir`. NotFound when a file is missing;
  // Corruption when an index or data file does not start as WordNet's do
  // (a damaged line further on only gives fewer related words).
  static Result<std::unique_ptr<Thesaurus>> Open(const std::string& dir);

  // The database at kWordNetDir, opened on first use; nullptr when it is
  // not installed (the reason in `*why` when given).
  static const Thesaurus* Default(std::string* why = nullptr);

  ~Thesaurus();
  Thesaurus(const Thesaurus&) = delete;
  Thesaurus& operator=(const Thesaurus&) = delete;

  enum class Relation {
    kBaseForm,  // bought -> buy
    kSynonym,   // fix -> repair
    kDerived,   // repair -> repairman
    kGeneral,   // furnace -> chamber
    kSimilar,   // cheap -> inexpensive (adjectives)
    kSpecific,  // loan -> mortgage
  };
  struct RelatedWord {
    std::string word;
    Relation relation;
  };

  // Whether WordNet has `text` (lower-case words separated by single
  // spaces: "coffee maker") as any part of speech, as spelled.
  bool Knows(std::string_view text) const;

  // Words and runs of words related to `word` (lower-case ASCII words
  // separated by single spaces; anything else has none), closest first, at
  // most `limit`, never `word` itself, each once (at its closest
  // relation). For each part of speech `word` is a form of (its base forms
  // found as WordNet's morphy does: the exception lists, then the
  // detachment rules), in this order: the base forms; the other words of
  // its first three senses (synonyms) and the words derived from it in
  // them (repair -> repairer); the similar adjectives and the more general
  // words of its first sense (hypernyms: furnace -> chamber); the more
  // specific words of its first sense, two levels down (hyponyms: coffee
  // maker -> espresso maker). Each word comes with its irregular forms of
  // the same part of speech (child -> children), but not the ones the
  // index's stemmer derives itself (slip -> slipping).
  std::vector<RelatedWord> Related(std::string_view word, size_t limit) const;

 private:
  struct Files;
  explicit Thesaurus(std::unique_ptr<Files> files);
  std::unique_ptr<Files> files_;
};

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_THESAURUS_H_
