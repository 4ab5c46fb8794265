// `tilegrad train` over several ranks in a child process: simulated ranks on the CPU write the run's files with
// a "distributed" section (per-rank times and traffic) in metrics.json and in every log line; one simulated rank
// writes the plain trainer's .ply bytes; bad rank options are refused.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "fixtures.h"

using namespace tilegrad;

namespace {

// Runs the CLI with `args`, output into `log`; returns the exit status.
int tilegrad_cli(const std::string& args, const std::string& log) {
  const std::string command = std::string(TILEGRAD_EXECUTABLE) + " " + args + " > '" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string common_options() {
  return "--device cpu --iters 60 --init-points 400 --sh-degree 1 --log-every 20 --densify-from 20 "
         "--densify-every 20 --densify-until 60 --no-renders";
}

}  // namespace

TEST(DistributedCli, SimulatedRanksReportPerRankTimesAndTraffic) {
  test::TempDir dir;
  for (const char* mode : {"data", "gaussians"}) {
    const std::string out = dir.file(std::string("run_") + mode);
    const int status = tilegrad_cli("train --data '" + test::scene_dataset(32) + "' --out '" + out + "' --ranks 2 " +
                                        "--parallel " + mode + " " + common_options(),
                                    dir.file("log.txt"));
    ASSERT_EQ(status, 0) << test::file_bytes(dir.file("log.txt"));
    const std::string log = test::file_bytes(dir.file("log.txt"));
    EXPECT_NE(log.find("2 simulated CPU ranks, " + std::string(mode) + " parallel"), std::string::npos) << log;
    EXPECT_NE(log.find("rank 1: "), std::string::npos) << log;
    const nlohmann::json metrics = nlohmann::json::parse(test::file_bytes(out + "/metrics.json"));
    const nlohmann::json& d = metrics.at("distributed");
    EXPECT_EQ(d.at("mode"), mode);
    EXPECT_EQ(d.at("ranks"), 2);
    ASSERT_EQ(d.at("per_rank").size(), 2u);
    for (const nlohmann::json& r : d.at("per_rank")) {
      EXPECT_GT(r.at("step_ms").get<double>(), 0.0);
      EXPECT_GT(r.at("bytes_per_iteration").get<double>(), 0.0);
    }
    const nlohmann::json config = nlohmann::json::parse(test::file_bytes(out + "/config.json"));
    EXPECT_EQ(config.at("distributed").at("ranks"), 2);
    std::ifstream lines(out + "/train_log.jsonl");
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
      EXPECT_EQ(nlohmann::json::parse(line).at("distributed").at("per_rank").size(), 2u);
      ++count;
    }
    EXPECT_EQ(count, 3);
  }
}

TEST(DistributedCli, OneSimulatedRankWritesThePlainTrainersBytes) {
  test::TempDir dir;
  const std::string data = test::scene_dataset(32);
  ASSERT_EQ(tilegrad_cli("train --data '" + data + "' --out '" + dir.file("plain") + "' " + common_options(),
                         dir.file("plain.txt")),
            0)
      << test::file_bytes(dir.file("plain.txt"));
  ASSERT_EQ(tilegrad_cli("train --data '" + data + "' --out '" + dir.file("one") + "' --ranks 1 " + common_options(),
                         dir.file("one.txt")),
            0)
      << test::file_bytes(dir.file("one.txt"));
  const std::string a = test::file_bytes(dir.file("plain/point_cloud.ply")),
                    b = test::file_bytes(dir.file("one/point_cloud.ply"));
  ASSERT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "point_cloud.ply differs between the plain trainer and one simulated rank";
}

TEST(DistributedCli, PeriodicEvaluationsAndSavesOnRanks) {
  // They need every rank (rendering, gathering the parts): training pauses for them and goes on.
  test::TempDir dir;
  const std::string out = dir.file("run");
  const int status = tilegrad_cli("train --data '" + test::scene_dataset(32) + "' --out '" + out +
                                      "' --ranks 2 --parallel gaussians --device cpu --iters 40 --init-points 400 "
                                      "--sh-degree 1 --log-every 20 --densify-from 10 --densify-every 10 "
                                      "--densify-until 40 --no-renders --eval-at 20,40 --save-at 20",
                                  dir.file("log.txt"));
  const std::string log = test::file_bytes(dir.file("log.txt"));
  ASSERT_EQ(status, 0) << log;
  EXPECT_NE(log.find("[eval] iteration 20,"), std::string::npos) << log;
  EXPECT_NE(log.find("[eval] iteration 40,"), std::string::npos) << log;
  EXPECT_NE(log.find("[save] iteration 20: "), std::string::npos) << log;
  EXPECT_GT(test::file_bytes(out + "/point_cloud_20.ply").size(), 1000u);
  // The last evaluation is the final model's: the same metrics as metrics.json.
  const nlohmann::json metrics = nlohmann::json::parse(test::file_bytes(out + "/metrics.json"));
  std::ifstream lines(out + "/train_log.jsonl");
  std::string line;
  nlohmann::json last_eval;
  while (std::getline(lines, line)) {
    const nlohmann::json j = nlohmann::json::parse(line);
    if (j.contains("eval")) last_eval = j;
  }
  ASSERT_FALSE(last_eval.is_null()) << "no evaluation line in train_log.jsonl";
  EXPECT_EQ(last_eval.at("iteration"), 40);
  EXPECT_EQ(last_eval.at("eval").at("psnr"), metrics.at("psnr"));
  EXPECT_EQ(last_eval.at("eval").at("l1"), metrics.at("l1"));
}

TEST(DistributedCli, RankOptionsAreChecked) {
  test::TempDir dir;
  const std::string data = test::scene_dataset(32);
  EXPECT_NE(tilegrad_cli("train --data '" + data + "' --out '" + dir.file("a") + "' --ranks 2 --device cuda",
                         dir.file("log.txt")),
            0);
  EXPECT_NE(test::file_bytes(dir.file("log.txt")).find("--ranks simulates ranks on the CPU"), std::string::npos);
  EXPECT_NE(tilegrad_cli("train --data '" + data + "' --out '" + dir.file("b") + "' --ranks 2 --parallel pipeline",
                         dir.file("log.txt")),
            0);
  EXPECT_NE(test::file_bytes(dir.file("log.txt")).find("--parallel"), std::string::npos);
  EXPECT_NE(tilegrad_cli("train --data '" + data + "' --out '" + dir.file("c") + "' --gpus 0", dir.file("log.txt")),
            0);
}
