// A driver for the fuzz harnesses where libFuzzer is not available (GCC,
// the sanitizer build `make test` runs): replays every file of the corpus
// directories given, then a bounded number of deterministic mutations of
// them (bit flips, byte inserts and deletes, duplicated ranges, splices,
// JSON/YAML punctuation). A crash or sanitizer report fails the test; the
// input that caused it is written to ./crash-input first, so it can be
// added to the corpus.
//
//   <harness> CORPUS_DIR...       CTXKIT_FUZZ_RUNS (default 20000),
//                                 CTXKIT_FUZZ_SEED (default 1)
//
// `make fuzz` builds the same harnesses with clang's libFuzzer instead,
// for long coverage-guided runs.

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

// xorshift64*: deterministic across platforms, unlike std:: distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed ? seed : 1) {}
  uint64_t Next() {
    s_ ^= s_ >> 12;
    s_ ^= s_ << 25;
    s_ ^= s_ >> 27;
    return s_ * 2685821657736338717ull;
  }
  size_t Below(size_t n) { return n == 0 ? 0 : Next() % n; }

 private:
  uint64_t s_;
};

constexpr std::string_view kTokens[] = {
    "{",   "}",    "[",       "]",     "\"",    ":",
    ",",   "\\",   "\\u0000", "\n",    "\r",    "---",
    "- ",  "null", "true",    "1e999", "-0",    "%",
    "%2F", "@",    "ck:",     "\xff",  "\xc3(", std::string_view("\0", 1)};

std::string Mutate(std::string in, const std::vector<std::string>& corpus,
                   Rng& rng) {
  const size_t steps = 1 + rng.Below(4);
  for (size_t i = 0; i < steps; ++i) {
    const size_t at = rng.Below(in.size() + 1);
    switch (rng.Below(6)) {
      case 0:
        if (!in.empty()) in[rng.Below(in.size())] ^= char(1 << rng.Below(8));
        break;
      case 1:
        in.insert(at, 1, char(rng.Below(256)));
        break;
      case 2:
        if (!in.empty()) in.erase(rng.Below(in.size()), 1 + rng.Below(8));
        break;
      case 3:
        if (!in.empty()) {
          const size_t from = rng.Below(in.size());
          in.insert(at, in.substr(from, 1 + rng.Below(64)));
        }
        break;
      case 4: {
        const std::string& other = corpus[rng.Below(corpus.size())];
        in = in.substr(0, at) + other.substr(rng.Below(other.size() + 1));
        break;
      }
      default:
        in.insert(at, kTokens[rng.Below(std::size(kTokens))]);
    }
  }
  return in;
}

// The input being run, for the crash handler.
const std::string* g_current = nullptr;

extern "C" void SaveCrashInput(int sig) {
  // Only async-signal-safe calls here.
  if (g_current != nullptr) {
    const int fd = ::open("crash-input", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ssize_t ignored = ::write(fd, g_current->data(), g_current->size());
      (void)ignored;
      ::close(fd);
    }
  }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void Run(const std::string& input) {
  g_current = &input;
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()),
                         input.size());
  g_current = nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL}) {
    ::signal(sig, SaveCrashInput);
  }
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; ++i) {
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream f(entry.path(), std::ios::binary);
      corpus.emplace_back(std::istreambuf_iterator<char>(f),
                          std::istreambuf_iterator<char>());
    }
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR... (no inputs found)\n",
                 argv[0]);
    return 2;
  }
  for (const std::string& input : corpus) Run(input);
  const char* runs_env = std::getenv("CTXKIT_FUZZ_RUNS");
  const char* seed_env = std::getenv("CTXKIT_FUZZ_SEED");
  const uint64_t runs = runs_env ? std::strtoull(runs_env, nullptr, 10) : 20000;
  Rng rng(seed_env ? std::strtoull(seed_env, nullptr, 10) : 1);
  for (uint64_t n = 0; n < runs; ++n) {
    Run(Mutate(corpus[rng.Below(corpus.size())], corpus, rng));
  }
  std::printf("%zu corpus inputs and %llu mutations ran clean\n", corpus.size(),
              static_cast<unsigned long long>(runs));
  return 0;
}
