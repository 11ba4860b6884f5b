// `ctxkit demo`: a short guided tour of the store on the real default home.
// Every claim it prints is checked; a failed check ends the demo with a
// non-zero exit code and the reason.

#include "demo/demo.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/digest.h"
#include "cli/output.h"
#include "cli/subprocess.h"
#include "ctxkit/chunk.h"
#include "ctxkit/explore.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"
#include "demo/demo_corpus.h"
#include "demo/demo_steps.h"

namespace ctxkit::cli {

namespace {

constexpr size_t kCorpusBytes = 4u << 20;
constexpr char kCorpusKey[] = "demo/corpus";
constexpr char kPlanKey[] = "demo/plan";
constexpr char kScratchKey[] = "demo/scratch";
constexpr char kPlanner[] = "demo-planner";
constexpr char kReader[] = "demo-reader";

void Say(const std::string& line) {
  std::string out = line + "\n";
  std::fwrite(out.data(), 1, out.size(), stdout);
}

std::string Short(const std::string& hex) { return hex.substr(0, 12); }

// The first line of `text`, cut to `max` bytes, for a one-line preview.
std::string FirstLine(std::string_view text, size_t max = 56) {
  std::string line(text.substr(0, text.find('\n')));
  if (line.size() > max) line = line.substr(0, max) + "...";
  return line;
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

class Demo {
 public:
  explicit Demo(Context& ctx) : ctx_(ctx) {}

  Status Run() {
    Status s = Open();
    if (s.ok()) s = StoreCorpus();
    if (s.ok()) s = SubAgentReads();
    if (s.ok()) s = UpdateAndHistory();
    if (s.ok()) s = OtherProcessReads();
    if (s.ok()) s = SessionOnly();
    if (s.ok()) s = ExploreByHandle();
    if (s.ok()) {
      s = DemoContextManager(*store_, session_ + "-ctx", v1_text_, Say);
    }
    if (s.ok()) s = DemoWatchers(Say);
    if (s.ok()) s = DemoCaptureAndNotes(Say);
    if (s.ok()) {
      s = DemoExternalize(*store_, session_ + "-ctx", v1_text_, Say);
    }
    if (s.ok()) s = DemoSpawn(*store_, Say);
    if (!s.ok()) return s;
    Say("Done. Explore: ctxkit --home " + home_ +
        " ls --prefix demo/  |  versions " + kCorpusKey + "  |  session show " +
        session_ + "-ctx");
    return Status::Ok();
  }

 private:
  Status Open() {
    Result<Store*> store = ctx_.OpenStore();
    if (!store.ok()) return store.status();
    store_ = *store;
    home_ = store_->home();
    session_ = "demo-" + std::to_string(::getpid());
    Result<View> planner = store_->OpenView(kPlanner, session_);
    if (!planner.ok()) return planner.status();
    planner_.emplace(std::move(*planner));
    Say("ctxkit demo: agents hold refs to context, not the context itself.");
    Say("store: " + home_ + " (SQLite WAL + blob files)");
    return Status::Ok();
  }

  Status StoreCorpus() {
    DemoCorpus corpus = BuildDemoCorpus(kCorpusBytes);
    v1_text_ = std::move(corpus.text);
    v1_sha_ = Sha256Hex(v1_text_);
    Say("1. Built a " + HumanBytes(v1_text_.size()) + " document from " +
        std::to_string(corpus.files) + " files: " + Join(corpus.origins));

    SetOptions opts;
    opts.tags = {"demo"};
    opts.producer = std::string("agent:") + kPlanner;
    Result<Ref> ref = planner_->Set(kCorpusKey, v1_text_, opts);
    if (!ref.ok()) return ref.status().WithContext("set demo/corpus");
    v1_ = ref->version;
    wire_ = FormatRef(ref->Dynamic());  // Follows the latest version.
    Say("2. Planner stored it as " + std::string(kCorpusKey) + " v" +
        std::to_string(v1_) + " (durable on return) and took its ref:");
    Say("     " + wire_);
    uint64_t ratio = v1_text_.size() / std::max<size_t>(wire_.size(), 1);
    Say("   ref " + std::to_string(wire_.size()) + " bytes vs value " +
        GroupedNumber(v1_text_.size()) + " bytes: " + GroupedNumber(ratio) +
        "x smaller; the ref is what goes in a prompt");
    return Status::Ok();
  }

  Status SubAgentReads() {
    Result<View> reader = planner_->SubAgent(kReader);
    if (!reader.ok()) return reader.status();
    // The sub-agent gets only the string, as it would in a prompt.
    Result<Ref> passed = ParseRef(wire_);
    if (!passed.ok()) return passed.status().WithContext("parse own ref");
    Result<std::string> got = reader->Resolve(*passed);
    if (!got.ok()) return got.status().WithContext("sub-agent resolve");
    std::string sha = Sha256Hex(*got);
    if (*got != v1_text_) {
      return Status::Internal("sub-agent read different bytes (sha256 " +
                              Short(sha) + ", expected " + Short(v1_sha_) +
                              ")");
    }
    Say("3. Sub-agent '" + std::string(kReader) + "' resolves the passed ref:");
    Say("   " + GroupedNumber(got->size()) + " bytes, sha256 " + Short(sha) +
        " = original (byte-exact); first line: " + FirstLine(*got));

    // Scope isolation: a ref is a capability, a key name is not.
    SetOptions plan_opts;
    plan_opts.scope = "agent";
    plan_opts.producer = std::string("agent:") + kPlanner;
    Result<Ref> plan = planner_->Set(
        kPlanKey, "summarize the corpus, then review section 3", plan_opts);
    if (!plan.ok()) return plan.status().WithContext("set demo/plan");
    LookupOptions theirs;
    theirs.scope = std::string("agent:") + kPlanner;
    Result<std::string> denied = reader->Get(kPlanKey, theirs);
    if (denied.ok()) {
      return Status::Internal("sub-agent read another agent's key by name");
    }
    Say("   By name it cannot read the planner's agent-scoped " +
        std::string(kPlanKey) + ":");
    Say("     " + denied.status().ToString());
    return Status::Ok();
  }

  Status UpdateAndHistory() {
    Result<Ref> v1_ref =
        planner_->RefOf(kCorpusKey, LookupOptions{"", v1_});  // Static.
    if (!v1_ref.ok()) return v1_ref.status().WithContext("static ref");
    static_wire_ = FormatRef(*v1_ref);

    v2_text_ =
        v1_text_ + "==> demo update at " +
        HumanTime(static_cast<int64_t>(std::time(nullptr)) * 1000000000) +
        " UTC <==\nThe planner appended its findings here.\n";
    v2_sha_ = Sha256Hex(v2_text_);
    SetOptions opts;
    opts.tags = {"demo"};
    opts.producer = std::string("agent:") + kPlanner;
    Result<Ref> ref = planner_->Set(kCorpusKey, v2_text_, opts);
    if (!ref.ok()) return ref.status().WithContext("update demo/corpus");

    Result<std::vector<VersionMeta>> versions = planner_->Versions(kCorpusKey);
    if (!versions.ok()) return versions.status();
    if (versions->size() < 2) {
      return Status::Internal("history lost a version");
    }
    Say("4. Planner updates the value; history keeps both (" +
        std::to_string(versions->size()) +
        " versions so far; each demo run adds two):");
    Table t({"VER", "STATE", "SIZE", "SHA256", "CREATED"}, {0, 2});
    for (size_t i = versions->size() - 2; i < versions->size(); ++i) {
      const VersionMeta& v = (*versions)[i];
      t.AddRow({"v" + std::to_string(v.version),
                std::string(VersionStateName(v.state)),
                GroupedNumber(v.size_bytes), Short(v.content_hash),
                HumanTime(v.created_unix_ns)});
    }
    std::string table = t.Render();
    size_t pos = 0;
    while (pos < table.size()) {
      size_t nl = table.find('\n', pos);
      Say("     " + table.substr(pos, nl - pos));
      pos = nl + 1;
    }
    const VersionMeta& last = versions->back();
    if (last.content_hash != v2_sha_ ||
        (*versions)[versions->size() - 2].content_hash != v1_sha_) {
      return Status::Internal("stored hashes do not match the values set");
    }

    Result<std::string> old = planner_->Resolve(*v1_ref);
    if (!old.ok()) return old.status().WithContext("resolve static ref");
    if (*old != v1_text_) {
      return Status::Internal("static ref to v" + std::to_string(v1_) +
                              " returned other content");
    }
    Say("   Static ref " + static_wire_ + " still reads v" +
        std::to_string(v1_) + " (sha256 " + Short(v1_sha_) + ")");
    return Status::Ok();
  }

  Status OtherProcessReads() {
    Result<ProcessResult> child = RunChild(wire_);
    if (!child.ok()) return child.status();
    std::string sha = Sha256Hex(child->out);
    Say("5. A separate process opens the store and resolves the dynamic ref:");
    Say("     $ ctxkit --home " + home_ + " resolve " + wire_);
    if (child->exit_code != 0 || child->out != v2_text_) {
      return Status::Internal(
          "child process: exit " + std::to_string(child->exit_code) + ", " +
          std::to_string(child->out.size()) + " bytes (sha256 " + Short(sha) +
          "), stderr: " + FirstLine(child->err, 200));
    }
    Say("   exit 0, " + GroupedNumber(child->out.size()) + " bytes, sha256 " +
        Short(sha) + " = latest version: the persistent value survived");
    return Status::Ok();
  }

  Status SessionOnly() {
    SetOptions opts;
    opts.scope = "session";
    opts.persist = false;
    opts.producer = std::string("agent:") + kPlanner;
    const std::string scratch = "scratch notes that never touch the disk";
    Result<Ref> ref = planner_->Set(kScratchKey, scratch, opts);
    if (!ref.ok()) return ref.status().WithContext("set session-only value");
    std::string wire = FormatRef(*ref);
    Result<std::string> here = planner_->Resolve(*ref);
    if (!here.ok() || *here != scratch) {
      return Status::Internal("session-only value unreadable in its process");
    }
    Say("6. A session-only value (persist=false) lives in this process only:");
    Say("     " + wire + " resolves here");

    Result<ProcessResult> child = RunChild(wire);
    if (!child.ok()) return child.status();
    std::string err = FirstLine(child->err, 200);
    if (child->exit_code != kExitUnavailable) {
      return Status::Internal(
          "child resolving a session-only ref: expected "
          "exit 5, got " +
          std::to_string(child->exit_code) + ": " + err);
    }
    Say("   another process gets exit 5: " + err);

    Status end = store_->EndSession(session_);
    if (!end.ok()) return end.WithContext("end session");
    Result<std::string> after = planner_->Resolve(*ref);
    if (after.ok()) {
      return Status::Internal("session-only value outlived EndSession");
    }
    Say("   after EndSession it is gone here too: " +
        std::string(StatusCodeName(after.status().code())));
    return Status::Ok();
  }

  // What the model actually needs: a look at the value through its ref,
  // never the whole value in the prompt.
  Status ExploreByHandle() {
    Result<View> reader = planner_->SubAgent(kReader);
    if (!reader.ok()) return reader.status();
    Result<Ref> ref = ParseRef(wire_);
    if (!ref.ok()) return ref.status();
    Say("7. The sub-agent explores the document through its ref alone:");

    PeekOptions peek_opts;
    peek_opts.start = 0;
    peek_opts.end = 3;
    Result<PeekResult> peek = Peek(*reader, *ref, peek_opts);
    if (!peek.ok()) return peek.status().WithContext("peek");
    Say("   peek lines 0-3: " + GroupedNumber(peek->bytes_read) +
        " bytes read of " + GroupedNumber(peek->total_bytes) +
        "; line 0: " + FirstLine(peek->text));

    SearchOptions search_opts;
    search_opts.refs = {*ref};
    search_opts.case_insensitive = true;
    search_opts.max_results = 3;
    Result<SearchResult> found = Search(*reader, "warranty", search_opts);
    if (!found.ok()) return found.status().WithContext("search");
    if (found->matches.empty()) {
      return Status::Internal("search found no 'warranty' in the corpus");
    }
    std::string lines;
    for (const SearchMatch& m : found->matches) {
      lines += (lines.empty() ? "" : ", ") + std::to_string(m.line);
    }
    Say("   search -i 'warranty' (first " +
        std::to_string(found->matches.size()) + "): lines " + lines + "; " +
        FirstLine(found->matches.front().preview, 60));

    SummarizeOptions sum_opts;
    sum_opts.max_tokens = 60;
    sum_opts.summarizer = SummarizerKind::kStructural;
    Result<Summary> summary = Summarize(*reader, wire_, sum_opts);
    if (!summary.ok()) return summary.status().WithContext("summarize");
    if (summary->tokens > sum_opts.max_tokens) {
      return Status::Internal("summary exceeds its token budget");
    }
    Result<uint64_t> whole = CountValueTokens(*reader, wire_);
    if (!whole.ok()) return whole.status().WithContext("count tokens");
    Say("   summary: " + std::to_string(summary->tokens) +
        " tokens (budget 60) for a value of " + GroupedNumber(*whole) +
        " tokens" + (summary->cached ? " (cached)" : "") +
        "; it begins: " + FirstLine(summary->text, 60));

    constexpr uint32_t kChunkTokens = 8000;
    Result<ChunkList> chunks = Chunk(*reader, wire_, kChunkTokens);
    if (!chunks.ok()) return chunks.status().WithContext("chunk");
    if (chunks->chunks.empty() ||
        chunks->chunks.back().byte_end != chunks->total_bytes) {
      return Status::Internal("chunks do not cover the value");
    }
    for (const ChunkRange& c : chunks->chunks) {
      if (c.tokens > kChunkTokens) {
        return Status::Internal("a chunk is over its token budget");
      }
    }
    const ChunkRange& first = chunks->chunks.front();
    Say("   chunk --max-tokens " + GroupedNumber(kChunkTokens) + ": " +
        GroupedNumber(chunks->chunks.size()) +
        " chunks on paragraph/line boundaries, each a ref to a range, e.g. " +
        FormatRef(chunks->ref) + " @" + std::to_string(first.byte_begin) + "+" +
        std::to_string(first.byte_end - first.byte_begin) + " (" +
        GroupedNumber(first.tokens) + " tokens)");
    return Status::Ok();
  }

  // `ctxkit --home <home> resolve <wire>` in a new process of this binary.
  Result<ProcessResult> RunChild(const std::string& wire) {
    std::fflush(stdout);  // Keep the tour's lines in order.
    Result<std::string> exe = SelfExecutable();
    if (!exe.ok()) return exe.status();
    return RunProcess({*exe, "--home", home_, "resolve", wire});
  }

  Context& ctx_;
  Store* store_ = nullptr;
  std::string home_;
  std::string session_;
  std::optional<View> planner_;
  std::string v1_text_, v1_sha_, v2_text_, v2_sha_;
  uint64_t v1_ = 0;
  std::string wire_;         // Dynamic ref to demo/corpus.
  std::string static_wire_;  // Static ref pinned to v1_.
};

int RunDemo(Context& ctx) {
  Demo demo(ctx);
  Status s = demo.Run();
  if (!s.ok()) {
    std::fflush(stdout);
    std::fprintf(stderr, "ctxkit: demo failed: %s\n", s.ToString().c_str());
    return ExitCodeFor(s);
  }
  return kExitOk;
}

}  // namespace

void RegisterDemoCommand(CLI::App& app, CommandTable& table) {
  CLI::App* sub = app.add_subcommand(
      "demo",
      "A guided tour on the store (--home or the default): a 4 MiB document "
      "passed by ref to a sub-agent, versions, static refs, a second process, "
      "a session-only value, peek/search/summary by ref, a context-manager "
      "session, file watchers, tool-output capture and agent notes. Safe to "
      "re-run; it appends versions and adds "
      "a session");
  // The tour words its own failure ("ctxkit: demo failed: ...").
  table.AddWithExitCode(sub, [](Context& ctx) { return RunDemo(ctx); });
}

}  // namespace ctxkit::cli
