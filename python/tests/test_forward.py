"""tilegrad.rasterization against the NumPy oracle of gsplat's math (reference.py), on every framework and
device present: argument conventions, render modes, several cameras, per-camera colours, SH, backgrounds."""

import numpy as np
import pytest

import tilegrad
from conftest import cameras, scene, to_framework, to_numpy
from reference import render as reference_render

W, H = 40, 32


def run(target, s, viewmats, ks, **kwargs):
    framework, device = target
    conv = lambda x: to_framework(x, framework, device)  # noqa: E731
    colors, alphas, meta = tilegrad.rasterization(conv(s["means"]), conv(s["quats"]), conv(s["scales"]),
                                                  conv(s["opacities"]), conv(s["colors"]), conv(viewmats),
                                                  conv(ks), W, H, **{k: (conv(v) if isinstance(v, np.ndarray) else v)
                                                                     for k, v in kwargs.items()})
    return to_numpy(colors), to_numpy(alphas), meta


def expected(s, viewmats, ks, backgrounds=None, **kwargs):
    out = [reference_render(s["means"], s["quats"], s["scales"], s["opacities"],
                            s["colors"][c] if s["colors"].ndim == 3 and s["colors"].shape[0] == len(viewmats)
                            and kwargs.get("sh_degree") is None else s["colors"], viewmats[c], ks[c], W, H,
                            background=None if backgrounds is None else backgrounds[c], **kwargs)
           for c in range(len(viewmats))]
    return (np.stack([o[0] for o in out]), np.stack([o[1] for o in out])[..., None],
            np.stack([o[2] for o in out])[..., None])


def test_rgb_matches_reference(target):
    s = scene(40, seed=1)
    viewmats, ks = cameras(3, W, H)
    bg = np.array([[0.1, 0.2, 0.3], [1.0, 1.0, 1.0], [0.0, 0.5, 0.0]], dtype=np.float32)
    colors, alphas, meta = run(target, s, viewmats, ks, backgrounds=bg)
    ref_rgb, ref_alpha, _ = expected(s, viewmats, ks, backgrounds=bg)
    assert colors.shape == (3, H, W, 3) and alphas.shape == (3, H, W, 1)
    assert alphas.max() > 0.3  # the scene is in view
    np.testing.assert_allclose(colors, ref_rgb, atol=2e-5)
    np.testing.assert_allclose(alphas, ref_alpha, atol=2e-5)
    assert meta["n_cameras"] == 3 and meta["width"] == W and meta["height"] == H


@pytest.mark.parametrize("degree", [0, 1, 2, 3])
def test_sh_matches_reference(degree):
    s = scene(30, seed=2, sh_degree=3)
    viewmats, ks = cameras(2, W, H)
    colors, _, _ = run(("numpy", "cpu"), s, viewmats, ks, sh_degree=degree)
    ref, _, _ = expected(s, viewmats, ks, sh_degree=degree)
    np.testing.assert_allclose(colors, ref, atol=2e-5)


@pytest.mark.parametrize("mode", ["RGB+D", "RGB+ED", "D", "ED"])
def test_depth_modes_match_reference(mode, target):
    s = scene(30, seed=3)
    viewmats, ks = cameras(2, W, H)
    colors, alphas, _ = run(target, s, viewmats, ks, render_mode=mode)
    rgb, alpha, depth = expected(s, viewmats, ks)
    if mode.endswith("ED"):
        depth = depth / np.maximum(alpha, 1e-10)
    want = np.concatenate([rgb, depth], -1) if mode.startswith("RGB") else depth
    assert colors.shape == want.shape
    np.testing.assert_allclose(colors, want, atol=2e-5, rtol=2e-5)


def test_antialiased_and_eps2d_match_reference():
    s = scene(30, seed=4, scale=(0.005, 0.05))
    viewmats, ks = cameras(2, W, H)
    for kwargs in ({"rasterize_mode": "antialiased"}, {"antialiased": True, "eps2d": 0.1}, {"eps2d": 0.6}):
        colors, _, _ = run(("numpy", "cpu"), s, viewmats, ks, **kwargs)
        ref, _, _ = expected(s, viewmats, ks, antialiased=kwargs.get("antialiased", "rasterize_mode" in kwargs),
                             eps2d=kwargs.get("eps2d", 0.3))
        np.testing.assert_allclose(colors, ref, atol=2e-5)


def test_per_camera_colors():
    s = scene(25, seed=5)
    viewmats, ks = cameras(2, W, H)
    s["colors"] = np.random.default_rng(6).uniform(0, 1, (2, 25, 3)).astype(np.float32)
    colors, _, _ = run(("numpy", "cpu"), s, viewmats, ks)
    ref, _, _ = expected(s, viewmats, ks)
    np.testing.assert_allclose(colors, ref, atol=2e-5)


def test_cameras_render_independently():
    """A batch of cameras gives exactly the images of one call per camera."""
    s = scene(40, seed=7, max_opacity=0.9)
    viewmats, ks = cameras(3, W, H)
    batch, batch_alpha, batch_meta = run(("numpy", "cpu"), s, viewmats, ks, render_mode="RGB+ED")
    for c in range(3):
        one, one_alpha, one_meta = run(("numpy", "cpu"), s, viewmats[c:c + 1], ks[c:c + 1], render_mode="RGB+ED")
        np.testing.assert_array_equal(batch[c:c + 1], one)
        np.testing.assert_array_equal(batch_alpha[c:c + 1], one_alpha)
        for key in ("means2d", "radii", "depths", "conics"):
            np.testing.assert_array_equal(to_numpy(batch_meta[key])[c:c + 1], to_numpy(one_meta[key]))


