#!/usr/bin/env python3
"""Trains 3D Gaussians on a NeRF-synthetic scene (lego 400x400) in PyTorch with tilegrad.torch.rasterization: one
random train view per step, L1 + SSIM loss, torch.optim.Adam with the 3DGS learning rates, and 3DGS adaptive density
control driven by meta["means2d"].grad and meta["radii"] (the gsplat-compatible densification inputs). Reports the
mean test PSNR / SSIM and writes the trained scene as a 3DGS .ply.

    python3 python/examples/train_lego_torch.py --data .data/nerf_synthetic_lego_400 --out out/lego_torch

The C++ trainer (`tilegrad train`, tilegrad.train) does the same in fused kernels; this is the PyTorch-side
equivalent a gsplat user would write. docs/PYTHON.md lists the measured figures.
"""
import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn.functional as F

import tilegrad
import tilegrad.torch as tgt

SH_C0 = 0.28209479177387814


def ssim(a, b, window=11, sigma=1.5):
    """Mean SSIM of two [H, W, 3] images (Gaussian window, the 3DGS loss's)."""
    x = torch.arange(window, dtype=a.dtype, device=a.device) - window // 2
    g = torch.exp(-x * x / (2 * sigma * sigma))
    g = (g / g.sum())[:, None] @ (g / g.sum())[None, :]
    kernel = g.expand(3, 1, window, window).contiguous()
    a, b = a.permute(2, 0, 1)[None], b.permute(2, 0, 1)[None]
    blur = lambda t: F.conv2d(t, kernel, padding=window // 2, groups=3)  # noqa: E731
    mu_a, mu_b = blur(a), blur(b)
    var_a, var_b, cov = blur(a * a) - mu_a ** 2, blur(b * b) - mu_b ** 2, blur(a * b) - mu_a * mu_b
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    return (((2 * mu_a * mu_b + c1) * (2 * cov + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (var_a + var_b + c2))).mean()


def initial_gaussians(n, half_size, device, seed):
    """Random points in a cube (the 3DGS initialisation of NeRF-synthetic scenes), isotropic, opacity 0.1."""
    gen = torch.Generator().manual_seed(seed)
    means = (torch.rand((n, 3), generator=gen) * 2 - 1) * half_size
    spacing = (2 * half_size) / n ** (1 / 3)
    rgb = torch.rand((n, 3), generator=gen)
    sh = torch.zeros((n, 16, 3))
    sh[:, 0] = (rgb - 0.5) / SH_C0
    params = {
        "means": means,
        "log_scales": torch.full((n, 3), math.log(0.5 * spacing)),
        "quats": torch.tensor([1.0, 0.0, 0.0, 0.0]).repeat(n, 1),
        "logits": torch.full((n,), math.log(0.1 / 0.9)),
        "sh0": sh[:, :1].contiguous(),
        "shN": sh[:, 1:].contiguous(),
    }
    return {k: torch.nn.Parameter(v.to(device)) for k, v in params.items()}


def make_optimizer(params, extent):
    lrs = {"means": 1.6e-4 * extent, "log_scales": 5e-3, "quats": 1e-3, "logits": 0.05, "sh0": 2.5e-3,
           "shN": 2.5e-3 / 20}
    return torch.optim.Adam([{"params": [params[k]], "lr": lr, "name": k} for k, lr in lrs.items()], eps=1e-15)


def replace_parameters(optimizer, params, keep, extra):
    """Keeps the rows `keep` of every parameter and appends `extra` rows, moving Adam's moments along (new rows
    start with zero moments)."""
    for group in optimizer.param_groups:
        name = group["name"]
        old = group["params"][0]
        new = torch.nn.Parameter(torch.cat([old.detach()[keep], extra[name]]))
        state = optimizer.state.pop(old, None)
        if state:
            for key in ("exp_avg", "exp_avg_sq"):
                state[key] = torch.cat([state[key][keep], torch.zeros_like(extra[name])])
            optimizer.state[new] = state
        group["params"][0] = new
        params[name] = new


def quat_to_rotation(q):
    q = F.normalize(q, dim=-1)
    w, x, y, z = q.unbind(-1)
    return torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)], -1).reshape(-1, 3, 3)


