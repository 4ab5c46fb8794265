"""tilegrad.torch.rasterization: gsplat's rasterization() as a torch.autograd.Function.

Gradients reach every tensor argument that requires them (means, quats, scales, opacities, colors / SH,
backgrounds), and meta["means2d"] receives the gradient w.r.t. the projected means in pixels in its .grad (and, with
absgrad=True, the sum of per-pixel absolute gradients in .absgrad), as gsplat's densification strategies read them.
viewmats and Ks get no gradient: a viewmats that requires grad is an error rather than a silently missing gradient.
"""

import torch
import torch.utils.dlpack

from ._rasterization import rasterization as _rasterization
from ._rasterization import rasterization_backward as _rasterization_backward

__all__ = ["rasterization"]


class _Call:
    """The non-tensor state of one call, shared by forward and backward."""

    def __init__(self, args, kwargs):
        self.args, self.kwargs = args, kwargs
        self.meta = None
        self.means2d = None
        self.device = None


class _Rasterize(torch.autograd.Function):
    @staticmethod
    def forward(ctx, call, means, quats, scales, opacities, colors, backgrounds, means2d):
        # The projected means are written straight into the means2d leaf (its values; its gradient comes from
        # backward), handed over as a DLPack capsule like every tensor (tilegrad/_arrays.py).
        colors_out, alphas, meta = _rasterization(means, quats, scales, opacities, colors, *call.args,
                                                  backgrounds=backgrounds,
                                                  _means2d_out=torch.utils.dlpack.to_dlpack(means2d.detach()),
                                                  **call.kwargs)
        call.meta = meta
        call.means2d = means2d
        call.device = means.device
        ctx.call = call
        ctx.like = [None if t is None else (t.dtype, t.device)
                    for t in (means, quats, scales, opacities, colors, backgrounds)]
        ctx.set_materialize_grads(False)
        return colors_out, alphas

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, v_colors, v_alphas):
        call = ctx.call
        meta = call.meta
        needs = ctx.needs_input_grad  # (call, means, quats, scales, opacities, colors, backgrounds, means2d)
        if v_colors is None:
            c, h, w = meta["n_cameras"], meta["height"], meta["width"]
            channels = {"RGB": 3, "RGB+D": 4, "RGB+ED": 4}.get(meta["render_mode"], 1)
            v_colors = torch.zeros((c, h, w, channels), dtype=torch.float32, device=call.device)
        grads = _rasterization_backward(meta, v_colors, v_alphas, backgrounds=needs[6])
        if call.means2d is not None and "means2d_abs" in grads:
            call.means2d.absgrad = grads["means2d_abs"]
        names = ("means", "quats", "scales", "opacities", "colors", "backgrounds")
        out = [None]
        for i, name in enumerate(names):
            g = grads.get(name) if needs[i + 1] else None
            if g is not None and (g.dtype, g.device) != ctx.like[i]:
                g = g.to(dtype=ctx.like[i][0], device=ctx.like[i][1])
            out.append(g)
        out.append(grads["means2d"] if needs[7] else None)
        return tuple(out)


def rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width, height, near_plane=0.01,
                  far_plane=1e10, radius_clip=0.0, eps2d=0.3, sh_degree=None, packed=True, tile_size=16,
                  backgrounds=None, render_mode="RGB", sparse_grad=False, absgrad=False, rasterize_mode=None,
                  channel_chunk=32, distributed=False, camera_model="pinhole", segmented=False, covars=None, *,
                  antialiased=False, accumulation="owned", thresholds=None, check_finite=True):
    """tilegrad.rasterization (same arguments, gsplat's conventions) for PyTorch tensors, differentiable.

    Returns (colors [C, H, W, X], alphas [C, H, W, 1], meta); meta["means2d"] [C, N, 2] holds the projected means
    and, after backward, their gradient in .grad (and .absgrad with absgrad=True); meta["radii"] [C, N, 2] is > 0
    for the Gaussians each camera rendered.
    """
    for name, t in (("viewmats", viewmats), ("Ks", Ks)):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            raise NotImplementedError(
                f"tilegrad computes no gradient for {name}; pass {name}.detach() (camera optimisation is not "
                "supported)")
    if not isinstance(means, torch.Tensor):
        raise TypeError(f"tilegrad.torch.rasterization takes torch tensors, got {type(means).__name__} "
                        "(tilegrad.rasterization takes any framework)")
    n = means.shape[0] if means.dim() >= 1 else 0
    c = viewmats.shape[0] if viewmats.dim() >= 1 else 0
    means2d = torch.empty((c, n, 2), dtype=torch.float32, device=means.device, requires_grad=True)
    call = _Call(
        (viewmats, Ks, width, height, near_plane, far_plane, radius_clip, eps2d, sh_degree, packed, tile_size),
        dict(render_mode=render_mode, sparse_grad=sparse_grad, absgrad=absgrad, rasterize_mode=rasterize_mode,
             channel_chunk=channel_chunk, distributed=distributed, camera_model=camera_model, segmented=segmented,
             covars=covars, antialiased=antialiased, accumulation=accumulation, thresholds=thresholds,
             check_finite=check_finite))
    colors_out, alphas = _Rasterize.apply(call, means, quats, scales, opacities, colors, backgrounds, means2d)
    meta = {k: v for k, v in call.meta.items() if not k.startswith("_")}
    meta["means2d"] = means2d
    return colors_out, alphas, meta
