// Python binding of the trainer: tilegrad.train(data, out, progress=None, **options) with the options of
// `tilegrad train` (flag names with '_' for '-'). Writes the run folder like the command (config.json,
// cameras.json, train_log.jsonl, checkpoint.bin, point_cloud.ply, metrics.json, optional test renders) and calls
// `progress` with a dict every log_every iterations; a progress callback returning False, or Ctrl-C, stops the run
// after a checkpoint.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>

#include "arrays.h"
#include "tilegrad/core/error.h"
#include "tilegrad/core/memory.h"
#include "tilegrad/io/ply_gaussians.h"
#include "tilegrad/training/outputs.h"
#include "tilegrad/training/trainer.h"

namespace tilegrad::python {
namespace {

struct TrainOptions {
  training::TrainConfig config;
  training::DatasetOptions data;
  std::string device = "auto", accumulation = "owned", background = "auto", resume_from;
  bool resume = false, renders = true;
};

using Setter = std::function<void(TrainOptions&, nb::handle)>;

template <class T>
Setter set(T training::TrainConfig::*field) {
  return [field](TrainOptions& o, nb::handle v) { o.config.*field = nb::cast<T>(v); };
}
template <class T>
Setter set_lr(T training::LearningRates::*field) {
  return [field](TrainOptions& o, nb::handle v) { o.config.lr.*field = nb::cast<T>(v); };
}
template <class T>
Setter set_densify(T training::DensifyConfig::*field) {
  return [field](TrainOptions& o, nb::handle v) { o.config.densify.*field = nb::cast<T>(v); };
}

// The options of `tilegrad train` (apps/tilegrad/cmd_train.cpp) by their flag names.
const std::map<std::string, Setter>& option_table() {
  static const std::map<std::string, Setter> table = {
      {"iters", set(&training::TrainConfig::iterations)},
      {"seed", set(&training::TrainConfig::seed)},
      {"sh_degree", set(&training::TrainConfig::sh_degree)},
      {"sh_degree_every", set(&training::TrainConfig::sh_degree_every)},
      {"lambda_dssim", set(&training::TrainConfig::lambda_dssim)},
      {"antialiased", set(&training::TrainConfig::antialiased)},
      {"init_points", set(&training::TrainConfig::init_points)},
      {"init_extent", set(&training::TrainConfig::init_half_size)},
      {"init_opacity", set(&training::TrainConfig::init_opacity)},
      {"log_every", set(&training::TrainConfig::log_every)},
      {"checkpoint_every", set(&training::TrainConfig::checkpoint_every)},
      {"timing_every", set(&training::TrainConfig::timing_every)},
      {"lr_position", set_lr(&training::LearningRates::position)},
      {"lr_position_final", set_lr(&training::LearningRates::position_final)},
      {"lr_position_steps", set_lr(&training::LearningRates::position_steps)},
      {"lr_sh_dc", set_lr(&training::LearningRates::sh_dc)},
      {"lr_sh_rest", set_lr(&training::LearningRates::sh_rest)},
      {"lr_opacity", set_lr(&training::LearningRates::opacity)},
      {"lr_scale", set_lr(&training::LearningRates::scale)},
      {"lr_rotation", set_lr(&training::LearningRates::rotation)},
      {"adam_eps", [](TrainOptions& o, nb::handle v) { o.config.adam.eps = nb::cast<float>(v); }},
      {"densify_from", set_densify(&training::DensifyConfig::from)},
      {"densify_until", set_densify(&training::DensifyConfig::until)},
      {"densify_every", set_densify(&training::DensifyConfig::every)},
      {"densify_grad", set_densify(&training::DensifyConfig::grad_threshold)},
      {"percent_dense", set_densify(&training::DensifyConfig::percent_dense)},
      {"min_opacity", set_densify(&training::DensifyConfig::min_opacity)},
      {"opacity_reset_every", set_densify(&training::DensifyConfig::opacity_reset_every)},
      {"max_world_size", set_densify(&training::DensifyConfig::max_world_size)},
      {"max_screen_size", set_densify(&training::DensifyConfig::max_screen_size)},
      {"device", [](TrainOptions& o, nb::handle v) { o.device = nb::cast<std::string>(v); }},
      {"accumulation", [](TrainOptions& o, nb::handle v) { o.accumulation = nb::cast<std::string>(v); }},
      {"background", [](TrainOptions& o, nb::handle v) { o.background = nb::cast<std::string>(v); }},
      {"downscale", [](TrainOptions& o, nb::handle v) { o.data.downscale = nb::cast<int>(v); }},
      {"eval", [](TrainOptions& o, nb::handle v) { o.data.eval = nb::cast<bool>(v); }},
      {"resume", [](TrainOptions& o, nb::handle v) { o.resume = nb::cast<bool>(v); }},
      {"resume_from", [](TrainOptions& o, nb::handle v) { o.resume_from = nb::cast<std::string>(v); }},
      {"renders", [](TrainOptions& o, nb::handle v) { o.renders = nb::cast<bool>(v); }},
  };
  return table;
}

nb::dict progress_dict(const training::Progress& p) {
  nb::dict d;
  d["iteration"] = p.iteration;
  d["iterations"] = p.iterations;
  d["loss"] = p.loss;
  d["psnr"] = p.psnr;
  d["gaussians"] = p.gaussians;
  d["iterations_per_second"] = p.iterations_per_second;
  d["elapsed_seconds"] = p.elapsed_seconds;
  d["eta_seconds"] = p.eta_seconds;
  d["position_lr"] = p.position_lr;
  d["sh_degree"] = p.sh_degree;
  nb::dict densify;
  densify["before"] = p.last_densify.before;
  densify["cloned"] = p.last_densify.cloned;
  densify["split"] = p.last_densify.split;
  densify["pruned"] = p.last_densify.pruned;
  densify["after"] = p.last_densify.after;
  d["last_densify"] = densify;
  nb::dict ms;
  ms["render"] = p.times.render;
  ms["loss"] = p.times.loss;
  ms["backward"] = p.times.backward;
  ms["optimizer"] = p.times.optimizer;
  ms["densify"] = p.times.densify;
  d["stage_ms"] = ms;
  return d;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::trunc);
  f << text << "\n";
  if (!f) throw IoError(path + ": cannot write");
}

nb::dict train(const std::string& data_path, const std::string& out, std::optional<nb::callable> progress,
               const nb::dict& options) {
  TrainOptions o;
  o.data.path = data_path;
  for (auto [key, value] : options) {
    const std::string name = nb::cast<std::string>(key);
    const auto it = option_table().find(name);
    if (it == option_table().end()) {
      std::string known;
      for (const auto& [k, unused] : option_table()) known += (known.empty() ? "" : ", ") + k;
      throw InvalidArgument("train: unknown option '" + name + "' (options: " + known + ")");
    }
    try {
      it->second(o, value);
    } catch (const nb::cast_error&) {
      throw InvalidArgument("train: option '" + name + "' has the wrong type");
    }
  }
  training::TrainConfig& config = o.config;
  config.device = training::device_from_option(o.device);
  config.accumulation = parse_accumulation(o.accumulation);
  training::set_background(config, o.background);
  config.validate();
  o.data.device = config.device;
  std::filesystem::create_directories(out);
  const std::string checkpoint = out + "/checkpoint.bin";
  const std::string resume_from = !o.resume_from.empty() ? o.resume_from : (o.resume ? checkpoint : "");

  std::optional<nb::python_error> error;  // raised by the callback or a signal, re-raised after the checkpoint
  bool stop_requested = false;
  training::Evaluation evaluation;
  training::RunSummary summary;
  bool finished = false;
  std::string split;
  {
    nb::gil_scoped_release release;
    const training::TrainingDataset data = training::load_dataset(o.data);
    training::Trainer trainer(config, data);
    if (resume_from.empty()) {
      trainer.initialize();
    } else {
      trainer.resume(resume_from);
    }
    write_text(out + "/config.json", training::run_config_json(config, o.data));
    std::vector<const training::TrainingView*> cams;
    for (const auto& v : data.train) cams.push_back(&v);
    for (const auto& v : data.test) cams.push_back(&v);
    training::write_cameras_json(out + "/cameras.json", cams);
    std::ofstream log(out + "/train_log.jsonl", resume_from.empty() ? std::ios::trunc : std::ios::app);

    training::Trainer::RunHooks hooks;
    hooks.checkpoint_path = checkpoint;
    hooks.stop = [&] {
      nb::gil_scoped_acquire acquire;
      if (!error && PyErr_CheckSignals() != 0) error.emplace();
      return stop_requested || error.has_value();
    };
    hooks.report = [&](const training::Progress& p) {
      log << training::progress_json_line(p) << "\n" << std::flush;
      if (!progress) return;
      nb::gil_scoped_acquire acquire;
      try {
        nb::object r = (*progress)(progress_dict(p));
        if (r.is(nb::bool_(false))) stop_requested = true;
      } catch (nb::python_error& e) {
        if (!error) error.emplace(std::move(e));
      }
    };
    finished = trainer.run(hooks);
    trainer.save_checkpoint(checkpoint);
    io::write_gaussians_ply(out + "/point_cloud.ply", trainer.model().params);
    const bool on_test = !data.test.empty();
    split = on_test ? "test" : "train";
    if (!error) {
      evaluation = trainer.evaluate(on_test ? data.test : data.train,
                                    o.renders ? training::png_sink(out + "/renders/" + split) : training::RenderSink{});
      summary.iterations = trainer.iteration();
      summary.training_seconds = trainer.training_seconds();
      summary.gaussians = trainer.model().count();
      summary.peak_gpu_bytes = config.device == Device::Cuda ? memory::stats(Device::Cuda).peak : 0;
      summary.times = trainer.stage_times();
      summary.device = config.device == Device::Cuda ? cuda_device_description() : "cpu";
      summary.dataset = data.root;
      training::write_metrics_json(out + "/metrics.json", evaluation, &summary);
    }
  }
  if (error) {
    error->restore();
    throw nb::python_error();
  }
  nb::dict d;
  d["finished"] = finished;
  d["iterations"] = summary.iterations;
  d["training_seconds"] = summary.training_seconds;
  d["gaussians"] = summary.gaussians;
  d["split"] = split;
  d["psnr"] = evaluation.psnr;
  d["ssim"] = evaluation.ssim;
  d["l1"] = evaluation.l1;
  d["peak_gpu_bytes"] = summary.peak_gpu_bytes;
  d["ply"] = out + "/point_cloud.ply";
  d["checkpoint"] = checkpoint;
  return d;
}

}  // namespace

void bind_train(nb::module_& m) {
  m.def("train", &train, nb::arg("data"), nb::arg("out"), nb::arg("progress").none(), nb::arg("options"),
        "Runs the trainer (see tilegrad.train)");
  m.def("train_options", [] {
    nb::list l;
    for (const auto& [k, unused] : option_table()) l.append(k);
    return l;
  });
}

}  // namespace tilegrad::python
