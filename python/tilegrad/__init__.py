"""tilegrad: differentiable 3D Gaussian splatting with deterministic backward passes.

    colors, alphas, meta = tilegrad.rasterization(means, quats, scales, opacities, colors, viewmats, Ks, W, H)

takes NumPy, PyTorch, JAX or CuPy arrays on the CPU or CUDA with gsplat's conventions; gradients come from
tilegrad.rasterization_backward (any framework), tilegrad.torch.rasterization (autograd) or
tilegrad.jax.rasterization (custom_vjp). Also: read_ply / write_ply (3DGS scenes), load_dataset (NeRF-synthetic,
transforms.json, COLMAP) and train (the C++ trainer). See docs/PYTHON.md.
"""

from . import _core
from ._core import Error, InvalidArgument, IoError, OutOfMemory, Unsupported
from ._io import Dataset, DatasetSplit, load_dataset, read_ply, write_ply
from ._rasterization import rasterization, rasterization_backward
from ._train import train, train_options

__version__ = _core.version

__all__ = [
    "Dataset", "DatasetSplit", "Error", "InvalidArgument", "IoError", "OutOfMemory", "Unsupported", "cuda_available", "devices",
    "load_dataset", "rasterization", "rasterization_backward", "read_ply", "train", "train_options", "write_ply",
]


def cuda_available():
    """True when this build has the CUDA backend and a CUDA device is usable."""
    return _core.cuda_available()


def devices():
    """The backends this build can use, e.g. ['cpu', 'cuda']."""
    return ["cpu"] + (["cuda"] if _core.cuda_available() else [])
