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
}  // namespace

const char* to_string(Parallelism m) { return m == Parallelism::Gaussians ? "gaussians" : "data"; }

Parallelism parse_parallelism(const std::string& name) {
  if (name == "data") return Parallelism::Data;
  if (name == "gaussians") return Parallelism::Gaussians;
  throw InvalidArgument("parallelism '" + name + "': expected data or gaussians");
}

namespace {
// Readable numbers for messages: shortest form that round-trips (no 300-digit bounds).
std::string show(double x) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", x);
  return buf;
}

class Checks {
 public:
  std::vector<std::string> out;
  void at_least(const char* name, double value, double min) {
    if (!(value >= min)) out.push_back(std::string(name) + " must be >= " + show(min) + ", got " + show(value));
  }
  void positive(const char* name, double value) {
    if (!(std::isfinite(value) && value > 0))
      out.push_back(std::string(name) + " must be positive and finite, got " + show(value));
  }
  void non_negative(const char* name, double value) {
    if (!(std::isfinite(value) && value >= 0))
      out.push_back(std::string(name) + " must be >= 0 and finite, got " + show(value));
  }
  // value in [lo, hi], or with an open end excluded.
  void between(const char* name, double value, double lo, double hi, bool open_lo = false, bool open_hi = false) {
    const bool ok = (open_lo ? value > lo : value >= lo) && (open_hi ? value < hi : value <= hi);
    if (!ok)
      out.push_back(std::string(name) + " must be in " + (open_lo ? "(" : "[") + show(lo) + ", " + show(hi) +
                    (open_hi ? ")" : "]") + ", got " + show(value));
  }
};
}  // namespace

std::vector<std::string> TrainConfig::problems() const {
  Checks c;
  c.at_least("iterations", iterations, 1);
  c.between("sh_degree", sh_degree, 0, 3);
  c.at_least("sh_degree_every", sh_degree_every, 1);
  c.between("lambda_dssim", lambda_dssim, 0, 1);
  c.positive("lr.position", lr.position);
  c.positive("lr.position_final", lr.position_final);
  c.at_least("lr.position_steps", lr.position_steps, 0);
  c.positive("lr.sh_dc", lr.sh_dc);
  c.non_negative("lr.sh_rest", lr.sh_rest);
  c.positive("lr.opacity", lr.opacity);
  c.positive("lr.scale", lr.scale);
  c.positive("lr.rotation", lr.rotation);
  c.between("adam.beta1", adam.beta1, 0, 1, false, true);
  c.between("adam.beta2", adam.beta2, 0, 1, false, true);
  c.positive("adam.eps", adam.eps);  // 0 divides by zero where a moment is zero: NaN parameters
  c.at_least("densify.from", densify.from, 0);
  c.at_least("densify.until", densify.until, 0);
  c.at_least("densify.every", densify.every, 1);
  c.non_negative("densify.grad_threshold", densify.grad_threshold);
  c.non_negative("densify.percent_dense", densify.percent_dense);
  c.between("densify.min_opacity", densify.min_opacity, 0, 1);
  c.at_least("densify.opacity_reset_every", densify.opacity_reset_every, 0);
  c.between("densify.reset_opacity", densify.reset_opacity, 0, 1, true, true);
  c.non_negative("densify.max_world_size", densify.max_world_size);
  c.non_negative("densify.max_screen_size", densify.max_screen_size);
  c.at_least("init_points", double(init_points), 1);
  c.non_negative("init_half_size", init_half_size);
  c.between("init_opacity", init_opacity, 0, 1, true, true);
  for (float b : background) c.between("background", b, 0, 1);
  c.at_least("log_every", log_every, 1);
  c.at_least("checkpoint_every", checkpoint_every, 0);
  c.non_negative("checkpoint_minutes", checkpoint_minutes);
  c.at_least("timing_every", timing_every, 1);
  c.between("distributed.ranks", distributed.ranks, 1, 4096);
  if (distributed.scale_for_views && distributed.mode != Parallelism::Data)
    c.out.push_back("distributed.scale_for_views applies to data parallel training only (one view per iteration "
                    "otherwise)");
  return c.out;
}

void TrainConfig::validate() const {
  const std::vector<std::string> p = problems();
  if (p.empty()) return;
  std::string message = "invalid training configuration:";
  for (const std::string& line : p) message += "\n  " + line;
  throw InvalidArgument(message);
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
  j["checkpoint_minutes"] = c.checkpoint_minutes;
  j["timing_every"] = c.timing_every;
  // Only for runs over several devices: one rank trains exactly as the plain trainer (and older files lack it).
  if (c.distributed.ranks > 1)
    j["distributed"] = {{"ranks", c.distributed.ranks},
                        {"mode", to_string(c.distributed.mode)},
                        {"scale_for_views", c.distributed.scale_for_views}};
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
  static const char* const kIgnored[] = {"/iterations",       "/device",          "/log_every", "/checkpoint_every",
                                         "/checkpoint_minutes", "/timing_every"};
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
  for (auto it = saved.begin(); it != saved.end(); ++it)
    if (!ignored(it.key()) && current.find(it.key()) == current.end())
      out.push_back(it.key().substr(1) + ": " + it.value().dump() + " -> (absent)");
  return out;
}

}  // namespace tilegrad::training