@torch.no_grad()
def densify(optimizer, params, grad_accum, counts, extent, prune_large, threshold=2e-4):
    """3DGS adaptive density control: clone small and split large Gaussians whose mean view-space gradient (NDC
    units) reaches the threshold, prune transparent (and, after the first opacity reset, very large) ones."""
    avg = grad_accum / counts.clamp(min=1)
    high = avg >= threshold
    max_scale = params["log_scales"].exp().max(-1).values
    small = max_scale <= 0.01 * extent
    clone, split = high & small, high & ~small
    # Split: two children sampled from the parent's Gaussian, scaled down by 1.6; the parent goes away.
    n_split = int(split.sum())
    scales = params["log_scales"][split].exp().repeat(2, 1)
    offsets = (quat_to_rotation(params["quats"][split]).repeat(2, 1, 1) @ (torch.randn_like(scales) * scales)[..., None])
    extra = {k: torch.cat([params[k][clone], params[k][split].repeat(2, *[1] * (params[k].dim() - 1))])
             for k in params}
    children = slice(len(extra["means"]) - 2 * n_split, None)
    extra["means"][children] += offsets[..., 0]
    extra["log_scales"][children] -= math.log(1.6)
    opacity = torch.sigmoid(torch.cat([params["logits"], extra["logits"]]))
    prune = opacity < 0.005
    if prune_large:
        prune |= torch.cat([max_scale, extra["log_scales"].exp().max(-1).values]) > 0.1 * extent
    keep_old = ~split & ~prune[: len(split)]
    keep_new = ~prune[len(split):]
    replace_parameters(optimizer, params, keep_old, {k: v[keep_new] for k, v in extra.items()})
    return int(clone.sum()), n_split


@torch.no_grad()
def reset_opacities(optimizer, params, value=0.01):
    params["logits"].clamp_(max=math.log(value / (1 - value)))
    for group in optimizer.param_groups:
        if group["name"] == "logits":
            state = optimizer.state[group["params"][0]]
            for key in ("exp_avg", "exp_avg_sq"):
                if key in state:
                    state[key].zero_()


def render(params, viewmats, ks, width, height, sh_degree, background):
    return tgt.rasterization(params["means"], params["quats"], params["log_scales"].exp(),
                             torch.sigmoid(params["logits"]), torch.cat([params["sh0"], params["shN"]], 1),
                             viewmats, ks, width, height, sh_degree=sh_degree, backgrounds=background)


