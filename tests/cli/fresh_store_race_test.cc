// Several processes opening a store that does not exist yet, at once: each
// must wait its turn, none may fail with "database is locked". (A new
// SQLite file starts in rollback mode, where switching to WAL can answer
// SQLITE_BUSY without waiting; the store retries it.)

#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

TEST_F(CliTest, ProcessesCreatingOneStoreTogetherAllSucceed) {
  constexpr int kRounds = 8;
  constexpr int kProcesses = 8;
  for (int round = 0; round < kRounds; ++round) {
    home_ = tmp_.path() + "/store-" + std::to_string(round);
    std::vector<ProcessResult> results(kProcesses);
    std::vector<std::thread> threads;
    for (int i = 0; i < kProcesses; ++i) {
      threads.emplace_back([this, i, &results] {
        results[i] = Run({"set", "k" + std::to_string(i), "v"});
      });
    }
    for (auto& t : threads) t.join();
    for (int i = 0; i < kProcesses; ++i) {
      EXPECT_EQ(results[i].exit_code, 0)
          << "round " << round << " process " << i << ": " << results[i].err;
    }
    nlohmann::json listing = Json({"ls"});
    EXPECT_EQ(listing["items"].size(), static_cast<size_t>(kProcesses));
  }
}

}  // namespace
}  // namespace ctxkit::cli::testing
