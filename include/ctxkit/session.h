// Sessions: what the model sees, turn by turn (the context manager).
//
// A session tracks store objects in pools:
//   metadata pool  every object the session knows, as a compact entry
//                  (id, kind, one-line title, tokens, version);
//   active pool    objects whose content is rendered; an active object
//                  follows its latest version (a dynamic reference);
//   pinned set     objects shown at one fixed version (a static reference);
//   locked set     the system prompt and the chat, addressed as "system"
//                  and "chat": always rendered, never deactivated.
// The same object may be pinned at v1 and active (at v2): rendering shows
// both, labelled by version, and reports the conflict.
//
// Ingestion turns a harness's message log (OpenAI Chat Completions or
// Anthropic Messages JSON) into the session's chat: every tool result
// becomes a toolcall object (toolcall.h) and the chat keeps a compact
// reference line in its place. Re-feeding the same log adds nothing; a log
// whose already-ingested prefix changed resets the chat (no duplicates).
//
// Policy (budget pressure, applied by Render): when a render would use more
// than a share of its budget, older tool outputs collapse to placeholders
// with their refs, then the oldest turns fold into compactions (a summary
// plus the refs of every message; the messages stay in the store), in
// batches, and both persist so the rendered prefix changes rarely. Pinned
// and user-activated outputs never collapse.
//
// Rendering returns a provider request (OpenAI or Anthropic JSON) never over
// a token budget and records how it was built, so any recorded render can
// be replayed byte for byte; the counting rule, the layout and the record
// format are in docs/sessions.md.
//
// State is stored through the store's engine (in the embedded engine, in
// ctxkit.db beside the objects) and is re-read whenever another process
// changed it: every mutation reloads a stale copy, applies, and commits with
// a compare-and-set on the session's generation, running again on the new
// state when another writer came first, so concurrent processes never lose
// each other's changes. A failed mutation leaves the session as it was.
//
//   auto s = ctxkit::Session::Create(*store, "run-7", {});
//   (*s)->Ingest(log_json, ctxkit::LogFormat::kOpenAI);
//   auto r = (*s)->Render({.budget_tokens = 100000});
//   send(r->request.dump());
//
// Thread safety: a Session is not thread-safe; use one per thread. Several
// Session objects (in any processes) may work on one session id.

#ifndef CTXKIT_SESSION_H_
#define CTXKIT_SESSION_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"

