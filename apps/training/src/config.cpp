// TrainConfig validation and JSON.
#include "tilegrad/training/config.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "tilegrad/core/error.h"

namespace tilegrad::training {

using json = nlohmann::json;

namespace {
const char* to_string(BackgroundMode m) {
  switch (m) {
    case BackgroundMode::Color:
      return "color";
    case BackgroundMode::Random:
      return "random";
    case BackgroundMode::Auto:
      break;
  }
  return "auto";
}
bool positive(float x) { return std::isfinite(x) && x > 0; }
}  // namespace

void TrainConfig::validate() const {
  TG_CHECK_ARG(iterations >= 1, "iterations must be >= 1, got ", iterations);
  TG_CHECK_ARG(sh_degree >= 0 && sh_degree <= 3, "sh_degree must be 0..3, got ", sh_degree);
  TG_CHECK_ARG(sh_degree_every >= 1, "sh_degree_every must be >= 1, got ", sh_degree_every);
  TG_CHECK_ARG(lambda_dssim >= 0 && lambda_dssim <= 1, "lambda_dssim must be in [0, 1], got ", lambda_dssim);
  for (float v : {lr.position, lr.position_final, lr.sh_dc, lr.opacity, lr.scale, lr.rotation})
    TG_CHECK_ARG(positive(v), "learning rates must be positive and finite");
  TG_CHECK_ARG(lr.sh_rest >= 0 && lr.position_steps >= 0, "lr.sh_rest and lr.position_steps must be >= 0");
  TG_CHECK_ARG(adam.beta1 >= 0 && adam.beta1 < 1 && adam.beta2 >= 0 && adam.beta2 < 1 && adam.eps >= 0,
               "adam: need 0 <= beta < 1 and eps >= 0");
  TG_CHECK_ARG(densify.every >= 1 && densify.from >= 0 && densify.until >= 0, "densify: from/until >= 0, every >= 1");
  TG_CHECK_ARG(densify.grad_threshold >= 0 && densify.percent_dense >= 0 && densify.min_opacity >= 0 &&
                   densify.max_world_size >= 0 && densify.max_screen_size >= 0 && densify.opacity_reset_every >= 0,
               "densify thresholds must be >= 0");
  TG_CHECK_ARG(densify.reset_opacity > 0 && densify.reset_opacity < 1, "densify.reset_opacity must be in (0, 1)");
  TG_CHECK_ARG(init_opacity > 0 && init_opacity < 1, "init_opacity must be in (0, 1), got ", init_opacity);
  TG_CHECK_ARG(init_points >= 1 && init_half_size >= 0, "init_points must be >= 1 and init_half_size >= 0");
  for (float b : background) TG_CHECK_ARG(b >= 0 && b <= 1, "background components must be in [0, 1]");
  TG_CHECK_ARG(log_every >= 1 && checkpoint_every >= 0 && timing_every >= 1,
               "log_every and timing_every must be >= 1, checkpoint_every >= 0");
}

Device device_from_option(const std::string& name) { return name == "auto" ? default_device() : parse_device(name); }

void set_background(TrainConfig& c, const std::string& text) {
  if (text == "auto" || text == "random") {
    c.background_mode = text == "auto" ? BackgroundMode::Auto : BackgroundMode::Random;
    return;
  }
  float rgb[3] = {0, 0, 0};
  if (text == "white") {
    rgb[0] = rgb[1] = rgb[2] = 1.0f;
  } else if (text != "black") {
    char tail = 0;
    const int read = std::sscanf(text.c_str(), "%f,%f,%f%c", &rgb[0], &rgb[1], &rgb[2], &tail);
    TG_CHECK_ARG(read == 3, "background '", text, "': expected auto, white, black, random or r,g,b");
  }
  for (float v : rgb) TG_CHECK_ARG(v >= 0 && v <= 1, "background '", text, "': components must be in [0, 1]");
  c.background_mode = BackgroundMode::Color;
  for (int k = 0; k < 3; ++k) c.background[k] = rgb[k];
}

void evaluation_background(const TrainConfig& c, bool images_have_alpha, float rgb[3]) {
  for (int k = 0; k < 3; ++k)
    rgb[k] = c.background_mode == BackgroundMode::Color ? c.background[k] : (images_have_alpha ? 1.0f : 0.0f);
}

std::string config_to_json(const TrainConfig& c) {
  json j;
  j["iterations"] = c.iterations;
  j["seed"] = c.seed;
  j["device"] = to_string(c.device);
  j["accumulation"] = to_string(c.accumulation);
  j["sh_degree"] = c.sh_degree;
  j["sh_degree_every"] = c.sh_degree_every;
  j["lambda_dssim"] = c.lambda_dssim;
  j["antialiased"] = c.antialiased;
  j["lr"] = {{"position", c.lr.position},
             {"position_final", c.lr.position_final},
             {"position_steps", c.lr.position_steps},
             {"sh_dc", c.lr.sh_dc},
             {"sh_rest", c.lr.sh_rest},
             {"opacity", c.lr.opacity},
             {"scale", c.lr.scale},
             {"rotation", c.lr.rotation}};
  j["adam"] = {{"beta1", c.adam.beta1}, {"beta2", c.adam.beta2}, {"eps", c.adam.eps}};
  const DensifyConfig& d = c.densify;
  j["densify"] = {{"from", d.from},
                  {"until", d.until},
                  {"every", d.every},
                  {"grad_threshold", d.grad_threshold},
                  {"percent_dense", d.percent_dense},
                  {"min_opacity", d.min_opacity},
                  {"opacity_reset_every", d.opacity_reset_every},
                  {"reset_opacity", d.reset_opacity},
                  {"max_world_size", d.max_world_size},
                  {"max_screen_size", d.max_screen_size},
                  {"opacity_aware_visibility", d.opacity_aware_visibility}};
  j["init_points"] = c.init_points;
  j["init_half_size"] = c.init_half_size;
  j["init_opacity"] = c.init_opacity;
  j["background_mode"] = to_string(c.background_mode);
  j["background"] = {c.background[0], c.background[1], c.background[2]};
  j["log_every"] = c.log_every;
  j["checkpoint_every"] = c.checkpoint_every;
  j["timing_every"] = c.timing_every;
  return j.dump(2);
}

std::vector<std::string> config_differences(const std::string& saved_json, const std::string& current_json) {
  json saved, current;
  try {
    saved = json::parse(saved_json).flatten();
    current = json::parse(current_json).flatten();
  } catch (const json::exception& e) {
    throw InvalidArgument(std::string("configuration is not valid JSON: ") + e.what());
  }
  static const char* const kIgnored[] = {"/iterations", "/device", "/log_every", "/checkpoint_every", "/timing_every"};
  auto ignored = [](const std::string& key) {
    for (const char* k : kIgnored)
      if (key == k) return true;
    return false;
  };
  std::vector<std::string> out;
  for (auto it = current.begin(); it != current.end(); ++it) {
    if (ignored(it.key())) continue;
    const auto old = saved.find(it.key());
    if (old == saved.end()) {
      out.push_back(it.key().substr(1) + ": (absent) -> " + it.value().dump());
    } else if (*old != it.value()) {
      out.push_back(it.key().substr(1) + ": " + old->dump() + " -> " + it.value().dump());
    }
  }
  return out;
}

}  // namespace tilegrad::training
