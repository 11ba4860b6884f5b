// The ctxkit binary: the CLI's verbs plus the demo, which sits above them.
// `serve` runs in ctxkit-serve (src/serve_main.cc), so that this program
// loads no HTTP stack (cli/serve_command.h).
#include "cli/cli_app.h"
#include "cli/serve_command.h"
#include "demo/demo.h"

int main(int argc, char** argv) {
  static constexpr ctxkit::cli::RegisterVerbs kExtra[] = {
      &ctxkit::cli::RegisterDemoCommand, &ctxkit::cli::RegisterServeLauncher};
  return ctxkit::cli::Main(argc, argv, kExtra);
}