namespace ctxkit {

class SessionImpl;

// kOpenAIResponses: the OpenAI Responses API's input items (what the
// OpenAI Agents SDK stores): messages, function_call and
// function_call_output items; any other item (reasoning, a hosted tool's
// call, ...) is kept verbatim, in order (docs/sessions.md, "Ingestion").
enum class LogFormat : uint8_t { kOpenAI = 0, kAnthropic, kOpenAIResponses };
// "openai", "anthropic", "openai-responses".
std::string_view LogFormatName(LogFormat format);
// Parses LogFormatName's form; InvalidArgument otherwise.
Result<LogFormat> ParseLogFormat(std::string_view name);

struct SessionPolicy {
  // Under budget pressure (below), the newest N tool outputs of the chat
  // stay active; older ones the policy made active may collapse. 0: none
  // are kept. The newest outputs (the results of the chat's last message
  // that called tools) are always shown whatever N is: whole when they fit
  // once everything else is relieved, else as an excerpt (head and tail
  // lines and the call that reads the rest).
  uint32_t keep_tool_outputs = 5;
  // Budget pressure frees at least min(min_collapse_tokens,
  // min_collapse_percent of the render's budget) tokens at a time, or
  // nothing (unless the render would not fit otherwise). Each collapse or
  // compaction invalidates the provider's cached prefix from its first
  // change on; a cached token costs about a tenth of a fresh one, so small
  // frees cost more than they save. Render drops (over budget) use the same
  // batch size. 0 <= min_collapse_percent <= 100; 8% of a 100k budget is
  // the 8000 of min_collapse_tokens, so a budget up to 100k uses the share.
  uint64_t min_collapse_tokens = 8000;
  uint32_t min_collapse_percent = 8;
  // Tokens the metadata index may use in a render: min(index_max_tokens,
  // index_max_percent of the budget). It lists objects in the order they
  // joined the session and says when more exist. index_max_tokens
  // 1-10,000,000; index_max_percent 1-100.
  uint64_t index_max_tokens = 4000;
  uint32_t index_max_percent = 10;
  // Budget pressure. When a render would use more than
  // compact_trigger_percent of its budget, the session frees tokens until
  // it uses at most compact_target_percent: first it collapses the tool
  // outputs it made active, older than the newest keep_tool_outputs,
  // oldest first; then it folds the oldest turns of the chat into a
  // compaction (a summary and the refs of every message it replaces; the
  // messages stay in the store). Both are recorded in the session state,
  // so later renders keep them and the prefix stays stable. Hidden
  // outputs' placeholders (about 30 tokens and the ref each) never use
  // more than 10% of a render's budget: past that, the oldest turns
  // holding them are compacted (down to 5%). The default trigger, 100,
  // relieves only when the render would not fit: every relief costs the
  // cached prefix from its first change on, so it waits until it must
  // (or until the cache is cold anyway, cache_ttl_seconds); in the 50-turn
  // loop of docs/benchmarks.md it keeps 91.5% of each request cached
  // where 90 kept 89.4%. 1 <= target < trigger <= 100.
  uint32_t compact_trigger_percent = 100;
  uint32_t compact_target_percent = 50;
  // The newest turns (a turn starts at a user message) never compacted.
  // 1-1,000,000.
  uint32_t keep_turns = 2;
  // Token cap of a compaction's summary: min(compaction_summary_tokens, 5%
  // of the budget of the render that writes it, at least 16). 16-100,000.
  uint32_t compaction_summary_tokens = 300;
  // Seed 004's policy: each ingestion collapses the tool outputs the policy
  // made active that are older than the newest keep_tool_outputs and are
  // not among the newest outputs, whatever the budget (false: they collapse
  // only under budget pressure). Pinned outputs and outputs a user
  // activated stay.
  bool collapse_at_ingestion = false;
  // The provider's prompt-cache lifetime (Anthropic's default, 5 minutes).
  // When the previous recorded render is older than this, the cache is
  // cold and a relief costs no cached prefix: a render over
  // compact_target_percent (not only over compact_trigger_percent) frees
  // tokens down to the target, so the next stretch starts with room to
  // spare. 0: never relieve early. 0-86,400.
  uint32_t cache_ttl_seconds = 300;
};

// A compaction: chat messages [first_message, end_message) folded into one
// summary block, stored as the object `ref` names (see docs/sessions.md).
struct CompactionInfo {
  std::string ref;  // Static ref of the compaction object (wire form).
  uint64_t first_message = 0;
  uint64_t end_message = 0;
  uint64_t turns = 0;
};

// One object the session knows.
struct PoolEntry {
  std::string id;  // The store object id.
  std::string key;
  std::string scope;  // Scope::ToString form.
  // "toolcall", "file", "chat", "system", or the value type name.
  std::string kind;
  // One line: tool and summary, or the first line. UTF-8: a value's
  // ill-formed sequences show as U+FFFD.
  std::string title;
  uint64_t version = 0;  // The version title/tokens describe.
  uint64_t tokens = 0;   // Exact o200k_base count of that version.
  uint64_t size_bytes = 0;
  std::string ref;   // Static ref to `version` (wire form).
  uint64_t seq = 0;  // Order in which it joined the session.
  bool locked = false;
  bool active = false;
  // Made active by the policy (a chat tool output), not by a user.
  bool auto_active = false;
  // Collapsed by the policy: shown as a placeholder.
  bool collapsed = false;
  uint64_t active_seq = 0;      // Order of activation (oldest drop first).
  uint64_t pinned_version = 0;  // 0: not pinned.
  bool from_chat = false;       // A tool output the chat refers to.
  // Its chat message is folded into a compaction: not shown in the chat
  // (still shown in the tail while a user keeps it active).
  bool compacted = false;
};

// Tokens of a render by part; the parts sum to RenderResult::tokens. A
// tool message of the chat counts as active_outputs while its output is
// shown, whole or as an excerpt (its reference line included), and as
// placeholders otherwise; a tail block likewise.
struct RenderBreakdown {
  uint64_t system = 0;
  uint64_t pinned = 0;
  uint64_t index = 0;
  uint64_t compactions = 0;
  uint64_t chat = 0;  // Messages, tool-call names and arguments.
  uint64_t active_outputs = 0;
  uint64_t placeholders = 0;
  uint64_t Total() const {
    return system + pinned + index + compactions + chat + active_outputs +
           placeholders;
  }
};

struct SessionSnapshot {
  std::string id;
  SessionPolicy policy;
  uint64_t generation = 0;  // Bumped by every committed mutation.
  uint64_t chat_messages = 0;
  uint64_t chat_version = 0;       // Version of the chat object, 0: none.
  uint64_t system_version = 0;     // Version of the system object, 0: none.
  std::string ingest_format;       // "" before the first ingestion.
  uint64_t ingested_items = 0;     // Log messages consumed so far.
  std::vector<PoolEntry> entries;  // In seq order; locked ones included.
  // In chat order; together they cover messages [0, the last one's end).
  std::vector<CompactionInfo> compactions;
  uint64_t renders = 0;  // Renders recorded (see Session::Replay).
  // The last recorded render's tokens, budget and breakdown by part (all
  // 0 before the first).
  uint64_t last_render_tokens = 0;
  uint64_t last_render_budget = 0;
  RenderBreakdown last_render_breakdown;
};

struct IngestReport {
  uint64_t messages_added = 0;  // Chat messages appended.
  uint64_t toolcalls_recorded = 0;
  bool reset = false;  // The log was rewritten: the chat was rebuilt.
};

struct RenderOptions {
  uint64_t budget_tokens = 0;  // Required, >= 1.
  LogFormat format = LogFormat::kOpenAI;
  // Record the render (see Session::Replay). false: nothing is written
  // for the record (budget pressure still persists its collapses and
  // compactions).
  bool record = true;
  // The chat-completions endpoint that writes the summary of a compaction
  // this render makes ("llm-v1:<model>"); the render waits for it (up to
  // its timeout). Unset or not configured(): structural summaries. On any
  // error the structural summary is used and the compaction object says
  // why ("summary_notes"). The library never reads the environment; the
  // CLI and MCP server fill this from CTXKIT_LLM_*.
  std::optional<LlmEndpoint> llm;
  // Tool definitions the request carries as "tools": a JSON array in the
  // request's provider format, such as AgentToolsJson (ctxkit/agent_tools.h)
  // with the harness's own tools appended. Written compactly, after the
  // messages; its tokens count in the budget (breakdown: with the system
  // prompt) and the record names it, so replays carry it too. Empty: none.
  // InvalidArgument when it is not a JSON array.
  std::string tools_json;
};

struct RenderDrop {
  std::string key;
  uint64_t version = 0;
  uint64_t tokens = 0;  // Content tokens not shown.
  std::string ref;      // How to get it back.
};

struct RenderConflict {
  std::string key;
  uint64_t pinned_version = 0;
  uint64_t active_version = 0;
};

struct RenderResult {
  LogFormat format = LogFormat::kOpenAI;  // The request's format.
  // OpenAI: {"messages": [...]}. Anthropic: {"system": [...],
  // "messages": [...]}, with cache_control on the last block of the stable
  // part. OpenAI Responses: {"input": [...]} (items kept verbatim appear
  // only in this format). Serialize with dump() for byte-identical output. Any
  // value can be shown: content that is not UTF-8 shows each ill-formed
  // sequence as U+FFFD (its ref reads the exact bytes).
  std::string request_json;
  uint64_t tokens = 0;  // Counted as docs/sessions.md says; <= budget.
  uint64_t budget_tokens = 0;
  std::vector<RenderDrop> dropped;  // Active content left out (budget).
  std::vector<RenderConflict> conflicts;
  uint64_t index_listed = 0;  // Metadata entries listed.
  uint64_t index_total = 0;   // Metadata entries the index could list.
  RenderBreakdown breakdown;
  // Budget pressure in this render: keys of the outputs it collapsed, and
  // the compaction it made (empty ref: none).
  std::vector<std::string> collapsed;
  CompactionInfo compacted;
  uint64_t compacted_messages = 0;  // Chat messages folded, in all.
  uint64_t record = 0;  // This render's record number; 0: not recorded.
  // Bytes of request_json, and how many of them begin the same as the
  // previous recorded render's request (what a provider's prompt cache can
  // reuse). nullopt for the first record, for a render not recorded, and
  // when the previous record no longer replays (gc).
  uint64_t bytes = 0;
  std::optional<uint64_t> prefix_bytes;
};

// One recorded render's figures, read from its record (no replay).
struct RenderFigures {
  uint64_t record = 0;  // 1-based.
  LogFormat format = LogFormat::kOpenAI;
  uint64_t budget_tokens = 0;
  uint64_t tokens = 0;
  RenderBreakdown breakdown;
  // As RenderResult; 0 / nullopt in records written before these existed.
  uint64_t bytes = 0;
  std::optional<uint64_t> prefix_bytes;
};

// What changed between two recorded renders (Session::Diff). Each list
// names objects by key (chat tool outputs by their toolcall key).
struct RenderDiff {
  uint64_t from = 0, to = 0;              // Record numbers.
  std::vector<std::string> entered;       // Content shown in `to`, not `from`.
  std::vector<std::string> left;          // Shown in `from`, not in `to`.
  std::vector<std::string> collapsed;     // Chat outputs shown, then hidden.
  std::vector<CompactionInfo> compacted;  // Compactions new in `to`.
  uint64_t from_tokens = 0, to_tokens = 0;
  RenderBreakdown from_breakdown, to_breakdown;
};

// How many bytes at the start of request `current` are those of request
// `previous` (serialized requests, as RenderResult::request_json): the
// length of their common prefix, what a provider's prompt cache can
// reuse. A request whose messages continue the previous one's shares all
// of it but the closing "]}".
uint64_t RequestPrefixBytes(std::string_view previous,
                            std::string_view current);

class Session {
 public:
  // Creates session `id` (1-64 bytes of [A-Za-z0-9._-]). AlreadyExists when
  // it exists; InvalidArgument for a bad id or policy. REQUIRES: `store`
  // outlives the Session.
  static Result<std::unique_ptr<Session>> Create(Store& store,
                                                 std::string_view id,
                                                 const SessionPolicy& policy);
  // Opens an existing session; NotFound when there is none.
  static Result<std::unique_ptr<Session>> Open(Store& store,
                                               std::string_view id);
  // Every session id of the store, sorted.
  static Result<std::vector<std::string>> List(Store& store);
  // Removes session `id`: every live object in its session scope (the chat,
  // the system prompt, toolcalls, externalized variables, values stored
  // with scope "session") gets a tombstone, its session-only values in this
  // Store instance are dropped, then its state (pools, policy) is deleted.
  // History stays readable by static ref until `gc` collects it; objects in
  // other scopes are not touched. Interrupted, it can simply be run again.
  // Returns how many objects were removed; NotFound when there is no such
  // session.
  static Result<uint64_t> Remove(Store& store, std::string_view id);

