"""Where a decode-size kernel's time goes when the L2 was flushed: each implementation's kernel duration
(profiler) and event time in four modes, interleaved by round: `flush` (the tool's: L2 flushed before the
call), `warmcode` (flushed, then the same implementation called once on a copy of the inputs: its code,
parameters path and page translations are warm, the timed call's data is not), `noflush` (the previous
timed call's data and code stay in the L2) and `hot` (as noflush, the call made twice, the second timed).
With --knob VAR=v1,v2 ours runs once under each value of that environment knob.
Usage: python3 benchmarks/probe/cold_modes.py op[:set] ... [--reps N] [--rounds R] [--impls a,b] [--knob VAR=a,b]"""
import statistics
from collections import defaultdict

import torch
import infinicore_torch  # noqa: F401
from cases import cases, probe_setup, with_knob  # (benchmarks/probe, this script's folder)

args, dev, timer = probe_setup(__doc__, reps=100, impls="infini,compile,triton",
                               extra=[(("--rounds",), {"type": int, "default": 3}),
                                      (("--knob",), {"default": ""})])
MODES = ("flush", "warmcode", "noflush", "hot")


def timed(fn, inputs, spare, mode, reps):
    """(event us per call, {kernel name: [durations of the timed calls' kernels]})."""
    ev = []
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        for _ in range(reps):
            if mode in ("flush", "warmcode"):
                timer.flush()
            if mode == "warmcode":
                fn(*spare)
            if mode == "hot":
                fn(*inputs)
            torch.cuda._sleep(timer.busy_cycles)
            s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            s.record()
            fn(*inputs)
            e.record()
            e.synchronize()
            ev.append(s.elapsed_time(e) * 1e3)
    per = defaultdict(list)
    for e in prof.events():
        if e.device_type != torch.autograd.DeviceType.CPU:
            per[e.name].append((e.time_range.start, e.device_time if hasattr(e, "device_time") else e.cuda_time))
    out = {}
    for name, v in per.items():
        v.sort()
        if mode in ("warmcode", "hot") and len(v) >= 2 * reps:
            v = v[1::2]  # the second of each pair: the timed call
        out[name] = [d for _, d in v]
    return statistics.median(ev), out


var, _, values = args.knob.partition("=")


todo = []
for op, label, impl, fn, inputs in cases(args.items, args.impls.split(","), dev):
    if impl == "infini" and var:
        todo += [(op, label, f"infini {var}={v}", with_knob(var, fn, v), inputs) for v in values.split(",")]
    else:
        todo.append((op, label, impl, fn, inputs))
base = None
res = defaultdict(lambda: defaultdict(list))
for rnd in range(args.rounds):
    for mode in MODES:
        for op, label, impl, fn, inputs in todo:
            spare = tuple(t.clone() for t in inputs)
            for _ in range(3):
                fn(*inputs)
            torch.cuda.synchronize()
            if base is None:
                base = set(timed(lambda: None, (), (), "flush", 3)[1])
            ev, ks = timed(fn, inputs, spare, mode, args.reps)
            kern = sum(statistics.median(d) for k, d in ks.items() if k not in base and len(d) >= args.reps // 2)
            res[(op, label, mode)][impl].append((ev, kern))
for (op, label, mode), by in res.items():
    line = f"{op:14s} {label:10s} {mode:9s}"
    for impl, vals in by.items():
        line += f" | {impl} ev {statistics.median(v[0] for v in vals):5.2f} k {statistics.median(v[1] for v in vals):5.2f}"
    print(line, flush=True)
