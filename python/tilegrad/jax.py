"""tilegrad.jax.rasterization: tilegrad.rasterization for JAX arrays, differentiable through jax.custom_vjp.

jax.grad / jax.vjp reach means, quats, scales, opacities, colors and backgrounds. The renderer runs eagerly on the
arrays' device (CPU or CUDA, no copy): the call cannot be staged out, so it is not usable inside jax.jit (a clear
TypeError says so). The view-space mean gradient of densification comes from tilegrad.rasterization_backward.
"""

import jax

from ._rasterization import rasterization as _rasterization
from ._rasterization import rasterization_backward as _rasterization_backward

__all__ = ["rasterization"]


def rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width, height, backgrounds=None, **kwargs):
    """Same arguments as tilegrad.rasterization (gsplat's conventions); returns (colors, alphas, meta)."""
    state = {}

    def forward(means, quats, scales, opacities, colors, backgrounds):
        # Under jax.grad / jax.vjp the custom rule sees concrete arrays; under jit (staging) it sees tracers.
        for name, x in (("means", means), ("quats", quats), ("scales", scales), ("opacities", opacities),
                        ("colors", colors), ("viewmats", viewmats), ("Ks", Ks), ("backgrounds", backgrounds)):
            if isinstance(x, jax.core.Tracer):
                raise TypeError(f"tilegrad.jax.rasterization runs eagerly: {name} is a traced value (inside "
                                "jax.jit or another staging transformation); call it outside jit (jax.grad and "
                                "jax.vjp work)")
        out_colors, alphas, meta = _rasterization(means, quats, scales, opacities, colors, viewmats, Ks, width,
                                                  height, backgrounds=backgrounds, **kwargs)
        state["meta"] = meta
        return out_colors, alphas

    @jax.custom_vjp
    def render(means, quats, scales, opacities, colors, backgrounds):
        return forward(means, quats, scales, opacities, colors, backgrounds)

    def render_fwd(means, quats, scales, opacities, colors, backgrounds):
        return forward(means, quats, scales, opacities, colors, backgrounds), None

    def render_bwd(_, cotangents):
        v_colors, v_alphas = cotangents
        grads = _rasterization_backward(state["meta"], v_colors, v_alphas, backgrounds=backgrounds is not None)
        return (grads["means"], grads["quats"], grads["scales"], grads["opacities"], grads["colors"],
                grads.get("backgrounds"))

    render.defvjp(render_fwd, render_bwd)
    out_colors, alphas = render(means, quats, scales, opacities, colors, backgrounds)
    meta = {k: v for k, v in state["meta"].items() if not k.startswith("_")}
    return out_colors, alphas, meta
