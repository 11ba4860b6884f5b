// Context as variables (SPEC-25): the root LLM gets the query and short
// summaries; the context stays in the store as variables it explores with
// helpers (peek, search, summarize, find_relevant, len).
//
//   auto ctx = ctxkit::ExternalizedContext::FromSession(
//       view, /*home=*/"", "run-7", "Why did the deploy fail?");
//   auto prompt = ctxkit::BuildRootPrompt(*ctx);   // prompt->tokens: exact
//   auto first = ctx->Peek(view, "conversation", {.start = 0, .end = 5});
//   auto hits = ctx->Search(view, "tool_outputs", "error", {.regex = false});
//
// Variables built from a session (docs/externalize.md has every detail):
//   conversation    list   the session's chat (ctxkit.session/chat, a JSON
//                          array of messages; tool messages carry refs to
//                          their outputs, not the outputs).
//   files           dict   path -> content: session pool entries of kind
//                          "file" (file:<path> objects), in join order.
//   tool_outputs    list   the session's toolcall outputs, in join order.
//   working_memory  dict   key -> value: the other pool entries (not chat,
//                          system, toolcall or file), then live objects of
//                          type `memory` in the session's scope.
//   custom          any    AddVariable: a stored value by ref.
// Collections are materialized as small manifests of static refs (never
// copies of content): the JSON object/array `ctxkit.externalize/<name>` in
// the session's scope (type json, written only when it changed). A
// manifest's ref is the variable's ref, so one ref hands a whole collection
// to another process. The conversation's ref is the chat version itself.
//
// Size accounting (exact): a collection's size_bytes is the sum of the
// content sizes of the versions its members' static refs name (manifest
// JSON not counted); the conversation's is the chat version's size; a
// custom variable's is its value's size. total_size_bytes is the sum over
// variables. tokens are exact o200k_base counts of the same bytes (kept in
// version metadata, so counted once per version).
//
// Summaries never quote content: they are built from metadata (counts,
// roles, tool names, keys, paths, sizes, tokens), so the root prompt holds
// no variable's content beyond its summary.
//
// Errors: no exceptions. InvalidArgument for bad names, options or
// templates; NotFound for a missing session or variable; errors of the
// store are passed through. A FromSession refused for its arguments (its
// custom variables included) writes nothing; one failed by the store
// writes nothing but manifests that describe the session as it was (each
// write atomic).
//
// Thread safety: an ExternalizedContext is a value; const methods may be
// called from several threads at once (as View allows).

#ifndef CTXKIT_EXTERNALIZE_H_
#define CTXKIT_EXTERNALIZE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/explore.h"
#include "ctxkit/index.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"

