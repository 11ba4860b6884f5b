// Where the notes live: SFA_CONTEXT_STORE, the shared config's
// contextStore.path, or the single-file-agents default.

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#include "ctxkit/notes.h"

namespace ctxkit {

namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

Result<std::string> ExpandHome(const std::string& path) {
  if (!path.starts_with("~/") && path.size() != 1) return path;
  if (path.size() == 1 && path[0] != '~') return path;
  std::string home = Env("HOME");
  if (home.empty()) {
    return Status::InvalidArgument("cannot expand '~': HOME is not set");
  }
  return home + path.substr(1);
}

// The shared config file, or "" when none is configured or present.
std::string SharedConfigPath() {
  std::string explicit_path = Env("SFA_CONFIG");
  if (!explicit_path.empty()) return explicit_path;
  std::string base = Env("XDG_CONFIG_HOME");
  if (base.empty()) {
    std::string home = Env("HOME");
    if (home.empty()) return "";
    base = home + "/.config";
  }
  return base + "/single-file-agents/config.json";
}

// contextStore.path from the config file; "" when the file or the key is
// absent. A file that exists but cannot be parsed is an error: silently
// writing notes somewhere else than configured would be worse.
Result<std::string> ConfiguredPath() {
  std::string path = SharedConfigPath();
  if (path.empty()) return std::string();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (!Env("SFA_CONFIG").empty()) {
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

Result<std::string> ResolveNotesRoot(std::string_view flag) {
  std::string chosen(flag);
  if (chosen.empty()) chosen = Env("SFA_CONTEXT_STORE");
  if (chosen.empty()) {
    Result<std::string> configured = ConfiguredPath();
    if (!configured.ok()) return configured.status();
    chosen = *configured;
  }
  if (chosen.empty()) {
    std::string home = Env("HOME");
    if (home.empty()) {
      return Status::InvalidArgument(
          "no notes root: set SFA_CONTEXT_STORE or HOME");
    }
    chosen = home + "/.local/share/single-file-agents/context";
  }
  return ExpandHome(chosen);
}

}  // namespace ctxkit
