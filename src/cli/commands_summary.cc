// Verbs that read a value to describe it, never print it: summarize, tokens.

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"
#include "ctxkit/tokenizer.h"
#include "face/environment.h"
#include "summary/json_forms.h"

namespace ctxkit::cli {

namespace {

struct SummarizeArgs {
  std::string target;
  std::string scope;
  size_t max_tokens = 500;
  std::string summarizer = "auto";
  bool no_cache = false;
};

struct TokensArgs {
  std::string target;
  std::string scope;
  std::string file;
  std::string encoding = "o200k_base";
};

// KEY is a key, or a ref ("ck:...") which is a capability of its own.
Status CheckTarget(const std::string& target, const std::string& scope,
                   const GlobalOptions& g) {
  return ParseKeyOrRef(target, scope, 0, g).status();
}

Status RunSummarize(Context& ctx, const SummarizeArgs& a) {
  CTXKIT_RETURN_IF_ERROR(CheckTarget(a.target, a.scope, ctx.options()));
  Result<SummarizerKind> kind = ParseSummarizerKind(a.summarizer);
  if (!kind.ok()) return kind.status().WithContext("--summarizer");
  if (a.max_tokens == 0) {
    return Status::InvalidArgument("--max-tokens must be >= 1");
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  SummarizeOptions opts;
  opts.max_tokens = a.max_tokens;
  opts.summarizer = *kind;
  opts.scope = a.scope;
  opts.use_cache = !a.no_cache;
  opts.llm = env::LlmEndpointFromEnv();
  Result<Summary> sum = Summarize(**view, a.target, opts);
  if (!sum.ok()) return sum.status();
  if (ctx.json()) {
    // The summary form, and the text and the budget asked for around it.
    nlohmann::json j = summary::SummaryToJson(*sum);
    j["summary"] = sum->text;
    j["max_tokens"] = a.max_tokens;
    PrintJson(j);
    return Status::Ok();
  }
  // Remarks (an LLM fallback) go to stderr so stdout is the summary only.
  if (!sum->notes.empty()) {
    std::fprintf(stderr, "ctxkit: note: %s\n", sum->notes.c_str());
  }
  return WriteStdout(sum->text + "\n");
}

// Counts a file or stdin while reading it, in 64 KiB pieces.
Result<uint64_t> CountStream(std::FILE* f, const std::string& what,
                             const Tokenizer& tok, uint64_t* bytes) {
  TokenCounter counter(tok);
  char buf[1 << 16];
  while (true) {
    size_t n = std::fread(buf, 1, sizeof(buf), f);
    *bytes += n;
    counter.Append(std::string_view(buf, n));
    if (n < sizeof(buf)) {
      if (std::ferror(f)) {
        return Status::IoError("cannot read " + what + ": " +
                               std::strerror(errno));
      }
      break;
    }
  }
  return static_cast<uint64_t>(counter.Finish());
}

Status RunTokens(Context& ctx, const TokensArgs& a) {
  Result<Encoding> encoding = ParseEncoding(a.encoding);
  if (!encoding.ok()) {
    return encoding.status().WithContext("--encoding");
  }
  if (!a.file.empty() && !a.target.empty() && a.target != "-") {
    return Status::InvalidArgument("give either KEY or --file, not both");
  }
  if (a.file.empty() && a.target.empty()) {
    return Status::InvalidArgument("give KEY, --file F, or - for stdin");
  }
  Result<const Tokenizer*> tok = Tokenizer::Get(*encoding);
  if (!tok.ok()) return tok.status();
  nlohmann::json j = {{"encoding", std::string(EncodingName(*encoding))}};
  Result<uint64_t> count = uint64_t{0};
  if (!a.file.empty() || a.target == "-") {
    uint64_t bytes = 0;
    if (a.file.empty() || a.file == "-") {
      count = CountStream(stdin, "stdin", **tok, &bytes);
      j["source"] = "stdin";
    } else {
      std::FILE* f = std::fopen(a.file.c_str(), "rb");
      if (f == nullptr) {
        int err = errno;
        std::string msg = "cannot open " + a.file + ": " + std::strerror(err);
        return err == ENOENT   ? Status::NotFound(msg)
               : err == EACCES ? Status::PermissionDenied(msg)
                               : Status::IoError(msg);
      }
      count = CountStream(f, a.file, **tok, &bytes);
      std::fclose(f);
      j["file"] = a.file;
    }
    j["size_bytes"] = bytes;
  } else {
    CTXKIT_RETURN_IF_ERROR(CheckTarget(a.target, a.scope, ctx.options()));
    Result<View*> view = ctx.OpenView();
    if (!view.ok()) return view.status();
    count = CountValueTokens(**view, a.target, a.encoding, a.scope);
    if (count.ok() && ctx.json()) {
      // The token-count form names the version counted.
      Result<Target> target = Target::Parse(a.target, {.scope = a.scope});
      Result<Ref> ref =
          target.ok() ? (*view)->Pin(*target) : Result<Ref>(target.status());
      if (!ref.ok()) return ref.status();
      j = summary::TokenCountToJson(*ref, EncodingName(*encoding), *count);
    }
  }
  if (!count.ok()) return count.status();
  if (ctx.json()) {
    if (!j.contains("tokens")) j["tokens"] = *count;
    PrintJson(j);
    return Status::Ok();
  }
  return WriteStdout(std::to_string(*count) + "\n");
}

}  // namespace

void RegisterSummaryCommands(CLI::App& app, CommandTable& table) {
  {
    auto a = std::make_shared<SummarizeArgs>();
    CLI::App* sub = app.add_subcommand(
        "summarize",
        "Print a summary of KEY's value in at most --max-tokens tokens "
        "(structural, or an LLM when CTXKIT_LLM_BASE_URL/MODEL are set); "
        "cached by content");
    sub->add_option("KEY", a->target, "The key, or a ref (ck:...)")->required();
    sub->add_option("--max-tokens,-n", a->max_tokens,
                    "Upper bound on the summary's o200k_base tokens "
                    "(default 500)")
        ->type_name("N")
        ->check(UnsignedNumber());
    sub->add_option("--summarizer", a->summarizer,
                    "auto (default: llm if configured), structural or llm "
                    "(falls back to structural on any error)")
        ->type_name("S");
    sub->add_option("--scope,-s", a->scope, "Scope of the key")
        ->type_name("SCOPE");
    sub->add_flag("--no-cache", a->no_cache,
                  "Neither read nor write the summary cache");
    table.Add(sub, [a](Context& ctx) { return RunSummarize(ctx, *a); });
  }
  {
    auto a = std::make_shared<TokensArgs>();
    CLI::App* sub = app.add_subcommand(
        "tokens",
        "Print the exact token count of KEY's value (streamed by range), of "
        "--file F, or of stdin (-)");
    sub->add_option("KEY", a->target, "The key, a ref (ck:...), or - (stdin)");
    sub->add_option("--file,-f", a->file, "Count the tokens of FILE")
        ->type_name("FILE");
    sub->add_option("--encoding,-e", a->encoding,
                    "o200k_base (default) or cl100k_base")
        ->type_name("E");
    sub->add_option("--scope,-s", a->scope, "Scope of the key")
        ->type_name("SCOPE");
    table.Add(sub, [a](Context& ctx) { return RunTokens(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