namespace ctxkit {

enum class VariableType : uint8_t {
  kConversation = 0,  // List[Message]
  kFiles,             // Dict[str, str]
  kToolOutputs,       // List[ToolOutput]
  kWorkingMemory,     // Dict[str, Any]
  kCustom,            // ContextVariable::custom_type says what
};

// "conversation", "files", "tool_outputs", "working_memory", "custom".
std::string_view VariableTypeName(VariableType type);
// Parses VariableTypeName's form; InvalidArgument otherwise.
Result<VariableType> ParseVariableType(std::string_view name);

// How a variable is explored.
enum class VariableShape : uint8_t {
  kList = 0,  // Items by index.
  kDict,      // Items by key, in order.
  kString,    // Lines (or bytes) of one value.
};
// "list", "dict", "str".
std::string_view VariableShapeName(VariableShape shape);

// One element of a collection variable held by ref (files, tool outputs,
// working memory).
struct VariableMember {
  // Dict key (a file's path, a working-memory key) or, for lists, the
  // store key of the element (e.g. "toolcall:call_1").
  std::string name;
  Ref ref;  // Static: the version externalized.
  uint64_t size_bytes = 0;
  uint64_t tokens = 0;  // Exact o200k_base.
  // Tool outputs: the tool's name; otherwise the store type name.
  std::string label;
};

// One token-bounded chunk of a variable (AutoChunk): bytes
// [byte_begin, byte_end) of `ref`, a ref to a member's (or the value's)
// version. Never a copy.
struct VariableChunk {
  uint64_t member = 0;  // Index into members (0 for single values).
  Ref ref;
  uint64_t byte_begin = 0;
  uint64_t byte_end = 0;
  uint32_t tokens = 0;
};

struct ContextVariable {
  std::string name;  // A Python identifier, unique in its context.
  VariableType type = VariableType::kCustom;
  // kCustom: a free label (1-64 bytes, no control characters) such as
  // "notes" or "text"; empty for the built-in types.
  std::string custom_type;
  VariableShape shape = VariableShape::kString;
  uint64_t size_bytes = 0;  // See "Size accounting" above.
  uint64_t tokens = 0;      // Exact o200k_base tokens of those bytes.
  std::string summary;      // Metadata only, never content.
  // Collections: the number of items (messages, files, outputs, keys,
  // JSON items of a custom array/object); absent for strings.
  std::optional<uint64_t> item_count;
  // Where the content lives: the chat version, the collection's manifest,
  // or the custom value (static refs).
  Ref ref;
  // Collections held by ref: their elements. Empty for the conversation
  // (its items are inside the chat value) and for custom values.
  std::vector<VariableMember> members;
  // Filled by AutoChunk for variables above SizeConfig::chunk_bytes.
  std::vector<VariableChunk> chunks;
};

struct SizeConfig {
  uint64_t warn_bytes = 100ull << 10;  // LargeVariable above this.
  uint64_t chunk_bytes = 1ull << 20;   // RequiresChunking above this.
  uint64_t total_bytes = 10ull << 20;  // TotalSizeExceeded above this.
  // AutoChunk's chunk budget in o200k tokens; 0: warn_bytes / 4 (about
  // warn_bytes of English text), clamped to 16-kMaxChunkTokens.
  uint32_t chunk_tokens = 0;
};

struct SizeWarning {
  enum class Kind : uint8_t {
    kLargeVariable = 0,
    kRequiresChunking,
    kTotalSizeExceeded,
  };
  Kind kind = Kind::kLargeVariable;
  std::string variable;    // Empty for kTotalSizeExceeded.
  uint64_t size = 0;       // The variable's size, or the total.
  uint64_t threshold = 0;  // The limit crossed.
  // kRequiresChunking: size / warn_bytes + 1 (the spec's rule); else 0.
  uint64_t suggested_chunks = 0;
  std::string message;  // One line for people.
};
// "large_variable", "requires_chunking", "total_size_exceeded".
std::string_view SizeWarningKindName(SizeWarning::Kind kind);

// A custom variable as AddVariable takes it: the value `ref` names, as
// `name`, labelled `custom_type` (empty: from the value).
struct CustomVariable {
  std::string name;
  Ref ref;
  std::string custom_type;
};

struct ExternalizeOptions {
  // Members named in a summary before "... and N more".
  uint32_t summary_max_members = 8;
  // Token budget of one variable's summary (o200k_base, >= 16); longer
  // summaries are cut at a line and marked.
  uint32_t summary_max_tokens = 200;
};

// Helper options and results -------------------------------------------

struct VariablePeekOptions {
  // Python slice semantics, as PeekOptions: [start, end), negatives from
  // the end, clamped. Lists/dicts: items; strings: `unit`.
  int64_t start = 0;
  int64_t end = 10;
  // Strings only: kLines (the default, kAuto) or kBytes.
  PeekUnit unit = PeekUnit::kAuto;
  // Bytes of content returned in all (1 B - 1 GiB); items past it are cut
  // and marked truncated.
  uint64_t max_bytes = 64ull << 10;
};

struct PeekedItem {
  uint64_t index = 0;       // Position in the variable.
  std::string key;          // Dicts: the key. Lists of refs: the store key.
  Ref ref;                  // Where this item lives (the element's ref, or the
                            // variable's ref for items inside one value).
  std::string text;         // The item: a message's JSON, an element's content.
  uint64_t size_bytes = 0;  // The whole item's size.
  bool truncated = false;   // text stops short of the item (max_bytes).
};

struct VariablePeek {
  std::string variable;
  VariableShape shape = VariableShape::kString;
  uint64_t start = 0;  // Clamped slice, in items (or string units).
  uint64_t end = 0;
  std::optional<uint64_t> total;  // Items (or units when known).
  std::vector<PeekedItem> items;  // Lists and dicts.
  std::string text;               // Strings: the slice.
  PeekUnit unit = PeekUnit::kItems;
  bool truncated = false;
};

struct VariableSearchOptions {
  bool regex = false;  // RE2 syntax; false: literal.
  bool case_insensitive = false;
  size_t max_results = 10;     // 1 - 1,000,000.
  size_t preview_bytes = 200;  // 16 - 65,536.
};

struct VariableMatch {
  uint64_t index = 0;  // Item index (lists, dicts); 0 for strings.
  std::string key;     // Dicts: the key; lists of refs: the store key.
  Ref ref;
  uint64_t line = 0;         // 1-based line within the item (or value).
  uint64_t byte_offset = 0;  // Of the match within the item (or value).
  std::string preview;       // The matching line, windowed.
};

struct VariableSearch {
  std::string variable;
  std::vector<VariableMatch> matches;
  bool truncated = false;  // Stopped at max_results.
};

struct VariableLen {
  std::string variable;
  VariableShape shape = VariableShape::kString;
  std::optional<uint64_t> items;  // Collections.
  uint64_t bytes = 0;
  uint64_t tokens = 0;
};

// summarize(var): started at once, resolved by the orchestrator. A
// single-value variable is one summary; a collection is the summaries of
// its first members (each with an equal share of max_tokens), joined as
// "<key>: <summary>" lines, never over max_tokens.
class DeferredVariableSummary {
 public:
  DeferredVariableSummary() = default;
  bool valid() const { return !parts_.empty(); }
  bool Ready() const;
  // Waits and returns the joined summary. REQUIRES: valid().
  Result<Summary> Get() const;

