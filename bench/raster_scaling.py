#!/usr/bin/env python3
"""Scaling tables of the 3DGS rasterizer: forward and backward time and peak memory against the Gaussian count
(garden grid G = 1, 3, 5, 9, 15: 0.1M to 25M Gaussians, at 1920x1080) and against the resolution (1280x720,
1920x1080, 3840x2160 at G = 1, 5, 15), from `tilegrad profile raster` reports. A workload that ran out of GPU
memory is a row that says where ("out of memory at <stage>: <bytes>").

    python3 bench/raster_scaling.py --tilegrad build/gpu/apps/tilegrad/tilegrad \\
        --points .data/garden_points/points.ply --transforms .data/garden_points/transforms.json --out OUT/scaling

runs two profiles (OUT/resolution: G = 1, 5, 15 at each resolution; OUT/count: G = 3, 9 at 1080p), then writes
OUT/raster_scaling.md and OUT/raster_scaling.json. With --tables-only it reads the two raster.json files of an
earlier run instead.
"""
import argparse
import json
import os
import subprocess
import sys

COUNT_GRIDS = [1, 3, 5, 9, 15]
RESOLUTION_GRIDS = [1, 5, 15]
RESOLUTIONS = [("720p", 1280, 720), ("1080p", 1920, 1080), ("4k", 3840, 2160)]
MODES = [("Owned", "owned_ms"), ("WarpAggregated", "warp_aggregated_ms")]
MIB = 1024.0 * 1024.0


def profile(args, out, grids, resolutions):
    cmd = [args.tilegrad, "profile", "raster", "--device", "cuda", "--points", args.points, "--transforms",
           args.transforms, "--colors", "sh", "--modes", "owned", "warp-aggregated", "--reps", str(args.reps),
           "--warmup", str(args.warmup), "--out", out, "--grid"] + [str(g) for g in grids] + \
          ["--resolution"] + resolutions
    print("+ " + " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True)


def grid_of(workload):
    # "garden grid 5 (SH3) at 1920x1080" -> 5
    words = workload.split()
    return int(words[2]) if len(words) > 2 and words[:2] == ["garden", "grid"] else None


def rows_of(report):
    """One row per workload: its grid, size, Gaussian count, and times and peak or its error."""
    rows = []
    for r in report["results"]:
        row = {"grid": grid_of(r["workload"]), "width": r["width"], "height": r["height"],
               "gaussians": r["gaussians"], "sort": r.get("sort", "cub")}
        if "error" in r:
            row["error"] = r["error"]
        else:
            times = {b["mode"]: b["backward_ms"] for b in r.get("backward", [])}
            if times and not {"owned", "warp-aggregated"} & times.keys():
                # The profiler's mode names (to_string(Accumulation)); a rename must not empty the tables silently.
                sys.exit("raster_scaling: %s: no owned or warp-aggregated backward among modes %s"
                         % (r["workload"], sorted(times)))
            row.update({"instances": r["instances"], "forward_ms": r["forward_ms"],
                        "owned_ms": times.get("owned"), "warp_aggregated_ms": times.get("warp-aggregated"),
                        "peak_mib": r["peak_bytes_beyond_parameters"] / MIB,
                        "parameter_mib": r["parameter_bytes"] / MIB})
        rows.append(row)
    return rows


def ms(x):
    return "-" if x is None else ("%.3f" % x if x < 10 else "%.2f" % x)


def table(rows, first_column):
    head = ["G", "Gaussians", "resolution", "instances", "forward ms", "Owned bwd ms", "WarpAggregated bwd ms",
            "peak MiB (fwd + Owned bwd)", "parameters MiB"]
    if first_column == "resolution":
        head = ["resolution"] + [h for h in head if h != "resolution"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join("---" for _ in head) + " |"]
    for r in rows:
        res = "%dx%d" % (r["width"], r["height"])
        if "error" in r:
            cells = {"G": str(r["grid"]), "Gaussians": "%d" % r["gaussians"], "resolution": res, "instances": "-",
                     "forward ms": r["error"], "Owned bwd ms": "-", "WarpAggregated bwd ms": "-",
                     "peak MiB (fwd + Owned bwd)": "-", "parameters MiB": "-"}
        else:
            cells = {"G": str(r["grid"]), "Gaussians": "%d" % r["gaussians"], "resolution": res,
                     "instances": "%d" % r["instances"], "forward ms": ms(r["forward_ms"]),
                     "Owned bwd ms": ms(r["owned_ms"]), "WarpAggregated bwd ms": ms(r["warp_aggregated_ms"]),
                     "peak MiB (fwd + Owned bwd)": "%.1f" % r["peak_mib"],
                     "parameters MiB": "%.1f" % r["parameter_mib"]}
        lines.append("| " + " | ".join(cells[h] for h in head) + " |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tilegrad", default="build/gpu/apps/tilegrad/tilegrad", help="the tilegrad binary")
    p.add_argument("--points", default=".data/garden_points/points.ply")
    p.add_argument("--transforms", default=".data/garden_points/transforms.json")
    p.add_argument("--out", required=True, help="folder for the profiles and the tables")
    p.add_argument("--reps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--tables-only", action="store_true", help="read OUT/count and OUT/resolution of an earlier run")
    args = p.parse_args()

    by_resolution = os.path.join(args.out, "resolution")
    by_count = os.path.join(args.out, "count")
    if not args.tables_only:
        profile(args, by_resolution, RESOLUTION_GRIDS, [name for name, _, _ in RESOLUTIONS])
        profile(args, by_count, [g for g in COUNT_GRIDS if g not in RESOLUTION_GRIDS], ["1080p"])
    with open(os.path.join(by_resolution, "raster.json")) as f:
        resolution_report = json.load(f)
    with open(os.path.join(by_count, "raster.json")) as f:
        count_report = json.load(f)
    rows = rows_of(resolution_report) + rows_of(count_report)

    count_rows = sorted((r for r in rows if (r["width"], r["height"]) == (1920, 1080) and r["grid"] in COUNT_GRIDS),
                        key=lambda r: r["grid"])
    resolution_rows = sorted((r for r in rows if r["grid"] in RESOLUTION_GRIDS),
                             key=lambda r: (r["width"] * r["height"], r["grid"]))
    missing = [g for g in COUNT_GRIDS if g not in {r["grid"] for r in count_rows}]
    if missing:
        sys.exit("raster_scaling: no 1920x1080 result for grid(s) %s in %s" % (missing, args.out))

    run = resolution_report.get("run", {})
    md = ("Rasterizer scaling (garden grid, SH degree 3, loss = sum of RGB; median of %s runs; %s, %s; peak: "
          "tilegrad's allocations beyond the parameters during one forward + Owned backward)\n\n"
          % (resolution_report["config"]["reps"], run.get("device_name", "?"), run.get("git_sha", "?")))
    md += "By Gaussian count, 1920x1080\n\n" + table(count_rows, "G")
    md += "\nBy resolution\n\n" + table(resolution_rows, "resolution")
    with open(os.path.join(args.out, "raster_scaling.md"), "w") as f:
        f.write(md)
    with open(os.path.join(args.out, "raster_scaling.json"), "w") as f:
        json.dump({"run": run, "by_count": count_rows, "by_resolution": resolution_rows}, f, indent=2)
        f.write("\n")
    print(md)
    print("wrote %s/raster_scaling.md and raster_scaling.json" % args.out)


if __name__ == "__main__":
    main()
