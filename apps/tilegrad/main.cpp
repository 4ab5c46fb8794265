// tilegrad: differentiable 3D Gaussian splatting with lock-free, deterministic backward passes.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "commands.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"

namespace tilegrad::cli {
std::vector<std::pair<const char*, CommandFactory>>& command_registry() {
  static std::vector<std::pair<const char*, CommandFactory>> registry;
  return registry;
}
std::vector<std::string>& command_line() {
  static std::vector<std::string> args;
  return args;
}
std::vector<std::pair<const char*, CommandFactory>>& profile_registry() {
  static std::vector<std::pair<const char*, CommandFactory>> registry;
  return registry;
}

namespace {
void add_profile_command(CLI::App& app) {
  auto* profile = app.add_subcommand(
      "profile", "Run every accumulation strategy on the same inputs, check that they agree, report times");
  profile->require_subcommand(1);
  auto& workloads = profile_registry();
  std::sort(workloads.begin(), workloads.end(), [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  for (const auto& [name, factory] : workloads) factory(*profile);
}

// An unknown command, said so with the list of commands (CLI11 would only report an unexpected argument).
bool reject_unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return false;
  std::string names;
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == argv[1]) return false;
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  std::fprintf(stderr, "tilegrad: unknown command '%s'; the commands are: %s (tilegrad COMMAND --help for each)\n",
               argv[1], names.c_str());
  return true;
}
}  // namespace
}  // namespace tilegrad::cli

int main(int argc, char** argv) {
  // Progress lines reach a file or a pipe as they are printed (a run stopped by a time limit keeps what it did),
  // not at exit, as a fully buffered stdout would.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  CLI::App app{"tilegrad " TILEGRAD_VERSION
               ": differentiable 3D Gaussian splatting with lock-free, deterministic GPU backward passes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tilegrad ") + TILEGRAD_VERSION);
  app.add_subcommand("devices", "Print the devices this build can use")->callback([] {
    std::printf("cpu: available\ncuda: %s\n",
                tilegrad::cuda_available() ? tilegrad::cuda_device_description().c_str()
                                           : ("not available (" + tilegrad::cuda_device_description() + ")").c_str());
  });
  auto& registry = tilegrad::cli::command_registry();
  std::sort(registry.begin(), registry.end(), [](const auto& a, const auto& b) { return std::strcmp(a.first, b.first) < 0; });
  for (const auto& [name, factory] : registry) factory(app);
  tilegrad::cli::add_profile_command(app);
  if (tilegrad::cli::reject_unknown_command(app, argc, argv)) return 1;
  tilegrad::cli::command_line().assign(argv, argv + argc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Error& e) {  // parse errors, --help, and commands ending with an exit status
    return app.exit(e);
  } catch (const tilegrad::Error& e) {
    std::fprintf(stderr, "tilegrad: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tilegrad: unexpected error: %s\n", e.what());
    return 2;
  }
  return 0;
}
