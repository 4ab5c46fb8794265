"""tilegrad.train: the C++ trainer (the `tilegrad train` command) from Python."""

import json
import os

from . import _core


def train(data, out, progress=None, log=None, **options):
    """Trains a 3DGS scene on the dataset folder `data`, writing the run folder `out` like `tilegrad train`
    (point_cloud.ply, cameras.json, config.json, train_log.jsonl, checkpoint.bin, metrics.json, renders/).

    options are the command's options with '_' for '-', read by the command's own parser (the same defaults,
    checks and messages): iters, device ("auto", "cpu", "cuda"), accumulation, seed, background, sh_degree,
    lambda_dssim, antialiased, lr_position, densify_until, downscale, images, width, undistort, test_every,
    eval_at=[7000, 30000], save_at, resume, overwrite, renders, gpus (N or "all"), ranks (simulated on the CPU),
    parallel ("data" or "gaussians"), ... (tilegrad.train_options() lists them). Switches take True or False
    (renders=False is --no-renders), lists any sequence. An earlier run in `out` is refused unless resume=True or
    overwrite=True. log(str) receives each line the command prints (dataset, notes, evaluations, final metrics).
    progress(dict) is called every log_every iterations with iteration, iterations, loss, psnr, gaussians,
    densify_events (iterations since the last call that densified or reset opacities), iterations_per_second,
    eta_seconds, ...; returning False stops the run (a checkpoint is written; resume=True
    continues it). Returns a summary dict (finished, iterations, training_seconds, gaussians, psnr, ssim, l1 on the
    test views, paths; for a run over several ranks, distributed: the per-rank times and traffic of metrics.json).
    """
    if "iterations" in options:  # the TrainConfig name of --iters
        options["iters"] = options.pop("iterations")
    summary = _core.train(os.fspath(data), os.fspath(out), progress, log, options)
    distributed = summary.pop("distributed")
    if distributed:
        summary["distributed"] = json.loads(distributed)
    return summary


def train_options():
    """The option names train() accepts."""
    return list(_core.train_options())
