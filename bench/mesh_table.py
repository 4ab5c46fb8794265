#!/usr/bin/env python3
"""One comparison table of the mesh-energy benchmark, in the style of the paper tilegrad's element kernels stand
on: per mesh and energy, the time of each system for energy + gradient, sparse Hessian and Hessian-vector
product where it has them, beside tilegrad's deterministic Owned time and its fastest (Owned or Atomic); then the
geometric mean of each baseline's speed-up (its time / tilegrad's fastest) per pass. A baseline's time appears
only when its energy agreed with tilegrad's to 1e-6 relative; a missing time says why.

    python3 bench/mesh_table.py --tilegrad OUT/mesh.json --pytorch OUT/mesh_pytorch.json --jax OUT/mesh_jax.json \\
        --drjit OUT/mesh_drjit.json [--warp OUT/mesh_warp.json | --warp-missing "REASON"] --out OUT/mesh_baselines.md
"""
import argparse
import json
import math
import sys

BASELINES = [("pytorch", "PyTorch"), ("jax", "JAX"), ("drjit", "Dr.Jit"), ("warp", "Warp")]
# (pass in the baselines' reports, tilegrad's pass, column title)
PASSES = [("gradient", "value-gradient", "energy + gradient"), ("hessian", "hessian", "Hessian"),
          ("hvp", "hvp", "HVP")]


def load(path):
    with open(path) as f:
        return json.load(f)


def tilegrad_times(report, mesh, energy, pass_):
    owned = atomic = None
    for r in report["rows"]:
        if (r["mesh"], r["energy"], r["pass"]) == (mesh, energy, pass_):
            if r["strategy"] == "owned":
                owned = r["median_ms"]
            elif r["strategy"] == "atomic":
                atomic = r["median_ms"]
    fastest = min(t for t in (owned, atomic) if t is not None) if (owned or atomic) else None
    return owned, fastest


def energy_ok(row):
    if "energy_check" in row:
        return row["energy_check"]
    diff = row.get("energy_relative_difference")  # bench/mesh_pytorch.py reports the difference only
    return diff is not None and diff <= 1e-6


def baseline_cell(report, missing, mesh, energy, pass_):
    """(time in ms or None, text when there is no time)."""
    if report is None:
        return None, missing
    for r in report["rows"]:
        if (r["mesh"], r["energy"]) != (mesh, energy):
            continue
        if "error" in r:
            return None, "failed: " + r["error"]
        t = r.get("times", {}).get(pass_)
        if t and "unsupported" in t:
            return None, t["unsupported"]
        if not energy_ok(r):
            return None, "energy differs from tilegrad's (%s)" % r.get("energy_relative_difference")
        if not t:
            return None, "not run (see the script's limits)"
        if "median_ms" not in t:
            return None, t.get("error", "failed")
        return t["median_ms"], None
    return None, "case not run"


def fmt(ms):
    return "%.3g" % ms if ms >= 1 else "%.3f" % ms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tilegrad", required=True, help="mesh.json of tilegrad profile mesh")
    for key, name in BASELINES:
        ap.add_argument("--" + key, help="%s report (bench/mesh_%s.py --out)" % (name, key))
        ap.add_argument("--%s-missing" % key, default="not measured (no report)",
                        help="what the table says when there is no %s report" % name)
    ap.add_argument("--out", help="Markdown file for the table")
    args = ap.parse_args()
    tg = load(args.tilegrad)
    reports = {key: load(getattr(args, key)) if getattr(args, key) else None for key, _ in BASELINES}
    missing = {key: getattr(args, key + "_missing") for key, _ in BASELINES}
    cases = [(c["mesh"], c["energy"], c.get("elements", 0)) for c in tg.get("cases", [])]
    if not cases:
        seen = []
        for r in tg["rows"]:
            if (r["mesh"], r["energy"]) not in [(m, e) for m, e, _ in seen]:
                seen.append((r["mesh"], r["energy"], r.get("elements", 0)))
        cases = seen

    lines = ["tilegrad on %s (%s); times in ms, medians; (x): the baseline's time / tilegrad's fastest." % (
        tg["run"].get("device_name", "?"), tg["run"].get("device", "?"))]
    for key, name in BASELINES:
        rep = reports[key]
        lines.append("- %s: %s" % (name, "%s, %s" % (rep.get("device_name", "?"), rep.get("versions", {}))
                                  if rep else missing[key]))
    lines.append("")
    notes = {}

    def note(text):
        if text not in notes:
            notes[text] = len(notes) + 1
        return "n%d" % notes[text]

    speedups = {(key, p): [] for key, _ in BASELINES for p, _, _ in PASSES}
    for p, tp, title in PASSES:
        lines.append("**%s**" % title)
        lines.append("")
        lines.append("| mesh | energy | tilegrad owned | tilegrad fastest | " + " | ".join(n for _, n in BASELINES) + " |")
        lines.append("| --- | --- | ---: | ---: | " + " | ".join("---:" for _ in BASELINES) + " |")
        for mesh, energy, _ in cases:
            owned, fastest = tilegrad_times(tg, mesh, energy, tp)
            cells = []
            for key, _ in BASELINES:
                t, why = baseline_cell(reports[key], missing[key], mesh, energy, p)
                if t is not None and fastest:
                    speedups[(key, p)].append(t / fastest)
                    cells.append("%s (%.2fx)" % (fmt(t), t / fastest))
                elif t is not None:
                    cells.append(fmt(t))
                else:
                    cells.append("- [%s]" % note(why))
            lines.append("| %s | %s | %s | %s | %s |" % (mesh, energy, fmt(owned) if owned else "-",
                                                          fmt(fastest) if fastest else "-", " | ".join(cells)))
        lines.append("")
    lines.append("**Geometric-mean speed-up of tilegrad's fastest over each baseline** (the baseline's time / "
                 "tilegrad's; above 1: tilegrad is faster)")
    lines.append("")
    lines.append("| pass | " + " | ".join(n for _, n in BASELINES) + " |")
    lines.append("| --- | " + " | ".join("---:" for _ in BASELINES) + " |")
    for p, _, title in PASSES:
        cells = []
        for key, _ in BASELINES:
            s = speedups[(key, p)]
            cells.append("%.2fx (%d cases)" % (math.exp(sum(math.log(v) for v in s) / len(s)), len(s)) if s else "-")
        lines.append("| %s | %s |" % (title, " | ".join(cells)))
    if notes:
        lines.append("")
        for text, k in notes.items():
            lines.append("[n%d] %s" % (k, text))
    table = "\n".join(lines) + "\n"
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
