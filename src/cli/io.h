// Byte-exact input and output for values: stdin, files, stdout.
//
// Values are arbitrary bytes (NUL included), so everything here works on
// std::string as a byte buffer and never translates newlines or encodings.

#ifndef CTXKIT_CLI_IO_H_
#define CTXKIT_CLI_IO_H_

#include <string>
#include <string_view>

#include "ctxkit/status.h"
#include "os/posix_io.h"

namespace ctxkit::cli {

// Everything on standard input until EOF.
Result<std::string> ReadStdin();

// `path` opened for reading: NotFound when it does not exist,
// PermissionDenied when it may not be read, else IoError on failure.
Result<storage::UniqueFd> OpenFile(const std::string& path);

// The whole file at `path`; fails as OpenFile does, or IoError.
Result<std::string> ReadFile(const std::string& path);

// Writes `bytes` to standard output unchanged.
Status WriteStdout(std::string_view bytes);

// Reads a value the way `set` and `append` take it: `--file` when given,
// else `arg` unless it is empty-and-absent or "-", else stdin.
Result<std::string> ReadValue(bool has_arg, const std::string& arg,
                              const std::string& file);

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_IO_H_
