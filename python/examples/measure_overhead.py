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

The breakdown (on by default; --no-breakdown skips it) times every step between (a) and (b) the same way, each
iteration split into phases: to the forward call's return, to the backward call's return, and the synchronisation
that waits for the rest of the device work:
    cpp_library  (a), by phase (_core.time_library_phases);
    cpp_binding  the binding's C++ half of tilegrad.rasterization on gsplat's parameters, no Python
                 (_core.time_binding_phases: its extra kernels, allocations and checks);
    python       tilegrad.rasterization + tilegrad.rasterization_backward on the same tensors, no autograd;
    torch        (b).
Differences of the totals attribute the overhead: binding_cpp = cpp_binding - cpp_library, python_wrapper = python -
cpp_binding, autograd = torch - python. The same four again with the device synchronised (untimed) between the two
calls ("isolated") time each call on an idle device: the host time the device waits for when the host is the
bottleneck.

--trace DIR also records a few iterations of (b) and of (a) with torch.profiler (CUDA activity through CUPTI: every
kernel, the library's included) into DIR/overhead_trace.json and DIR/overhead_trace_cpp.json (chrome://tracing,
Perfetto) and reports per iteration: the time per kernel, the device's busy time and span, the CUDA runtime calls
(launches, allocations, frees, memsets, blocking copies and synchronisations) and where the device sat idle (the
idle time before each kernel, i.e. while the host prepared it).
"""
import argparse
import json
import os
import re
import statistics
import time

import numpy as np
import torch

import tilegrad
import tilegrad.torch as tgt
from tilegrad import _core

PHASES = ("forward", "backward", "sync", "total")
PATHS = ("cpp_library", "cpp_binding", "python", "torch")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ply", required=True, help="3DGS scene (e.g. the example's or `tilegrad train`'s output)")
    p.add_argument("--data", required=True, help="dataset whose test cameras are used")
    p.add_argument("--views", type=int, default=10, help="test cameras, evenly spaced")
    p.add_argument("--reps", type=int, default=100, help="timed iterations per camera")
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--out", help="JSON file for the results")
    p.add_argument("--no-breakdown", dest="breakdown", action="store_false",
                   help="time only (a) and (b), not the steps between them")
    p.add_argument("--trace", help="folder for torch.profiler traces of a few iterations (see above)")
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
    plain = {k: v.detach() for k, v in leaves.items()}  # the same tensors, outside autograd
    background = torch.ones((1, 3))  # on the host, like the cameras
    gen = torch.Generator().manual_seed(0)
    v_colors = (torch.rand((1, height, width, 3), generator=gen) - 0.5).to(device)
    sh_degree = ply["sh_degree"]

    def clear():
        for v in leaves.values():
            v.grad = None

    cpp = []
    runs = {iso: {path: {ph: [] for ph in PHASES} for path in PATHS} for iso in (False, True)}
    cameras = np.linspace(0, len(split) - 1, min(a.views, len(split))).round().astype(int)
    for i in cameras:
        viewmat = torch.from_numpy(split.viewmats[i:i + 1])  # cameras on the host, as the example keeps them
        k = torch.from_numpy(split.Ks[i:i + 1])
        library_args = (raw["means"], raw["quats"], raw["log_scales"], raw["opacity_logits"], raw["sh"],
                        split.viewmats[i], split.Ks[i], width, height, sh_degree, v_colors[0], [1.0, 1.0, 1.0],
                        "owned", a.warmup, a.reps)
        cpp += _core.time_library_iterations(*library_args)

        torch_forward = render_call(tgt, leaves, viewmat, k, width, height, sh_degree, background)
        python_forward = render_call(tilegrad, plain, viewmat, k, width, height, sh_degree, background)

        isolations = (False, True) if a.breakdown else (False,)
        for iso in isolations:
            add(runs[iso]["torch"], python_phases(torch_forward, lambda out: torch.autograd.backward(out[0], v_colors),
                                                  sync, clear, a.warmup, a.reps, iso))
            if not a.breakdown:
                continue
            add(runs[iso]["cpp_library"], _core.time_library_phases(*library_args, isolated=iso))
            add(runs[iso]["cpp_binding"], _core.time_binding_phases(
                plain["means"], plain["quats"], plain["scales"], plain["opacities"], plain["colors"], viewmat, k,
                width, height, sh_degree, v_colors, background, "owned", a.warmup, a.reps, isolated=iso))
            add(runs[iso]["python"], python_phases(python_forward,
                                                   lambda out: tilegrad.rasterization_backward(out[2], v_colors),
                                                   sync, lambda: None, a.warmup, a.reps, iso))
    python = runs[False]["torch"]["total"]
    result = {
        "scene": a.ply, "gaussians": int(len(ply["means"])), "image": [width, height], "cameras": len(cameras),
        "iterations_per_camera": a.reps, "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu",
        "cpp_ms_median": statistics.median(cpp), "python_ms_median": statistics.median(python),
        "cpp_ms_mean": statistics.fmean(cpp), "python_ms_mean": statistics.fmean(python),
    }
    if a.breakdown:
        result.update(breakdown(runs))
    if a.trace:
        viewmat, k = torch.from_numpy(split.viewmats[:1]), torch.from_numpy(split.Ks[:1])
        # A profiler that fails must not lose the measurements above: its error is reported in the results.
        first = render_call(tgt, leaves, viewmat, k, width, height, sh_degree, background)
        for key, run in (("trace", lambda: trace(a.trace, first, v_colors, device, sync, clear)),
                         ("trace_cpp", lambda: trace_library(a.trace, raw, split, width, height, sh_degree,
                                                             v_colors, device))):
            try:
                result[key] = run()
            except Exception as e:  # noqa: BLE001
                result[key] = {"error": f"{type(e).__name__}: {e}"}
    result["overhead_ms"] = result["python_ms_median"] - result["cpp_ms_median"]
    result["overhead_percent"] = 100.0 * result["overhead_ms"] / result["cpp_ms_median"]
    print(json.dumps(result, indent=2))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=2)


def render_call(api, tensors, viewmat, k, width, height, sh_degree, background):
    """api.rasterization (tilegrad or tilegrad.torch) of one camera on the scene's tensors, as a callable."""
    return lambda: api.rasterization(tensors["means"], tensors["quats"], tensors["scales"], tensors["opacities"],
                                     tensors["colors"], viewmat, k, width, height, sh_degree=sh_degree,
                                     backgrounds=background)