 private:
  friend class ExternalizedContext;
  std::string variable_;
  size_t max_tokens_ = 0;
  uint64_t omitted_ = 0;  // Members not summarized (over the budget).
  std::vector<std::pair<std::string, DeferredSummary>> parts_;
};

struct VariableFindOptions {
  size_t top_k = 5;  // 1 - 1000.
  uint32_t chunk_tokens = 256;
  // Empty: BM25 only (as FindOptions; the CLI and MCP server fill it from
  // CTXKIT_EMBED_*).
  EmbeddingsConfig embeddings;
  // Related words count too (FindOptions::widen).
  bool widen = true;
};

// ---------------------------------------------------------------------------

struct RootPrompt;

class ExternalizedContext {
 public:
  // Externalizes session `session_id` of the store `view` belongs to, with
  // `query` as the task. `home` must be empty or name the view's store
  // (InvalidArgument otherwise: a guard against mixing stores). The
  // session is read through a view bound to (view.agent_id(), session_id).
  // The query may be empty for a context used only for its helpers
  // (BuildRootPrompt then refuses it). NotFound when there is no such
  // session; InvalidArgument for bad options.
  //
  // `custom` variables follow the session's, as AddVariable adds them
  // (read through `view`, errors as AddVariable's; AlreadyExists also for
  // the name of a session variable). Every one is resolved, and every name
  // checked, before the session's manifests are written, so a refused one
  // (a ref `view` cannot read, a bad or taken name) leaves the store as it
  // was.
  static Result<ExternalizedContext> FromSession(
      View& view, const std::string& home, std::string_view session_id,
      std::string query, const ExternalizeOptions& options = {},
      const std::vector<CustomVariable>& custom = {});

  // A context with no session variables (add custom ones).
  static Result<ExternalizedContext> Empty(
      std::string query, const ExternalizeOptions& options = {});

  // Adds a custom variable: the value `ref` names (pinned to its current
  // version when dynamic), with `custom_type` as its label (empty:
  // "text" or "json" from the value). InvalidArgument when `name` is not a
  // Python identifier (ASCII [A-Za-z_][A-Za-z0-9_]*, at most 64 bytes, not
  // a keyword nor a helper name: peek, search, summarize, find_relevant,
  // len, SUBMIT) or `custom_type` is malformed; AlreadyExists when the name
  // is taken. The context is unchanged on error.
  Status AddVariable(View& view, std::string name, const Ref& ref,
                     std::string custom_type = "");

