#!/usr/bin/env python3
"""The cost of calling the rasterizer from PyTorch: per training iteration (forward + backward of one view), the
library called directly in C++ against tilegrad.torch.rasterization with torch.autograd, on the same scene, cameras
and dL/dimage.

    python3 python/examples/measure_overhead.py --ply out/lego_torch/point_cloud.ply \
        --data .data/nerf_synthetic_lego_400 --out out/overhead.json

(a) C++: tilegrad._core.time_library_iterations runs Rasterizer::forward + backward in a C++ loop (no Python between
    calls), the device synchronised at the end of every iteration.
(b) Python: tilegrad.torch.rasterization(...) on leaf tensors that require grad, then
    torch.autograd.backward(colors, dL/dcolors), timed the same way (wall clock, synchronised per iteration).
Both use the Owned accumulation and the same settings. Reports the median milliseconds of each over all iterations
and cameras, and overhead = (b - a) / a (target < 10%).

--trace DIR also records a few Python iterations with torch.profiler (CUDA activity through CUPTI: every kernel,
the library's included) into DIR/overhead_trace.json (chrome://tracing, Perfetto) and prints the time per kernel
and the device's idle time per iteration, which separates the binding's extra kernels from host time the device
waits for.
"""
import argparse
import json
import statistics
import time

import numpy as np
import torch

import tilegrad
import tilegrad.torch as tgt
from tilegrad import _core


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ply", required=True, help="3DGS scene (e.g. the example's or `tilegrad train`'s output)")
    p.add_argument("--data", required=True, help="dataset whose test cameras are used")
    p.add_argument("--views", type=int, default=10, help="test cameras, evenly spaced")
    p.add_argument("--reps", type=int, default=100, help="timed iterations per camera")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--out", help="JSON file for the results")
    p.add_argument("--trace", help="folder for a torch.profiler trace of a few Python iterations (see above)")
    a = p.parse_args()
    device = torch.device(a.device)
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)

    ply = tilegrad.read_ply(a.ply)
    split = tilegrad.load_dataset(a.data, images=False).test
    width, height = split.width, split.height
    raw = {k: torch.from_numpy(np.ascontiguousarray(ply[k])).to(device)
           for k in ("means", "quats", "log_scales", "opacity_logits", "sh")}
    leaves = {"means": raw["means"], "quats": raw["quats"], "scales": raw["log_scales"].exp(),
              "opacities": torch.sigmoid(raw["opacity_logits"]), "colors": raw["sh"]}
    leaves = {k: v.clone().requires_grad_() for k, v in leaves.items()}
    background = torch.ones((1, 3))  # on the host, like the cameras
    gen = torch.Generator().manual_seed(0)
    v_colors = (torch.rand((1, height, width, 3), generator=gen) - 0.5).to(device)

    cpp, python = [], []
    cameras = np.linspace(0, len(split) - 1, min(a.views, len(split))).round().astype(int)
    for i in cameras:
        viewmat = torch.from_numpy(split.viewmats[i:i + 1])  # cameras on the host, as the example keeps them
        k = torch.from_numpy(split.Ks[i:i + 1])
        cpp += _core.time_library_iterations(raw["means"], raw["quats"], raw["log_scales"], raw["opacity_logits"],
                                             raw["sh"], split.viewmats[i], split.Ks[i], width, height,
                                             ply["sh_degree"], v_colors[0], [1.0, 1.0, 1.0], "owned", a.warmup,
                                             a.reps)
        for r in range(a.warmup + a.reps):
            t0 = time.perf_counter()
            colors, _, _ = tgt.rasterization(leaves["means"], leaves["quats"], leaves["scales"],
                                             leaves["opacities"], leaves["colors"], viewmat, k, width, height,
                                             sh_degree=ply["sh_degree"], backgrounds=background)
            torch.autograd.backward(colors, v_colors)
            sync()
            if r >= a.warmup:
                python.append((time.perf_counter() - t0) * 1e3)
            for v in leaves.values():
                v.grad = None
    result = {
        "scene": a.ply, "gaussians": int(len(ply["means"])), "image": [width, height], "cameras": len(cameras),
        "iterations_per_camera": a.reps, "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "cpp_ms_median": statistics.median(cpp), "python_ms_median": statistics.median(python),
        "cpp_ms_mean": statistics.fmean(cpp), "python_ms_mean": statistics.fmean(python),
    }
    if a.trace:
        try:  # a profiler that fails must not lose the measurement above
            result["trace"] = trace(a.trace, leaves, split, width, height, ply["sh_degree"], background, v_colors,
                                    device, sync)
        except Exception as e:  # noqa: BLE001 (reported in the results)
            result["trace"] = {"error": f"{type(e).__name__}: {e}"}
    result["overhead_ms"] = result["python_ms_median"] - result["cpp_ms_median"]
    result["overhead_percent"] = 100.0 * result["overhead_ms"] / result["cpp_ms_median"]
    print(json.dumps(result, indent=2))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)


def trace(folder, leaves, split, width, height, sh_degree, background, v_colors, device, sync, iterations=20):
    """A torch.profiler trace of `iterations` Python iterations on the first test camera; returns its summary."""
    import os
    from torch.profiler import ProfilerActivity, profile

    os.makedirs(folder, exist_ok=True)
    viewmat, k = torch.from_numpy(split.viewmats[:1]), torch.from_numpy(split.Ks[:1])
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        for _ in range(iterations):
            colors, _, _ = tgt.rasterization(leaves["means"], leaves["quats"], leaves["scales"], leaves["opacities"],
                                             leaves["colors"], viewmat, k, width, height, sh_degree=sh_degree,
                                             backgrounds=background)
            torch.autograd.backward(colors, v_colors)
            sync()
            for v in leaves.values():
                v.grad = None
    path = os.path.join(folder, "overhead_trace.json")
    prof.export_chrome_trace(path)
    kernels = [e for e in prof.events() if e.device_type.name == "CUDA"]
    per_kernel = {}
    for e in kernels:
        per_kernel.setdefault(e.name, []).append(e.time_range.elapsed_us())
    busy = sum(sum(v) for v in per_kernel.values())
    span = (max(e.time_range.end for e in kernels) - min(e.time_range.start for e in kernels)) if kernels else 0
    summary = {"trace": path, "iterations": iterations,
               "kernels_per_iteration": len(kernels) / iterations,
               "device_busy_us_per_iteration": busy / iterations,
               "device_span_us_per_iteration": span / iterations,
               "kernel_us_per_iteration": {name: sum(v) / iterations
                                           for name, v in sorted(per_kernel.items(), key=lambda kv: -sum(kv[1]))}}
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
    return summary


if __name__ == "__main__":
    main()
