"""tilegrad.train: the C++ trainer (the `tilegrad train` command) from Python."""

import os

from . import _core


def train(data, out, progress=None, **options):
    """Trains a 3DGS scene on the dataset folder `data`, writing the run folder `out` like `tilegrad train`
    (point_cloud.ply, cameras.json, config.json, train_log.jsonl, checkpoint.bin, metrics.json, renders/).

    options are the command's flags with '_' for '-': iters, device ("auto", "cpu", "cuda"), accumulation,
    seed, background, sh_degree, lambda_dssim, antialiased, lr_position, densify_until, downscale, eval, resume,
    renders, ... (tilegrad.train_options() lists them). progress(dict) is called every log_every iterations with
    iteration, iterations, loss, psnr, gaussians, iterations_per_second, eta_seconds, ...; returning False stops
    the run (a checkpoint is written; resume=True continues it). Returns a summary dict (finished, iterations,
    training_seconds, gaussians, psnr, ssim, l1 on the test views, paths).
    """
    if "iterations" in options:  # the TrainConfig name of --iters
        options["iters"] = options.pop("iterations")
    return _core.train(os.fspath(data), os.fspath(out), progress, options)


def train_options():
    """The option names train() accepts."""
    return list(_core.train_options())
