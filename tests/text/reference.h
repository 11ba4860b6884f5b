// Runs the npm `tiktoken` package (scripts/tokenizer/reference.mjs) on
// byte strings and returns its token ids: the reference our tokenizer must
// agree with.

#ifndef CTXKIT_TESTS_TEXT_REFERENCE_H_
#define CTXKIT_TESTS_TEXT_REFERENCE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::text_test {

// Encodes every input with tiktoken's encode_ordinary for `encoding` in one
// node process.
Result<std::vector<std::vector<uint32_t>>> ReferenceEncode(
    std::string_view encoding, const std::vector<std::string>& inputs);

// A fresh empty directory under the test temp dir.
std::string MakeTempDir();

}  // namespace ctxkit::text_test

#endif  // CTXKIT_TESTS_TEXT_REFERENCE_H_
