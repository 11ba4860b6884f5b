// A damaged blob reaches MCP clients as an error, never as data: whole and
// ranged `get`, `peek` and `resources/read`.

#include <filesystem>
#include <string>

#include "core/encoding.h"
#include "core/sha256.h"
#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

using DamagedBlobTest = McpTest;

TEST_F(DamagedBlobTest, TruncatedBlobIsAToolErrorAndAResourceError) {
  Client& c = Ready();
  std::string value(300000, 'v');
  c.Ok("set", {{"key", "big"}, {"value", value}});
  const std::string hex = core::ToHex(core::Sha256(value));
  const std::string file =
      store_->home() + "/blobs/" + hex.substr(0, 2) + "/" + hex;
  ASSERT_TRUE(std::filesystem::exists(file));
  std::filesystem::permissions(file, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::filesystem::resize_file(file, 1000);
  // A new server process: nothing of the value is cached in memory.
  clients_.clear();
  server_.reset();
  store_.reset();
  auto reopened = ctxkit::testing::OpenTempStore(dir_);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  store_ = std::move(*reopened);
  Client& d = Ready();
  EXPECT_NE(
      d.Fails("get", {{"key", "big"}, {"byte_offset", 10}, {"byte_length", 10}})
          .find("damaged"),
      std::string::npos);
  EXPECT_NE(d.Fails("get", {{"key", "big"}}).find("damaged"),
            std::string::npos);
  d.Fails("peek", {{"key", "big"}});
  Json r = d.Request("resources/read", {{"uri", "ctxkit://global/big"}});
  ASSERT_TRUE(r.contains("error")) << r.dump().substr(0, 300);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("damaged"),
            std::string::npos)
      << r.dump();
}

}  // namespace
}  // namespace ctxkit::mcp::testing
