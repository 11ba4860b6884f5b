// `ctxkit demo`: a sub-agent spawned as a real child process with a ref,
// which reads the value by that ref and hands a result back.
//
// Works on the demo's store (the one it was given): the report it passes
// stays under demo/spawn/report, the manifest under <home>/spawn/, and the
// result in the child's agent scope, for the user to look at afterwards.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/subprocess.h"
#include "core/status_macros.h"
#include "ctxkit/spawn.h"
#include "demo/demo_steps.h"

namespace ctxkit::cli {
namespace {

constexpr char kParent[] = "demo-planner";
constexpr char kReportKey[] = "demo/spawn/report";

// A build log with a known number of ERROR lines, so the child's answer
// can be checked.
std::string BuildReport(int* errors) {
  std::string text;
  *errors = 0;
  for (int i = 0; i < 400; ++i) {
    if (i % 57 == 13) {
      text += "ERROR step " + std::to_string(i) + ": link failed\n";
      ++*errors;
    } else {
      text += "ok    step " + std::to_string(i) + ": compiled unit_" +
              std::to_string(i) + ".cc\n";
    }
  }
  return text;
}

}  // namespace

Status DemoSpawn(Store& store, const DemoSay& say) {
  int errors = 0;
  const std::string report = BuildReport(&errors);
  CTXKIT_ASSIGN_OR_RETURN(View parent, store.OpenView(kParent, ""));
  SetOptions opts;
  opts.producer = std::string("agent:") + kParent;
  CTXKIT_RETURN_IF_ERROR(parent.Set(kReportKey, report, opts).status());

  CTXKIT_ASSIGN_OR_RETURN(std::string self, SelfExecutable());
  // The child is a shell script that uses only the ctxkit CLI and grep: it
  // learns the store, its agent id and the manifest from the environment.
  const std::string script =
      "n=$(\"$0\" manifest get report | grep -c ERROR) && "
      "\"$0\" result set \"the report has $n ERROR lines\" >/dev/null";
  std::vector<std::string> argv = {self,
                                   "--home",
                                   store.home(),
                                   "--agent",
                                   kParent,
                                   "--json",
                                   "spawn",
                                   "--ref",
                                   std::string("report=") + kReportKey,
                                   "--prompt",
                                   "Count the ERROR lines in the report",
                                   "--",
                                   "sh",
                                   "-c",
                                   script,
                                   self};
  CTXKIT_ASSIGN_OR_RETURN(ProcessResult run, RunProcess(argv));
  nlohmann::json j = nlohmann::json::parse(run.out, nullptr, false);
  if (run.exit_code != 0 || !j.is_object() || !j["result"].is_object() ||
      !j["result"]["ref"].is_string() || !j["manifest"].is_string()) {
    return Status::Internal("ctxkit spawn failed (exit " +
                            std::to_string(run.exit_code) + "): " + run.err);
  }
  CTXKIT_ASSIGN_OR_RETURN(Manifest manifest,
                          LoadManifest(j["manifest"].get<std::string>()));
  CTXKIT_ASSIGN_OR_RETURN(Ref result, CollectResult(parent, manifest));
  if (FormatRef(result) != j["result"]["ref"].get<std::string>()) {
    return Status::Internal("spawn printed another ref than the result's");
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string answer, parent.Resolve(result));
  const std::string expected =
      "the report has " + std::to_string(errors) + " ERROR lines";
  if (answer != expected) {
    return Status::Internal("the child answered '" + answer + "', expected '" +
                            expected + "'");
  }
  CTXKIT_ASSIGN_OR_RETURN(View other, store.OpenView("demo-other", ""));
  Status by_key =
      other.Get(manifest.result_key, {"agent:" + manifest.child_agent, 0})
          .status();
  if (!by_key.IsPermissionDenied()) {
    return Status::Internal("another agent read the child's result by key");
  }
  const std::string manifest_text = FormatManifest(manifest);
  say("12. Sub-agent as a real process: ctxkit spawn --ref report=" +
      std::string(kReportKey) + " -- sh -c '...'");
  say("    manifest " + j["manifest"].get<std::string>() + ": " +
      std::to_string(manifest_text.size()) + " bytes, refs not copies (" +
      std::to_string(report.size()) + "-byte report)");
  say("    child " + manifest.child_agent + " read report v" +
      std::to_string(manifest.refs[0].ref.version) +
      " by ref (ctxkit manifest get | grep -c ERROR), then ctxkit result set");
  say("    parent got " + FormatRef(result) + " = \"" + answer +
      "\"; another agent reading it by key: " +
      std::string(StatusCodeName(by_key.code())));
  return Status::Ok();
}

}  // namespace ctxkit::cli
