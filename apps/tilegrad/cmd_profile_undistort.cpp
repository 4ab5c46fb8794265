// `tilegrad profile undistort`: the time to undistort (and resize) N images of W x H through a lens model on the
// CPU (images in parallel, one per thread) or the GPU (one kernel per image), with synthetic image content.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_checks.h"
#include "commands.h"
#include "tilegrad/core/error.h"
#include "tilegrad/profiling/report.h"
#include "tilegrad/training/config.h"
#include "tilegrad/training/element/random.h"
#include "tilegrad/training/undistort.h"

namespace tilegrad::cli {
namespace {

struct UndistortProfileArgs {
  std::string device = "auto", model = "OPENCV", mode = "crop", out;
  std::vector<double> params;
  int images = 100, width = 1920, height = 1080, target_width = 0, warmup = 2;
};

raster::LensModel model_from_name(const std::string& name) {
  for (int m = 0; m < raster::kLensModelCount; ++m)
    if (name == raster::to_string(raster::LensModel(m))) return raster::LensModel(m);
  throw InvalidArgument("unknown lens model '" + name + "' (COLMAP names: OPENCV, OPENCV_FISHEYE, FOV, ...)");
}

// Coefficients of the size real calibrations have, per model.
std::vector<double> default_params(raster::LensModel m) {
  switch (m) {
    case raster::LensModel::SimpleRadial: return {-0.12};
    case raster::LensModel::Radial: return {-0.25, 0.08};
    case raster::LensModel::OpenCV: return {-0.28, 0.09, 0.0012, -0.0008};
    case raster::LensModel::FullOpenCV: return {-0.3, 0.1, 0.001, -0.0015, -0.02, 0.05, 0.01, 0.002};
    case raster::LensModel::OpenCVFisheye: return {0.05, -0.01, 0.003, -0.0005};
    case raster::LensModel::SimpleRadialFisheye: return {0.04};
    case raster::LensModel::RadialFisheye: return {0.03, -0.005};
    case raster::LensModel::Fov: return {0.9};
    case raster::LensModel::Pinhole: break;
  }
  return {};
}

void run_profile(const UndistortProfileArgs& a) {
  using Clock = std::chrono::steady_clock;
  const Device device = training::device_from_option(a.device);
  raster::Lens lens;
  lens.model = model_from_name(a.model);
  const std::vector<double> params = a.params.empty() ? default_params(lens.model) : a.params;
  TG_CHECK_ARG(int(params.size()) == raster::lens_param_count(lens.model), a.model, " takes ",
               raster::lens_param_count(lens.model), " parameters, got ", params.size());
  for (std::size_t i = 0; i < params.size(); ++i) lens.params[i] = params[i];
  raster::Camera cam;
  cam.width = a.width, cam.height = a.height;
  cam.fx = cam.fy = 0.8f * float(a.width);  // a phone's main camera: about 65 degrees across
  cam.cx = 0.5f * float(a.width) + 3.25f, cam.cy = 0.5f * float(a.height) - 2.5f;
  training::ResolutionOptions ro;
  ro.undistort = training::undistort_mode_from_string(a.mode);
  ro.width = a.target_width;
  const training::ImagePlan plan = training::plan_image(cam, lens, ro, false);
  // Synthetic content: every image different, opaque.
  const std::size_t bytes = std::size_t(a.width) * a.height * 4;
  std::vector<std::vector<std::uint8_t>> sources(std::size_t(std::min(a.images, 8)));
  for (std::size_t k = 0; k < sources.size(); ++k) {
    sources[k].resize(bytes);
    for (std::size_t i = 0; i < bytes; ++i)
      sources[k][i] = (i % 4 == 3) ? 255 : std::uint8_t(training::random_bits(k, training::RandomStream::SceneContent, i));
  }
  auto source_of = [&](int i) {
    const auto& s = sources[std::size_t(i) % sources.size()];
    return View<const std::uint8_t>(s.data(), s.size(), Device::Cpu);
  };
  for (int i = 0; i < a.warmup; ++i) training::resample_image(plan, source_of(i), {}, device);
  // From host images (what loading does: the upload is part of it on the GPU).
  const auto t0 = Clock::now();
  if (device == Device::Cpu) {
#pragma omp parallel for schedule(dynamic, 1)
    for (int i = 0; i < a.images; ++i) training::resample_image(plan, source_of(i), {}, device);
  } else {
    for (int i = 0; i < a.images; ++i) training::resample_image(plan, source_of(i), {}, device);
  }
  const double total = std::chrono::duration<double>(Clock::now() - t0).count();
  // On the GPU, from images already there: the kernel and the valid-pixel count.
  double resident = 0;
  if (device == Device::Cuda) {
    const Buffer<std::uint8_t> on_device = Buffer<std::uint8_t>::from(source_of(0), device);
    const auto t1 = Clock::now();
    for (int i = 0; i < a.images; ++i) training::resample_image(plan, on_device.cview(), {}, device);
    resident = std::chrono::duration<double>(Clock::now() - t1).count();
  }
  const std::string where = device == Device::Cuda ? cuda_device_description() : "cpu";
  std::printf("undistort %d images of %dx%d (%s, %s mode) into %dx%d (%d x %d samples per pixel) on %s:\n", a.images,
              a.width, a.height, a.model.c_str(), a.mode.c_str(), plan.target.width, plan.target.height,
              plan.subsamples, plan.subsamples, where.c_str());
  std::printf("  %.3f s in all, %.2f ms per image, %.1f images/s (host images%s)\n", total, 1e3 * total / a.images,
              a.images / total, device == Device::Cuda ? ", upload included" : "");
  if (device == Device::Cuda)
    std::printf("  %.3f s in all, %.2f ms per image from images already on the GPU\n", resident,
                1e3 * resident / a.images);
  if (!a.out.empty()) {
    const nlohmann::json j = {{"device", where},
                              {"model", a.model},
                              {"params", params},
                              {"mode", a.mode},
                              {"images", a.images},
                              {"source", {a.width, a.height}},
                              {"target", {plan.target.width, plan.target.height}},
                              {"subsamples", plan.subsamples},
                              {"seconds", total},
                              {"seconds_device_resident", resident}};
    profiling::write_text_file(a.out + "/undistort.json", j.dump(2) + "\n");
    std::printf("wrote %s/undistort.json\n", a.out.c_str());
  }
}

void add_undistort_workload(CLI::App& profile) {
  auto a = std::make_shared<UndistortProfileArgs>();
  auto* cmd = profile.add_subcommand("undistort",
                                     "Time to undistort N synthetic images of W x H through a lens model (CPU threads "
                                     "or the CUDA kernel)");
  cmd->add_option("--device", a->device, "cpu, cuda or auto")->check(CLI::IsMember({"auto", "cpu", "cuda"}));
  cmd->add_option("--images", a->images, "Number of images")->check(checks::positive())->capture_default_str();
  cmd->add_option("--width", a->width, "Source width")->check(checks::positive())->capture_default_str();
  cmd->add_option("--height", a->height, "Source height")->check(checks::positive())->capture_default_str();
  cmd->add_option("--model", a->model, "COLMAP lens model (OPENCV, FULL_OPENCV, OPENCV_FISHEYE, FOV, ...)")
      ->capture_default_str();
  cmd->add_option("--params", a->params, "The model's distortion parameters (default: typical values)");
  cmd->add_option("--mode", a->mode, "crop or full")->check(CLI::IsMember({"crop", "full"}))->capture_default_str();
  cmd->add_option("--target-width", a->target_width, "Resize to this width as well (0: keep)")
      ->check(checks::non_negative());
  cmd->add_option("--warmup", a->warmup, "Untimed images first")->check(checks::non_negative());
  cmd->add_option("--out", a->out, "Folder for undistort.json");
  cmd->callback([a] { run_profile(*a); });
}

}  // namespace

TG_REGISTER_PROFILE_WORKLOAD(undistort, add_undistort_workload);

}  // namespace tilegrad::cli
