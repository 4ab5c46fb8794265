// Subcommand registry of the tilegrad CLI: each cmd_*.cpp registers a function that adds its subcommand.
#pragma once
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "cli_checks.h"

namespace tilegrad::cli {

using CommandFactory = void (*)(CLI::App& app);

// Ordered by registration name so --help lists subcommands the same way every build.
std::vector<std::pair<const char*, CommandFactory>>& command_registry();

struct RegisterCommand {
  RegisterCommand(const char* name, CommandFactory factory) { command_registry().emplace_back(name, factory); }
};

// The process's arguments (argv), for messages that repeat a command (how to resume a training run).
std::vector<std::string>& command_line();

// Workloads of `tilegrad profile <workload>`: factories receive the `profile` subcommand.
std::vector<std::pair<const char*, CommandFactory>>& profile_registry();
struct RegisterProfileWorkload {
  RegisterProfileWorkload(const char* name, CommandFactory factory) { profile_registry().emplace_back(name, factory); }
};

}  // namespace tilegrad::cli

// In a cmd_*.cpp file: TG_REGISTER_COMMAND(profile, add_profile_command);
#define TG_REGISTER_COMMAND(name, factory) \
  static ::tilegrad::cli::RegisterCommand tg_register_##name(#name, factory)
// In a cmd_*.cpp file: TG_REGISTER_PROFILE_WORKLOAD(accumulation, add_accumulation_workload);
#define TG_REGISTER_PROFILE_WORKLOAD(name, factory) \
  static ::tilegrad::cli::RegisterProfileWorkload tg_register_profile_##name(#name, factory)
