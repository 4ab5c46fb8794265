"""tilegrad.jax.rasterization (jax.custom_vjp), where JAX is installed: jax.grad equals the framework-free
backward; staging under jax.jit is refused with a clear error."""

import numpy as np
import pytest

import tilegrad
from conftest import cameras, scene

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
import tilegrad.jax as tgj  # noqa: E402

W, H = 32, 24


def test_grad_equals_backward():
    s = {k: jnp.asarray(v) for k, v in scene(30, seed=2, sh_degree=1, max_opacity=0.9).items()}
    viewmats, ks = cameras(2, W, H)
    bg = jnp.asarray([[0.2, 0.3, 0.4], [1.0, 1.0, 1.0]], dtype=jnp.float32)
    weights = jnp.asarray(np.random.default_rng(0).uniform(-1, 1, (2, H, W, 3)), dtype=jnp.float32)

    def loss(means, quats, scales, opacities, colors, backgrounds):
        out, alphas, _ = tgj.rasterization(means, quats, scales, opacities, colors, viewmats, ks, W, H,
                                           sh_degree=1, backgrounds=backgrounds)
        return jnp.sum(out * weights) + jnp.sum(alphas)

    grads = jax.grad(loss, argnums=(0, 1, 2, 3, 4, 5))(s["means"], s["quats"], s["scales"], s["opacities"],
                                                        s["colors"], bg)
    _, alphas, meta = tilegrad.rasterization(s["means"], s["quats"], s["scales"], s["opacities"], s["colors"],
                                             viewmats, ks, W, H, sh_degree=1, backgrounds=bg)
    ref = tilegrad.rasterization_backward(meta, weights, jnp.ones_like(alphas), backgrounds=True)
    for g, name in zip(grads, ("means", "quats", "scales", "opacities", "colors", "backgrounds")):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(ref[name]), err_msg=name)
    assert np.abs(np.asarray(grads[0])).sum() > 0


def test_jit_is_refused():
    s = {k: jnp.asarray(v) for k, v in scene(5).items()}
    viewmats, ks = cameras(1, W, H)

    @jax.jit
    def render(means):
        return tgj.rasterization(means, s["quats"], s["scales"], s["opacities"], s["colors"], viewmats, ks, W, H)[0]

    with pytest.raises(TypeError, match="jax.jit"):
        render(s["means"])
