"""What the mesh-energy baselines share (bench/mesh_jax.py, mesh_drjit.py, mesh_warp.py; mesh_pytorch.py uses the
symmetric Dirichlet energy): the cases that
`tilegrad profile mesh --export-inputs` writes, as NumPy arrays; the energy check against tilegrad's value,
which must pass before a time is reported; wall-clock timing; and the report every script writes, which
bench/mesh_table.py turns into the comparison table.

Per-element energies are evaluated in float32 like tilegrad's, and summed in float64 for the check (tilegrad
sums its totals in double): the check then measures the element math, not float32 summation of 10^5 terms.
"""
import json
import os
import platform
import statistics
import time

import numpy as np

ENERGY_TOLERANCE = 1e-6  # relative difference from tilegrad's energy before any time is reported


def symmetric_dirichlet(u, d):
    """The symmetric Dirichlet energy of a triangle's map to the plane, area * tr(C) (1 + 1 / det(C)), written
    once for every framework: u(k) is the k-th of the element's six unknowns (u0 v0 u1 v1 u2 v2), d(k) the k-th of
    its five data (the rest triangle's inverse 2x2 matrix as tilegrad's RestTriangle stores it, then the area); each returns a scalar or an
    array of that framework."""
    a0, a1 = u(2) - u(0), u(3) - u(1)
    b0, b1 = u(4) - u(0), u(5) - u(1)
    g00, g01, g11 = a0 * a0 + a1 * a1, a0 * b0 + a1 * b1, b0 * b0 + b1 * b1
    m0, m1, m2, m3, area = d(0), d(1), d(2), d(3), d(4)
    gm00, gm01 = g00 * m0 + g01 * m2, g00 * m1 + g01 * m3
    gm10, gm11 = g01 * m0 + g11 * m2, g01 * m1 + g11 * m3
    c00, c11, c01 = gm00 * m0 + gm10 * m2, gm01 * m1 + gm11 * m3, gm01 * m0 + gm11 * m2
    trace, det = c00 + c11, c00 * c11 - c01 * c01
    return area * trace * (1.0 + 1.0 / det)


def load_cases(folder):
    """The manifest's cases with their arrays: x [V*D] float32, elements [E, K] int64, data [E, W] float32."""
    with open(os.path.join(folder, "manifest.json")) as f:
        manifest = json.load(f)
    cases = []
    for case in manifest:
        c = dict(case)
        c["x_array"] = np.fromfile(os.path.join(folder, case["x"]), dtype=np.float32)
        c["elements_array"] = np.fromfile(os.path.join(folder, case["element_file"]),
                                          dtype=np.uint32).astype(np.int64).reshape(case["elements"], case["arity"])
        width = case["data_width"]
        c["data_array"] = (np.fromfile(os.path.join(folder, case["data"]), dtype=np.float32).reshape(
            case["elements"], width) if width else np.zeros((case["elements"], 0), dtype=np.float32))
        # Indices of each element's variables in x: [E, K*D], vertex-major like tilegrad's element vectors.
        dim = case["dim"]
        c["index_array"] = (c["elements_array"][:, :, None] * dim + np.arange(dim)[None, None, :]).reshape(
            case["elements"], case["arity"] * dim)
        cases.append(c)
    return cases


def direction(n):
    """The HVP direction every system uses: sin(0.37 i), like bench/mesh_pytorch.py."""
    return np.sin(0.37 * np.arange(n)).astype(np.float32)


def hessian_slots(index):
    """For the local Hessians [E, n, n] of elements with variable indices `index` [E, n]: the slot of every local
    entry in the sorted unique (row, column) pattern, and the pattern (rows, columns): assembly then is one
    segmented sum of the local entries into their slots (the pattern is built once, as tilegrad does)."""
    e, n = index.shape
    rows = np.repeat(index[:, :, None], n, axis=2).reshape(-1)
    cols = np.repeat(index[:, None, :], n, axis=1).reshape(-1)
    size = int(index.max()) + 1
    keys = rows * size + cols
    unique, slots = np.unique(keys, return_inverse=True)
    return slots.astype(np.int32), unique // size, unique % size


def check_energy(case, element_energies):
    """Compares the float64 sum of the per-element energies with tilegrad's; returns (value, relative difference,
    passed)."""
    value = float(np.sum(np.asarray(element_energies, dtype=np.float64)))
    reference = case.get("tilegrad_energy")
    if reference is None:
        return value, None, False
    diff = abs(value - reference) / max(abs(reference), 1e-30)
    return value, diff, diff <= ENERGY_TOLERANCE


def time_ms(fn, sync, warmup, reps):
    """Median / p10 / p90 wall-clock milliseconds of fn() followed by sync(), after warm-up runs."""
    for _ in range(warmup):
        fn()
        sync()
    samples = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        sync()
        samples.append(1e3 * (time.perf_counter() - t0))
    samples.sort()
    return {"median_ms": statistics.median(samples), "p10_ms": samples[len(samples) // 10],
            "p90_ms": samples[(9 * len(samples)) // 10]}


def run_cases(system, cases, passes_of, device_name, versions, args, unsupported):
    """Runs every case: the energy check first, then the timed passes (only when the check passed). `passes_of(case)`
    returns (per-element energies, {pass: callable}, sync); `unsupported` maps a pass this system lacks to the
    reason, written into the report instead of a time."""
    rows = []
    for case in cases:
        print("%s %s %s: %d elements" % (system, case["mesh"], case["energy"], case["elements"]), flush=True)
        row = {"mesh": case["mesh"], "energy": case["energy"], "elements": case["elements"],
               "vertices": case["vertices"], "times": {}}
        try:
            element_energies, passes, sync = passes_of(case)
        except Exception as e:  # a case this system cannot run: say why in the table
            row["error"] = "%s: %s" % (type(e).__name__, e)
            print("  failed:", row["error"], flush=True)
            rows.append(row)
            continue
        value, diff, ok = check_energy(case, element_energies)
        row.update({"energy_value": value, "tilegrad_energy": case.get("tilegrad_energy"),
                    "energy_relative_difference": diff, "energy_check": ok})
        print("  energy %.10g (tilegrad %s, relative difference %s): %s" % (
            value, case.get("tilegrad_energy"), "-" if diff is None else "%.2e" % diff,
            "ok" if ok else "MISMATCH, no times reported"), flush=True)
        if ok:
            for name, fn in passes.items():
                try:
                    row["times"][name] = time_ms(fn, sync, args.warmup, args.reps)
                    print("  %-8s %.4f ms" % (name, row["times"][name]["median_ms"]), flush=True)
                except Exception as e:
                    row["times"][name] = {"error": "%s: %s" % (type(e).__name__, e)}
                    print("  %-8s failed: %s" % (name, row["times"][name]["error"]), flush=True)
        for name, reason in unsupported.items():
            row["times"].setdefault(name, {"unsupported": reason})
        rows.append(row)
    report = {"system": system, "device_name": device_name, "versions": versions,
              "python": platform.python_version(), "precision": "float32", "warmup": args.warmup,
              "reps": args.reps, "energy_tolerance": ENERGY_TOLERANCE, "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
        print("wrote", args.out)
    failed = [r for r in rows if not r.get("energy_check")]
    return report, failed


def add_arguments(ap):
    ap.add_argument("--inputs", required=True, help="mesh_inputs folder written by tilegrad profile mesh --export-inputs")
    ap.add_argument("--out", help="JSON report (bench/mesh_table.py reads it)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--reps", type=int, default=20)
