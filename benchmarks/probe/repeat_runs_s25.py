"""Twenty-fifth session: the bar ops' rows over repeated comparison-tool runs: for each (op, shape), ours
against the best peer in each run (infini time / best peer time, from each run's printed output), and the
median over runs. Usage: python3 repeat_runs_s25.py run1/bench.txt run2/bench.txt ..."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from best_peer import parse  # noqa: E402

runs = [parse([p]) for p in sys.argv[1:]]
keys = []
for r in runs:
    for k in r:
        if k[:3] not in keys:
            keys.append(k[:3])
print("| op | shape | ours us (each run) | best peer us (each run) | ratio each run | median ratio |")
print("|---|---|---|---|---|---|")
for op, shape, dtype in keys:
    ours, best, ratios = [], [], []
    for r in runs:
        o = r.get((op, shape, dtype, "infini"))
        peers = [(v[0], k[3]) for k, v in r.items() if k[:3] == (op, shape, dtype) and k[3] != "infini"]
        if o is None or not peers:
            continue
        b, who = min(peers)
        ours.append(f"{o[0]:.1f}")
        best.append(f"{b:.1f} {who}")
        ratios.append(o[0] / b)
    if ratios:
        print(f"| {op} | {shape} | {' / '.join(ours)} | {' / '.join(best)} | {' / '.join(f'{x:.2f}' for x in ratios)} | "
              f"**{statistics.median(ratios):.2f}** |")