  const std::string& query() const { return query_; }
  const std::string& session_id() const { return session_id_; }
  const std::vector<ContextVariable>& variables() const { return variables_; }
  uint64_t total_size_bytes() const { return total_size_bytes_; }
  // NotFound naming the known variables.
  Result<const ContextVariable*> Find(std::string_view name) const;

  // The spec's variable_summaries(): one block per variable,
  // "- <name>: <python type> | <size> | <summary>".
  std::string VariableSummaries() const;

  // The spec's check_size_limits (exact rules in docs/externalize.md).
  std::vector<SizeWarning> CheckSizeLimits(const SizeConfig& config = {}) const;

  // Splits every variable above config.chunk_bytes into token-bounded
  // chunks (ctxkit/chunk.h: refs to byte ranges, nothing copied) and notes
  // it in the variable's summary. Variables already chunked are redone.
  // InvalidArgument for a bad config; the context is unchanged on error.
  Status AutoChunk(View& view, const SizeConfig& config = {});

  // Helpers (SPEC-25.03) by variable name. `view` must be able to read the
  // refs (any view of the same store can: refs are capabilities).
  Result<VariablePeek> Peek(View& view, std::string_view name,
                            const VariablePeekOptions& options = {}) const;
  Result<VariableSearch> Search(
      View& view, std::string_view name, std::string_view pattern,
      const VariableSearchOptions& options = {}) const;
  // Deferred: returns at once. InvalidArgument for max_tokens == 0. `llm`:
  // the endpoint (SummarizeOptions::llm); unset: structural summaries.
  Result<DeferredVariableSummary> Summarize(
      View& view, std::string_view name, size_t max_tokens = 500,
      const std::optional<LlmEndpoint>& llm = std::nullopt) const;
  // Ranked chunks of the variable's content (FindRelevant over each
  // element: BM25, fused with embeddings when configured).
  Result<FindResult> FindRelevant(
      View& view, std::string_view name, std::string_view query,
      const VariableFindOptions& options = {}) const;
  // From what the context already knows: reads nothing (no View).
  Result<VariableLen> Len(std::string_view name) const;

  // The JSON form used by `ctxkit externalize --json` and the MCP tool:
  // {"query", "session", "variables": [{name, type, custom_type, shape,
  // size_bytes, tokens, summary, item_count, ref, members?, chunks?}],
  // "total_size_bytes", "total_tokens", "warnings": [{kind, variable, size,
  // threshold, suggested_chunks, message}], "prompt_tokens"?}.
  // `prompt`: include its token count (and text when with_prompt_text).
  nlohmann::json ToJson(const SizeConfig& config = {},
                        const RootPrompt* prompt = nullptr,
                        bool with_prompt_text = false,
                        bool with_members = true) const;

 private:
  ExternalizedContext() = default;
  Status AddBuilt(ContextVariable variable);

  std::string query_;
  std::string session_id_;
  ExternalizeOptions options_;
  std::vector<ContextVariable> variables_;
  uint64_t total_size_bytes_ = 0;
};

// Root prompt (SPEC-25.02) ---------------------------------------------

struct RootPromptOptions {
  // Empty: kDefaultRootPromptTemplate. Placeholders: {query},
  // {variable_summaries} (both required), {helpers} (optional); "{{" and
  // "}}" are literal braces; any other "{...}" is InvalidArgument.
  std::string template_text;
};

// The default, after the spec's generate_root_prompt, with find_relevant
// added to the helpers.
extern const char kDefaultRootPromptTemplate[];
// The helper list {helpers} expands to (signatures and one line each).
extern const char kRootPromptHelpers[];

struct RootPrompt {
  std::string text;
  uint64_t tokens = 0;  // Exact o200k_base count of text.
};

Result<RootPrompt> BuildRootPrompt(const ExternalizedContext& context,
                                   const RootPromptOptions& options = {});

// The seed's comparison: exact o200k_base tokens of the same prompt with
// every variable's full content inlined in place of its summary (what a
// direct API call would send). Streams each value by range; never holds a
// whole value.
Result<uint64_t> InlinedPromptTokens(View& view,
                                     const ExternalizedContext& context,
                                     const RootPromptOptions& options = {});

}  // namespace ctxkit

#endif  // CTXKIT_EXTERNALIZE_H_