def add(into, phases):
    for ph in PHASES:
        into[ph] += phases[ph]


def python_phases(forward, backward, sync, clear, warmup, reps, isolated):
    """Milliseconds per timed iteration by phase, like _core.time_library_phases: forward() (its result is kept until
    the next iteration's forward returns, as a training loop rebinds it), backward(result) (its result is released
    and clear() runs after the clock stops, as the C++ loop releases its gradients), the device synchronised."""
    out = {ph: [] for ph in PHASES}
    state = None
    for r in range(warmup + reps):
        t0 = time.perf_counter()
        state = forward()
        t1 = time.perf_counter()
        t1b = t1
        if isolated:
            sync()
            t1b = time.perf_counter()
        grads = backward(state)
        t2 = time.perf_counter()
        sync()
        t3 = time.perf_counter()
        grads = None  # noqa: F841 (released after the clock stops)
        clear()
        if r < warmup:
            continue
        out["forward"].append((t1 - t0) * 1e3)
        out["backward"].append((t2 - t1b) * 1e3)
        out["sync"].append((t3 - t2) * 1e3)
        out["total"].append(((t1 - t0) + (t3 - t1b) if isolated else t3 - t0) * 1e3)
    return out


def breakdown(runs):
    """Medians by path and phase, and the differences of the totals that attribute the overhead."""
    med = {("isolated_ms_median" if iso else "phases_ms_median"):
           {path: {ph: statistics.median(v) for ph, v in phases.items()} for path, phases in paths.items()}
           for iso, paths in runs.items()}
    t = {path: med["phases_ms_median"][path]["total"] for path in PATHS}
    med["breakdown_ms"] = {"binding_cpp": t["cpp_binding"] - t["cpp_library"],
                           "python_wrapper": t["python"] - t["cpp_binding"],
                           "autograd": t["torch"] - t["python"]}
    return med


