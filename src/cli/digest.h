// SHA-256 as lower-case hex, the form VersionMeta::content_hash uses, so the
// CLI can check bytes it received against the store's own record.

#ifndef CTXKIT_CLI_DIGEST_H_
#define CTXKIT_CLI_DIGEST_H_

#include <string>
#include <string_view>

namespace ctxkit::cli {

std::string Sha256Hex(std::string_view data);

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_DIGEST_H_
