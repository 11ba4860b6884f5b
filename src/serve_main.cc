// ctxkit-serve: the ctxkit CLI with the MCP server over HTTP linked in.
// `ctxkit serve` execs it with its own command line (cli/serve_command.h).
#include "cli/cli_app.h"
#include "cli/serve_command.h"
#include "demo/demo.h"

int main(int argc, char** argv) {
  static constexpr ctxkit::cli::RegisterVerbs kExtra[] = {
      &ctxkit::cli::RegisterDemoCommand, &ctxkit::cli::RegisterServeCommands};
  return ctxkit::cli::Main(argc, argv, kExtra);
}
