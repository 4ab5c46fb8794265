#!/usr/bin/env python3
"""The mesh energies of `tilegrad profile mesh` in PyTorch, on the same inputs, for the comparison table.

Energy and gradient by autograd; per-element Hessians by torch.func.vmap(torch.func.hessian(...)) scattered into a
sparse COO matrix and coalesced; Hessian-vector products by forward-over-reverse (torch.func.jvp of torch.func.grad).
Median times with CUDA events after warm-up.

    tilegrad profile mesh --device cuda --out OUT --export-inputs
    python3 bench/mesh_pytorch.py --inputs OUT/mesh_inputs --out OUT/mesh_pytorch.json --tilegrad OUT/mesh.json

Without PyTorch the script says so and exits 0 (the comparison is optional).
"""
import argparse
import json
import os
import platform
import statistics
import sys

import mesh_baseline as mb

try:
    import torch
except ImportError:  # the comparison is optional where PyTorch is absent
    torch = None


# Per-element energies written once for a single element (shape [K*D], data [W]) or a batch ([E, K*D], [E, W]).
def uniform(x, d, p):
    return p.get("weight", 1.0) * ((x[..., 0:3] - x[..., 3:6]) ** 2).sum(-1)


def cotangent(x, d, p):
    q = x.unflatten(-1, (3, 3))
    e = 0.0
    for k in range(3):
        a, b = (k + 1) % 3, (k + 2) % 3
        e = e + d[..., k] * ((q[..., a, :] - q[..., b, :]) ** 2).sum(-1)
    return p.get("scale", 1.0) * e


def symmetric_dirichlet(u, d, p):
    return mb.symmetric_dirichlet(lambda k: u[..., k], lambda k: d[..., k])


def springs(x, d, p):
    length = torch.sqrt(((x[..., 0:3] - x[..., 3:6]) ** 2).sum(-1))
    rest = d[..., 0]
    return 0.5 * p.get("stiffness", 1.0) * rest * (length / rest - 1.0) ** 2


def bending(x, d, p):
    x0, x1, x2, x3 = x[..., 0:3], x[..., 3:6], x[..., 6:9], x[..., 9:12]
    e = x1 - x0
    n1 = torch.linalg.cross(e, x2 - x0, dim=-1)
    n2 = torch.linalg.cross(x0 - x1, x3 - x1, dim=-1)
    y = (torch.linalg.cross(n1, n2, dim=-1) * e).sum(-1) / torch.sqrt((e * e).sum(-1))
    theta = torch.atan2(y, (n1 * n2).sum(-1))
    return p.get("stiffness", 1.0) * d[..., 0] * (theta - d[..., 1]) ** 2


ENERGIES = {"uniform": uniform, "cotangent": cotangent, "symmetric-dirichlet": symmetric_dirichlet,
            "springs": springs, "bending": bending}


def load(folder, name, dtype, shape):
    with open(os.path.join(folder, name), "rb") as f:
        raw = bytearray(f.read())
    t = torch.frombuffer(raw, dtype=dtype) if raw else torch.zeros(0, dtype=dtype)
    return t.reshape(shape)


