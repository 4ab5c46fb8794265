"""3DGS .ply round trips, dataset loading in gsplat's camera conventions, the trainer from Python, and images
equal to the `tilegrad render` command's (the C++ reference) on every framework and device present."""

import subprocess

import numpy as np
import pytest

import tilegrad
from conftest import cli_binary, scene, synthetic_dataset, to_framework, to_numpy


def write_scene(path, n=30, seed=0):
    s = scene(n, seed=seed, sh_degree=2, max_opacity=0.9)
    log_scales = np.log(s["scales"])
    logits = np.log(s["opacities"]) - np.log1p(-s["opacities"])
    tilegrad.write_ply(path, s["means"], s["quats"], log_scales, logits, s["colors"])
    return s, log_scales, logits


def test_ply_round_trip(tmp_path):
    s, log_scales, logits = write_scene(tmp_path / "scene.ply")
    back = tilegrad.read_ply(tmp_path / "scene.ply")
    assert back["sh_degree"] == 2
    np.testing.assert_array_equal(back["means"], s["means"])
    np.testing.assert_array_equal(back["quats"], s["quats"])
    np.testing.assert_array_equal(back["log_scales"], log_scales.astype(np.float32))
    np.testing.assert_array_equal(back["opacity_logits"], logits.astype(np.float32))
    np.testing.assert_array_equal(back["sh"], s["colors"])


def test_dataset_cameras_follow_gsplat_conventions(tmp_path):
    made = synthetic_dataset(tmp_path)
    data = tilegrad.load_dataset(tmp_path)
    assert data.kind == "nerf-synthetic" and data.has_alpha
    assert len(data.train) == 3 and len(data.test) == 2
    assert (data.train.width, data.train.height) == (40, 32)
    for split in ("train", "test"):
        c2w_gl, images = made[split]
        views = getattr(data, split)
        for c in range(len(views)):
            # OpenGL camera-to-world -> OpenCV world-to-camera: flip y and z, invert.
            c2w_cv = c2w_gl[c] @ np.diag([1.0, -1.0, -1.0, 1.0])
            np.testing.assert_allclose(views.viewmats[c], np.linalg.inv(c2w_cv), atol=1e-5)
            np.testing.assert_allclose(views.Ks[c], [[made["focal"], 0, 20], [0, made["focal"], 16], [0, 0, 1]],
                                       rtol=1e-6)
            # Images are premultiplied RGBA8.
            alpha = images[c][..., 3:4].astype(np.float64) / 255.0
            expect = np.round(images[c][..., :3] * alpha).astype(np.int64)
            assert np.abs(views.images[c][..., :3].astype(np.int64) - expect).max() <= 1
    targets = data.test.targets(background=(1.0, 1.0, 1.0))
    assert targets.shape == (2, 32, 40, 3) and targets.dtype == np.float32
    half = tilegrad.load_dataset(tmp_path, downscale=2, images=False)
    assert half.train.images[0] is None and half.train.widths[0] == 20
    np.testing.assert_allclose(half.train.Ks[0, 0, 0], made["focal"] / 2, rtol=1e-6)