  // Creates session `child` from recorded render `record` (1-based) of
  // session `parent`: the child starts from the state that render showed
  // the model, and its first render with that render's budget, format and
  // tools is the request Replay(record) of the parent returns, byte for
  // byte (docs/sessions.md, "Forks", says when it cannot be). The parent is
  // not changed.
  //
  // Shared, not copied: the tool outputs, compactions and other objects
  // of the parent's scope the render named stay where they are; the child
  // reads them by ref at the versions the render showed (they do not
  // follow the parent's later versions) and holds them for gc, so they
  // outlive Remove(parent). Copied: the chat and the system prompt (the
  // child's own, which it grows), its pool entries and policy. The child
  // continues the parent's log where render `record` stood (IngestAppend,
  // or a whole log that extends that prefix); a record written by a build
  // before records kept the ingest cursor gives the child none, so its
  // next whole-log ingestion rebuilds the chat. The child's records start
  // at 1.
  //
  // InvalidArgument for a malformed id or record 0; NotFound when there is
  // no session `parent` or no such record, or when a version the record
  // names was collected; AlreadyExists when session `child` exists.
  // REQUIRES: `store` outlives the Session.
  static Result<std::unique_ptr<Session>> Fork(Store& store,
                                               std::string_view parent,
                                               uint64_t record,
                                               std::string_view child);

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const;

