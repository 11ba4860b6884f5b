// Option validators and option groups shared by the verb groups.

#ifndef CTXKIT_CLI_FLAGS_H_
#define CTXKIT_CLI_FLAGS_H_

#include <CLI/CLI.hpp>
#include <charconv>
#include <cstdint>
#include <limits>
#include <string>
#include <system_error>
#include <vector>

namespace ctxkit::cli {

// Decimal digits only. CLI11 2.1 would otherwise wrap "-1" into a huge
// uint64_t, and its NonNegativeNumber message prints DBL_MAX.
inline CLI::Validator UnsignedNumber() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits =
            !text.empty() &&
            text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits) {
          return "expected a non-negative integer, got '" + text + "'";
        }
        // CLI11 would saturate a number past 2^64 - 1; refuse it instead.
        uint64_t value = 0;
        const auto [end, err] =
            std::from_chars(text.data(), text.data() + text.size(), value);
        if (err != std::errc() || end != text.data() + text.size()) {
          return "'" + text + "' is larger than 18446744073709551615";
        }
        return "";
      },
      "");
}

// --offset/--length of the verbs that can read part of a value. Only
// whether a flag was given (not its value) says whether to read a range,
// so the options are kept to ask.
struct ByteRangeArgs {
  uint64_t offset = 0;
  uint64_t length = 0;
  CLI::Option* offset_opt = nullptr;
  CLI::Option* length_opt = nullptr;

  // True when either flag was given: read through ReadRange.
  bool ranged() const {
    return offset_opt->count() > 0 || length_opt->count() > 0;
  }
  // The length to pass ReadRange: to the end unless --length was given.
  uint64_t length_or_all() const {
    return length_opt->count() > 0 ? length
                                   : std::numeric_limits<uint64_t>::max();
  }
};

// A repeatable option: every occurrence takes exactly one value
// (`--tag a --tag b`). CLI11 would otherwise let one occurrence take every
// word that follows, so `notes search --tag security jwt` would read `jwt`
// as a second tag instead of the query. Every option that collects into a
// vector is added through here.
inline CLI::Option* AddRepeatableOption(CLI::App* sub, const std::string& name,
                                        std::vector<std::string>* values,
                                        const std::string& help) {
  return sub->add_option(name, *values, help)->allow_extra_args(false);
}

inline void AddByteRangeOptions(CLI::App* sub, ByteRangeArgs* a) {
  a->offset_opt =
      sub->add_option("--offset", a->offset,
                      "Start at byte OFFSET; reads only the range from disk")
          ->type_name("OFFSET")
          ->check(UnsignedNumber());
  a->length_opt =
      sub->add_option("--length", a->length, "Read at most LENGTH bytes")
          ->type_name("LENGTH")
          ->check(UnsignedNumber());
}

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_FLAGS_H_
