// Replays every committed fuzz corpus file through its target (no clang needed): readers must accept or
// throw tilegrad::Error, never crash. Hand-made seeds named valid_* must be accepted by at least one reader
// of their target, bad_* ones by none.
#include <gtest/gtest.h>

#include <filesystem>

#include "targets.h"
#include "test_support.h"

namespace fs = std::filesystem;

TEST(CorpusReplay, EveryCorpusFileIsHandled) {
  for (const tilegrad::fuzz::Target& target : tilegrad::fuzz::targets()) {
    const fs::path dir = fs::path(TILEGRAD_FUZZ_CORPUS_DIR) / target.name;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    std::size_t files = 0, valid = 0, bad = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
      if (!entry.is_regular_file()) continue;
      const std::string name = entry.path().filename().string();
      int accepted = 0;
      try {
        accepted = target.run(tilegrad::test::file_bytes(entry.path().string()));
      } catch (const std::exception& e) {
        ADD_FAILURE() << target.name << "/" << name << ": escaped with " << e.what();
      }
      ++files;
      if (name.rfind("valid_", 0) == 0) {
        ++valid;
        EXPECT_GT(accepted, 0) << target.name << "/" << name << " should be accepted";
      } else if (name.rfind("bad_", 0) == 0) {
        ++bad;
        EXPECT_EQ(accepted, 0) << target.name << "/" << name << " should be rejected";
      }
    }
    EXPECT_GE(valid, 2u) << target.name;
    EXPECT_GE(bad, 2u) << target.name;
    RecordProperty(std::string("files_") + target.name, static_cast<int>(files));
  }
}
