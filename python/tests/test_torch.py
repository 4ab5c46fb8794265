"""tilegrad.torch.rasterization (torch.autograd.Function), where PyTorch is installed: autograd gradients equal the
framework-free backward (the C++ reference) on the CPU and CUDA, CUDA agrees with the CPU, meta["means2d"] gets the
view-space gradient (.grad, .absgrad) for densification, dtypes and requires_grad are honoured."""

import numpy as np
import pytest

import tilegrad
from conftest import cameras, scene

torch = pytest.importorskip("torch")
import tilegrad.torch as tgt  # noqa: E402

W, H = 40, 32
DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() and tilegrad.cuda_available() else [])


def tensors(device, seed=0, sh_degree=None, n=50, dtype=torch.float32):
    s = scene(n, seed=seed, sh_degree=sh_degree, max_opacity=0.9)
    return {k: torch.tensor(v, device=device, dtype=dtype, requires_grad=True) for k, v in s.items()}


def cams(device, count=2):
    viewmats, ks = cameras(count, W, H)
    return torch.tensor(viewmats, device=device), torch.tensor(ks, device=device)


def autograd_vs_backward(device, mode="RGB", sh_degree=None, absgrad=False, with_alpha=True):
    t = tensors(device, sh_degree=sh_degree)
    viewmats, ks = cams(device)
    bg = torch.tensor([[0.3, 0.2, 0.1], [0.0, 1.0, 0.5]], device=device, requires_grad=mode.startswith("RGB"))
    colors, alphas, meta = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"],
                                             viewmats, ks, W, H, sh_degree=sh_degree, render_mode=mode,
                                             backgrounds=bg, absgrad=absgrad)
    meta["means2d"].retain_grad()  # what gsplat's strategies call (a no-op on this leaf)
    gen = torch.Generator(device="cpu").manual_seed(1)
    wc = torch.rand(colors.shape, generator=gen).to(device) - 0.5
    wa = torch.rand(alphas.shape, generator=gen).to(device) - 0.5
    loss = (colors * wc).sum() + ((alphas * wa).sum() if with_alpha else 0)
    loss.backward()
    # The same call through the framework-free API.
    arrays = {k: v.detach() for k, v in t.items()}
    _, _, ref_meta = tilegrad.rasterization(arrays["means"], arrays["quats"], arrays["scales"], arrays["opacities"],
                                            arrays["colors"], viewmats, ks, W, H, sh_degree=sh_degree,
                                            render_mode=mode, backgrounds=bg.detach(), absgrad=absgrad)
    ref = tilegrad.rasterization_backward(ref_meta, wc, wa if with_alpha else None, backgrounds=bg.requires_grad)
    for name, tensor in t.items():
        assert torch.equal(tensor.grad, ref[name]), name
    assert torch.equal(meta["means2d"].detach(), ref_meta["means2d"])
    assert torch.equal(meta["radii"], ref_meta["radii"])
    assert torch.equal(meta["means2d"].grad, ref["means2d"])
    if bg.requires_grad:
        torch.testing.assert_close(bg.grad, ref["backgrounds"])
    if absgrad:
        assert torch.equal(meta["means2d"].absgrad, ref["means2d_abs"])
    return t, meta


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("mode", ["RGB", "RGB+ED", "D"])
def test_autograd_equals_backward(device, mode):
    autograd_vs_backward(device, mode)


@pytest.mark.parametrize("device", DEVICES)
def test_sh_and_absgrad(device):
    t, meta = autograd_vs_backward(device, sh_degree=3, absgrad=True)
    assert meta["radii"].shape == (2, 50, 2) and (meta["radii"] > 0).any()
    assert meta["means2d"].shape == (2, 50, 2)
    assert (meta["means2d"].absgrad >= meta["means2d"].grad.abs() - 1e-6).all()


@pytest.mark.skipif("cuda" not in DEVICES, reason="no CUDA device (or a CPU-only tilegrad build)")
def test_cuda_agrees_with_cpu():
    outs = {}
    for device in ("cpu", "cuda"):
        t = tensors(device, seed=3, sh_degree=2)
        viewmats, ks = cams(device, 3)
        colors, alphas, meta = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"],
                                                 viewmats, ks, W, H, sh_degree=2, render_mode="RGB+D")
        weights = torch.linspace(-1, 1, colors.numel()).reshape(colors.shape).to(device)
        ((colors * weights).sum() + alphas.sum()).backward()
        outs[device] = [colors, alphas, meta["means2d"].grad] + [t[k].grad for k in sorted(t)]
    for a, b in zip(outs["cpu"], outs["cuda"]):
        torch.testing.assert_close(b.cpu(), a, rtol=1e-3, atol=1e-4)


