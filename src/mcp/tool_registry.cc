#include "mcp/tool_registry.h"

#include <algorithm>
#include <vector>

namespace ctxkit::mcp {

const std::vector<ToolDef>& Tools() {
  static const std::vector<ToolDef>* tools = [] {
    auto* all = new std::vector<ToolDef>();
    AddValueTools(*all);
    AddExploreTools(*all);
    AddSessionTools(*all);
    AddCaptureTools(*all);
    AddNotesTools(*all);
    AddExternalizeTools(*all);
    std::sort(all->begin(), all->end(), [](const ToolDef& a, const ToolDef& b) {
      return a.name < b.name;
    });
    return all;
  }();
  return *tools;
}

const ToolDef* FindTool(std::string_view name) {
  for (const ToolDef& t : Tools()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace ctxkit::mcp
