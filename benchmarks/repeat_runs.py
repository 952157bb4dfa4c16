"""Rows over repeated comparison-tool runs (separate processes: each allocates its buffers afresh, which
moves a decode row by a tick or more of the 32 ns event clock): for each (op, shape, dtype), ours against
the best peer in each run (infini time / best peer time, from each run's printed output or CSV), the
median over runs of ours and of each peer, and the ratio of those medians - the reading docs/gpu.md's
decode-row rule takes over five fresh processes.

    python3 benchmarks/repeat_runs.py run1/bench.txt run2/bench.txt ...
    python3 benchmarks/repeat_runs.py --each [--ops a,b] [--set decode] run1/bench.txt ...

--each: the strict single-run reading applied to every implementation in turn, ours and each peer alike: per run,
at how many rows (of the shape set, bf16) the implementation's median is above the fastest of all the others', and
by how much at worst (a rule that no implementation can meet run after run is deciding by the draw).
"""

from __future__ import annotations

import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from best_peer import parse  # noqa: E402


def main(paths):
    runs = [parse([p]) for p in paths]
    keys = []
    for r in runs:
        for k in r:
            if k[:3] not in keys:
                keys.append(k[:3])
    print(f"{len(runs)} runs")
    print(
        "| op | shape | ours us (each run) | best peer us (each run) | ratio each run | median ours / median of best peer |"
    )
    print("|---|---|---|---|---|---|")
    behind = 0
    for op, shape, dtype in keys:
        ours, best, ratios, per_impl = [], [], [], {}
        for r in runs:
            o = r.get((op, shape, dtype, "infini"))
            peers = [(v[0], k[3]) for k, v in r.items() if k[:3] == (op, shape, dtype) and k[3] != "infini"]
            if o is None or not peers:
                continue
            for t, who in peers:
                per_impl.setdefault(who, []).append(t)
            b, who = min(peers)
            ours.append(o[0])
            best.append(f"{b:.2f} {who}")
            ratios.append(o[0] / b)
        if not ratios:
            continue
        med = {who: statistics.median(ts) for who, ts in per_impl.items() if len(ts) == len(ours)}
        peer_med, peer = min((t, who) for who, t in med.items())
        ratio = statistics.median(ours) / peer_med
        behind += ratio > 1.0
        mark = "**" if ratio > 1.0 else ""
        print(
            f"| {op} | {shape} | {' / '.join(f'{x:.2f}' for x in ours)} | {' / '.join(best)} | "
            f"{' / '.join(f'{x:.3f}' for x in ratios)} | {mark}{statistics.median(ours):.2f} / {peer_med:.2f} {peer} = "
            f"{ratio:.3f}{mark} |"
        )
    print(f"rows where the median of ours is above the best peer's median: {behind}")


EACH = ("infini", "compile", "triton", "liger", "torch")


def each(paths, ops=None, shape_set="decode", dtype="bfloat16"):
    from infinicore_torch.bench import specs as S

    # the set's rows by their printed labels (the tool's output names no shape set outside a terminal)
    in_set = {(name, spec.label(p)) for name, spec in S.specs().items() for p in spec.shapes.get(shape_set, [])}
    print("| run | " + " | ".join(f"{i}: rows above the fastest other (worst ratio)" for i in EACH) + " |")
    print("|---|" + "---|" * len(EACH))
    for path in paths:
        r = parse([path])
        keys = {k[:3] for k in r if k[2] == dtype and (ops is None or k[0] in ops) and k[:2] in in_set}
        cells = []
        for impl in EACH:
            n = above = 0
            worst = 0.0
            for k in keys:
                others = [v[0] for kk, v in r.items() if kk[:3] == k and kk[3] != impl]
                if k + (impl,) not in r or not others:
                    continue
                n += 1
                x = r[k + (impl,)][0] / min(others)
                if x > 1.0:
                    above += 1
                    worst = max(worst, x)
            cells.append(f"{above} of {n} ({worst:.2f})" if n else "-")
        print(f"| {path} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+")
    ap.add_argument("--each", action="store_true")
    ap.add_argument("--ops", default=None, help="comma-separated (--each)")
    ap.add_argument("--set", default="decode", help="shape set (--each)")
    args = ap.parse_args()
    if args.each:
        each(args.runs, set(args.ops.split(",")) if args.ops else None, args.set)
    else:
        main(args.runs)
