#!/usr/bin/env python3
"""The mesh energies of `tilegrad profile mesh` in NVIDIA Warp, on the same inputs, for the comparison table.

One Warp kernel per energy: a thread per element gathers its vertices, evaluates the element energy and adds it
to the total (wp.atomic_add); the gradient is wp.Tape's adjoint of that launch (recorded each call, as Warp code
does), float32. Hessians and Hessian-vector products are not measured: wp.Tape differentiates once (no
second-order adjoints), which the report and the table say. Every energy is checked against tilegrad's to 1e-6
relative before any time is reported.

    tilegrad profile mesh --device cpu --out OUT --export-inputs
    python3 bench/mesh_warp.py --inputs OUT/mesh_inputs --out OUT/mesh_warp.json --device cpu

Without Warp the script says so and exits 0 (the comparison is optional); exit status 1 when an energy disagrees.
"""
import argparse
import sys

import numpy as np

import mesh_baseline as mb

try:
    import warp as wp
except ImportError:
    wp = None

NO_SECOND_ORDER = "not available: wp.Tape differentiates once (no second-order adjoints)"

if wp is not None:
    wp.config.quiet = True

    @wp.func
    def vertex3(x: wp.array(dtype=float), idx: wp.array2d(dtype=int), e: int, slot: int):
        return wp.vec3(x[idx[e, 3 * slot]], x[idx[e, 3 * slot + 1]], x[idx[e, 3 * slot + 2]])

    @wp.func
    def finish(en: float, e: int, store: int, out: wp.array(dtype=float), total: wp.array(dtype=float)):
        if store != 0:
            out[e] = en
        wp.atomic_add(total, 0, en)

    # Same formulas as bench/mesh_pytorch.py and tilegrad's element energies; p0: the energy's parameter.
    @wp.kernel
    def uniform_kernel(x: wp.array(dtype=float), idx: wp.array2d(dtype=int), data: wp.array2d(dtype=float),
                       p0: float, store: int, out: wp.array(dtype=float), total: wp.array(dtype=float)):
        e = wp.tid()
        d = vertex3(x, idx, e, 0) - vertex3(x, idx, e, 1)
        finish(p0 * wp.dot(d, d), e, store, out, total)

    @wp.kernel
    def cotangent_kernel(x: wp.array(dtype=float), idx: wp.array2d(dtype=int), data: wp.array2d(dtype=float),
                         p0: float, store: int, out: wp.array(dtype=float), total: wp.array(dtype=float)):
        e = wp.tid()
        q0, q1, q2 = vertex3(x, idx, e, 0), vertex3(x, idx, e, 1), vertex3(x, idx, e, 2)
        en = data[e, 0] * wp.length_sq(q1 - q2) + data[e, 1] * wp.length_sq(q2 - q0) + data[e, 2] * wp.length_sq(q0 - q1)
        finish(p0 * en, e, store, out, total)

    @wp.kernel
    def symmetric_dirichlet_kernel(x: wp.array(dtype=float), idx: wp.array2d(dtype=int),
                                   data: wp.array2d(dtype=float), p0: float, store: int, out: wp.array(dtype=float),
                                   total: wp.array(dtype=float)):
        e = wp.tid()
        u0, u1 = x[idx[e, 0]], x[idx[e, 1]]
        a0, a1 = x[idx[e, 2]] - u0, x[idx[e, 3]] - u1
        b0, b1 = x[idx[e, 4]] - u0, x[idx[e, 5]] - u1
        g00, g01, g11 = a0 * a0 + a1 * a1, a0 * b0 + a1 * b1, b0 * b0 + b1 * b1
        m0, m1, m2, m3, area = data[e, 0], data[e, 1], data[e, 2], data[e, 3], data[e, 4]
        gm00, gm01 = g00 * m0 + g01 * m2, g00 * m1 + g01 * m3
        gm10, gm11 = g01 * m0 + g11 * m2, g01 * m1 + g11 * m3
        c00, c11, c01 = gm00 * m0 + gm10 * m2, gm01 * m1 + gm11 * m3, gm01 * m0 + gm11 * m2
        trace, det = c00 + c11, c00 * c11 - c01 * c01
        finish(area * trace * (1.0 + 1.0 / det), e, store, out, total)

    @wp.kernel
    def springs_kernel(x: wp.array(dtype=float), idx: wp.array2d(dtype=int), data: wp.array2d(dtype=float),
                       p0: float, store: int, out: wp.array(dtype=float), total: wp.array(dtype=float)):
        e = wp.tid()
        length = wp.length(vertex3(x, idx, e, 0) - vertex3(x, idx, e, 1))
        rest = data[e, 0]
        s = length / rest - 1.0
        finish(0.5 * p0 * rest * s * s, e, store, out, total)

    @wp.kernel
    def bending_kernel(x: wp.array(dtype=float), idx: wp.array2d(dtype=int), data: wp.array2d(dtype=float),
                       p0: float, store: int, out: wp.array(dtype=float), total: wp.array(dtype=float)):
        e = wp.tid()
        x0, x1, x2, x3 = vertex3(x, idx, e, 0), vertex3(x, idx, e, 1), vertex3(x, idx, e, 2), vertex3(x, idx, e, 3)
        ed = x1 - x0
        n1 = wp.cross(ed, x2 - x0)
        n2 = wp.cross(x0 - x1, x3 - x1)
        y = wp.dot(wp.cross(n1, n2), ed) / wp.length(ed)
        t = wp.atan2(y, wp.dot(n1, n2)) - data[e, 1]
        finish(p0 * data[e, 0] * t * t, e, store, out, total)

    KERNELS = {"uniform": (uniform_kernel, "weight"), "cotangent": (cotangent_kernel, "scale"),
               "symmetric-dirichlet": (symmetric_dirichlet_kernel, None), "springs": (springs_kernel, "stiffness"),
               "bending": (bending_kernel, "stiffness")}


