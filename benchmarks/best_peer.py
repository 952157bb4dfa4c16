"""Ours against the best peer, one markdown row per (op, shape, dtype), from the comparison tool's results.

    python benchmarks/best_peer.py [--above] [--dtype D] [--ops a,b] benchmarks/results/h100.csv   (the CSV --csv writes)
    python benchmarks/best_peer.py [--above] [--dtype D] [--ops a,b] bench.txt [more.txt ...]     (its printed output)

Each row: the op, its shape set, shape and dtype, infini's median, the fastest other implementation and its median,
and their ratio (infini time / peer time; above 1: a peer is faster). A later file's rows replace an earlier one's.
--above: only the rows where a peer's median is below ours (compared unrounded, as the tool measured them).
--dtype, --ops: only that dtype's rows, only those ops' rows.
"""

from __future__ import annotations

import argparse
import csv


def _sets_of_labels() -> dict:
    """{(op, shape label): "set[+set]"} from the tool's specs, for printed output (which names no set)."""
    try:
        from infinicore_torch.bench import specs
    except (ImportError, OSError):  # the table still prints without the set column's names
        return {}
    sets = {}
    for name, spec in specs.specs().items():
        for s, params in spec.shapes.items():
            for p in params:
                key = (name, spec.label(p))
                sets[key] = s if key not in sets else f"{sets[key]}+{s}"
    return sets


def parse(paths):
    """{(op, shape, dtype, impl): (median us, set)} from CSV files or the tool's printed tables."""
    rows = {}
    sets = None
    for path in paths:
        if path.endswith(".csv"):
            with open(path, newline="") as f:
                for r in csv.DictReader(f):
                    if r.get("median_us"):
                        rows[(r["op"], r["shape"], r["dtype"], r["impl"])] = (float(r["median_us"]), r.get("set", ""))
            continue
        with open(path) as fh:
            lines = fh.readlines()
        for line in lines:
            f = line.split()
            if len(f) < 12 or f[0] == "op" or "skipped:" in line:
                continue
            op, shape, dtype, impl = f[:4]
            try:
                median = float(f[4])
            except ValueError:
                continue
            if sets is None:
                sets = _sets_of_labels()
            rows[(op, shape, dtype, impl)] = (median, sets.get((op, shape), ""))
    return rows


def table(rows, above=False, dtype=None, ops=None):
    """The markdown lines: a header, then a row per (op, shape, dtype) that has an infini row and a peer."""
    keys = list(dict.fromkeys(k[:3] for k in rows))
    out = [
        "| op | set | shape | dtype | infini us | best peer | peer us | infini / peer time |",
        "|---|---|---|---|---:|---|---:|---:|",
    ]
    for op, shape, dt in keys:
        if (dtype and dt != dtype) or (ops and op not in ops):
            continue
        ours = rows.get((op, shape, dt, "infini"))
        peers = [(v[0], k[3]) for k, v in rows.items() if k[:3] == (op, shape, dt) and k[3] != "infini"]
        if ours is None or not peers:
            continue
        best, who = min(peers, key=lambda p: p[0])  # a tie goes to the peer met first, as the CSV's best_peer
        if above and ours[0] <= best:
            continue
        out.append(
            f"| {op} | {ours[1] or '-'} | {shape} | {dt} | {ours[0]:.2f} | {who} | {best:.2f} | {ours[0] / best:.2f} |"
        )
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--above", action="store_true", help="only the rows where a peer is faster")
    ap.add_argument("--dtype", default=None)
    ap.add_argument("--ops", default=None, help="comma-separated op names")
    args = ap.parse_args(argv)
    print("\n".join(table(parse(args.files), args.above, args.dtype, args.ops.split(",") if args.ops else None)))


if __name__ == "__main__":
    main()
