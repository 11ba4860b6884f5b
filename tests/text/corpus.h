// Deterministic mixed-text corpus for the tokenizer agreement test.
//
// Real files from the machine (licenses, C and C++ headers, package docs)
// plus generated cases aimed at the pre-tokenizer's corners: CJK, emoji,
// whitespace runs, digits, contractions, every Unicode code point, random
// mixes of character classes, long unbroken runs, and ill-formed UTF-8.
// The same machine always yields the same corpus.

#ifndef CTXKIT_TESTS_TEXT_CORPUS_H_
#define CTXKIT_TESTS_TEXT_CORPUS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace ctxkit::text_test {

struct CorpusCase {
  std::string name;
  std::string bytes;
};

// Returns the corpus, scaled so that its total size is about `total_bytes`
// (each case gets a fixed share).
std::vector<CorpusCase> BuildCorpus(size_t total_bytes);

}  // namespace ctxkit::text_test

#endif  // CTXKIT_TESTS_TEXT_CORPUS_H_
