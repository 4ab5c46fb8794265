// Subcommands of the tilegrad CLI; each registers itself on the top-level app.
#pragma once
#include <CLI/CLI.hpp>

namespace tilegrad::cli {

void add_profile_command(CLI::App& app);

}  // namespace tilegrad::cli
