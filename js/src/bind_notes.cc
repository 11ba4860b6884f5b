// Notebook: agent context notes (markdown files with YAML frontmatter under
// a root, indexed in the store), opened on a view. Results are the JSON
// forms of src/notes/json_forms.h, as the CLI's --json and the MCP notes_*
// tools give them.

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/notes.h"
#include "node_binding.h"
#include "notes/json_forms.h"
#include "os/filename.h"
#include "view_object.h"

namespace ctxkit::node {

namespace {

using nlohmann::json;

std::string RequiredString(const Napi::Object& o, const char* name) {
  std::optional<std::string> v = OptString(o, name);
  if (!v) {
    throw Napi::TypeError::New(
        o.Env(), std::string("options.") + name + " (a string) is required");
  }
  return std::move(*v);
}

}  // namespace

class NotebookWrap : public ViewObjectWrap<NotebookWrap, Notebook> {
 public:
  static constexpr NativeClass kClass = NativeClass::kNotebook;

  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "NativeNotebook",
        {InstanceAccessor<&NotebookWrap::Root>("root"),
         InstanceMethod("add", &NotebookWrap::P<&NotebookWrap::Add>),
         InstanceMethod("update", &NotebookWrap::P<&NotebookWrap::Update>),
         InstanceMethod("link", &NotebookWrap::P<&NotebookWrap::Link>),
         InstanceMethod("supersede",
                        &NotebookWrap::P<&NotebookWrap::Supersede>),
         InstanceMethod("show", &NotebookWrap::P<&NotebookWrap::Show>),
         InstanceMethod("search", &NotebookWrap::P<&NotebookWrap::Search>),
         InstanceMethod("scan", &NotebookWrap::P<&NotebookWrap::Scan>),
         InstanceMethod("gc", &NotebookWrap::P<&NotebookWrap::Gc>)});
    SetNativeClass(env, kClass, cls);
    exports.Set("NativeNotebook", cls);
  }

  explicit NotebookWrap(const Napi::CallbackInfo& info)
      : ViewObjectWrap(info, "use Notebook.open(view, options)") {}

  // openNotebook(view, {root}): root default <store home>/notes-root, as
  // Python's Notebook.open.
  static Napi::Value Open(const Napi::CallbackInfo& info) {
    Napi::Object o = OptionsArg(info, 1);
    std::optional<std::string> root = OptString(o, "root");
    return OpenOn(info, [root](Store& store, ctxkit::View& view) {
      NotebookOptions options{
          .root = root.value_or(storage::HomeNotesRoot(store.home()))};
      return Notebook::Open(view, options);
    });
  }

 private:
  Napi::Value Root(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), object().root());
  }

  // Resolves to the written form of each path (one: an object).
  Napi::Value Written(const Napi::CallbackInfo& info,
                      std::function<Status(Notebook&)> change,
                      std::vector<std::string> paths) {
    return Call<json>(
        info,
        [change = std::move(change), paths = std::move(paths)](
            Notebook& book, ctxkit::View& view) -> Result<json> {
          CTXKIT_RETURN_IF_ERROR(change(book));
          json out = json::array();
          for (const std::string& p : paths) {
            Result<std::string> rel = book.RelativePath(p);
            if (!rel.ok()) return rel.status();
            out.push_back(notes::NoteWrittenToJson(view, book, *rel));
          }
          return paths.size() == 1 ? out[0] : out;
        },
        JsonValue);
  }

  // add({agent, slug, body, sessionId, type, tags, links}).
  Napi::Value Add(const Napi::CallbackInfo& info) {
    if (info.Length() < 1 || !info[0].IsObject()) {
      throw Napi::TypeError::New(info.Env(), "note must be an object");
    }
    Napi::Object o = info[0].As<Napi::Object>();
    NewNote note;
    note.agent = RequiredString(o, "agent");
    note.slug = RequiredString(o, "slug");
    note.body = RequiredString(o, "body");
    note.session_id = OptString(o, "sessionId").value_or("");
    Result<NoteType> type =
        ParseNoteType(OptString(o, "type").value_or("finding"));
    note.tags = OptStrings(o, "tags");
    note.links = OptStrings(o, "links");
    if (!type.ok()) ThrowStatus(info.Env(), type.status());
    note.type = *type;
    return Call<json>(
        info,
        [note = std::move(note)](Notebook& book,
                                 ctxkit::View& view) -> Result<json> {
          Result<std::string> rel = book.Add(note);
          if (!rel.ok()) return rel.status();
          return notes::NoteWrittenToJson(view, book, *rel);
        },
        JsonValue);
  }

  // update(path, {agent, message, body}).
  Napi::Value Update(const Napi::CallbackInfo& info) {
    std::string path = StringArg(info, 0, "path");
    Napi::Object o = OptionsArg(info, 1);
    std::string agent = RequiredString(o, "agent");
    std::string message = RequiredString(o, "message");
    std::optional<std::string> body = OptString(o, "body");
    return Written(
        info,
        [path, agent = std::move(agent), message = std::move(message),
         body = std::move(body)](Notebook& book) {
          return book.Update(path, agent, message, body);
        },
        {path});
  }

  // link(path, target, {agent}).
  Napi::Value Link(const Napi::CallbackInfo& info) {
    std::string path = StringArg(info, 0, "path");
    std::string target = StringArg(info, 1, "target");
    std::string agent = RequiredString(OptionsArg(info, 2), "agent");
    return Written(
        info,
        [path, target = std::move(target), agent = std::move(agent)](
            Notebook& book) { return book.Link(path, target, agent); },
        {path});
  }

  // supersede(oldPath, newPath, {agent}): resolves to [new, old].
  Napi::Value Supersede(const Napi::CallbackInfo& info) {
    std::string old_path = StringArg(info, 0, "oldPath");
    std::string new_path = StringArg(info, 1, "newPath");
    std::string agent = RequiredString(OptionsArg(info, 2), "agent");
    return Written(
        info,
        [old_path, new_path, agent = std::move(agent)](Notebook& book) {
          return book.Supersede(old_path, new_path, agent);
        },
        {new_path, old_path});
  }

  Napi::Value Show(const Napi::CallbackInfo& info) {
    std::string path = StringArg(info, 0, "path");
    return Call<json>(
        info,
        [path = std::move(path)](Notebook& book,
                                 ctxkit::View&) -> Result<json> {
          Result<Note> note = book.Show(path);
          if (!note.ok()) return note.status();
          return notes::NoteToJson(*note);
        },
        JsonValue);
  }

  // search({text, agent, type, tags, session, limit}).
  Napi::Value Search(const Napi::CallbackInfo& info) {
    Napi::Object o = OptionsArg(info, 0);
    NoteQuery query;
    query.text = OptString(o, "text").value_or("");
    query.agent = OptString(o, "agent").value_or("");
    query.type = OptString(o, "type").value_or("");
    query.tags = OptStrings(o, "tags");
    query.session = OptString(o, "session").value_or("");
    query.limit = OptUint(o, "limit").value_or(query.limit);
    return Call<json>(
        info,
        [query = std::move(query)](Notebook& book,
                                   ctxkit::View&) -> Result<json> {
          Result<std::vector<NoteHit>> hits = book.Search(query);
          if (!hits.ok()) return hits.status();
          json out = json::array();
          for (const NoteHit& h : *hits) out.push_back(notes::NoteHitToJson(h));
          return out;
        },
        JsonValue);
  }

  // scan({full}).
  Napi::Value Scan(const Napi::CallbackInfo& info) {
    const bool full = OptBool(OptionsArg(info, 0), "full").value_or(false);
    return Call<json>(
        info,
        [full](Notebook& book, ctxkit::View&) -> Result<json> {
          Result<ScanStats> stats = book.Scan(full);
          if (!stats.ok()) return stats.status();
          return notes::ScanStatsToJson(*stats);
        },
        JsonValue);
  }

  // gc({olderThanSeconds, apply}): default the retention of `ctxkit notes
  // gc` (kDefaultContextRetention), a dry run unless apply.
  Napi::Value Gc(const Napi::CallbackInfo& info) {
    Napi::Object o = OptionsArg(info, 0);
    std::optional<uint64_t> older = OptUint(o, "olderThanSeconds");
    const int64_t seconds = older ? static_cast<int64_t>(*older)
                                  : *ParseRetention(kDefaultContextRetention);
    const bool apply = OptBool(o, "apply").value_or(false);
    return Call<json>(
        info,
        [seconds, apply](Notebook& book, ctxkit::View&) -> Result<json> {
          Result<GcReport> report = book.Gc(seconds, apply);
          if (!report.ok()) return report.status();
          return notes::GcReportToJson(*report);
        },
        JsonValue);
  }
};

// executionLog(store, {limit}): the last `limit` (default 20) entries of
// the execution log, oldest first, as `ctxkit log --json` prints
// them.
Napi::Value ExecutionLog(const Napi::CallbackInfo& info) {
  std::shared_ptr<Store> store = StoreArg(info, 0);
  const uint64_t limit =
      OptUint(OptionsArg(info, 1), "limit").value_or(kExecutionLogDefaultLimit);
  return Async<std::vector<ExecutionLogEntry>>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [store, limit] { return ReadExecutionLog(*store, limit); },
      [](Napi::Env env, std::vector<ExecutionLogEntry>& entries) {
        return ToJs(env, notes::ExecutionLogToJson(entries));
      });
}

void InitNotes(Napi::Env env, Napi::Object exports) {
  NotebookWrap::Init(env, exports);
  exports.Set("openNotebook",
              Napi::Function::New(env, PromisedFn<NotebookWrap::Open>));
  exports.Set("executionLog",
              Napi::Function::New(env, PromisedFn<ExecutionLog>));
}

}  // namespace ctxkit::node
