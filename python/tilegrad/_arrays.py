"""Arrays of any DLPack framework in and out of the extension.

Inputs are made float32 and C-contiguous with the caller's own framework (no copy when they already are), and
handed to the extension through DLPack; outputs come back as the caller's framework's arrays over the library's
buffers (no copy). The library computes on the CUDA default (legacy) stream: PyTorch's default stream and CuPy's
null stream are ordered with it; other streams, and JAX, are synchronised around each call (StreamGuard).

PyTorch tensors cross as DLPack capsules (torch.utils.dlpack.to_dlpack / from_dlpack of a capsule) rather than
through the __dlpack__ protocol: the protocol's Python-level stream negotiation (a current-stream lookup per array
and keyword retries) cost several microseconds per array and call, and orders nothing here, since StreamGuard has
already ordered the library's stream with the caller's.
"""

import numpy as np

from . import _core


_torch_dlpack = None  # torch.utils.dlpack, imported on the first PyTorch call (the core module needs no PyTorch)


def _torch():
    global _torch_dlpack
    if _torch_dlpack is None:
        import torch.utils.dlpack
        _torch_dlpack = torch.utils.dlpack
    return _torch_dlpack


_FRAMEWORKS = {}  # array type -> its framework, for the types seen so far (framework_of runs per array and call)


def framework_of(x):
    """'numpy', 'torch', 'jax' or 'cupy' for an array of that framework; TypeError otherwise."""
    framework = _FRAMEWORKS.get(type(x))
    if framework is None:
        framework = _FRAMEWORKS[type(x)] = _framework_of_type(x)
    return framework


def _framework_of_type(x):
    root = type(x).__module__.split(".")[0]
    if root == "numpy" and isinstance(x, np.ndarray):
        return "numpy"
    if root == "torch":
        return "torch"
    if root in ("jax", "jaxlib"):
        return "jax"
    if root == "cupy":
        return "cupy"
    raise TypeError(
        f"expected a NumPy, PyTorch, JAX or CuPy array, got {type(x).__module__}.{type(x).__name__}")


def _check_float(x, name, is_float):
    """TypeError naming the array unless its dtype is a real floating type."""
    if not is_float:
        raise TypeError(f"{name} must be a floating-point array (float32 is used without a copy), "
                        f"got dtype {x.dtype}")


def prepare(x, name, framework):
    """x as a float32, C-contiguous array of `framework` that exports DLPack (detached from autograd), or for
    PyTorch a DLPack capsule of such a tensor (see the module's docstring)."""
    if framework_of(x) != framework:
        raise TypeError(f"{name} is a {framework_of(x)} array but the Gaussians are {framework} arrays "
                        "(one framework per call)")
    if framework == "numpy":
        _check_float(x, name, x.dtype.kind == "f")
        return np.ascontiguousarray(x, dtype=np.float32)
    if framework == "torch":
        import torch
        if x.dtype is torch.float32 and x.is_contiguous():  # the common case: no conversion
            return _torch().to_dlpack(x.detach())
        _check_float(x, name, x.dtype.is_floating_point)
        return _torch().to_dlpack(x.detach().to(torch.float32).contiguous())
    if framework == "jax":
        import jax.numpy as jnp
        _check_float(x, name, jnp.issubdtype(x.dtype, jnp.floating))
        x = x.astype(jnp.float32)
        x.block_until_ready()
        return x
    import cupy
    _check_float(x, name, x.dtype.kind == "f")
    return cupy.ascontiguousarray(x, dtype=cupy.float32)


def to_host(x, name):
    """A float32 host array of a small array of any framework (cameras, backgrounds): a NumPy copy (or view), or
    for a float32, C-contiguous PyTorch CPU tensor its DLPack capsule (no conversion)."""
    framework = framework_of(x)
    if framework == "torch":
        import torch
        x = x.detach()
        if x.dtype is torch.float32 and not x.is_cuda and x.is_contiguous():
            return _torch().to_dlpack(x)
        x = x.cpu().numpy()
    elif framework == "cupy":
        x = x.get()
    else:
        x = np.asarray(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{name} must be a floating-point array, got dtype {x.dtype}")
    return np.ascontiguousarray(x, dtype=np.float32)


def device_of(x, framework):
    """'cpu' or 'cuda'."""
    if framework == "numpy":
        return "cpu"
    if framework == "torch":
        return "cuda" if x.is_cuda else "cpu"
    if framework == "cupy":
        return "cuda"
    return "cuda" if any(d.platform == "gpu" for d in x.devices()) else "cpu"


def wrap(array, framework):
    """An extension output (DLPack) as an array of `framework`, without a copy."""
    if framework == "numpy":
        return np.from_dlpack(array)
    if framework == "torch":
        return _torch().from_dlpack(array.__dlpack__())
    if framework == "jax":
        import jax.dlpack
        return jax.dlpack.from_dlpack(array)
    import cupy
    return cupy.from_dlpack(array)


def _torch_stream_is_default():
    """Whether PyTorch's current stream on the current CUDA device is the legacy default stream (the library's).

    torch._C._cuda_getCurrentRawStream gives the stream's handle as an int; torch.cuda.current_stream() builds a
    Stream object through several Python calls, a few microseconds on the host before the first kernel of every
    call. The public call is the fallback where the private one is missing."""
    import torch
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is None:
        return torch.cuda.current_stream().cuda_stream == 0
    return raw(torch.cuda.current_device()) == 0


class StreamGuard:
    """Orders the library's work (CUDA legacy default stream) with the caller's framework around one call."""

    def __init__(self, framework, device):
        self.sync = False
        if device != "cuda":
            return
        if framework == "torch":
            self.sync = not _torch_stream_is_default()
            if self.sync:
                import torch
                torch.cuda.current_stream().synchronize()
        elif framework == "cupy":
            import cupy
            self.sync = cupy.cuda.get_current_stream().ptr != 0
            if self.sync:
                cupy.cuda.get_current_stream().synchronize()
        else:  # JAX runs on streams of its own; its inputs were made ready in prepare()
            self.sync = True

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.sync:
            _core.synchronize("cuda")
        return False
