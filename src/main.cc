// The ctxkit binary: the CLI's verbs plus the demo, which sits above them.
#include "cli/cli_app.h"
#include "demo/demo.h"

int main(int argc, char** argv) {
  static constexpr ctxkit::cli::RegisterVerbs kExtra[] = {
      &ctxkit::cli::RegisterDemoCommand};
  return ctxkit::cli::Main(argc, argv, kExtra);
}