def short_name(name):
    """A kernel's name without namespaces, arguments and template arguments (for_each_kernel keeps its operation)."""
    if name.startswith(("Memset", "Memcpy")):
        return name
    name = name.replace("(anonymous namespace)::", "")
    if name.startswith("void "):
        name = name[5:]
    base = re.split(r"[<(]", name, maxsplit=1)[0].split("::")[-1]
    if base == "for_each_kernel":
        op = re.search(r"for_each_kernel<([^>]*)>", name)
        if op:
            base += "<" + op.group(1).split("::")[-1] + ">"
    return base


def summarise(prof, iterations, path):
    """Per-iteration figures of a profile: kernels, device busy time and span, CUDA runtime calls, idle gaps."""
    events = list(prof.events())
    kernels = sorted((e for e in events if e.device_type.name == "CUDA"), key=lambda e: e.time_range.start)
    runtime = [e for e in events if e.device_type.name == "CPU" and e.name.startswith("cu")]
    per_kernel, idle_before = {}, {}
    for e in kernels:
        per_kernel.setdefault(short_name(e.name), []).append(e.time_range.elapsed_us())
    for prev, e in zip(kernels, kernels[1:]):
        gap = e.time_range.start - prev.time_range.end
        if gap > 0:
            idle_before[short_name(e.name)] = idle_before.get(short_name(e.name), 0.0) + gap
    calls, call_us = {}, {}
    for e in runtime:
        calls[e.name] = calls.get(e.name, 0) + 1
        call_us[e.name] = call_us.get(e.name, 0.0) + e.time_range.elapsed_us()
    kernel_totals = {n: sum(v) for n, v in per_kernel.items()}
    busy = sum(kernel_totals.values())
    span = (kernels[-1].time_range.end - kernels[0].time_range.start) if kernels else 0
    by = lambda d: sorted(d.items(), key=lambda kv: -kv[1])  # noqa: E731
    return {"trace": path, "iterations": iterations,
            "kernels_per_iteration": len(kernels) / iterations,
            "device_busy_us_per_iteration": busy / iterations,
            "device_span_us_per_iteration": span / iterations,
            "device_idle_us_per_iteration": (span - busy) / iterations,
            "kernel_us_per_iteration": {n: v / iterations for n, v in by(kernel_totals)},
            "device_idle_before_us_per_iteration": {n: v / iterations for n, v in by(idle_before)[:15]},
            "runtime_calls_per_iteration": {n: c / iterations for n, c in by(calls)},
            "runtime_call_us_per_iteration": {n: v / iterations for n, v in by(call_us)}}


def profiled(folder, name, device, run):
    from torch.profiler import ProfilerActivity, profile

    os.makedirs(folder, exist_ok=True)
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as prof:
        run()
    path = os.path.join(folder, name)
    prof.export_chrome_trace(path)
    return prof, path


def trace(folder, forward, v_colors, device, sync, clear, iterations=20):
    """A torch.profiler trace of `iterations` iterations of (b), forward() rendering the first test camera; returns
    its summary."""
    def run():
        for _ in range(iterations):
            colors, _, _ = forward()
            torch.autograd.backward(colors, v_colors)
            sync()
            clear()

    prof, path = profiled(folder, "overhead_trace.json", device, run)
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=15))
    return summarise(prof, iterations, path)


def trace_library(folder, raw, split, width, height, sh_degree, v_colors, device, iterations=20):
    """The same for (a): the C++ loop's kernels and runtime calls, the baseline of trace()'s. Its Rasterizer is new,
    so the first iteration also allocates the workspace (a few allocations, once)."""
    def run():
        _core.time_library_iterations(raw["means"], raw["quats"], raw["log_scales"], raw["opacity_logits"],
                                      raw["sh"], split.viewmats[0], split.Ks[0], width, height, sh_degree,
                                      v_colors[0], [1.0, 1.0, 1.0], "owned", 0, iterations)

    prof, path = profiled(folder, "overhead_trace_cpp.json", device, run)
    return summarise(prof, iterations, path)


if __name__ == "__main__":
    main()
