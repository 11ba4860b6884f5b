// Makes a store of N small text objects for the scale benchmarks
// (bench/scale.py): keys docs/<i>, each 40-60 words (MIN-1.5*MIN with a
// third argument; 26 gives ~200-byte values) drawn from a Zipf
// distribution over a synthetic 20,000-word vocabulary, written through
// View::SetMany in batches with their token counts (as `ctxkit set` writes
// them). The same N gives the same store.
//
//   scale_store_tool HOME N [MIN]  builds HOME (must not hold a store)
//   scale_store_tool --queries     prints the benchmark queries, one a line
//
// Queries mix words of several frequencies: "common" ones match a large
// share of the store, "rare" ones a few objects.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "ctxkit/store.h"

namespace {

constexpr size_t kVocabulary = 20000;
constexpr size_t kBatch = 2000;

// Word `rank` (0 = most frequent): consonant-vowel syllables spelling
// the rank, so every word is distinct and pronounceable-ish.
std::string Word(size_t rank) {
  static const char* kSyllables[] = {"ka", "to", "mi", "ra", "su", "ne",
                                     "lo", "vi", "de", "bu", "po", "ga",
                                     "zi", "fe", "hu", "jo"};
  std::string w;
  size_t n = rank + 16;  // At least two syllables.
  while (n > 0) {
    w += kSyllables[n % 16];
    n /= 16;
  }
  return w;
}

class ZipfWords {
 public:
  ZipfWords() {
    double sum = 0;
    for (size_t r = 0; r < kVocabulary; ++r) {
      sum += 1.0 / static_cast<double>(r + 1);
      cumulative_.push_back(sum);
    }
  }
  size_t Sample(std::mt19937_64& rng) const {
    double x =
        std::uniform_real_distribution<double>(0, cumulative_.back())(rng);
    return static_cast<size_t>(
        std::lower_bound(cumulative_.begin(), cumulative_.end(), x) -
        cumulative_.begin());
  }

 private:
  std::vector<double> cumulative_;
};

int Build(const std::string& home, size_t n, size_t min_words) {
  ctxkit::Options options;
  options.home = home;
  options.durability = ctxkit::Durability::kProcess;  // Built once, then read.
  auto store = ctxkit::Store::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto view = (*store)->OpenView("bench", "");
  if (!view.ok()) return 1;
  ZipfWords zipf;
  std::mt19937_64 rng(42);
  std::vector<std::string> keys, values;
  for (size_t done = 0; done < n;) {
    keys.clear();
    values.clear();
    for (size_t i = 0; i < kBatch && done + i < n; ++i) {
      keys.push_back("docs/" + std::to_string(done + i));
      std::string text;
      size_t words = min_words + rng() % (min_words / 2 + 1);
      for (size_t w = 0; w < words; ++w) {
        text += Word(zipf.Sample(rng));
        text += (w % 12 == 11) ? ".\n" : " ";
      }
      values.push_back(std::move(text));
    }
    std::vector<ctxkit::SetItem> items;
    for (size_t i = 0; i < keys.size(); ++i) {
      ctxkit::SetItem item;
      item.key = keys[i];
      item.value = values[i];
      item.options.scope = "global";
      item.options.count_tokens = true;  // As the CLI's set does.
      items.push_back(item);
    }
    auto refs = view->SetMany(items);
    if (!refs.ok()) {
      std::fprintf(stderr, "%s\n", refs.status().ToString().c_str());
      return 1;
    }
    done += keys.size();
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "--queries") {
    // common+rare, two mid-frequency words, three rare words.
    std::printf("%s %s\n", Word(3).c_str(), Word(9000).c_str());
    std::printf("%s %s\n", Word(150).c_str(), Word(700).c_str());
    std::printf("%s %s %s\n", Word(5000).c_str(), Word(12000).c_str(),
                Word(19000).c_str());
    return 0;
  }
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: scale_store_tool HOME N [MIN] | --queries\n");
    return 2;
  }
  const size_t min_words = argc == 4 ? std::strtoull(argv[3], nullptr, 10) : 40;
  if (min_words == 0) return 2;
  return Build(argv[1], std::strtoull(argv[2], nullptr, 10), min_words);
}