@pytest.mark.skipif("cuda" not in DEVICES, reason="no CUDA device (or a CPU-only tilegrad build)")
def test_cuda_deterministic_and_device_errors():
    t = tensors("cuda", seed=4)
    viewmats, ks = cams("cuda")
    grads = []
    for _ in range(2):
        for v in t.values():
            v.grad = None
        colors, _, _ = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"],
                                         viewmats, ks, W, H)
        colors.sum().backward()
        grads.append([v.grad.clone() for v in t.values()])
    for a, b in zip(*grads):
        assert torch.equal(a, b)
    with pytest.raises(ValueError, match="quats is on cpu"):
        tgt.rasterization(t["means"], t["quats"].detach().cpu(), t["scales"], t["opacities"], t["colors"],
                          viewmats, ks, W, H)
    # A non-default stream is ordered with the library's work.
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        colors, _, _ = tgt.rasterization(t["means"] * 1.0, t["quats"], t["scales"], t["opacities"], t["colors"],
                                         viewmats, ks, W, H)
        total = colors.sum()
    torch.cuda.synchronize()
    ref, _, _ = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"], viewmats, ks, W,
                                  H)
    torch.testing.assert_close(total, ref.sum())


@pytest.mark.parametrize("device", DEVICES)
def test_dtypes_and_requires_grad(device):
    t = tensors(device, seed=5, dtype=torch.float64)
    t["quats"].requires_grad_(False)
    viewmats, ks = cams(device)
    colors, alphas, _ = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"],
                                          viewmats, ks, W, H)
    assert colors.dtype == torch.float32
    colors.sum().backward()
    assert t["means"].grad.dtype == torch.float64 and t["quats"].grad is None
    # Only alphas used: the colour gradient is zero, the others flow through alpha.
    for v in t.values():
        v.grad = None
    _, alphas, _ = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"], viewmats, ks,
                                     W, H)
    alphas.sum().backward()
    assert (t["colors"].grad == 0).all() and t["opacities"].grad.abs().sum() > 0


def test_viewmats_gradient_is_refused():
    t = tensors("cpu")
    viewmats, ks = cams("cpu")
    with pytest.raises(NotImplementedError, match="viewmats"):
        tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"],
                          viewmats.requires_grad_(), ks, W, H)


def test_gradients_reach_the_leaves_without_copies(monkeypatch):
    """Each iteration's gradients become the leaves' .grad (and meta["means2d"].grad) as the library's own buffers:
    autograd takes the tensors tilegrad.torch returns instead of copying them (nothing else holds them)."""
    t = tensors("cpu", n=20, sh_degree=3)
    viewmats, ks = cams("cpu", count=1)
    returned = {}
    backward = tgt._rasterization_backward

    def spy(*args, **kwargs):
        grads = backward(*args, **kwargs)
        returned.update({name: g.data_ptr() for name, g in grads.items()})
        return grads

    monkeypatch.setattr(tgt, "_rasterization_backward", spy)
    colors, _, meta = tgt.rasterization(t["means"], t["quats"], t["scales"], t["opacities"], t["colors"], viewmats,
                                        ks, W, H, sh_degree=3)
    colors.sum().backward()
    for name, tensor in t.items():
        assert tensor.grad is not None and tensor.grad.data_ptr() == returned[name], name
    assert meta["means2d"].grad.data_ptr() == returned["means2d"]


def test_measure_overhead_script(tmp_path):
    """python/examples/measure_overhead.py end to end on a small scene (PyTorch's default device here): the headline
    figures, the breakdown whose parts add up to the headline difference, and both profiler summaries."""
    import json
    import os
    import subprocess
    import sys

    from conftest import ROOT, synthetic_dataset

    synthetic_dataset(tmp_path / "data", width=40, height=32, views=(1, 2))
    s = scene(80, seed=0, sh_degree=3, max_opacity=0.9)
    tilegrad.write_ply(tmp_path / "scene.ply", s["means"], s["quats"], np.log(s["scales"]),
                       np.log(s["opacities"]) - np.log1p(-s["opacities"]), s["colors"])
    out = tmp_path / "overhead.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))  # the tilegrad this test imports
    subprocess.run([sys.executable, str(ROOT / "python/examples/measure_overhead.py"), "--ply",
                    str(tmp_path / "scene.ply"), "--data", str(tmp_path / "data"), "--views", "2", "--reps", "3",
                    "--warmup", "1", "--trace", str(tmp_path / "trace"), "--out", str(out)],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    r = json.loads(out.read_text())
    assert r["cameras"] == 2 and r["python_ms_median"] > 0 and r["cpp_ms_median"] > 0
    phases = r["phases_ms_median"]
    assert phases["torch"]["total"] == r["python_ms_median"]
    assert sorted(phases) == sorted(r["isolated_ms_median"]) == ["cpp_binding", "cpp_library", "python", "torch"]
    parts = sum(r["breakdown_ms"].values())
    assert abs(parts - (phases["torch"]["total"] - phases["cpp_library"]["total"])) < 1e-9
    for key in ("trace", "trace_cpp"):
        assert "error" not in r[key], r[key]
        assert os.path.exists(r[key]["trace"])
    if torch.cuda.is_available():
        for key in ("trace", "trace_cpp"):
            assert r[key]["kernels_per_iteration"] > 0 and r[key]["runtime_calls_per_iteration"]
