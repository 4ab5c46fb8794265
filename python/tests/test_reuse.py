"""State the binding keeps between calls (one rasterizer, and so one workspace, per device for the process) changes
no result: calls of other image sizes and camera counts in between, and a backward that runs after another call's
forward, give the bits of a call made alone. And the C++ timing loops that measure_overhead.py compares against."""

import numpy as np
import pytest

import tilegrad
from conftest import cameras, scene, to_framework, to_numpy


def call(target, s, count, width, height, seed):
    """One forward + backward (SH degree 1, RGB+ED so that every output and gradient path runs); the arrays it
    returns as NumPy, and its meta for a later backward."""
    framework, device = target
    conv = lambda x: to_framework(x, framework, device)  # noqa: E731
    viewmats, ks = cameras(count, width, height)
    rng = np.random.default_rng(seed)
    v_colors = conv(rng.normal(size=(count, height, width, 4)).astype(np.float32))
    v_alphas = conv(rng.normal(size=(count, height, width, 1)).astype(np.float32))
    colors, alphas, meta = tilegrad.rasterization(
        conv(s["means"]), conv(s["quats"]), conv(s["scales"]), conv(s["opacities"]), conv(s["colors"]),
        conv(viewmats), conv(ks), width, height, sh_degree=1, render_mode="RGB+ED",
        backgrounds=conv(np.full((count, 3), 0.25, np.float32)))
    outputs = {"colors": colors, "alphas": alphas,
               **{k: v for k, v in meta.items() if k in ("means2d", "depths", "conics", "opacities", "radii")}}
    return {k: to_numpy(v) for k, v in outputs.items()}, meta, (v_colors, v_alphas)


def backward(meta, grads_in):
    return {k: to_numpy(v) for k, v in tilegrad.rasterization_backward(meta, *grads_in, backgrounds=True).items()}


def assert_same(a, b):
    assert a.keys() == b.keys()
    for k in a:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_calls_in_between_change_no_bit(target):
    s = scene(60, seed=3, sh_degree=1)
    first, meta, grads_in = call(target, s, 3, 40, 32, seed=0)
    first_grads = backward(meta, grads_in)
    # Other sizes and camera counts in between (the workspace grows and is reused), then the first call again.
    for count, width, height in ((1, 17, 23), (2, 64, 48), (1, 40, 32)):
        _, m, g = call(target, s, count, width, height, seed=count)
        backward(m, g)
    again, meta, grads_in = call(target, s, 3, 40, 32, seed=0)
    assert_same(again, first)
    assert_same(backward(meta, grads_in), first_grads)


def test_backward_after_another_forward(target):
    """Two calls alive at once share the device's rasterizer: each backward uses its own forward's state."""
    s = scene(60, seed=4, sh_degree=1)
    alone_a, meta_a, grads_a = call(target, s, 2, 40, 32, seed=5)
    alone_a_grads = backward(meta_a, grads_a)
    alone_b, meta_b, grads_b = call(target, s, 1, 24, 56, seed=6)
    alone_b_grads = backward(meta_b, grads_b)

    out_a, meta_a, grads_a = call(target, s, 2, 40, 32, seed=5)
    out_b, meta_b, grads_b = call(target, s, 1, 24, 56, seed=6)
    assert_same(backward(meta_b, grads_b), alone_b_grads)
    assert_same(backward(meta_a, grads_a), alone_a_grads)
    assert_same(out_a, alone_a)
    assert_same(out_b, alone_b)


@pytest.mark.parametrize("isolated", [False, True])
def test_timing_loops(isolated):
    """_core.time_library_phases and time_binding_phases: `reps` iterations, each split into its phases."""
    s = scene(30, seed=2, sh_degree=1)
    viewmats, ks = cameras(1, 24, 16)
    log_scales = np.log(s["scales"])
    logits = (np.log(s["opacities"]) - np.log1p(-s["opacities"])).astype(np.float32)
    v_colors = np.random.default_rng(0).normal(size=(1, 16, 24, 3)).astype(np.float32)
    library = tilegrad._core.time_library_phases(s["means"], s["quats"], log_scales, logits, s["colors"],
                                                 viewmats[0], ks[0], 24, 16, 1, v_colors[0], [1.0, 1.0, 1.0],
                                                 "owned", 1, 4, isolated=isolated)
    binding = tilegrad._core.time_binding_phases(s["means"], s["quats"], s["scales"], s["opacities"], s["colors"],
                                                 viewmats, ks, 24, 16, 1, v_colors, np.ones((1, 3), np.float32),
                                                 "owned", 1, 4, isolated=isolated)
    for phases in (library, binding):
        assert sorted(phases) == ["backward", "forward", "sync", "total"]
        assert all(len(v) == 4 and min(v) >= 0 for v in phases.values())
        parts = np.add(np.add(phases["forward"], phases["backward"]), phases["sync"])
        np.testing.assert_allclose(phases["total"], parts, rtol=1e-9, atol=1e-9)
    totals = tilegrad._core.time_library_iterations(s["means"], s["quats"], log_scales, logits, s["colors"],
                                                    viewmats[0], ks[0], 24, 16, 1, v_colors[0], [1.0, 1.0, 1.0],
                                                    "owned", 0, 3)
    assert len(totals) == 3 and min(totals) > 0
    with pytest.raises(ValueError, match="one camera"):
        tilegrad._core.time_binding_phases(s["means"], s["quats"], s["scales"], s["opacities"], s["colors"],
                                           *cameras(2, 24, 16), 24, 16, 1, v_colors, np.ones((2, 3), np.float32))
