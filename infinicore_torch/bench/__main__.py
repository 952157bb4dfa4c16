"""python -m infinicore_torch.bench: check and time every implementation of each operator.

Examples:
    python -m infinicore_torch.bench --device cpu --ops all --shapes decode
    python -m infinicore_torch.bench --device cuda --ops rms_norm,softmax --shapes decode,prefill,large \\
        --dtypes bfloat16,float32 --busy-us 100 --out results/ --csv benchmarks/results/h100.csv
"""

from __future__ import annotations

import argparse
import os
import sys

import torch

from . import IMPLS, SHAPE_SETS, report, run


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m infinicore_torch.bench",
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=__doc__.split("\n", 2)[2],
    )
    ap.add_argument("--device", default="cpu", choices=["cpu", "cuda", "infini"], help="where the inputs live")
    ap.add_argument("--ops", default="all", help="comma-separated op names, or all")
    ap.add_argument("--shapes", default="decode", help=f"comma-separated shape sets: {', '.join(SHAPE_SETS)}")
    ap.add_argument("--dtypes", default="bfloat16", help="comma-separated: float32, float16, bfloat16")
    ap.add_argument("--impls", default=",".join(IMPLS), help=f"comma-separated implementations: {', '.join(IMPLS)}")
    ap.add_argument("--repeat", type=int, default=100, help="most timed calls per measurement")
    ap.add_argument("--budget", type=float, default=0.3, help="seconds of timed calls per measurement (after 5 calls)")
    ap.add_argument("--out", default="bench_results", help="folder for results.json and the plots")
    ap.add_argument(
        "--csv",
        default=None,
        metavar="PATH",
        help="also merge the timed rows into this CSV, rewritten in place: one row per op, shape, dtype "
        "and implementation (a row of this run replaces the file's row of the same key)",
    )
    ap.add_argument("--no-check", action="store_true", help="skip the accuracy check")
    ap.add_argument("--no-plots", action="store_true", help="write no PNG plots")
    ap.add_argument(
        "--busy-us",
        type=float,
        default=0.0,
        help="CUDA: keep the GPU busy this many microseconds after each cache flush, so that the "
        "implementations' host-side launch cost is not timed (0: off); doubled, and the call timed "
        "again, where a call's host side outlasts it",
    )
    args = ap.parse_args(argv)

    dtypes = []
    for name in args.dtypes.split(","):
        dt = getattr(torch, name, None)
        if not isinstance(dt, torch.dtype):
            ap.error(f"unknown dtype {name!r}")
        dtypes.append(dt)
    impls = tuple(args.impls.split(","))
    for i in impls:
        if i not in IMPLS:
            ap.error(f"unknown implementation {i!r}; known: {', '.join(IMPLS)}")
    ops = "all" if args.ops == "all" else args.ops.split(",")

    print(report.header(), flush=True)
    meta, results = run(
        args.device,
        ops,
        tuple(args.shapes.split(",")),
        tuple(dtypes),
        impls,
        check=not args.no_check,
        repeat=args.repeat,
        budget_s=args.budget,
        busy_us=args.busy_us,
        on_result=lambda r: print(report.row(r), flush=True),
    )
    print(
        f"# {meta['device']} ({meta['device_name']}), torch {meta['torch']}: device-to-device copy "
        f"{meta['copy_gbps']:.1f} GB/s ({meta['copy_bytes'] >> 20} MiB)"
    )
    if meta.get("l2_flush"):
        print(f"# L2 flush before each timed call: {meta['l2_flush']}")
    if meta["busy_us"] > 0:
        print(
            f"# GPU kept busy {meta['busy_us']:g} us before each start event; {meta['late_calls']} calls found it reached "
            f"before their host side had enqueued them and were timed again with it doubled (widest {meta['busy_us_widest']:g} us)"
        )
    failed = [r for r in results if r.get("accuracy") and not r["accuracy"].get("ok")]
    for r in failed:
        print(f"# accuracy FAIL: {r['op']} {r['shape']} {r['dtype']} {r['impl']}: {r['accuracy']}")
    os.makedirs(args.out, exist_ok=True)
    report.write_json(os.path.join(args.out, "results.json"), meta, results)
    print(f"# results: {os.path.join(args.out, 'results.json')}")
    if args.csv:
        n = report.write_csv(args.csv, results, meta)
        print(f"# csv: {args.csv} ({n} rows)")
    if not args.no_plots:
        try:
            plots = report.write_plots(args.out, results)
            print(f"# plots: {len(plots)} PNG files in {args.out}")
        except ImportError:
            print("# plots: skipped (matplotlib is not installed)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
