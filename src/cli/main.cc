#include "cli/cli_app.h"

int main(int argc, char** argv) { return ctxkit::cli::Main(argc, argv); }
