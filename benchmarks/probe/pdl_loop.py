"""Back-to-back calls: each implementation called R times in a row (GPU kept busy first, so that the host has
enqueued them all before the first runs), events around the whole loop: us a call = loop time / R. "solo": the
op alone, call after call; "mixed": each call after a torch kernel (an elementwise multiply of the op's first
input into a spare buffer), as in a model, where the op's kernel follows another's; "ours": each call after our
swiglu of that input (a dependent launch that triggers early, as rms_norm before a linear). Ours under each value of a
launch-time knob. Usage: python3 benchmarks/probe/pdl_loop.py VAR=0,1 op[:set] ... [--rounds R] [--impls peers]"""
import os
import statistics

import torch
import infinicore_torch  # noqa: F401
from cases import grouped, knob_setup  # (benchmarks/probe, this script's folder)

args, var, values, dev, timer = knob_setup(__doc__, reps=200)
R = args.reps
for (op, label), g in grouped(args.items, args.impls, dev, var, values).items():
    inputs = g["inputs"]
    spare = torch.empty_like(inputs[0])
    for mode in ("solo", "mixed", "ours"):
        per = {name: [] for name, _ in g["fns"]}
        late = 0
        for rnd in range(args.rounds):
            for name, fn in g["fns"]:
                if mode == "solo":
                    body = fn
                elif mode == "ours":
                    def body(*a, fn=fn):
                        torch.ops.infini.swiglu(a[0], a[0])
                        return fn(*a)
                else:
                    def body(*a, fn=fn):
                        torch.mul(a[0], 1.0, out=spare)
                        return fn(*a)
                for _ in range(3):
                    body(*inputs)
                torch.cuda.synchronize()
                s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                torch.cuda._sleep(20_000_000)  # ~10 ms: the host enqueues the whole loop meanwhile
                s.record()
                for _ in range(R):
                    body(*inputs)
                e.record()
                late += s.query()
                torch.cuda.synchronize()
                per[name].append(s.elapsed_time(e) * 1e3 / R)
        os.environ.pop(var, None)
        for name, ms in per.items():
            print(f"{op:14s} {label:14s} {mode:6s} {name:18s} {statistics.median(ms):8.2f} us a call  ({' '.join(f'{m:.2f}' for m in ms)})", flush=True)
        if late:
            print(f"  ({late} loops started before the host had enqueued them: their times count host time)")
