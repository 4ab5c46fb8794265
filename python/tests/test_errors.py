"""Wrong input gets a Python exception naming what is wrong (never a crash): shapes, dtypes, frameworks, cameras,
unsupported gsplat options, bad gradients."""

import numpy as np
import pytest

import tilegrad
from conftest import cameras, scene

W, H = 24, 16


@pytest.fixture
def args():
    s = scene(8)
    viewmats, ks = cameras(2, W, H)
    return dict(means=s["means"], quats=s["quats"], scales=s["scales"], opacities=s["opacities"],
                colors=s["colors"], viewmats=viewmats, Ks=ks, width=W, height=H)


def call(args, **changes):
    a = dict(args)
    a.update(changes)
    return tilegrad.rasterization(**a)


@pytest.mark.parametrize("name,shape", [("means", (8, 2)), ("quats", (8, 3)), ("scales", (7, 3)),
                                        ("opacities", (8, 1)), ("colors", (8, 4)), ("colors", (3, 8, 3)),
                                        ("viewmats", (2, 3, 4)), ("Ks", (1, 3, 3))])
def test_wrong_shapes(args, name, shape):
    with pytest.raises(ValueError, match=name):
        call(args, **{name: np.zeros(shape, np.float32)})


def test_batch_dimensions_are_refused(args):
    with pytest.raises(ValueError, match="no batch dimensions"):
        call(args, means=args["means"][None])


def test_sh_needs_whole_bands(args):
    with pytest.raises(ValueError, match="K = 1, 4, 9 or 16"):
        call(args, colors=np.zeros((8, 5, 3), np.float32), sh_degree=1)
    with pytest.raises(ValueError, match="sh_degree 2"):
        call(args, colors=np.zeros((8, 4, 3), np.float32), sh_degree=2)


@pytest.mark.parametrize("dtype", [np.int32, np.bool_, np.complex64])
def test_non_float_dtypes(args, dtype):
    with pytest.raises(TypeError, match="scales must be a floating-point array"):
        call(args, scales=args["scales"].astype(dtype))


def test_not_an_array(args):
    with pytest.raises(TypeError, match="expected a NumPy, PyTorch, JAX or CuPy array"):
        call(args, means=args["means"].tolist())
    with pytest.raises(TypeError, match="width must be an int"):
        call(args, width=24.0)


def test_cameras(args):
    bad = args["viewmats"].copy()
    bad[1, :3, :3] *= 2.0
    with pytest.raises(ValueError, match=r"viewmats\[1\].*orthonormal"):
        call(args, viewmats=bad)
    bad = args["viewmats"].copy()
    bad[0, 3, 2] = 1.0
    with pytest.raises(ValueError, match=r"viewmats\[0\].*last row"):
        call(args, viewmats=bad)
    skew = args["Ks"].copy()
    skew[0, 0, 1] = 0.5
    with pytest.raises(ValueError, match="no skew"):
        call(args, Ks=skew)
    with pytest.raises(ValueError, match="near"):
        call(args, near_plane=2.0, far_plane=1.0)


@pytest.mark.parametrize("option,value", [("radius_clip", 1.0), ("tile_size", 8), ("sparse_grad", True),
                                          ("distributed", True), ("camera_model", "fisheye"),
                                          ("covars", np.zeros((8, 3, 3), np.float32))])
def test_unsupported_gsplat_options(args, option, value):
    with pytest.raises(NotImplementedError, match=option):
        call(args, **{option: value})


def test_bad_settings(args):
    with pytest.raises(ValueError, match="render_mode"):
        call(args, render_mode="RGBD")
    with pytest.raises(ValueError, match="accumulation"):
        call(args, accumulation="fast")
    with pytest.raises(ValueError, match="eps2d"):
        call(args, eps2d=-1.0)
    with pytest.raises(ValueError, match="backgrounds"):
        call(args, backgrounds=np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match="backgrounds"):
        call(args, backgrounds=np.zeros((3, 3), np.float32))


def test_bad_gradients(args):
    colors, alphas, meta = call(args)
    with pytest.raises(ValueError, match="v_colors"):
        tilegrad.rasterization_backward(meta, colors[:1])
    with pytest.raises(ValueError, match="v_alphas"):
        tilegrad.rasterization_backward(meta, colors, alphas[..., 0])
    nan = np.ones_like(colors)
    nan[0, 3, 4, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        tilegrad.rasterization_backward(meta, nan)
    with pytest.raises(TypeError, match="v_colors must be a floating-point array"):
        tilegrad.rasterization_backward(meta, np.ones(colors.shape, np.int64))


def test_backward_twice_and_after_the_inputs_change(args):
    """The backward is repeatable, and reads the forward's own copies of the converted parameters."""
    a = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
    colors, _, meta = call(a)
    g1 = tilegrad.rasterization_backward(meta, np.ones_like(colors))
    g2 = tilegrad.rasterization_backward(meta, np.ones_like(colors))
    for k in g1:
        np.testing.assert_array_equal(g1[k], g2[k])


def test_io_errors(tmp_path):
    with pytest.raises(OSError, match="missing.ply"):
        tilegrad.read_ply(tmp_path / "missing.ply")
    (tmp_path / "bad.ply").write_text("ply\nformat ascii 1.0\nend_header\n")
    with pytest.raises(tilegrad.IoError):
        tilegrad.read_ply(tmp_path / "bad.ply")
    with pytest.raises(OSError, match="nothing"):
        tilegrad.load_dataset(tmp_path / "nothing")
    with pytest.raises(ValueError, match="sh must have K"):
        tilegrad.write_ply(tmp_path / "x.ply", np.zeros((2, 3)), np.zeros((2, 4)), np.zeros((2, 3)), np.zeros(2),
                           np.zeros((2, 2, 3)))


def test_library_errors_are_the_python_exceptions_they_name():
    assert issubclass(tilegrad.InvalidArgument, ValueError)
    assert issubclass(tilegrad.IoError, OSError)
    assert issubclass(tilegrad.OutOfMemory, MemoryError)
    assert issubclass(tilegrad.Unsupported, RuntimeError)
