"""The evict_last output stores (common.cuh's storeVec with KEEP) in the binary elementwise kernel (swiglu, add) and
paged_caching's many-token row kernel, A/B in one process: ours with them (INFINI_PROBE_KEEP unset or 1) and
without (=0; read at launch only with keep_knob_s45.patch applied), and the tool's peers, on the tool's own inputs
(bench/specs.py), timed as the tool times (L2 flush, GPU kept busy, interleaved, medians over rounds); then K calls
back to back on distinct inputs as one region (per-call mean: what deferring the write-backs costs a steady stream)
and, for the elementwise ops, one call followed by a consumer of its output (y * 2).
    python3 benchmarks/probe/keep_ab.py [--ops swiglu,add,paged_caching] [--sets prefill,large] [--rounds 5]"""
import argparse
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from infinicore_torch.bench import impls, measure, specs

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--ops", default="swiglu,paged_caching,add")
ap.add_argument("--sets", default="prefill,large")
ap.add_argument("--peers", default="compile,triton,liger,torch")
ap.add_argument("--reps", type=int, default=30)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--chain", type=int, default=6)
ap.add_argument("--busy-us", type=float, default=100.0)
args = ap.parse_args()
dev, dt = torch.device("cuda"), torch.bfloat16
timer = measure.Timer(dev, args.busy_us)
g = torch.Generator().manual_seed(0)  # (a CPU generator, as the tool's)


def knob(v, fn):
    def call(*a):
        os.environ["INFINI_PROBE_KEEP"] = v
        return fn(*a)
    return call


def meds(fns, inputs=()):
    per = [[] for _ in fns]
    for _ in range(args.rounds):
        ts = timer.time_interleaved(fns, inputs, min_reps=args.reps, max_reps=args.reps, budget_s=0.0)
        for i, t in enumerate(ts):
            per[i].append(statistics.median(t) * 1e6)
    return [statistics.median(p) for p in per]


def first(out):
    return out[0] if isinstance(out, (tuple, list)) else out


all_specs = specs.specs()
for op in args.ops.split(","):
    spec = all_specs[op]
    for sset in args.sets.split(","):
        for p in spec.shapes[sset]:
            label = f"{op} " + "x".join(str(v) for v in p.values())
            sets = [spec.make(p, dt, dev, g) for _ in range(args.chain)]
            names = ["ours keep", "ours plain"]
            impl_fns = [knob("1", spec.infini), knob("0", spec.infini)]
            for peer in args.peers.split(","):
                try:
                    impl_fns.append(impls.resolve(peer, spec, dev))
                    names.append(peer)
                except impls.Skip:
                    pass
            ref = first(spec.reference(*sets[0]))
            errs = []
            for fn in impl_fns[:2]:
                got = first(fn(*sets[0]))
                errs.append(((got.float() - ref.float()).norm() / ref.float().norm()).item() if op != "paged_caching" else 0.0)
            one = meds(impl_fns, sets[0])
            chain = meds([lambda *_, fn=fn: [fn(*s) for s in sets] for fn in impl_fns])
            pair = meds([lambda *_, fn=fn: first(fn(*sets[0])).mul(2.0) for fn in impl_fns]) if op != "paged_caching" else None
            for i, name in enumerate(names):
                line = (f"{label:22s} {name:11s} one call {one[i]:8.2f} us ({one[i] / one[1]:6.3f} of plain)   chain of {args.chain} "
                        f"{chain[i] / args.chain:8.2f} a call ({chain[i] / chain[1]:6.3f})")
                if pair:
                    line += f"   with y * 2 {pair[i]:8.2f} ({pair[i] / pair[1]:6.3f})"
                if i < 2:
                    line += f"   rel_l2 {errs[i]:.1e}"
                print(line, flush=True)
            del sets
os.environ.pop("INFINI_PROBE_KEEP", None)
print(f"late calls re-timed: {timer.late}; widest busy window {timer.busy_max_cycles / 2000:.0f} us")