def passes_of(device):
    def build(case):
        kernel, param = KERNELS[case["energy"]]
        p0 = float(case["params"].get(param, 1.0)) if param else 1.0
        n_el = case["elements"]
        idx = wp.array(case["index_array"].astype(np.int32), dtype=int, device=device)
        width = max(case["data_array"].shape[1], 1)
        data_np = case["data_array"] if case["data_array"].shape[1] else np.zeros((n_el, 1), np.float32)
        data = wp.array(data_np, dtype=float, device=device)
        x = wp.array(case["x_array"], dtype=float, device=device, requires_grad=True)
        total = wp.zeros(1, dtype=float, device=device, requires_grad=True)
        per_element = wp.zeros(n_el, dtype=float, device=device)
        assert data.shape == (n_el, width)

        wp.launch(kernel, dim=n_el, inputs=[x, idx, data, p0, 1, per_element, total], device=device)
        element_energies = per_element.numpy()
        tape = wp.Tape()

        def gradient():
            tape.reset()
            total.zero_()
            with tape:
                wp.launch(kernel, dim=n_el, inputs=[x, idx, data, p0, 0, per_element, total], device=device)
            tape.backward(loss=total)

        return element_energies, {"gradient": gradient}, wp.synchronize

    return build


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mb.add_arguments(ap)
    ap.add_argument("--device", default=None, help="cpu or cuda (default: cuda when available)")
    args = ap.parse_args()
    if wp is None:
        print("mesh_warp.py: Warp is not installed; skipping the Warp comparison")
        return 0
    wp.init()
    device = args.device or ("cuda" if wp.is_cuda_available() else "cpu")
    cases = mb.load_cases(args.inputs)
    _, failed = mb.run_cases("warp", cases, passes_of(device), "Warp %s (%s)" % (device, wp.get_device(device).name),
                             {"warp": wp.config.version, "device": device}, args,
                             unsupported={"hessian": NO_SECOND_ORDER, "hvp": NO_SECOND_ORDER})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
