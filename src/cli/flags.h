// Option validators shared by the verb groups.

#ifndef CTXKIT_CLI_FLAGS_H_
#define CTXKIT_CLI_FLAGS_H_

#include <CLI/CLI.hpp>
#include <string>

namespace ctxkit::cli {

// Decimal digits only. CLI11 2.1 would otherwise wrap "-1" into a huge
// uint64_t, and its NonNegativeNumber message prints DBL_MAX.
inline CLI::Validator UnsignedNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        bool digits = !text.empty() && text.size() <= 20 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
        return digits ? ""
                      : "expected a non-negative integer, got '" + text + "'";
      },
      "");
}

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_FLAGS_H_
