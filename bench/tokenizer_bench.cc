// Tokenizer throughput: ctxkit's Count against the npm `tiktoken` anchor.
//
//   cmake --build build/release --target tokenizer_bench
//   ./build/release/tokenizer_bench
//
// The text is a fixed mix (prose-like headers and licenses from the
// machine when present, plus JSON and CJK), or English prose alone, or
// Japanese and Chinese alone, written to a temp file; the
// TiktokenAnchor benchmark runs scripts/tokenizer/reference.mjs on the same
// file and reports its bytes/s, so the ratio compares one thread to one
// thread on the same input. Counters: bytes_per_second, tokens_per_second.

#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "text/byte_pair_merge.h"
#include "text/embedded_data.h"
#include "text/rank_table.h"

namespace {

std::string ReadSome(const std::filesystem::path& root, size_t budget) {
  std::string out;
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator();
       it.increment(ec)) {
    if (it->is_regular_file(ec)) files.push_back(it->path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    if (out.size() >= budget) break;
    std::ifstream in(f, std::ios::binary);
    std::string s((std::istreambuf_iterator<char>(in)),
                  std::istreambuf_iterator<char>());
    if (s.find('\0') == std::string::npos) out += s;
  }
  return out.substr(0, std::min(out.size(), budget));
}

const std::string& MixedText() {
  static const std::string text = [] {
    std::string s = ReadSome("/usr/share/common-licenses", 1 << 20);
    s += ReadSome("/usr/include/c++", 2 << 20);
    for (int i = 0; s.size() < (4 << 20); ++i) {
      s += "{\"id\": " + std::to_string(i) +
           ", \"name\": \"item\", \"tags\": [\"a\", \"b\"], \"ok\": true}\n";
      if (i % 8 == 0) s += "東京は日本の首都です。こんにちは世界！\n";
    }
    return s;
  }();
  return text;
}

// English prose: the licenses Debian ships, 1 MiB.
const std::string& ProseText() {
  static const std::string text =
      ReadSome("/usr/share/common-licenses", 1 << 20);
  return text;
}

// Natural Japanese and Chinese text found on the machine (vim's tutors,
// GnuPG's help), repeated to 1 MiB; empty when none is installed.
const std::string& CjkText() {
  static const std::string text = [] {
    std::string once;
    for (const char* path :
         {"/usr/share/vim/vim90/tutor/tutor.ja.utf-8",
          "/usr/share/vim/vim90/tutor/tutor.zh.utf-8",
          "/usr/share/gnupg/help.ja.txt", "/usr/share/gnupg/help.zh_CN.txt",
          "/usr/share/gnupg/help.zh_TW.txt"}) {
      std::ifstream in(path, std::ios::binary);
      once.append(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
    }
    std::string s;
    while (!once.empty() && s.size() < (1 << 20)) s += once;
    return s;
  }();
  return text;
}

enum class Corpus { kMixed, kProse, kCjk };

const std::string& TextOf(Corpus corpus) {
  switch (corpus) {
    case Corpus::kProse:
      return ProseText();
    case Corpus::kCjk:
      return CjkText();
    case Corpus::kMixed:
      break;
  }
  return MixedText();
}

// A line without a space of `size` bytes. Kinds: 0 random lowercase
// letters (one piece), 1 digits, 2 base64, 3 one letter repeated (one
// piece), 4 '=' repeated (one piece).
std::string LongLine(size_t size, int64_t kind = 0) {
  static constexpr char kBase64[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string s;
  s.reserve(size);
  uint64_t state = 7;
  for (size_t i = 0; i < size; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = state >> 33;
    switch (kind) {
      case 1:
        s.push_back(static_cast<char>('0' + r % 10));
        break;
      case 2:
        s.push_back(kBase64[r % 64]);
        break;
      case 3:
        s.push_back('a');
        break;
      case 4:
        s.push_back('=');
        break;
      default:
        s.push_back(static_cast<char>('a' + r % 26));
    }
  }
  return s;
}

void BM_Count(benchmark::State& state, ctxkit::Encoding encoding,
              Corpus corpus = Corpus::kMixed) {
  const ctxkit::Tokenizer* tok = *ctxkit::Tokenizer::Get(encoding);
  const std::string& text = TextOf(corpus);
  if (text.empty()) {
    state.SkipWithError("no text of this kind on the machine");
    return;
  }
  size_t tokens = 0;
  for (auto _ : state) {
    tokens = tok->Count(text);
    benchmark::DoNotOptimize(tokens);
  }
  state.SetBytesProcessed(state.iterations() * text.size());
  state.counters["tokens_per_second"] =
      benchmark::Counter(static_cast<double>(tokens) * state.iterations(),
                         benchmark::Counter::kIsRate);
}

void BM_Encode(benchmark::State& state, ctxkit::Encoding encoding) {
  const ctxkit::Tokenizer* tok = *ctxkit::Tokenizer::Get(encoding);
  const std::string& text = MixedText();
  for (auto _ : state) {
    benchmark::DoNotOptimize(tok->Encode(text));
  }
  state.SetBytesProcessed(state.iterations() * text.size());
}

// Tokenizer::Count of a line of state.range(0) bytes of the kind
// state.range(1) (see LongLine).
void BM_CountLongLine(benchmark::State& state) {
  const ctxkit::Tokenizer* tok = *ctxkit::Tokenizer::Get();
  const std::string line =
      LongLine(static_cast<size_t>(state.range(0)), state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(tok->Count(line));
  state.SetBytesProcessed(state.iterations() * line.size());
}

// One 10 MiB single piece of random letters merged by the heap (kind 1),
// the buckets (kind 2) or the chunks (kind 3), one after the other so all
// see the same machine (the set runs --benchmark_repetitions times in
// turn).
void BM_MergeLongPiece(benchmark::State& state) {
  static const auto* ranks = [] {
    auto r = ctxkit::text::RankTable::FromImage(
        ctxkit::text::EmbeddedRankImage("o200k_base"), "o200k_base",
        ctxkit::text::RankTable::ImageCheck::kQuick);
    return r.ok() ? r->release() : nullptr;
  }();
  if (ranks == nullptr) {
    state.SkipWithError("no o200k_base rank table");
    return;
  }
  constexpr ctxkit::text::LongMergeKind kKinds[] = {
      ctxkit::text::LongMergeKind::kAuto, ctxkit::text::LongMergeKind::kHeap,
      ctxkit::text::LongMergeKind::kBuckets,
      ctxkit::text::LongMergeKind::kChunks};
  const auto kind = kKinds[state.range(0) % 4];
  const std::string line = LongLine(static_cast<size_t>(state.range(1)));
  std::vector<uint32_t> out;
  for (auto _ : state) {
    out.clear();
    ctxkit::text::BytePairEncode(*ranks, line, &out, kind);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * line.size());
}

// Runs npm tiktoken on the same text in one node process; reports its
// throughput as this benchmark's bytes_per_second via manual timing.
void BM_TiktokenAnchor(benchmark::State& state, const char* encoding,
                       Corpus corpus = Corpus::kMixed) {
  const std::string& text = TextOf(corpus);
  if (text.empty()) {
    state.SkipWithError("no text of this kind on the machine");
    return;
  }
  const std::string path =
      "/tmp/ctxkit_tokenizer_bench_" + std::to_string(getpid()) + ".txt";
  std::ofstream(path, std::ios::binary) << text;
  // CMake compiles this file by absolute path, so __FILE__ locates the
  // source tree (and its node_modules) without extra definitions.
  const std::string script =
      (std::filesystem::path(__FILE__).parent_path().parent_path() /
       "scripts/tokenizer/reference.mjs")
          .string();
  const std::string command =
      "node '" + script + "' bench " + encoding + " '" + path + "' 3";
  for (auto _ : state) {
    FILE* pipe = popen(command.c_str(), "r");
    char line[512] = {0};
    const bool got = pipe != nullptr && std::fgets(line, sizeof(line), pipe);
    if (pipe != nullptr) pclose(pipe);
    double seconds = 0;
    long iterations = 0;
    const char* at = got ? std::strstr(line, "\"seconds\":") : nullptr;
    if (at == nullptr ||
        std::sscanf(at, "\"seconds\":%lf,\"iterations\":%ld", &seconds,
                    &iterations) != 2 ||
        iterations <= 0) {
      state.SkipWithError("node reference.mjs failed (run scripts/setup.sh)");
      break;
    }
    state.SetIterationTime(seconds / static_cast<double>(iterations));
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(state.iterations() * text.size());
}

BENCHMARK_CAPTURE(BM_Count, o200k_base, ctxkit::Encoding::kO200kBase)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Count, cl100k_base, ctxkit::Encoding::kCl100kBase)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Encode, o200k_base, ctxkit::Encoding::kO200kBase)
    ->Unit(benchmark::kMillisecond);
// English prose against CJK: ctxkit's lead over tiktoken on each
// (BM_Count/X divided by BM_TiktokenAnchor/X, both in bytes/s).
BENCHMARK_CAPTURE(BM_Count, o200k_prose, ctxkit::Encoding::kO200kBase,
                  Corpus::kProse)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Count, o200k_cjk, ctxkit::Encoding::kO200kBase,
                  Corpus::kCjk)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CountLongLine)
    ->ArgsProduct({{1 << 20, 10 << 20}, {0, 1, 2, 3, 4}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_MergeLongPiece)
    ->Args({1, 10 << 20})
    ->Args({2, 10 << 20})
    ->Args({3, 10 << 20})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK_CAPTURE(BM_TiktokenAnchor, o200k_base, "o200k_base")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiktokenAnchor, cl100k_base, "cl100k_base")
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiktokenAnchor, o200k_prose, "o200k_base", Corpus::kProse)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_TiktokenAnchor, o200k_cjk, "o200k_base", Corpus::kCjk)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
