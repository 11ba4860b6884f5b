// Where the notes live: a flag, SFA_CONTEXT_STORE, the shared config's
// contextStore.path, or a default. The values of the variables come from
// the caller (the faces read the environment); this file only decides.

#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "ctxkit/notes.h"

namespace ctxkit {

namespace {

Result<std::string> ExpandHome(const std::string& path,
                               const std::string& user_home) {
  if (path != "~" && !path.starts_with("~/")) return path;
  if (user_home.empty()) {
    return Status::InvalidArgument("cannot expand '~': HOME is not set");
  }
  return user_home + path.substr(1);
}

// The shared config file, or "" when none is configured. Only an explicit
// config_file counts when the caller chose a default_root.
std::string SharedConfigPath(const NotesRootSources& s) {
  if (!s.config_file.empty()) return s.config_file;
  if (!s.default_root.empty()) return "";
  std::string base = s.config_home;
  if (base.empty()) {
    if (s.user_home.empty()) return "";
    base = s.user_home + "/.config";
  }
  return base + "/single-file-agents/config.json";
}

// contextStore.path from the config file; "" when the file or the key is
// absent. A file that exists but cannot be parsed is an error: silently
// writing notes somewhere else than configured would be worse.
Result<std::string> ConfiguredPath(const NotesRootSources& s) {
  std::string path = SharedConfigPath(s);
  if (path.empty()) return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!s.config_file.empty()) {
      return Status::InvalidArgument("SFA_CONFIG names '" + path +
                                     "', which cannot be read");
    }
    return std::string();
  }
  std::stringstream text;
  text << in.rdbuf();
  try {
    // YAML 1.2 is a superset of JSON, so one parser reads both.
    YAML::Node root = YAML::Load(text.str());
    if (!root.IsMap()) return std::string();
    YAML::Node store = root["contextStore"];
    if (!store || !store.IsMap()) return std::string();
    YAML::Node p = store["path"];
    if (!p) return std::string();
    if (!p.IsScalar() || p.Scalar().empty()) {
      return Status::InvalidArgument(path +
                                     ": contextStore.path must be a string");
    }
    return p.Scalar();
  } catch (const YAML::Exception& e) {
    return Status::InvalidArgument(path + ": " + e.what());
  }
}

}  // namespace

Result<std::string> ResolveNotesRoot(const NotesRootSources& sources) {
  std::string chosen = sources.flag;
  if (chosen.empty()) chosen = sources.context_store;
  if (chosen.empty()) {
    Result<std::string> configured = ConfiguredPath(sources);
    if (!configured.ok()) return configured.status();
    chosen = *configured;
  }
  if (chosen.empty()) chosen = sources.default_root;
  if (chosen.empty()) {
    if (sources.user_home.empty()) {
      return Status::InvalidArgument(
          "no notes root: set SFA_CONTEXT_STORE or HOME");
    }
    chosen = sources.user_home + "/.local/share/single-file-agents/context";
  }
  return ExpandHome(chosen, sources.user_home);
}

}  // namespace ctxkit
