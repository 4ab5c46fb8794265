// tilegrad: differentiable 3D Gaussian splatting with lock-free, deterministic backward passes.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>

#include "commands.h"
#include "tilegrad/core/config.h"
#include "tilegrad/core/device.h"
#include "tilegrad/core/error.h"

int main(int argc, char** argv) {
  CLI::App app{"tilegrad " TILEGRAD_VERSION
               ": differentiable 3D Gaussian splatting with lock-free, deterministic GPU backward passes"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("tilegrad ") + TILEGRAD_VERSION);
  app.add_subcommand("devices", "Print the devices this build can use")->callback([] {
    std::printf("cpu: available\ncuda: %s\n",
                tilegrad::cuda_available() ? tilegrad::cuda_device_description().c_str()
                                           : ("not available (" + tilegrad::cuda_device_description() + ")").c_str());
  });
  tilegrad::cli::add_profile_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
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
