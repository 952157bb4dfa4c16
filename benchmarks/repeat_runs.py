"""The bar ops' rows over repeated comparison-tool runs (separate processes: each allocates its buffers
afresh, which moves a decode row by a tick or more of the 32 ns event clock): for each (op, shape, dtype),
ours against the best peer in each run (infini time / best peer time, from each run's printed output), the
median over runs of ours and of each peer, and the ratio of those medians. First written in the
twenty-fifth session (as probe/repeat_runs_s25.py).

    python3 benchmarks/repeat_runs.py run1/bench.txt run2/bench.txt ...
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
    print("| op | shape | ours us (each run) | best peer us (each run) | ratio each run | median ours / median of best peer |")
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
        print(f"| {op} | {shape} | {' / '.join(f'{x:.2f}' for x in ours)} | {' / '.join(best)} | "
              f"{' / '.join(f'{x:.3f}' for x in ratios)} | {mark}{statistics.median(ours):.2f} / {peer_med:.2f} {peer} = "
              f"{ratio:.3f}{mark} |")
    print(f"rows where the median of ours is above the best peer's median: {behind}")


if __name__ == "__main__":
    main(sys.argv[1:])
