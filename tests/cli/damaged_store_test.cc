// A damaged store is reported, never read as data: a blob file that was
// truncated or had a bit flipped, and a lost ctxkit.db beside stored blobs.

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"
#include "core/encoding.h"
#include "core/sha256.h"

namespace ctxkit::cli::testing {
namespace {

class DamagedStoreTest : public CliTest {
 protected:
  // Stores a 300 KB value (a blob file) under `big` and returns its file.
  std::string StoreBig() {
    value_.resize(300000);
    for (size_t i = 0; i < value_.size(); ++i) value_[i] = 'a' + i % 26;
    Ok({"set", "big"}, value_);
    const std::string hex = core::ToHex(core::Sha256(value_));
    return home_ + "/blobs/" + hex.substr(0, 2) + "/" + hex;
  }
  std::string value_;
};

TEST_F(DamagedStoreTest, TruncatedBlobIsAnErrorNotAShortValue) {
  const std::string file = StoreBig();
  ASSERT_TRUE(std::filesystem::exists(file));
  std::filesystem::permissions(file, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::filesystem::resize_file(file, value_.size() / 2);
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"get", "big"},
           {"peek", "big", "--unit", "bytes", "--start", "10", "--end", "20"},
           {"get", "big", "--offset", "0", "--length", "10"}}) {
    ProcessResult r = Run(args);
    EXPECT_EQ(r.exit_code, 6) << Describe(args, r);
    EXPECT_NE(r.err.find("damaged"), std::string::npos) << r.err;
  }
}

TEST_F(DamagedStoreTest, FlippedBitIsAnErrorForReadsThatTouchIt) {
  const std::string file = StoreBig();
  std::filesystem::permissions(file, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(200000);
    f.put('#');
  }
  ProcessResult whole = Run({"get", "big"});
  EXPECT_EQ(whole.exit_code, 6) << whole.err;
  EXPECT_NE(whole.err.find("checksum"), std::string::npos) << whole.err;
  EXPECT_EQ(whole.out.find('#'), std::string::npos) << "damaged bytes shown";
  // Bytes in an intact 64 KiB chunk still read.
  EXPECT_EQ(Ok({"get", "big", "--offset", "100", "--length", "5"}),
            value_.substr(100, 5));
}

TEST_F(DamagedStoreTest, LostDatabaseBesideBlobsIsNotANewEmptyStore) {
  StoreBig();
  const std::string db = home_ + "/ctxkit.db";
  for (const std::string how : {"empty", "missing"}) {
    std::filesystem::remove(db + "-wal");
    std::filesystem::remove(db + "-shm");
    if (how == "empty") {
      std::ofstream(db, std::ios::trunc).flush();
    } else {
      std::filesystem::remove(db);
    }
    ProcessResult r = Run({"get", "big"});
    EXPECT_EQ(r.exit_code, 6) << how << ": " << r.err;
    EXPECT_NE(r.err.find("refusing to start a new, empty store"),
              std::string::npos)
        << r.err;
    // Nothing was created over the blobs.
    EXPECT_EQ(std::filesystem::exists(db), how == "empty");
    if (how == "empty") {
      EXPECT_EQ(std::filesystem::file_size(db), 0u);
    }
  }
}

}  // namespace
}  // namespace ctxkit::cli::testing