def test_pixel_centres_are_at_half_integers():
    """gsplat's convention: pixel (i, j) has its centre at (i + 0.5, j + 0.5), so a Gaussian projected to
    (10.5, 7.5) is brightest at pixel (10, 7) and symmetric about it (the original 3DGS puts centres at integers)."""
    viewmat = np.eye(4, dtype=np.float32)[None]
    k = np.array([[[50.0, 0.0, 10.5], [0.0, 50.0, 7.5], [0.0, 0.0, 1.0]]], dtype=np.float32)
    colors, _, meta = tilegrad.rasterization(
        np.array([[0.0, 0.0, 5.0]], np.float32), np.array([[1.0, 0, 0, 0]], np.float32),
        np.array([[0.05, 0.05, 0.05]], np.float32), np.array([0.8], np.float32),
        np.array([[1.0, 1.0, 1.0]], np.float32), viewmat, k, 24, 16)
    img = colors[0, :, :, 0]
    np.testing.assert_allclose(meta["means2d"][0, 0], [10.5, 7.5])
    assert np.unravel_index(np.argmax(img), img.shape) == (7, 10)
    assert img[7, 9] == pytest.approx(img[7, 11], abs=1e-6) and img[6, 10] == pytest.approx(img[8, 10], abs=1e-6)
    assert img[7, 9] < img[7, 10]


def test_opacities_are_clamped_to_one():
    """Documented difference: the library stores logits, so opacities above 1 render as 1 (gsplat multiplies)."""
    s = scene(10, seed=8)
    viewmats, ks = cameras(1, W, H)
    high = dict(s, opacities=np.full(10, 1.7, np.float32))
    one = dict(s, opacities=np.full(10, 1.0, np.float32))
    np.testing.assert_array_equal(run(("numpy", "cpu"), high, viewmats, ks)[0], run(("numpy", "cpu"), one, viewmats,
                                                                                     ks)[0])


def test_meta_summary():
    s = scene(30, seed=9)
    s["means"][0] = [0.0, 0.0, -50.0]  # behind every camera
    viewmats, ks = cameras(2, W, H)
    _, _, meta = run(("numpy", "cpu"), s, viewmats, ks)
    radii, means2d, depths = meta["radii"], meta["means2d"], meta["depths"]
    assert radii.shape == (2, 30, 2) and radii.dtype == np.int32
    assert (radii[:, 0] == 0).all() and (radii[:, 1:] > 0).any()
    for c in range(2):
        p = s["means"] @ viewmats[c, :3, :3].T + viewmats[c, :3, 3]
        np.testing.assert_allclose(depths[c], p[:, 2], rtol=1e-5)
        visible = radii[c, :, 0] > 0
        u = ks[c, 0, 0] * p[:, 0] / p[:, 2] + ks[c, 0, 2]
        np.testing.assert_allclose(means2d[c, visible, 0], u[visible], rtol=1e-4, atol=1e-3)


def test_empty_scene_and_no_camera():
    viewmats, ks = cameras(2, W, H)
    z = np.zeros
    colors, alphas, _ = tilegrad.rasterization(z((0, 3), np.float32), z((0, 4), np.float32), z((0, 3), np.float32),
                                               z(0, np.float32), z((0, 3), np.float32), viewmats, ks, W, H,
                                               backgrounds=np.full((2, 3), 0.25, np.float32))
    assert (colors == 0.25).all() and (alphas == 0).all()
    s = scene(5)
    colors, alphas, _ = tilegrad.rasterization(s["means"], s["quats"], s["scales"], s["opacities"], s["colors"],
                                               viewmats[:0], ks[:0], W, H)
    assert colors.shape == (0, H, W, 3) and alphas.shape == (0, H, W, 1)


def test_float64_inputs_are_converted():
    s = scene(20, seed=10)
    viewmats, ks = cameras(1, W, H)
    a = run(("numpy", "cpu"), s, viewmats, ks)[0]
    b = run(("numpy", "cpu"), {k: v.astype(np.float64) for k, v in s.items()}, viewmats.astype(np.float64),
            ks.astype(np.float64))[0]
    np.testing.assert_array_equal(a, b)


def test_float32_contiguous_inputs_are_not_copied(target):
    """Zero-copy intake: a float32 C-contiguous array reaches the extension as the caller's own memory (PyTorch
    tensors as a DLPack capsule of it)."""
    from tilegrad._arrays import prepare as prepare_any
    framework, device = target

    def prepare(x, name, framework):
        y = prepare_any(x, name, framework)
        if framework == "torch":
            import torch.utils.dlpack
            assert type(y).__name__ == "PyCapsule"
            return torch.utils.dlpack.from_dlpack(y)
        return y

    x = to_framework(np.arange(12, dtype=np.float32).reshape(4, 3), framework, device)
    y = prepare(x, "x", framework)
    if framework == "numpy":
        assert y is x
    elif framework == "torch":
        assert y.data_ptr() == x.data_ptr()
    elif framework == "jax":
        assert y.unsafe_buffer_pointer() == x.unsafe_buffer_pointer()
    else:
        assert y.data.ptr == x.data.ptr
    strided = to_framework(np.arange(24, dtype=np.float64).reshape(4, 6), framework, device)[:, ::2]
    assert to_numpy(prepare(strided, "x", framework)).tolist() == to_numpy(strided).tolist()