  // The view the session reads and writes its objects through (agent "",
  // session `id()`): a key given to Activate, Pin, ... is looked up in it.
  // For code acting on the session's objects on its behalf (the agent
  // tools of ctxkit/agent_tools.h). Valid while the Session lives.
  View& view();

  // The current state (re-read when another process changed it).
  Result<SessionSnapshot> Snapshot();

  // Static refs of every version the session needs kept: each pool entry's
  // described version and pinned version, the chat and the system prompt
  // at the versions its state names, its compactions and the chat versions
  // they read, every ref its render records name, and the tool outputs the
  // chats they name refer to (so each recorded render replays). `ctxkit gc`
  // never collects these.
  Result<std::vector<Ref>> PinnedRefs();

  // OBJECT is a key (looked up in the session's view: session scope, then
  // global), a ref ("ck:..."), or "chat"/"system". version 0: latest.
  //
  // Activate: the object joins the active pool (and the metadata pool).
  // With a version, it is pinned at that version instead (a static ref
  // cannot follow the latest). Deactivate: back to metadata only;
  // FailedPrecondition for locked objects, saying they are locked.
  // Pin: shown at `version` (0: the current latest) until unpinned.
  // Unpin: NotFound when not pinned. Track: metadata pool only.
  Status Activate(std::string_view object, uint64_t version = 0);
  Status Deactivate(std::string_view object);
  Status Pin(std::string_view object, uint64_t version = 0);
  Status Unpin(std::string_view object);
  Status Track(std::string_view object);
  // Adds many objects to the metadata pool in one transaction.
  Status TrackMany(const std::vector<std::string>& objects);