def test_train_from_python(tmp_path):
    synthetic_dataset(tmp_path / "data")
    reports = []
    summary = tilegrad.train(tmp_path / "data", tmp_path / "run", progress=reports.append, iters=6, log_every=2,
                             init_points=300, device="cpu", sh_degree=1, renders=False, seed=3)
    assert summary["finished"] and summary["iterations"] == 6 and summary["split"] == "test"
    assert [r["iteration"] for r in reports] == [2, 4, 6]
    assert reports[-1]["gaussians"] > 0 and np.isfinite(reports[-1]["loss"])
    assert [r["densify_events"] for r in reports] == [0, 0, 0]  # densification starts later by default
    for name in ("point_cloud.ply", "config.json", "cameras.json", "train_log.jsonl", "metrics.json",
                 "checkpoint.bin"):
        assert (tmp_path / "run" / name).exists(), name
    trained = tilegrad.read_ply(tmp_path / "run" / "point_cloud.ply")
    assert trained["sh_degree"] == 1 and len(trained["means"]) == summary["gaussians"]

    # A callback returning False stops the run after a checkpoint; resume=True continues it.
    stopped = tilegrad.train(tmp_path / "data", tmp_path / "run2", progress=lambda p: False, iters=6, log_every=2,
                             init_points=300, device="cpu", sh_degree=1, renders=False)
    assert not stopped["finished"]
    resumed = tilegrad.train(tmp_path / "data", tmp_path / "run2", iters=6, log_every=2, init_points=300,
                             device="cpu", sh_degree=1, renders=False, resume=True)
    assert resumed["finished"] and resumed["iterations"] == 6

    with pytest.raises(ValueError, match="unknown option 'itres'"):
        tilegrad.train(tmp_path / "data", tmp_path / "run3", itres=5)
    # The command's own parser reads the options: its messages and checks.
    with pytest.raises(ValueError, match="--iters: 'many' is not a number"):
        tilegrad.train(tmp_path / "data", tmp_path / "run3", iters="many")
    with pytest.raises(ValueError, match="--iters: must be > 0, got 0"):
        tilegrad.train(tmp_path / "data", tmp_path / "run3", iters=0)
    with pytest.raises(ValueError, match="--eval-at: 9 is not an iteration of this run"):
        tilegrad.train(tmp_path / "data", tmp_path / "run3", iters=4, eval_at=[2, 9])
    with pytest.raises(ValueError, match="is a switch"):
        tilegrad.train(tmp_path / "data", tmp_path / "run3", overwrite="yes")
    assert {"iters", "eval_at", "undistort", "test_every", "renders", "overwrite"} <= set(tilegrad.train_options())

    # Like the command, an earlier run is refused unless resumed or overwritten; log() gets the command's lines.
    with pytest.raises(OSError, match="--overwrite"):
        tilegrad.train(tmp_path / "data", tmp_path / "run", iters=6, device="cpu")
    lines = []
    again = tilegrad.train(tmp_path / "data", tmp_path / "run", log=lines.append, iters=4, log_every=2, eval_at=[2],
                           init_points=300, device="cpu", sh_degree=1, renders=False, overwrite=True)
    assert again["finished"] and again["iterations"] == 4
    assert any(l.startswith("[eval] iteration 2") for l in lines) and any(l.startswith("trained 4") for l in lines)
    with pytest.raises(ZeroDivisionError):
        tilegrad.train(tmp_path / "data", tmp_path / "run4", progress=lambda p: 1 / 0, iters=4, log_every=2,
                       init_points=100, device="cpu", renders=False)


def test_train_on_simulated_ranks_from_python(tmp_path):
    """The rank options of `tilegrad train` reach tilegrad.train: two simulated ranks with the Gaussians split
    between them, periodic evaluation and save included (they need both ranks), and the per-rank report."""
    synthetic_dataset(tmp_path / "data")
    lines = []
    summary = tilegrad.train(tmp_path / "data", tmp_path / "run", log=lines.append, iters=4, log_every=2,
                             eval_at=[2], save_at=[2], ranks=2, parallel="gaussians", init_points=300, sh_degree=1,
                             renders=False)
    assert summary["finished"] and summary["iterations"] == 4
    assert summary["distributed"]["ranks"] == 2 and summary["distributed"]["mode"] == "gaussians"
    assert len(summary["distributed"]["per_rank"]) == 2
    assert any(l == "2 simulated CPU ranks, gaussians parallel" for l in lines)
    assert any(l.startswith("[eval] iteration 2") for l in lines) and any(l.startswith("rank 1: ") for l in lines)
    saved = tilegrad.read_ply(tmp_path / "run" / "point_cloud_2.ply")
    assert len(saved["means"]) > 0
    with pytest.raises(ValueError, match="--ranks simulates ranks on the CPU"):
        tilegrad.train(tmp_path / "data", tmp_path / "run2", ranks=2, device="cuda")
    assert {"gpus", "ranks", "parallel", "scale_for_views"} <= set(tilegrad.train_options())


