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
// Policy: the last `keep_tool_outputs` tool outputs of the chat are active;
// older ones collapse to metadata, in batches freeing at least
// `min_collapse_tokens`, so the rendered prefix changes rarely. Pinned
// outputs never collapse. A collapsed output leaves a placeholder with its
// ref in the chat.
//
// Rendering returns a provider request (OpenAI or Anthropic JSON) never over
// a token budget; the counting rule and the layout are in docs/sessions.md.
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
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

class SessionImpl;

enum class LogFormat : uint8_t { kOpenAI = 0, kAnthropic };
// "openai", "anthropic".
std::string_view LogFormatName(LogFormat format);
// Parses LogFormatName's form; InvalidArgument otherwise.
Result<LogFormat> ParseLogFormat(std::string_view name);

struct SessionPolicy {
  // Chat tool outputs kept active, newest first. 0: none stay active.
  uint32_t keep_tool_outputs = 5;
  // Older outputs collapse only once together they free at least this many
  // tokens (0: collapse as soon as one is older than the last N). Each
  // collapse invalidates the provider's cached prefix from the first
  // collapsed output on; a cached token costs about a tenth of a fresh one,
  // so small collapses cost more than they save. Render drops (over
  // budget) use the same batch size.
  uint64_t min_collapse_tokens = 8000;
  // Tokens the metadata index may use in a render (it lists objects in the
  // order they joined the session and says when more exist). 1-10,000,000.
  uint64_t index_max_tokens = 4000;
};

// One object the session knows.
struct PoolEntry {
  std::string id;  // The store object id.
  std::string key;
  std::string scope;  // Scope::ToString form.
  // "toolcall", "file", "chat", "system", or the value type name.
  std::string kind;
  std::string title;     // One line: tool and summary, or the first line.
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
};

struct IngestReport {
  uint64_t messages_added = 0;  // Chat messages appended.
  uint64_t toolcalls_recorded = 0;
  bool reset = false;  // The log was rewritten: the chat was rebuilt.
  // Keys of tool outputs the policy collapsed in this ingestion.
  std::vector<std::string> collapsed;
};

struct RenderOptions {
  uint64_t budget_tokens = 0;  // Required, >= 1.
  LogFormat format = LogFormat::kOpenAI;
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
  // OpenAI: {"messages": [...]}. Anthropic: {"system": [...],
  // "messages": [...]}, with cache_control on the last block of the stable
  // part. Serialize with dump() for byte-identical output.
  std::string request_json;
  uint64_t tokens = 0;  // Counted as docs/sessions.md says; <= budget.
  uint64_t budget_tokens = 0;
  std::vector<RenderDrop> dropped;  // Active content left out (budget).
  std::vector<RenderConflict> conflicts;
  uint64_t index_listed = 0;  // Metadata entries listed.
  uint64_t index_total = 0;   // Metadata entries the index could list.
};

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

  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& id() const;

  // The current state (re-read when another process changed it).
  Result<SessionSnapshot> Snapshot();

  // Static refs of every version the session needs kept: each pool entry's
  // described version and pinned version, the chat and the system prompt
  // at the versions its state names. `ctxkit gc` never collects these.
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
  Result<IngestReport> Ingest(std::string_view log_json, LogFormat format);

  // The request the model sees. InvalidArgument for budget 0;
  // FailedPrecondition when the locked and pinned content alone exceed the
  // budget (the message gives the smallest budget that renders). Same state,
  // same options: the same bytes.
  Result<RenderResult> Render(const RenderOptions& options);

 private:
  explicit Session(std::unique_ptr<SessionImpl> impl);
  std::unique_ptr<SessionImpl> impl_;
};

}  // namespace ctxkit

#endif  // CTXKIT_SESSION_H_
