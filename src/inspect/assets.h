// The inspector page's files (src/inspect/ui/ and Debian's Chart.js),
// embedded into the binary at build time (cmake/layer_inspect.cmake), so
// the page needs no network and no files beside the binary.

#ifndef CTXKIT_INSPECT_ASSETS_H_
#define CTXKIT_INSPECT_ASSETS_H_

#include <string_view>

namespace ctxkit::inspect {

struct Asset {
  std::string_view name;  // "index.html", "app.js", "chart.min.js", ...
  std::string_view content_type;
  std::string_view bytes;
};

// The asset named `name` (a file name under /ui/); nullptr when there is
// none.
const Asset* FindAsset(std::string_view name);

}  // namespace ctxkit::inspect

#endif  // CTXKIT_INSPECT_ASSETS_H_
