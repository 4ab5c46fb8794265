"""Shared helpers of the Python tests: small random scenes and cameras in gsplat's conventions, the frameworks
and devices present on this machine, and conversions between them."""

import importlib.util
import os

# JAX on a GPU would otherwise take most of its memory at the first array, starving PyTorch and the library.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

import tilegrad

ROOT = Path(__file__).resolve().parents[2]


def have(module):
    return importlib.util.find_spec(module) is not None


def targets():
    """(framework, device) pairs available here: NumPy on the CPU always; PyTorch, JAX and CuPy when installed."""
    out = [("numpy", "cpu")]
    if have("torch"):
        import torch
        out.append(("torch", "cpu"))
        if torch.cuda.is_available() and tilegrad.cuda_available():
            out.append(("torch", "cuda"))
    if have("jax"):
        import jax
        out.append(("jax", "cpu"))
        if tilegrad.cuda_available() and any(d.platform == "gpu" for d in jax.devices()):
            out.append(("jax", "cuda"))
    if have("cupy") and tilegrad.cuda_available():
        out.append(("cupy", "cuda"))
    return out


TARGETS = targets()
TARGET_IDS = [f"{f}-{d}" for f, d in TARGETS]


def to_framework(x, framework, device):
    x = np.asarray(x)
    if framework == "numpy":
        return x
    if framework == "torch":
        import torch
        return torch.from_numpy(np.ascontiguousarray(x)).to(device)
    if framework == "jax":
        import jax
        return jax.device_put(x, jax.devices("cpu" if device == "cpu" else "gpu")[0])
    import cupy
    return cupy.asarray(x)


def to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    module = type(x).__module__.split(".")[0]
    if module == "torch":
        return x.detach().cpu().numpy()
    if module == "cupy":
        return x.get()
    return np.asarray(x)


def look_at(eye, target=(0.0, 0.0, 0.0), up=(0.0, -1.0, 0.0)):
    """World-to-camera [4, 4] in OpenCV axes (x right, y down, z forward) for a camera at `eye`."""
    eye, target, up = (np.asarray(a, dtype=np.float64) for a in (eye, target, up))
    forward = target - eye
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, up)
    right /= np.linalg.norm(right)
    down = np.cross(forward, right)
    rot = np.stack([right, down, forward])
    viewmat = np.eye(4)
    viewmat[:3, :3] = rot
    viewmat[:3, 3] = -rot @ eye
    return viewmat.astype(np.float32)


def cameras(count, width, height, distance=4.0, focal=None, offset=(0.0, 0.0)):
    """`count` cameras around the origin: viewmats [C, 4, 4], Ks [C, 3, 3]."""
    focal = focal or 1.1 * width
    views, ks = [], []
    for c in range(count):
        angle = 0.6 * c
        eye = (distance * np.sin(angle), 0.3 * c, -distance * np.cos(angle))
        views.append(look_at(eye))
        ks.append([[focal, 0, 0.5 * width + offset[0]], [0, focal, 0.5 * height + offset[1]], [0, 0, 1]])
    return np.stack(views), np.asarray(ks, dtype=np.float32)


def scene(n, seed=0, sh_degree=None, max_opacity=0.34, scale=(0.05, 0.3)):
    """Random Gaussians in gsplat's conventions (activated scales and opacities); colors [N, 3] or SH [N, K, 3]."""
    rng = np.random.default_rng(seed)
    means = rng.uniform(-1.0, 1.0, (n, 3))
    quats = rng.normal(size=(n, 4))
    scales = rng.uniform(scale[0], scale[1], (n, 3))
    opacities = rng.uniform(0.05, max_opacity, n)
    if sh_degree is None:
        colors = rng.uniform(0.0, 1.0, (n, 3))
    else:
        colors = rng.normal(0.0, 0.3, (n, (sh_degree + 1) ** 2, 3))
        colors[:, 0, :] += 1.0
    return {k: np.asarray(v, dtype=np.float32) for k, v in
            dict(means=means, quats=quats, scales=scales, opacities=opacities, colors=colors).items()}


def write_png(path, rgba):
    """A minimal 8-bit RGBA PNG writer (zlib + struct), for test datasets."""
    rgba = np.ascontiguousarray(rgba, dtype=np.uint8)
    h, w, _ = rgba.shape
    raw = b"".join(b"\x00" + rgba[y].tobytes() for y in range(h))

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    Path(path).write_bytes(png)


def synthetic_dataset(folder, width=40, height=32, views=(3, 2), seed=0):
    """A NeRF-synthetic folder (transforms_train/test.json + RGBA PNGs); returns the camera-to-world matrices
    (OpenGL axes) and images per split."""
    import json
    rng = np.random.default_rng(seed)
    folder = Path(folder)
    out = {}
    angle_x = 0.7
    for split, count in zip(("train", "test"), views):
        (folder / split).mkdir(parents=True, exist_ok=True)
        frames, mats, images = [], [], []
        for i in range(count):
            a = 0.5 * i + (0.25 if split == "test" else 0.0)
            eye = np.array([3.0 * np.sin(a), 0.4, 3.0 * np.cos(a)])
            back = eye / np.linalg.norm(eye)  # OpenGL: the camera looks along -z
            right = np.cross([0.0, 1.0, 0.0], back)
            right /= np.linalg.norm(right)
            up = np.cross(back, right)
            c2w = np.eye(4)
            c2w[:3, 0], c2w[:3, 1], c2w[:3, 2], c2w[:3, 3] = right, up, back, eye
            image = rng.integers(0, 256, (height, width, 4), dtype=np.uint8)
            write_png(folder / split / f"r_{i}.png", image)
            frames.append({"file_path": f"./{split}/r_{i}", "transform_matrix": c2w.tolist()})
            mats.append(c2w)
            images.append(image)
        (folder / f"transforms_{split}.json").write_text(json.dumps({"camera_angle_x": angle_x, "frames": frames}))
        out[split] = (np.asarray(mats), images)
    out["focal"] = 0.5 * width / np.tan(0.5 * angle_x)
    return out


def cli_binary():
    """The `tilegrad` command of a CMake build of this checkout (TILEGRAD_CLI overrides), or None."""
    if os.environ.get("TILEGRAD_CLI"):
        return os.environ["TILEGRAD_CLI"]
    for build in sorted((ROOT / "build").glob("*/apps/tilegrad/tilegrad")):
        if os.access(build, os.X_OK):
            return str(build)
    return None


@pytest.fixture(params=TARGETS, ids=TARGET_IDS)
def target(request):
    return request.param