  // Replaces the policy and applies it.
  Status SetPolicy(const SessionPolicy& policy);

  // Ingests a whole log (see the top of this file). InvalidArgument, with
  // the JSON path of the problem, for a malformed log; the session is then
  // unchanged.
  // `progress` reports task "ingesting", counted in log items (a message,
  // or a Responses item), from the first new one (ctxkit/progress.h).
  Result<IngestReport> Ingest(std::string_view log_json, LogFormat format,
                              const ProgressOptions& progress = {});
  // Ingests only the messages that follow what was ingested so far: a
  // bare array (or {"messages": [...]}) of new log messages, in the format
  // of the earlier ingestions (FailedPrecondition for another format).
  // Tool results may answer calls ingested earlier. A system message in it
  // is refused (InvalidArgument: the system prompt is set by a whole-log
  // ingestion). A session with nothing ingested takes it as a whole log.
  Result<IngestReport> IngestAppend(std::string_view messages_json,
                                    LogFormat format,
                                    const ProgressOptions& progress = {});

  // The request the model sees. InvalidArgument for budget 0;
  // FailedPrecondition when the locked and pinned content alone exceed the
  // budget (the message gives the smallest budget that renders). Same state,
  // same options: the same bytes.
  //
  // Budget pressure (SessionPolicy) is applied first and persisted; then
  // the request is built and, unless options.record is false, recorded as
  // the session's next render record: a compact manifest of the static
  // refs and decisions it was built from (not its text).
  Result<RenderResult> Render(const RenderOptions& options);

  // Recorded render `n` (1-based) again, byte for byte, whatever changed
  // since: later versions, collapses, compactions; the rest of the result
  // is what that render returned (dropped, conflicts, collapsed, compacted,
  // figures). NotFound when there is no such record, or when `gc` collected
  // a version it needs.
  Result<RenderResult> Replay(uint64_t n);

  // The figures of every recorded render, oldest first, read from the
  // record stream in one pass (no replay): what a timeline of the session
  // needs. Corruption when a record does not parse.
  Result<std::vector<RenderFigures>> RenderHistory();

  // What entered, left, collapsed or was compacted between recorded
  // renders `from` and `to`.
  Result<RenderDiff> Diff(uint64_t from, uint64_t to);

  // The chat messages compaction `compaction` (its ref, or its key in the
  // session scope) replaces, exactly as stored: the chat's NDJSON lines.
  Result<std::string> Expand(std::string_view compaction);

  // The static ref of the tool output that chat message `message` (0-based,
  // counting every message of the chat, compacted ones included) records:
  // what the handle "#<message>" of a placeholder or excerpt names in a
  // render that carries the agent tools (ctxkit/agent_tools.h). NotFound
  // when the chat has no such message or it is not a tool message.
  Result<Ref> ToolOutputRef(uint64_t message);

  // Asks the next render to fold every turn but the newest keep_turns into
  // a compaction now, whatever the budget pressure (what a model asks for
  // with ctxkit_compact). `instructions` (0-2,000 bytes of UTF-8) say what
  // the summary must keep: an LLM summarizer is given them; the structural
  // summary quotes them on its first line; the compaction object keeps
  // them ("instructions"). A later request replaces an earlier one not yet
  // rendered. With fewer turns than keep_turns the next render only clears
  // the request. InvalidArgument for instructions too long or not UTF-8.
  Status RequestCompaction(std::string_view instructions);

 private:
  explicit Session(std::unique_ptr<SessionImpl> impl);
  std::unique_ptr<SessionImpl> impl_;
};

}  // namespace ctxkit

#endif  // CTXKIT_SESSION_H_
