// SPEC-25 comparison (docs/externalize.md): a 132k-token context built from
// real files — documents (license texts shipped by Debian) tracked as file
// objects, and tool outputs captured at bench time (dpkg -l, ls -lR
// /usr/include, ...) ingested as an OpenAI log — externalized into
// variables. Reported, measured in the same run:
//
//   context_tokens        exact o200k tokens of all the variables' content
//   root_prompt_tokens    the root prompt (query, summaries, helpers)
//   inlined_tokens        the same prompt with every variable inlined (the
//                         anchor: what a direct API call sends)
//   reduction_pct         100 * (1 - root / inlined); the seed's target is
//                         >= 97 with root <= 3,000
//
// and the latency of FromSession + BuildRootPrompt (p50/p99) per call.
//
//   build/release/externalize_bench --benchmark_repetitions=5

#include <benchmark/benchmark.h>
#include <stdio.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ctxkit/externalize.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;
using ctxkit_bench::TempDir;
using nlohmann::json;

constexpr uint64_t kTargetTokens = 132000;
constexpr char kSession[] = "bench";

void Check(const ctxkit::Status& s, const char* what) {
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s\n", what, s.ToString().c_str());
    std::abort();
  }
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The stdout of a fixed shell command (no user input reaches it).
std::string Capture(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return out;
  char buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

uint64_t Count(const std::string& s) {
  return (*ctxkit::Tokenizer::Get(ctxkit::Encoding::kO200kBase))->Count(s);
}

// The longest prefix of whole lines of `text` with at most `tokens` tokens.
std::string FirstTokens(const std::string& text, uint64_t tokens) {
  size_t lo = 0;
  size_t hi = text.size();
  // Binary search on byte length, then back to a line end.
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (Count(text.substr(0, mid)) <= tokens) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  size_t nl = text.rfind('\n', lo == 0 ? 0 : lo - 1);
  return text.substr(0, nl == std::string::npos ? lo : nl + 1);
}

struct Corpus {
  TempDir dir;
  std::unique_ptr<ctxkit::Store> store;
  std::unique_ptr<ctxkit::View> view;
  uint64_t documents = 0;
  uint64_t tool_outputs = 0;
};

// Builds the session once per process (the store lives in a temp dir).
Corpus& Build() {
  static Corpus* c = [] {
    auto* c = new Corpus;
    ctxkit::Options o;
    o.home = c->dir.Sub("store");
    o.durability = ctxkit::Durability::kProcess;
    auto store = ctxkit::Store::Open(o);
    Check(store.status(), "open");
    c->store = std::move(*store);
    auto view = c->store->OpenView("root", kSession);
    Check(view.status(), "view");
    c->view = std::make_unique<ctxkit::View>(*view);
    auto session = ctxkit::Session::Create(*c->store, kSession, {});
    Check(session.status(), "session");

    uint64_t tokens = 0;
    for (const char* doc : {"/usr/share/common-licenses/GPL-3",
                            "/usr/share/common-licenses/LGPL-2.1",
                            "/usr/share/common-licenses/Apache-2.0",
                            "/usr/share/common-licenses/MPL-2.0",
                            "/usr/share/common-licenses/GFDL-1.3"}) {
      std::string text = ReadFile(doc);
      if (text.empty()) continue;
      const std::string key = std::string("file:") + doc;
      Check(
          c->view->Set(key, text, {.type = ctxkit::ValueType::kFile}).status(),
          "set file");
      Check((*session)->Track(key), "track");
      tokens += Count(text);
      ++c->documents;
    }
    // Real tool outputs fill the rest: each takes an equal share of what
    // is left (smallest outputs first, so a short one leaves its unused
    // share to the next). The chat itself adds about 1k tokens.
    const std::vector<std::pair<std::string, std::string>> tools = {
        {"read_file", "cat /usr/share/common-licenses/GPL-2"},
        {"shell", "find /usr/share/doc -maxdepth 2 -name copyright"},
        {"shell", "ls -l /usr/bin"},
        {"shell", "ls -la /usr/lib/x86_64-linux-gnu"},
        {"shell", "dpkg -l"},
        {"shell", "ls -lR /usr/include"}};
    constexpr uint64_t kChatTokens = 1000;
    uint64_t left = tokens + kChatTokens < kTargetTokens
                        ? kTargetTokens - tokens - kChatTokens
                        : 0;
    json m = json::array();
    m.push_back({{"role", "system"}, {"content", "You are a code auditor."}});
    m.push_back({{"role", "user"},
                 {"content",
                  "Review the licenses and the installed packages; which "
                  "documents disclaim a warranty?"}});
    for (size_t i = 0; i < tools.size(); ++i) {
      const std::string id = "call_" + std::to_string(i);
      const uint64_t share = left / (tools.size() - i);
      std::string out = FirstTokens(Capture(tools[i].second), share);
      const uint64_t used = Count(out);
      left -= std::min(left, used);
      m.push_back(
          {{"role", "assistant"},
           {"content", nullptr},
           {"tool_calls",
            {{{"id", id},
              {"type", "function"},
              {"function",
               {{"name", tools[i].first},
                {"arguments", json{{"command", tools[i].second}}.dump()}}}}}}});
      m.push_back({{"role", "tool"}, {"tool_call_id", id}, {"content", out}});
      ++c->tool_outputs;
    }
    m.push_back({{"role", "assistant"},
                 {"content", "I have read everything; now answering."}});
    auto ing = (*session)->Ingest(json{{"messages", m}}.dump(),
                                  ctxkit::LogFormat::kOpenAI);
    Check(ing.status(), "ingest");
    return c;
  }();
  return *c;
}

void BM_ExternalizeComparison(benchmark::State& state) {
  Corpus& c = Build();
  const std::string query =
      "Which documents disclaim a warranty, and in which sections?";
  LatencySamples samples;
  ctxkit::RootPrompt prompt;
  uint64_t context_tokens = 0;
  for (auto _ : state) {
    auto t0 = Clock::now();
    auto ctx =
        ctxkit::ExternalizedContext::FromSession(*c.view, "", kSession, query);
    Check(ctx.status(), "externalize");
    auto p = ctxkit::BuildRootPrompt(*ctx);
    Check(p.status(), "prompt");
    samples.Add(NanosSince(t0));
    prompt = std::move(*p);
    context_tokens = 0;
    for (const auto& v : ctx->variables()) context_tokens += v.tokens;
    benchmark::DoNotOptimize(prompt.text.data());
  }
  samples.Report(state);
  auto ctx =
      ctxkit::ExternalizedContext::FromSession(*c.view, "", kSession, query);
  Check(ctx.status(), "externalize");
  auto inlined = ctxkit::InlinedPromptTokens(*c.view, *ctx);
  Check(inlined.status(), "inlined");
  state.counters["documents"] = static_cast<double>(c.documents);
  state.counters["tool_outputs"] = static_cast<double>(c.tool_outputs);
  state.counters["context_tokens"] = static_cast<double>(context_tokens);
  state.counters["root_prompt_tokens"] = static_cast<double>(prompt.tokens);
  state.counters["inlined_tokens"] = static_cast<double>(*inlined);
  state.counters["reduction_pct"] =
      100.0 * (1.0 - static_cast<double>(prompt.tokens) /
                         static_cast<double>(*inlined));
}
BENCHMARK(BM_ExternalizeComparison)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
