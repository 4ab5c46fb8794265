#!/usr/bin/env python3
"""The mesh energies of `tilegrad profile mesh` in JAX, on the same inputs, for the comparison table.

Energy + gradient: jax.jit(jax.value_and_grad(total)). Hessian-vector product: jax.jit of jax.jvp over
jax.grad (forward over reverse). Sparse Hessian: jax.vmap(jax.hessian) of the element energy, summed into the
pattern's slots (built once, like tilegrad's) with jax.ops.segment_sum: the values of a CSR/COO matrix, jitted.
float32 on JAX's default device (the GPU where jax[cuda] is installed, else the CPU); every energy is checked
against tilegrad's to 1e-6 relative before any time is reported.

    tilegrad profile mesh --device cuda --out OUT --export-inputs
    python3 bench/mesh_jax.py --inputs OUT/mesh_inputs --out OUT/mesh_jax.json

Without JAX the script says so and exits 0 (the comparison is optional); exit status 1 when an energy disagrees.
"""
import argparse
import sys

import numpy as np

import mesh_baseline as mb

try:
    import jax
    import jax.numpy as jnp
except ImportError:
    jax = None


def cross(a, b):
    return jnp.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1], a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                      a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


# Per-element energies for one element (x [K*D], d [W]) or a batch ([E, K*D], [E, W]); the same formulas as
# bench/mesh_pytorch.py and tilegrad's element energies.
def uniform(x, d, p):
    return p.get("weight", 1.0) * jnp.sum((x[..., 0:3] - x[..., 3:6]) ** 2, axis=-1)


def cotangent(x, d, p):
    q = x.reshape(x.shape[:-1] + (3, 3))
    e = 0.0
    for k in range(3):
        a, b = (k + 1) % 3, (k + 2) % 3
        e = e + d[..., k] * jnp.sum((q[..., a, :] - q[..., b, :]) ** 2, axis=-1)
    return p.get("scale", 1.0) * e


def symmetric_dirichlet(u, d, p):
    return mb.symmetric_dirichlet(lambda k: u[..., k], lambda k: d[..., k])


def springs(x, d, p):
    length = jnp.sqrt(jnp.sum((x[..., 0:3] - x[..., 3:6]) ** 2, axis=-1))
    rest = d[..., 0]
    return 0.5 * p.get("stiffness", 1.0) * rest * (length / rest - 1.0) ** 2


def bending(x, d, p):
    x0, x1, x2, x3 = x[..., 0:3], x[..., 3:6], x[..., 6:9], x[..., 9:12]
    e = x1 - x0
    n1 = cross(e, x2 - x0)
    n2 = cross(x0 - x1, x3 - x1)
    y = jnp.sum(cross(n1, n2) * e, axis=-1) / jnp.sqrt(jnp.sum(e * e, axis=-1))
    theta = jnp.arctan2(y, jnp.sum(n1 * n2, axis=-1))
    return p.get("stiffness", 1.0) * d[..., 0] * (theta - d[..., 1]) ** 2


ENERGIES = {"uniform": uniform, "cotangent": cotangent, "symmetric-dirichlet": symmetric_dirichlet,
            "springs": springs, "bending": bending}


def passes_of(max_hessian_entries):
    def build(case):
        energy, params = ENERGIES[case["energy"]], case["params"]
        x = jnp.asarray(case["x_array"])
        index = jnp.asarray(case["index_array"].astype(np.int32))
        data = jnp.asarray(case["data_array"])
        v = jnp.asarray(mb.direction(case["x_array"].size))

        def total(xv):
            return jnp.sum(energy(xv[index], data, params))

        element_energies = np.asarray(jax.jit(lambda xv: energy(xv[index], data, params))(x))
        value_and_grad = jax.jit(jax.value_and_grad(total))
        hvp = jax.jit(lambda xv, vv: jax.jvp(jax.grad(total), (xv,), (vv,))[1])
        last = {}
        passes = {"gradient": lambda: last.__setitem__("out", value_and_grad(x)),
                  "hvp": lambda: last.__setitem__("out", hvp(x, v))}
        n = case["index_array"].shape[1]
        if case["elements"] * n * n <= max_hessian_entries:
            slots_np, rows, _ = mb.hessian_slots(case["index_array"])
            slots, nnz = jnp.asarray(slots_np), int(rows.size)
            local = jax.vmap(jax.hessian(lambda xe, de: energy(xe, de, params)))

            @jax.jit
            def hessian(xv):
                return jax.ops.segment_sum(local(xv[index], data).reshape(-1), slots, num_segments=nnz)

            passes["hessian"] = lambda: last.__setitem__("out", hessian(x))

        def sync():
            jax.block_until_ready(last.get("out"))

        return element_energies, passes, sync

    return build


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mb.add_arguments(ap)
    ap.add_argument("--max-hessian-entries", type=float, default=6e8,
                    help="skip the Hessian of cases with more local Hessian entries (memory)")
    args = ap.parse_args()
    if jax is None:
        print("mesh_jax.py: JAX is not installed; skipping the JAX comparison")
        return 0
    device = jax.devices()[0]
    cases = mb.load_cases(args.inputs)
    _, failed = mb.run_cases("jax", cases, passes_of(args.max_hessian_entries),
                             "%s (%s)" % (device.device_kind, device.platform), {"jax": jax.__version__}, args,
                             unsupported={})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