@torch.no_grad()
def evaluate(params, split, device, background, max_views=0):
    count = len(split) if max_views <= 0 else min(max_views, len(split))
    psnrs, ssims = [], []
    for i in np.linspace(0, len(split) - 1, count).round().astype(int):
        target = torch.from_numpy(split.target(i, (1.0, 1.0, 1.0))).to(device)
        image, _, _ = render(params, torch.from_numpy(split.viewmats[i:i + 1]), torch.from_numpy(split.Ks[i:i + 1]),
                             split.width, split.height, 3, background)
        image = image[0].clamp(0, 1)
        psnrs.append(float(-10 * torch.log10(F.mse_loss(image, target))))
        ssims.append(float(ssim(image, target)))
    return float(np.mean(psnrs)), float(np.mean(ssims)), count


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", required=True, help="NeRF-synthetic folder (transforms_train/test.json)")
    p.add_argument("--out", required=True, help="output folder (point_cloud.ply, metrics.json)")
    p.add_argument("--iters", type=int, default=30000)
    p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    p.add_argument("--downscale", type=int, default=1)
    p.add_argument("--init-points", type=int, default=100000)
    p.add_argument("--densify-until", type=int, default=15000)
    p.add_argument("--test-views", type=int, default=0, help="evaluate on this many test views (0: all)")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args()
    torch.manual_seed(a.seed)
    device = torch.device(a.device)
    os.makedirs(a.out, exist_ok=True)

    data = tilegrad.load_dataset(a.data, downscale=a.downscale)
    train = data.train
    width, height = train.width, train.height
    targets = torch.from_numpy(train.targets(background=(1.0, 1.0, 1.0))).to(device)
    # Cameras stay on the host: the rasterizer reads them there (no device-to-host copy per step).
    viewmats, ks = torch.from_numpy(train.viewmats), torch.from_numpy(train.Ks)
    background = torch.ones((1, 3))  # on the host, like the cameras
    params = initial_gaussians(a.init_points, 1.3, device, a.seed)
    optimizer = make_optimizer(params, data.extent)
    lr_means = (1.6e-4 * data.extent, 1.6e-6 * data.extent)
    grad_accum = torch.zeros(a.init_points, device=device)
    counts = torch.zeros(a.init_points, device=device)
    print(f"{len(train)} train views {width}x{height}, {a.init_points} Gaussians, extent {data.extent:.3f}, "
          f"{a.iters} iterations on {device}")

    start = time.perf_counter()
    order = torch.randperm(len(train), generator=torch.Generator().manual_seed(a.seed))
    for it in range(1, a.iters + 1):
        i = int(order[(it - 1) % len(train)])
        if it % len(train) == 0:
            order = torch.randperm(len(train), generator=torch.Generator().manual_seed(a.seed + it))
        t = (it - 1) / max(a.iters - 1, 1)
        optimizer.param_groups[0]["lr"] = math.exp((1 - t) * math.log(lr_means[0]) + t * math.log(lr_means[1]))
        image, _, meta = render(params, viewmats[i:i + 1], ks[i:i + 1], width, height, min(it // 1000, 3),
                                background)
        loss = 0.8 * (image[0] - targets[i]).abs().mean() + 0.2 * (1 - ssim(image[0], targets[i]))
        loss.backward()
        if it < a.densify_until:
            with torch.no_grad():
                g = meta["means2d"].grad[0].clone()
                g[:, 0] *= width / 2  # pixels -> NDC, the unit of the 3DGS threshold
                g[:, 1] *= height / 2
                visible = (meta["radii"][0] > 0).all(-1)
                grad_accum[visible] += g[visible].norm(dim=-1)
                counts[visible] += 1
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if 500 < it < a.densify_until and it % 100 == 0:
            cloned, split = densify(optimizer, params, grad_accum, counts, data.extent, prune_large=it > 3000)
            grad_accum = torch.zeros(len(params["means"]), device=device)
            counts = torch.zeros_like(grad_accum)
        if it < a.densify_until and it % 3000 == 0:
            reset_opacities(optimizer, params)
        if it % 1000 == 0 or it == a.iters:
            print(f"iteration {it}: loss {loss.item():.4f}, {len(params['means'])} Gaussians, "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
    if device.type == "cuda":
        torch.cuda.synchronize()
    seconds = time.perf_counter() - start

    psnr, ssim_value, views = evaluate(params, data.test, device, background, a.test_views)
    sh = torch.cat([params["sh0"], params["shN"]], 1)
    tilegrad.write_ply(os.path.join(a.out, "point_cloud.ply"), params["means"], params["quats"],
                       params["log_scales"], params["logits"], sh)
    result = {"iterations": a.iters, "training_seconds": seconds, "gaussians": len(params["means"]),
              "test_views": views, "psnr": psnr, "ssim": ssim_value, "device": str(device),
              "gpu": torch.cuda.get_device_name() if device.type == "cuda" else "cpu"}
    with open(os.path.join(a.out, "metrics.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(f"trained {a.iters} iterations in {seconds:.1f} s: {result['gaussians']} Gaussians; test views ({views}): "
          f"PSNR {psnr:.2f} dB, SSIM {ssim_value:.4f}")


if __name__ == "__main__":
    main()