def time_ms(fn, warmup, reps):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    samples.sort()
    return {"median_ms": statistics.median(samples), "p10_ms": samples[len(samples) // 10],
            "p90_ms": samples[(9 * len(samples)) // 10]}


def run_case(case, folder, device, warmup, reps, max_hessian_entries):
    k, dim, n_el, width = case["arity"], case["dim"], case["elements"], case["data_width"]
    energy_fn, params = ENERGIES[case["energy"]], case["params"]
    x = load(folder, case["x"], torch.float32, (-1,)).to(device)
    elements = load(folder, case["element_file"], torch.int32, (n_el, k)).to(device).long()
    data = (load(folder, case["data"], torch.float32, (n_el, width)) if width else torch.zeros(n_el, 0)).to(device)
    # Indices of each element's variables in x: [E, K*D].
    index = (elements.unsqueeze(-1) * dim + torch.arange(dim, device=device)).reshape(n_el, k * dim)
    v = torch.sin(0.37 * torch.arange(x.numel(), device=device, dtype=torch.float32))

    def total(xv):
        return energy_fn(xv[index], data, params).sum()

    grad_fn = torch.func.grad(total)
    local_hessian = torch.func.vmap(torch.func.hessian(lambda xe, de: energy_fn(xe, de, params)))
    n = k * dim
    rows = index.unsqueeze(-1).expand(n_el, n, n).reshape(-1)
    cols = index.unsqueeze(-2).expand(n_el, n, n).reshape(-1)
    coo_index = torch.stack([rows, cols])

    def hessian():
        h = local_hessian(x[index], data)
        return torch.sparse_coo_tensor(coo_index, h.reshape(-1), (x.numel(), x.numel())).coalesce()

    def gradient():
        xg = x.detach().requires_grad_(True)
        return torch.autograd.grad(total(xg), xg)[0]

    result = {"mesh": case["mesh"], "energy": case["energy"], "elements": n_el, "vertices": case["vertices"]}
    with torch.no_grad():
        value = float(total(x))
    reference = case.get("tilegrad_energy")
    result["energy_value"] = value
    result["tilegrad_energy"] = reference
    if reference is not None:
        result["energy_relative_difference"] = abs(value - reference) / max(abs(reference), 1e-30)
    passes = {"energy": lambda: total(x), "gradient": gradient,
              "hvp": lambda: torch.func.jvp(grad_fn, (x,), (v,))[1]}
    if n_el * n * n <= max_hessian_entries:
        passes["hessian"] = hessian
    result["times"] = {}  # per pass; kept apart from the row's names ("energy" is the energy's name)
    for name, fn in passes.items():
        try:
            result["times"][name] = time_ms(fn, warmup, reps)
        except torch.cuda.OutOfMemoryError:
            result["times"][name] = {"error": "out of memory"}
            torch.cuda.empty_cache()
    return result


def comparison_table(results, tilegrad):
    def tg(mesh, energy, pass_, strategy):
        for r in tilegrad["rows"]:
            if (r["mesh"], r["energy"], r["pass"], r["strategy"]) == (mesh, energy, pass_, strategy):
                return r["median_ms"]
        return None

    # tilegrad side: Owned passes; the gradient with its energy total, as autograd computes both.
    lines = ["| mesh | energy | elements | energy+gradient torch / tilegrad (x) | Hessian torch / tilegrad (x) "
             "| HVP torch / tilegrad (x) | energy torch / tilegrad (x) |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]

    def cell(r, pass_, ours):
        theirs = r["times"].get(pass_, {}).get("median_ms")
        if theirs is None or ours is None:
            return "-"
        return "%.3f / %.3f ms (%.1fx)" % (theirs, ours, theirs / ours)

    for r in results:
        m, e = r["mesh"], r["energy"]
        lines.append("| %s | %s | %d | %s | %s | %s | %s |" % (
            m, e, r["elements"], cell(r, "gradient", tg(m, e, "value-gradient", "owned")),
            cell(r, "hessian", tg(m, e, "hessian", "owned")), cell(r, "hvp", tg(m, e, "hvp", "owned")),
            cell(r, "energy", tg(m, e, "energy", "-"))))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--inputs", required=True,
                    help="mesh_inputs folder written by tilegrad profile mesh --export-inputs")
    ap.add_argument("--out", help="JSON file for the PyTorch timings")
    ap.add_argument("--tilegrad", help="mesh.json of the same run: print the side-by-side table")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--max-hessian-entries", type=float, default=6e8,
                    help="skip the Hessian of cases with more local Hessian entries (memory)")
    args = ap.parse_args()
    if torch is None:
        print("mesh_pytorch.py: PyTorch is not installed; skipping the PyTorch comparison")
        return 0
    if not torch.cuda.is_available():
        print("mesh_pytorch.py: no CUDA device; the comparison is a GPU benchmark, skipping")
        return 0
    with open(os.path.join(args.inputs, "manifest.json")) as f:
        manifest = json.load(f)
    results = []
    for case in manifest:
        print("%s %s: %d elements" % (case["mesh"], case["energy"], case["elements"]), flush=True)
        r = run_case(case, args.inputs, "cuda", args.warmup, args.reps, args.max_hessian_entries)
        for p in ("energy", "gradient", "hessian", "hvp"):
            if p in r["times"]:
                t = r["times"][p]
                print("  %-8s %s" % (p, "%.4f ms" % t["median_ms"] if "median_ms" in t else t["error"]))
        if "energy_relative_difference" in r:
            print("  energy %.8g (tilegrad %.8g, relative difference %.2e)" % (
                r["energy_value"], r["tilegrad_energy"], r["energy_relative_difference"]))
        results.append(r)
    report = {"run": {"torch": torch.__version__, "device_name": torch.cuda.get_device_name(),
                      "python": platform.python_version()},
              "precision": "float32", "warmup": args.warmup, "reps": args.reps, "rows": results}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
        print("wrote", args.out)
    if args.tilegrad:
        with open(args.tilegrad) as f:
            table = comparison_table(results, json.load(f))
        print()
        print(table)
        if args.out:
            with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
                f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
