// SPEC-25.02: the root prompt (query, variable summaries, helpers, SUBMIT),
// and the inlined prompt it is compared against.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/externalize.h"
#include "ctxkit/tokenizer.h"
#include "externalize/internal.h"

namespace ctxkit {

const char kDefaultRootPromptTemplate[] =
    "You have access to the following context variables in the REPL:\n"
    "\n"
    "{variable_summaries}\n"
    "\n"
    "To explore the context, use Python code in the REPL. Available "
    "helpers:\n"
    "{helpers}\n"
    "\n"
    "Your task: {query}\n"
    "\n"
    "Write Python code to explore the context and find the answer.\n"
    "When done, call SUBMIT({{...}}) with your outputs.\n";

const char kRootPromptHelpers[] =
    "- peek(var, start=0, end=10) - Get slice of collection (list items, "
    "dict entries, string lines)\n"
    "- search(var, pattern, regex=False, max_results=10) - Search for "
    "pattern (literal, or regex when regex=True)\n"
    "- summarize(var, max_tokens=500) - Get LLM summary of variable "
    "(deferred; resolved by the orchestrator)\n"
    "- find_relevant(var, query, top_k=5) - Most relevant chunks for a query "
    "(embeddings when configured, else BM25)\n"
    "- len(var) - Get size of collection (never loads the value)";

namespace {

enum class Slot : uint8_t { kText, kQuery, kSummaries, kHelpers };

struct Piece {
  Slot slot = Slot::kText;
  std::string text;  // kText only.
};

// Parses the template into literal pieces and placeholders.
Result<std::vector<Piece>> ParseTemplate(std::string_view t) {
  std::vector<Piece> out;
  std::string lit;
  bool has_query = false;
  bool has_summaries = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (c == '{' && i + 1 < t.size() && t[i + 1] == '{') {
      lit += '{';
      ++i;
    } else if (c == '}' && i + 1 < t.size() && t[i + 1] == '}') {
      lit += '}';
      ++i;
    } else if (c == '{') {
      const size_t close = t.find('}', i);
      if (close == std::string_view::npos) {
        return Status::InvalidArgument("template: unmatched '{' at byte " +
                                       std::to_string(i) +
                                       " (write '{{' for a literal brace)");
      }
      const std::string_view name = t.substr(i + 1, close - i - 1);
      Slot slot;
      if (name == "query") {
        slot = Slot::kQuery;
        has_query = true;
      } else if (name == "variable_summaries") {
        slot = Slot::kSummaries;
        has_summaries = true;
      } else if (name == "helpers") {
        slot = Slot::kHelpers;
      } else {
        return Status::InvalidArgument(
            "template: unknown placeholder '{" + std::string(name) +
            "}' (known: {query}, {variable_summaries}, {helpers})");
      }
      if (!lit.empty()) out.push_back({Slot::kText, std::move(lit)});
      lit.clear();
      out.push_back({slot, ""});
      i = close;
    } else if (c == '}') {
      return Status::InvalidArgument("template: unmatched '}' at byte " +
                                     std::to_string(i) +
                                     " (write '}}' for a literal brace)");
    } else {
      lit += c;
    }
  }
  if (!lit.empty()) out.push_back({Slot::kText, std::move(lit)});
  if (!has_query || !has_summaries) {
    return Status::InvalidArgument(
        "template must contain {query} and {variable_summaries}");
  }
  return out;
}

Result<std::vector<Piece>> PiecesFor(const ExternalizedContext& context,
                                     const RootPromptOptions& options) {
  if (context.query().empty()) {
    return Status::InvalidArgument("the query must not be empty");
  }
  return ParseTemplate(options.template_text.empty()
                           ? std::string_view(kDefaultRootPromptTemplate)
                           : std::string_view(options.template_text));
}

}  // namespace

Result<RootPrompt> BuildRootPrompt(const ExternalizedContext& context,
                                   const RootPromptOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<Piece> pieces,
                          PiecesFor(context, options));
  RootPrompt out;
  for (const Piece& p : pieces) {
    switch (p.slot) {
      case Slot::kText:
        out.text += p.text;
        break;
      case Slot::kQuery:
        out.text += context.query();
        break;
      case Slot::kSummaries:
        out.text += context.VariableSummaries();
        break;
      case Slot::kHelpers:
        out.text += kRootPromptHelpers;
        break;
    }
  }
  CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tok,
                          Tokenizer::Get(Encoding::kO200kBase));
  out.tokens = tok->Count(out.text);
  return out;
}

Result<uint64_t> InlinedPromptTokens(View& view,
                                     const ExternalizedContext& context,
                                     const RootPromptOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<Piece> pieces,
                          PiecesFor(context, options));
  CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tok,
                          Tokenizer::Get(Encoding::kO200kBase));
  TokenCounter counter(*tok);
  auto stream = [&](const Ref& ref) -> Status {
    return view.Scan(ref, 0, ref.size_bytes, 1ull << 20,
                     [&](std::string_view piece) {
                       counter.Append(piece);
                       return true;
                     });
  };
  for (const Piece& p : pieces) {
    switch (p.slot) {
      case Slot::kText:
        counter.Append(p.text);
        break;
      case Slot::kQuery:
        counter.Append(context.query());
        break;
      case Slot::kHelpers:
        counter.Append(kRootPromptHelpers);
        break;
      case Slot::kSummaries:
        // Each variable's whole content where its summary would be.
        for (const ContextVariable& v : context.variables()) {
          counter.Append("- " + v.name + " (" + externalize::PythonTypeName(v) +
                         "):\n");
          if (v.members.empty()) {
            if (v.size_bytes > 0) CTXKIT_RETURN_IF_ERROR(stream(v.ref));
            counter.Append("\n");
            continue;
          }
          for (const VariableMember& m : v.members) {
            counter.Append("### " + m.name + "\n");
            CTXKIT_RETURN_IF_ERROR(stream(m.ref));
            counter.Append("\n");
          }
        }
        break;
    }
  }
  return static_cast<uint64_t>(counter.Finish());
}

}  // namespace ctxkit
