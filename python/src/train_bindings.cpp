// Python binding of the trainer: tilegrad.train(data, out, progress=None, log=None, **options). The keyword
// arguments are read by the options of `tilegrad train` (train_options.h: flag names with '_' for '-', the same
// defaults and checks) and the run is the command's (training::run_training): the same run folder, refusal of an
// earlier run unless resume or overwrite, checkpoints, metrics. `progress` gets a dict every log_every
// iterations, `log` each line the command prints; a progress callback returning False, an exception in a
// callback, or Ctrl-C stops the run after a checkpoint.
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "arrays.h"
#include "tilegrad/core/error.h"
#include "tilegrad/training/run.h"
#include "train_options.h"

namespace tilegrad::python {
namespace {

// The command-line spelling of one keyword argument: name -> --name (underscores as dashes), True/False of a
// flag -> the flag or its --no- form, lists -> comma-separated values. Unknown names are a ValueError.
void append_argument(CLI::App& cmd, const std::string& name, nb::handle value, std::vector<std::string>& args) {
  std::string flag = "--" + name;
  for (char& c : flag)
    if (c == '_') c = '-';
  const std::string negated = "--no-" + flag.substr(2);
  CLI::Option* option = cmd.get_option_no_throw(flag);
  CLI::Option* negation = cmd.get_option_no_throw(negated);
  if (!option && !negation) {
    std::string known;
    for (const CLI::Option* o : cmd.get_options()) {
      if (o->get_name().rfind("--", 0) != 0 || o->get_name() == "--help") continue;
      std::string n = o->get_name().substr(2);
      if (n.rfind("no-", 0) == 0) n = n.substr(3);
      for (char& c : n)
        if (c == '-') c = '_';
      if (n != "data" && n != "out") known += (known.empty() ? "" : ", ") + n;
    }
    throw InvalidArgument("train: unknown option '" + name + "' (options: " + known + ")");
  }
  if (nb::isinstance<nb::bool_>(value)) {
    const bool on = nb::cast<bool>(value);
    if (on && option) args.push_back(flag);
    if (!on && negation) args.push_back(negated);
    if ((on && !option) || (!on && !negation && option && option->get_expected_min() > 0))
      throw InvalidArgument("train: option '" + name + "' does not take " + (on ? "True" : "False"));
    return;
  }
  if (!option || option->get_expected_min() == 0)
    throw InvalidArgument("train: option '" + name + "' is a switch: pass True or False");
  std::string text;
  if (nb::isinstance<nb::list>(value) || nb::isinstance<nb::tuple>(value)) {
    for (nb::handle item : value) text += (text.empty() ? "" : ",") + nb::cast<std::string>(nb::str(item));
  } else {
    text = nb::cast<std::string>(nb::str(value));
  }
  args.push_back(flag);
  args.push_back(text);
}

// tilegrad.train's keyword arguments read by the options of `tilegrad train` (the same names, defaults and checks).
training::RunOptions parse_options(const std::string& data, const std::string& out, const nb::dict& options) {
  training::RunOptions o;
  CLI::App cmd("tilegrad.train");
  cli::add_train_options(&cmd, o);
  std::vector<std::string> args = {"--data", data, "--out", out};
  for (auto [key, value] : options) {
    const std::string name = nb::cast<std::string>(key);
    if (name == "data" || name == "out") throw InvalidArgument("train: '" + name + "' is a positional argument");
    append_argument(cmd, name, value, args);
  }
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from its back
  try {
    cmd.parse(args);
  } catch (const CLI::ParseError& e) {
    throw InvalidArgument(std::string("train: ") + e.what());
  }
  return o;
}

nb::dict progress_dict(const training::Progress& p) {
  nb::dict d;
  d["iteration"] = p.iteration;
  d["iterations"] = p.iterations;
  d["loss"] = p.loss;
  d["psnr"] = p.psnr;
  d["gaussians"] = p.gaussians;
  d["densify_events"] = p.densify_events;
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

nb::dict train(const std::string& data_path, const std::string& out, std::optional<nb::callable> progress,
               std::optional<nb::callable> log, const nb::dict& options) {
  training::RunOptions o = parse_options(data_path, out, options);
  training::prepare_run(o);

  std::optional<nb::python_error> error;  // raised by a callback or a signal, re-raised after the checkpoint
  bool stop_requested = false;
  auto call = [&](const nb::callable& f, nb::handle arg) -> nb::object {
    nb::gil_scoped_acquire acquire;
    try {
      return f(arg);
    } catch (nb::python_error& e) {
      if (!error) error.emplace(std::move(e));
    }
    return nb::none();
  };
  training::RunEvents events;
  events.stop = [&] {
    nb::gil_scoped_acquire acquire;
    if (!error && PyErr_CheckSignals() != 0) error.emplace();
    return stop_requested || error.has_value();
  };
  events.progress = [&](const training::Progress& p) {
    if (!progress) return;
    nb::object r;
    {
      nb::gil_scoped_acquire acquire;
      nb::dict d = progress_dict(p);
      r = call(*progress, d);
      if (r.is(nb::bool_(false))) stop_requested = true;
    }
  };
  if (log)
    events.message = [&](const std::string& line) {
      nb::gil_scoped_acquire acquire;
      call(*log, nb::str(line.c_str()));
    };
  training::RunResult r;
  {
    nb::gil_scoped_release release;
    r = training::run_training(o, events);
  }
  if (error) {
    error->restore();
    throw nb::python_error();
  }
  nb::dict d;
  d["finished"] = r.finished;
  d["iterations"] = r.iteration;
  d["training_seconds"] = r.summary.training_seconds;
  d["gaussians"] = r.summary.gaussians;
  d["split"] = r.split;
  d["psnr"] = r.evaluation.psnr;
  d["ssim"] = r.evaluation.ssim;
  d["l1"] = r.evaluation.l1;
  d["peak_gpu_bytes"] = r.summary.peak_gpu_bytes;
  d["ply"] = out + "/point_cloud.ply";
  d["checkpoint"] = r.checkpoint;
  d["distributed"] = r.summary.distributed;  // JSON of a run over several ranks ("" otherwise): _train.py reads it
  return d;
}

}  // namespace

void bind_train(nb::module_& m) {
  m.def("train", &train, nb::arg("data"), nb::arg("out"), nb::arg("progress").none(), nb::arg("log").none(),
        nb::arg("options"), "Runs the trainer (see tilegrad.train)");
  m.def("train_options", [] {
    training::RunOptions o;
    CLI::App cmd("tilegrad.train");
    cli::add_train_options(&cmd, o);
    nb::list l;
    for (const CLI::Option* opt : cmd.get_options()) {
      std::string n = opt->get_name();
      if (n.rfind("--", 0) != 0 || n == "--help" || n == "--data" || n == "--out") continue;
      n = n.substr(2);
      if (n.rfind("no-", 0) == 0) n = n.substr(3);
      for (char& c : n)
        if (c == '-') c = '_';
      l.append(n);
    }
    return l;
  });
}

}  // namespace tilegrad::python
