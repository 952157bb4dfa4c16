"""The "ours against the best peer" table of RESULTS.md from the comparison tool's printed output.

    python benchmarks/best_peer.py [--above] bench_cuda_all.txt [more.txt ...]   (a later file's rows win)

Prints a markdown row per (op, shape, dtype): infini's median, the fastest other implementation's,
their ratio (infini time / peer time; above 1: a peer is faster) and infini's % of copy bandwidth.
--above: only the rows where a peer's median is below ours (compared as printed by the tool, not as rounded here).
"""

from __future__ import annotations

import sys


def parse(paths):
    rows = {}
    for path in paths:
        for line in open(path):
            f = line.split()
            if len(f) < 12 or f[0] == "op" or "skipped:" in line:
                continue
            op, shape, dtype, impl = f[:4]
            try:
                median = float(f[4])
            except ValueError:
                continue
            rows[(op, shape, dtype, impl)] = (median, f[9])
    return rows


def main(paths, above=False):
    rows = parse(paths)
    keys = sorted({k[:3] for k in rows}, key=lambda k: list(rows).index(next(r for r in rows if r[:3] == k)))
    print("| op | shape | infini us | best peer | peer us | infini/peer time | infini % of copy |")
    print("|---|---|---|---|---|---|---|")
    for op, shape, dtype in keys:
        ours = rows.get((op, shape, dtype, "infini"))
        peers = [(v[0], k[3]) for k, v in rows.items() if k[:3] == (op, shape, dtype) and k[3] != "infini"]
        if ours is None or not peers:
            continue
        best, who = min(peers)
        if above and ours[0] <= best:
            continue
        print(f"| {op} | {shape} | {ours[0]:.2f} | {who} | {best:.2f} | {ours[0] / best:.2f} | {ours[1]} |")


if __name__ == "__main__":
    args = sys.argv[1:]
    main([a for a in args if a != "--above"], above="--above" in args)