@pytest.mark.skipif(cli_binary() is None, reason="no `tilegrad` command built in build/*/ (set TILEGRAD_CLI)")
def test_image_equals_cli_render(tmp_path, target):
    """A known .ply rendered from a dataset's cameras equals `tilegrad render --pfm` (the C++ library called by the
    command) on the same device."""
    framework, device = target
    synthetic_dataset(tmp_path / "data", width=48, height=36)
    write_scene(tmp_path / "scene.ply", n=60, seed=4)
    background = "0.1,0.6,0.3"
    subprocess.run([cli_binary(), "render", "--ply", str(tmp_path / "scene.ply"), "--dataset",
                    str(tmp_path / "data"), "--split", "test", "--out", str(tmp_path / "cli"), "--pfm",
                    "--background", background, "--device", device], check=True, capture_output=True)
    ply = tilegrad.read_ply(tmp_path / "scene.ply")
    data = tilegrad.load_dataset(tmp_path / "data", images=False)
    conv = lambda x: to_framework(np.asarray(x, np.float32), framework, device)  # noqa: E731
    bg = np.tile(np.array([[0.1, 0.6, 0.3]], np.float32), (len(data.test), 1))
    colors, _, _ = tilegrad.rasterization(
        conv(ply["means"]), conv(ply["quats"]), conv(np.exp(ply["log_scales"])),
        conv(1.0 / (1.0 + np.exp(-ply["opacity_logits"]))), conv(ply["sh"]), conv(data.test.viewmats),
        conv(data.test.Ks), data.test.width, data.test.height, sh_degree=ply["sh_degree"], backgrounds=conv(bg))
    colors = to_numpy(colors)
    for c, name in enumerate(data.test.names):
        cli = read_pfm(tmp_path / "cli" / (name.replace("/", "_").removesuffix(".png") + ".pfm"))
        assert np.abs(cli - colors[c]).max() <= 1e-5, name
        assert cli.std() > 0.05  # the scene is in view


def read_pfm(path):
    data = path.read_bytes()
    header, rest = data.split(b"\n", 1)
    size, rest = rest.split(b"\n", 1)
    scale, pixels = rest.split(b"\n", 1)
    w, h = map(int, size.split())
    image = np.frombuffer(pixels, dtype="<f4").reshape(h, w, 3 if header == b"PF" else 1)
    return image[::-1]  # PFM stores the bottom row first


@pytest.mark.skipif(cli_binary() is None, reason="no `tilegrad` command built in build/*/ (set TILEGRAD_CLI)")
def test_distorted_capture_loads_as_pinhole_views_with_masks(tmp_path):
    """A fisheye COLMAP capture (made by `tilegrad make-scene --lens`) loads undistorted into pinhole cameras; the
    full-frame mode marks the pixels without a source in `valids`, crop mode has none; capture options are the
    command's (names, checks, messages)."""
    subprocess.run([cli_binary(), "make-scene", "--out", str(tmp_path / "cap"), "--width", "64", "--height", "48",
                    "--train-views", "3", "--test-views", "0", "--lens", "OPENCV_FISHEYE", "--lens-params", "0.1",
                    "0.02", "0", "0", "--supersample", "1", "--device", "cpu"], check=True, capture_output=True)
    crop = tilegrad.load_dataset(tmp_path / "cap", test_every=0)
    full = tilegrad.load_dataset(tmp_path / "cap", test_every=0, undistort="full")
    assert len(crop.train) == 3 and len(full.train) == 3 and any("undistort" in n for n in full.notes)
    assert all(v is None for v in crop.train.valids)
    for c in range(3):
        valid = full.train.valids[c]
        assert valid.shape == (full.train.heights[c], full.train.widths[c]) and valid.dtype == np.uint8
        assert 0 < valid.sum() < valid.size  # the corners of a fisheye's full frame have no source pixel
        K = full.train.Ks[c]
        assert K[0, 1] == 0 and K[2, 2] == 1  # pinhole intrinsics
    with pytest.raises(ValueError, match="--undistort"):
        tilegrad.load_dataset(tmp_path / "cap", undistort="sideways")
