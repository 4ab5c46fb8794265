#!/usr/bin/env python3
"""The mesh energies of `tilegrad profile mesh` in Dr.Jit, on the same inputs, for the comparison table.

Energy + gradient with Dr.Jit's AD arrays: the element coordinates gathered from x (dr.gather), the element
energies traced as one kernel, their sum, dr.backward to x (the gather's adjoint scatters into the gradient).
CUDA arrays (drjit.cuda.ad) where a GPU is present, else the LLVM (CPU) backend; float32. Each timed call traces
the computation again and runs the kernels Dr.Jit compiled and cached on the first call. Hessians and
Hessian-vector products are not measured: Dr.Jit's AD is first order (a gradient it computes is not itself
differentiable), which the report and the table say. Every energy is checked against tilegrad's to 1e-6
relative before any time is reported.

    tilegrad profile mesh --device cuda --out OUT --export-inputs
    python3 bench/mesh_drjit.py --inputs OUT/mesh_inputs --out OUT/mesh_drjit.json

Without Dr.Jit the script says so and exits 0 (the comparison is optional); exit status 1 when an energy
disagrees.
"""
import argparse
import sys

import numpy as np

import mesh_baseline as mb

try:
    import drjit as dr
except ImportError:
    dr = None

NO_SECOND_ORDER = "not available: Dr.Jit's AD is first order (its gradients are not differentiable)"


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def sub(a, b):
    return [a[0] - b[0], a[1] - b[1], a[2] - b[2]]


# Per-element energies over the element's variables v[i] (lists of arrays, K*D of them, vertex-major) and data
# columns d[j]; the same formulas as bench/mesh_pytorch.py and tilegrad's element energies.
def uniform(v, d, p):
    return p.get("weight", 1.0) * dot(sub(v[0:3], v[3:6]), sub(v[0:3], v[3:6]))


def cotangent(v, d, p):
    q = [v[0:3], v[3:6], v[6:9]]
    e = 0.0
    for k in range(3):
        a, b = (k + 1) % 3, (k + 2) % 3
        t = sub(q[a], q[b])
        e = e + d[k] * dot(t, t)
    return p.get("scale", 1.0) * e


def symmetric_dirichlet(u, d, p):
    return mb.symmetric_dirichlet(lambda k: u[k], lambda k: d[k])


def springs(v, d, p):
    t = sub(v[0:3], v[3:6])
    length = dr.sqrt(dot(t, t))
    rest = d[0]
    return 0.5 * p.get("stiffness", 1.0) * rest * dr.square(length / rest - 1.0)


def atan2_by_asin(y, x):
    """atan2 from asin and acos, each where its argument stays below 1/sqrt(2) (accurate to a few ulp): Dr.Jit's
    LLVM backend emits an instruction (fmaximum) in dr.atan and dr.atan2 that the system LLVM 14/15 cannot
    compile for x86; CUDA uses dr.atan2."""
    pi = 3.14159265358979
    r = dr.sqrt(x * x + y * y)
    sign = dr.select(y >= 0, 1.0, -1.0)
    by_asin = dr.asin(y / r)
    return dr.select(dr.abs(x) > dr.abs(y), dr.select(x > 0, by_asin, sign * pi - by_asin), sign * dr.acos(x / r))


ATAN2 = None  # set by main(): dr.atan2 on CUDA, atan2_by_asin on LLVM


def bending(v, d, p):
    x0, x1, x2, x3 = v[0:3], v[3:6], v[6:9], v[9:12]
    e = sub(x1, x0)
    n1 = cross(e, sub(x2, x0))
    n2 = cross(sub(x0, x1), sub(x3, x1))
    y = dot(cross(n1, n2), e) / dr.sqrt(dot(e, e))
    theta = ATAN2(y, dot(n1, n2))
    return p.get("stiffness", 1.0) * d[0] * dr.square(theta - d[1])


ENERGIES = {"uniform": uniform, "cotangent": cotangent, "symmetric-dirichlet": symmetric_dirichlet,
            "springs": springs, "bending": bending}


def backend():
    """Dr.Jit's CUDA AD types where a GPU is usable, else the LLVM (CPU) ones."""
    try:
        if dr.has_backend(dr.JitBackend.CUDA):
            from drjit.cuda.ad import Float, UInt32
            return Float, UInt32, "cuda"
    except Exception:
        pass
    from drjit.llvm.ad import Float, UInt32
    return Float, UInt32, "llvm"


def passes_of(Float, UInt32):
    def build(case):
        energy, params = ENERGIES[case["energy"]], case["params"]
        index = case["index_array"]
        columns = [UInt32(np.ascontiguousarray(index[:, i]).astype(np.uint32)) for i in range(index.shape[1])]
        data = [Float(np.ascontiguousarray(case["data_array"][:, j])) for j in range(case["data_array"].shape[1])]
        x0 = case["x_array"]
        out = {}

        def element_energies(x):
            return energy([dr.gather(Float, x, c) for c in columns], data, params)

        def gradient():
            x = Float(x0)
            dr.enable_grad(x)
            total = dr.sum(element_energies(x))
            dr.backward(total)
            out["g"], out["e"] = dr.grad(x), dr.detach(total)

        def sync():
            dr.eval(out.get("g"), out.get("e"))
            dr.sync_thread()

        e = element_energies(Float(x0))
        return np.array(e, dtype=np.float32), {"gradient": gradient}, sync

    return build


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mb.add_arguments(ap)
    args = ap.parse_args()
    if dr is None:
        print("mesh_drjit.py: Dr.Jit is not installed; skipping the Dr.Jit comparison")
        return 0
    global ATAN2
    Float, UInt32, name = backend()
    ATAN2 = dr.atan2 if name == "cuda" else atan2_by_asin
    cases = mb.load_cases(args.inputs)
    _, failed = mb.run_cases("drjit", cases, passes_of(Float, UInt32), "Dr.Jit %s backend" % name,
                             {"drjit": dr.__version__, "backend": name}, args,
                             unsupported={"hessian": NO_SECOND_ORDER, "hvp": NO_SECOND_ORDER})
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
