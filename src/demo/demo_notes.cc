// `ctxkit demo`, step 10: the two on-disk formats other programs read —
// tool-output files and agent context notes — kept in the store too.
//
// Runs on a throwaway store and roots under $TMPDIR, removed at the end.

#include <string>
#include <vector>

#include "cli/output.h"
#include "cli/subprocess.h"
#include "core/status_macros.h"
#include "ctxkit/capture.h"
#include "ctxkit/notes.h"
#include "demo/demo_steps.h"

namespace ctxkit::cli {
namespace {

// A grep-like JSON result of about `lines` lines.
std::string GrepResult(const std::string& word, int lines) {
  std::string out = "[";
  for (int i = 0; i < lines; ++i) {
    out += std::string(i ? "," : "") + "{\"file\":\"src/auth/session_" +
           std::to_string(i % 17) +
           ".cc\",\"line\":" + std::to_string(100 + i) + ",\"text\":\"" + word +
           ": token refresh failed for user " + std::to_string(i) + "\"}";
  }
  return out + "]";
}

Status Capture(const std::string& tmp, Store& store, const DemoSay& say) {
  Result<View> view = store.OpenView("demo-agent", "demo");
  if (!view.ok()) return view.status();
  CaptureOptions options;
  options.root = tmp + "/agent-context";
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<ToolOutputCapture> tools,
                          ToolOutputCapture::Open(*view, options));
  // Over 32 KiB: a JSON file in the spec's layout; under: kept in memory.
  CTXKIT_ASSIGN_OR_RETURN(std::string big,
                          tools->SaveContext("grep", R"({"pattern":"error"})",
                                             GrepResult("error", 400)));
  CTXKIT_ASSIGN_OR_RETURN(
      std::string small,
      tools->SaveContext("list_dir", R"({"path":"docs"})",
                         R"(["README.md","architecture.md"])"));
  say("10. Tool-output capture (throwaway store): a " +
      HumanBytes(GrepResult("error", 400).size()) + " grep output becomes");
  say("    " + big);
  say("    and a small list_dir output stays in memory as " + small);
  CTXKIT_ASSIGN_OR_RETURN(std::vector<ContextPointer> pointers,
                          tools->ListContexts(tools->session_id()));
  SelectOptions select;
  select.use_llm = false;
  select.max_selected = 1;
  CTXKIT_ASSIGN_OR_RETURN(
      Selection chosen,
      tools->Select("which errors did grep find?", pointers, select));
  if (chosen.selected.size() != 1 || chosen.selected[0].tool_name != "grep") {
    return Status::Internal("selection did not pick the grep output");
  }
  say("    tools select \"which errors did grep find?\" (" + chosen.method +
      "): " + chosen.selected[0].tool_name +
      ", loaded alone; both are "
      "toolcall objects in the store");
  return Status::Ok();
}

Status Notes(const std::string& tmp, Store& store, const DemoSay& say) {
  Result<View> view = store.OpenView("", "");
  if (!view.ok()) return view.status();
  NotebookOptions options;
  options.root = tmp + "/notes";
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Notebook> notes,
                          Notebook::Open(*view, options));
  NewNote finding;
  finding.agent = "auditor";
  finding.type = NoteType::kFinding;
  finding.tags = {"security", "auth"};
  finding.slug = "JWT expiry too long";
  finding.body = "Access tokens live 24 h; refresh tokens never rotate.";
  CTXKIT_ASSIGN_OR_RETURN(std::string first, notes->Add(finding));
  CTXKIT_RETURN_IF_ERROR(
      notes->Update(first, "auditor", "Confirmed in src/auth/jwt.cc"));
  NewNote decision = finding;
  decision.type = NoteType::kDecision;
  decision.slug = "Shorten JWT expiry";
  decision.body = "Access tokens: 15 min. Refresh tokens rotate on use.";
  CTXKIT_ASSIGN_OR_RETURN(std::string second, notes->Add(decision));
  CTXKIT_RETURN_IF_ERROR(notes->Supersede(first, second, "auditor"));
  say("    Agent notes: " + first + " (updated, then superseded by");
  say("    " + second + "); markdown with YAML frontmatter and a changelog");

  NoteQuery query;
  query.tags = {"security"};
  query.text = "refresh tokens";
  CTXKIT_ASSIGN_OR_RETURN(std::vector<NoteHit> hits, notes->Search(query));
  if (hits.size() != 2) {
    return Status::Internal("notes search found " +
                            std::to_string(hits.size()) + " notes, not 2");
  }
  say("    notes search --tag security \"refresh tokens\": " +
      std::to_string(hits.size()) + " notes, from the store's index");
  Result<ProcessResult> rg =
      RunProcess({"rg", "-l", "tags:.*security", notes->root()});
  if (rg.ok() && rg->exit_code == 0) {
    size_t files = 0;
    for (char c : rg->out) files += c == '\n';
    say("    rg -l 'tags:.*security' finds the same " + std::to_string(files) +
        " plain files");
  }
  return Status::Ok();
}

}  // namespace

Status DemoCaptureAndNotes(const DemoSay& say) {
  DemoTempDir tmp;
  if (tmp.path().empty()) return Status::IoError("mkdtemp failed");
  Options options;
  options.home = tmp.path() + "/store";
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(options));
  CTXKIT_RETURN_IF_ERROR(Capture(tmp.path(), *store, say));
  return Notes(tmp.path(), *store, say);
}

}  // namespace ctxkit::cli
