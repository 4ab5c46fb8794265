// The `tilegrad train` command as a user runs it, in child processes: interrupted by SIGTERM, SIGHUP or SIGKILL
// and resumed, it ends with the same .ply bytes as an uninterrupted run; an earlier run is never replaced
// silently; resume checks options and data; options and the output folder are checked before any data is
// loaded; unknown commands are named.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "fixtures.h"
#include "test_support.h"

extern char** environ;

namespace fs = std::filesystem;
using namespace tilegrad;

namespace {

// Starts `tilegrad args...` with stdout and stderr to `log`.
pid_t start(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> all = {TILEGRAD_EXECUTABLE};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(rc, 0) << "cannot start " << argv[0];
  return pid;
}

// Exit status, or 128 + the signal that ended the child (as a shell reports it).
int wait_for(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Result {
  int status;
  std::string output;
};

Result run(const std::vector<std::string>& args, const std::string& log) {
  fs::remove(log);
  const int status = wait_for(start(args, log));
  return {status, test::file_bytes(log)};
}

std::size_t lines_in(const std::string& path) {
  const std::string text = test::file_bytes(path);
  return std::size_t(std::count(text.begin(), text.end(), '\n'));
}

// The tiny scene for 150 CPU iterations with two densifications and an opacity reset (tiny_config's schedule).
std::vector<std::string> train_args(const std::string& out, std::vector<std::string> extra = {},
                                    const std::string& iterations = "150") {
  std::vector<std::string> a = {"train",         "--data",           test::tiny_scene_dataset(),
                                "--out",         out,                "--device",
                                "cpu",           "--iters",          iterations,
                                "--init-points", "600",              "--sh-degree",
                                "1",             "--sh-degree-every", "100",
                                "--densify-from", "40",              "--densify-until",
                                "150",           "--densify-every",  "40",
                                "--densify-grad", "4e-4",            "--opacity-reset-every",
                                "120",           "--log-every",      "10",
                                "--no-renders"};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

// The .ply of an uninterrupted run, once per test binary.
const std::string& reference_ply() {
  static test::TempDir dir;
  static const std::string bytes = [] {
    const Result r = run(train_args(dir.file("run")), dir.file("log.txt"));
    EXPECT_EQ(r.status, 0) << r.output;
    return test::file_bytes(dir.file("run/point_cloud.ply"));
  }();
  return bytes;
}

// Waits (at most 60 s) until `ready` holds, polling.
template <class F>
bool wait_until(F&& ready) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < until) {
    if (ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return false;
}

}  // namespace

TEST(TrainCli, TermAndHupCheckpointAndTheResumedRunEqualsAnUninterruptedOne) {
  ASSERT_FALSE(reference_ply().empty());
  for (int sig : {SIGTERM, SIGHUP}) {
    SCOPED_TRACE(sig == SIGTERM ? "SIGTERM" : "SIGHUP");
    test::TempDir dir;
    const std::string out = dir.file("run"), log = dir.file("log.txt");
    const pid_t pid = start(train_args(out, {"--checkpoint-every", "0"}), log);
    // Signal once training is under way (two progress lines: iteration 20).
    ASSERT_TRUE(wait_until([&] { return lines_in(out + "/train_log.jsonl") >= 2; })) << test::file_bytes(log);
    kill(pid, sig);
    EXPECT_EQ(wait_for(pid), 128 + sig) << test::file_bytes(log);
    const std::string said = test::file_bytes(log);
    EXPECT_NE(said.find("checkpoint written"), std::string::npos) << said;
    EXPECT_NE(said.find("--resume"), std::string::npos) << said;
    ASSERT_TRUE(fs::exists(out + "/checkpoint.bin"));
    EXPECT_FALSE(fs::exists(out + "/point_cloud.ply"));

    const Result resumed = run(train_args(out, {"--resume"}), log);
    ASSERT_EQ(resumed.status, 0) << resumed.output;
    EXPECT_NE(resumed.output.find("resumed from"), std::string::npos);
    EXPECT_TRUE(test::file_bytes(out + "/point_cloud.ply") == reference_ply()) << "the resumed run differs";
  }
}

TEST(TrainCli, AKillLosesAtMostOneCheckpointInterval) {
  ASSERT_FALSE(reference_ply().empty());
  test::TempDir dir;
  const std::string out = dir.file("run"), log = dir.file("log.txt");
  const pid_t pid = start(train_args(out, {"--checkpoint-every", "30"}), log);
  // SIGKILL cannot be handled: only the periodic checkpoint (iteration 30 or later) survives.
  ASSERT_TRUE(wait_until([&] { return fs::exists(out + "/checkpoint.bin"); })) << test::file_bytes(log);
  kill(pid, SIGKILL);
  EXPECT_EQ(wait_for(pid), 128 + SIGKILL);
  const Result resumed = run(train_args(out, {"--checkpoint-every", "30", "--resume"}), log);
  ASSERT_EQ(resumed.status, 0) << resumed.output;
  EXPECT_TRUE(test::file_bytes(out + "/point_cloud.ply") == reference_ply()) << "the resumed run differs";
  // Training time, stage timings and checkpoints are those of the whole run, both segments.
  const std::string metrics = test::file_bytes(out + "/metrics.json");
  EXPECT_NE(metrics.find("\"split\": \"test\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("\"segments\""), std::string::npos) << metrics;
}

TEST(TrainCli, AnEarlierRunIsNeitherReplacedSilentlyNorLeftBesideANewOne) {
  test::TempDir dir;
  const std::string out = dir.file("run"), log = dir.file("log.txt");
  fs::create_directories(out + "/renders/test");
  std::ofstream(out + "/renders/test/00000.png") << "an old render";
  std::ofstream(out + "/metrics.json") << "{}";
  std::ofstream(out + "/notes.txt") << "the user's own file";
  const Result refused = run(train_args(out, {}, "20"), log);
  EXPECT_EQ(refused.status, 1);
  for (const char* part : {"earlier training run", "metrics.json", "renders", "--resume", "--overwrite"})
    EXPECT_NE(refused.output.find(part), std::string::npos) << part << " in " << refused.output;
  EXPECT_EQ(test::file_bytes(out + "/metrics.json"), "{}");
  EXPECT_TRUE(fs::exists(out + "/renders/test/00000.png"));

  const Result replaced = run(train_args(out, {"--overwrite"}, "20"), log);
  ASSERT_EQ(replaced.status, 0) << replaced.output;
  EXPECT_FALSE(fs::exists(out + "/renders")) << "old renders survive beside the new run (it wrote none)";
  EXPECT_NE(test::file_bytes(out + "/metrics.json"), "{}");
  EXPECT_EQ(test::file_bytes(out + "/notes.txt"), "the user's own file");  // not an output of a run: kept

  const Result both = run(train_args(out, {"--resume", "--overwrite"}), log);
  EXPECT_EQ(both.status, 1);
  EXPECT_NE(both.output.find("exclude each other"), std::string::npos) << both.output;
}

TEST(TrainCli, ResumeRefusesOtherDataOrOptionsListingEachDifference) {
  test::TempDir dir;
  const std::string out = dir.file("run"), log = dir.file("log.txt");
  ASSERT_EQ(run(train_args(out, {}, "20"), log).status, 0);
  // The same scene at half resolution, as another folder (same names, other sizes and intrinsics).
  const Result other_data = run(train_args(out, {"--resume", "--downscale", "2"}, "40"), log);
  EXPECT_EQ(other_data.status, 1);
  for (const char* part : {"another dataset", "width 32 -> 16", "fx "})
    EXPECT_NE(other_data.output.find(part), std::string::npos) << part << " in " << other_data.output;
  const Result other_options = run(train_args(out, {"--resume", "--lambda-dssim", "0.5"}, "40"), log);
  EXPECT_EQ(other_options.status, 1);
  EXPECT_NE(other_options.output.find("lambda_dssim: 0.2"), std::string::npos) << other_options.output;
  // A longer run on the same data and options continues.
  const Result longer = run(train_args(out, {"--resume"}, "40"), log);
  EXPECT_EQ(longer.status, 0) << longer.output;
  EXPECT_NE(longer.output.find("resumed from"), std::string::npos) << longer.output;
}

TEST(TrainCli, OptionsAndTheOutputFolderAreCheckedBeforeAnyDataIsLoaded) {
  test::TempDir dir;
  const std::string log = dir.file("log.txt");
  // The data folder does not exist: each message must be about the option, not the data.
  const auto bad = [&](std::vector<std::string> args, const char* expected) {
    std::vector<std::string> all = {"train", "--data", dir.file("no-such-dataset"), "--out", dir.file("run")};
    all.insert(all.end(), args.begin(), args.end());
    const Result r = run(all, log);
    EXPECT_NE(r.status, 0) << expected;
    EXPECT_NE(r.output.find(expected), std::string::npos) << "expected '" << expected << "' in: " << r.output;
    EXPECT_EQ(r.output.find("no-such-dataset"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("e+30"), std::string::npos) << "unreadable bounds: " << r.output;
  };
  bad({"--adam-eps", "0"}, "--adam-eps: must be > 0, got 0");
  bad({"--lr-opacity", "nan"}, "--lr-opacity: must be > 0, got nan");
  bad({"--iters", "0"}, "--iters: must be > 0, got 0");
  bad({"--lambda-dssim", "2"}, "--lambda-dssim: must be in [0, 1], got 2");
  bad({"--init-opacity", "1"}, "init_opacity must be in (0, 1), got 1");
  // An output folder that cannot be created (a file stands where its parent should be).
  std::ofstream(dir.file("a-file")) << "x";
  const Result unwritable = run({"train", "--data", dir.file("no-such-dataset"), "--out", dir.file("a-file/run")}, log);
  EXPECT_EQ(unwritable.status, 1);
  EXPECT_NE(unwritable.output.find("cannot create the output folder"), std::string::npos) << unwritable.output;
  const Result nothing = run({"train", "--data", dir.file("no-such-dataset"), "--out", dir.file("r2"), "--resume"},
                             log);
  EXPECT_EQ(nothing.status, 1);
  EXPECT_NE(nothing.output.find("no checkpoint to resume from"), std::string::npos) << nothing.output;
}

TEST(TrainCli, UnknownCommandsAndOversizedRendersAreExplained) {
  test::TempDir dir;
  const std::string log = dir.file("log.txt");
  const Result unknown = run({"trian"}, log);
  EXPECT_EQ(unknown.status, 1);
  for (const char* part : {"unknown command 'trian'", "train", "render", "eval"})
    EXPECT_NE(unknown.output.find(part), std::string::npos) << part << " in " << unknown.output;
  // A 100000 x 100000 render: the memory it needs, not std::bad_alloc.
  ASSERT_EQ(run({"make-scene", "--out", dir.file("scene"), "--width", "8", "--height", "8", "--train-views", "1",
                 "--test-views", "0", "--device", "cpu", "--ply", dir.file("scene.ply")},
                log)
                .status,
            0);
  const Result huge = run({"render", "--ply", dir.file("scene.ply"), "--orbit", "1", "--width", "100000", "--out",
                           dir.file("renders"), "--device", "cpu"},
                          log);
  EXPECT_EQ(huge.status, 1);
  for (const char* part : {"100000x100000 render needs about", "GiB of memory"})
    EXPECT_NE(huge.output.find(part), std::string::npos) << part << " in " << huge.output;
  EXPECT_EQ(huge.output.find("bad_alloc"), std::string::npos) << huge.output;
}

// --eval-at prints and logs the test metrics at its iterations (the last one's equal the final metrics),
// --save-at writes point_cloud_<iteration>.ply, and iterations beyond --iters are refused before loading.
TEST(TrainCli, PeriodicEvaluationsAndSavesAreLoggedAndWritten) {
  test::TempDir dir;
  const Result r = run(train_args(dir.file("run"), {"--eval-at", "20,60", "--save-at", "20"}, "60"), dir.file("log"));
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("[eval] iteration 20, test views (4): PSNR"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[save] iteration 20: "), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_regular_file(dir.file("run/point_cloud_20.ply")));
  EXPECT_FALSE(fs::exists(dir.file("run/point_cloud_60.ply")));
  const std::string log = test::file_bytes(dir.file("run/train_log.jsonl"));
  EXPECT_NE(log.find("{\"eval\":{\"l1\":"), std::string::npos) << log;
  const std::size_t at60 = log.find("\"iteration\":60}");
  ASSERT_NE(log.rfind("\"eval\"", at60), std::string::npos) << log;
  // The final evaluation and the one at iteration 60 print the same PSNR.
  const std::size_t final_line = r.output.find("test views (4): PSNR", r.output.find("trained 60 iterations"));
  ASSERT_NE(final_line, std::string::npos) << r.output;
  const std::string final_psnr = r.output.substr(final_line + 21, 5);
  EXPECT_NE(r.output.find("[eval] iteration 60, test views (4): PSNR " + final_psnr), std::string::npos) << r.output;
  const Result bad = run(train_args(dir.file("bad"), {"--eval-at", "61"}, "60"), dir.file("log2"));
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.output.find("--eval-at"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("61 is not an iteration of this run (1..60)"), std::string::npos) << bad.output;
}
