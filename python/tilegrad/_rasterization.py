"""tilegrad.rasterization: gsplat's rasterization() on the library's rasterizer, for any DLPack framework, and
its framework-free backward. docs/PYTHON.md lists every convention and where it differs from gsplat."""

import math

from . import _core
from ._arrays import StreamGuard, device_of, framework_of, prepare, to_host, wrap

RENDER_MODES = ("RGB", "D", "ED", "RGB+D", "RGB+ED")
# min_alpha, max_alpha, min_transmittance, extent_sigmas: the 3DGS (and gsplat) compositing thresholds.
DEFAULT_THRESHOLDS = (1.0 / 255.0, 0.99, 1e-4, 3.0)
NO_THRESHOLDS = (0.0, 1.0, 0.0, 10.0)
ACCUMULATIONS = ("owned", "sort-reduce", "warp", "atomic")


def _unsupported(name, value, expected, why):
    if value != expected:
        raise NotImplementedError(f"tilegrad.rasterization: {name}={value!r} is not supported ({why}); "
                                  f"use {name}={expected!r}")


def rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width, height, near_plane=0.01,
                  far_plane=1e10, radius_clip=0.0, eps2d=0.3, sh_degree=None, packed=True, tile_size=16,
                  backgrounds=None, render_mode="RGB", sparse_grad=False, absgrad=False, rasterize_mode=None,
                  channel_chunk=32, distributed=False, camera_model="pinhole", segmented=False, covars=None, *,
                  antialiased=False, accumulation="owned", thresholds=None, check_finite=True, meta=True,
                  _means2d_out=None):
    """Renders N Gaussians from C cameras, with gsplat's arguments and conventions.

    means [N, 3], quats [N, 4] (w, x, y, z; need not be normalised), scales [N, 3] (activated), opacities [N]
    (activated, in [0, 1]), colors [N, 3] or [C, N, 3] (sh_degree None) or SH coefficients [N, K, 3] or
    [C, N, K, 3] with K = 1, 4, 9 or 16, viewmats [C, 4, 4] world-to-camera (OpenCV axes), Ks [C, 3, 3] in pixels.
    Arrays of one framework (NumPy, PyTorch, JAX or CuPy) on the CPU or CUDA; float32 C-contiguous arrays are
    used without a copy. Returns (colors [C, H, W, X], alphas [C, H, W, 1], meta) in the same framework, X = 3 for
    "RGB", 4 for "RGB+D" / "RGB+ED", 1 for "D" / "ED".

    tilegrad's own keyword arguments: antialiased (same as rasterize_mode="antialiased"), accumulation of the
    backward ("owned" and "sort-reduce" are deterministic), thresholds (min_alpha, max_alpha, min_transmittance,
    extent_sigmas), check_finite (the backward refuses NaN/inf gradients), meta (False skips the projection
    summary). Gradients: tilegrad.rasterization_backward(meta, ...), or tilegrad.torch / tilegrad.jax.
    (_means2d_out: a [C, N, 2] array of the same framework, or its DLPack capsule, that receives meta's means2d;
    tilegrad.torch's leaf.)
    """
    if render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, got {render_mode!r}")
    if rasterize_mode not in (None, "classic", "antialiased"):
        raise ValueError(f"rasterize_mode must be 'classic' or 'antialiased', got {rasterize_mode!r}")
    antialiased = bool(antialiased) or rasterize_mode == "antialiased"
    _unsupported("radius_clip", radius_clip, 0.0, "every Gaussian that reaches a tile is rendered")
    _unsupported("tile_size", tile_size, 16, "tiles are 16x16 pixels")
    _unsupported("sparse_grad", sparse_grad, False, "gradients are dense")
    _unsupported("distributed", distributed, False, "one process renders")
    _unsupported("camera_model", camera_model, "pinhole", "pinhole cameras only")
    if covars is not None:
        raise NotImplementedError("tilegrad.rasterization: covars is not supported; pass quats and scales")
    if accumulation not in ACCUMULATIONS:
        raise ValueError(f"accumulation must be one of {', '.join(ACCUMULATIONS)}, got {accumulation!r}")
    for name, value in (("width", width), ("height", height)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if sh_degree is not None and (not isinstance(sh_degree, int) or isinstance(sh_degree, bool)):
        raise TypeError(f"sh_degree must be None or an int, got {type(sh_degree).__name__}")

    framework = framework_of(means)
    device = device_of(means, framework)
    arrays = {}
    for name, x in (("means", means), ("quats", quats), ("scales", scales), ("opacities", opacities),
                    ("colors", colors)):
        arrays[name] = prepare(x, name, framework)
    cameras = to_host(viewmats, "viewmats"), to_host(Ks, "Ks")
    host_backgrounds = None if backgrounds is None else to_host(backgrounds, "backgrounds")
    if host_backgrounds is not None and backgrounds.ndim == 2 and backgrounds.shape[-1] != 3:
        raise ValueError(f"backgrounds must have shape [C, 3], got {list(backgrounds.shape)}")
    is_sh = sh_degree is not None
    thresholds = tuple(float(t) for t in thresholds) if thresholds else DEFAULT_THRESHOLDS
    with StreamGuard(framework, device):
        render = _core.render(
            arrays["means"], arrays["quats"], arrays["scales"], arrays["opacities"],
            None if is_sh else arrays["colors"], arrays["colors"] if is_sh else None, cameras[0], cameras[1],
            width, height, sh_degree, float(near_plane), float(far_plane), host_backgrounds, float(eps2d),
            antialiased, render_mode, thresholds, bool(meta),
            _means2d_out)
        out_colors, out_alphas, summary = render.outputs()
    result = {name: wrap(value, framework) for name, value in summary.items()}
    result.update({
        "width": width, "height": height, "n_cameras": render.cameras, "tile_size": 16,
        "tile_width": math.ceil(width / 16), "tile_height": math.ceil(height / 16),
        "instances": render.instances, "render_mode": render_mode,
        "_render": render, "_framework": framework, "_device": device,
        "_settings": {"accumulation": accumulation, "check_finite": bool(check_finite), "absgrad": bool(absgrad)},
    })
    return wrap(out_colors, framework), wrap(out_alphas, framework), result


def rasterization_backward(meta, v_colors, v_alphas=None, absgrad=None, backgrounds=False):
    """Gradients of a loss from dL/dcolors [C, H, W, X] (and dL/dalphas [C, H, W, 1]) of one rasterization call.

    Returns a dict of arrays in the call's framework, keyed like rasterization()'s arguments: means, quats,
    scales, opacities (activated), colors (colours or SH coefficients, as given), means2d [C, N, 2] (the
    gradient w.r.t. the projected means in pixels, which densification uses), means2d_abs [C, N, 2] (sum over
    pixels of the per-pixel |dL/dmeans2d|, with absgrad), backgrounds [C, 3] (with backgrounds=True). No
    gradient for viewmats and Ks.
    """
    render = meta["_render"]
    framework, device = meta["_framework"], meta["_device"]
    settings = meta["_settings"]
    absgrad = settings["absgrad"] if absgrad is None else bool(absgrad)
    v_colors = prepare(v_colors, "v_colors", framework)
    v_alphas = None if v_alphas is None else prepare(v_alphas, "v_alphas", framework)
    with StreamGuard(framework, device):
        grads = render.backward(v_colors, v_alphas, absgrad, settings["accumulation"], settings["check_finite"],
                                bool(backgrounds))
    return {name: wrap(value, framework) for name, value in grads.items()}
