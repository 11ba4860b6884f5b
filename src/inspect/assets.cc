#include "inspect/assets.h"

#include <vector>

#include "inspect/embedded_ui.h"

namespace ctxkit::inspect {
namespace {

std::string_view ContentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  if (name.ends_with(".svg")) return "image/svg+xml";
  if (name.ends_with(".png")) return "image/png";
  return "application/octet-stream";
}

std::vector<Asset> MakeAssets() {
  std::vector<Asset> assets;
  for (const EmbeddedUiFile& f : EmbeddedUiFiles()) {
    assets.push_back({f.name, ContentTypeOf(f.name),
                      std::string_view(reinterpret_cast<const char*>(f.begin),
                                       static_cast<size_t>(f.end - f.begin))});
  }
  return assets;
}

}  // namespace

const Asset* FindAsset(std::string_view name) {
  static const std::vector<Asset> assets = MakeAssets();
  for (const Asset& a : assets) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

}  // namespace ctxkit::inspect
